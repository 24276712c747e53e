// Masks that are disjunctions (attn-mask-analysis bounds kv by the wider of the two sides),
// through the whole compiler on the CPU tile executor against the reference evaluator, on the
// Hopper (sm_90a) and Ampere (sm_80) lowerings, at lengths around and past several tiles:
// @winglobal: a causal sliding window of 64 or one of the first 16 keys (global tokens),
//   bottom-right aligned, D64, GQA 2:1: kv <= max(q + skv - sq, 15), no lower bound;
// @twobands: two bands, kv in [q - 10, q] or in [q - 200, q - 100], D128 (wgmma), the row
//   statistic (rows past the keys are empty): kv in [min(q - 10, q - 200), max(q, q - 100)];
// @halfopen: kv <= q or kv >= sq - 8 (the last keys seen by every row): kv has an upper bound
//   on one side only, so none (the loop runs over every kv tile);
// @negprefix: not (kv > q + skv - sq and kv >= 40), a prefix-LM mask written through a negation,
//   D128 GQA 2:1: kv <= max(q + skv - sq, 39), ping-pong by default;
// @docglobal: a causal document mask or one of the first 8 keys, D128 GQA 2:1, the row
//   statistic: the kept-tile walk within kv <= max(q + skv - sq, 7).
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=2 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=1 --seq-q=300 --seq-kv=400 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=1 --seq-q=400 --seq-kv=300 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=1 --seq-q=1 --seq-kv=1 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_80 --batch=2 --seq-q=257 --seq-kv=193 | FileCheck %s
// RUN: metaattn-opt %s -attn-mask-analysis | FileCheck %s --check-prefix=BOUNDS
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile | FileCheck %s --check-prefix=RANGE
// RUN: metaattn-opt %s --metaattn-lower | FileCheck %s --check-prefix=TURNS
// CHECK-NOT: FAIL
// CHECK: PASS winglobal
// CHECK-NOT: FAIL
// CHECK: PASS twobands
// CHECK-NOT: FAIL
// CHECK: PASS halfopen
// CHECK-NOT: FAIL
// CHECK: PASS negprefix
// CHECK-NOT: FAIL
// CHECK: PASS docglobal
// BOUNDS-LABEL: func.func @winglobal
// BOUNDS: mask_bounds = array<i64: 0, 1, -1, 1, 0, 2, 0, 0, 0, 15>
// BOUNDS-NOT: mask_exact
// BOUNDS-LABEL: func.func @twobands
// BOUNDS: mask_bounds = array<i64: 0, 1, 0, 0, 0, 2, 1, 0, 0, -100, 1, 1, 0, 0, -10, 3, 1, 0, 0, -200>
// BOUNDS-LABEL: func.func @halfopen
// BOUNDS: mask_bounds = array<i64>
// BOUNDS-LABEL: func.func @negprefix
// BOUNDS: mask_bounds = array<i64: 0, 1, -1, 1, 0, 2, 0, 0, 0, 39>
// BOUNDS-LABEL: func.func @docglobal
// BOUNDS: mask_bounds = array<i64: 0, 1, -1, 1, 0, 2, 0, 0, 0, 7>
// The kv loop of @winglobal ends at the last tile holding key max(q_last + skv - sq, 15).
// RANGE-LABEL: tile.kernel @winglobal
// RANGE: %[[C15:.*]] = arith.constant 15 : index
// RANGE-NEXT: %[[WIDEST:.*]] = arith.maxsi %{{.*}}, %[[C15]] : index
// RANGE-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// RANGE-NEXT: %[[END:.*]] = arith.addi %[[WIDEST]], %[[ONE]] : index
// RANGE-NEXT: %[[KVEND:.*]] = arith.minsi %{{.*}}, %[[END]] : index
// RANGE: arith.ceildivsi %[[KVEND]]
// TURNS-LABEL: tile.kernel @negprefix(
// TURNS-SAME: tile.pingpong
// TURNS: tile.warpgroup_turn "start"

func.func @winglobal(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v score {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %c = arith.constant 0.125 : f32
    %0 = arith.mulf %s, %c : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %off = arith.subi %skv, %sq : index
    %diag = arith.addi %qi, %off : index
    %causal = arith.cmpi sle, %ki, %diag : index
    %w = arith.constant 64 : index
    %dist = arith.subi %diag, %ki : index
    %near = arith.cmpi slt, %dist, %w : index
    %window = arith.andi %causal, %near : i1
    %g = arith.constant 16 : index
    %global = arith.cmpi slt, %ki, %g : index
    %m = arith.ori %window, %global : i1
    attn.yield %m : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %0 = attn.row_reduce max %s : f32
    %1 = arith.subf %s, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

func.func @twobands(%q: tensor<?x?x2x128xbf16>, %k: tensor<?x?x2x128xbf16>, %v: tensor<?x?x2x128xbf16>) -> (tensor<?x?x2x128xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v score {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %c = arith.constant 0.0883883461 : f32
    %0 = arith.mulf %s, %c : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %c10 = arith.constant 10 : index
    %c100 = arith.constant 100 : index
    %c200 = arith.constant 200 : index
    %up1 = arith.cmpi sle, %ki, %qi : index
    %lo1v = arith.subi %qi, %c10 : index
    %lo1 = arith.cmpi sge, %ki, %lo1v : index
    %near = arith.andi %up1, %lo1 : i1
    %up2v = arith.subi %qi, %c100 : index
    %up2 = arith.cmpi sle, %ki, %up2v : index
    %lo2v = arith.subi %qi, %c200 : index
    %lo2 = arith.cmpi sge, %ki, %lo2v : index
    %far = arith.andi %up2, %lo2 : i1
    %m = arith.ori %near, %far : i1
    attn.yield %m : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %0 = attn.row_reduce max %s : f32
    %1 = arith.subf %s, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } : tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16> -> tensor<?x?x2x128xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x128xbf16>, tensor<?x2x?xf32>
}

func.func @halfopen(%q: tensor<?x?x2x32xbf16>, %k: tensor<?x?x2x32xbf16>, %v: tensor<?x?x2x32xbf16>) -> tensor<?x?x2x32xbf16> {
  %o = attn.attention %q, %k, %v score {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %c = arith.constant 0.17677669 : f32
    %0 = arith.mulf %s, %c : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %causal = arith.cmpi sle, %ki, %qi : index
    %c8 = arith.constant 8 : index
    %tail = arith.subi %sq, %c8 : index
    %last = arith.cmpi sge, %ki, %tail : index
    %m = arith.ori %causal, %last : i1
    attn.yield %m : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %0 = attn.row_reduce max %s : f32
    %1 = arith.subf %s, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xbf16>
  return %o : tensor<?x?x2x32xbf16>
}

func.func @negprefix(%q: tensor<?x?x4x128xbf16>, %k: tensor<?x?x2x128xbf16>, %v: tensor<?x?x2x128xbf16>) -> tensor<?x?x4x128xbf16> {
  %o = attn.attention %q, %k, %v score {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %c = arith.constant 0.0883883461 : f32
    %0 = arith.mulf %s, %c : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %off = arith.subi %skv, %sq : index
    %diag = arith.addi %qi, %off : index
    %after = arith.cmpi sgt, %ki, %diag : index
    %c40 = arith.constant 40 : index
    %late = arith.cmpi sge, %ki, %c40 : index
    %hidden = arith.andi %after, %late : i1
    %t = arith.constant true
    %m = arith.xori %hidden, %t : i1
    attn.yield %m : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %0 = attn.row_reduce max %s : f32
    %1 = arith.subf %s, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } : tensor<?x?x4x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16> -> tensor<?x?x4x128xbf16>
  return %o : tensor<?x?x4x128xbf16>
}

func.func @docglobal(%q: tensor<?x?x4x128xbf16>, %k: tensor<?x?x2x128xbf16>, %v: tensor<?x?x2x128xbf16>, %dq: tensor<?x?xi32>, %dk: tensor<?x?xi32>) -> (tensor<?x?x4x128xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v inputs(%dq, %dk : tensor<?x?xi32>, tensor<?x?xi32>) score {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
    %cst = arith.constant 0.0883883461 : f32
    %0 = arith.mulf %s, %cst : f32
    attn.yield %0 : f32
  } mask {
  ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
    %0 = arith.index_cast %a : i32 to index
    %1 = arith.index_cast %c : i32 to index
    %same = arith.cmpi eq, %0, %1 : index
    %3 = arith.subi %skv, %sq : index
    %4 = arith.addi %qi, %3 : index
    %causal = arith.cmpi sle, %ki, %4 : index
    %doc = arith.andi %same, %causal : i1
    %g = arith.constant 8 : index
    %global = arith.cmpi slt, %ki, %g : index
    %m = arith.ori %doc, %global : i1
    attn.yield %m : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32):
    %0 = attn.row_reduce max %s : f32
    %1 = arith.subf %s, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } {input_dims = ["b,q", "b,kv"]} : tensor<?x?x4x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16> -> tensor<?x?x4x128xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x128xbf16>, tensor<?x4x?xf32>
}
