// RUN: metaattn-opt %s --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s
// RUN: metaattn-run %s --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s --check-prefix=CPU

// An element loop's division by a value the same for every element (here the key length, a
// ReLU attention's normaliser) prints as a multiplication by its reciprocal, one division that
// nvcc hoists out of the unrolled loop instead of IEEE division's slow path per element; a
// divisor that varies over the elements (q + 1, its per-thread and per-element parts added in
// float by tile-split-index-casts) keeps the division.
// CHECK-LABEL: from tile.kernel @relu_by_length.
// CHECK: tile.parallel [
// CHECK: const float [[LEN:v[0-9]+]] = (float)v{{[0-9]+}};
// CHECK: = v{{[0-9]+}} * (1.0f / [[LEN]]);
// CHECK-LABEL: from tile.kernel @relu_by_row.
// CHECK: tile.parallel [
// CHECK: const float [[ROW:v[0-9]+]] = v{{[0-9]+}} + v{{[0-9]+}};
// CHECK-NOT: (1.0f /
// CHECK: = v{{[0-9]+}} / [[ROW]];
// CPU: PASS relu_by_length
// CPU: PASS relu_by_row
func.func @relu_by_length(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      %z = arith.constant 0.0 : f32
      %p = arith.maximumf %r, %z : f32
      %n = arith.index_cast %skv : index to i64
      %nf = arith.sitofp %n : i64 to f32
      %y = arith.divf %p, %nf : f32
      attn.yield %y : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.constant true
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

func.func @relu_by_row(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      %z = arith.constant 0.0 : f32
      %p = arith.maximumf %r, %z : f32
      %one = arith.constant 1 : index
      %q1 = arith.addi %qi, %one : index
      %n = arith.index_cast %q1 : index to i64
      %nf = arith.sitofp %n : i64 to f32
      %y = arith.divf %p, %nf : f32
      attn.yield %y : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.constant true
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}
