// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize=skip-loads=1 | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize=skip-loads=1 | metaattn-opt -split-input-file | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize | FileCheck %s --check-prefix=OFF

// skip-loads: the loop body's reads of K sit in one scf.if whose condition reads the key ids'
// bounds (a document mask's guard). The producer evaluates that condition too, one iteration
// ahead: the first iteration's before the loop, the next one's after this one's copies
// (carried by the loop). It waits for the stage as always, then either announces the bytes
// and copies K, or arrives announcing 0 bytes. The consumers are unchanged: they compute the
// same condition, wait on `full` (which completes at once for a skipped tile) and release
// the stage.
// CHECK-LABEL: tile.kernel @documents
// CHECK: %[[RING:.*]] = tile.alloc : memref<2x64x128xbf16, #tile.space<shared>>
// CHECK: %[[FULL:.*]] = tile.alloc : memref<2xi64, #tile.space<shared>>
// CHECK: %[[EMPTY:.*]] = tile.alloc : memref<2xi64, #tile.space<shared>>
// CHECK: tile.warp_specialize producer {
// CHECK: %[[Q0MIN:.*]], %[[Q0MAX:.*]] = tile.read_bounds %arg2[%{{.*}}] to %{{.*}} {axis = 0 : i64}
// CHECK: %[[K0MIN:.*]], %[[K0MAX:.*]] = tile.read_bounds %arg3[%{{.*}}] to %{{.*}} {axis = 0 : i64}
// CHECK: %[[MEET0:.*]] = arith.cmpi sle, %[[K0MIN]], %[[Q0MAX]] : i32
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[MEET:.*]] = %[[MEET0]]) -> (i1) {
// CHECK: %[[SLOT:.*]] = arith.remui
// CHECK: %[[ST:.*]] = tile.stage %[[RING]][%[[SLOT]]]
// CHECK: %[[KV0:.*]] = arith.muli %[[J]], %{{.*}} : index
// CHECK-NEXT: tile.mbarrier_wait %[[EMPTY]][%[[SLOT]]]
// CHECK-NEXT: scf.if %[[MEET]] {
// CHECK-NEXT: tile.mbarrier_arrive_expect_tx %[[FULL]][%[[SLOT]]], 16384
// CHECK-NEXT: tile.tma_copy %arg1[%[[KV0]], %{{.*}}] to %[[ST]], %[[FULL]][%[[SLOT]]]
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.mbarrier_arrive_expect_tx %[[FULL]][%[[SLOT]]], 0
// CHECK-NEXT: }
// CHECK: %[[J1:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: %[[KV1:.*]] = arith.muli %[[J1]], %{{.*}} : index
// CHECK: %[[QMIN:.*]], %[[QMAX:.*]] = tile.read_bounds %arg2
// CHECK: %[[KMIN:.*]], %[[KMAX:.*]] = tile.read_bounds %arg3[%[[KV1]]]
// CHECK: %[[NEXT:.*]] = arith.cmpi sle, %[[KMIN]], %[[QMAX]] : i32
// CHECK-NEXT: scf.yield %[[NEXT]] : i1
// CHECK: } consumer {
// CHECK: scf.for
// CHECK: tile.read_bounds %arg3
// CHECK: tile.mbarrier_wait %[[FULL]]
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.gemm
// CHECK: tile.mbarrier_arrive %[[EMPTY]]
// Without the option the producer copies every tile and reads no ids.
// OFF-LABEL: tile.kernel @documents
// OFF: tile.warp_specialize producer {
// OFF-NOT: tile.read_bounds
// OFF-NOT: scf.if
// OFF: } consumer {
tile.kernel @documents(%q: !tile.tensor<?x128xbf16>, %k: !tile.tensor<?x128xbf16>, %qid: !tile.tensor<?xi32>, %kid: !tile.tensor<?xi32>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  %n = tile.dim %k, 0 : !tile.tensor<?x128xbf16>
  %bx = tile.block_id 0
  %q0 = arith.muli %bx, %c128 : index
  %qlast = arith.addi %q0, %c127 : index
  tile.copy %q[%q0, %c0] to %qs {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<128x128xbf16, #tile.space<shared>>
  tile.barrier
  tile.pipelined %j = %c0 to %n stages 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    %kvlast = arith.addi %kv0, %c63 : index
    %qmin, %qmax = tile.read_bounds %qid[%q0] to %qlast {axis = 0 : i64} : <?xi32> -> i32
    %kmin, %kmax = tile.read_bounds %kid[%kv0] to %kvlast {axis = 0 : i64} : <?xi32> -> i32
    %meet = arith.cmpi sle, %kmin, %qmax : i32
    scf.if %meet {
      tile.gemm %qs, %ks, %s {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
    }
  }
  tile.return
}

// -----

// A guard of the indices alone (a causal test) is settled by the loop's bounds: no guard for
// the producer, which copies every tile.
// CHECK-LABEL: tile.kernel @indices_only
// CHECK: tile.warp_specialize producer {
// CHECK-NOT: scf.if
// CHECK-NOT: arrive_expect_tx {{.*}}, 0 :
// CHECK: } consumer {
tile.kernel @indices_only(%q: !tile.tensor<?x128xbf16>, %k: !tile.tensor<?x128xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  %n = tile.dim %k, 0 : !tile.tensor<?x128xbf16>
  %bx = tile.block_id 0
  %q0 = arith.muli %bx, %c128 : index
  tile.copy %q[%q0, %c0] to %qs {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<128x128xbf16, #tile.space<shared>>
  tile.barrier
  tile.pipelined %j = %c0 to %n stages 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    %seen = arith.cmpi sle, %kv0, %q0 : index
    scf.if %seen {
      tile.gemm %qs, %ks, %s {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
    }
  }
  tile.return
}

// -----

// K is also read outside the guard: skipping its copy would starve that read, so the producer
// copies every tile.
// CHECK-LABEL: tile.kernel @read_outside
// CHECK: tile.warp_specialize producer {
// CHECK-NOT: arrive_expect_tx {{.*}}, 0 :
// CHECK: } consumer {
tile.kernel @read_outside(%q: !tile.tensor<?x128xbf16>, %k: !tile.tensor<?x128xbf16>, %kid: !tile.tensor<?xi32>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c0_i32 = arith.constant 0 : i32
  %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  %t = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  %n = tile.dim %k, 0 : !tile.tensor<?x128xbf16>
  tile.copy %q[%c0, %c0] to %qs {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<128x128xbf16, #tile.space<shared>>
  tile.barrier
  tile.pipelined %j = %c0 to %n stages 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    %kvlast = arith.addi %kv0, %c63 : index
    %kmin, %kmax = tile.read_bounds %kid[%kv0] to %kvlast {axis = 0 : i64} : <?xi32> -> i32
    %any = arith.cmpi sle, %kmin, %c0_i32 : i32
    tile.gemm %qs, %ks, %t {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
    scf.if %any {
      tile.gemm %qs, %ks, %s {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
    }
  }
  tile.return
}
