// RUN: metaattn-opt %s -split-input-file -verify-diagnostics

// One diagnostic of the tile op verifiers (buffers, copies, gemm, reductions, loops), the
// fragment layout attribute and the !tile.tensor parser per split. Kernels: invalid-kernel.mlir.

func.func @dim_range(%q: !tile.tensor<?x?x8x64xbf16>) {
  // expected-error @+1 {{'tile.dim' op dim 4 is out of range for a rank-4 tensor}}
  %d = tile.dim %q, 4 : !tile.tensor<?x?x8x64xbf16>
  return
}

// -----

func.func @alloc_space() {
  // expected-error @+1 {{buffer must be in #tile.space<shared> or #tile.space<fragment>}}
  %a = tile.alloc : memref<64xf32>
  return
}

// -----

func.func @alloc_dynamic() {
  // expected-error @+1 {{buffer shape must be static, found 'memref<?xf32, #tile.space<shared>>'}}
  %a = tile.alloc : memref<?xf32, #tile.space<shared>>
  return
}

// -----

func.func @alloc_layout_shared() {
  // expected-error @+1 {{only fragment buffers take a #tile.layout}}
  %a = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<shared>>
  return
}

// -----

func.func @alloc_layout_rank() {
  // expected-error @+1 {{#tile.layout<row> needs a rank-1 fragment, found 'memref<64x64xf32, #tile.space<fragment>>'}}
  %a = tile.alloc {layout = #tile.layout<"row", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @layout_kind() {
  // expected-error @+1 {{fragment layout kind must be "mma", "row" or "col", found "diagonal"}}
  %a = tile.alloc {layout = #tile.layout<"diagonal", warps = 4>} : memref<64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @layout_warps() {
  // expected-error @+1 {{fragment layout needs 1 to 32 warps, found 0}}
  %a = tile.alloc {layout = #tile.layout<"mma", warps = 0>} : memref<64x64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @stage_space(%b: memref<2x64xf32, #tile.space<fragment>>, %i: index) {
  // expected-error @+1 {{stages are views of shared buffers}}
  %s = tile.stage %b[%i] : memref<2x64xf32, #tile.space<fragment>> -> memref<64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @stage_shape(%b: memref<2x64x64xbf16, #tile.space<shared>>, %i: index) {
  // expected-error @+1 {{result must drop the leading (stage) dimension of 'memref<2x64x64xbf16, #tile.space<shared>>', found 'memref<64x32xbf16, #tile.space<shared>>'}}
  %s = tile.stage %b[%i] : memref<2x64x64xbf16, #tile.space<shared>> -> memref<64x32xbf16, #tile.space<shared>>
  return
}

// -----

func.func @read_indices(%t: !tile.tensor<?x?x8x64xbf16>, %i: index) {
  // expected-error @+1 {{needs 4 indices, found 1}}
  %x = tile.read %t[%i] : !tile.tensor<?x?x8x64xbf16> -> bf16
  return
}

// -----

func.func @read_type(%t: !tile.tensor<8xf32>, %i: index) {
  // expected-error @+1 {{result type must be the element type 'f32'}}
  %x = tile.read %t[%i] : !tile.tensor<8xf32> -> f16
  return
}

// -----

func.func @write_indices(%t: !tile.tensor<?x?x2xi32>, %i: index, %v: i32) {
  // expected-error @+1 {{needs 3 indices, found 2}}
  tile.write %v, %t[%i, %i] : i32, !tile.tensor<?x?x2xi32>
  return
}

// -----

func.func @write_type(%t: !tile.tensor<?xi32>, %i: index, %v: i64) {
  // expected-error @+1 {{value type must be the element type 'i32'}}
  tile.write %v, %t[%i] : i64, !tile.tensor<?xi32>
  return
}

// -----

func.func @read_bounds_indices(%t: !tile.tensor<?x?xi32>, %i: index) {
  // expected-error @+1 {{needs 2 indices, found 1}}
  %lo, %hi = tile.read_bounds %t[%i] to %i {axis = 0 : i64} : !tile.tensor<?x?xi32> -> i32
  return
}

// -----

func.func @read_bounds_axis(%t: !tile.tensor<?x?xi32>, %i: index) {
  // expected-error @+1 {{axis 2 is not an axis of a rank-2 tensor}}
  %lo, %hi = tile.read_bounds %t[%i, %i] to %i {axis = 2 : i64} : !tile.tensor<?x?xi32> -> i32
  return
}

// -----

func.func @read_bounds_type(%t: !tile.tensor<?x?xi32>, %i: index) {
  // expected-error @+1 {{result type must be the element type 'i32'}}
  %lo, %hi = tile.read_bounds %t[%i, %i] to %i {axis = 1 : i64} : !tile.tensor<?x?xi32> -> i64
  return
}

// -----

func.func @read_bounds_bool(%t: !tile.tensor<?xi1>, %i: index) {
  // expected-error @+1 {{needs integers wider than i1}}
  %lo, %hi = tile.read_bounds %t[%i] to %i {axis = 0 : i64} : !tile.tensor<?xi1> -> i1
  return
}

// -----

func.func @fill_buffer(%b: memref<64xf32>, %x: f32) {
  // expected-error @+1 {{buffer must be a shared or fragment buffer (memref in #tile.space<shared> or #tile.space<fragment>), found 'memref<64xf32>'}}
  tile.fill %b, %x : memref<64xf32>, f32
  return
}

// -----

func.func @fill_type(%b: memref<64xf32, #tile.space<fragment>>, %x: f16) {
  // expected-error @+1 {{value type 'f16' must match the buffer's element type 'f32'}}
  tile.fill %b, %x : memref<64xf32, #tile.space<fragment>>, f16
  return
}

// -----

func.func @copy_global_global(%a: !tile.tensor<8xf32>, %b: !tile.tensor<8xf32>, %i: index) {
  // expected-error @+1 {{cannot copy from global memory to global memory}}
  tile.copy %a[%i] to %b[%i] : !tile.tensor<8xf32> to !tile.tensor<8xf32>
  return
}

// -----

func.func @copy_local_source_indices(%a: memref<8xf32, #tile.space<fragment>>, %b: !tile.tensor<8xf32>, %i: index) {
  // expected-error @+1 {{only a global source takes indices}}
  tile.copy %a[%i] to %b[%i] {dims = array<i64: 0>} : memref<8xf32, #tile.space<fragment>> to !tile.tensor<8xf32>
  return
}

// -----

func.func @copy_local_dest_indices(%a: !tile.tensor<8xf32>, %b: memref<8xf32, #tile.space<shared>>, %i: index) {
  // expected-error @+1 {{only a global destination takes indices}}
  tile.copy %a[%i] to %b[%i] {dims = array<i64: 0>} : !tile.tensor<8xf32> to memref<8xf32, #tile.space<shared>>
  return
}

// -----

func.func @copy_source_space(%a: memref<8xf32>, %b: memref<8xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{source must be a shared or fragment buffer (memref in #tile.space<shared> or #tile.space<fragment>), found 'memref<8xf32>'}}
  tile.copy %a to %b : memref<8xf32> to memref<8xf32, #tile.space<fragment>>
  return
}

// -----

func.func @copy_dest_space(%a: !tile.tensor<8xf32>, %b: f32, %i: index) {
  // expected-error @+1 {{destination must be a shared or fragment buffer (memref in #tile.space<shared> or #tile.space<fragment>), found 'f32'}}
  tile.copy %a[%i] to %b {dims = array<i64: 0>} : !tile.tensor<8xf32> to f32
  return
}

// -----

func.func @copy_local_shapes(%a: memref<8xf32, #tile.space<fragment>>, %b: memref<16xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{local copy needs equal shapes, found 'memref<8xf32, #tile.space<fragment>>' and 'memref<16xf32, #tile.space<fragment>>'}}
  tile.copy %a to %b : memref<8xf32, #tile.space<fragment>> to memref<16xf32, #tile.space<fragment>>
  return
}

// -----

func.func @copy_local_dims(%a: memref<8xf32, #tile.space<fragment>>, %b: memref<8xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{local copies take no dims}}
  tile.copy %a to %b {dims = array<i64: 0>} : memref<8xf32, #tile.space<fragment>> to memref<8xf32, #tile.space<fragment>>
  return
}

// -----

func.func @copy_local_async(%a: memref<8xf32, #tile.space<fragment>>, %b: memref<8xf32, #tile.space<shared>>) {
  // expected-error @+1 {{only global-to-shared copies may be async}}
  tile.copy %a to %b {async} : memref<8xf32, #tile.space<fragment>> to memref<8xf32, #tile.space<shared>>
  return
}

// -----

func.func @copy_global_indices(%a: !tile.tensor<?x?x8x64xbf16>, %b: memref<64x64xbf16, #tile.space<shared>>, %i: index) {
  // expected-error @+1 {{global side needs 4 indices, found 2}}
  tile.copy %a[%i, %i] to %b {dims = array<i64: 1, 3>} : !tile.tensor<?x?x8x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
  return
}

// -----

func.func @copy_no_dims(%a: !tile.tensor<8xf32>, %b: memref<8xf32, #tile.space<shared>>, %i: index) {
  // expected-error @+1 {{a copy to or from global memory needs dims}}
  tile.copy %a[%i] to %b : !tile.tensor<8xf32> to memref<8xf32, #tile.space<shared>>
  return
}

// -----

func.func @copy_dims_count(%a: !tile.tensor<?x?x8x64xbf16>, %b: memref<64x64xbf16, #tile.space<shared>>, %i: index) {
  // expected-error @+1 {{dims must name one global dimension per local dimension (2), found 1}}
  tile.copy %a[%i, %i, %i, %i] to %b {dims = array<i64: 1>} : !tile.tensor<?x?x8x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
  return
}

// -----

func.func @copy_dims_range(%a: !tile.tensor<?x?x8x64xbf16>, %b: memref<64x64xbf16, #tile.space<shared>>, %i: index) {
  // expected-error @+1 {{dims[1] = 4 is out of range for rank 4}}
  tile.copy %a[%i, %i, %i, %i] to %b {dims = array<i64: 1, 4>} : !tile.tensor<?x?x8x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
  return
}

// -----

func.func @copy_dims_distinct(%a: !tile.tensor<?x?x8x64xbf16>, %b: memref<64x64xbf16, #tile.space<shared>>, %i: index) {
  // expected-error @+1 {{dims must be distinct}}
  tile.copy %a[%i, %i, %i, %i] to %b {dims = array<i64: 3, 3>} : !tile.tensor<?x?x8x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
  return
}

// -----

func.func @copy_convert_to_shared(%a: !tile.tensor<?x?x8x64xbf16>, %b: memref<64x64xf16, #tile.space<shared>>, %i: index) {
  // expected-error @+1 {{global-to-shared copies cannot convert: 'bf16' to 'f16'}}
  tile.copy %a[%i, %i, %i, %i] to %b {dims = array<i64: 1, 3>} : !tile.tensor<?x?x8x64xbf16> to memref<64x64xf16, #tile.space<shared>>
  return
}

// -----

func.func @copy_async_store(%a: memref<64x64xbf16, #tile.space<shared>>, %b: !tile.tensor<?x?x8x64xbf16>, %i: index) {
  // expected-error @+1 {{only global-to-shared copies may be async}}
  tile.copy %a to %b[%i, %i, %i, %i] {dims = array<i64: 1, 3>, async} : memref<64x64xbf16, #tile.space<shared>> to !tile.tensor<?x?x8x64xbf16>
  return
}

// -----

func.func @copy_staged_load(%a: !tile.tensor<?x?x8x64xbf16>, %b: memref<64x64xbf16, #tile.space<shared>>, %s: memref<64x64xbf16, #tile.space<shared>>, %i: index) {
  // expected-error @+1 {{only a copy of a 2-D fragment to global memory may be staged}}
  tile.copy %a[%i, %i, %i, %i] to %b via %s : memref<64x64xbf16, #tile.space<shared>> {dims = array<i64: 1, 3>} : !tile.tensor<?x?x8x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
  return
}

// -----

func.func @copy_staged_shape(%a: memref<64x64xf32, #tile.space<fragment>>, %b: !tile.tensor<?x?x8x64xbf16>, %s: memref<64x32xbf16, #tile.space<shared>>, %i: index) {
  // expected-error @+1 {{staging buffer must be shared memory of the fragment's shape in the destination's element type (64x64xbf16), found 'memref<64x32xbf16, #tile.space<shared>>'}}
  tile.copy %a to %b[%i, %i, %i, %i] via %s : memref<64x32xbf16, #tile.space<shared>> {dims = array<i64: 1, 3>} : memref<64x64xf32, #tile.space<fragment>> to !tile.tensor<?x?x8x64xbf16>
  return
}

// -----

func.func @copy_staged_fragment(%a: memref<64x64xf32, #tile.space<fragment>>, %b: !tile.tensor<?x?x8x64xbf16>, %s: memref<64x64xbf16, #tile.space<fragment>>, %i: index) {
  // expected-error @+1 {{staging buffer must be shared memory}}
  tile.copy %a to %b[%i, %i, %i, %i] via %s : memref<64x64xbf16, #tile.space<fragment>> {dims = array<i64: 1, 3>} : memref<64x64xf32, #tile.space<fragment>> to !tile.tensor<?x?x8x64xbf16>
  return
}

// -----

func.func @gemm_rank(%a: memref<64xbf16, #tile.space<shared>>, %b: memref<64x64xbf16, #tile.space<shared>>, %c: memref<64x64xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{operands must be 2-D buffers}}
  tile.gemm %a, %b, %c : memref<64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  return
}

// -----

// Only a wgmma gemm can be issued without waiting (mma.sync gemms are synchronous).
func.func @gemm_async_not_wgmma(%a: memref<64x64xbf16, #tile.space<shared>>, %b: memref<64x64xbf16, #tile.space<shared>>, %c: memref<64x64xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{only a wgmma gemm (tile.wgmma) can be async}}
  tile.gemm %a, %b, %c {async} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @gemm_wait_not_accumulator(%s: memref<64x64xbf16, #tile.space<fragment>>) {
  // expected-error @+1 {{waits for gemm accumulators (2-D f32 fragments), found 'memref<64x64xbf16, #tile.space<fragment>>'}}
  tile.gemm_wait 0, %s : memref<64x64xbf16, #tile.space<fragment>>
  return
}

// -----

func.func @gemm_acc(%a: memref<64x64xbf16, #tile.space<shared>>, %b: memref<64x64xbf16, #tile.space<shared>>, %c: memref<64x64xf16, #tile.space<fragment>>) {
  // expected-error @+1 {{accumulator must be an f32 fragment, found 'memref<64x64xf16, #tile.space<fragment>>'}}
  tile.gemm %a, %b, %c : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf16, #tile.space<fragment>>
  return
}

// -----

func.func @gemm_a_space(%a: memref<64x64xbf16>, %b: memref<64x64xbf16, #tile.space<shared>>, %c: memref<64x64xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{A must be in shared memory or a fragment, found 'memref<64x64xbf16>'}}
  tile.gemm %a, %b, %c : memref<64x64xbf16>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @gemm_b_space(%a: memref<64x64xbf16, #tile.space<shared>>, %b: memref<64x64xbf16, #tile.space<fragment>>, %c: memref<64x64xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{B must be in shared memory, found 'memref<64x64xbf16, #tile.space<fragment>>'}}
  tile.gemm %a, %b, %c : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<fragment>>, memref<64x64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @gemm_types(%a: memref<64x64xf32, #tile.space<shared>>, %b: memref<64x64xf32, #tile.space<shared>>, %c: memref<64x64xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{A and B must both be bf16 or both f16, found 'f32' and 'f32'}}
  tile.gemm %a, %b, %c : memref<64x64xf32, #tile.space<shared>>, memref<64x64xf32, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @gemm_k(%a: memref<64x32xbf16, #tile.space<shared>>, %b: memref<64x64xbf16, #tile.space<shared>>, %c: memref<64x64xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{contraction sizes differ: A has K = 32, B has 64}}
  tile.gemm %a, %b, %c : memref<64x32xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @gemm_k_transposed(%a: memref<64x64xbf16, #tile.space<shared>>, %b: memref<64x32xbf16, #tile.space<shared>>, %c: memref<64x64xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{contraction sizes differ: A has K = 64, B has 32}}
  tile.gemm %a, %b, %c {transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<64x32xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @gemm_c_shape(%a: memref<64x64xbf16, #tile.space<shared>>, %b: memref<32x64xbf16, #tile.space<shared>>, %c: memref<64x64xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{accumulator must be 64x32, found 'memref<64x64xf32, #tile.space<fragment>>'}}
  tile.gemm %a, %b, %c {transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<32x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @reduce_space(%s: memref<64x64xf32, #tile.space<shared>>, %d: memref<64xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{source and destination must be fragments}}
  tile.reduce max %s to %d : memref<64x64xf32, #tile.space<shared>> to memref<64xf32, #tile.space<fragment>>
  return
}

// -----

func.func @reduce_rank(%s: memref<64x64xf32, #tile.space<fragment>>, %d: memref<64x1xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{reduces a 2-D fragment into a 1-D fragment, found 'memref<64x64xf32, #tile.space<fragment>>' to 'memref<64x1xf32, #tile.space<fragment>>'}}
  tile.reduce sum %s to %d : memref<64x64xf32, #tile.space<fragment>> to memref<64x1xf32, #tile.space<fragment>>
  return
}

// -----

func.func @reduce_rows(%s: memref<64x64xf32, #tile.space<fragment>>, %d: memref<32xf32, #tile.space<fragment>>) {
  // expected-error @+1 {{destination must have one element per row (64), found 32}}
  tile.reduce sum %s to %d : memref<64x64xf32, #tile.space<fragment>> to memref<32xf32, #tile.space<fragment>>
  return
}

// -----

func.func @reduce_f32(%s: memref<64x64xf16, #tile.space<fragment>>, %d: memref<64xf16, #tile.space<fragment>>) {
  // expected-error @+1 {{reductions are in f32}}
  tile.reduce abs_sum %s to %d : memref<64x64xf16, #tile.space<fragment>> to memref<64xf16, #tile.space<fragment>>
  return
}

// -----

func.func @parallel_rank() {
  // expected-error @+1 {{iterates over a 1-D or 2-D index space, found rank 3}}
  tile.parallel (%i, %j, %k) in [2, 2, 2] {
  }
  return
}

// -----

func.func @parallel_extent() {
  // expected-error @+1 {{extents must be positive}}
  tile.parallel (%i) in [0] {
  }
  return
}

// -----

func.func @parallel_args() {
  // expected-error @+1 {{body must take one index argument per dimension}}
  "tile.parallel"() <{shape = array<i64: 4>}> ({
  ^bb0(%i: f32):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @pipelined_stages(%lo: index, %hi: index) {
  // expected-error @+1 {{stages must be between 1 and 8, found 9}}
  tile.pipelined %j = %lo to %hi stages 9 {
  }
  return
}

// -----

func.func @pipelined_args(%lo: index, %hi: index) {
  // expected-error @+1 {{body must take the index induction variable}}
  "tile.pipelined"(%lo, %hi) <{num_stages = 2 : i64}> ({
  ^bb0(%j: index, %x: index):
    "tile.yield"() : () -> ()
  }) : (index, index) -> ()
  return
}

// -----

// expected-error @+1 {{tile.tensor element type must be a scalar, found 'vector<4xf32>'}}
func.func private @tensor_element(!tile.tensor<?xvector<4xf32>>)

// -----

// expected-error @+1 {{tile.tensor must have rank >= 1}}
func.func private @tensor_rank(!tile.tensor<f32>)

// -----

func.func @row_range_outside_consumer(%first: index, %last: index) {
  // expected-error @+1 {{group_rows needs a tile.warp_specialize consumer region around it}}
  %lo, %hi = tile.row_range %first, %last {rows = 128 : i64, group_rows = 64 : i64}
  return
}

// -----

func.func @row_range_split(%first: index, %last: index) {
  // expected-error @+1 {{group_rows 48 does not divide rows 128}}
  %lo, %hi = tile.row_range %first, %last {rows = 128 : i64, group_rows = 48 : i64}
  return
}

// -----

func.func @kept_tiles_effects(%lo: index, %hi: index, %buf: memref<64xf32, #tile.space<shared>>) {
  %list, %n = tile.kept_tiles %j = %lo to %hi {
    %zero = arith.constant 0.0 : f32
    // expected-error @+1 {{cannot be in a tile.kept_tiles body (only pure scalar ops, tile.read and tile.read_bounds)}}
    tile.fill %buf, %zero : memref<64xf32, #tile.space<shared>>, f32
    %yes = arith.constant true
    tile.keep %yes
  }
  return
}

// -----

func.func @tile_at_marks(%lo: index, %hi: index, %r: index) {
  %list, %n = tile.kept_tiles %j = %lo to %hi {
    %yes = arith.constant true
    tile.keep %yes, %yes
  }
  // expected-error @+1 {{returns 0 marks, but its list's indices carry 1}}
  %t = "tile.tile_at"(%list, %r) : (!tile.tile_list, index) -> index
  return
}

// -----

func.func @kept_tiles_terminator(%lo: index, %hi: index) {
  // expected-error @+1 {{body must end in tile.keep}}
  %list, %n = "tile.kept_tiles"(%lo, %hi) ({
  ^bb0(%j: index):
    "tile.yield"() : () -> ()
  }) : (index, index) -> (!tile.tile_list, index)
  return
}

// -----

func.func @keep_outside(%k: i1) {
  // expected-error @+1 {{expects parent op 'tile.kept_tiles'}}
  tile.keep %k
}

// -----

func.func @index_parts_outside(%i: index) {
  // expected-error @+1 {{splits an induction variable of the tile.parallel whose body holds it}}
  %t, %e = tile.index_parts %i
  return
}

// -----

func.func @index_parts_not_induction(%i: index) {
  tile.parallel (%r) in [64] {
    // expected-error @+1 {{splits an induction variable of the tile.parallel whose body holds it}}
    %t, %e = tile.index_parts %i
  }
  return
}

// -----

func.func @prefetch_indices(%t: !tile.tensor<?x?xf32>, %i: index) {
  // expected-error @+1 {{needs 2 indices, found 1}}
  tile.prefetch %t[%i] {level = 1 : i64} : !tile.tensor<?x?xf32>
  return
}

// -----

func.func @prefetch_level(%t: !tile.tensor<?xf32>, %i: index) {
  // expected-error @+1 {{attribute 'level' failed to satisfy constraint}}
  tile.prefetch %t[%i] {level = 3 : i64} : !tile.tensor<?xf32>
  return
}

// -----

func.func @copy_group_rows_outside_consumer(%t: !tile.tensor<?x?xf32>, %i: index) {
  %s = tile.alloc : memref<128x64xf32, #tile.space<shared>>
  // expected-error @+1 {{group_rows needs a tile.warp_specialize consumer region around it}}
  tile.copy %t[%i, %i] to %s {async, dims = array<i64: 0, 1>, group_rows = 64 : i64} : !tile.tensor<?x?xf32> to memref<128x64xf32, #tile.space<shared>>
  return
}

// -----

func.func @copy_group_rows_sync(%t: !tile.tensor<?x?xf32>, %i: index) {
  %s = tile.alloc : memref<128x64xf32, #tile.space<shared>>
  // expected-error @+1 {{only an async copy into a 2-D shared tile may be split over warpgroups}}
  tile.copy %t[%i, %i] to %s {dims = array<i64: 0, 1>, group_rows = 64 : i64} : !tile.tensor<?x?xf32> to memref<128x64xf32, #tile.space<shared>>
  return
}

// -----

func.func @copy_group_rows_divide(%t: !tile.tensor<?x?xf32>, %i: index) {
  %s = tile.alloc : memref<128x64xf32, #tile.space<shared>>
  // expected-error @+1 {{group_rows 48 does not divide the tile's 128 rows}}
  tile.copy %t[%i, %i] to %s {async, dims = array<i64: 0, 1>, group_rows = 48 : i64} : !tile.tensor<?x?xf32> to memref<128x64xf32, #tile.space<shared>>
  return
}

// -----

func.func @warpgroup_barrier_outside_consumer() {
  // expected-error @+1 {{a warpgroup barrier needs a tile.warp_specialize consumer region around it}}
  tile.barrier {warpgroup}
  return
}
