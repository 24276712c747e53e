// Generated from metaattn::frontend::blockSparseAttention by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @block_sparse_64x128: blocks of 64 x 128, GQA.
func.func @block_sparse_64x128(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x64xbf16>, %arg3: tensor<?x4x?x?xi32>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 inputs(%arg3 : tensor<?x4x?x?xi32>) score {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: i32):
    %cst = arith.constant 1.250000e-01 : f32
    %0 = arith.mulf %arg4, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: i32):
    %0 = arith.index_cast %arg10 : i32 to index
    %c0 = arith.constant 0 : index
    %1 = arith.cmpi ne, %0, %c0 : index
    attn.yield %1 : i1
  } normalizer {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: i32):
    %0 = attn.row_reduce  max %arg4 : f32
    %1 = arith.subf %arg4, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } {input_dims = ["b,h,q/64,kv/128"]} : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// @block_sparse_causal_48x80: causal, blocks of 48 x 80, f16.
func.func @block_sparse_causal_48x80(%arg0: tensor<?x?x2x32xf16>, %arg1: tensor<?x?x2x32xf16>, %arg2: tensor<?x?x2x32xf16>, %arg3: tensor<?x2x?x?xi32>) -> (tensor<?x?x2x32xf16>, tensor<?x2x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 inputs(%arg3 : tensor<?x2x?x?xi32>) score {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: i32):
    %cst = arith.constant 0.176776692 : f32
    %0 = arith.mulf %arg4, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: i32):
    %0 = arith.index_cast %arg10 : i32 to index
    %c0 = arith.constant 0 : index
    %1 = arith.cmpi ne, %0, %c0 : index
    %2 = arith.subi %arg9, %arg8 : index
    %3 = arith.addi %arg6, %2 : index
    %4 = arith.cmpi sle, %arg7, %3 : index
    %5 = arith.andi %1, %4 : i1
    attn.yield %5 : i1
  } normalizer {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: i32):
    %0 = attn.row_reduce  max %arg4 : f32
    %1 = arith.subf %arg4, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } {input_dims = ["b,h,q/48,kv/80"]} : tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16>, tensor<?x?x2x32xf16> -> tensor<?x?x2x32xf16>, tensor<?x2x?xf32>
  return %output, %lse : tensor<?x?x2x32xf16>, tensor<?x2x?xf32>
}
