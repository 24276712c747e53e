// RUN: metaattn-opt %s -split-input-file -attn-mask-analysis | FileCheck %s

// Causal, bottom-right aligned: kv <= q - sq + skv.
// CHECK-LABEL: func.func @causal
// CHECK: attn.attention
// CHECK: mask_bounds = array<i64: 0, 1, -1, 1, 0>
// CHECK-SAME: mask_exact
func.func @causal(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
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
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

// -----

// Sliding window of 128 to the left and causal: two constraints, the second from sgt.
// CHECK-LABEL: func.func @window
// CHECK: mask_bounds = array<i64: 0, 1, 0, 0, 0, 1, 1, 0, 0, -127>
// CHECK-SAME: mask_exact
func.func @window(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c128 = arith.constant 128 : index
      %causal = arith.cmpi sle, %ki, %qi : index
      %lo = arith.subi %qi, %c128 : index
      %inwin = arith.cmpi sgt, %ki, %lo : index
      %m = arith.andi %causal, %inwin : i1
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

// -----

// No mask: no bounds, exact.
// CHECK-LABEL: func.func @full
// CHECK: mask_bounds = array<i64>
// CHECK-SAME: mask_exact
func.func @full(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
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
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

// -----

// A mask that reads a custom input (document ids) keeps the causal bound but is not exact.
// CHECK-LABEL: func.func @documents
// CHECK: mask_bounds = array<i64: 0, 1, 0, 0, 0>
// CHECK-NOT: mask_exact
// CHECK: return
func.func @documents(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>, %doc: tensor<?x?xi32>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%doc : tensor<?x?xi32>)
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %d: i32):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %d: i32):
      %causal = arith.cmpi sle, %ki, %qi : index
      %zero = arith.constant 0 : i32
      %same = arith.cmpi sge, %d, %zero : i32
      %m = arith.andi %causal, %same : i1
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %d: i32):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } {input_dims = ["q,kv"]} : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

// -----

// A negated comparison (xori with true): not (kv > q) is causal, exact.
// CHECK-LABEL: func.func @negated
// CHECK: mask_bounds = array<i64: 0, 1, 0, 0, 0>
// CHECK-SAME: mask_exact
func.func @negated(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %after = arith.cmpi sgt, %ki, %qi : index
      %t = arith.constant true
      %m = arith.xori %t, %after : i1
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

// -----

// De Morgan: not (kv > q and kv >= 32) is kv <= q or kv < 32, a prefix-LM mask: kv <= max(q, 31),
// not exact; and not (kv < q - 64 or kv > q) is a window, both bounds, exact.
// CHECK-LABEL: func.func @demorgan
// CHECK: mask_bounds = array<i64: 0, 1, 0, 0, 0, 2, 0, 0, 0, 31>
// CHECK-NOT: mask_exact
// CHECK-LABEL: func.func @demorgan_window
// CHECK: mask_bounds = array<i64: 1, 1, 0, 0, -64, 0, 1, 0, 0, 0>
// CHECK-SAME: mask_exact
func.func @demorgan(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c32 = arith.constant 32 : index
      %after = arith.cmpi sgt, %ki, %qi : index
      %late = arith.cmpi sge, %ki, %c32 : index
      %hidden = arith.andi %after, %late : i1
      %t = arith.constant true
      %m = arith.xori %hidden, %t : i1
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

func.func @demorgan_window(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c64 = arith.constant 64 : index
      %lo = arith.subi %qi, %c64 : index
      %before = arith.cmpi slt, %ki, %lo : index
      %after = arith.cmpi sgt, %ki, %qi : index
      %outside = arith.ori %before, %after : i1
      %t = arith.constant true
      %m = arith.xori %outside, %t : i1
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}
