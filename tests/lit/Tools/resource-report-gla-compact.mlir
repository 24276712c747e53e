// REQUIRES: nvrtc
// The compact GLA output kernel (the default; one pair of sub-chunk operand tiles reused for the
// three off-diagonal gemms, one stage) compiles through NVRTC at the PERF.md head dims with
// 109 KB of shared memory (two blocks per multiprocessor); --compact-vector-output=false keeps a
// tile pair per sub-chunk and two stages in 173 KB (one block). Both hold the diagonal
// sub-chunks' f32 scores (4 KB).
// RUN: metaattn-run %s --device=cpu --resource-report --precompute-gates=false | FileCheck %s --check-prefix=COMPACT
// RUN: metaattn-run %s --device=cpu --resource-report --precompute-gates=false --compact-vector-output=false | FileCheck %s --check-prefix=WIDE
// With precomputed gates (the default) a third kernel (gates: 64 x 128 f32, out through
// block::storeTile) runs first; the others keep their shared memory.
// RUN: metaattn-run %s --device=cpu --resource-report | FileCheck %s --check-prefix=PRE
// PRE: resources attention_step0 (sm_90a): {{[0-9]+}} registers/thread, {{.*}} 32768 B dynamic shared, 128 threads; gemms: 0 wgmma, 0 mma.sync
// PRE-NEXT: resources attention_step1 (sm_90a): {{[0-9]+}} registers/thread, {{.*}} 74752 B dynamic shared, 128 threads
// PRE-NEXT: resources attention_step2 (sm_90a): {{[0-9]+}} registers/thread, {{.*}} 111616 B dynamic shared, 128 threads
// COMPACT: resources attention_step1 (sm_90a): {{[0-9]+}} registers/thread, {{.*}} 111616 B dynamic shared, 128 threads; gemms: 5 wgmma, 0 mma.sync
// WIDE: resources attention_step1 (sm_90a): {{[0-9]+}} registers/thread, {{.*}} 177152 B dynamic shared, 128 threads; gemms: 5 wgmma, 0 mma.sync
  func.func @attention(%arg0: tensor<?x?x2x128xbf16>, %arg1: tensor<?x?x2x128xbf16>, %arg2: tensor<?x?x2x128xbf16>, %arg3: tensor<?x?x2x128xf32>) -> tensor<?x?x2x128xbf16> {
    %output = attn.recurrent %arg0, %arg1, %arg2 gate(%arg3 : tensor<?x?x2x128xf32>) q_mod {
    ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
      %cst = arith.constant 0.0883883461 : f32
      %0 = arith.mulf %arg4, %cst : f32
      attn.yield %0 : f32
    } gate_mod {
    ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
      %0 = math.absf %arg4 : f32
      %1 = arith.negf %0 : f32
      %2 = math.exp %1 : f32
      %cst = arith.constant 1.000000e+00 : f32
      %3 = arith.addf %cst, %2 : f32
      %4 = math.log %3 : f32
      %cst_0 = arith.constant 0.000000e+00 : f32
      %5 = arith.minimumf %arg4, %cst_0 : f32
      %6 = arith.subf %5, %4 : f32
      %cst_1 = arith.constant 1.600000e+01 : f32
      %7 = arith.divf %6, %cst_1 : f32
      attn.yield %7 : f32
    } {gate_kind = #attn<gate vector>} : tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16> -> tensor<?x?x2x128xbf16>
    return %output : tensor<?x?x2x128xbf16>
  }
