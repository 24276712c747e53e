// RUN: metaattn-opt %s -split-input-file -verify-diagnostics

// One diagnostic of the tile.kernel verifier per split.

// expected-error @+1 {{must not return values; outputs are tensor parameters}}
tile.kernel @results(%q: !tile.tensor<?x?x8x64xbf16>) -> f32 attributes {threads = 128 : i64, grid = array<i64: 0, 1, 64, -1, 8, 1, 0, 0, 1>} {
  tile.return
}

// -----

// expected-error @+1 {{parameter #1 must be a !tile.tensor, found 'tensor<4xf32>'}}
tile.kernel @param_type(%q: !tile.tensor<?x?x8x64xbf16>, %x: tensor<4xf32>) attributes {threads = 128 : i64, grid = array<i64: 0, 1, 64, -1, 8, 1, 0, 0, 1>} {
  tile.return
}

// -----

// expected-error @+1 {{threads must be a positive multiple of 32 up to 1024, found 100}}
tile.kernel @threads(%q: !tile.tensor<?x?x8x64xbf16>) attributes {threads = 100 : i64, grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>} {
  tile.return
}

// -----

// expected-error @+1 {{threads must be a positive multiple of 32 up to 1024, found 2048}}
tile.kernel @threads_too_many(%q: !tile.tensor<?x?x8x64xbf16>) attributes {threads = 2048 : i64, grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>} {
  tile.return
}

// -----

// expected-error @+1 {{grid must hold three (param, dim, divisor) triples, found 3 integers}}
tile.kernel @grid_size(%q: !tile.tensor<?x?x8x64xbf16>) attributes {threads = 128 : i64, grid = array<i64: 0, 1, 64>} {
  tile.return
}

// -----

// expected-error @+1 {{grid dimension 1 has a non-positive divisor 0}}
tile.kernel @grid_divisor(%q: !tile.tensor<?x?x8x64xbf16>) attributes {threads = 128 : i64, grid = array<i64: 0, 1, 64, -1, 0, 0, -1, 0, 1>} {
  tile.return
}

// -----

// expected-error @+1 {{grid dimension 2 refers to parameter #2, but the kernel has 1}}
tile.kernel @grid_param(%q: !tile.tensor<?x?x8x64xbf16>) attributes {threads = 128 : i64, grid = array<i64: 0, 1, 64, -1, 0, 8, 2, 0, 1>} {
  tile.return
}

// -----

// expected-error @+1 {{grid dimension 0 refers to dim 4 of a rank-4 parameter}}
tile.kernel @grid_dim(%q: !tile.tensor<?x?x8x64xbf16>) attributes {threads = 128 : i64, grid = array<i64: 0, 4, 64, -1, 0, 8, -1, 0, 1>} {
  tile.return
}
