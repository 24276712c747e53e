// RUN: metaattn-opt %s --metaattn-lower | FileCheck %s
// RUN: metaattn-opt %s --metaattn-lower="pingpong=0" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s --metaattn-lower="pingpong=1" | FileCheck %s --check-prefix=ALL

// The ping-pong schedule by default only where the tile model picks it (TileConfig::pingpong,
// where it was measured faster): softmax's normaliser under a causal mask at D = Dv = 128
// without a special function per score. Causal softmax and ALiBi (its slope's exp2 is per head,
// not per score) are marked tile.pingpong and take turns; mask-free softmax, softcap (a tanh
// per score), D64, D96 (padded to 128, not timed), sinks (a term added to the denominator) and
// a sliding window (a lower bound) do not. pingpong=0 turns it off everywhere, pingpong=1 on in
// every warp-specialised kernel.

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
// CHECK-NOT: tile.pingpong
// CHECK-NOT: tile.warpgroup_turn
// CHECK-LABEL: tile.kernel @sink128(
// CHECK-NOT: tile.pingpong
// CHECK-NOT: tile.warpgroup_turn
// CHECK-LABEL: tile.kernel @window128(
// CHECK-NOT: tile.pingpong
// CHECK-NOT: tile.warpgroup_turn

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
}
