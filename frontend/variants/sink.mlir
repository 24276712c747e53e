// Generated from metaattn::frontend::sinkAttention by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @sink_causal: causal GQA with per-head sinks.
func.func @sink_causal(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x64xbf16>, %arg3: tensor<4xf32>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 inputs(%arg3 : tensor<4xf32>) score {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
    %cst = arith.constant 1.250000e-01 : f32
    %0 = arith.mulf %arg4, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: f32):
    %0 = arith.subi %arg9, %arg8 : index
    %1 = arith.addi %arg6, %0 : index
    %2 = arith.cmpi sle, %arg7, %1 : index
    attn.yield %2 : i1
  } normalizer {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
    %0 = attn.row_reduce  max %arg4 : f32
    %1 = arith.subf %arg4, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    %4 = arith.subf %arg11, %0 : f32
    %5 = math.exp %4 : f32
    %6 = arith.addf %3, %5 : f32
    attn.normalize %2, %6 : f32, f32
  } {input_dims = ["h"]} : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// @sink_full: not causal, f16.
func.func @sink_full(%arg0: tensor<?x?x2x32xf16>, %arg1: tensor<?x?x2x32xf16>, %arg2: tensor<?x?x2x32xf16>, %arg3: tensor<2xf32>) -> (tensor<?x?x2x32xf16>, tensor<?x2x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 inputs(%arg3 : tensor<2xf32>) score {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
    %cst = arith.constant 0.176776692 : f32
    %0 = arith.mulf %arg4, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: f32):
    %true = arith.constant true
    attn.yield %true : i1
  } normalizer {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
    %0 = attn.row_reduce  max %arg4 : f32
    %1 = arith.subf %arg4, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    %4 = arith.subf %arg11, %0 : f32
    %5 = math.exp %4 : f32
    %6 = arith.addf %3, %5 : f32
    attn.normalize %2, %6 : f32, f32
  } {input_dims = ["h"]} : tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16> -> tensor<?x?x2x32xf16>, tensor<?x2x?xf32>
  return %output, %lse : tensor<?x?x2x32xf16>, tensor<?x2x?xf32>
}
