// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile | FileCheck %s

// A normaliser without a row maximum (sigmoid) that returns the row statistic tracks whether a
// row kept any entry by counting kept entries. Partial tiles count them element by element;
// a full tile adds its width (64) to every row's count without a pass over its elements.
// CHECK-LABEL: tile.kernel @sigmoid_lse
// CHECK: %[[COUNT:.*]] = tile.alloc : memref<64xf32, #tile.space<fragment>>
// CHECK: tile.fill %[[COUNT]]
// CHECK: tile.pipelined
// CHECK: tile.reduce sum %{{[0-9]+}} to %[[COUNT]] {accumulate}
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.parallel
// CHECK-NEXT: %[[WIDTH:.*]] = arith.constant 6.400000e+01 : f32
// CHECK-NEXT: %[[OLD:.*]] = memref.load %[[COUNT]]
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %[[WIDTH]] : f32
// CHECK-NEXT: memref.store %[[NEW]], %[[COUNT]]
// CHECK: tile.gemm
func.func @sigmoid_lse(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %n = arith.negf %s : f32
      %e = math.exp %n : f32
      %one = arith.constant 1.0 : f32
      %d = arith.addf %one, %e : f32
      %w = arith.divf %one, %d : f32
      attn.yield %w : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}
