// The regions of attn ops are isolated from above and parsed as their own name scopes: a
// score function that reads a value defined outside its region is an error at the use. (IR
// built through the C++ API is checked by the IsolatedFromAbove verifier instead.)
// RUN: not metaattn-opt %s 2>&1 | FileCheck %s
// CHECK: bad-input-outer-value.mlir:[[# @LINE + 6]]:27: error: use of undeclared SSA value name
func.func @outer(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> tensor<?x?x2x64xbf16> {
  %two = arith.constant 2.0 : f32
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %r = arith.mulf %s, %two : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.constant true
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %o : tensor<?x?x2x64xbf16>
}
