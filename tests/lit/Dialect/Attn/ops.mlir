// RUN: metaattn-opt %s | metaattn-opt | FileCheck %s --allow-unused-prefixes=false
// RUN: metaattn-opt %s --mlir-print-op-generic | metaattn-opt | FileCheck %s --allow-unused-prefixes=false

// Round trips of every attn op, in the custom form and through the generic form.

// CHECK-LABEL: func.func @causal_gqa_lse
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x8x64xbf16>, %[[K:.*]]: tensor<?x?x2x64xbf16>, %[[V:.*]]: tensor<?x?x2x64xbf16>)
// CHECK: %[[O:.*]], %[[LSE:.*]] = attn.attention %[[Q]], %[[K]], %[[V]] score {
// CHECK: ^bb0(%[[S:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK: %[[C:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: %[[R:.*]] = arith.mulf %[[S]], %[[C]] : f32
// CHECK: attn.yield %[[R]] : f32
// CHECK: } mask {
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[QI:.*]]: index, %[[KI:.*]]: index, %[[SQ:.*]]: index, %[[SKV:.*]]: index):
// CHECK: %[[OFF:.*]] = arith.subi %[[SKV]], %[[SQ]] : index
// CHECK: %[[LIM:.*]] = arith.addi %[[QI]], %[[OFF]] : index
// CHECK: %[[M:.*]] = arith.cmpi sle, %[[KI]], %[[LIM]] : index
// CHECK: attn.yield %[[M]] : i1
// CHECK: } normalizer {
// CHECK: ^bb0(%[[NS:[^:]*]]: f32,
// CHECK: %[[MX:.*]] = attn.row_reduce max %[[NS]] : f32
// CHECK: %[[D:.*]] = arith.subf %[[NS]], %[[MX]] : f32
// CHECK: %[[W:.*]] = math.exp %[[D]] : f32
// CHECK: %[[Z:.*]] = attn.row_reduce sum %[[W]] : f32
// CHECK: attn.normalize %[[W]], %[[Z]] : f32, f32
// CHECK: } : tensor<?x?x8x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>
// CHECK: return %[[O]], %[[LSE]]
func.func @causal_gqa_lse(%q: tensor<?x?x8x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> (tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x8x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>
}

// Custom inputs (a full bias over b,h,q,kv and an ALiBi slope per head), D != Dv, static
// sizes, identity normaliser with abs_sum, mask bounds set by mask analysis.

// CHECK-LABEL: func.func @custom_inputs
// CHECK-SAME: (%[[Q:.*]]: tensor<2x16x4x32xf16>, %[[K:.*]]: tensor<2x24x4x32xf16>, %[[V:.*]]: tensor<2x24x4x48xf16>, %[[BIAS:.*]]: tensor<2x4x16x24xf32>, %[[SLOPE:.*]]: tensor<4xf32>)
// CHECK: %[[O:.*]] = attn.attention %[[Q]], %[[K]], %[[V]] inputs(%[[BIAS]], %[[SLOPE]] : tensor<2x4x16x24xf32>, tensor<4xf32>) score {
// CHECK: ^bb0(%[[S:[^:]*]]: f32, %{{.*}}: index, %{{.*}}: index, %[[QI:[^:]*]]: index, %[[KI:[^:]*]]: index, %{{.*}}: index, %{{.*}}: index, %[[B:[^:]*]]: f32, %[[SL:[^:]*]]: f32):
// CHECK: %[[DIST:.*]] = arith.subi %[[KI]], %[[QI]] : index
// CHECK: %[[DI:.*]] = arith.index_cast %[[DIST]] : index to i64
// CHECK: %[[DF:.*]] = arith.sitofp %[[DI]] : i64 to f32
// CHECK: %[[AL:.*]] = arith.mulf %[[SL]], %[[DF]] : f32
// CHECK: %[[T:.*]] = arith.addf %[[S]], %[[B]] : f32
// CHECK: %[[R:.*]] = arith.addf %[[T]], %[[AL]] : f32
// CHECK: attn.yield %[[R]] : f32
// CHECK: } mask {
// CHECK: ^bb0({{.*}}, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: attn.yield %[[TRUE]] : i1
// CHECK: } normalizer {
// CHECK: %[[A:.*]] = attn.row_reduce abs_sum %{{.*}} : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[DEN:.*]] = arith.maximumf %[[A]], %[[ONE]] : f32
// CHECK: attn.normalize %{{.*}}, %[[DEN]] : f32, f32
// CHECK: } {input_dims = ["b,h,q,kv", "h"], mask_bounds = array<i64: 0, 1, 0, 0, 0>, mask_exact} : tensor<2x16x4x32xf16>, tensor<2x24x4x32xf16>, tensor<2x24x4x48xf16> -> tensor<2x16x4x48xf16>
// CHECK: return %[[O]]
func.func @custom_inputs(%q: tensor<2x16x4x32xf16>, %k: tensor<2x24x4x32xf16>, %v: tensor<2x24x4x48xf16>, %bias: tensor<2x4x16x24xf32>, %slope: tensor<4xf32>) -> tensor<2x16x4x48xf16> {
  %o = attn.attention %q, %k, %v inputs(%bias, %slope : tensor<2x4x16x24xf32>, tensor<4xf32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %bv: f32, %sl: f32):
      %dist = arith.subi %ki, %qi : index
      %di = arith.index_cast %dist : index to i64
      %df = arith.sitofp %di : i64 to f32
      %al = arith.mulf %sl, %df : f32
      %t = arith.addf %s, %bv : f32
      %r = arith.addf %t, %al : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %bv: f32, %sl: f32):
      %true = arith.constant true
      attn.yield %true : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %bv: f32, %sl: f32):
      %a = attn.row_reduce abs_sum %s : f32
      %one = arith.constant 1.0 : f32
      %den = arith.maximumf %a, %one : f32
      attn.normalize %s, %den : f32, f32
    } {input_dims = ["b,h,q,kv", "h"], mask_bounds = array<i64: 0, 1, 0, 0, 0>, mask_exact}
    : tensor<2x16x4x32xf16>, tensor<2x24x4x32xf16>, tensor<2x24x4x48xf16> -> tensor<2x16x4x48xf16>
  return %o : tensor<2x16x4x48xf16>
}

// A block-sparse map indexed by block indices (q/64, kv/128), static sizes ceil(77/64) = 2
// and ceil(300/128) = 3.

// CHECK-LABEL: func.func @block_index_input
// CHECK: } {input_dims = ["b,h,q/64,kv/128"]} : tensor<2x77x4x32xbf16>
func.func @block_index_input(%q: tensor<2x77x4x32xbf16>, %k: tensor<2x300x4x32xbf16>, %v: tensor<2x300x4x32xbf16>, %blocks: tensor<2x4x2x3xi32>) -> tensor<2x77x4x32xbf16> {
  %o = attn.attention %q, %k, %v inputs(%blocks : tensor<2x4x2x3xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %zero = arith.constant 0 : i32
      %keep = arith.cmpi ne, %m, %zero : i32
      attn.yield %keep : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %m: i32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["b,h,q/64,kv/128"]}
    : tensor<2x77x4x32xbf16>, tensor<2x300x4x32xbf16>, tensor<2x300x4x32xbf16> -> tensor<2x77x4x32xbf16>
  return %o : tensor<2x77x4x32xbf16>
}

// Two attention outputs combined element-wise (differential attention: x0 - lambda_h * x1).

// CHECK-LABEL: func.func @combine
// CHECK-SAME: (%[[X0:.*]]: tensor<?x?x4x32xf32>, %[[X1:.*]]: tensor<?x?x4x32xf32>, %[[L:.*]]: tensor<4xf32>)
// CHECK: %[[O:.*]] = attn.combine %[[X0]], %[[X1]] inputs(%[[L]] : tensor<4xf32>) {
// CHECK: ^bb0(%[[A:.*]]: f32, %[[C:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[LV:.*]]: f32):
// CHECK: %[[T:.*]] = arith.mulf %[[LV]], %[[C]] : f32
// CHECK: %[[R:.*]] = arith.subf %[[A]], %[[T]] : f32
// CHECK: attn.yield %[[R]] : f32
// CHECK: } {input_dims = ["h"]} : tensor<?x?x4x32xf32>, tensor<?x?x4x32xf32> -> tensor<?x?x4x32xbf16>
// CHECK: return %[[O]]
func.func @combine(%x0: tensor<?x?x4x32xf32>, %x1: tensor<?x?x4x32xf32>, %lambda: tensor<4xf32>) -> tensor<?x?x4x32xbf16> {
  %o = attn.combine %x0, %x1 inputs(%lambda : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32, %b: index, %h: index, %q: index, %d: index, %l: f32):
    %t = arith.mulf %l, %c : f32
    %r = arith.subf %a, %t : f32
    attn.yield %r : f32
  } {input_dims = ["h"]} : tensor<?x?x4x32xf32>, tensor<?x?x4x32xf32> -> tensor<?x?x4x32xbf16>
  return %o : tensor<?x?x4x32xbf16>
}

// An attention whose output is f32 (an intermediate at full precision) with bf16 q, k, v.

// CHECK-LABEL: func.func @f32_output
// CHECK: attn.attention
// CHECK: : tensor<?x?x4x32xbf16>, tensor<?x?x4x32xbf16>, tensor<?x?x4x32xbf16> -> tensor<?x?x4x32xf32>
func.func @f32_output(%q: tensor<?x?x4x32xbf16>, %k: tensor<?x?x4x32xbf16>, %v: tensor<?x?x4x32xbf16>) -> tensor<?x?x4x32xf32> {
  %o = attn.attention %q, %k, %v
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
    } : tensor<?x?x4x32xbf16>, tensor<?x?x4x32xbf16>, tensor<?x?x4x32xbf16> -> tensor<?x?x4x32xf32>
  return %o : tensor<?x?x4x32xf32>
}

// The streaming form of softmax: a shift region, one sum accumulator of degree 1.

// CHECK-LABEL: func.func @online_softmax
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x8x64xf32>, %[[K:.*]]: tensor<?x?x8x64xf32>, %[[V:.*]]: tensor<?x?x8x64xf32>)
// CHECK: %[[O:.*]], %[[LSE:.*]] = attn.online_attention %[[Q]], %[[K]], %[[V]] score {
// CHECK: attn.yield %{{.*}} : f32
// CHECK: } mask {
// CHECK: attn.yield %{{.*}} : i1
// CHECK: } shift {
// CHECK: ^bb0(%[[SS:[^:]*]]: f32,
// CHECK: attn.yield %[[SS]] : f32
// CHECK: } elementwise {
// CHECK: ^bb0(%[[ES:[^:]*]]: f32, %[[EM:[^:]*]]: f32,
// CHECK: %[[ED:.*]] = arith.subf %[[ES]], %[[EM]] : f32
// CHECK: %[[EW:.*]] = math.exp %[[ED]] : f32
// CHECK: attn.yield %[[EW]], %[[EW]] : f32, f32
// CHECK: } finalize {
// CHECK: ^bb0(%[[FZ:[^:]*]]: f32, %[[FM:[^:]*]]: f32,
// CHECK: %[[FL:.*]] = math.log %[[FZ]] : f32
// CHECK: %[[FLSE:.*]] = arith.addf %[[FM]], %[[FL]] : f32
// CHECK: attn.yield %[[FZ]], %[[FLSE]] : f32, f32
// CHECK: } {degrees = array<i64: 1, 1>, reductions = [#attn<reduction sum>]} : tensor<?x?x8x64xf32>, tensor<?x?x8x64xf32>, tensor<?x?x8x64xf32> -> tensor<?x?x8x64xf32>, tensor<?x8x?xf32>
// CHECK: return %[[O]], %[[LSE]]
func.func @online_softmax(%q: tensor<?x?x8x64xf32>, %k: tensor<?x?x8x64xf32>, %v: tensor<?x?x8x64xf32>) -> (tensor<?x?x8x64xf32>, tensor<?x8x?xf32>) {
  %o, %lse = attn.online_attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %true = arith.constant true
      attn.yield %true : i1
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
      %l = math.log %z : f32
      %lse = arith.addf %m, %l : f32
      attn.yield %z, %lse : f32, f32
    } {reductions = [#attn<reduction sum>], degrees = array<i64: 1, 1>}
    : tensor<?x?x8x64xf32>, tensor<?x?x8x64xf32>, tensor<?x?x8x64xf32> -> tensor<?x?x8x64xf32>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x?x8x64xf32>, tensor<?x8x?xf32>
}

// The streaming form without a shift (identity normaliser): no accumulators, degree 0, a
// per-head custom input, and no row statistic.

// CHECK-LABEL: func.func @online_identity
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x4x32xbf16>, %[[K:.*]]: tensor<?x?x4x32xbf16>, %[[V:.*]]: tensor<?x?x4x32xbf16>, %[[G:.*]]: tensor<4xf32>)
// CHECK: %[[O:.*]] = attn.online_attention %[[Q]], %[[K]], %[[V]] inputs(%[[G]] : tensor<4xf32>) score {
// CHECK: } mask {
// CHECK-NOT: shift
// CHECK: } elementwise {
// CHECK: ^bb0(%[[ES:[^:]*]]: f32, %{{[^:]*}}: f32,
// CHECK: %[[SIG:.*]] = math.tanh %[[ES]] : f32
// CHECK: attn.yield %[[SIG]] : f32
// CHECK: } finalize {
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: attn.yield %[[ONE]], %[[ZERO]] : f32, f32
// CHECK: } {degrees = array<i64: 0>, input_dims = ["h"]} : tensor<?x?x4x32xbf16>, tensor<?x?x4x32xbf16>, tensor<?x?x4x32xbf16> -> tensor<?x?x4x32xbf16>
// CHECK: return %[[O]]
func.func @online_identity(%q: tensor<?x?x4x32xbf16>, %k: tensor<?x?x4x32xbf16>, %v: tensor<?x?x4x32xbf16>, %g: tensor<4xf32>) -> tensor<?x?x4x32xbf16> {
  %o = attn.online_attention %q, %k, %v inputs(%g : tensor<4xf32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %gv: f32):
      %r = arith.mulf %s, %gv : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %gv: f32):
      %m = arith.cmpi ule, %ki, %qi : index
      attn.yield %m : i1
    } elementwise {
    ^bb0(%s: f32, %m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %gv: f32):
      %t = math.tanh %s : f32
      attn.yield %t : f32
    } finalize {
    ^bb0(%m: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %gv: f32):
      %one = arith.constant 1.0 : f32
      %zero = arith.constant 0.0 : f32
      attn.yield %one, %zero : f32, f32
    } {input_dims = ["h"], degrees = array<i64: 0>}
    : tensor<?x?x4x32xbf16>, tensor<?x?x4x32xbf16>, tensor<?x?x4x32xbf16> -> tensor<?x?x4x32xbf16>
  return %o : tensor<?x?x4x32xbf16>
}

// Recurrent attention without a gate, no state, no modifiers.

// CHECK-LABEL: func.func @recurrent_none
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x4x64xbf16>, %[[K:.*]]: tensor<?x?x4x64xbf16>, %[[V:.*]]: tensor<?x?x4x128xbf16>)
// CHECK: %[[O:.*]] = attn.recurrent %[[Q]], %[[K]], %[[V]] {gate_kind = #attn<gate none>} : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
// CHECK: return %[[O]]
func.func @recurrent_none(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
  return %o : tensor<?x?x4x128xbf16>
}

// RetNet: a constant decay per head, initial and final state.

// CHECK-LABEL: func.func @recurrent_head
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x8x64xf16>, %[[K:.*]]: tensor<?x?x8x64xf16>, %[[V:.*]]: tensor<?x?x8x64xf16>, %[[G:.*]]: tensor<8xf32>, %[[H0:.*]]: tensor<?x8x64x64xf32>)
// CHECK: %[[O:.*]], %[[HN:.*]] = attn.recurrent %[[Q]], %[[K]], %[[V]] gate(%[[G]] : tensor<8xf32>) initial_state(%[[H0]] : tensor<?x8x64x64xf32>) {gate_kind = #attn<gate head>} : tensor<?x?x8x64xf16>, tensor<?x?x8x64xf16>, tensor<?x?x8x64xf16> -> tensor<?x?x8x64xf16>, tensor<?x8x64x64xf32>
// CHECK: return %[[O]], %[[HN]]
func.func @recurrent_head(%q: tensor<?x?x8x64xf16>, %k: tensor<?x?x8x64xf16>, %v: tensor<?x?x8x64xf16>, %g: tensor<8xf32>, %h0: tensor<?x8x64x64xf32>) -> (tensor<?x?x8x64xf16>, tensor<?x8x64x64xf32>) {
  %o, %hn = attn.recurrent %q, %k, %v gate(%g : tensor<8xf32>) initial_state(%h0 : tensor<?x8x64x64xf32>)
    {gate_kind = #attn<gate head>}
    : tensor<?x?x8x64xf16>, tensor<?x?x8x64xf16>, tensor<?x?x8x64xf16> -> tensor<?x?x8x64xf16>, tensor<?x8x64x64xf32>
  return %o, %hn : tensor<?x?x8x64xf16>, tensor<?x8x64x64xf32>
}

// Mamba2: a scalar gate per token, q/k shared by groups of heads, `v * dt` and `A * dt`
// modifiers reading custom inputs dt (b,t,h) and A (h).

// CHECK-LABEL: func.func @recurrent_token
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x1x64xbf16>, %[[K:.*]]: tensor<?x?x1x64xbf16>, %[[V:.*]]: tensor<?x?x8x64xbf16>, %[[G:.*]]: tensor<?x?x8xf32>, %[[DT:.*]]: tensor<?x?x8xf32>, %[[A:.*]]: tensor<8xf32>)
// CHECK: %[[O:.*]] = attn.recurrent %[[Q]], %[[K]], %[[V]] gate(%[[G]] : tensor<?x?x8xf32>) inputs(%[[DT]], %[[A]] : tensor<?x?x8xf32>, tensor<8xf32>) v_mod {
// CHECK: ^bb0(%[[X:[^:]*]]: f32, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: index, %[[DTV:[^:]*]]: f32, %{{[^:]*}}: f32):
// CHECK: %[[XV:.*]] = arith.mulf %[[X]], %[[DTV]] : f32
// CHECK: attn.yield %[[XV]] : f32
// CHECK: } gate_mod {
// CHECK: ^bb0(%[[GX:[^:]*]]: f32, {{.*}}, %[[GDT:[^:]*]]: f32, %[[GA:[^:]*]]: f32):
// CHECK: %[[GM:.*]] = arith.mulf %[[GA]], %[[GDT]] : f32
// CHECK: attn.yield %[[GM]] : f32
// CHECK: } {gate_kind = #attn<gate token>, input_dims = ["b,t,h", "h"]}
// CHECK: return %[[O]]
func.func @recurrent_token(%q: tensor<?x?x1x64xbf16>, %k: tensor<?x?x1x64xbf16>, %v: tensor<?x?x8x64xbf16>, %g: tensor<?x?x8xf32>, %dt: tensor<?x?x8xf32>, %a: tensor<8xf32>) -> tensor<?x?x8x64xbf16> {
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x8xf32>) inputs(%dt, %a : tensor<?x?x8xf32>, tensor<8xf32>)
    v_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index, %dtv: f32, %av: f32):
      %r = arith.mulf %x, %dtv : f32
      attn.yield %r : f32
    } gate_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index, %dtv: f32, %av: f32):
      %r = arith.mulf %av, %dtv : f32
      attn.yield %r : f32
    } {gate_kind = #attn<gate token>, input_dims = ["b,t,h", "h"]}
    : tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16>, tensor<?x?x8x64xbf16> -> tensor<?x?x8x64xbf16>
  return %o : tensor<?x?x8x64xbf16>
}

// GLA: a vector gate over the key dim, q and k modifiers, initial and final state.

// CHECK-LABEL: func.func @recurrent_vector
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x4x64xf32>, %[[K:.*]]: tensor<?x?x4x64xf32>, %[[V:.*]]: tensor<?x?x4x32xf32>, %[[G:.*]]: tensor<?x?x4x64xf32>, %[[H0:.*]]: tensor<?x4x64x32xf32>)
// CHECK: %[[O:.*]], %[[HN:.*]] = attn.recurrent %[[Q]], %[[K]], %[[V]] gate(%[[G]] : tensor<?x?x4x64xf32>) initial_state(%[[H0]] : tensor<?x4x64x32xf32>) q_mod {
// CHECK: ^bb0(%[[QX:[^:]*]]: f32,
// CHECK: %[[QS:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: %[[QR:.*]] = arith.mulf %[[QX]], %[[QS]] : f32
// CHECK: attn.yield %[[QR]] : f32
// CHECK: } k_mod {
// CHECK: ^bb0(%[[KX:[^:]*]]: f32,
// CHECK: %[[KR:.*]] = math.exp %[[KX]] : f32
// CHECK: attn.yield %[[KR]] : f32
// CHECK: } {gate_kind = #attn<gate vector>} : tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>, tensor<?x?x4x32xf32> -> tensor<?x?x4x32xf32>, tensor<?x4x64x32xf32>
// CHECK: return %[[O]], %[[HN]]
func.func @recurrent_vector(%q: tensor<?x?x4x64xf32>, %k: tensor<?x?x4x64xf32>, %v: tensor<?x?x4x32xf32>, %g: tensor<?x?x4x64xf32>, %h0: tensor<?x4x64x32xf32>) -> (tensor<?x?x4x32xf32>, tensor<?x4x64x32xf32>) {
  %o, %hn = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x4x64xf32>) initial_state(%h0 : tensor<?x4x64x32xf32>)
    q_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %x, %c : f32
      attn.yield %r : f32
    } k_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index):
      %r = math.exp %x : f32
      attn.yield %r : f32
    } {gate_kind = #attn<gate vector>}
    : tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>, tensor<?x?x4x32xf32> -> tensor<?x?x4x32xf32>, tensor<?x4x64x32xf32>
  return %o, %hn : tensor<?x?x4x32xf32>, tensor<?x4x64x32xf32>
}
