// RUN: metaattn-opt %s | metaattn-opt | FileCheck %s
// RUN: metaattn-opt %s --mlir-print-op-generic | metaattn-opt | FileCheck %s

// tile.kept_tiles keeps the indices of a range its body accepts (here the kv tiles a
// block-sparse map keeps for query block %qb); tile.tile_at reads them by rank.

// CHECK-LABEL: func.func @walk
// CHECK: %[[LIST:.*]], %[[N:.*]] = tile.kept_tiles %[[J:.*]] = %{{.*}} to %{{.*}} {
// CHECK-NEXT: %[[M:.*]] = tile.read %{{.*}}[%{{.*}}, %[[J]]] : <?x?xi32> -> i32
// CHECK-NEXT: %[[K:.*]] = arith.cmpi ne, %[[M]], %{{.*}} : i32
// CHECK-NEXT: tile.keep %[[K]]
// CHECK-NEXT: }
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[N]]
// CHECK-NEXT: tile.tile_at %[[LIST]][%[[R]]]
func.func @walk(%map: !tile.tensor<?x?xi32>, %qb: index, %lo: index, %hi: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %list, %n = tile.kept_tiles %j = %lo to %hi {
    %m = tile.read %map[%qb, %j] : !tile.tensor<?x?xi32> -> i32
    %keep = arith.cmpi ne, %m, %zero : i32
    tile.keep %keep
  }
  scf.for %r = %c0 to %n step %c1 {
    %t = tile.tile_at %list[%r]
  }
  return
}

// A mark per kept index (here: whether a document tile's key ids all equal the rows' id, so
// that it needs no mask), from tile.keep's further operands; tile.tile_at returns it beside
// the index. The test may bound ids over the tile (tile.read_bounds).
// CHECK-LABEL: func.func @marks
// CHECK: %[[LIST:.*]], %{{.*}} = tile.kept_tiles %[[J:.*]] = %{{.*}} to %{{.*}} {
// CHECK: tile.read_bounds
// CHECK: tile.keep %{{.*}}, %{{.*}}
// CHECK-NEXT: }
// CHECK: %{{.*}}, %[[U:.*]] = tile.tile_at %[[LIST]][%{{.*}}] -> i1
// CHECK-NEXT: scf.if %[[U]]
func.func @marks(%ids: !tile.tensor<?x?xi32>, %b: index, %id: i32, %lo: index, %hi: index, %r: index) {
  %list, %n = tile.kept_tiles %j = %lo to %hi {
    %c128 = arith.constant 128 : index
    %c127 = arith.constant 127 : index
    %kv0 = arith.muli %j, %c128 : index
    %last = arith.addi %kv0, %c127 : index
    %min, %max = tile.read_bounds %ids[%b, %kv0] to %last {axis = 1 : i64} : !tile.tensor<?x?xi32> -> i32
    %below = arith.cmpi sgt, %min, %id : i32
    %above = arith.cmpi slt, %max, %id : i32
    %apart = arith.ori %below, %above : i1
    %true = arith.constant true
    %keep = arith.xori %apart, %true : i1
    %lowEq = arith.cmpi eq, %min, %id : i32
    %highEq = arith.cmpi eq, %max, %id : i32
    %same = arith.andi %lowEq, %highEq : i1
    tile.keep %keep, %same
  }
  %t, %unmasked = tile.tile_at %list[%r] -> i1
  scf.if %unmasked {
  }
  return
}
