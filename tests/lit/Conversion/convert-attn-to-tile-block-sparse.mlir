// RUN: metaattn-opt %s -split-input-file -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=64 block-n=64 kv-tile-bounds=false" | FileCheck %s

// A block-sparse map over blocks of 64 queries x 128 keys: with 64 x 64 tiles every tile lies
// in one block (64 and 128 are multiples of the tiles), so the classification of each visited
// kv tile reads the map once, at block (q0 / 64, kv0 / 128), and uses the value as an exact
// interval: the tile is skipped when it is 0 and runs unmasked when it is not. No run-time
// check that the tile meets one block is needed.
// CHECK-LABEL: tile.kernel @aligned_blocks
// CHECK: tile.pipelined
// CHECK: tile.copy
// CHECK: tile.copy
// CHECK: %[[BQ:.*]] = arith.divui %{{.*}}, %[[C64:c64[_0-9]*]] : index
// CHECK-NEXT: %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[BKV:.*]] = arith.divui %{{.*}}, %[[C128]] : index
// CHECK-NEXT: %[[M:.*]] = tile.read %{{.*}}[%{{.*}}, %{{.*}}, %[[BQ]], %[[BKV]]] : <?x2x?x?xi32> -> i32
// CHECK-NEXT: arith.index_cast %[[M]] : i32 to index
// CHECK-NOT: arith.cmpi eq, %[[BQ]]
// CHECK: %[[PARTIAL:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: %[[SEEN:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: %[[ROWS:.*]] = arith.cmpi sle, %[[LO:lo[_0-9]*]], %[[HI:hi[_0-9]*]] : index
// CHECK-NEXT: %[[VISIBLE:.*]] = arith.andi %[[SEEN]], %[[ROWS]] : i1
// CHECK-NEXT: scf.if %[[VISIBLE]] {
// CHECK: tile.gemm
func.func @aligned_blocks(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %blocks: tensor<?x2x?x?xi32>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%blocks : tensor<?x2x?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %mi = arith.index_cast %m : i32 to index
      %zero = arith.constant 0 : index
      %keep = arith.cmpi ne, %mi, %zero : index
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

// Blocks of 48 x 80 are not multiples of the tiles: the map is still read once per tile, at
// the block of the tile's first row and key, and its value counts only when the last row and
// key of the tile fall in the same blocks (checked at run time); both classifications are
// conjoined with that check, so a tile that straddles two blocks evaluates the mask per
// element.
// CHECK-LABEL: tile.kernel @straddling_blocks
// CHECK: tile.pipelined
// CHECK: %[[C48:.*]] = arith.constant 48 : index
// CHECK: %[[FQ:.*]] = arith.divui %{{.*}}, %[[C48]] : index
// CHECK: %[[LQ:.*]] = arith.divui %{{.*}}, %[[C48]] : index
// CHECK: %[[SQ:.*]] = arith.cmpi eq, %[[FQ]], %[[LQ]] : index
// CHECK: %[[C80:.*]] = arith.constant 80 : index
// CHECK: %[[FK:.*]] = arith.divui %{{.*}}, %[[C80]] : index
// CHECK: %[[LK:.*]] = arith.divui %{{.*}}, %[[C80]] : index
// CHECK: %[[SK:.*]] = arith.cmpi eq, %[[FK]], %[[LK]] : index
// CHECK: %[[ONE:.*]] = arith.andi %[[SQ]], %[[SK]] : i1
// CHECK-NEXT: tile.read %{{.*}}[%{{.*}}, %{{.*}}, %[[FQ]], %[[FK]]] : <?x2x?x?xi32> -> i32
// CHECK: arith.andi %[[ONE]], %{{.*}} : i1
// CHECK: arith.andi %[[ONE]], %{{.*}} : i1
// CHECK: scf.if
// CHECK: tile.gemm
func.func @straddling_blocks(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %blocks: tensor<?x2x?x?xi32>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%blocks : tensor<?x2x?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %zero = arith.constant 0 : i32
      %keep = arith.cmpi ne, %m, %zero : i32
      attn.yield %keep : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,h,q/48,kv/80"]}
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}

// -----

// A plain per-key input varies over the tile: the classification reads its bounds over the
// tile's keys (tile.read_bounds, see convert-attn-to-tile-document-ids.mlir), so the tile is
// skipped when they are all 0 and unmasked when none is.
// CHECK-LABEL: tile.kernel @per_key_ids
// CHECK: tile.pipelined
// CHECK-NOT: tile.read %
// CHECK: %[[MIN:.*]], %[[MAX:.*]] = tile.read_bounds
// CHECK-DAG: arith.cmpi eq, %[[MIN]], %[[MAX]] : i32
// CHECK-DAG: arith.cmpi slt, %[[MAX]], %{{.*}} : i32
// CHECK: scf.if
func.func @per_key_ids(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %ids: tensor<?x?xi32>) -> tensor<?x?x2x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%ids : tensor<?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %zero = arith.constant 0 : i32
      %keep = arith.cmpi ne, %m, %zero : i32
      attn.yield %keep : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,kv"]}
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}
