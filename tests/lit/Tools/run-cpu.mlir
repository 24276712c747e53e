// The whole pipeline, run on the CPU tile executor and checked against the oracle.
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=33 --seq-kv=70 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=70 --seq-kv=33 | FileCheck %s
// Without the score scale folded into the exponent (the default folds it: raw scores, the
// maximum of them scaled where read).
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=33 --seq-kv=70 --fold-score-scale=false | FileCheck %s

// CHECK: causal_gqa (B={{[0-9]+}}, Sq={{[0-9]+}}, Skv={{[0-9]+}}, device=cpu)
// CHECK: output: {{.*}}, 0 of {{[0-9]+}} elements outside
// CHECK: lse: {{.*}}, 0 of {{[0-9]+}} elements outside
// CHECK: PASS causal_gqa
func.func @causal_gqa(%q: tensor<?x?x4x32xbf16>, %k: tensor<?x?x2x32xbf16>, %v: tensor<?x?x2x48xbf16>) -> (tensor<?x?x4x48xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.17677669 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
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
    } : tensor<?x?x4x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x48xbf16> -> tensor<?x?x4x48xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x48xbf16>, tensor<?x4x?xf32>
}
