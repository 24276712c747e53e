// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=77 --seq-kv=50 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=77 --seq-kv=50 --fuse-combine=false | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=64 block-n=64" | FileCheck %s
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=64 block-n=64 fuse-combine=false" | FileCheck %s --check-prefix=UNFUSED

// fuse-combine: an attn.combine right after the attention whose output only it reads runs in
// that attention's epilogue. The kernel takes the combine's other values and inputs after the
// attention's own operands, evaluates the combiner on each element of the normalised output
// fragment (this attention's value in its place among the combine's values, here the first)
// and writes the combine's output; the attention's own output has no buffer, its row
// statistic is still written.

// Both functions on the CPU tile executor against the oracle, fused and not.
// EXEC-NOT: FAIL
// EXEC: PASS fused
// EXEC: PASS returned
// EXEC-NOT: FAIL

// CHECK-LABEL: tile.kernel @fused_step0
// CHECK-SAME: tile.bindings = ["arg:0", "arg:1", "arg:2", "temp:0"]
// CHECK-LABEL: tile.kernel @fused_step1
// CHECK-SAME: (%{{.*}}: !tile.tensor<?x?x2x32xbf16> {tile.name = "q"}, %{{.*}}: !tile.tensor<?x?x2x32xbf16> {tile.name = "k"}, %{{.*}}: !tile.tensor<?x?x2x32xbf16> {tile.name = "v"}, %[[X1:arg[0-9]+]]: !tile.tensor<?x?x2x32xf32> {tile.name = "x1"}, %[[S:arg[0-9]+]]: !tile.tensor<2xf32> {tile.name = "combine_input0"}, %[[O:arg[0-9]+]]: !tile.tensor<?x?x2x32xbf16> {tile.name = "o"}, %[[L:arg[0-9]+]]: !tile.tensor<?x2x?xf32> {tile.name = "lse"})
// CHECK-SAME: tile.bindings = ["arg:3", "arg:1", "arg:2", "temp:0", "arg:4", "result:0", "result:1"]
// CHECK-SAME: tile.dim_symbols = {{\[}}["B", "Sq", "H", "D"], ["B", "Skv", "Hkv", "D"], ["B", "Skv", "Hkv", "Dv"], ["B", "Sq", "H", "Dv"], ["H"], ["B", "Sq", "H", "Dv"], ["B", "H", "Sq"]]
// CHECK-SAME: tile.outputs = array<i64: 5, 6>
// CHECK: %[[H:.*]] = tile.block_id 1
// CHECK: %[[B:.*]] = tile.block_id 2
// CHECK: tile.pipelined
// The epilogue: the rows' inverse normalisers, then the output fragment.
// CHECK: arith.divf
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in [64, 32] {
// CHECK: %[[OWN:.*]] = arith.mulf
// CHECK: %[[Q:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK: %[[XV:.*]] = tile.read %[[X1]][%[[B]], %[[Q]], %[[H]], %[[J]]] : <?x?x2x32xf32> -> f32
// CHECK: %[[SV:.*]] = tile.read %[[S]][%[[H]]] : <2xf32> -> f32
// CHECK: %[[P:.*]] = arith.mulf %[[SV]], %[[XV]] : f32
// CHECK: %[[R:.*]] = arith.subf %[[OWN]], %[[P]] : f32
// CHECK: memref.store %[[R]]
// CHECK: tile.copy %{{.*}} to %[[O]]
// CHECK: tile.copy %{{.*}} to %[[L]]
// CHECK-NOT: tile.kernel @fused_step2

// An attention output that the function also returns keeps its kernel and the combine its own.
// CHECK-LABEL: tile.kernel @returned_step0
// CHECK-SAME: tile.bindings = ["arg:0", "arg:1", "arg:2", "result:1"]
// CHECK-LABEL: tile.kernel @returned_step1
// CHECK-SAME: tile.bindings = ["result:1", "arg:3", "result:0"]

// UNFUSED-LABEL: tile.kernel @fused_step1
// UNFUSED-SAME: tile.bindings = ["arg:3", "arg:1", "arg:2", "temp:1", "result:1"]
// UNFUSED-LABEL: tile.kernel @fused_step2
// UNFUSED-SAME: tile.bindings = ["temp:1", "temp:0", "arg:4", "result:0"]

func.func @fused(%q1: tensor<?x?x2x32xbf16>, %k: tensor<?x?x2x32xbf16>, %v: tensor<?x?x2x32xbf16>, %q2: tensor<?x?x2x32xbf16>, %lambda: tensor<2xf32>) -> (tensor<?x?x2x32xbf16>, tensor<?x2x?xf32>) {
  %a1 = attn.attention %q1, %k, %v
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
    } : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xf32>
  %a2, %lse = attn.attention %q2, %k, %v
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
    } : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xf32>, tensor<?x2x?xf32>
  // The second attention's value comes first: own - lambda_h * a1.
  %o = attn.combine %a2, %a1 inputs(%lambda : tensor<2xf32>) {
  ^bb0(%x0: f32, %x1: f32, %b: index, %h: index, %qi: index, %d: index, %l: f32):
    %p = arith.mulf %l, %x1 : f32
    %r = arith.subf %x0, %p : f32
    attn.yield %r : f32
  } {input_dims = ["h"]} : tensor<?x?x2x32xf32>, tensor<?x?x2x32xf32> -> tensor<?x?x2x32xbf16>
  return %o, %lse : tensor<?x?x2x32xbf16>, tensor<?x2x?xf32>
}

func.func @returned(%q: tensor<?x?x2x32xbf16>, %k: tensor<?x?x2x32xbf16>, %v: tensor<?x?x2x32xbf16>, %scale: tensor<2xf32>) -> (tensor<?x?x2x32xbf16>, tensor<?x?x2x32xf32>) {
  %a = attn.attention %q, %k, %v
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
    } : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16>, tensor<?x?x2x32xbf16> -> tensor<?x?x2x32xf32>
  %o = attn.combine %a inputs(%scale : tensor<2xf32>) {
  ^bb0(%x: f32, %b: index, %h: index, %qi: index, %d: index, %s: f32):
    %p = arith.mulf %x, %s : f32
    attn.yield %p : f32
  } {input_dims = ["h"]} : tensor<?x?x2x32xf32> -> tensor<?x?x2x32xbf16>
  return %o, %a : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xf32>
}
