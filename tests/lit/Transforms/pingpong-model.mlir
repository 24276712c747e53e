// RUN: metaattn-opt %s --metaattn-lower | FileCheck %s
// RUN: metaattn-opt %s --metaattn-lower="pingpong=0" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s --metaattn-lower="pingpong=1" | FileCheck %s --check-prefix=ALL
// RUN: metaattn-opt %s --metaattn-lower="block-n=128" | FileCheck %s --check-prefix=SAME
// RUN: metaattn-opt %s --metaattn-lower="block-n=64" | FileCheck %s --check-prefix=OTHER

// The ping-pong schedule by default only where the tile model picks it (TileConfig::pingpong,
// where it was measured faster): a shifted normaliser (softmax's, a sink's, softpick's) under a
// mask with a causal bound (a sliding window, a document mask too) at head dims padded to 128,
// without a special function or a kv-indexed input per score. Causal softmax, ALiBi (its
// slope's exp2 is per head, not per score), D96 (padded to 128), a sink, a sliding window and
// a causal document mask and a prefix-LM mask (its kv bound the wider of the causal one and the
// prefix's) are marked tile.pingpong and take turns; mask-free softmax, softcap (a tanh per
// score), D64 (three consumer warpgroups) and a relative-position bias matrix (read by the
// score) do not. pingpong=0 turns it off
// everywhere, pingpong=1 on in every warp-specialised kernel. A tile size given (an option, a
// tuning file's entry) keeps the model's choice where it is the model's own (block-n=128) and
// drops it elsewhere (block-n=64).

// CHECK-LABEL: tile.kernel @causal128(
// CHECK-SAME: tile.pingpong
// CHECK: tile.warpgroup_turn "start"
// CHECK-LABEL: tile.kernel @full128(
// CHECK-NOT: tile.pingpong
// CHECK-NOT: tile.warpgroup_turn
// CHECK-LABEL: tile.kernel @softcap128(
// CHECK-NOT: tile.pingpong
// CHECK-NOT: tile.warpgroup_turn
// CHECK-LABEL: tile.kernel @alibi128(
// CHECK-SAME: tile.pingpong
// CHECK: tile.warpgroup_turn "start"
// CHECK-LABEL: tile.kernel @causal64(
// CHECK-NOT: tile.pingpong
// CHECK-NOT: tile.warpgroup_turn
// CHECK-LABEL: tile.kernel @causal96(
// CHECK-SAME: tile.pingpong
// CHECK: tile.warpgroup_turn "start"
// CHECK-LABEL: tile.kernel @sink128(
// CHECK-SAME: tile.pingpong
// CHECK: tile.warpgroup_turn "start"
// CHECK-LABEL: tile.kernel @window128(
// CHECK-SAME: tile.pingpong
// CHECK: tile.warpgroup_turn "start"
// CHECK-LABEL: tile.kernel @documents128_step1(
// CHECK-SAME: tile.pingpong
// CHECK: tile.warpgroup_turn "start"
// CHECK-LABEL: tile.kernel @bias128(
// CHECK-NOT: tile.pingpong
// CHECK-NOT: tile.warpgroup_turn
// CHECK-LABEL: tile.kernel @prefix128(
// CHECK-SAME: tile.pingpong
// CHECK: tile.warpgroup_turn "start"

// SAME-LABEL: tile.kernel @causal128(
// SAME-SAME: tile.pingpong
// SAME: tile.warpgroup_turn "start"
// SAME-LABEL: tile.kernel @full128(
// SAME-NOT: tile.pingpong
// SAME-LABEL: tile.kernel @softcap128(
// SAME-NOT: tile.pingpong
// SAME-LABEL: tile.kernel @alibi128(
// SAME-SAME: tile.pingpong
// SAME-LABEL: tile.kernel @sink128(
// SAME-SAME: tile.pingpong

// OTHER-NOT: tile.pingpong
// OTHER-NOT: tile.warpgroup_turn

// OFF-NOT: tile.pingpong
// OFF-NOT: tile.warpgroup_turn

// ALL-LABEL: tile.kernel @causal128(
// ALL-NOT: tile.pingpong
// ALL: tile.warpgroup_turn "start"
// ALL-LABEL: tile.kernel @full128(
// ALL: tile.warpgroup_turn "start"
// ALL-LABEL: tile.kernel @softcap128(
// ALL: tile.warpgroup_turn "start"
// ALL-LABEL: tile.kernel @sink128(
// ALL: tile.warpgroup_turn "start"

module {
  func.func @causal128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 score {
    ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
      %cst = arith.constant 0.0883883461 : f32
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
      %3 = attn.row_reduce  sum %2 : f32
      attn.normalize %2, %3 : f32, f32
    } : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }

  func.func @full128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 score {
    ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
      %cst = arith.constant 0.0883883461 : f32
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
      %3 = attn.row_reduce  sum %2 : f32
      attn.normalize %2, %3 : f32, f32
    } : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }

  func.func @softcap128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 score {
    ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
      %cst = arith.constant 0.00176776689 : f32
      %0 = arith.mulf %arg3, %cst : f32
      %1 = math.tanh %0 : f32
      %cst_0 = arith.constant 5.000000e+01 : f32
      %2 = arith.mulf %cst_0, %1 : f32
      attn.yield %2 : f32
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
    } : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }

  func.func @alibi128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 score {
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
      %cst_0 = arith.constant 0.0883883461 : f32
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
    } : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }

  func.func @causal64(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x4x64xbf16>, %arg2: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 score {
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
      %3 = attn.row_reduce  sum %2 : f32
      attn.normalize %2, %3 : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
    return %output : tensor<?x?x4x64xbf16>
  }

  func.func @causal96(%arg0: tensor<?x?x4x96xbf16>, %arg1: tensor<?x?x4x96xbf16>, %arg2: tensor<?x?x4x96xbf16>) -> tensor<?x?x4x96xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 score {
    ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
      %cst = arith.constant 0.102062076 : f32
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
      %3 = attn.row_reduce  sum %2 : f32
      attn.normalize %2, %3 : f32, f32
    } : tensor<?x?x4x96xbf16>, tensor<?x?x4x96xbf16>, tensor<?x?x4x96xbf16> -> tensor<?x?x4x96xbf16>
    return %output : tensor<?x?x4x96xbf16>
  }

  func.func @sink128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>, %arg3: tensor<4xf32>) -> tensor<?x?x4x128xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 inputs(%arg3 : tensor<4xf32>) score {
    ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
      %cst = arith.constant 0.0883883461 : f32
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
    } {input_dims = ["h"]} : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }

  func.func @window128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 score {
    ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
      %cst = arith.constant 0.0883883461 : f32
      %0 = arith.mulf %arg3, %cst : f32
      attn.yield %0 : f32
    } mask {
    ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
      %0 = arith.subi %arg8, %arg7 : index
      %1 = arith.addi %arg5, %0 : index
      %c1024 = arith.constant 1024 : index
      %2 = arith.subi %1, %c1024 : index
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
    } : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }

  func.func @documents128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>, %arg3: tensor<?x?xi32>, %arg4: tensor<?x?xi32>) -> tensor<?x?x4x128xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 inputs(%arg3, %arg4 : tensor<?x?xi32>, tensor<?x?xi32>) score {
    ^bb0(%arg5: f32, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: index, %arg12: i32, %arg13: i32):
      %cst = arith.constant 0.0883883461 : f32
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
    } {input_dims = ["b,q", "b,kv"]} : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }

  func.func @bias128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>, %arg3: tensor<4x?x?xf32>) -> tensor<?x?x4x128xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 inputs(%arg3 : tensor<4x?x?xf32>) score {
    ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
      %cst = arith.constant 0.0883883461 : f32
      %0 = arith.mulf %arg4, %cst : f32
      %1 = arith.addf %0, %arg11 : f32
      attn.yield %1 : f32
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
      attn.normalize %2, %3 : f32, f32
    } {input_dims = ["h,q,kv"]} : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }

  func.func @prefix128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
    %output = attn.attention %arg0, %arg1, %arg2 score {
    ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
      %cst = arith.constant 0.0883883461 : f32
      %0 = arith.mulf %arg3, %cst : f32
      attn.yield %0 : f32
    } mask {
    ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
      %0 = arith.subi %arg8, %arg7 : index
      %1 = arith.addi %arg5, %0 : index
      %2 = arith.cmpi sle, %arg6, %1 : index
      %c128 = arith.constant 128 : index
      %3 = arith.cmpi slt, %arg6, %c128 : index
      %4 = arith.ori %2, %3 : i1
      attn.yield %4 : i1
    } normalizer {
    ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index):
      %0 = attn.row_reduce  max %arg3 : f32
      %1 = arith.subf %arg3, %0 : f32
      %2 = math.exp %1 : f32
      %3 = attn.row_reduce  sum %2 : f32
      attn.normalize %2, %3 : f32, f32
    } : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }
}
