// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a bounded-shift=1" | FileCheck %s
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s --metaattn-lower="bounded-shift=1" | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=CUDA
// The CPU executor runs each bounded kind against the oracle with the option: lengths just past
// a tile, a length of one, Sq != Skv both ways, rows with nothing kept, and the library's soft
// caps.
// RUN: metaattn-run %s --device=cpu --bounded-shift --function=capped --batch=2 --seq-q=130 --seq-kv=77 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --bounded-shift --function=capped --batch=1 --seq-q=1 --seq-kv=1 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --bounded-shift --function=capped --batch=1 --seq-q=65 --seq-kv=300 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --bounded-shift --function=tight --batch=2 --seq-q=129 --seq-kv=129 | FileCheck %s --check-prefix=RAN
// With exponentials on the FMA pipe too (the executor computes every marked one with
// exp2Poly; a constant shift leaves exponents up to 36.4, 52.5 in base 2, inside its domain):
// RUN: metaattn-run %s --device=cpu --bounded-shift --exp2-emulation=2 --function=capped --batch=2 --seq-q=130 --seq-kv=200 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --bounded-shift --function=clamped --batch=1 --seq-q=200 --seq-kv=333 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --bounded-shift --function=late --batch=2 --seq-q=130 --seq-kv=150 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --bounded-shift --function=wide --batch=1 --seq-q=77 --seq-kv=129 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --bounded-shift --function=logistic --batch=2 --seq-q=65 --seq-kv=129 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %S/../../../frontend/variants/softcap.mlir --device=cpu --bounded-shift --batch=1 --seq-q=129 --seq-kv=129 | FileCheck %s --check-prefix=RAN
// fp16 weights keep full precision only in [2^-14, 65504]: a cap of 50 keeps the maximum
// there (a constant shift fails the oracle: tried), a cap of 2 takes the constant.
// RUN: metaattn-run %s --device=cpu --bounded-shift --function=capped_f16 --batch=1 --seq-q=200 --seq-kv=200 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --bounded-shift --function=tight_f16 --batch=1 --seq-q=130 --seq-kv=257 | FileCheck %s --check-prefix=RAN
// A soft cap under a document mask and a 100-key window (@combo of the monotone-max test),
// three documents, so that the weights' loop masks partial tiles by reading ids:
// RUN: metaattn-run %S/convert-attn-to-tile-monotone-max.mlir --device=cpu --bounded-shift --function=combo --documents=3 --batch=2 --seq-q=200 --seq-kv=333 | FileCheck %s --check-prefix=RAN
// RAN-NOT: FAIL
// RAN: PASS

// A soft cap 50 · tanh(s · 0.02) lies in [-50, 50] (widened by 50/256 for f32 rounding): wider
// than 64, so the shift is the lower bound plus 64, about 13.8, and the exponents lie in
// [-64, 36.4]. No row maximum, no rescaling: the score loop keeps tanh(s · 0.02) (the folded
// scale 50 is applied in the weights' loop) and the weights subtract the constant. The row
// sums add exponentials alone, each at least e^-64: a row with nothing kept sums to 0 and its
// statistic c + log 0 is -inf by itself, so no kept entries are counted (one row sum).
// CHECK-LABEL: tile.kernel @capped
// CHECK-NOT: tile.reduce max
// CHECK: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK: math.tanh
// CHECK-NOT: tile.reduce max
// CHECK: tile.parallel
// CHECK: arith.constant 13.8{{[0-9]*}} : f32
// CHECK: math.exp
// CHECK-NOT: tile.reduce
// CHECK: tile.reduce sum %{{.*}} {accumulate}
// CHECK-NOT: tile.reduce
// CHECK: tile.gemm
// CHECK: math.log
// CHECK: return
// A cap of 2 spans at most 64: the shift is the upper bound (about 2.008), the exponents <= 0.
// CHECK-LABEL: tile.kernel @tight
// CHECK-NOT: tile.reduce max
// CHECK: arith.constant 2.00{{[0-9]*}} : f32
// CHECK: math.exp
// CHECK: return
// A clamp by minimum and maximum is bounded too.
// CHECK-LABEL: tile.kernel @clamped
// CHECK-NOT: tile.reduce max
// CHECK: return
// CHECK-LABEL: tile.kernel @late
// CHECK-NOT: tile.reduce max
// CHECK: return
// A cap of 60 spans 120: more than 104, so the running maximum stays; as does a score with an
// unbounded term (a position converted to float).
// CHECK-LABEL: tile.kernel @wide
// CHECK: tile.reduce max
// CHECK-LABEL: tile.kernel @positional
// CHECK: tile.reduce max
// 8 / (1 + e^-x) lies in [0, 8] (the quotient's denominator in [1, inf)), minus a select
// of |tanh| and -tanh, each in [-1, 1] (the analysis does not relate the select's condition
// to its sides): [-1, 9], the shift its upper bound, 9 + 9/256.
// CHECK-LABEL: tile.kernel @logistic
// CHECK-NOT: tile.reduce max
// CHECK: arith.constant 9.03{{[0-9]*}} : f32
// CHECK: return
// A quotient by an interval that holds 0 (tanh(s) in [-1, 1]) is unbounded.
// CHECK-LABEL: tile.kernel @ratio
// CHECK: tile.reduce max
// CHECK-LABEL: tile.kernel @capped_f16
// CHECK: tile.reduce max
// CHECK-LABEL: tile.kernel @tight_f16
// CHECK-NOT: tile.reduce max
// CHECK: return
// Off (the default): the running maximum.
// OFF-LABEL: tile.kernel @capped
// OFF: tile.reduce max
// OFF-LABEL: tile.kernel @tight
// OFF: tile.reduce max
// The CUDA kernel of the whole pipeline takes no row maximum.
// CUDA-LABEL: from tile.kernel @capped.
// CUDA-NOT: rowMax(
// CUDA: metaattn::dev::tanh(
// CUDA-NOT: rowMax(
// CUDA-LABEL: from tile.kernel @tight.

func.func @capped(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant 0.02 : f32
      %a = arith.mulf %s, %k0 : f32
      %t = math.tanh %a : f32
      %c = arith.constant 50.0 : f32
      %r = arith.mulf %c, %t : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
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

// Not causal, a cap of 2 on scaled scores; D128 with the output alone.
func.func @tight(%q: tensor<?x?x2x128xbf16>, %k: tensor<?x?x2x128xbf16>, %v: tensor<?x?x2x128xbf16>) -> tensor<?x?x2x128xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant 0.0883883461 : f32
      %a = arith.mulf %s, %k0 : f32
      %t = math.tanh %a : f32
      %c = arith.constant 2.0 : f32
      %r = arith.mulf %c, %t : f32
      attn.yield %r : f32
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
    } : tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16> -> tensor<?x?x2x128xbf16>
  return %o : tensor<?x?x2x128xbf16>
}

// A clamp to [-6, 6] of the scaled score, plus a head-dependent term in [-1, 1] (the erf of
// the head's index), under a 40-key window on both sides.
func.func @clamped(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant 0.125 : f32
      %a = arith.mulf %s, %k0 : f32
      %lo = arith.constant -6.0 : f32
      %hi = arith.constant 6.0 : f32
      %c1 = arith.maximumf %a, %lo : f32
      %c2 = arith.minimumf %c1, %hi : f32
      %hi32 = arith.index_cast %h : index to i32
      %hf = arith.sitofp %hi32 : i32 to f32
      %e = math.erf %hf : f32
      %r = arith.addf %c2, %e : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c40 = arith.constant 40 : index
      %lo = arith.subi %qi, %c40 : index
      %m = arith.cmpi sge, %ki, %lo : index
      %hiq = arith.addi %qi, %c40 : index
      %m2 = arith.cmpi sle, %ki, %hiq : index
      %mm = arith.andi %m, %m2 : i1
      attn.yield %mm : i1
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

// Keys from q + 100 on: the last rows keep nothing (output 0, statistic -inf).
func.func @late(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant 0.05 : f32
      %a = arith.mulf %s, %k0 : f32
      %t = math.tanh %a : f32
      %c = arith.constant 30.0 : f32
      %r = arith.mulf %c, %t : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c100 = arith.constant 100 : index
      %lo = arith.addi %qi, %c100 : index
      %m = arith.cmpi sge, %ki, %lo : index
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

// A cap of 60 spans 120.
func.func @wide(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant 0.02 : f32
      %a = arith.mulf %s, %k0 : f32
      %t = math.tanh %a : f32
      %c = arith.constant 60.0 : f32
      %r = arith.mulf %c, %t : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
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

// The key's position inside the tanh's argument is bounded by the tanh, but added outside it
// (a position converted to float) it is not.
func.func @positional(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant 0.02 : f32
      %a = arith.mulf %s, %k0 : f32
      %t = math.tanh %a : f32
      %ki32 = arith.index_cast %ki : index to i32
      %kf = arith.sitofp %ki32 : i32 to f32
      %p = arith.constant 0.001 : f32
      %kp = arith.mulf %kf, %p : f32
      %r = arith.addf %t, %kp : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
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

// 8·sigmoid(s / 4) − |tanh(s)| (or −tanh(s) where s < 0), causal.
func.func @logistic(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c4 = arith.constant 4.0 : f32
      %x = arith.divf %s, %c4 : f32
      %nx = arith.negf %x : f32
      %e = math.exp %nx : f32
      %one = arith.constant 1.0 : f32
      %den = arith.addf %one, %e : f32
      %c8 = arith.constant 8.0 : f32
      %sig = arith.divf %c8, %den : f32
      %t = math.tanh %s : f32
      %a = math.absf %t : f32
      %nt = arith.negf %t : f32
      %zero = arith.constant 0.0 : f32
      %neg = arith.cmpf olt, %s, %zero : f32
      %pick = arith.select %neg, %nt, %a : f32
      %r = arith.subf %sig, %pick : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
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

// s / tanh(s / 10): the denominator's interval holds 0.
func.func @ratio(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.1 : f32
      %x = arith.mulf %s, %c : f32
      %t = math.tanh %x : f32
      %one = arith.constant 1.0 : f32
      %r = arith.divf %one, %t : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
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

// The soft caps of 50 and 2 with fp16 inputs (causal, with the row statistic).
func.func @capped_f16(%q: tensor<?x?x4x64xf16>, %k: tensor<?x?x4x64xf16>, %v: tensor<?x?x4x64xf16>) -> (tensor<?x?x4x64xf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant 0.02 : f32
      %a = arith.mulf %s, %k0 : f32
      %t = math.tanh %a : f32
      %c = arith.constant 50.0 : f32
      %r = arith.mulf %c, %t : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xf16>, tensor<?x?x4x64xf16>, tensor<?x?x4x64xf16> -> tensor<?x?x4x64xf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x64xf16>, tensor<?x4x?xf32>
}

func.func @tight_f16(%q: tensor<?x?x4x64xf16>, %k: tensor<?x?x4x64xf16>, %v: tensor<?x?x4x64xf16>) -> (tensor<?x?x4x64xf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant 0.0625 : f32
      %a = arith.mulf %s, %k0 : f32
      %t = math.tanh %a : f32
      %c = arith.constant 2.0 : f32
      %r = arith.mulf %c, %t : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xf16>, tensor<?x?x4x64xf16>, tensor<?x?x4x64xf16> -> tensor<?x?x4x64xf16>, tensor<?x4x?xf32>
  return %o, %l : tensor<?x?x4x64xf16>, tensor<?x4x?xf32>
}
