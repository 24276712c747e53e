// Generated from metaattn::frontend::differentialAttention by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @differential_causal: causal GQA.
func.func @differential_causal(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x4x64xbf16>, %arg3: tensor<?x?x2x64xbf16>, %arg4: tensor<?x?x2x64xbf16>, %arg5: tensor<4xf32>) -> tensor<?x?x4x64xbf16> {
  %output = attn.attention %arg0, %arg1, %arg4 score {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index):
    %cst = arith.constant 1.250000e-01 : f32
    %1 = arith.mulf %arg6, %cst : f32
    attn.yield %1 : f32
  } mask {
  ^bb0(%arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index):
    %1 = arith.subi %arg11, %arg10 : index
    %2 = arith.addi %arg8, %1 : index
    %3 = arith.cmpi sle, %arg9, %2 : index
    attn.yield %3 : i1
  } normalizer {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index):
    %1 = attn.row_reduce  max %arg6 : f32
    %2 = arith.subf %arg6, %1 : f32
    %3 = math.exp %2 : f32
    %4 = attn.row_reduce  sum %3 : f32
    attn.normalize %3, %4 : f32, f32
  } : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xf32>
  %output_0 = attn.attention %arg2, %arg3, %arg4 score {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index):
    %cst = arith.constant 1.250000e-01 : f32
    %1 = arith.mulf %arg6, %cst : f32
    attn.yield %1 : f32
  } mask {
  ^bb0(%arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index):
    %1 = arith.subi %arg11, %arg10 : index
    %2 = arith.addi %arg8, %1 : index
    %3 = arith.cmpi sle, %arg9, %2 : index
    attn.yield %3 : i1
  } normalizer {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index):
    %1 = attn.row_reduce  max %arg6 : f32
    %2 = arith.subf %arg6, %1 : f32
    %3 = math.exp %2 : f32
    %4 = attn.row_reduce  sum %3 : f32
    attn.normalize %3, %4 : f32, f32
  } : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xf32>
  %0 = attn.combine %output, %output_0 inputs(%arg5 : tensor<4xf32>) {
  ^bb0(%arg6: f32, %arg7: f32, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: f32):
    %1 = arith.mulf %arg12, %arg7 : f32
    %2 = arith.subf %arg6, %1 : f32
    attn.yield %2 : f32
  } {input_dims = ["h"]} : tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32> -> tensor<?x?x4x64xbf16>
  return %0 : tensor<?x?x4x64xbf16>
}

// @differential_full: not causal, f16.
func.func @differential_full(%arg0: tensor<?x?x2x32xf16>, %arg1: tensor<?x?x2x32xf16>, %arg2: tensor<?x?x2x32xf16>, %arg3: tensor<?x?x2x32xf16>, %arg4: tensor<?x?x2x32xf16>, %arg5: tensor<2xf32>) -> tensor<?x?x2x32xf16> {
  %output = attn.attention %arg0, %arg1, %arg4 score {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index):
    %cst = arith.constant 0.176776692 : f32
    %1 = arith.mulf %arg6, %cst : f32
    attn.yield %1 : f32
  } mask {
  ^bb0(%arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index):
    %true = arith.constant true
    attn.yield %true : i1
  } normalizer {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index):
    %1 = attn.row_reduce  max %arg6 : f32
    %2 = arith.subf %arg6, %1 : f32
    %3 = math.exp %2 : f32
    %4 = attn.row_reduce  sum %3 : f32
    attn.normalize %3, %4 : f32, f32
  } : tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16> -> tensor<?x?x2x32xf32>
  %output_0 = attn.attention %arg2, %arg3, %arg4 score {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index):
    %cst = arith.constant 0.176776692 : f32
    %1 = arith.mulf %arg6, %cst : f32
    attn.yield %1 : f32
  } mask {
  ^bb0(%arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index):
    %true = arith.constant true
    attn.yield %true : i1
  } normalizer {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: index):
    %1 = attn.row_reduce  max %arg6 : f32
    %2 = arith.subf %arg6, %1 : f32
    %3 = math.exp %2 : f32
    %4 = attn.row_reduce  sum %3 : f32
    attn.normalize %3, %4 : f32, f32
  } : tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16> -> tensor<?x?x2x32xf32>
  %0 = attn.combine %output, %output_0 inputs(%arg5 : tensor<2xf32>) {
  ^bb0(%arg6: f32, %arg7: f32, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: f32):
    %1 = arith.mulf %arg12, %arg7 : f32
    %2 = arith.subf %arg6, %1 : f32
    attn.yield %2 : f32
  } {input_dims = ["h"]} : tensor<?x?x2x32xf32>, tensor<?x?x2x32xf32> -> tensor<?x?x2x32xf16>
  return %0 : tensor<?x?x2x32xf16>
}
