// Generated from metaattn::frontend::retnetParallel by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @retnet_parallel: D = 64, Dv = 128.
func.func @retnet_parallel(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x4x64xbf16>, %arg2: tensor<?x?x4x128xbf16>) -> (tensor<?x?x4x128xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %0 = arith.index_cast %arg5 : index to i64
    %1 = arith.sitofp %0 : i64 to f32
    %cst = arith.constant -5.000000e+00 : f32
    %2 = arith.subf %cst, %1 : f32
    %3 = math.exp2 %2 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %4 = arith.subf %cst_0, %3 : f32
    %5 = math.log %4 : f32
    %cst_1 = arith.constant 1.44269502 : f32
    %6 = arith.mulf %5, %cst_1 : f32
    %7 = arith.subi %arg9, %arg8 : index
    %8 = arith.addi %arg6, %7 : index
    %9 = arith.subi %8, %arg7 : index
    %c0 = arith.constant 0 : index
    %10 = arith.maxsi %9, %c0 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.sitofp %11 : i64 to f32
    %13 = arith.mulf %12, %6 : f32
    %14 = math.exp2 %13 : f32
    %cst_2 = arith.constant 1.250000e-01 : f32
    %15 = arith.mulf %arg3, %cst_2 : f32
    %16 = arith.mulf %15, %14 : f32
    attn.yield %16 : f32
  } mask {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %0 = arith.subi %arg8, %arg7 : index
    %1 = arith.addi %arg5, %0 : index
    %2 = arith.cmpi sle, %arg6, %1 : index
    attn.yield %2 : i1
  } normalizer {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %0 = attn.row_reduce  abs_sum %arg3 : f32
    %cst = arith.constant 1.000000e+00 : f32
    %1 = arith.maximumf %0, %cst : f32
    attn.normalize %arg3, %1 : f32, f32
  } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x128xbf16>, tensor<?x4x?xf32>
}

// @retnet_parallel_gqa: GQA, f16, D = 32, Dv = 64.
func.func @retnet_parallel_gqa(%arg0: tensor<?x?x4x32xf16>, %arg1: tensor<?x?x2x32xf16>, %arg2: tensor<?x?x2x64xf16>) -> (tensor<?x?x4x64xf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 score {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %0 = arith.index_cast %arg5 : index to i64
    %1 = arith.sitofp %0 : i64 to f32
    %cst = arith.constant -5.000000e+00 : f32
    %2 = arith.subf %cst, %1 : f32
    %3 = math.exp2 %2 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %4 = arith.subf %cst_0, %3 : f32
    %5 = math.log %4 : f32
    %cst_1 = arith.constant 1.44269502 : f32
    %6 = arith.mulf %5, %cst_1 : f32
    %7 = arith.subi %arg9, %arg8 : index
    %8 = arith.addi %arg6, %7 : index
    %9 = arith.subi %8, %arg7 : index
    %c0 = arith.constant 0 : index
    %10 = arith.maxsi %9, %c0 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.sitofp %11 : i64 to f32
    %13 = arith.mulf %12, %6 : f32
    %14 = math.exp2 %13 : f32
    %cst_2 = arith.constant 0.176776692 : f32
    %15 = arith.mulf %arg3, %cst_2 : f32
    %16 = arith.mulf %15, %14 : f32
    attn.yield %16 : f32
  } mask {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %0 = arith.subi %arg8, %arg7 : index
    %1 = arith.addi %arg5, %0 : index
    %2 = arith.cmpi sle, %arg6, %1 : index
    attn.yield %2 : i1
  } normalizer {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
    %0 = attn.row_reduce  abs_sum %arg3 : f32
    %cst = arith.constant 1.000000e+00 : f32
    %1 = arith.maximumf %0, %cst : f32
    attn.normalize %arg3, %1 : f32, f32
  } : tensor<?x?x4x32xf16>, tensor<?x?x2x32xf16>, tensor<?x?x2x64xf16> -> tensor<?x?x4x64xf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x64xf16>, tensor<?x4x?xf32>
}
