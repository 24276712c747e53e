// Generated from metaattn::frontend::reluAttention by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @relu_causal_norm: causal GQA, weights divided by 64.
func.func @relu_causal_norm(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 1.250000e-01 : f32
    %0 = arith.mulf %arg3, %cst : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %1 = arith.maximumf %0, %cst_0 : f32
    %cst_1 = arith.constant 6.400000e+01 : f32
    %2 = arith.divf %1, %cst_1 : f32
    attn.yield %2 : f32
  } mask {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %0 = arith.subi %arg8, %arg7 : index
    %1 = arith.addi %arg5, %0 : index
    %2 = arith.cmpi sle, %arg6, %1 : index
    attn.yield %2 : i1
  } normalizer {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 1.000000e+00 : f32
    attn.normalize %arg3, %cst : f32, f32
  } : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// @relu_plain: not causal, MQA, f16, Dv = 48.
func.func @relu_plain(%arg0: tensor<?x?x2x32xf16>, %arg1: tensor<?x?x1x32xf16>, %arg2: tensor<?x?x1x48xf16>) -> tensor<?x?x2x48xf16> {
  %output = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 0.176776692 : f32
    %0 = arith.mulf %arg3, %cst : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %1 = arith.maximumf %0, %cst_0 : f32
    attn.yield %1 : f32
  } mask {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %true = arith.constant true
    attn.yield %true : i1
  } normalizer {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 1.000000e+00 : f32
    attn.normalize %arg3, %cst : f32, f32
  } : tensor<?x?x2x32xf16>, tensor<?x?x1x32xf16>, tensor<?x?x1x48xf16> -> tensor<?x?x2x48xf16>
  return %output : tensor<?x?x2x48xf16>
}
