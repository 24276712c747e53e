// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a drop-row-terms=1" | FileCheck %s
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a drop-row-terms=0" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_80" | FileCheck %s --check-prefix=OFF
// The whole compiler on the CPU tile executor against the reference evaluator (output and row
// statistic), with and without the option (and on sm_80, whose mma.sync tiling keeps the row
// terms: wgmma targets only).
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=130 --seq-kv=200 --drop-row-terms | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=1 --seq-kv=257 --drop-row-terms | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=300 --seq-kv=65 --target=sm_80 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --batch=1 --seq-q=193 --seq-kv=193 --drop-row-terms=false | FileCheck %s --check-prefix=EXEC

// drop-row-terms (off by default: slower on the H200): a softmax whose score is F(s, kv) + G(q) computes every row's
// scores at the block's first row q0 (the row term moves a whole row's scores together, which
// the weights exp(x - max x) do not see) and adds G(q) - G(q0) to the maximum the finalizer
// reads, so the row statistic max + log sum is the original's.

// ALiBi with per-head slopes from an input over h: the score loop's bias reads q0, not the row.
// CHECK-LABEL: tile.kernel @alibi_input
// CHECK: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[Q0:[0-9]+]], %{{.*}} : index
// CHECK-NOT: %[[ROW]]
// CHECK: arith.addi %[[Q0]], %{{.*}} : index
// CHECK: arith.sitofp
// CHECK: tile.reduce max
// The epilogue: the maximum plus G(q) - G(q0), G = -slope·q (the slope read again).
// CHECK: tile.gemm %{{.*}} : memref<192x128xbf16
// CHECK: tile.parallel (%{{[a-z0-9]+}}) in [192]
// CHECK-NEXT: %[[R:.*]] = arith.addi %[[Q0]], %{{.*}} : index
// CHECK: arith.index_cast %[[Q0]] : index to i64
// CHECK: tile.read
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[G0:.*]] = arith.negf
// CHECK-NEXT: arith.index_cast %[[R]] : index to i64
// CHECK-NEXT: arith.sitofp
// CHECK-NEXT: tile.read
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[GQ:.*]] = arith.negf
// CHECK-NEXT: %[[SHIFT:.*]] = arith.subf %[[GQ]], %[[G0]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.addf %{{.*}}, %[[SHIFT]] : f32
// CHECK: math.log
// CHECK-NEXT: arith.addf %[[M]]
// OFF-LABEL: tile.kernel @alibi_input
// OFF: tile.gemm
// OFF-NEXT: tile.parallel
// OFF-NEXT: %[[ROW:.*]] = arith.addi
// OFF: arith.addi %[[ROW]], %{{.*}} : index

// A scale applied after the sum: folded (the maximum is of s + 0.5 q0 - 0.25 kv) and split.
// CHECK-LABEL: tile.kernel @scaled_sum
// CHECK: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK-NEXT: arith.addi %[[Q0:[0-9]+]], %{{.*}} : index
// CHECK: memref.load
// CHECK-NEXT: arith.index_cast %[[Q0]] : index to i64
// CHECK-NOT: arith.constant 1.250000e-01
// CHECK: tile.reduce max
// CHECK: math.log

// A row term that is not linear in q (log(q + 1)) stays in the element loop, per row.
// CHECK-LABEL: tile.kernel @nonlinear
// CHECK: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK-NEXT: %[[ROW:.*]] = arith.addi
// CHECK: arith.addi %[[ROW]], %{{.*}} : index
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: arith.sitofp
// CHECK-NEXT: math.log

// EXEC-NOT: FAIL
// EXEC: PASS alibi_input
// EXEC: PASS scaled_sum
// EXEC: PASS nonlinear

func.func @alibi_input(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>, %slope: tensor<4xf32>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v inputs(%slope : tensor<4xf32>) score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sl: f32):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      %off = arith.subi %skv, %sq : index
      %qa = arith.addi %qi, %off : index
      %d = arith.subi %qa, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %bias = arith.mulf %sl, %df : f32
      %y = arith.subf %r, %bias : f32
      attn.yield %y : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sl: f32):
      %off = arith.subi %skv, %sq : index
      %qa = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %qa : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %sl: f32):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } {input_dims = ["h"]} : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

func.func @scaled_sum(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %qi64 = arith.index_cast %qi : index to i64
      %qf = arith.sitofp %qi64 : i64 to f32
      %ki64 = arith.index_cast %ki : index to i64
      %kf = arith.sitofp %ki64 : i64 to f32
      %h1 = arith.constant 0.5 : f32
      %a = arith.mulf %qf, %h1 : f32
      %q1 = arith.constant 0.25 : f32
      %bq = arith.mulf %kf, %q1 : f32
      %t = arith.subf %a, %bq : f32
      %u = arith.addf %s, %t : f32
      %c = arith.constant 0.125 : f32
      %y = arith.mulf %u, %c : f32
      attn.yield %y : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %qa = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %qa : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}

func.func @nonlinear(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1 : index
      %q1 = arith.addi %qi, %one : index
      %qi64 = arith.index_cast %q1 : index to i64
      %qf = arith.sitofp %qi64 : i64 to f32
      %lg = math.log %qf : f32
      %y = arith.addf %s, %lg : f32
      attn.yield %y : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %qa = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %qa : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}
