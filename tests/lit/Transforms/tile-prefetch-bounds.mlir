// RUN: metaattn-opt %s -split-input-file -tile-prefetch-bounds | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-prefetch-bounds | metaattn-opt -split-input-file | FileCheck %s

// The key ids' bounds of tile j decide whether the tile's work runs. They are read for tile
// j + 1 in iteration j: behind the async score gemm where the tile runs, at once where it is
// skipped, and carried by the loop; tile 0's are read in front of the loop.
// CHECK-LABEL: tile.kernel @rotate
// CHECK: %[[B:.*]] = tile.block_id 2
// CHECK: %[[K00:.*]] = arith.muli %[[LB:.*]], %[[C64:.*]] : index
// CHECK: %[[FMIN:.*]], %[[FMAX:.*]] = tile.read_bounds %arg0[%[[B]], %[[K00]]] to
// CHECK: scf.for %[[J:.*]] = %[[LB]] to %{{.*}} step %[[STEP:[^ ]*]] iter_args(%[[MIN:.*]] = %[[FMIN]], %[[MAX:.*]] = %[[FMAX]]) -> (i32, i32) {
// CHECK-NOT: tile.read_bounds
// CHECK: %[[KEEP:.*]] = arith.cmpi sle, %[[MIN]], %[[MAX]] : i32
// CHECK: %[[NEXT:.*]]:2 = scf.if %[[KEEP]] -> (i32, i32) {
// CHECK: tile.gemm {{.*}}async
// CHECK-NEXT: %[[J1:.*]] = arith.addi %[[J]], %[[STEP]] : index
// CHECK-NEXT: %[[K0:.*]] = arith.muli %[[J1]], %[[C64]] : index
// CHECK: %[[TMIN:.*]], %[[TMAX:.*]] = tile.read_bounds %arg0[%[[B]], %[[K0]]] to
// CHECK: tile.gemm_wait 0
// CHECK: scf.yield %[[TMIN]], %[[TMAX]] : i32, i32
// CHECK: } else {
// CHECK: %[[EMIN:.*]], %[[EMAX:.*]] = tile.read_bounds %arg0
// CHECK-NEXT: scf.yield %[[EMIN]], %[[EMAX]] : i32, i32
// CHECK: scf.yield %[[NEXT]]#0, %[[NEXT]]#1 : i32, i32
tile.kernel @rotate(%ids: !tile.tensor<?x?xi32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id 2
  %a = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %k = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  scf.for %j = %c0 to %c4 step %c1 {
    %kv0 = arith.muli %j, %c64 : index
    %last = arith.addi %kv0, %c63 : index
    %lo, %hi = tile.read_bounds %ids[%b, %kv0] to %last {axis = 1 : i64} : !tile.tensor<?x?xi32> -> i32
    %keep = arith.cmpi sle, %lo, %hi : i32
    scf.if %keep {
      tile.gemm %a, %k, %s {async, tile.wgmma, transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
      tile.gemm_wait 0, %s : memref<64x64xf32, #tile.space<fragment>>
    }
  }
  tile.return
}

// -----

// Without an async gemm to hide behind, or when the bounds depend on something the loop
// computes with memory (a read), nothing moves.
// CHECK-LABEL: tile.kernel @no_gemm
// CHECK: scf.for
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.read_bounds
// CHECK-LABEL: tile.kernel @read_operand
// CHECK: scf.for
// CHECK: tile.read %arg1
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: tile.read_bounds
tile.kernel @no_gemm(%ids: !tile.tensor<?x?xi32>, %o: !tile.tensor<?xi32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %b = tile.block_id 2
  scf.for %j = %c0 to %c4 step %c1 {
    %kv0 = arith.muli %j, %c64 : index
    %last = arith.addi %kv0, %c63 : index
    %lo, %hi = tile.read_bounds %ids[%b, %kv0] to %last {axis = 1 : i64} : !tile.tensor<?x?xi32> -> i32
    %keep = arith.cmpi sle, %lo, %hi : i32
    scf.if %keep {
      tile.barrier
    }
  }
  tile.return
}
tile.kernel @read_operand(%ids: !tile.tensor<?x?xi32>, %start: !tile.tensor<?xi32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = tile.block_id 2
  %a = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %k = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  scf.for %j = %c0 to %c4 step %c1 {
    %x = tile.read %start[%j] : !tile.tensor<?xi32> -> i32
    %kv0 = arith.index_cast %x : i32 to index
    %lo, %hi = tile.read_bounds %ids[%b, %kv0] to %kv0 {axis = 1 : i64} : !tile.tensor<?x?xi32> -> i32
    %keep = arith.cmpi sle, %lo, %hi : i32
    scf.if %keep {
      tile.gemm %a, %k, %s {async, tile.wgmma, transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
      tile.gemm_wait 0, %s : memref<64x64xf32, #tile.space<fragment>>
    }
  }
  tile.return
}
