// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=130 --seq-kv=77 | FileCheck %s

// Sinks joining the maximum: max(rowmax, sink) is the shift, the running maximum starts at
// the sink (shift_init); rows with no kept key still get lse = -inf.
// CHECK: output: {{.*}}, 0 of {{[0-9]+}} elements outside
// CHECK: lse: {{.*}}, 0 of {{[0-9]+}} elements outside
// CHECK: PASS sink_max
func.func @sink_max(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %sink: tensor<4xf32>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v inputs(%sink : tensor<4xf32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sk: f32):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sk: f32):
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sk: f32):
      %mx0 = attn.row_reduce max %s : f32
      %mx = arith.maximumf %mx0, %sk : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z0 = attn.row_reduce sum %w : f32
      %ds = arith.subf %sk, %mx : f32
      %es = math.exp %ds : f32
      %z = arith.addf %z0, %es : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["h"]} : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}
