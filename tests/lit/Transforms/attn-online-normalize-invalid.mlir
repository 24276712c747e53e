// RUN: metaattn-opt %s -split-input-file -attn-online-normalize -verify-diagnostics

// A sum of values of different degrees (exp(s - m) + 1) cannot be rescaled.

func.func @mixed(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  // expected-note @+1 {{in this attention}}
  %o, %lse = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %e = math.exp %d : f32
      %one = arith.constant 1.0 : f32
      // expected-error @+1 {{normaliser cannot be streamed over kv tiles: its operands scale differently with the row maximum (degrees 1 and 0)}}
      %w = arith.addf %e, %one : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// A per-element weight that divides by a row sum.

func.func @weight_uses_sum(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  // expected-note @+1 {{in this attention}}
  %o, %lse = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %e = math.exp %d : f32
      %z = attn.row_reduce sum %e : f32
      // expected-error @+1 {{a per-element value is combined with a row sum}}
      %w = arith.divf %e, %z : f32
      %one = arith.constant 1.0 : f32
      attn.normalize %w, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// Two row maxima.

func.func @two_max(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  // expected-note @+1 {{in this attention}}
  %o, %lse = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %a = math.absf %s : f32
      // expected-error @+1 {{only one row maximum can be streamed}}
      %mx2 = attn.row_reduce max %a : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// The max entering a per-element value other than through exp(x - max).

func.func @max_times_s(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  // expected-note @+1 {{in this attention}}
  %o, %lse = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      // expected-error @+1 {{the row maximum may only enter per-element values as exp(x - max)}}
      %w = arith.mulf %s, %mx : f32
      %one = arith.constant 1.0 : f32
      attn.normalize %w, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// A non-homogeneous op applied after the shift.

func.func @tanh_after_shift(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  // expected-note @+1 {{in this attention}}
  %o, %lse = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %e = math.exp %d : f32
      // expected-error @+1 {{operand #0 scales with the row maximum, and this op is not homogeneous}}
      %w = math.tanh %e : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// A per-element denominator.

func.func @elem_denominator(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  // expected-note @+1 {{in this attention}}
  %o, %lse = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      // expected-error @+1 {{the denominator must be a per-row value}}
      attn.normalize %s, %s : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// The shift must be one value: the raw row max and max(row max, c) cannot both be used.
func.func @max_used_twice(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %sink: tensor<4xf32>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  // expected-note @+1 {{in this attention}}
  %o, %lse = attn.attention %q, %k, %v inputs(%sink : tensor<4xf32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sk: f32):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sk: f32):
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sk: f32):
      %mx0 = attn.row_reduce max %s : f32
      // expected-error @+1 {{the row maximum is used both alone and as max(maximum, c)}}
      %mx = arith.maximumf %mx0, %sk : f32
      %d = arith.subf %s, %mx0 : f32
      %w = math.exp %d : f32
      %z0 = attn.row_reduce sum %w : f32
      %ds = arith.subf %sk, %mx : f32
      %es = math.exp %ds : f32
      %z = arith.addf %z0, %es : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["h"]} : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}
