// Generated from metaattn::frontend::softcapAttention by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @softcap_gemma: causal GQA, cap 50 on unscaled scores.
func.func @softcap_gemma(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 2.000000e-02 : f32
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
  } : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// @softcap_tight: not causal, cap 2.
func.func @softcap_tight(%arg0: tensor<?x?x4x32xbf16>, %arg1: tensor<?x?x4x32xbf16>, %arg2: tensor<?x?x4x32xbf16>) -> (tensor<?x?x4x32xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 0.0883883461 : f32
    %0 = arith.mulf %arg3, %cst : f32
    %1 = math.tanh %0 : f32
    %cst_0 = arith.constant 2.000000e+00 : f32
    %2 = arith.mulf %cst_0, %1 : f32
    attn.yield %2 : f32
  } mask {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %true = arith.constant true
    attn.yield %true : i1
  } normalizer {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %0 = attn.row_reduce  max %arg3 : f32
    %1 = arith.subf %arg3, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } : tensor<?x?x4x32xbf16>, tensor<?x?x4x32xbf16>, tensor<?x?x4x32xbf16> -> tensor<?x?x4x32xbf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x32xbf16>, tensor<?x4x?xf32>
}
