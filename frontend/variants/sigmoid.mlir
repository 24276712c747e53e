// Generated from metaattn::frontend::sigmoidAttention by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @sigmoid_head_bias: causal GQA, constant bias -3 plus a per-head bias.
func.func @sigmoid_head_bias(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x64xbf16>, %arg3: tensor<4xf32>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 inputs(%arg3 : tensor<4xf32>) score {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
    %cst = arith.constant 1.250000e-01 : f32
    %0 = arith.mulf %arg4, %cst : f32
    %cst_0 = arith.constant -3.000000e+00 : f32
    %1 = arith.addf %0, %cst_0 : f32
    %2 = arith.addf %1, %arg11 : f32
    %3 = arith.negf %2 : f32
    %4 = math.exp %3 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %5 = arith.addf %cst_1, %4 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %6 = arith.divf %cst_2, %5 : f32
    attn.yield %6 : f32
  } mask {
  ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: f32):
    %0 = arith.subi %arg9, %arg8 : index
    %1 = arith.addi %arg6, %0 : index
    %2 = arith.cmpi sle, %arg7, %1 : index
    attn.yield %2 : i1
  } normalizer {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
    %cst = arith.constant 1.000000e+00 : f32
    attn.normalize %arg4, %cst : f32, f32
  } {input_dims = ["h"]} : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// @sigmoid_full_bias: not causal, f16, constant bias -2 plus a full [B, H, Sq, Skv] bias.
func.func @sigmoid_full_bias(%arg0: tensor<?x?x2x32xf16>, %arg1: tensor<?x?x2x32xf16>, %arg2: tensor<?x?x2x32xf16>, %arg3: tensor<?x2x?x?xf32>) -> tensor<?x?x2x32xf16> {
  %output = attn.attention %arg0, %arg1, %arg2 inputs(%arg3 : tensor<?x2x?x?xf32>) score {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
    %cst = arith.constant 0.176776692 : f32
    %0 = arith.mulf %arg4, %cst : f32
    %cst_0 = arith.constant -2.000000e+00 : f32
    %1 = arith.addf %0, %cst_0 : f32
    %2 = arith.addf %1, %arg11 : f32
    %3 = arith.negf %2 : f32
    %4 = math.exp %3 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %5 = arith.addf %cst_1, %4 : f32
    %cst_2 = arith.constant 1.000000e+00 : f32
    %6 = arith.divf %cst_2, %5 : f32
    attn.yield %6 : f32
  } mask {
  ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: f32):
    %true = arith.constant true
    attn.yield %true : i1
  } normalizer {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
    %cst = arith.constant 1.000000e+00 : f32
    attn.normalize %arg4, %cst : f32, f32
  } {input_dims = ["b,h,q,kv"]} : tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16> -> tensor<?x?x2x32xf16>
  return %output : tensor<?x?x2x32xf16>
}
