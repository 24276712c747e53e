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
