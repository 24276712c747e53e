// RUN: metaattn-opt %s -split-input-file -attn-online-normalize | FileCheck %s

// Softmax: a running max, one sum accumulator of degree 1, log-sum-exp m + log z.
// CHECK-LABEL: func.func @softmax
// CHECK: attn.online_attention
// CHECK: shift {
// CHECK: attn.yield %[[S:.*]] : f32
// CHECK: elementwise {
// CHECK-NEXT: ^bb0(%[[S2:.*]]: f32, %[[M:.*]]: f32,
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[S2]], %[[M]] : f32
// CHECK-NEXT: %[[W:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT: attn.yield %[[W]], %[[W]] : f32, f32
// CHECK: finalize {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[M2:.*]]: f32,
// CHECK-NEXT: %[[L:.*]] = math.log %[[ACC]] : f32
// CHECK-NEXT: %[[LSE:.*]] = arith.addf %[[M2]], %[[L]] : f32
// CHECK-NEXT: attn.yield %[[ACC]], %[[LSE]] : f32, f32
// CHECK: degrees = array<i64: 1, 1>
// CHECK-SAME: reductions = [#attn<reduction sum>]

func.func @softmax(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
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
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// Identity (sigmoid/ReLU attention): no shift, no accumulator, constant denominator.
// CHECK-LABEL: func.func @identity
// CHECK: attn.online_attention
// CHECK-NOT: shift {
// CHECK: elementwise {
// CHECK: attn.yield %{{.*}} : f32
// CHECK: finalize {
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: attn.yield %[[ONE]], %{{.*}} : f32, f32
// CHECK: degrees = array<i64: 0>

func.func @identity(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
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
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// Sinks: the sink's exp(sink - m) joins the denominator, evaluated once per row at the end.
// CHECK-LABEL: func.func @sinks
// CHECK: finalize {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[M:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[SK:.*]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[SK]], %[[M]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK: attn.yield %[[Z]], %{{.*}} : f32, f32

func.func @sinks(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>, %sink: tensor<4xf32>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v inputs(%sink : tensor<4xf32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sk: f32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sk: f32):
      %t = arith.constant true
      attn.yield %t : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sk: f32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z0 = attn.row_reduce sum %w : f32
      %ds = arith.subf %sk, %mx : f32
      %es = math.exp %ds : f32
      %z = arith.addf %z0, %es : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["h"]} : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// RetNet: S / max(sum |S|, 1); an abs-sum accumulator of degree 0 and no shift.
// CHECK-LABEL: func.func @retnet
// CHECK-NOT: shift {
// CHECK: finalize {
// CHECK: arith.maximumf
// CHECK: degrees = array<i64: 0, 0>
// CHECK-SAME: reductions = [#attn<reduction abs_sum>]

func.func @retnet(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
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
      %a = attn.row_reduce abs_sum %s : f32
      %one = arith.constant 1.0 : f32
      %z = arith.maximumf %a, %one : f32
      attn.normalize %s, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// Softpick: relu(e^s - 1) / sum |e^s - 1|, streamed as relu(e^(s-m) - e^(-m)) of degree 1.
// CHECK-LABEL: func.func @softpick
// CHECK: elementwise {
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.maximumf
// CHECK: degrees = array<i64: 1, 1>
// CHECK-SAME: reductions = [#attn<reduction abs_sum>]

func.func @softpick(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
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
      %nm = arith.negf %mx : f32
      %e0 = math.exp %nm : f32
      %x = arith.subf %e, %e0 : f32
      %zero = arith.constant 0.0 : f32
      %w = arith.maximumf %x, %zero : f32
      %z = attn.row_reduce abs_sum %x : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

// -----

// max(rowmax, sink) as the shift: the running maximum starts at the sink.
// CHECK-LABEL: func.func @sink_max
// CHECK: shift {
// CHECK: shift_init {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[SK:.*]]: f32):
// CHECK-NEXT: attn.yield %[[SK]] : f32
// CHECK: elementwise {
// CHECK: finalize {
// CHECK: degrees = array<i64: 1, 1>
func.func @sink_max(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>, %sink: tensor<4xf32>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
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
      %mx = arith.maximumf %mx0, %sk : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z0 = attn.row_reduce sum %w : f32
      %ds = arith.subf %sk, %mx : f32
      %es = math.exp %ds : f32
      %z = arith.addf %z0, %es : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["h"]} : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}
