// RUN: metaattn-opt %s -split-input-file -verify-diagnostics

// One diagnostic of the attn.attention verifier per split: shapes, custom inputs, mask
// bounds. Region signatures are in invalid-regions.mlir.

func.func @q_rank(%q: tensor<?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{q must be a rank-4 tensor [batch, seq, heads, dim], found rank 3}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @k_rank(%q: tensor<?x?x4x16xf32>, %k: tensor<?x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{k must be a rank-4 tensor [batch, seq, heads, dim], found rank 2}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @elt_type(%q: tensor<?x?x4x16xi8>, %k: tensor<?x?x4x16xi8>, %v: tensor<?x?x4x16xi8>) {
  // expected-error @+1 {{q element type must be bf16, f16 or f32, found 'i8'}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xi8>, tensor<?x?x4x16xi8>, tensor<?x?x4x16xi8> -> tensor<?x?x4x16xi8>
  return
}

// -----

func.func @mixed_types(%q: tensor<?x?x4x16xbf16>, %k: tensor<?x?x4x16xf16>, %v: tensor<?x?x4x16xbf16>) {
  // expected-error @+1 {{q, k and v must have one element type, found 'bf16', 'f16', 'bf16'}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xbf16>, tensor<?x?x4x16xf16>, tensor<?x?x4x16xbf16> -> tensor<?x?x4x16xbf16>
  return
}

// -----

func.func @dynamic_heads(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x?x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{k heads and head dim (dims 2 and 3) must be static}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x?x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @zero_dim(%q: tensor<?x?x4x0xf32>, %k: tensor<?x?x4x0xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{head counts and head dims must be positive}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x0xf32>, tensor<?x?x4x0xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x0xf32>
  return
}

// -----

func.func @kv_heads_differ(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x2x16xf32>) {
  // expected-error @+1 {{k and v must have the same number of heads, found 4 and 2}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x2x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @gqa_ratio(%q: tensor<?x?x12x16xf32>, %k: tensor<?x?x5x16xf32>, %v: tensor<?x?x5x16xf32>) {
  // expected-error @+1 {{query heads (12) must be a multiple of kv heads (5)}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x12x16xf32>, tensor<?x?x5x16xf32>, tensor<?x?x5x16xf32> -> tensor<?x?x12x16xf32>
  return
}

// -----

func.func @k_head_dim(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x32xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{k head dim (32) must equal q head dim (16)}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x32xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @k_batch(%q: tensor<2x?x4x16xf32>, %k: tensor<3x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{k dim 0 (batch) is 3, expected 2}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<2x?x4x16xf32>, tensor<3x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<2x?x4x16xf32>
  return
}

// -----

func.func @v_batch(%q: tensor<2x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<3x?x4x16xf32>) {
  // expected-error @+1 {{v dim 0 (batch) is 3, expected 2}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<2x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<3x?x4x16xf32> -> tensor<2x?x4x16xf32>
  return
}

// -----

func.func @v_length(%q: tensor<?x?x4x16xf32>, %k: tensor<?x8x4x16xf32>, %v: tensor<?x9x4x16xf32>) {
  // expected-error @+1 {{v dim 1 (kv length) is 9, expected 8}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x8x4x16xf32>, tensor<?x9x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @out_rank(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{output must be [batch, seq_q, heads, value dim] of 'f32', found 'tensor<?x?x64xf32>'}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x64xf32>
  return
}

// -----

func.func @out_type_bf16(%q: tensor<?x?x4x16xbf16>, %k: tensor<?x?x4x16xbf16>, %v: tensor<?x?x4x16xbf16>) {
  // expected-error @+1 {{output must be [batch, seq_q, heads, value dim] of 'bf16' or 'f32', found 'tensor<?x?x4x16xf16>'}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xbf16>, tensor<?x?x4x16xbf16>, tensor<?x?x4x16xbf16> -> tensor<?x?x4x16xf16>
  return
}

// -----

func.func @out_type(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{output must be [batch, seq_q, heads, value dim] of 'f32', found 'tensor<?x?x4x16xbf16>'}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xbf16>
  return
}

// -----

func.func @out_batch(%q: tensor<2x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{output dim 0 (batch) is 1, expected 2}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<2x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<1x?x4x16xf32>
  return
}

// -----

func.func @out_length(%q: tensor<?x8x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{output dim 1 (query length) is 7, expected 8}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x8x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x7x4x16xf32>
  return
}

// -----

func.func @out_heads(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{output dim 2 (heads) is 2, expected 4}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x2x16xf32>
  return
}

// -----

func.func @out_value_dim(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x32xf32>) {
  // expected-error @+1 {{output dim 3 (value dim) is 16, expected 32}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x32xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @lse_rank(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{row statistics must be [batch, heads, seq_q] of f32, found 'tensor<?x4xf32>'}}
  %o, %l = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>, tensor<?x4xf32>
  return
}

// -----

func.func @lse_type(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{row statistics must be [batch, heads, seq_q] of f32, found 'tensor<?x4x?xf16>'}}
  %o, %l = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>, tensor<?x4x?xf16>
  return
}

// -----

func.func @lse_batch(%q: tensor<2x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{row statistics dim 0 (batch) is 3, expected 2}}
  %o, %l = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<2x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<2x?x4x16xf32>, tensor<3x4x?xf32>
  return
}

// -----

func.func @lse_heads(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{row statistics dim 1 (heads) is 8, expected 4}}
  %o, %l = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>, tensor<?x8x?xf32>
  return
}

// -----

func.func @lse_length(%q: tensor<?x8x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{row statistics dim 2 (query length) is 5, expected 8}}
  %o, %l = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x8x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x8x4x16xf32>, tensor<?x4x5xf32>
  return
}

// -----

func.func @input_dims_count(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4xf32>) {
  // expected-error @+1 {{has 1 custom input(s) but 0 entries in input_dims}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4xf32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.normalize %s, %s : f32, f32 } {input_dims = []}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_dims_unknown(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4xf32>) {
  // expected-error @+1 {{input_dims[0]: unknown dim 't' (expected a subset of b,h,q,kv)}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4xf32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["t"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_dims_order(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4x?xf32>) {
  // expected-error @+1 {{input_dims[0]: dims 'h,b' must be in the order b,h,q,kv without repeats}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4x?xf32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["h,b"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_dims_repeat(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4x4xf32>) {
  // expected-error @+1 {{input_dims[0]: dims 'h,h' must be in the order b,h,q,kv without repeats}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4x4xf32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["h,h"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_dims_not_string(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4xf32>) {
  // expected-error @+8 {{attribute 'input_dims' failed to satisfy constraint: string array attribute}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4xf32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.normalize %s, %s : f32, f32 } {input_dims = [1]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_rank(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<?xf32>) {
  // expected-error @+1 {{custom input #0 declared over 'q,kv' must have rank 2, found 'tensor<?xf32>'}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<?xf32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["q,kv"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_element(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{custom input #0 must have a scalar element type}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4xcomplex<f32>>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: complex<f32>):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: complex<f32>):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: complex<f32>):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["h"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_heads(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<8xf32>) {
  // expected-error @+1 {{custom input #0 dim 0 (heads) is 8, expected 4}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<8xf32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["h"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_batch(%q: tensor<2x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<3xf32>) {
  // expected-error @+1 {{custom input #0 dim 0 (batch) is 3, expected 2}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<3xf32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["b"]}
    : tensor<2x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<2x?x4x16xf32>
  return
}

// -----

func.func @input_q(%q: tensor<?x8x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<3x?xf32>) {
  // expected-error @+1 {{custom input #0 dim 0 (query length) is 3, expected 8}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<3x?xf32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["q,kv"]}
    : tensor<?x8x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x8x4x16xf32>
  return
}

// -----

func.func @input_kv(%q: tensor<?x?x4x16xf32>, %k: tensor<?x9x4x16xf32>, %v: tensor<?x9x4x16xf32>, %i0: tensor<?x3xf32>) {
  // expected-error @+1 {{custom input #0 dim 1 (kv length) is 3, expected 9}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<?x3xf32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["q,kv"]}
    : tensor<?x?x4x16xf32>, tensor<?x9x4x16xf32>, tensor<?x9x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_block_zero(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4x?xi32>) {
  // expected-error @+1 {{input_dims[0]: block divisor in 'q/0' must be a positive integer}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4x?xi32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["h,q/0"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_block_text(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4x?xi32>) {
  // expected-error @+1 {{input_dims[0]: block divisor in 'kv/x' must be a positive integer}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4x?xi32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["h,kv/x"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_block_head(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4x?xi32>) {
  // expected-error @+1 {{input_dims[0]: only q and kv can be divided into blocks, found 'h/2'}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4x?xi32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["h/2,q"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_block_order(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<?x?xi32>) {
  // expected-error @+1 {{input_dims[0]: dims 'kv/64,q/64' must be in the order b,h,q,kv without repeats}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<?x?xi32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["kv/64,q/64"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_block_q(%q: tensor<?x77x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4x3x?xi32>) {
  // expected-error @+1 {{custom input #0 dim 1 (blocks of 64: ceil(query length / 64)) is 3, expected 2}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4x3x?xi32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["h,q/64,kv/128"]}
    : tensor<?x77x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x77x4x16xf32>
  return
}

// -----

func.func @input_block_kv(%q: tensor<?x?x4x16xf32>, %k: tensor<?x300x4x16xf32>, %v: tensor<?x300x4x16xf32>, %i0: tensor<4x?x2xi32>) {
  // expected-error @+1 {{custom input #0 dim 2 (blocks of 128: ceil(kv length / 128)) is 2, expected 3}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4x?x2xi32>)
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: i32):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["h,q/64,kv/128"]}
    : tensor<?x?x4x16xf32>, tensor<?x300x4x16xf32>, tensor<?x300x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @mask_bounds_size(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{mask_bounds must hold 5 integers per constraint, found 4}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 } {mask_bounds = array<i64: 0, 1, 0, 0>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @mask_bounds_kind(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{mask_bounds constraint 1 (kind 2) must follow a constraint of the same direction}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 } {mask_bounds = array<i64: 1, 1, 0, 0, 0, 2, 1, 0, 0, 0>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @mask_bounds_kind_range(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{mask_bounds constraint kind must be 0 (kv <= e), 1 (kv >= e), 2 or 3 (the same, widening the constraint before it), found 4}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 } {mask_bounds = array<i64: 4, 1, 0, 0, 0>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}
