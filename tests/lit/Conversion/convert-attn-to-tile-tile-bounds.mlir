// RUN: metaattn-opt %s -split-input-file -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=64 block-n=64" | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=64 block-n=64 kv-tile-bounds=false" | FileCheck %s --check-prefix=OFF

// kv-tile-bounds: a custom integer input with one plain kv axis that the mask reads (a
// document mask's key ids) gets a pre-pass kernel, launched first (step 0), that writes each
// kv tile's smallest and largest id to an intermediate shaped as the input with its kv axis in
// tiles and a trailing (min, max) axis; the attention kernel (step 1) takes it as its last
// parameter and classifies a tile by reading those two values where it bounded the tile's
// ids. The query ids are still bounded over the block's rows.
// CHECK-LABEL: tile.kernel @docs_step1(
// CHECK-SAME: %[[QID:arg3]]: !tile.tensor<?x?xi32> {tile.name = "input0"}
// CHECK-SAME: %[[TB:arg6]]: !tile.tensor<?x?x2xi32> {tile.name = "input1_tile_bounds"}
// CHECK-SAME: tile.bindings = ["arg:0", "arg:1", "arg:2", "arg:3", "arg:4", "result:0", "temp:0"]
// CHECK-SAME: ["B", "Skv/64", ""]
// CHECK-SAME: tile.outputs = array<i64: 5>, tile.step = 1
// CHECK: tile.kept_tiles %[[J:.*]] = %{{.*}} to %{{.*}} {
// CHECK: %[[KV0:.*]] = arith.muli %[[J]], %{{.*}} : index
// CHECK: tile.read_bounds %[[QID]]
// CHECK: %[[T:.*]] = arith.divui %[[KV0]], %{{.*}} : index
// CHECK: %[[LO:.*]] = tile.read %[[TB]][%{{.*}}, %[[T]], %{{.*}}] : <?x?x2xi32> -> i32
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[HI:.*]] = tile.read %[[TB]][%{{.*}}, %[[T]], %[[C1]]] : <?x?x2xi32> -> i32
// CHECK-DAG: arith.cmpi eq, %[[LO]], %[[HI]] : i32
// CHECK: tile.keep
// CHECK-NOT: tile.read_bounds %arg4
// CHECK: tile.pipelined
// CHECK: scf.if %{{.*}} -> (i1, i1) {
// CHECK: } else {
// CHECK: tile.read_bounds %[[QID]]
// CHECK-NOT: tile.read_bounds
// CHECK: tile.read %[[TB]]
// CHECK-NOT: tile.read_bounds
// CHECK: tile.return
// CHECK-LABEL: tile.kernel @docs_step0(
// CHECK-SAME: %[[IDS:.*]]: !tile.tensor<?x?xi32> {tile.name = "input1"}
// CHECK-SAME: %[[OUT:.*]]: !tile.tensor<?x?x2xi32> {tile.name = "input1_tile_bounds"}
// CHECK-SAME: grid = array<i64: 0, 1, 64, 0, 0, 1, -1, 0, 1>, threads = 32
// CHECK-SAME: tile.bindings = ["arg:4", "temp:0"]
// CHECK-SAME: tile.dim_symbols = {{\[}}["B", "Skv"], ["B", "Skv/64", ""]]
// CHECK-SAME: tile.outputs = array<i64: 1>, tile.step = 0
// CHECK: %[[TILE:.*]] = tile.block_id 0
// CHECK: %[[FIRST:.*]] = arith.muli %[[TILE]], %{{.*}} : index
// CHECK: %[[N:.*]] = tile.dim %[[IDS]], 1
// CHECK: %[[B:.*]] = tile.block_id 1
// CHECK: %[[MIN:.*]], %[[MAX:.*]] = tile.read_bounds %[[IDS]][%[[B]], %[[FIRST]]] to %{{.*}} {axis = 1 : i64}
// CHECK: tile.write %[[MIN]], %[[OUT]][%[[B]], %[[TILE]], %{{.*}}] : i32, <?x?x2xi32>
// CHECK: tile.write %[[MAX]], %[[OUT]][%[[B]], %[[TILE]], %{{.*}}] : i32, <?x?x2xi32>
// OFF-LABEL: tile.kernel @docs(
// OFF-NOT: tile_bounds
// OFF: tile.read_bounds %arg4
// OFF-NOT: tile.kernel @docs_step

func.func @docs(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %qid: tensor<?x?xi32>, %kid: tensor<?x?xi32>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%qid, %kid : tensor<?x?xi32>, tensor<?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      %same = arith.cmpi eq, %a, %c : i32
      %causal = arith.cmpi sle, %ki, %qi : index
      %keep = arith.andi %same, %causal : i1
      attn.yield %keep : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,q", "b,kv"]}
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}


// -----

// An input over b, h and kv (64-bit): the pre-pass's grid runs over the kv tiles, the batch and
// the heads.
// CHECK-LABEL: tile.kernel @head_keys_step1(
// CHECK-SAME: !tile.tensor<?x2x?x2xi64> {tile.name = "input0_tile_bounds"}
// CHECK: tile.read %{{.*}} : <?x2x?x2xi64> -> i64
// CHECK-LABEL: tile.kernel @head_keys_step0(
// CHECK-SAME: grid = array<i64: 0, 2, 64, 0, 0, 1, 0, 1, 1>
// CHECK-SAME: ["B", "H", "Skv/64", ""]
// CHECK: %[[B:.*]] = tile.block_id 1
// CHECK: %[[H:.*]] = tile.block_id 2
// CHECK: tile.read_bounds %{{.*}}[%[[B]], %[[H]], %{{.*}}] to %{{.*}} {axis = 2 : i64} : <?x2x?xi64> -> i64
// CHECK: tile.write
// CHECK: tile.write

func.func @head_keys(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %kid: tensor<?x2x?xi64>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%kid : tensor<?x2x?xi64>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %c: i64):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %c: i64):
      %zero = arith.constant 0 : i64
      %keep = arith.cmpi ne, %c, %zero : i64
      attn.yield %keep : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %c: i64):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,h,kv"]}
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}


// -----

// Query ids and a float input over kv: nothing to bound per kv tile, one kernel.
// CHECK-LABEL: tile.kernel @query_ids(
// CHECK-NOT: tile_bounds
// CHECK: tile.read_bounds
// CHECK-NOT: tile.kernel

func.func @query_ids(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %qid: tensor<?x?xi32>, %bias: tensor<?xf32>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%qid, %bias : tensor<?x?xi32>, tensor<?xf32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %x: f32):
      %y = arith.addf %s, %x : f32
      attn.yield %y : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %x: f32):
      %zero = arith.constant 0 : i32
      %keep = arith.cmpi ne, %a, %zero : i32
      attn.yield %keep : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %x: f32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,q", "kv"]}
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}
