// RUN: metaattn-opt %s -split-input-file -tile-hoist-invariant-reads | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-hoist-invariant-reads | metaattn-opt -split-input-file | FileCheck %s

// A per-head bias read in every element (twice, in both branches of a mask test) moves in
// front of the element loop as one read, and so does a read indexed by the loop variable; both
// stay inside the kv loop (a value held across it would cost a register for all of it). A read
// indexed by an element stays; the output is never read early.
// CHECK-LABEL: tile.kernel @bias
// CHECK: %[[H:.*]] = tile.block_id 1
// CHECK-NOT: tile.read
// CHECK: scf.for %[[J:[^ ]*]] =
// CHECK-NEXT: %[[B:.*]] = tile.read %arg1[%[[H]]]
// CHECK-NEXT: %[[G:.*]] = tile.read %arg2[%[[J]]]
// CHECK-NEXT: tile.parallel (%[[I:.*]], %{{.*}}) in [64, 64]
// CHECK-NOT: tile.read %arg1
// CHECK: arith.addf %{{.*}}, %[[B]]
// CHECK: arith.addf %{{.*}}, %[[B]]
// CHECK: tile.read %arg2[%[[I]]]
// CHECK: tile.read %arg3[%[[H]]]
// CHECK: arith.mulf %{{.*}}, %[[G]]
tile.kernel @bias(%s: !tile.tensor<64x64xf32>, %bias: !tile.tensor<?xf32>, %g: !tile.tensor<?xf32>, %o: !tile.tensor<?xf32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 3>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = tile.block_id 1
  %full = arith.cmpi eq, %h, %c0 : index
  %f = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  scf.for %j = %c0 to %c4 step %c1 {
    tile.parallel (%i, %k) in [64, 64] {
      %x = memref.load %f[%i, %k] : memref<64x64xf32, #tile.space<fragment>>
      %y = scf.if %full -> (f32) {
        %b = tile.read %bias[%h] : <?xf32> -> f32
        %z = arith.addf %x, %b : f32
        scf.yield %z : f32
      } else {
        %b = tile.read %bias[%h] : <?xf32> -> f32
        %z = arith.addf %x, %b : f32
        scf.yield %z : f32
      }
      %gi = tile.read %g[%i] : <?xf32> -> f32
      %oh = tile.read %o[%h] : <?xf32> -> f32
      %gj = tile.read %g[%j] : <?xf32> -> f32
      %w = arith.mulf %y, %gj : f32
      %w2 = arith.addf %w, %gi : f32
      %w3 = arith.addf %w2, %oh : f32
      memref.store %w3, %f[%i, %k] : memref<64x64xf32, #tile.space<fragment>>
    }
  }
  tile.return
}

// -----

// Without tile.outputs any argument may be written: nothing moves (the read would otherwise
// leave the branch).
// CHECK-LABEL: tile.kernel @unknown_outputs
// CHECK: scf.if
// CHECK-NEXT: tile.read
tile.kernel @unknown_outputs(%bias: !tile.tensor<?xf32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %h = tile.block_id 1
  %first = arith.cmpi eq, %h, %c0 : index
  scf.if %first {
    %b = tile.read %bias[%c0] : <?xf32> -> f32
  }
  tile.return
}

// -----

// Bounds of ids over a range fixed for the kv loop (a block's rows) leave the loop, out of the
// branch they were in; bounds over the loop's own range (a tile's keys) stay in their branch
// (a tile the kept list marks unmasked reads no ids). Bounds of an output are never taken
// early.
// CHECK-LABEL: tile.kernel @bounds
// CHECK: %[[LO:.*]] = tile.block_id 0
// CHECK: %[[HI:.*]] = tile.block_id 1
// CHECK: %{{.*}}, %{{.*}} = tile.read_bounds %arg0[%[[B:.*]], %[[LO]]] to %[[HI]]
// CHECK-NEXT: scf.for %[[J:[^ ]*]] =
// CHECK-NEXT: scf.if
// CHECK-NEXT: %{{.*}}, %{{.*}} = tile.read_bounds %arg1[%[[B]], %[[J]]] to %[[J]]
// CHECK-NEXT: tile.read_bounds %arg2
tile.kernel @bounds(%qid: !tile.tensor<?x?xi32>, %kid: !tile.tensor<?x?xi32>, %o: !tile.tensor<?x?xi32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = tile.block_id 2
  %lo = tile.block_id 0
  %hi = tile.block_id 1
  %go = arith.cmpi sle, %lo, %hi : index
  scf.for %j = %c0 to %c4 step %c1 {
    scf.if %go {
      %a, %z = tile.read_bounds %qid[%b, %lo] to %hi {axis = 1 : i64} : !tile.tensor<?x?xi32> -> i32
      %c, %d = tile.read_bounds %kid[%b, %j] to %j {axis = 1 : i64} : !tile.tensor<?x?xi32> -> i32
      %e, %f = tile.read_bounds %o[%b, %lo] to %hi {axis = 1 : i64} : !tile.tensor<?x?xi32> -> i32
    }
  }
  tile.return
}
