// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a" | FileCheck %s
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a monotone-max=0" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=CUDA
// The CPU executor runs each kind against the oracle: lengths just past a tile, a length of one,
// Sq != Skv both ways, a window that leaves rows of a tile with nothing kept, and the soft cap
// of the library's variant file with and without the option.
// RUN: metaattn-run %s --device=cpu --function=capped --batch=2 --seq-q=130 --seq-kv=77 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=capped --batch=1 --seq-q=1 --seq-kv=1 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=shifted --batch=1 --seq-q=200 --seq-kv=333 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=shifted --batch=2 --seq-q=65 --seq-kv=129 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=decreasing --batch=1 --seq-q=130 --seq-kv=130 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=positional --batch=1 --seq-q=77 --seq-kv=200 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %S/../../../frontend/variants/softcap.mlir --device=cpu --batch=1 --seq-q=129 --seq-kv=129 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %S/../../../frontend/variants/softcap.mlir --device=cpu --monotone-max=false --batch=1 --seq-q=129 --seq-kv=129 | FileCheck %s --check-prefix=RAN
// A soft cap under a document mask and a 100-key window (causal), so that the weights' loop
// masks partial tiles by reading ids, with one and three documents:
// RUN: metaattn-run %s --device=cpu --function=combo --documents=1 --batch=2 --seq-q=129 --seq-kv=65 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --function=combo --documents=3 --batch=2 --seq-q=200 --seq-kv=333 | FileCheck %s --check-prefix=RAN
// RAN-NOT: FAIL
// RAN: PASS

// monotone-max (the default): a soft cap 50 · tanh(s · 0.02) keeps the dot products s in its
// score loop (which only masks), takes their row maximum without the running one, maps it
// through tanh(· · 0.02) once per row (-inf, a row with nothing kept in the tile, stays -inf)
// and takes the larger of that and the running maximum; the weights' loop computes the tanh
// and masks again (tanh(-inf) is -1, not -inf).
// CHECK-LABEL: tile.kernel @capped
// CHECK: tile.gemm
// CHECK-NEXT: tile.parallel
// CHECK: %[[RAW:.*]] = memref.load %[[S:[0-9]+]]
// CHECK-NOT: math.tanh
// CHECK: arith.select %{{.*}}, %[[RAW]], %{{.*}} : f32
// CHECK: tile.reduce max %[[S]] to %[[TILEMAX:[0-9]+]] :
// CHECK-NEXT: tile.parallel
// CHECK-NEXT: %[[MOLD:.*]] = memref.load %[[RUNNING:[0-9]+]]
// CHECK-NEXT: %[[MS:.*]] = memref.load %[[TILEMAX]]
// CHECK: %[[NONE:.*]] = arith.cmpf oeq, %[[MS]]
// CHECK: %[[ARG:.*]] = arith.mulf %[[MS]], %{{.*}} : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[ARG]] {tile.approx} : f32
// CHECK: %[[MAPPED:.*]] = arith.select %[[NONE]], %{{.*}}, %[[T]] : f32
// CHECK-NEXT: arith.maximumf %[[MOLD]], %[[MAPPED]] : f32
// CHECK: tile.parallel
// CHECK: tile.parallel
// CHECK: %[[SW:.*]] = memref.load %[[S]]
// CHECK-NEXT: arith.constant 2.000000e-02 : f32
// CHECK-NEXT: %[[ARGW:.*]] = arith.mulf %[[SW]], %{{.*}} : f32
// CHECK-NEXT: math.tanh %[[ARGW]] {tile.approx} : f32
// CHECK: math.exp
// CHECK: scf.if
// CHECK: arith.cmpi sle
// CHECK: tile.reduce sum
// A term the same over a tile inside the tanh (the head's index) and a division by a positive
// constant keep it nondecreasing in s.
// CHECK-LABEL: tile.kernel @shifted
// CHECK: tile.reduce max %{{.*}} to %{{.*}} :
// CHECK: math.tanh
// CHECK: arith.maximumf
// Decreasing in s (tanh(−0.02 s)), or a term that varies over the tile (the key's position):
// the maximum is of the tanh's values, accumulated.
// CHECK-LABEL: tile.kernel @decreasing
// CHECK: math.tanh
// CHECK: tile.reduce max %{{.*}} to %{{.*}} {accumulate}
// CHECK-NOT: arith.maximumf
// CHECK-LABEL: tile.kernel @positional
// CHECK: math.tanh
// CHECK: tile.reduce max %{{.*}} to %{{.*}} {accumulate}
// CHECK-NOT: arith.maximumf
// Under a document mask: the same form; the weights' loop masks partial tiles again.
// CHECK-LABEL: tile.kernel @combo
// CHECK: tile.reduce max %{{.*}} to %{{.*}} :
// CHECK: arith.maximumf
// Off: the tanh in the score loop, the maximum accumulated.
// OFF-LABEL: tile.kernel @capped
// OFF: tile.gemm
// OFF-NEXT: tile.parallel
// OFF: math.tanh
// OFF: tile.reduce max %{{.*}} to %{{.*}} {accumulate}
// OFF-NOT: arith.maximumf
// OFF-LABEL: tile.kernel @shifted
// The CUDA kernel: a row maximum that does not accumulate, the tanh of it, then the weights' tanh.
// CUDA-LABEL: from tile.kernel @capped.
// CUDA: metaattn::dev::warp::rowMax({{.*}}, false);
// CUDA-NEXT: {
// CUDA: metaattn::dev::tanh(
// CUDA: fmaxf(
// CUDA: metaattn::dev::tanh(
// CUDA: metaattn::dev::expSubScaled(

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

// A head-dependent shift inside the tanh (the same over a tile) and a division by a positive
// constant: still nondecreasing in s. Bidirectional with a window, so rows of a tile can be
// wholly masked.
func.func @shifted(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant 8.0 : f32
      %a = arith.divf %s, %k0 : f32
      %hi = arith.index_cast %h : index to i32
      %hf = arith.sitofp %hi : i32 to f32
      %sh = arith.subf %a, %hf : f32
      %t = math.tanh %sh : f32
      %c = arith.constant 3.0 : f32
      %r = arith.mulf %t, %c : f32
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

// Decreasing in s (tanh of −s): the maximum stays after the tanh.
func.func @decreasing(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant -0.02 : f32
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

// A term that varies over the tile inside the tanh (the key's position): not a function of s
// alone, so the maximum stays after the tanh.
func.func @positional(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %k0 = arith.constant 0.02 : f32
      %a = arith.mulf %s, %k0 : f32
      %ki32 = arith.index_cast %ki : index to i32
      %kf = arith.sitofp %ki32 : i32 to f32
      %p = arith.constant 0.001 : f32
      %kp = arith.mulf %kf, %p : f32
      %sh = arith.addf %a, %kp : f32
      %t = math.tanh %sh : f32
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

// A soft cap with a document mask and a sliding window of 100 keys (causal).
func.func @combo(%arg0: tensor<?x?x4x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, %arg2: tensor<?x?x2x64xbf16>, %arg3: tensor<?x?xi32>, %arg4: tensor<?x?xi32>) -> (tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>) {
  %output, %lse = attn.attention %arg0, %arg1, %arg2 inputs(%arg3, %arg4 : tensor<?x?xi32>, tensor<?x?xi32>) score {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %iq: i32, %ik: i32):
    %k0 = arith.constant 0.0025 : f32
    %a = arith.mulf %s, %k0 : f32
    %t = math.tanh %a : f32
    %c = arith.constant 50.0 : f32
    %r = arith.mulf %c, %t : f32
    attn.yield %r : f32
  } mask {
  ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %iq: i32, %ik: i32):
    %0 = arith.index_cast %ik : i32 to index
    %1 = arith.index_cast %iq : i32 to index
    %2 = arith.cmpi eq, %1, %0 : index
    %3 = arith.subi %skv, %sq : index
    %4 = arith.addi %qi, %3 : index
    %5 = arith.cmpi sle, %ki, %4 : index
    %c100 = arith.constant 100 : index
    %6 = arith.subi %4, %c100 : index
    %7 = arith.cmpi sgt, %ki, %6 : index
    %8 = arith.andi %2, %5 : i1
    %9 = arith.andi %8, %7 : i1
    attn.yield %9 : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %iq: i32, %ik: i32):
    %0 = attn.row_reduce  max %s : f32
    %1 = arith.subf %s, %0 : f32
    %2 = math.exp %1 : f32
    %3 = attn.row_reduce  sum %2 : f32
    attn.normalize %2, %3 : f32, f32
  } {input_dims = ["b,q", "b,kv"]} : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
  return %output, %lse : tensor<?x?x4x64xbf16>, tensor<?x4x?xf32>
}
