// RUN: metaattn-opt %s -split-input-file -tile-infer-layout -verify-diagnostics | FileCheck %s

// CHECK-LABEL: tile.kernel @layouts
// CHECK: tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x32xf32, #tile.space<fragment>>
// CHECK: tile.alloc {layout = #tile.layout<"row", warps = 4>} : memref<64xf32, #tile.space<fragment>>
// CHECK: tile.alloc : memref<64x32xbf16, #tile.space<shared>>
tile.kernel @layouts(%t: !tile.tensor<?x32xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %s = tile.alloc : memref<64x32xf32, #tile.space<fragment>>
  %m = tile.alloc : memref<64xf32, #tile.space<fragment>>
  %sh = tile.alloc : memref<64x32xbf16, #tile.space<shared>>
  tile.parallel (%i, %j) in [64, 32] {
    %x = memref.load %s[%i, %j] : memref<64x32xf32, #tile.space<fragment>>
    %y = memref.load %m[%i] : memref<64xf32, #tile.space<fragment>>
    %z = arith.addf %x, %y : f32
    memref.store %z, %s[%i, %j] : memref<64x32xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

tile.kernel @rows_not_divisible(%t: !tile.tensor<?x32xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  // expected-error @+1 {{fragment rows (48) must be a multiple of 16 x 4 warps for the mma layout}}
  %s = tile.alloc : memref<48x32xf32, #tile.space<fragment>>
  tile.return
}

// -----

tile.kernel @transposed_access(%t: !tile.tensor<?x32xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  tile.parallel (%i, %j) in [64, 64] {
    // expected-error @+1 {{fragment index #0 must be the parallel induction variable #0}}
    %x = memref.load %s[%j, %i] : memref<64x64xf32, #tile.space<fragment>>
    memref.store %x, %s[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// Shared buffers may be read and written at any index inside tile.parallel (no diagnostic).
tile.kernel @shared_in_parallel(%t: !tile.tensor<?x32xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %sh = tile.alloc : memref<64x32xbf16, #tile.space<shared>>
  tile.parallel (%i, %j) in [64, 32] {
    %x = memref.load %sh[%i, %j] : memref<64x32xbf16, #tile.space<shared>>
    memref.store %x, %sh[%i, %j] : memref<64x32xbf16, #tile.space<shared>>
  }
  tile.return
}

// -----

// A column vector (tile-hoist-axis-reads makes them) keeps its layout; it is indexed by the
// column of a 2-D loop and by the index of a 1-D loop over columns.
// CHECK-LABEL: tile.kernel @column_vector
// CHECK: tile.alloc {layout = #tile.layout<"col", warps = 4>} : memref<32xi32, #tile.space<fragment>>
tile.kernel @column_vector(%t: !tile.tensor<?xi32>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %s = tile.alloc : memref<64x32xf32, #tile.space<fragment>>
  %c = tile.alloc {layout = #tile.layout<"col", warps = 4>} : memref<32xi32, #tile.space<fragment>>
  tile.parallel (%j) in [32] {
    %x = tile.read %t[%j] : <?xi32> -> i32
    memref.store %x, %c[%j] : memref<32xi32, #tile.space<fragment>>
  }
  tile.parallel (%i, %j) in [64, 32] {
    %x = memref.load %c[%j] : memref<32xi32, #tile.space<fragment>>
    %y = arith.sitofp %x : i32 to f32
    memref.store %y, %s[%i, %j] : memref<64x32xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

tile.kernel @column_vector_by_row(%t: !tile.tensor<?xi32>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %c = tile.alloc {layout = #tile.layout<"col", warps = 4>} : memref<64xi32, #tile.space<fragment>>
  tile.parallel (%i, %j) in [64, 64] {
    // expected-error @+1 {{fragment index #0 must be the parallel induction variable #1}}
    %x = memref.load %c[%i] : memref<64xi32, #tile.space<fragment>>
    %y = arith.sitofp %x : i32 to f32
    memref.store %y, %s[%i, %j] : memref<64x64xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

tile.kernel @rows_and_columns(%t: !tile.tensor<?xi32>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %r = tile.alloc : memref<64xi32, #tile.space<fragment>>
  %c = tile.alloc {layout = #tile.layout<"col", warps = 4>} : memref<64xi32, #tile.space<fragment>>
  tile.parallel (%j) in [64] {
    %x = memref.load %r[%j] : memref<64xi32, #tile.space<fragment>>
    // expected-error @+1 {{a 1-D tile.parallel accesses row and column vectors together}}
    memref.store %x, %c[%j] : memref<64xi32, #tile.space<fragment>>
  }
  tile.return
}

// -----

tile.kernel @column_vector_width(%t: !tile.tensor<?xi32>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  // expected-error @+1 {{column vectors are 1-D with a multiple of 8 columns, found 'memref<12xi32, #tile.space<fragment>>'}}
  %c = tile.alloc {layout = #tile.layout<"col", warps = 4>} : memref<12xi32, #tile.space<fragment>>
  tile.return
}
