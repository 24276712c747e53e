// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize -tile-gemm-overlap | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize -tile-gemm-overlap=verbose=1 2>&1 | FileCheck %s --check-prefix=WHY
// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize -tile-gemm-overlap | metaattn-opt -split-input-file | FileCheck %s

// A softmax-like kv loop: S = Q·K(j); P = exp(S) rounded to bf16 (S keeps it too); O *= a;
// O += P·V(j). The score gemm becomes async, the previous iteration's output gemm is issued
// behind it (when one is owed: the loop carries that flag), S is waited for with one gemm
// pending, P is rounded after the output gemm is retired, O's rescale moves after it too,
// V(j - 1) is released then, and the last output gemm runs after the loop.
// CHECK-LABEL: tile.kernel @overlap
// CHECK: } consumer {
// CHECK: %[[LOOP:.*]] = scf.for %[[J:.*]] = %[[LO:.*]] to %[[HI:.*]] step %{{.*}} iter_args(%[[OWED:.*]] = %false) -> (i1) {
// CHECK: tile.gemm %[[Q:.*]], %{{.*}}, %[[S:.*]] {async, tile.wgmma, transpose_b}
// CHECK-NEXT: scf.if %[[OWED]] {
// CHECK: %[[PREV:.*]] = arith.subi %[[J]], %c1
// CHECK: %[[VP:.*]] = tile.stage %[[VR:.*]][%{{.*}}]
// CHECK: tile.gemm %[[P:.*]], %[[VP]], %[[O:.*]] {async, tile.wgmma}
// CHECK-NEXT: tile.gemm_wait 1, %[[S]]
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.gemm_wait 0, %[[S]]
// CHECK: tile.mbarrier_arrive
// CHECK: tile.parallel
// CHECK-NOT: memref.store {{.*}}, %[[P]]
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: tile.mbarrier_wait
// CHECK-NEXT: tile.gemm_wait 0, %[[O]]
// CHECK: tile.parallel
// CHECK: memref.store %{{.*}}, %[[O]]
// CHECK: tile.parallel
// CHECK: %[[X:.*]] = memref.load %[[S]]
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[X]] : f32 to bf16
// CHECK-NEXT: memref.store %[[R]], %[[P]]
// CHECK: scf.if %{{.*}} {
// CHECK: tile.mbarrier_arrive
// CHECK: scf.yield %true
// CHECK: scf.if %[[LOOP]] {
// CHECK: %[[LAST:.*]] = arith.subi %[[HI]], %c1
// CHECK: tile.gemm %[[P]], %{{.*}}, %[[O]] {tile.wgmma}
// CHECK-NOT: async
// CHECK: tile.copy %[[O]] to %arg3
// WHY-NOT: remark
tile.kernel @overlap(%q: !tile.tensor<?x128xbf16>, %k: !tile.tensor<?x128xbf16>, %v: !tile.tensor<?x128xbf16>, %out: !tile.tensor<?x128xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %vs = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x64xf32, #tile.space<fragment>>
  %p = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x64xbf16, #tile.space<fragment>>
  %o = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x128xf32, #tile.space<fragment>>
  %n = tile.dim %k, 0 : !tile.tensor<?x128xbf16>
  tile.copy %q[%c0, %c0] to %qs {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<128x128xbf16, #tile.space<shared>>
  tile.barrier
  tile.fill %o, %zero : memref<128x128xf32, #tile.space<fragment>>, f32
  tile.pipelined %j = %c0 to %n stages 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    tile.copy %v[%kv0, %c0] to %vs {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    tile.fill %s, %zero : memref<128x64xf32, #tile.space<fragment>>, f32
    tile.gemm %qs, %ks, %s {tile.wgmma, transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
    tile.parallel (%i, %c) in [128, 64] {
      %x = memref.load %s[%i, %c] : memref<128x64xf32, #tile.space<fragment>>
      %e = math.exp %x : f32
      %r = arith.truncf %e : f32 to bf16
      memref.store %r, %p[%i, %c] : memref<128x64xbf16, #tile.space<fragment>>
    }
    tile.parallel (%i, %c) in [128, 128] {
      %x = memref.load %o[%i, %c] : memref<128x128xf32, #tile.space<fragment>>
      %y = arith.mulf %x, %half : f32
      memref.store %y, %o[%i, %c] : memref<128x128xf32, #tile.space<fragment>>
    }
    tile.gemm %p, %vs, %o {tile.wgmma} : memref<128x64xbf16, #tile.space<fragment>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
  }
  tile.copy %o to %out[%c0, %c0] {dims = array<i64: 0, 1>} : memref<128x128xf32, #tile.space<fragment>> to !tile.tensor<?x128xbf16>
  tile.return
}

// -----

// The rescale reads a buffer the loop writes after it: moving the rescale would change what
// it reads, so the loop is left alone and the verbose pass says why.
// CHECK-LABEL: tile.kernel @late_write
// CHECK-NOT: async
// WHY: remark: gemms not overlapped: a buffer the output rescale reads is written after it
tile.kernel @late_write(%q: !tile.tensor<?x128xbf16>, %k: !tile.tensor<?x128xbf16>, %v: !tile.tensor<?x128xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %vs = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x64xf32, #tile.space<fragment>>
  %p = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x64xbf16, #tile.space<fragment>>
  %o = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x128xf32, #tile.space<fragment>>
  %a = tile.alloc {layout = #tile.layout<"row", warps = 8>} : memref<128xf32, #tile.space<fragment>>
  %n = tile.dim %k, 0 : !tile.tensor<?x128xbf16>
  tile.copy %q[%c0, %c0] to %qs {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<128x128xbf16, #tile.space<shared>>
  tile.barrier
  tile.pipelined %j = %c0 to %n stages 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    tile.copy %v[%kv0, %c0] to %vs {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    tile.gemm %qs, %ks, %s {tile.wgmma, transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
    tile.parallel (%i, %c) in [128, 128] {
      %x = memref.load %o[%i, %c] : memref<128x128xf32, #tile.space<fragment>>
      %f = memref.load %a[%i] : memref<128xf32, #tile.space<fragment>>
      %y = arith.mulf %x, %f : f32
      memref.store %y, %o[%i, %c] : memref<128x128xf32, #tile.space<fragment>>
    }
    tile.reduce max %s to %a : memref<128x64xf32, #tile.space<fragment>> to memref<128xf32, #tile.space<fragment>>
    tile.parallel (%i, %c) in [128, 64] {
      %x = memref.load %s[%i, %c] : memref<128x64xf32, #tile.space<fragment>>
      %r = arith.truncf %x : f32 to bf16
      memref.store %r, %p[%i, %c] : memref<128x64xbf16, #tile.space<fragment>>
    }
    tile.gemm %p, %vs, %o {tile.wgmma} : memref<128x64xbf16, #tile.space<fragment>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
  }
  tile.return
}
