// Masks and scores combined in ways no library variant has, through the whole compiler on the
// CPU tile executor against the reference evaluator, on the Hopper (sm_90a) and the Ampere
// (sm_80) lowerings, at lengths around a tile and more queries than keys:
// @combo: causal + sliding window (37) + document mask, a softcap score plus a per-head ALiBi
//   slope input, D72 (padded to 128 on wgmma) with Dv40, GQA 3:1;
// @sigwin: sigmoid with a per-head bias under causal + sliding window (50), D100 (200-byte rows:
//   no TMA, the cp.async path);
// @alibidocwin: causal + sliding window (150) + document mask, an ALiBi slope input, D96
//   (padded to 128), GQA 2:1, the row statistic: the tile model gives it the ping-pong schedule.
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=2 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=1 --seq-q=129 --seq-kv=257 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=1 --seq-q=1 --seq-kv=200 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_80 --batch=2 --seq-q=193 --seq-kv=193 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=1 --seq-q=300 --seq-kv=400 --documents=3 | FileCheck %s
// RUN: metaattn-opt %s --metaattn-lower | FileCheck %s --check-prefix=TURNS
// CHECK-NOT: FAIL
// CHECK: PASS combo
// CHECK-NOT: FAIL
// CHECK: PASS sigwin
// CHECK-NOT: FAIL
// CHECK: PASS alibidocwin
// TURNS-LABEL: tile.kernel @sigwin(
// TURNS-NOT: tile.warpgroup_turn
// TURNS-LABEL: tile.kernel @alibidocwin_step1(
// TURNS-SAME: tile.pingpong
// TURNS: tile.warpgroup_turn "start"

func.func @combo(%q: tensor<?x?x6x72xbf16>, %k: tensor<?x?x2x72xbf16>, %v: tensor<?x?x2x40xbf16>, %dq: tensor<?x?xi32>, %dk: tensor<?x?xi32>, %slope: tensor<6xf32>) -> (tensor<?x?x6x40xbf16>, tensor<?x6x?xf32>) {
  %o, %l = attn.attention %q, %k, %v inputs(%dq, %dk, %slope : tensor<?x?xi32>, tensor<?x?xi32>, tensor<6xf32>) score {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32, %m: f32):
    %cst = arith.constant 0.117851130 : f32
    %0 = arith.mulf %s, %cst : f32
    %cap = arith.constant 20.0 : f32
    %1 = arith.divf %0, %cap : f32
    %2 = math.tanh %1 : f32
    %3 = arith.mulf %2, %cap : f32
    %qq = arith.index_cast %qi : index to i64
    %kk = arith.index_cast %ki : index to i64
    %d = arith.subi %kk, %qq : i64
    %df = arith.sitofp %d : i64 to f32
    %bias = arith.mulf %df, %m : f32
    %4 = arith.addf %3, %bias : f32
    attn.yield %4 : f32
  } mask {
  ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32, %m: f32):
    %0 = arith.index_cast %a : i32 to index
    %1 = arith.index_cast %c : i32 to index
    %2 = arith.cmpi eq, %0, %1 : index
    %3 = arith.subi %skv, %sq : index
    %4 = arith.addi %qi, %3 : index
    %5 = arith.cmpi sle, %ki, %4 : index
    %w = arith.constant 37 : index
    %6 = arith.subi %4, %ki : index
    %7 = arith.cmpi slt, %6, %w : index
    %8 = arith.andi %2, %5 : i1
    %9 = arith.andi %8, %7 : i1
    attn.yield %9 : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32, %m: f32):
    %0 = attn.row_reduce max %s : f32
    %1 = arith.subf %s, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } {input_dims = ["b,q", "b,kv", "h"]} : tensor<?x?x6x72xbf16>, tensor<?x?x2x72xbf16>, tensor<?x?x2x40xbf16> -> tensor<?x?x6x40xbf16>, tensor<?x6x?xf32>
  return %o, %l : tensor<?x?x6x40xbf16>, tensor<?x6x?xf32>
}

func.func @sigwin(%q: tensor<?x?x3x100xbf16>, %k: tensor<?x?x3x100xbf16>, %v: tensor<?x?x3x100xbf16>, %bias: tensor<3xf32>) -> (tensor<?x?x3x100xbf16>, tensor<?x3x?xf32>) {
  %o, %l = attn.attention %q, %k, %v inputs(%bias : tensor<3xf32>) score {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %x: f32):
    %c = arith.constant 0.1 : f32
    %r = arith.mulf %s, %c : f32
    %u = arith.addf %r, %x : f32
    %ng = arith.negf %u : f32
    %e = math.exp %ng : f32
    %one = arith.constant 1.0 : f32
    %den = arith.addf %one, %e : f32
    %sg = arith.divf %one, %den : f32
    attn.yield %sg : f32
  } mask {
  ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %x: f32):
    %off = arith.subi %skv, %sq : index
    %lim = arith.addi %qi, %off : index
    %m = arith.cmpi sle, %ki, %lim : index
    %w = arith.constant 50 : index
    %d = arith.subi %lim, %ki : index
    %n = arith.cmpi slt, %d, %w : index
    %mm = arith.andi %m, %n : i1
    attn.yield %mm : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %x: f32):
    %one = arith.constant 1.0 : f32
    attn.normalize %s, %one : f32, f32
  } {input_dims = ["h"]} : tensor<?x?x3x100xbf16>, tensor<?x?x3x100xbf16>, tensor<?x?x3x100xbf16> -> tensor<?x?x3x100xbf16>, tensor<?x3x?xf32>
  return %o, %l : tensor<?x?x3x100xbf16>, tensor<?x3x?xf32>
}

func.func @alibidocwin(%q: tensor<?x?x4x96xbf16>, %k: tensor<?x?x2x96xbf16>, %v: tensor<?x?x2x96xbf16>, %dq: tensor<?x?xi32>, %dk: tensor<?x?xi32>, %slope: tensor<4xf32>) -> (tensor<?x?x4x96xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v inputs(%dq, %dk, %slope : tensor<?x?xi32>, tensor<?x?xi32>, tensor<4xf32>) score {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32, %m: f32):
    %cst = arith.constant 0.102062076 : f32
    %0 = arith.mulf %s, %cst : f32
    %qq = arith.index_cast %qi : index to i64
    %kk = arith.index_cast %ki : index to i64
    %d = arith.subi %kk, %qq : i64
    %df = arith.sitofp %d : i64 to f32
    %bias = arith.mulf %df, %m : f32
    %1 = arith.addf %0, %bias : f32
    attn.yield %1 : f32
  } mask {
  ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32, %m: f32):
    %0 = arith.index_cast %a : i32 to index
    %1 = arith.index_cast %c : i32 to index
    %2 = arith.cmpi eq, %0, %1 : index
    %3 = arith.subi %skv, %sq : index
    %4 = arith.addi %qi, %3 : index
    %5 = arith.cmpi sle, %ki, %4 : index
    %w = arith.constant 150 : index
    %6 = arith.subi %4, %ki : index
    %7 = arith.cmpi slt, %6, %w : index
    %8 = arith.andi %2, %5 : i1
    %9 = arith.andi %8, %7 : i1
    attn.yield %9 : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %a: i32, %c: i32, %m: f32):
    %0 = attn.row_reduce max %s : f32
    %1 = arith.subf %s, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } {input_dims = ["b,q", "b,kv", "h"]} : tensor<?x?x4x96xbf16>, tensor<?x?x2x96xbf16>, tensor<?x?x2x96xbf16> -> tensor<?x?x4x96xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x96xbf16>, tensor<?x4x?xf32>
}
