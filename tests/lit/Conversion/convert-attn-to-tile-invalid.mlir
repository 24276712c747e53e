// RUN: metaattn-opt %s -split-input-file -convert-attn-to-tile -verify-diagnostics

// Every diagnostic of convert-attn-to-tile about the shape of a function.

// -----

func.func @other_op(%q: tensor<?x?x2x32xbf16>, %k: tensor<?x?x2x32xbf16>, %v: tensor<?x?x2x32xbf16>) -> tensor<?x?x2x32xbf16> {
  // expected-error @+1 {{convert-attn-to-tile expects the function body to be attention, combine and recurrent ops and a return}}
  %e = tensor.empty() : tensor<2xf32>
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } finalize {
    ^bb0(%m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.yield %one, %one : f32, f32
    } {degrees = array<i64: 0>} : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xbf16>
  return %o : tensor<?x?x2x32xbf16>
}

// -----

func.func @returns_argument(%q: tensor<?x?x2x32xbf16>, %k: tensor<?x?x2x32xbf16>, %v: tensor<?x?x2x32xbf16>) -> (tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>) {
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } finalize {
    ^bb0(%m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.yield %one, %one : f32, f32
    } {degrees = array<i64: 0>} : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xbf16>
  // expected-error @+1 {{convert-attn-to-tile: result #1 is a function argument; results must be computed by an op}}
  return %o, %q : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>
}

// -----

func.func @returns_twice(%q: tensor<?x?x2x32xbf16>, %k: tensor<?x?x2x32xbf16>, %v: tensor<?x?x2x32xbf16>) -> (tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>) {
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } finalize {
    ^bb0(%m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.yield %one, %one : f32, f32
    } {degrees = array<i64: 0>} : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xbf16>
  // expected-error @+1 {{convert-attn-to-tile: result #1 returns the same value as an earlier result}}
  return %o, %o : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>
}

// -----

// expected-error @+1 {{convert-attn-to-tile: every function argument must be an operand of an op; argument #3 is unused}}
func.func @unused_argument(%q: tensor<?x?x2x32xbf16>, %k: tensor<?x?x2x32xbf16>, %v: tensor<?x?x2x32xbf16>, %extra: tensor<2xf32>) -> tensor<?x?x2x32xbf16> {
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } finalize {
    ^bb0(%m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.yield %one, %one : f32, f32
    } {degrees = array<i64: 0>} : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xbf16>
  return %o : tensor<?x?x2x32xbf16>
}

// -----

func.func private @taken_step0()

// expected-error @+1 {{convert-attn-to-tile: the kernel name @taken_step0 is taken by another symbol}}
func.func @taken(%q: tensor<?x?x2x32xbf16>, %k: tensor<?x?x2x32xbf16>, %v: tensor<?x?x2x32xbf16>) -> tensor<?x?x2x32xbf16> {
  %a = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } finalize {
    ^bb0(%m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.yield %one, %one : f32, f32
    } {degrees = array<i64: 0>} : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xbf16>
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } finalize {
    ^bb0(%m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.yield %one, %one : f32, f32
    } {degrees = array<i64: 0>} : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xbf16>
  return %o : tensor<?x?x2x32xbf16>
}
