// Generated from metaattn::frontend::softpickAttention by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @softpick_causal: causal GQA.
func.func @softpick_causal(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 1.250000e-01 : f32
    %0 = arith.mulf %arg3, %cst : f32
    attn.yield %0 : f32
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
    %3 = arith.negf %0 : f32
    %4 = math.exp %3 : f32
    %5 = arith.subf %2, %4 : f32
    %cst = arith.constant 0.000000e+00 : f32
    %6 = arith.maximumf %5, %cst : f32
    %7 = attn.row_reduce  abs_sum %5 : f32
    attn.normalize %6, %7 : f32, f32
  } : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// @softpick_full: not causal, f16.
func.func @softpick_full(%arg0: tensor<?x?x2x32xf16>, %arg1: tensor<?x?x2x32xf16>, %arg2: tensor<?x?x2x32xf16>) -> (tensor<?x?x2x32xf16>, tensor<?x2x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 0.176776692 : f32
    %0 = arith.mulf %arg3, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %true = arith.constant true
    attn.yield %true : i1
  } normalizer {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %0 = attn.row_reduce  max %arg3 : f32
    %1 = arith.subf %arg3, %0 : f32
    %2 = math.exp %1 : f32
    %3 = arith.negf %0 : f32
    %4 = math.exp %3 : f32
    %5 = arith.subf %2, %4 : f32
    %cst = arith.constant 0.000000e+00 : f32
    %6 = arith.maximumf %5, %cst : f32
    %7 = attn.row_reduce  abs_sum %5 : f32
    attn.normalize %6, %7 : f32, f32
  } : tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16> -> tensor<?x?x2x32xf16>, tensor<?x2x?xf32>
  return %output, %lse : tensor<?x?x2x32xf16>, tensor<?x2x?xf32>
}
