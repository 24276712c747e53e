// REQUIRES: nvrtc
// Ping-pong over the overlapped schedule (`--pingpong` with tile-gemm-overlap, D128 and D256
// with two consumer warpgroups): ptxas must not serialise the wgmma instructions. Each branch
// of the owed output gemm's conditional passes the turn before its waits; a pass after the
// conditional joined the branches between that gemm's commit and its wait, and ptxas
// serialised every wgmma of these kernels ("non wgmma instructions reading accumulator
// registers of a wgmma between start and end of the pipeline stage").
// RUN: metaattn-run %s --device=cpu --resource-report --pingpong | FileCheck %s --implicit-check-not=serialized
// RUN: metaattn-run %s --device=cpu --pingpong --batch=1 --seq-q=130 --seq-kv=300 | FileCheck %s --check-prefix=RAN
// The report gives ptxas's reason when it does serialise: a persistent kernel with 192-wide
// kv tiles (which the tile model never picks) runs out of registers.
// RUN: metaattn-run %s --device=cpu --resource-report --persistent --block-n=192 --function=softcap_causal_gqa | FileCheck %s --check-prefix=WHY
// WHY: warning: ptxas serialized the wgmma instructions, due to insufficient register resources
// CHECK: resources softcap_causal_gqa (sm_90a): {{[0-9]+}} registers/thread, spills 0 B stored / 0 B loaded, {{[0-9]+}} B dynamic shared, 384 threads; gemms: 4 wgmma, 0 mma.sync
// CHECK: resources mha_d256 (sm_90a): {{[0-9]+}} registers/thread, spills 0 B stored / 0 B loaded, {{[0-9]+}} B dynamic shared, 384 threads; gemms: 3 wgmma, 0 mma.sync
// RAN: PASS softcap_causal_gqa
// RAN: PASS mha_d256
func.func @softcap_causal_gqa(%arg0: tensor<?x?x2x128xbf16>, %arg1: tensor<?x?x1x128xbf16>, %arg2: tensor<?x?x1x128xbf16>) -> tensor<?x?x2x128xbf16> {
  %output = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 0.00176776689 : f32
    %0 = arith.mulf %arg3, %cst : f32
    %1 = math.tanh %0 : f32
    %cst_0 = arith.constant 5.000000e+01 : f32
    %2 = arith.mulf %cst_0, %1 : f32
    attn.yield %2 : f32
  } mask {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %0 = arith.subi %arg8, %arg7 : index
    %1 = arith.addi %arg5, %0 : index
    %2 = arith.cmpi sle, %arg6, %1 : index
    attn.yield %2 : i1
  } normalizer {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %0 = attn.row_reduce  max %arg3 : f32
    %1 = arith.subf %arg3, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } : tensor<?x?x2x128xbf16>, tensor<?x?x1x128xbf16>, tensor<?x?x1x128xbf16> -> tensor<?x?x2x128xbf16>
  return %output : tensor<?x?x2x128xbf16>
}

func.func @mha_d256(%q: tensor<?x?x2x256xbf16>, %k: tensor<?x?x2x256xbf16>, %v: tensor<?x?x2x256xbf16>) -> (tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 6.250000000e-02 : f32
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
    } : tensor<?x?x2x256xbf16>, tensor<?x?x2x256xbf16>, tensor<?x?x2x256xbf16> -> tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x256xbf16>, tensor<?x2x?xf32>
}

