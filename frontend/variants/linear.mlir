// Generated from metaattn::frontend::linearAttention, retnet, gatedRetention, gla, mamba2Ssd by tests/unit/frontend/VariantFilesTest.cpp;
// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests --gtest_filter='VariantFiles*'.

// @linear_attention: no decay, Dk 64, Dv 80.
func.func @linear_attention(%arg0: tensor<?x?x2x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x80xbf16>) -> tensor<?x?x2x80xbf16> {
  %output = attn.recurrent %arg0, %arg1, %arg2 q_mod {
  ^bb0(%arg3: f32, %arg4: index, %arg5: index, %arg6: index, %arg7: index):
    %cst = arith.constant 1.250000e-01 : f32
    %0 = arith.mulf %arg3, %cst : f32
    attn.yield %0 : f32
  } {gate_kind = #attn<gate none>} : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x80xbf16> -> tensor<?x?x2x80xbf16>
  return %output : tensor<?x?x2x80xbf16>
}

// @linear_attention_states: no decay, Dk 40, Dv 24, initial and final state.
func.func @linear_attention_states(%arg0: tensor<?x?x2x40xbf16>, %arg1: tensor<?x?x2x40xbf16>, %arg2: tensor<?x?x2x24xbf16>, %arg3: tensor<?x2x40x24xf32>) -> (tensor<?x?x2x24xbf16>, tensor<?x2x40x24xf32>) {
  %output, %final_state = attn.recurrent %arg0, %arg1, %arg2 initial_state(%arg3 : tensor<?x2x40x24xf32>) q_mod {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %cst = arith.constant 0.158113882 : f32
    %0 = arith.mulf %arg4, %cst : f32
    attn.yield %0 : f32
  } {gate_kind = #attn<gate none>} : tensor<?x?x2x40xbf16>, tensor<?x?x2x40xbf16>, tensor<?x?x2x24xbf16> -> tensor<?x?x2x24xbf16>, tensor<?x2x40x24xf32>
  return %output, %final_state : tensor<?x?x2x24xbf16>, tensor<?x2x40x24xf32>
}

// @retnet_recurrent: a decay per head, Dv = 2 Dk.
func.func @retnet_recurrent(%arg0: tensor<?x?x2x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x128xbf16>, %arg3: tensor<2xf32>) -> tensor<?x?x2x128xbf16> {
  %output = attn.recurrent %arg0, %arg1, %arg2 gate(%arg3 : tensor<2xf32>) q_mod {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %cst = arith.constant 1.250000e-01 : f32
    %0 = arith.mulf %arg4, %cst : f32
    attn.yield %0 : f32
  } {gate_kind = #attn<gate head>} : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x128xbf16> -> tensor<?x?x2x128xbf16>
  return %output : tensor<?x?x2x128xbf16>
}

// @gated_retention: a decay per token.
func.func @gated_retention(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x4x64xbf16>, %arg2: tensor<?x?x4x64xbf16>, %arg3: tensor<?x?x4xf32>) -> tensor<?x?x4x64xbf16> {
  %output = attn.recurrent %arg0, %arg1, %arg2 gate(%arg3 : tensor<?x?x4xf32>) q_mod {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %cst = arith.constant 1.250000e-01 : f32
    %0 = arith.mulf %arg4, %cst : f32
    attn.yield %0 : f32
  } {gate_kind = #attn<gate token>} : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %output : tensor<?x?x4x64xbf16>
}

// @gla_vector: a decay per token and key dim from gate logits.
func.func @gla_vector(%arg0: tensor<?x?x2x48xbf16>, %arg1: tensor<?x?x2x48xbf16>, %arg2: tensor<?x?x2x64xbf16>, %arg3: tensor<?x?x2x48xf32>) -> tensor<?x?x2x64xbf16> {
  %output = attn.recurrent %arg0, %arg1, %arg2 gate(%arg3 : tensor<?x?x2x48xf32>) q_mod {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %cst = arith.constant 0.144337565 : f32
    %0 = arith.mulf %arg4, %cst : f32
    attn.yield %0 : f32
  } gate_mod {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index):
    %0 = math.absf %arg4 : f32
    %1 = arith.negf %0 : f32
    %2 = math.exp %1 : f32
    %cst = arith.constant 1.000000e+00 : f32
    %3 = arith.addf %cst, %2 : f32
    %4 = math.log %3 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %5 = arith.minimumf %arg4, %cst_0 : f32
    %6 = arith.subf %5, %4 : f32
    %cst_1 = arith.constant 1.600000e+01 : f32
    %7 = arith.divf %6, %cst_1 : f32
    attn.yield %7 : f32
  } {gate_kind = #attn<gate vector>} : tensor<?x?x2x48xbf16>, tensor<?x?x2x48xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>
  return %output : tensor<?x?x2x64xbf16>
}

// @mamba2_ssd: one group of B/C shared by 3 heads, state 64, head dim 32.
func.func @mamba2_ssd(%arg0: tensor<?x?x1x64xbf16>, %arg1: tensor<?x?x1x64xbf16>, %arg2: tensor<?x?x3x32xbf16>, %arg3: tensor<?x?x3xf32>, %arg4: tensor<?x?x3xf32>, %arg5: tensor<3xf32>) -> tensor<?x?x3x32xbf16> {
  %output = attn.recurrent %arg0, %arg1, %arg2 gate(%arg3 : tensor<?x?x3xf32>) inputs(%arg4, %arg5 : tensor<?x?x3xf32>, tensor<3xf32>) v_mod {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32, %arg12: f32):
    %0 = arith.mulf %arg6, %arg11 : f32
    attn.yield %0 : f32
  } gate_mod {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32, %arg12: f32):
    %0 = arith.mulf %arg6, %arg12 : f32
    attn.yield %0 : f32
  } {gate_kind = #attn<gate token>, input_dims = ["b,t,h", "h"]} : tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16>, tensor<?x?x3x32xbf16> -> tensor<?x?x3x32xbf16>
  return %output : tensor<?x?x3x32xbf16>
}

// @mamba2_ssd_groups: two groups, 4 heads, state 32, head dim 16.
func.func @mamba2_ssd_groups(%arg0: tensor<?x?x2x32xbf16>, %arg1: tensor<?x?x2x32xbf16>, %arg2: tensor<?x?x4x16xbf16>, %arg3: tensor<?x?x4xf32>, %arg4: tensor<?x?x4xf32>, %arg5: tensor<4xf32>) -> tensor<?x?x4x16xbf16> {
  %output = attn.recurrent %arg0, %arg1, %arg2 gate(%arg3 : tensor<?x?x4xf32>) inputs(%arg4, %arg5 : tensor<?x?x4xf32>, tensor<4xf32>) v_mod {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32, %arg12: f32):
    %0 = arith.mulf %arg6, %arg11 : f32
    attn.yield %0 : f32
  } gate_mod {
  ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32, %arg12: f32):
    %0 = arith.mulf %arg6, %arg12 : f32
    attn.yield %0 : f32
  } {gate_kind = #attn<gate token>, input_dims = ["b,t,h", "h"]} : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x4x16xbf16> -> tensor<?x?x4x16xbf16>
  return %output : tensor<?x?x4x16xbf16>
}
