// RUN: metaattn-opt %s -split-input-file -tile-hoist-axis-reads | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-hoist-axis-reads | metaattn-opt -split-input-file -tile-infer-layout | FileCheck %s --check-prefix=VALID
// RUN: metaattn-opt %s -split-input-file -tile-hoist-axis-reads | metaattn-translate -split-input-file --tile-to-cuda | FileCheck %s --check-prefix=CUDA

// A document mask: the query id depends on the row only, the key id on the column only. Each
// becomes a vector filled by a 1-D loop in front of the first element loop (above the gemm,
// whose operands it does not need); the second element loop reuses both vectors. The read
// indexed by row and column stays per element; so does the read of an output.
// CHECK-LABEL: tile.kernel @document
// CHECK: %[[ROWS:.*]] = tile.alloc {layout = #tile.layout<"row", warps = 4>} : memref<64xi32, #tile.space<fragment>>
// CHECK-NEXT: tile.parallel (%[[R:.*]]) in [64] {
// CHECK-NEXT: %[[Q:.*]] = arith.addi %{{.*}}, %[[R]]
// CHECK-NEXT: %[[QID:.*]] = tile.read %arg1[%{{.*}}, %[[Q]]]
// CHECK-NEXT: memref.store %[[QID]], %[[ROWS]][%[[R]]]
// CHECK: %[[COLS:.*]] = tile.alloc {layout = #tile.layout<"col", warps = 4>} : memref<32xi32, #tile.space<fragment>>
// CHECK-NEXT: tile.parallel (%[[C:.*]]) in [32] {
// CHECK-NEXT: %[[K:.*]] = arith.addi %{{.*}}, %[[C]]
// CHECK-NEXT: %[[KID:.*]] = tile.read %arg2[%{{.*}}, %[[K]]]
// CHECK-NEXT: memref.store %[[KID]], %[[COLS]][%[[C]]]
// CHECK: tile.gemm
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in [64, 32]
// CHECK-NOT: tile.read %arg1
// CHECK-NOT: tile.read %arg2
// CHECK-DAG: memref.load %[[ROWS]][%[[I]]]
// CHECK-DAG: memref.load %[[COLS]][%[[J]]]
// CHECK-DAG: tile.read %arg3[%{{.*}}, %{{.*}}]
// CHECK-DAG: tile.read %arg4[%{{.*}}]
// CHECK: tile.parallel (%[[I2:.*]], %[[J2:.*]]) in [64, 32]
// CHECK-NOT: tile.read %arg1
// CHECK-NOT: tile.read %arg2
// CHECK-DAG: memref.load %[[ROWS]][%[[I2]]]
// CHECK-DAG: memref.load %[[COLS]][%[[J2]]]
// CHECK-NOT: tile.parallel (%{{.*}}) in [

// VALID-LABEL: tile.kernel @document
// VALID: #tile.layout<"col", warps = 4>

// CUDA: metaattn::dev::RowVec<64, 4, int> [[ROWV:v[0-9]+]];
// CUDA: using [[RP:P[0-9]+]] = metaattn::dev::RowVec<64, 4, int>;
// CUDA: = [[RP]]::row(
// CUDA: metaattn::dev::ColVec<32, int> [[COLV:v[0-9]+]];
// CUDA: using [[CP:P[0-9]+]] = metaattn::dev::ColVec<32, int>;
// CUDA: = [[CP]]::col(
// CUDA: using [[FP:P[0-9]+]] = metaattn::dev::Frag<float, 64, 32, 4>;
// CUDA-DAG: = [[ROWV]][[[FP]]::rowSlot(
// CUDA-DAG: = [[COLV]][[[FP]]::colSlot(
tile.kernel @document(%q: !tile.tensor<?x?xbf16>, %qdoc: !tile.tensor<?x?xi32>, %kdoc: !tile.tensor<?x?xi32>, %bias: !tile.tensor<?x?xf32>, %o: !tile.tensor<?xf32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 4>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %ninf = arith.constant 0xFF800000 : f32
  %b = tile.block_id 1
  %qt = tile.block_id 0
  %q0 = arith.muli %qt, %c64 : index
  %qs = tile.alloc : memref<64x32xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<32x32xbf16, #tile.space<shared>>
  %f = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x32xf32, #tile.space<fragment>>
  scf.for %j = %c0 to %c4 step %c1 {
    %k0 = arith.muli %j, %c32 : index
    tile.gemm %qs, %ks, %f {transpose_b} : memref<64x32xbf16, #tile.space<shared>>, memref<32x32xbf16, #tile.space<shared>>, memref<64x32xf32, #tile.space<fragment>>
    tile.parallel (%i, %k) in [64, 32] {
      %x = memref.load %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
      %qi = arith.addi %q0, %i : index
      %ki = arith.addi %k0, %k : index
      %a = tile.read %qdoc[%b, %qi] : <?x?xi32> -> i32
      %d = tile.read %kdoc[%b, %ki] : <?x?xi32> -> i32
      %a2 = tile.read %qdoc[%b, %qi] : <?x?xi32> -> i32
      %same = arith.cmpi eq, %a, %d : i32
      %same2 = arith.cmpi eq, %a2, %d : i32
      %both = arith.andi %same, %same2 : i1
      %bb = tile.read %bias[%qi, %ki] : <?x?xf32> -> f32
      %ov = tile.read %o[%qi] : <?xf32> -> f32
      %y = arith.addf %x, %bb : f32
      %y2 = arith.addf %y, %ov : f32
      %z = arith.select %both, %y2, %ninf : f32
      memref.store %z, %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
    }
    tile.parallel (%i, %k) in [64, 32] {
      %x = memref.load %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
      %qi = arith.addi %q0, %i : index
      %ki = arith.addi %k0, %k : index
      %a = tile.read %qdoc[%b, %qi] : <?x?xi32> -> i32
      %d = tile.read %kdoc[%b, %ki] : <?x?xi32> -> i32
      %same = arith.cmpi eq, %a, %d : i32
      %z = arith.select %same, %x, %ninf : f32
      memref.store %z, %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
    }
  }
  tile.return
}

// -----

// Without tile.outputs any argument may be written: nothing moves.
// CHECK-LABEL: tile.kernel @unknown_outputs
// CHECK-NOT: tile.layout<"col"
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [64, 32]
// CHECK: tile.read
tile.kernel @unknown_outputs(%kdoc: !tile.tensor<?xi32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %z = arith.constant 0.0 : f32
  %f = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x32xf32, #tile.space<fragment>>
  tile.parallel (%i, %k) in [64, 32] {
    %d = tile.read %kdoc[%k] : <?xi32> -> i32
    %x = arith.sitofp %d : i32 to f32
    memref.store %x, %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// Reads nothing uses (a weights loop that no longer tests the mask still has its ids read)
// are erased, not turned into vectors filled for nobody.
// CHECK-LABEL: tile.kernel @unused
// CHECK-NOT: tile.read
// CHECK-NOT: #tile.layout<"col"
// CHECK: tile.return
tile.kernel @unused(%kdoc: !tile.tensor<?x?xi32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64>} {
  %b = tile.block_id 1
  %f = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x32xf32, #tile.space<fragment>>
  tile.parallel (%i, %k) in [64, 32] {
    %x = memref.load %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
    %d = tile.read %kdoc[%b, %k] : <?x?xi32> -> i32
    %y = math.exp %x : f32
    memref.store %y, %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
  }
  tile.return
}
