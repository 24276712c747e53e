// REQUIRES: nvrtc
// The overlapped schedule (the default on sm_90a with two consumer warpgroups) keeps the
// probabilities of tile j - 1 live next to the scores of tile j and the output accumulator.
// 16-bit fragments are held two elements per register (frag.cuh), so D128 fits kv tiles up to
// 192 wide in setmaxnreg's 240 registers without spilling (before: 384 B of spills at 160, 560
// at 192). The mma.sync path keeps one element per register (its D64 kernel fits 128 that way).
// RUN: metaattn-run %s --device=cpu --resource-report --block-n=192 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --resource-report --block-n=160 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --resource-report --target=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: metaattn-run %s --device=cpu --target=sm_90a --block-n=192 --batch=1 --seq-q=130 --seq-kv=400 | FileCheck %s --check-prefix=RAN
// CHECK: resources mha (sm_90a): {{[0-9]+}} registers/thread, spills 0 B stored / 0 B loaded, {{[0-9]+}} B dynamic shared, 384 threads; gemms: 3 wgmma, 0 mma.sync
// SM90: resources mha (sm_90a): {{[0-9]+}} registers/thread, spills 0 B stored / 0 B loaded, {{.*}} 128 threads; gemms: 0 wgmma, 2 mma.sync
// RAN: PASS mha
func.func @mha(%q: tensor<?x?x4x128xbf16>, %k: tensor<?x?x4x128xbf16>, %v: tensor<?x?x4x128xbf16>) -> (tensor<?x?x4x128xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 8.838834765e-02 : f32
      %r = arith.mulf %s, %c : f32
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
    } : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x128xbf16>, tensor<?x4x?xf32>
}

