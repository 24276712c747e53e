// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a exp2-emulation=4" | FileCheck %s
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s --metaattn-lower="exp2-emulation=4" | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=CUDA
// The CPU executor computes every marked exp with exp2Poly (a superset of the kernel's every
// fourth element), checked against the oracle with the row statistic.
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=130 --seq-kv=200 --exp2-emulation=4 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=65 --seq-kv=65 --exp2-emulation=1 --target=sm_80 | FileCheck %s --check-prefix=EXEC

// exp2-emulation=K: the weights' exp(s - m) carry tile.exp2_emulation = K (every K-th element
// of the fragment loop takes 2^x on the FMA pipe); the rescale factors' exp does not.
// CHECK-LABEL: tile.kernel @softmax
// CHECK: tile.reduce max
// CHECK: math.exp %{{.*}} : f32
// CHECK: math.exp %{{.*}} {tile.exp2_emulation = 4 : i64} : f32
// OFF-NOT: tile.exp2_emulation
// CUDA: metaattn::dev::expSubScaledMixed<4>(e{{[0-9]+}},
// EXEC: lse: max |err|
// EXEC: PASS softmax
func.func @softmax(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}
