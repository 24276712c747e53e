// RUN: metaattn-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of attn.combine.

// -----

func.func @no_operands() {
  // expected-error @+1 {{needs at least one attention output to combine}}
  %o = "attn.combine"() ({
  ^bb0(%b: index, %h: index, %q: index, %d: index):
    %z = arith.constant 0.0 : f32
    attn.yield %z : f32
  }) {operandSegmentSizes = array<i32: 0, 0>} : () -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @rank(%x0: tensor<?x?x16xf32>) {
  // expected-error @+1 {{operand #0 must be a rank-4 tensor [batch, seq_q, heads, value dim] of bf16, f16 or f32, found 'tensor<?x?x16xf32>'}}
  %o = attn.combine %x0 {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index):
    attn.yield %a : f32
  } : tensor<?x?x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @element(%x0: tensor<?x?x4x16xi32>) {
  // expected-error @+1 {{operand #0 must be a rank-4 tensor [batch, seq_q, heads, value dim] of bf16, f16 or f32, found 'tensor<?x?x4x16xi32>'}}
  %o = attn.combine %x0 {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index):
    attn.yield %a : f32
  } : tensor<?x?x4x16xi32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @dynamic_heads(%x0: tensor<?x?x?x16xf32>) {
  // expected-error @+1 {{operand #0 heads and value dim (dims 2 and 3) must be static}}
  %o = attn.combine %x0 {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index):
    attn.yield %a : f32
  } : tensor<?x?x?x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @value_dim(%x0: tensor<?x?x4x16xf32>, %x1: tensor<?x?x4x32xf32>) {
  // expected-error @+1 {{operand #1 dim 3 (value dim) is 32, expected 16}}
  %o = attn.combine %x0, %x1 {
  ^bb0(%a: f32, %c: f32, %b: index, %h: index, %q: index, %d: index):
    attn.yield %a : f32
  } : tensor<?x?x4x16xf32>, tensor<?x?x4x32xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @seq(%x0: tensor<?x8x4x16xf32>, %x1: tensor<?x9x4x16xf32>) {
  // expected-error @+1 {{operand #1 dim 1 (query length) is 9, expected 8}}
  %o = attn.combine %x0, %x1 {
  ^bb0(%a: f32, %c: f32, %b: index, %h: index, %q: index, %d: index):
    attn.yield %a : f32
  } : tensor<?x8x4x16xf32>, tensor<?x9x4x16xf32> -> tensor<?x8x4x16xf32>
  return
}

// -----

func.func @output_heads(%x0: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{output dim 2 (heads) is 8, expected 4}}
  %o = attn.combine %x0 {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index):
    attn.yield %a : f32
  } : tensor<?x?x4x16xf32> -> tensor<?x?x8x16xbf16>
  return
}

// -----

func.func @dims_count(%x0: tensor<?x?x4x16xf32>, %l: tensor<4xf32>) {
  // expected-error @+1 {{has 1 custom input(s) but 0 entries in input_dims}}
  %o = attn.combine %x0 inputs(%l : tensor<4xf32>) {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index, %lv: f32):
    attn.yield %a : f32
  } {input_dims = []} : tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @kv_input(%x0: tensor<?x?x4x16xf32>, %l: tensor<4x?xf32>) {
  // expected-error @+1 {{input_dims[0]: custom inputs of attn.combine vary over b, h and q only, found 'h,kv'}}
  %o = attn.combine %x0 inputs(%l : tensor<4x?xf32>) {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index, %lv: f32):
    attn.yield %a : f32
  } {input_dims = ["h,kv"]} : tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @bad_dims(%x0: tensor<?x?x4x16xf32>, %l: tensor<4xf32>) {
  // expected-error @+1 {{input_dims[0]: unknown dim 't' (expected a subset of b,h,q,kv)}}
  %o = attn.combine %x0 inputs(%l : tensor<4xf32>) {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index, %lv: f32):
    attn.yield %a : f32
  } {input_dims = ["t"]} : tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_rank(%x0: tensor<?x?x4x16xf32>, %l: tensor<4x2xf32>) {
  // expected-error @+1 {{custom input #0 declared over 'h' must have rank 1, found 'tensor<4x2xf32>'}}
  %o = attn.combine %x0 inputs(%l : tensor<4x2xf32>) {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index, %lv: f32):
    attn.yield %a : f32
  } {input_dims = ["h"]} : tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_heads(%x0: tensor<?x?x4x16xf32>, %l: tensor<8xf32>) {
  // expected-error @+1 {{custom input #0 dim 0 (heads) is 8, expected 4}}
  %o = attn.combine %x0 inputs(%l : tensor<8xf32>) {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index, %lv: f32):
    attn.yield %a : f32
  } {input_dims = ["h"]} : tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @input_blocks(%x0: tensor<?x77x4x16xf32>, %l: tensor<3xi32>) {
  // expected-error @+1 {{custom input #0 dim 0 (blocks of 64: ceil(query length / 64)) is 3, expected 2}}
  %o = attn.combine %x0 inputs(%l : tensor<3xi32>) {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index, %lv: i32):
    attn.yield %a : f32
  } {input_dims = ["q/64"]} : tensor<?x77x4x16xf32> -> tensor<?x77x4x16xf32>
  return
}

// -----

func.func @input_element(%x0: tensor<?x?x4x16xf32>, %l: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{custom input #0 must have a scalar element type}}
  %o = attn.combine %x0 inputs(%l : tensor<4xcomplex<f32>>) {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index, %lv: complex<f32>):
    attn.yield %a : f32
  } {input_dims = ["h"]} : tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @region_args(%x0: tensor<?x?x4x16xf32>, %x1: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'combiner' region must have 6 arguments, found 5}}
  %o = attn.combine %x0, %x1 {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index):
    attn.yield %a : f32
  } : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @region_arg_type(%x0: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'combiner' region argument #0 must be 'f32', found 'bf16'}}
  %o = attn.combine %x0 {
  ^bb0(%a: bf16, %b: index, %h: index, %q: index, %d: index):
    %z = arith.constant 0.0 : f32
    attn.yield %z : f32
  } : tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @region_yield(%x0: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'combiner' region must yield 'f32' as value #0, found 'index'}}
  %o = attn.combine %x0 {
  ^bb0(%a: f32, %b: index, %h: index, %q: index, %d: index):
    attn.yield %b : index
  } : tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}
