// RUN: metaattn-opt %s --metaattn-lower | FileCheck %s
// RUN: metaattn-opt %s --metaattn-lower="pingpong=0" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s --metaattn-lower="block-n=128" | FileCheck %s --check-prefix=OPTION
// RUN: metaattn-run %s --function=pinnedOn64 --device=cpu --target=sm_90a --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --function=pinnedOn128 --device=cpu --target=sm_90a --batch=1 --seq-q=129 --seq-kv=65 | FileCheck %s --check-prefix=RAN

// A tuning entry's `pingpong` (what --autotune records when it timed a tile size with and
// without the ping-pong schedule) overrides the tile model for its tiles: causal softmax at
// D128, which the model ping-pongs, does not with pingpong = 0; mask-free softmax at D128 and
// causal softmax at D64, which it leaves alone, do with pingpong = 1 (and still match the
// reference on the CPU executor at odd shapes). pingpong=0 on the pipeline turns it off
// everywhere; a tile size given as an option replaces the entry's tiles and with them its
// choice, leaving the model's for the option's tiles.

// CHECK-LABEL: tile.kernel @pinnedOff128(
// CHECK-NOT: tile.pingpong
// CHECK-NOT: tile.warpgroup_turn
// CHECK-LABEL: tile.kernel @pinnedOn128(
// CHECK-SAME: tile.pingpong
// CHECK: tile.warpgroup_turn "start"
// CHECK-LABEL: tile.kernel @pinnedOn64(
// CHECK-SAME: tile.pingpong
// CHECK: tile.warpgroup_turn "start"

// OFF-NOT: tile.pingpong
// OFF-NOT: tile.warpgroup_turn

// OPTION-LABEL: tile.kernel @pinnedOff128(
// OPTION-SAME: tile.pingpong
// OPTION: tile.warpgroup_turn "start"
// OPTION-LABEL: tile.kernel @pinnedOn128(
// OPTION-NOT: tile.pingpong
// OPTION-NOT: tile.warpgroup_turn
// OPTION-LABEL: tile.kernel @pinnedOn64(
// OPTION-NOT: tile.pingpong
// OPTION-NOT: tile.warpgroup_turn

// RAN: PASS

module {
  func.func @pinnedOff128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
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
    } {attn.tile_config = {block_m = 0 : i64, block_n = 128 : i64, warps = 0 : i64, stages = 2 : i64, pingpong = 0 : i64}} : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }
  func.func @pinnedOn128(%arg0: tensor<?x?x4x128xbf16>, %arg1: tensor<?x?x4x128xbf16>, %arg2: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
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
    } {attn.tile_config = {block_m = 0 : i64, block_n = 64 : i64, warps = 0 : i64, stages = 2 : i64, pingpong = 1 : i64}} : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
    return %output : tensor<?x?x4x128xbf16>
  }
  func.func @pinnedOn64(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x4x64xbf16>, %arg2: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
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
    } {attn.tile_config = {block_m = 0 : i64, block_n = 64 : i64, warps = 0 : i64, stages = 2 : i64, pingpong = 1 : i64}} : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
    return %output : tensor<?x?x4x64xbf16>
  }}
