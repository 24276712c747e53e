// Generated from metaattn::frontend::documentMaskAttention by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @document_mask_causal: causal GQA.
func.func @document_mask_causal(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x64xbf16>, %arg3: tensor<?x?xi32>, %arg4: tensor<?x?xi32>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 inputs(%arg3, %arg4 : tensor<?x?xi32>, tensor<?x?xi32>) score {
  ^bb0(%arg5: f32, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: i32, %arg13: i32):
    %cst = arith.constant 1.250000e-01 : f32
    %0 = arith.mulf %arg5, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: i32, %arg12: i32):
    %0 = arith.index_cast %arg12 : i32 to index
    %1 = arith.index_cast %arg11 : i32 to index
    %2 = arith.cmpi eq, %1, %0 : index
    %3 = arith.subi %arg10, %arg9 : index
    %4 = arith.addi %arg7, %3 : index
    %5 = arith.cmpi sle, %arg8, %4 : index
    %6 = arith.andi %2, %5 : i1
    attn.yield %6 : i1
  } normalizer {
  ^bb0(%arg5: f32, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: i32, %arg13: i32):
    %0 = attn.row_reduce  max %arg5 : f32
    %1 = arith.subf %arg5, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } {input_dims = ["b,q", "b,kv"]} : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// @document_mask_bidirectional: not causal.
func.func @document_mask_bidirectional(%arg0: tensor<?x?x2x32xbf16>, %arg1: tensor<?x?x2x32xbf16>, %arg2: tensor<?x?x2x32xbf16>, %arg3: tensor<?x?xi32>, %arg4: tensor<?x?xi32>) -> (tensor<?x?x2x32xbf16>, tensor<?x2x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 inputs(%arg3, %arg4 : tensor<?x?xi32>, tensor<?x?xi32>) score {
  ^bb0(%arg5: f32, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: i32, %arg13: i32):
    %cst = arith.constant 0.176776692 : f32
    %0 = arith.mulf %arg5, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: i32, %arg12: i32):
    %0 = arith.index_cast %arg12 : i32 to index
    %1 = arith.index_cast %arg11 : i32 to index
    %2 = arith.cmpi eq, %1, %0 : index
    attn.yield %2 : i1
  } normalizer {
  ^bb0(%arg5: f32, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: i32, %arg13: i32):
    %0 = attn.row_reduce  max %arg5 : f32
    %1 = arith.subf %arg5, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } {input_dims = ["b,q", "b,kv"]} : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xbf16>, tensor<?x2x?xf32>
  return %output, %lse : tensor<?x?x2x32xbf16>, tensor<?x2x?xf32>
}
