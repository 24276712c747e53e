// Generated from metaattn::frontend::alibiAttention by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @alibi_causal: causal GQA, 8 heads.
func.func @alibi_causal(%arg0: tensor<?x?x8x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x64xbf16>) -> (tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %c1 = arith.constant 1 : index
    %0 = arith.addi %arg5, %c1 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.sitofp %1 : i64 to f32
    %cst = arith.constant -1.000000e+00 : f32
    %3 = arith.mulf %2, %cst : f32
    %4 = math.exp2 %3 : f32
    %5 = arith.subi %arg9, %arg8 : index
    %6 = arith.addi %arg6, %5 : index
    %7 = arith.subi %6, %arg7 : index
    %cst_0 = arith.constant 1.250000e-01 : f32
    %8 = arith.mulf %arg3, %cst_0 : f32
    %9 = arith.index_cast %7 : index to i64
    %10 = arith.sitofp %9 : i64 to f32
    %11 = arith.mulf %4, %10 : f32
    %12 = arith.subf %8, %11 : f32
    attn.yield %12 : f32
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
  } : tensor<?x?x8x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>
  return %output, %lse : tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>
}

// @alibi_bidirectional: not causal (|distance|), f16.
func.func @alibi_bidirectional(%arg0: tensor<?x?x4x32xf16>, %arg1: tensor<?x?x4x32xf16>, %arg2: tensor<?x?x4x32xf16>) -> (tensor<?x?x4x32xf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %c1 = arith.constant 1 : index
    %0 = arith.addi %arg5, %c1 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.sitofp %1 : i64 to f32
    %cst = arith.constant -2.000000e+00 : f32
    %3 = arith.mulf %2, %cst : f32
    %4 = math.exp2 %3 : f32
    %5 = arith.subi %arg9, %arg8 : index
    %6 = arith.addi %arg6, %5 : index
    %7 = arith.subi %6, %arg7 : index
    %c0 = arith.constant 0 : index
    %8 = arith.subi %c0, %7 : index
    %9 = arith.maxsi %7, %8 : index
    %cst_0 = arith.constant 0.176776692 : f32
    %10 = arith.mulf %arg3, %cst_0 : f32
    %11 = arith.index_cast %9 : index to i64
    %12 = arith.sitofp %11 : i64 to f32
    %13 = arith.mulf %4, %12 : f32
    %14 = arith.subf %10, %13 : f32
    attn.yield %14 : f32
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
  } : tensor<?x?x4x32xf16>, tensor<?x?x4x32xf16>, tensor<?x?x4x32xf16> -> tensor<?x?x4x32xf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x32xf16>, tensor<?x4x?xf32>
}
