// Softmax kernels with the kv loop's gemms overlapped (tile-gemm-overlap: the previous
// tile's output gemm issued behind the next score gemm), run on the CPU tile executor and
// checked against the oracle. The executor runs an async gemm only when a tile.gemm_wait
// retires it, on what its buffers hold then, so an operand overwritten too early shows here.
// Two consumer warpgroups (--block-m=128 --warps=8): D64 alone takes three, which are not
// overlapped. Lengths: one kv tile, several, and a last partial tile; causal with fully masked tiles.
// RUN: metaattn-run %s --device=cpu --target=sm_90a --gemm-overlap --block-m=128 --warps=8 --batch=1 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --gemm-overlap --block-m=128 --warps=8 --batch=1 --seq-q=77 --seq-kv=300 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --gemm-overlap --block-m=128 --warps=8 --resource-report | FileCheck %s --check-prefix=PTX
// CHECK: PASS mha_d64
// CHECK: PASS causal_d64
// PTX: resources mha_d64 (sm_90a): {{.*}} 384 threads; gemms: 3 wgmma, 0 mma.sync
// PTX-NOT: serialized
// PTX: resources causal_d64 (sm_90a): {{.*}} 384 threads; gemms: 4 wgmma, 0 mma.sync
// PTX-NOT: serialized
func.func @mha_d64(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> (tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.250000000e-01 : f32
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
    } : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
}

func.func @causal_d64(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x1x64xbf16>, %v: tensor<?x?x1x64xbf16>) -> (tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.250000000e-01 : f32
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
    } : tensor<?x?x2x64xbf16>, tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16> -> tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
}

