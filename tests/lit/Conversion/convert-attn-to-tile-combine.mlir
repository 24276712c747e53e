// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=77 --seq-kv=50 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-opt %s -split-input-file -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=64 block-n=64" | FileCheck %s

// A function of two ops becomes two kernels, in order, named after it: the attention writes
// its f32 output, which is also the function's result #1 ("result:1"), and the combination
// reads it back from there. The combine kernel is one tile.parallel over 64 rows x the value
// dim: each element is read with tile.read (the f32 operand, the per-head scale, a per-query
// block value), the combiner region is inlined, and one tile.copy writes the fragment out.

// The same function on the CPU tile executor against the oracle: both results match.
// EXEC: output:{{.*}} 0 of 9856 elements outside
// EXEC-NEXT: output:{{.*}} 0 of 9856 elements outside
// EXEC-NEXT: PASS scaled

// CHECK-LABEL: tile.kernel @scaled_step0
// CHECK-SAME: tile.bindings = ["arg:0", "arg:1", "arg:2", "result:1"]
// CHECK-SAME: tile.function = "scaled"
// CHECK-SAME: tile.step = 0 : i64
// CHECK: tile.gemm
// CHECK-LABEL: tile.kernel @scaled_step1
// CHECK-SAME: (%[[X:.*]]: !tile.tensor<?x?x2x32xf32> {tile.name = "x0"}, %[[S:.*]]: !tile.tensor<2xf32> {tile.name = "input0"}, %[[M:.*]]: !tile.tensor<?x?xi32> {tile.name = "input1"}, %[[O:.*]]: !tile.tensor<?x?x2x32xbf16> {tile.name = "o"})
// CHECK-SAME: grid = array<i64: 0, 1, 64, -1, 0, 2, 0, 0, 1>
// CHECK-SAME: tile.bindings = ["result:1", "arg:3", "arg:4", "result:0"]
// CHECK-SAME: tile.dim_symbols = {{\[}}["B", "Sq", "H", "Dv"], ["H"], ["B", "Sq/16"], ["B", "Sq", "H", "Dv"]]
// CHECK-SAME: tile.step = 1 : i64
// CHECK: %[[H:.*]] = tile.block_id 1
// CHECK: %[[B:.*]] = tile.block_id 2
// CHECK: %[[FRAG:.*]] = tile.alloc : memref<64x32xf32, #tile.space<fragment>>
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in [64, 32] {
// CHECK: %[[Q:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK: %[[XV:.*]] = tile.read %[[X]][%[[B]], %[[Q]], %[[H]], %[[J]]] : <?x?x2x32xf32> -> f32
// CHECK: %[[SV:.*]] = tile.read %[[S]][%[[H]]] : <2xf32> -> f32
// CHECK: %[[QB:.*]] = arith.divui %[[Q]], %{{.*}} : index
// CHECK: %[[MV:.*]] = tile.read %[[M]][%[[B]], %[[QB]]] : <?x?xi32> -> i32
// CHECK: %[[P:.*]] = arith.mulf %[[XV]], %[[SV]] : f32
// CHECK: memref.store %{{.*}}, %[[FRAG]][%[[I]], %[[J]]]
// CHECK: tile.copy %[[FRAG]] to %[[O]][%[[B]], %{{.*}}, %[[H]], %{{.*}}] {dims = array<i64: 1, 3>}
func.func @scaled(%q: tensor<?x?x2x32xbf16>, %k: tensor<?x?x2x32xbf16>, %v: tensor<?x?x2x32xbf16>, %scale: tensor<2xf32>, %keep: tensor<?x?xi32>) -> (tensor<?x?x2x32xbf16>, tensor<?x?x2x32xf32>) {
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
  %o = attn.combine %a inputs(%scale, %keep : tensor<2xf32>, tensor<?x?xi32>) {
  ^bb0(%x: f32, %b: index, %h: index, %qi: index, %d: index, %s: f32, %m: i32):
    %p = arith.mulf %x, %s : f32
    %zero = arith.constant 0 : i32
    %on = arith.cmpi ne, %m, %zero : i32
    %z = arith.constant 0.0 : f32
    %r = arith.select %on, %p, %z : f32
    attn.yield %r : f32
  } {input_dims = ["h", "b,q/16"]} : tensor<?x?x2x32xf32> -> tensor<?x?x2x32xbf16>
  return %o, %a : tensor<?x?x2x32xbf16>, tensor<?x?x2x32xf32>
}
