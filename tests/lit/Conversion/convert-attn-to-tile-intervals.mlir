// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile | FileCheck %s

// A chunked causal mask (q and kv in the same chunk of 48) is not affine in kv: every visited
// tile is classified at run time by interval arithmetic over its index box — the chunk index
// of the box corners is computed with the same division — and the tile's compute runs only
// when the mask is not false on the whole box.
// CHECK-LABEL: tile.kernel @chunked
// CHECK: tile.pipelined
// CHECK: tile.copy
// CHECK: tile.copy
// CHECK: arith.divsi
// CHECK: arith.divsi
// CHECK: %[[PARTIAL:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: %[[SEEN:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: %[[ROWS:.*]] = arith.cmpi sle, %[[LO:lo[_0-9]*]], %[[HI:hi[_0-9]*]] : index
// CHECK-NEXT: %[[VISIBLE:.*]] = arith.andi %[[SEEN]], %[[ROWS]] : i1
// CHECK-NEXT: scf.if %[[VISIBLE]] {
// CHECK: tile.gemm
// CHECK: tile.gemm
func.func @chunked(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> (tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %qa = arith.addi %qi, %off : index
      %causal = arith.cmpi sle, %ki, %qa : index
      %c48 = arith.constant 48 : index
      %cq = arith.divsi %qa, %c48 : index
      %ck = arith.divsi %ki, %c48 : index
      %same = arith.cmpi eq, %cq, %ck : index
      %m = arith.andi %causal, %same : i1
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
}
