// RUN: metaattn-opt %s --metaattn-lower="pingpong=1 block-m=128 warps=8" | FileCheck %s
// RUN: metaattn-run %s --device=cpu --pingpong --block-m=128 --warps=8 --batch=1 --seq-q=130 --seq-kv=300 | FileCheck %s --check-prefix=RAN
// RUN: metaattn-run %s --device=cpu --pingpong --batch=1 --seq-q=300 --seq-kv=130 | FileCheck %s --check-prefix=RAN

// Ping-pong over the overlapped schedule (tile-gemm-overlap, then tile-warpgroup-pingpong):
// one turn issues both of a warpgroup's gemms of an iteration, the score gemm of tile j and,
// when one is owed, the output gemm of tile j - 1 (FlashAttention-3's order), so the other
// warpgroup's two gemms queue behind them while this one runs its softmax. Each branch of
// the conditional passes the turn in front of the waits tile-gemm-overlap put there: a pass
// after the conditional, with the waits in a second one, joined the branches between the
// output gemm's commit and its wait, and ptxas serialised every wgmma of the kernel.
// CHECK-LABEL: tile.kernel @mha
// CHECK: } consumer {
// CHECK-NEXT: tile.warpgroup_turn "start"
// CHECK: scf.for
// CHECK: tile.warpgroup_turn "wait"
// CHECK-NEXT: tile.gemm {{.*}} {async, tile.wgmma, transpose_b}
// CHECK-NEXT: scf.if %[[OWED:[a-z0-9_]+]] {
// CHECK-NOT: tile.warpgroup_turn
// CHECK-NOT: tile.gemm_wait
// CHECK: tile.gemm {{.*}} {async, tile.wgmma}
// CHECK-NEXT: tile.warpgroup_turn "pass"
// CHECK-NEXT: tile.gemm_wait 1
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.warpgroup_turn "pass"
// CHECK-NEXT: tile.gemm_wait 0
// CHECK-NEXT: }
// CHECK-NOT: tile.warpgroup_turn "pass"
// CHECK: scf.yield
// The last tile's output gemm, after the loop, in a turn of its own.
// CHECK: tile.warpgroup_turn "wait"
// CHECK-NEXT: tile.gemm {{.*}} {async, tile.wgmma}
// CHECK-NEXT: tile.warpgroup_turn "pass"
// CHECK: tile.warpgroup_turn "finish"
// Also with a causal mask and GQA (the guard around a kv tile's gemms, the owed output gemm
// of a skipped tile): the executor checks both against the oracle, at both length orders.
// RAN: PASS mha
// RAN: PASS causal_d128
func.func @mha(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> (tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.250000000e-01 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.constant true
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
}

func.func @causal_d128(%q: tensor<?x?x2x128xbf16>, %k: tensor<?x?x1x128xbf16>, %v: tensor<?x?x1x128xbf16>) -> (tensor<?x?x2x128xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 8.838834765e-02 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
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
    } : tensor<?x?x2x128xbf16>, tensor<?x?x1x128xbf16>, tensor<?x?x1x128xbf16> -> tensor<?x?x2x128xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x128xbf16>, tensor<?x2x?xf32>
}

