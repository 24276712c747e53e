// A document mask combined with a sliding window and causality, at an odd head dim (40, value
// dim 24), with sorted document ids (--documents) and unsorted ones: each kv tile is
// classified from the bounds of the ids and the affine window together. The CPU executor
// checks the sm_90a, persistent and sm_80 lowerings against the oracle at lengths 1, just
// past a tile, and Sq != Skv.
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=129 --seq-kv=129 --documents=3 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=65 --seq-kv=257 --documents=2 --prefetch-bounds | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=257 --seq-kv=65 --documents=4 --persistent | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=1 --seq-kv=200 --documents=2 --target=sm_80 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=150 --seq-kv=150 | FileCheck %s

// CHECK-NOT: FAIL
// CHECK: PASS window_documents
func.func @window_documents(%q: tensor<?x?x2x40xbf16>, %k: tensor<?x?x1x40xbf16>, %v: tensor<?x?x1x24xbf16>, %qid: tensor<?x?xi32>, %kid: tensor<?x?xi32>) -> (tensor<?x?x2x24xbf16>, tensor<?x2x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v inputs(%qid, %kid : tensor<?x?xi32>, tensor<?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      %scale = arith.constant 0.158113883 : f32
      %x = arith.mulf %s, %scale : f32
      attn.yield %x : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      %x = arith.index_cast %a : i32 to index
      %y = arith.index_cast %c : i32 to index
      %same = arith.cmpi eq, %x, %y : index
      %off = arith.subi %skv, %sq : index
      %diag = arith.addi %qi, %off : index
      %causal = arith.cmpi sle, %ki, %diag : index
      %c100 = arith.constant 100 : index
      %far = arith.subi %diag, %c100 : index
      %near = arith.cmpi sge, %ki, %far : index
      %window = arith.andi %causal, %near : i1
      %keep = arith.andi %same, %window : i1
      attn.yield %keep : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,q", "b,kv"]}
    : tensor<?x?x2x40xbf16>, tensor<?x?x1x40xbf16>, tensor<?x?x1x24xbf16> -> tensor<?x?x2x24xbf16>, tensor<?x2x?xf32>
  return %o, %lse : tensor<?x?x2x24xbf16>, tensor<?x2x?xf32>
}
