// RUN: metaattn-opt %s -split-input-file -verify-diagnostics

// One diagnostic per split about the regions of attn.attention and where attn.row_reduce
// may appear.

func.func @score_num_args(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'score' region must have 7 arguments, found 6}}
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index):
      attn.yield %s : f32
    }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @score_arg_type(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'score' region argument #0 must be 'f32', found 'f16'}}
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f16, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %e = arith.extf %s : f16 to f32
      attn.yield %e : f32
    }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @score_input_arg_type(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4xf16>) {
  // expected-error @+1 {{'score' region argument #7 must be 'f16', found 'f32'}}
  %o = attn.attention %q, %k, %v inputs(%i0 : tensor<4xf16>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %x: f32):
      attn.yield %s : f32
    }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f16):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f16):
      attn.normalize %s, %s : f32, f32 } {input_dims = ["h"]}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @score_yield_count(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'score' region must yield 1 value(s), found 2}}
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s, %s : f32, f32
    }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @score_yield_type(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'score' region must yield 'f32' as value #0, found 'i1'}}
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @score_terminator(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'score' region must end with attn.yield}}
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32
    }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @mask_num_args(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'mask' region must have 6 arguments, found 7}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @mask_arg_type(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'mask' region argument #3 must be 'index', found 'i32'}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: i32, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @mask_yield_type(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'mask' region must yield 'i1' as value #0, found 'f32'}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.0 : f32
      attn.yield %c : f32
    }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @normalizer_num_args(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'normalizer' region must have 7 arguments, found 6}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.0 : f32
      attn.normalize %c, %c : f32, f32
    }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @normalizer_terminator(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'normalizer' region must end with attn.normalize}}
  %o = attn.attention %q, %k, %v
    score { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32 }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @row_reduce_in_score(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+4 {{'attn.row_reduce' op is only allowed in a normalizer region}}
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = attn.row_reduce max %s : f32
      attn.yield %m : f32
    }
    mask { ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1 }
    normalizer { ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.normalize %s, %s : f32, f32 }
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}
