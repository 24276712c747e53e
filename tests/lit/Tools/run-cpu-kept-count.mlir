// A normaliser without a row maximum that returns the row statistic (sigmoid) and no mask:
// at seq_kv a multiple of the kv tile every tile is full, so whether a row kept an entry
// comes only from the full tiles' count (the tile width added per row); a count left at zero
// would report -inf against the oracle's finite statistic.
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=70 --seq-kv=128 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=33 --seq-kv=256 | FileCheck %s
// CHECK: lse: {{.*}}, 0 of {{[0-9]+}} elements outside
// CHECK: PASS sigmoid_lse_full

func.func @sigmoid_lse_full(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %n = arith.negf %s : f32
      %e = math.exp %n : f32
      %one = arith.constant 1.0 : f32
      %d = arith.addf %one, %e : f32
      %w = arith.divf %one, %d : f32
      attn.yield %w : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.constant true
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}
