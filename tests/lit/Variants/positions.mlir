// Scores that use positions as numbers, without a softmax that would forgive a position off by
// a constant: each runs through the whole compiler on the CPU tile executor, checked against
// the reference evaluator, with and without tile-split-index-casts (which converts a position's
// block-wide and per-element parts to float separately); lengths just past a tile, one, and
// Sq != Skv both ways.
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=1 --seq-kv=1 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=200 --seq-kv=333 | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=65 --seq-kv=129 --split-index-casts=false | FileCheck %s
// RUN: metaattn-opt %s --metaattn-lower | FileCheck %s --check-prefix=LOWER
// RUN: metaattn-opt %s --metaattn-lower="split-index-casts=0" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=CUDA

// CHECK-NOT: FAIL
// CHECK: PASS sigmoid_alibi
// CHECK: PASS skewed
// CHECK: PASS clamped
// CHECK-NOT: FAIL

// LOWER-LABEL: tile.kernel @sigmoid_alibi
// LOWER: tile.index_parts
// LOWER-LABEL: tile.kernel @skewed
// LOWER: tile.index_parts
// LOWER-LABEL: tile.kernel @clamped
// LOWER: tile.index_parts
// LOWER: arith.maximumf
// LOWER: arith.minimumf
// OFF-NOT: tile.index_parts
// CUDA: ::rowThread();  // tile.index_parts
// CUDA: ::colConst(

// Sigmoid attention with ALiBi's bias -slope·(q + Skv - Sq - k), causal.
func.func @sigmoid_alibi(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %lq: index, %lk: index):
    %d0 = arith.subi %lk, %lq : index
    %qi = arith.addi %i, %d0 : index
    %d = arith.subi %qi, %j : index
    %n = arith.index_cast %d : index to i64
    %p = arith.sitofp %n : i64 to f32
    %slope = arith.constant 0.05 : f32
    %bias = arith.mulf %p, %slope : f32
    %scale = arith.constant 0.125 : f32
    %x = arith.mulf %s, %scale : f32
    %y = arith.subf %x, %bias : f32
    %ny = arith.negf %y : f32
    %e = math.exp %ny : f32
    %one = arith.constant 1.0 : f32
    %den = arith.addf %one, %e : f32
    %w = arith.divf %one, %den : f32
    attn.yield %w : f32
  } mask {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %lq: index, %lk: index):
    %d0 = arith.subi %lk, %lq : index
    %qi = arith.addi %i, %d0 : index
    %keep = arith.cmpi sle, %j, %qi : index
    attn.yield %keep : i1
  } normalizer {
  ^bb0(%w: f32, %b: index, %h: index, %i: index, %j: index, %lq: index, %lk: index):
    %one = arith.constant 1.0 : f32
    attn.normalize %w, %one : f32, f32
  } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

// Sigmoid attention with a bias 0.01·(2q - 3k + 7 + h), not causal.
func.func @skewed(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %lq: index, %lk: index):
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %a = arith.muli %i, %c2 : index
    %kk = arith.muli %c3, %j : index
    %d = arith.subi %a, %kk : index
    %d1 = arith.addi %d, %c7 : index
    %d2 = arith.addi %d1, %h : index
    %n = arith.index_cast %d2 : index to i64
    %p = arith.sitofp %n : i64 to f32
    %c = arith.constant 0.01 : f32
    %bias = arith.mulf %p, %c : f32
    %scale = arith.constant 0.125 : f32
    %x = arith.mulf %s, %scale : f32
    %y = arith.addf %x, %bias : f32
    %ny = arith.negf %y : f32
    %e = math.exp %ny : f32
    %one = arith.constant 1.0 : f32
    %den = arith.addf %one, %e : f32
    %w = arith.divf %one, %den : f32
    attn.yield %w : f32
  } mask {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %lq: index, %lk: index):
    %all = arith.constant true
    attn.yield %all : i1
  } normalizer {
  ^bb0(%w: f32, %b: index, %h: index, %i: index, %j: index, %lq: index, %lk: index):
    %one = arith.constant 1.0 : f32
    attn.normalize %w, %one : f32, f32
  } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

// A decay 0.97^max(q - k, 0) (RetNet's, not causal so that the clamp acts) on a score with a
// bias 0.02·min(k - q, 40), no normaliser.
func.func @clamped(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %lq: index, %lk: index):
    %c0 = arith.constant 0 : index
    %c40 = arith.constant 40 : index
    %d = arith.subi %i, %j : index
    %dm = arith.maxsi %d, %c0 : index
    %n = arith.index_cast %dm : index to i64
    %p = arith.sitofp %n : i64 to f32
    %l = arith.constant -0.0439433 : f32
    %t = arith.mulf %p, %l : f32
    %decay = math.exp2 %t : f32
    %e = arith.subi %j, %i : index
    %em = arith.minsi %e, %c40 : index
    %en = arith.index_cast %em : index to i64
    %ep = arith.sitofp %en : i64 to f32
    %c = arith.constant 0.02 : f32
    %bias = arith.mulf %ep, %c : f32
    %scale = arith.constant 0.125 : f32
    %x = arith.mulf %s, %scale : f32
    %y = arith.addf %x, %bias : f32
    %w = arith.mulf %y, %decay : f32
    attn.yield %w : f32
  } mask {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %lq: index, %lk: index):
    %all = arith.constant true
    attn.yield %all : i1
  } normalizer {
  ^bb0(%w: f32, %b: index, %h: index, %i: index, %j: index, %lq: index, %lk: index):
    %one = arith.constant 1.0 : f32
    attn.normalize %w, %one : f32, f32
  } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}
