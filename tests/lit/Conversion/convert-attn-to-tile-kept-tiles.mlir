// RUN: metaattn-opt %s -split-input-file -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=64 block-n=64 kv-tile-bounds=false" | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=64 block-n=64 kept-tiles=false kv-tile-bounds=false" | FileCheck %s --check-prefix=OFF

// With kept-tiles=false the kv loop visits every tile of its range.
// OFF-NOT: tile.kept_tiles

// kept-tiles (the default): where the mask skips tiles by reading an input, the block's kept
// tiles are gathered first (tile.kept_tiles, the test classified over all the block's rows)
// and the kv loop runs over their count, each iteration taking its tile by rank. Each kept
// tile is marked with whether the mask holds on all of it; the loop body classifies only the
// others (per warpgroup once warp-specialised, and whether they need the mask).
// CHECK-LABEL: tile.kernel @causal_blocks
// CHECK: %[[LIST:.*]], %[[N:.*]] = tile.kept_tiles %[[J:.*]] = %[[LO:.*]] to %[[HI:.*]] {
// CHECK: %[[KV0:.*]] = arith.muli %[[J]], %{{.*}} : index
// CHECK: %[[M:.*]] = tile.read %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : <?x2x?x?xi32> -> i32
// CHECK: %[[KEEP:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: tile.keep %[[KEEP]], %{{.*}}
// CHECK-NEXT: }
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: tile.pipelined %[[R:.*]] = %[[ZERO]] to %[[N]] stages 2 {
// CHECK-NEXT: %[[T:.*]], %[[UNMASKED:.*]] = tile.tile_at %[[LIST]][%[[R]]] -> i1
// CHECK-NEXT: arith.constant 64 : index
// CHECK-NEXT: arith.muli %[[T]]
// CHECK: scf.if %[[UNMASKED]] -> (i1, i1) {
// CHECK-NEXT: arith.constant false
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK: tile.read
// CHECK: scf.yield
// CHECK: scf.if
// CHECK: tile.gemm
func.func @causal_blocks(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %blocks: tensor<?x2x?x?xi32>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%blocks : tensor<?x2x?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %mi = arith.index_cast %m : i32 to index
      %zero = arith.constant 0 : index
      %kept = arith.cmpi ne, %mi, %zero : index
      %causal = arith.cmpi ule, %ki, %qi : index
      %keep = arith.andi %kept, %causal : i1
      attn.yield %keep : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,h,q/64,kv/128"]}
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}

// -----

// A mask that skips by indices alone is settled by the loop's range: no list.
// CHECK-LABEL: tile.kernel @causal
// CHECK-NOT: tile.kept_tiles
// CHECK: tile.pipelined
func.func @causal(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %causal = arith.cmpi ule, %ki, %qi : index
      attn.yield %causal : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    }
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}

// -----

// Document ids: the list's test bounds the ids of the block's rows and of the tile's keys; the
// loop bounds a tile's ids only where the list did not mark it unmasked.
// CHECK-LABEL: tile.kernel @document_ids
// CHECK: tile.kept_tiles
// CHECK: tile.read_bounds %arg3
// CHECK: tile.read_bounds %arg4
// CHECK: tile.keep %{{.*}}, %{{.*}}
// CHECK: tile.pipelined
// CHECK-NEXT: %{{.*}}, %[[UNMASKED:.*]] = tile.tile_at
// CHECK-NOT: tile.read_bounds
// CHECK: scf.if %[[UNMASKED]] -> (i1, i1) {
// CHECK-NOT: tile.read_bounds
// CHECK: } else {
// CHECK: tile.read_bounds %arg4
func.func @document_ids(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %qid: tensor<?x?xi32>, %kid: tensor<?x?xi32>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%qid, %kid : tensor<?x?xi32>, tensor<?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      %same = arith.cmpi eq, %a, %c : i32
      attn.yield %same : i1
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
