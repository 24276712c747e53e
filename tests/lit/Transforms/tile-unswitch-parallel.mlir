// RUN: metaattn-opt %s -tile-unswitch-parallel | FileCheck %s
// RUN: metaattn-opt %s -tile-unswitch-parallel -canonicalize | FileCheck %s --check-prefix=FOLD

// The body branches on %full, defined outside the loop: the loop is cloned under scf.if %full
// with the condition replaced by true / false; after canonicalization the true copy has no
// branch (no mask), the false copy keeps the per-element mask.
// CHECK-LABEL: tile.kernel @mask
// CHECK: scf.if %[[FULL:.*]] {
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: tile.parallel
// CHECK: scf.if %[[T]]
// CHECK: } else {
// CHECK: %[[F:.*]] = arith.constant false
// CHECK: tile.parallel
// CHECK: scf.if %[[F]]
// CHECK-NOT: tile.parallel
// FOLD-LABEL: tile.kernel @mask
// FOLD: scf.if
// FOLD-NEXT: tile.parallel
// FOLD-NOT: arith.cmpi
// FOLD: memref.store
// FOLD: } else {
// FOLD-NEXT: tile.parallel
// FOLD: arith.cmpi sle
// FOLD: arith.select
tile.kernel @mask(%k: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c64 = arith.constant 64 : index
  %ninf = arith.constant 0xFF800000 : f32
  %true = arith.constant true
  %n = tile.dim %k, 0 : !tile.tensor<?x64xbf16>
  %full = arith.cmpi sge, %n, %c64 : index
  %s = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  tile.parallel (%i, %j) in [64, 64] {
    %x = memref.load %s[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
    %keep = scf.if %full -> (i1) {
      scf.yield %true : i1
    } else {
      %in = arith.cmpi sle, %j, %i : index
      scf.yield %in : i1
    }
    %y = arith.select %keep, %x, %ninf : f32
    memref.store %y, %s[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
  }
  tile.return
}
