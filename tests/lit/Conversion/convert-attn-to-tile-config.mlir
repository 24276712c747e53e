// An attn.tile_config dictionary on the op (what a tuning file applies) sets its tile sizes:
// it survives attn-online-normalize and convert-attn-to-tile honours it; pass options win.
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize | FileCheck %s --check-prefix=ONLINE
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a" | FileCheck %s
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a block-n=16" | FileCheck %s --check-prefix=OPTION

// ONLINE: attn.online_attention
// ONLINE: attn.tile_config = {block_m = 64 : i64, block_n = 32 : i64, stages = 1 : i64, warps = 4 : i64}
// CHECK: tile.kernel @causal({{.*}}threads = 128
// CHECK: tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// CHECK: tile.alloc : memref<32x64xbf16, #tile.space<shared>>
// CHECK: tile.pipelined {{.*}} stages 1
// OPTION: tile.alloc : memref<16x64xbf16, #tile.space<shared>>
func.func @causal(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {attn.tile_config = {block_m = 64 : i64, block_n = 32 : i64, warps = 4 : i64, stages = 1 : i64}} : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}
