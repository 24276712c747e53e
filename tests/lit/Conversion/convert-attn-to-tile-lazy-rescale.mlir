// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a lazy-rescale=1" | FileCheck %s
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s --metaattn-lower="lazy-rescale=1" | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=CUDA
// The CPU executor runs each against the oracle with the option: a score that rises along the
// keys (the maximum passes the shift by more than the threshold in every tile), one that
// falls (it never does after the first tile), lengths past several tiles, 1x1, Sq != Skv, a
// sink's start value, and the library's window, document mask, ALiBi, softcap and softpick.
// RUN: metaattn-run %s --device=cpu --lazy-rescale --function=rising --batch=2 --seq-q=300 --seq-kv=517 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --lazy-rescale --function=rising --batch=1 --seq-q=1 --seq-kv=1 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --lazy-rescale --function=falling --batch=1 --seq-q=257 --seq-kv=400 | FileCheck %s --check-prefix=RAN
// More queries than keys under the bottom-right causal mask: the first rows keep nothing (their
// shift stays -inf, their factors 1, their statistic -inf).
// RUN: metaattn-run %s --device=cpu --lazy-rescale --function=rising --batch=1 --seq-q=300 --seq-kv=77 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %S/../../../frontend/variants/sliding_window.mlir --device=cpu --lazy-rescale --batch=1 --seq-q=130 --seq-kv=385 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --lazy-rescale --documents=3 --batch=2 --seq-q=200 --seq-kv=200 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %S/../../../frontend/variants/alibi.mlir --device=cpu --lazy-rescale --batch=1 --seq-q=200 --seq-kv=200 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %S/../../../frontend/variants/softcap.mlir --device=cpu --lazy-rescale --batch=1 --seq-q=129 --seq-kv=300 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %S/../../../frontend/variants/softpick.mlir --device=cpu --lazy-rescale --batch=1 --seq-q=129 --seq-kv=300 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %S/../../../frontend/variants/sink.mlir --device=cpu --lazy-rescale --batch=2 --seq-q=77 --seq-kv=300 | FileCheck %s --check-prefix=RAN
// RAN-NOT: FAIL
// RAN: PASS

// The running maximum moves only where the tile's passes it by more than 8 in base-2 exponent
// units: 8 / (log2(e) · 0.125) = 44.36 in the raw scores (the scale 0.125 is folded). Rows
// whose shift did not move get a factor of exactly 1, and the output's rescale is marked to be
// skipped where a thread's factors all are.
// CHECK-LABEL: tile.kernel @rising
// CHECK: tile.reduce max
// CHECK-NEXT: tile.parallel
// CHECK-NEXT: %[[MOLD:.*]] = memref.load
// CHECK-NEXT: %[[MTILE:.*]] = memref.load
// CHECK-NEXT: %[[TAU:.*]] = arith.constant 44.36{{[0-9]*}} : f32
// CHECK-NEXT: %[[LIMIT:.*]] = arith.addf %[[MOLD]], %[[TAU]] : f32
// CHECK-NEXT: %[[PASSES:.*]] = arith.cmpf ogt, %[[MTILE]], %[[LIMIT]] : f32
// CHECK-NEXT: %[[MNEW:.*]] = arith.select %[[PASSES]], %[[MTILE]], %[[MOLD]] : f32
// CHECK-NEXT: %[[SAME:.*]] = arith.cmpf oeq, %[[MNEW]], %[[MOLD]] : f32
// CHECK: %[[ALPHA:.*]] = math.exp
// CHECK: arith.select %[[SAME]], %{{.*}}, %[[ALPHA]] : f32
// CHECK: tile.parallel
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.load
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: memref.store
// CHECK-NEXT: } {tile.skip_unit_scale}
// OFF-LABEL: tile.kernel @rising
// OFF-NOT: tile.skip_unit_scale
// OFF: return
// CUDA-LABEL: from tile.kernel @rising.
// CUDA: if (!v{{[0-9]+}}.allEqual(1.0f)) {  // tile.skip_unit_scale
// CUDA-NEXT: { // tile.parallel [{{[0-9]+}}, {{[0-9]+}}]

// A score that rises by 0.5 per key (64 per 128-key tile, past the threshold of 44.36).
func.func @rising(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %x = arith.mulf %s, %c : f32
      %k32 = arith.index_cast %ki : index to i32
      %kf = arith.sitofp %k32 : i32 to f32
      %r = arith.constant 0.5 : f32
      %kr = arith.mulf %kf, %r : f32
      %y = arith.addf %x, %kr : f32
      attn.yield %y : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %0 = arith.subi %skv, %sq : index
      %1 = arith.addi %qi, %0 : index
      %m = arith.cmpi sle, %ki, %1 : index
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

// A score that falls by 0.05 per key, not causal: the first tile holds every row's maximum.
func.func @falling(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %x = arith.mulf %s, %c : f32
      %k32 = arith.index_cast %ki : index to i32
      %kf = arith.sitofp %k32 : i32 to f32
      %r = arith.constant 0.05 : f32
      %kr = arith.mulf %kf, %r : f32
      %y = arith.subf %x, %kr : f32
      attn.yield %y : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %true = arith.constant true
      attn.yield %true : i1
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
