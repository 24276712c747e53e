// RUN: metaattn-opt %s -split-input-file -verify-diagnostics

// One diagnostic of the attn.recurrent verifier per split: shapes, gate, states, custom
// inputs, modifier regions.

func.func @rec_rank(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x16xf32>) {
  // expected-error @+1 {{v must be a rank-4 tensor [batch, seq, heads, dim], found rank 3}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_dynamic_dim(%q: tensor<?x?x4x?xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x?xf32>) {
  // expected-error @+1 {{q heads and head dim (dims 2 and 3) must be static}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x?xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x?xf32> -> tensor<?x?x4x?xf32>
  return
}

// -----

func.func @rec_types(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf16>) {
  // expected-error @+1 {{q, k and v must share one element type among bf16, f16, f32}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf16> -> tensor<?x?x4x16xf16>
  return
}

// -----

func.func @rec_unsupported_type(%q: tensor<?x?x4x16xf64>, %k: tensor<?x?x4x16xf64>, %v: tensor<?x?x4x16xf64>) {
  // expected-error @+1 {{q, k and v must share one element type among bf16, f16, f32}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf64>, tensor<?x?x4x16xf64>, tensor<?x?x4x16xf64> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_qk_heads(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x2x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{q and k must have the same heads and head dim, found 'tensor<?x?x4x16xf32>' and 'tensor<?x?x2x16xf32>'}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x2x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_v_heads(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x6x16xf32>) {
  // expected-error @+1 {{v heads (6) must be a multiple of q/k heads (4)}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x6x16xf32> -> tensor<?x?x6x16xf32>
  return
}

// -----

func.func @rec_k_batch(%q: tensor<2x?x4x16xf32>, %k: tensor<3x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{k dim 0 (batch) is 3, expected 2}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<2x?x4x16xf32>, tensor<3x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_k_length(%q: tensor<?x7x4x16xf32>, %k: tensor<?x5x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{k dim 1 (length) is 5, expected 7}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x7x4x16xf32>, tensor<?x5x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_v_batch(%q: tensor<2x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<3x?x4x16xf32>) {
  // expected-error @+1 {{v dim 0 (batch) is 3, expected 2}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<2x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<3x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_v_length(%q: tensor<?x7x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x5x4x16xf32>) {
  // expected-error @+1 {{v dim 1 (length) is 5, expected 7}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x7x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x5x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_out_type(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{output must be [batch, seq, heads, value dim] of 'f32', found 'tensor<?x?x4x16xbf16>'}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xbf16>
  return
}

// -----

func.func @rec_out_batch(%q: tensor<2x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{output dim 0 (batch) is 1, expected 2}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<2x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<1x?x4x16xf32>
  return
}

// -----

func.func @rec_out_length(%q: tensor<?x7x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{output dim 1 (length) is 1, expected 7}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x7x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x1x4x16xf32>
  return
}

// -----

func.func @rec_out_heads(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{output dim 2 (heads) is 2, expected 4}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x2x16xf32>
  return
}

// -----

func.func @rec_out_value_dim(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x32xf32>) {
  // expected-error @+1 {{output dim 3 (value dim) is 8, expected 32}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x32xf32> -> tensor<?x?x4x8xf32>
  return
}

// -----

func.func @rec_gate_without_kind(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{a gate operand needs a gate_kind other than none}}
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<4xf32>) {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_kind_without_gate(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{gate_kind needs a gate operand}}
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate head>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_gate_type(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %g: tensor<4xbf16>) {
  // expected-error @+1 {{gate must be f32 (log-space decay), found 'bf16'}}
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<4xbf16>) {gate_kind = #attn<gate head>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_head_gate_rank(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %g: tensor<?x?x4xf32>) {
  // expected-error @+1 {{gate of kind head must be [heads], found 'tensor<?x?x4xf32>'}}
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x4xf32>) {gate_kind = #attn<gate head>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_head_gate_size(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{gate dim 0 ([heads]) is 8, expected 4}}
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<8xf32>) {gate_kind = #attn<gate head>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_token_gate_rank(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{gate of kind token must be [batch, seq, heads], found 'tensor<4xf32>'}}
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<4xf32>) {gate_kind = #attn<gate token>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_token_gate_length(%q: tensor<?x7x4x16xf32>, %k: tensor<?x7x4x16xf32>, %v: tensor<?x7x4x16xf32>, %g: tensor<?x3x4xf32>) {
  // expected-error @+1 {{gate dim 1 ([batch, seq, heads]) is 3, expected 7}}
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<?x3x4xf32>) {gate_kind = #attn<gate token>}
    : tensor<?x7x4x16xf32>, tensor<?x7x4x16xf32>, tensor<?x7x4x16xf32> -> tensor<?x7x4x16xf32>
  return
}

// -----

func.func @rec_vector_gate_rank(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %g: tensor<?x?x4xf32>) {
  // expected-error @+1 {{gate of kind vector must be [batch, seq, heads, key dim], found 'tensor<?x?x4xf32>'}}
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x4xf32>) {gate_kind = #attn<gate vector>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_vector_gate_dim(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %g: tensor<?x?x4x32xf32>) {
  // expected-error @+1 {{gate dim 3 ([batch, seq, heads, key dim]) is 32, expected 16}}
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x4x32xf32>) {gate_kind = #attn<gate vector>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_initial_state_type(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %h0: tensor<?x4x16x16xbf16>) {
  // expected-error @+1 {{initial state must be [batch, heads, key dim, value dim] of f32, found 'tensor<?x4x16x16xbf16>'}}
  %o = attn.recurrent %q, %k, %v initial_state(%h0 : tensor<?x4x16x16xbf16>) {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_initial_state_heads(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %h0: tensor<?x2x16x16xf32>) {
  // expected-error @+1 {{initial state dim 1 (heads) is 2, expected 4}}
  %o = attn.recurrent %q, %k, %v initial_state(%h0 : tensor<?x2x16x16xf32>) {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_final_state_rank(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{final state must be [batch, heads, key dim, value dim] of f32, found 'tensor<4x16x16xf32>'}}
  %o, %s = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>, tensor<4x16x16xf32>
  return
}

// -----

func.func @rec_final_state_batch(%q: tensor<2x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{final state dim 0 (batch) is 3, expected 2}}
  %o, %s = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<2x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<2x?x4x16xf32>, tensor<3x4x16x16xf32>
  return
}

// -----

func.func @rec_final_state_key_dim(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x64xf32>) {
  // expected-error @+1 {{final state dim 2 (key dim) is 32, expected 16}}
  %o, %s = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x64xf32> -> tensor<?x?x4x64xf32>, tensor<?x4x32x64xf32>
  return
}

// -----

func.func @rec_final_state_value_dim(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x64xf32>) {
  // expected-error @+1 {{final state dim 3 (value dim) is 16, expected 64}}
  %o, %s = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x64xf32> -> tensor<?x?x4x64xf32>, tensor<?x4x16x16xf32>
  return
}

// -----

func.func @rec_input_dims_count(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4xf32>) {
  // expected-error @+1 {{has 1 custom input(s) but 0 entries in input_dims}}
  %o = attn.recurrent %q, %k, %v inputs(%i0 : tensor<4xf32>) {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_input_dims_unknown(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4xf32>) {
  // expected-error @+1 {{input_dims[0]: unknown dim 'kv' (expected a subset of b,t,h,d)}}
  %o = attn.recurrent %q, %k, %v inputs(%i0 : tensor<4xf32>) {gate_kind = #attn<gate none>, input_dims = ["kv"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_input_dims_order(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4x?xf32>) {
  // expected-error @+1 {{input_dims[0]: dims 'h,t' must be in the order b,t,h,d without repeats}}
  %o = attn.recurrent %q, %k, %v inputs(%i0 : tensor<4x?xf32>) {gate_kind = #attn<gate none>, input_dims = ["h,t"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_input_rank(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<?x4xf32>) {
  // expected-error @+1 {{custom input #0 declared over 'b,t,h' must have rank 3, found 'tensor<?x4xf32>'}}
  %o = attn.recurrent %q, %k, %v inputs(%i0 : tensor<?x4xf32>) {gate_kind = #attn<gate none>, input_dims = ["b,t,h"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_input_size(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<?x8xf32>) {
  // expected-error @+1 {{custom input #0 dim 1 (h) is 8, expected 4}}
  %o = attn.recurrent %q, %k, %v inputs(%i0 : tensor<?x8xf32>) {gate_kind = #attn<gate none>, input_dims = ["t,h"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_mod_args(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'v_mod' region must have 5 arguments, found 4}}
  %o = attn.recurrent %q, %k, %v v_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index):
      attn.yield %x : f32
    } {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_mod_input_arg(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4xf16>) {
  // expected-error @+1 {{'q_mod' region argument #5 must be 'f16', found 'f32'}}
  %o = attn.recurrent %q, %k, %v inputs(%i0 : tensor<4xf16>) q_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index, %a: f32):
      attn.yield %x : f32
    } {gate_kind = #attn<gate none>, input_dims = ["h"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_mod_yield(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'k_mod' region must yield 'f32' as value #0, found 'index'}}
  %o = attn.recurrent %q, %k, %v k_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
      attn.yield %d : index
    } {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_mod_blocks(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'q_mod' region must have one block}}
  %o = attn.recurrent %q, %k, %v q_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
      attn.yield %x : f32
    ^bb1(%y: f32):
      attn.yield %y : f32
    } {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rec_gate_mod_without_gate(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'gate_mod' region needs a gate operand}}
  %o = attn.recurrent %q, %k, %v gate_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
      attn.yield %x : f32
    } {gate_kind = #attn<gate none>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}
