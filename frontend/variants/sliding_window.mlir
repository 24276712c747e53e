// Generated from metaattn::frontend::slidingWindowAttention by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @sliding_window_causal: causal window of 32 keys back.
func.func @sliding_window_causal(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 1.250000e-01 : f32
    %0 = arith.mulf %arg3, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %0 = arith.subi %arg8, %arg7 : index
    %1 = arith.addi %arg5, %0 : index
    %c32 = arith.constant 32 : index
    %2 = arith.subi %1, %c32 : index
    %3 = arith.cmpi sge, %arg6, %2 : index
    %4 = arith.cmpi sle, %arg6, %1 : index
    %5 = arith.andi %3, %4 : i1
    attn.yield %5 : i1
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

// @sliding_window_two_sided: 16 keys back, 24 ahead.
func.func @sliding_window_two_sided(%arg0: tensor<?x?x2x32xbf16>, %arg1: tensor<?x?x2x32xbf16>, %arg2: tensor<?x?x2x32xbf16>) -> (tensor<?x?x2x32xbf16>, tensor<?x2x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %cst = arith.constant 0.176776692 : f32
    %0 = arith.mulf %arg3, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %0 = arith.subi %arg8, %arg7 : index
    %1 = arith.addi %arg5, %0 : index
    %c16 = arith.constant 16 : index
    %2 = arith.subi %1, %c16 : index
    %3 = arith.cmpi sge, %arg6, %2 : index
    %c24 = arith.constant 24 : index
    %4 = arith.addi %1, %c24 : index
    %5 = arith.cmpi sle, %arg6, %4 : index
    %6 = arith.andi %3, %5 : i1
    attn.yield %6 : i1
  } normalizer {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %0 = attn.row_reduce  max %arg3 : f32
    %1 = arith.subf %arg3, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xbf16>, tensor<?x2x?xf32>
  return %output, %lse : tensor<?x?x2x32xbf16>, tensor<?x2x?xf32>
}
