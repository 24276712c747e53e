// RUN: metaattn-opt %s | metaattn-opt | FileCheck %s --allow-unused-prefixes=false
// RUN: metaattn-opt %s --mlir-print-op-generic | metaattn-opt | FileCheck %s --allow-unused-prefixes=false

// Round trips of every tile op, in the custom form and through the generic form. Operands
// constrained to !tile.tensor print their type without the dialect prefix (`: <8xf32>`).

// CHECK-LABEL: tile.kernel @fwd
// CHECK-SAME: (%[[Q:.*]]: !tile.tensor<?x?x8x64xbf16>, %[[K:.*]]: !tile.tensor<?x?x8x64xbf16>, %[[O:.*]]: !tile.tensor<?x?x8x64xbf16>, %[[S:.*]]: !tile.tensor<8xf32>)
// CHECK-SAME: attributes {grid = array<i64: 0, 1, 64, -1, 8, 1, 0, 0, 1>, threads = 128 : i64}
tile.kernel @fwd(%q: !tile.tensor<?x?x8x64xbf16>, %k: !tile.tensor<?x?x8x64xbf16>,
                 %o: !tile.tensor<?x?x8x64xbf16>, %scale: !tile.tensor<8xf32>)
    attributes {threads = 128 : i64, grid = array<i64: 0, 1, 64, -1, 8, 1, 0, 0, 1>} {
  // CHECK: %[[C0:.*]] = arith.constant 0 : index
  // CHECK: %[[ROW:.*]] = tile.block_id 0
  // CHECK: %[[H:.*]] = tile.block_id 1
  // CHECK: %[[B:.*]] = tile.block_id 2
  // CHECK: %[[SKV:.*]] = tile.dim %[[K]], 1 : <?x?x8x64xbf16>
  %c0 = arith.constant 0 : index
  %row = tile.block_id 0
  %h = tile.block_id 1
  %b = tile.block_id 2
  %skv = tile.dim %k, 1 : !tile.tensor<?x?x8x64xbf16>
  // CHECK: %[[LO:.*]], %[[HI:.*]] = tile.row_range %[[ROW]], %[[SKV]] {rows = 64 : i64}
  %lo, %hi = tile.row_range %row, %skv {rows = 64 : i64}

  // CHECK: %[[QS:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  // CHECK: %[[KS:.*]] = tile.alloc : memref<2x64x64xbf16, #tile.space<shared>>
  // CHECK: %[[QF:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
  // CHECK: %[[ACC:.*]] = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  // CHECK: %[[SC:.*]] = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  // CHECK: %[[M:.*]] = tile.alloc {layout = #tile.layout<"row", warps = 4>} : memref<64xf32, #tile.space<fragment>>
  %qs = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<2x64x64xbf16, #tile.space<shared>>
  %qf = tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
  %acc = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  %sc = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  %m = tile.alloc {layout = #tile.layout<"row", warps = 4>} : memref<64xf32, #tile.space<fragment>>

  // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK: tile.fill %[[ACC]], %[[ZERO]] : memref<64x64xf32, #tile.space<fragment>>, f32
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : memref<64x64xf32, #tile.space<fragment>>, f32

  // Global to shared, shared to fragment.
  // CHECK: tile.copy %[[Q]][%[[B]], %[[ROW]], %[[H]], %[[C0]]] to %[[QS]] {dims = array<i64: 1, 3>} : !tile.tensor<?x?x8x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
  // CHECK: tile.copy %[[QS]] to %[[QF]] : memref<64x64xbf16, #tile.space<shared>> to memref<64x64xbf16, #tile.space<fragment>>
  tile.copy %q[%b, %row, %h, %c0] to %qs {dims = array<i64: 1, 3>}
      : !tile.tensor<?x?x8x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
  tile.copy %qs to %qf : memref<64x64xbf16, #tile.space<shared>> to memref<64x64xbf16, #tile.space<fragment>>

  // CHECK: %[[SCALE:.*]] = tile.read %[[S]][%[[H]]] : <8xf32> -> f32
  %s = tile.read %scale[%h] : !tile.tensor<8xf32> -> f32

  // CHECK: tile.pipelined %[[J:.*]] = %[[C0]] to %[[SKV]] stages 2 {
  // CHECK: %[[KST:.*]] = tile.stage %[[KS]][%[[C0]]] : memref<2x64x64xbf16, #tile.space<shared>> -> memref<64x64xbf16, #tile.space<shared>>
  // CHECK: tile.copy %[[K]][%[[B]], %[[J]], %[[H]], %[[C0]]] to %[[KST]] {async, dims = array<i64: 1, 3>} : !tile.tensor<?x?x8x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
  // CHECK: tile.async_commit
  // CHECK: tile.async_wait 0
  // CHECK: tile.barrier
  // CHECK: tile.gemm %[[QF]], %[[KST]], %[[SC]] {transpose_b} : memref<64x64xbf16, #tile.space<fragment>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  // CHECK: tile.reduce max %[[SC]] to %[[M]] {accumulate} : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
  // CHECK: tile.reduce abs_sum %[[SC]] to %[[M]] : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
  // CHECK: tile.gemm %[[QS]], %[[KST]], %[[ACC]] : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  // CHECK: } {tile.stage_note = 1 : i64}
  tile.pipelined %j = %c0 to %skv stages 2 {
    %kst = tile.stage %ks[%c0] : memref<2x64x64xbf16, #tile.space<shared>> -> memref<64x64xbf16, #tile.space<shared>>
    tile.copy %k[%b, %j, %h, %c0] to %kst {dims = array<i64: 1, 3>, async}
        : !tile.tensor<?x?x8x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
    tile.async_commit
    tile.async_wait 0
    tile.barrier
    tile.gemm %qf, %kst, %sc {transpose_b}
        : memref<64x64xbf16, #tile.space<fragment>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
    tile.reduce max %sc to %m {accumulate} : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
    tile.reduce abs_sum %sc to %m : memref<64x64xf32, #tile.space<fragment>> to memref<64xf32, #tile.space<fragment>>
    tile.gemm %qs, %kst, %acc
        : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  } {tile.stage_note = 1 : i64}

  // Element-wise work over 1-D and 2-D index spaces.
  // CHECK: tile.parallel (%[[I:.*]]) in [64] {
  // CHECK: %[[MI:.*]] = memref.load %[[M]][%[[I]]] : memref<64xf32, #tile.space<fragment>>
  // CHECK: %[[MS:.*]] = arith.mulf %[[MI]], %[[SCALE]] : f32
  // CHECK: memref.store %[[MS]], %[[M]][%[[I]]] : memref<64xf32, #tile.space<fragment>>
  // CHECK: }
  tile.parallel (%i) in [64] {
    %mi = memref.load %m[%i] : memref<64xf32, #tile.space<fragment>>
    %ms = arith.mulf %mi, %s : f32
    memref.store %ms, %m[%i] : memref<64xf32, #tile.space<fragment>>
  }
  // CHECK: tile.parallel (%[[PI:.*]], %[[PJ:.*]]) in [64, 64] {
  // CHECK: %[[A:.*]] = memref.load %[[ACC]][%[[PI]], %[[PJ]]] : memref<64x64xf32, #tile.space<fragment>>
  // CHECK: %[[MR:.*]] = memref.load %[[M]][%[[PI]]] : memref<64xf32, #tile.space<fragment>>
  // CHECK: %[[D:.*]] = arith.divf %[[A]], %[[MR]] : f32
  // CHECK: memref.store %[[D]], %[[ACC]][%[[PI]], %[[PJ]]] : memref<64x64xf32, #tile.space<fragment>>
  // CHECK: } {tile.note}
  tile.parallel (%i, %jj) in [64, 64] {
    %a = memref.load %acc[%i, %jj] : memref<64x64xf32, #tile.space<fragment>>
    %mr = memref.load %m[%i] : memref<64xf32, #tile.space<fragment>>
    %d = arith.divf %a, %mr : f32
    memref.store %d, %acc[%i, %jj] : memref<64x64xf32, #tile.space<fragment>>
  } {tile.note}

  // Fragment (converting) to fragment, fragment to global.
  // CHECK: %[[OF:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
  // CHECK: tile.copy %[[ACC]] to %[[OF]] : memref<64x64xf32, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<fragment>>
  // CHECK: tile.copy %[[OF]] to %[[O]][%[[B]], %[[ROW]], %[[H]], %[[C0]]] {dims = array<i64: 1, 3>} : memref<64x64xbf16, #tile.space<fragment>> to !tile.tensor<?x?x8x64xbf16>
  // CHECK: tile.copy %[[M]] to %[[S]][%[[C0]]] {dims = array<i64: 0>} : memref<64xf32, #tile.space<fragment>> to !tile.tensor<8xf32>
  // Fragment to global through a shared staging tile.
  // CHECK: %[[STG:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  // CHECK: tile.copy %[[ACC]] to %[[O]][%[[B]], %[[ROW]], %[[H]], %[[C0]]] via %[[STG]] : memref<64x64xbf16, #tile.space<shared>> {dims = array<i64: 1, 3>} : memref<64x64xf32, #tile.space<fragment>> to !tile.tensor<?x?x8x64xbf16>
  // CHECK: tile.return
  %of = tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
  tile.copy %acc to %of : memref<64x64xf32, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<fragment>>
  tile.copy %of to %o[%b, %row, %h, %c0] {dims = array<i64: 1, 3>}
      : memref<64x64xbf16, #tile.space<fragment>> to !tile.tensor<?x?x8x64xbf16>
  tile.copy %m to %scale[%c0] {dims = array<i64: 0>} : memref<64xf32, #tile.space<fragment>> to !tile.tensor<8xf32>
  %stg = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  tile.copy %acc to %o[%b, %row, %h, %c0] via %stg : memref<64x64xbf16, #tile.space<shared>>
      {dims = array<i64: 1, 3>} : memref<64x64xf32, #tile.space<fragment>> to !tile.tensor<?x?x8x64xbf16>
  tile.return
}

// CHECK-LABEL: tile.kernel @bounds
// CHECK: %[[MIN:.*]], %[[MAX:.*]] = tile.read_bounds %{{.*}}[%[[B0:.*]], %[[F:.*]]] to %[[L:.*]] {axis = 1 : i64} : <?x?xi32> -> i32
// CHECK: arith.cmpi slt, %[[MIN]], %[[MAX]] : i32
tile.kernel @bounds(%ids: !tile.tensor<?x?xi32>) attributes {threads = 128 : i64, grid = array<i64: 0, 1, 64, -1, 8, 1, 0, 0, 1>} {
  %b = tile.block_id 0
  %first = tile.block_id 1
  %last = tile.block_id 2
  %lo, %hi = tile.read_bounds %ids[%b, %first] to %last {axis = 1 : i64} : !tile.tensor<?x?xi32> -> i32
  %lt = arith.cmpi slt, %lo, %hi : i32
  tile.return
}

// CHECK-LABEL: tile.kernel @write
// CHECK: %[[MIN:.*]], %[[MAX:.*]] = tile.read_bounds
// CHECK: tile.write %[[MIN]], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : i32, <?x?x2xi32>
// CHECK: tile.write %[[MAX]], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : i32, <?x?x2xi32>
tile.kernel @write(%ids: !tile.tensor<?x?xi32>, %out: !tile.tensor<?x?x2xi32>) attributes {threads = 32 : i64, grid = array<i64: 0, 1, 64, 0, 0, 1, -1, 0, 1>} {
  %j = tile.block_id 0
  %b = tile.block_id 1
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lo, %hi = tile.read_bounds %ids[%b, %j] to %j {axis = 1 : i64} : !tile.tensor<?x?xi32> -> i32
  tile.write %lo, %out[%b, %j, %c0] : i32, !tile.tensor<?x?x2xi32>
  tile.write %hi, %out[%b, %j, %c1] : i32, !tile.tensor<?x?x2xi32>
  tile.return
}
