// The soft cap's maximum after its tanh (monotone-max off; convert-attn-to-tile-monotone-max.mlir
// has the default, the maximum of the dot products).
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a monotone-max=0" | FileCheck %s
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a fold-score-scale=0" | FileCheck %s --check-prefix=OFF
// Not on the mma.sync path (not timed there).
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=CUDA
// RUN: metaattn-opt %s --metaattn-lower="approx-tanh=0" | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=EXACT

// fold-score-scale (the default): with the score s * 0.125 and the score as the shift, the kernel keeps raw
// scores (the score loop only masks), takes the row maximum of them and applies 0.125 where
// it reads them: in the rescale exponent and beside the exponent of every weight, which the
// emitter for CUDA turns into one fma (expSubScaled).
// CHECK-LABEL: tile.kernel @scaled
// CHECK: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK: %[[RAW:.*]] = memref.load %[[S:[0-9]+]]
// CHECK-NOT: arith.mulf
// CHECK: arith.select %{{.*}}, %[[RAW]], %{{.*}} : f32
// CHECK: tile.reduce max %[[S]] to %[[MNEW:[0-9]+]] {accumulate}
// CHECK: %[[DELTA:.*]] = arith.subf
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: arith.mulf %[[DELTA]], %[[C1]] : f32
// CHECK: %[[SRAW:.*]] = memref.load %[[S]]
// CHECK-NEXT: %[[C2:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[SS:.*]] = arith.mulf %[[SRAW]], %[[C2]] : f32
// CHECK-NEXT: %[[MRAW:.*]] = memref.load %[[MNEW]]
// CHECK-NEXT: %[[C3:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[MS:.*]] = arith.mulf %[[MRAW]], %[[C3]] : f32
// CHECK: %[[D:.*]] = arith.subf %[[SS]], %[[MS]] : f32
// CHECK-NEXT: math.exp %[[D]] : f32
// The statistic is c·m + log l.
// CHECK: tile.parallel
// CHECK: memref.load
// CHECK: %[[MFIN:.*]] = memref.load
// CHECK-NEXT: %[[C4:.*]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: arith.mulf %[[MFIN]], %[[C4]] : f32
// Without the option the score loop scales.
// OFF-LABEL: tile.kernel @scaled
// OFF: tile.gemm
// OFF-NEXT: tile.parallel
// OFF: memref.load
// OFF: arith.mulf
// OFF: tile.reduce max
// CUDA: metaattn::dev::expSubScaled(
// A soft cap, 50 · tanh(s · 0.02): the score loop keeps tanh(s · 0.02) raw (no multiplication by
// 50 after the tanh), and 50 is applied where the scores and the maximum are read.
// CHECK-LABEL: tile.kernel @capped
// CHECK: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK: %[[CS:.*]] = memref.load %[[S2:[0-9]+]]
// CHECK-NEXT: arith.constant 2.000000e-02 : f32
// CHECK-NEXT: %[[ARG:.*]] = arith.mulf %[[CS]], %{{.*}} : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[ARG]] {tile.approx} : f32
// CHECK-NOT: arith.mulf
// CHECK: arith.select %{{.*}}, %[[T]], %{{.*}} : f32
// CHECK: tile.reduce max %[[S2]] to %[[MNEW2:[0-9]+]] {accumulate}
// CHECK: arith.constant 5.000000e+01 : f32
// CHECK: %[[TRAW:.*]] = memref.load %[[S2]]
// CHECK-NEXT: %[[C5:.*]] = arith.constant 5.000000e+01 : f32
// CHECK-NEXT: arith.mulf %[[TRAW]], %[[C5]] : f32
// approx-tanh (the default): tanh.approx.f32 through the device library; without it, tanhf.
// CUDA-LABEL: from tile.kernel @capped.
// CUDA: metaattn::dev::tanh(
// EXACT-LABEL: from tile.kernel @capped.
// EXACT-NOT: metaattn::dev::tanh(
// EXACT: tanhf(
// CUDA: metaattn::dev::expSubScaled(
// A negative scale (max(c·s) is not c·max(s)) stays in the score loop.
// CHECK-LABEL: tile.kernel @negative
// CHECK: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK: memref.load
// CHECK-NEXT: arith.constant -1.250000e-01 : f32
// CHECK-NEXT: arith.mulf
// A bias, s · 0.125 − u · d with u = 2^(−(h + 1)/2) (ALiBi's slope, the same over a tile) and
// d = q − kv: the score loop keeps s − (u · 8) · d raw, one multiplication by 1/0.125 of the
// tile-invariant factor and none of s.
// CHECK-LABEL: tile.kernel @biased
// CHECK: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK: %[[BS:.*]] = memref.load %[[S3:[0-9]+]]
// CHECK-NOT: arith.mulf %[[BS]]
// CHECK: %[[U:.*]] = math.exp2
// CHECK: %[[D:.*]] = arith.sitofp
// CHECK-NEXT: %[[INV:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[UC:.*]] = arith.mulf %[[U]], %[[INV]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[UC]], %[[D]] : f32
// CHECK-NEXT: %[[RAW3:.*]] = arith.subf %[[BS]], %[[T]] : f32
// CHECK: arith.select %{{.*}}, %[[RAW3]], %{{.*}} : f32
// CHECK: tile.reduce max %[[S3]]
// CHECK: %[[SRAW3:.*]] = memref.load %[[S3]]
// CHECK-NEXT: arith.constant 1.250000e-01 : f32
// CHECK-NEXT: arith.mulf %[[SRAW3]]
// A bias whose factors both vary over the tile (q · kv) is not folded: the loop scales s.
// CHECK-LABEL: tile.kernel @biased_varying
// CHECK: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK: memref.load
// CHECK-NEXT: arith.constant 1.250000e-01 : f32
// CHECK-NEXT: arith.mulf
func.func @scaled(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
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

func.func @negative(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant -0.125 : f32
      %r = arith.mulf %s, %c : f32
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

func.func @biased(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      %one = arith.constant 1 : index
      %h1 = arith.addi %h, %one : index
      %hi = arith.index_cast %h1 : index to i64
      %hf = arith.sitofp %hi : i64 to f32
      %half = arith.constant -0.5 : f32
      %e = arith.mulf %hf, %half : f32
      %u = math.exp2 %e : f32
      %d = arith.subi %qi, %ki : index
      %di = arith.index_cast %d : index to i64
      %df = arith.sitofp %di : i64 to f32
      %t = arith.mulf %u, %df : f32
      %y = arith.subf %r, %t : f32
      attn.yield %y : f32
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

func.func @biased_varying(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      %qx = arith.index_cast %qi : index to i64
      %qf = arith.sitofp %qx : i64 to f32
      %kx = arith.index_cast %ki : index to i64
      %kf = arith.sitofp %kx : i64 to f32
      %t = arith.mulf %qf, %kf : f32
      %y = arith.addf %r, %t : f32
      attn.yield %y : f32
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
