// RUN: metaattn-opt %s -split-input-file -verify-diagnostics

// One diagnostic of the attn.online_attention verifier per split.

func.func @online_gqa_ratio(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x3x16xf32>, %v: tensor<?x?x3x16xf32>) {
  // expected-error @+1 {{query heads (4) must be a multiple of kv heads (3)}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x3x16xf32>, tensor<?x?x3x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_max_accumulator(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{row accumulators must be #attn<reduction sum> or #attn<reduction abs_sum>}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction max>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_accumulator_not_reduction(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{row accumulators must be #attn<reduction sum> or #attn<reduction abs_sum>}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [1 : i32], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_degrees_count(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{degrees must list the weight and each of the 1 accumulator(s): expected 2 entries, found 1}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_degrees_without_shift(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{degrees must be 0 without a shift region}}
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
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_mask_bounds(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{mask_bounds must hold 5 integers per constraint, found 3}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>, mask_bounds = array<i64: 0, 1, 0>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_score_yield(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'score' region must yield 1 value(s), found 0}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_mask_args(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'mask' region must have 6 arguments, found 5}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_elementwise_args(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'elementwise' region must have 8 arguments, found 7}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s, %s : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_elementwise_yield(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'elementwise' region must yield 2 value(s), found 1}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_finalize_args(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'finalize' region must have 8 arguments, found 7}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_finalize_yield(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'finalize' region must yield 'f32' as value #1, found 'i1'}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %m, %t : f32, i1
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_shift_yield(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'shift' region must yield 'f32' as value #0, found 'index'}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %ki : index
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_finalize_kv(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+1 {{'finalize' region must not use the kv index}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.index_cast %ki : index to i32
      %f = arith.sitofp %c : i32 to f32
      attn.yield %z, %f : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_finalize_kv_input(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>, %i0: tensor<4xf32>, %i1: tensor<?x?xf32>) {
  // expected-error @+1 {{'finalize' region must not use custom input #1, which varies over kv}}
  %o = attn.online_attention %q, %k, %v inputs(%i0, %i1 : tensor<4xf32>, tensor<?x?xf32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32, %in1: f32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32, %in1: f32):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32, %in1: f32):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32, %in1: f32):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %in0: f32, %in1: f32):
      %a = arith.addf %z, %in0 : f32
      attn.yield %a, %in1 : f32, f32
    } {input_dims = ["h", "q,kv"], reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}

// -----

func.func @online_row_reduce(%q: tensor<?x?x4x16xf32>, %k: tensor<?x?x4x16xf32>, %v: tensor<?x?x4x16xf32>) {
  // expected-error @+14 {{'attn.row_reduce' op is only allowed in a normalizer region}}
  %o = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } shift {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %w = attn.row_reduce sum %s : f32
      attn.yield %w, %w : f32, f32
    } finalize {
    ^bb0(%z0: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %m, %m : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32>, tensor<?x?x4x16xf32> -> tensor<?x?x4x16xf32>
  return
}
