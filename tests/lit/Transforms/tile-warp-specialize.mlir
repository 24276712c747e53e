// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize=target=sm_90 | FileCheck %s --check-prefix=AMPERE
// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize=verbose=1 2>&1 | FileCheck %s --check-prefix=WHY
// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize | metaattn-opt -split-input-file | FileCheck %s

// Three stages of K (64x128 bf16, 128-byte rows) over a 256-thread kernel: a ring of three
// stages, full barriers expecting one arrival (plus the bytes), empty barriers expecting one
// arrival per consumer warp, a producer that recomputes the bounds and issues TMA copies, and
// consumers that wait on full and release on empty. The kernel gains a producer warpgroup.
// The Q tile, copied once before the loop and only read by gemms, is the producer's first TMA
// copy (on a barrier of its own); the consumers wait for it where they copied it, and the
// block barrier that followed their copy is gone.
// CHECK-LABEL: tile.kernel @ws
// CHECK-SAME: threads = 384
// CHECK: %[[RING:.*]] = tile.alloc : memref<3x64x128xbf16, #tile.space<shared>>
// CHECK: %[[FULL:.*]] = tile.alloc : memref<3xi64, #tile.space<shared>>
// CHECK: %[[EMPTY:.*]] = tile.alloc : memref<3xi64, #tile.space<shared>>
// CHECK: tile.mbarrier_init %[[FULL]], 1
// CHECK: tile.mbarrier_init %[[EMPTY]], 8
// CHECK: %[[QFULL:.*]] = tile.alloc : memref<1xi64, #tile.space<shared>>
// CHECK: tile.mbarrier_init %[[QFULL]], 1
// CHECK: tile.barrier
// CHECK: %[[QS:.*]] = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
// The producer issues the query tile's copy before it computes what the loop needs.
// CHECK: tile.warp_specialize producer {
// CHECK-NOT: tile.dim
// CHECK: tile.mbarrier_arrive_expect_tx %[[QFULL]][%{{.*}}], 32768
// CHECK: tile.tma_copy %arg0[%{{.*}}, %{{.*}}] to %[[QS]], %[[QFULL]][%{{.*}}] {dims = array<i64: 0, 1>}
// CHECK: %[[HI:.*]] = tile.dim %arg1, 0
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[HI]]
// CHECK: %[[SLOT:.*]] = arith.remui %{{.*}}, %{{.*}}
// CHECK: %[[ROUND:.*]] = arith.divui %{{.*}}, %{{.*}}
// CHECK: %[[ODD:.*]] = arith.andi %[[ROUND]], %{{.*}}
// CHECK: %[[PARITY:.*]] = arith.xori %[[ODD]], %{{.*}}
// CHECK: %[[ST:.*]] = tile.stage %[[RING]][%[[SLOT]]]
// CHECK: tile.mbarrier_wait %[[EMPTY]][%[[SLOT]]], %[[PARITY]]
// CHECK: tile.mbarrier_arrive_expect_tx %[[FULL]][%[[SLOT]]], 16384
// CHECK: tile.tma_copy %arg1[%{{.*}}, %{{.*}}] to %[[ST]], %[[FULL]][%[[SLOT]]] {dims = array<i64: 0, 1>}
// CHECK-NOT: tile.gemm
// CHECK: } consumer {
// CHECK-NOT: tile.copy
// CHECK: tile.mbarrier_wait %[[QFULL]][%[[Z:.*]]], %[[Z]]
// The consumers' barrier after the copy went with it: each thread waits for the TMA copy.
// CHECK-NOT: tile.barrier
// CHECK: scf.for
// CHECK: %[[CSLOT:.*]] = arith.remui %{{.*}}, %{{.*}}
// CHECK: %[[CROUND:.*]] = arith.divui %{{.*}}, %{{.*}}
// CHECK: %[[CPAR:.*]] = arith.andi %[[CROUND]], %{{.*}}
// CHECK: %[[CST:.*]] = tile.stage %[[RING]][%[[CSLOT]]]
// CHECK: tile.mbarrier_wait %[[FULL]][%[[CSLOT]]], %[[CPAR]]
// CHECK-NEXT: tile.gemm %[[QS]], %[[CST]], %{{.*}} {transpose_b}
// CHECK-NEXT: tile.mbarrier_arrive %[[EMPTY]][%[[CSLOT]]]
// CHECK: }
// CHECK-NOT: tile.pipelined
// CHECK-NOT: tile.copy %arg1
// AMPERE-LABEL: tile.kernel @ws
// AMPERE-SAME: threads = 256
// AMPERE-NOT: tile.warp_specialize
// AMPERE: tile.pipelined
tile.kernel @ws(%q: !tile.tensor<?x128xbf16>, %k: !tile.tensor<?x128xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  %n = tile.dim %k, 0 : !tile.tensor<?x128xbf16>
  tile.copy %q[%c0, %c0] to %qs {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<128x128xbf16, #tile.space<shared>>
  tile.barrier
  tile.pipelined %j = %c0 to %n stages 3 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    tile.gemm %qs, %ks, %s {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// A tile before the loop that the consumers also write (here: zeroed before the copy of a
// partial window) stays a copy of the consumers.
// CHECK-LABEL: tile.kernel @q_written
// CHECK: } consumer {
// CHECK: tile.fill %[[QW:.*]], %{{.*}}
// CHECK-NEXT: tile.copy %arg0[%{{.*}}, %{{.*}}] to %[[QW]]
tile.kernel @q_written(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x128xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : bf16
  %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  %n = tile.dim %k, 0 : !tile.tensor<?x128xbf16>
  tile.fill %qs, %zero : memref<128x128xbf16, #tile.space<shared>>, bf16
  tile.copy %q[%c0, %c0] to %qs {dims = array<i64: 0, 1>} : !tile.tensor<?x64xbf16> to memref<128x128xbf16, #tile.space<shared>>
  tile.barrier
  tile.pipelined %j = %c0 to %n stages 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    tile.gemm %qs, %ks, %s {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// 64-wide bf16 rows are 128 bytes: still TMA. A 48-wide tile (96-byte rows) is not: the loop
// stays on cp.async and the verbose pass says why.
// CHECK-LABEL: tile.kernel @narrow
// CHECK-SAME: threads = 128
// CHECK-NOT: tile.warp_specialize
// WHY: remark: not warp-specialised: a prefetched tile's rows are not a multiple of 128 bytes
tile.kernel @narrow(%k: !tile.tensor<?x48xbf16>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %ks = tile.alloc : memref<64x48xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<64x48xf32, #tile.space<fragment>>
  tile.pipelined %j = %c0 to %c4 stages 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x48xbf16> to memref<64x48xbf16, #tile.space<shared>>
    tile.copy %ks to %s : memref<64x48xbf16, #tile.space<shared>> to memref<64x48xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// One stage: nothing to overlap, nothing to specialise.
// WHY: remark: not warp-specialised: the loop is not pipelined over two or more stages
tile.kernel @single(%k: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %ks = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  tile.pipelined %j = %c0 to %c4 stages 1 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
    tile.copy %ks to %s : memref<64x64xbf16, #tile.space<shared>> to memref<64x64xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// Two prefetched tiles (K for the first gemm, V for the second): each ring has its own full
// and empty barriers; the consumers wait for V only right before the gemm that reads it and
// release K right after the gemm that reads it, so the producer can refill K early.
// CHECK-LABEL: tile.kernel @two_rings
// CHECK: %[[KR:.*]] = tile.alloc : memref<2x64x128xbf16, #tile.space<shared>>
// CHECK: %[[VR:.*]] = tile.alloc : memref<2x64x128xbf16, #tile.space<shared>>
// CHECK: %[[KF:.*]] = tile.alloc : memref<2xi64, #tile.space<shared>>
// CHECK: %[[KE:.*]] = tile.alloc : memref<2xi64, #tile.space<shared>>
// CHECK: %[[VF:.*]] = tile.alloc : memref<2xi64, #tile.space<shared>>
// CHECK: %[[VE:.*]] = tile.alloc : memref<2xi64, #tile.space<shared>>
// CHECK: producer {
// CHECK: tile.mbarrier_wait %[[KE]]
// CHECK: tile.mbarrier_arrive_expect_tx %[[KF]][%{{.*}}], 16384
// CHECK: tile.tma_copy %arg1{{.*}}, %[[KF]]
// CHECK: tile.mbarrier_wait %[[VE]]
// CHECK: tile.mbarrier_arrive_expect_tx %[[VF]][%{{.*}}], 16384
// CHECK: tile.tma_copy %arg2{{.*}}, %[[VF]]
// CHECK: } consumer {
// CHECK: tile.mbarrier_wait %[[KF]]
// CHECK-NEXT: tile.gemm
// CHECK-NEXT: tile.mbarrier_arrive %[[KE]]
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.mbarrier_wait %[[VF]]
// CHECK-NEXT: tile.gemm
// CHECK-NEXT: tile.mbarrier_arrive %[[VE]]
tile.kernel @two_rings(%q: !tile.tensor<?x128xbf16>, %k: !tile.tensor<?x128xbf16>, %v: !tile.tensor<?x128xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %vs = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  %p = tile.alloc : memref<128x64xbf16, #tile.space<fragment>>
  %o = tile.alloc : memref<128x128xf32, #tile.space<fragment>>
  %n = tile.dim %k, 0 : !tile.tensor<?x128xbf16>
  tile.copy %q[%c0, %c0] to %qs {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<128x128xbf16, #tile.space<shared>>
  tile.barrier
  tile.pipelined %j = %c0 to %n stages 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    tile.copy %v[%kv0, %c0] to %vs {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    tile.gemm %qs, %ks, %s {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
    tile.copy %s to %p : memref<128x64xf32, #tile.space<fragment>> to memref<128x64xbf16, #tile.space<fragment>>
    tile.gemm %p, %vs, %o : memref<128x64xbf16, #tile.space<fragment>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
  }
  tile.return
}
