// RUN: metaattn-opt %s -split-input-file -tile-group-guards | FileCheck %s --check-prefix=PASS

// Hand-written consumer regions (tile-group-guards alone). A guard that holds only a fill and a
// gemm into 128-row fragments is narrowed to the warpgroup's 64 rows; one that also holds a
// block barrier, or that writes a fragment of other rows, keeps the block's range.
// PASS-LABEL: tile.kernel @local
// PASS: tile.row_range %{{.*}}, %{{.*}} {group_rows = 64 : i64, rows = 128 : i64}
// PASS-LABEL: tile.kernel @barrier
// PASS: tile.row_range %{{.*}}, %{{.*}} {rows = 128 : i64}
// PASS-LABEL: tile.kernel @other_rows
// PASS: tile.row_range %{{.*}}, %{{.*}} {rows = 128 : i64}
// PASS-LABEL: tile.kernel @one_group
// PASS: tile.row_range %{{.*}}, %{{.*}} {rows = 64 : i64}
tile.kernel @local(%k: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 384 : i64} {
  %c0 = arith.constant 0 : index
  %c127 = arith.constant 127 : index
  %f0 = arith.constant 0.0 : f32
  tile.warp_specialize producer {
  } consumer {
    %qs = tile.alloc : memref<128x64xbf16, #tile.space<shared>>
    %ks = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
    %s = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x64xf32, #tile.space<fragment>>
    %lo, %hi = tile.row_range %c0, %c127 {rows = 128 : i64}
    %seen = arith.cmpi sle, %lo, %hi : index
    scf.if %seen {
      tile.fill %s, %f0 : memref<128x64xf32, #tile.space<fragment>>, f32
      tile.gemm %qs, %ks, %s {transpose_b} : memref<128x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
    }
  } {consumer_threads = 256 : i64}
  tile.return
}

// -----

tile.kernel @barrier(%k: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 384 : i64} {
  %c0 = arith.constant 0 : index
  %c127 = arith.constant 127 : index
  %f0 = arith.constant 0.0 : f32
  tile.warp_specialize producer {
  } consumer {
    %s = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x64xf32, #tile.space<fragment>>
    %lo, %hi = tile.row_range %c0, %c127 {rows = 128 : i64}
    %seen = arith.cmpi sle, %lo, %hi : index
    scf.if %seen {
      tile.fill %s, %f0 : memref<128x64xf32, #tile.space<fragment>>, f32
      tile.barrier
    }
  } {consumer_threads = 256 : i64}
  tile.return
}

// -----

tile.kernel @other_rows(%k: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 384 : i64} {
  %c0 = arith.constant 0 : index
  %c127 = arith.constant 127 : index
  %f0 = arith.constant 0.0 : f32
  tile.warp_specialize producer {
  } consumer {
    %t = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<256x64xf32, #tile.space<fragment>>
    %lo, %hi = tile.row_range %c0, %c127 {rows = 128 : i64}
    %seen = arith.cmpi sle, %lo, %hi : index
    scf.if %seen {
      tile.fill %t, %f0 : memref<256x64xf32, #tile.space<fragment>>, f32
    }
  } {consumer_threads = 256 : i64}
  tile.return
}

// -----

// One consumer warpgroup: nothing to narrow.
tile.kernel @one_group(%k: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c63 = arith.constant 63 : index
  %f0 = arith.constant 0.0 : f32
  tile.warp_specialize producer {
  } consumer {
    %s = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
    %lo, %hi = tile.row_range %c0, %c63 {rows = 64 : i64}
    %seen = arith.cmpi sle, %lo, %hi : index
    scf.if %seen {
      tile.fill %s, %f0 : memref<64x64xf32, #tile.space<fragment>>, f32
    }
  } {consumer_threads = 128 : i64}
  tile.return
}
