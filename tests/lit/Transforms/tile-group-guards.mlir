// RUN: metaattn-opt %s -split-input-file --metaattn-lower | FileCheck %s
// RUN: metaattn-opt %s -split-input-file --metaattn-lower="group-guards=0" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s -split-input-file --metaattn-lower="pingpong=1" | FileCheck %s --check-prefix=OFF
// RUN: metaattn-opt %s -split-input-file --metaattn-lower | metaattn-translate --tile-to-cuda -split-input-file | FileCheck %s --check-prefix=CUDA

// Causal D64 runs three consumer warpgroups over a 192-row block. Each decides over its own
// 64 rows whether a kv tile is seen at all (skipped past its diagonal, or entirely when its
// rows lie past seq_q) and whether the mask cuts it. The ring's waits and releases stay
// outside the guard, so a warpgroup that skips a tile still takes part in every stage.
// With the ping-pong schedule the guard holds the warpgroups' turns (named barriers every
// consumer warpgroup must reach), so the range stays the block's; likewise with the pass off.
// CHECK-LABEL: tile.kernel @causal_d64
// CHECK: } consumer {
// CHECK: %[[LO:lo[_0-9]*]], %[[HI:hi[_0-9]*]] = tile.row_range %{{.*}}, %{{.*}} {group_rows = 64 : i64, rows = 192 : i64}
// CHECK: scf.for
// CHECK: arith.cmpi sle, %[[LO]], %[[HI]] : index
// CHECK: tile.mbarrier_wait
// CHECK: tile.mbarrier_wait
// CHECK-NEXT: scf.if
// CHECK: tile.gemm
// CHECK: tile.gemm {{.*}} memref<192x64xf32, #tile.space<fragment>>
// CHECK-NEXT: }
// CHECK-NEXT: tile.mbarrier_arrive
// CHECK-NEXT: tile.mbarrier_arrive
// OFF-LABEL: tile.kernel @causal_d64
// OFF: tile.row_range %{{.*}}, %{{.*}} {rows = 192 : i64}
// CUDA-LABEL: causal_d64(
// CUDA: const int [[LO:v[0-9]+]] = v{{[0-9]+}} + metaattn::dev::wg::index() * 64;  // tile.row_range: this warpgroup's rows
// CUDA-NEXT: const int [[HI:v[0-9]+]] = ::min(v{{[0-9]+}}, [[LO]] + 63);
func.func @causal_d64(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> (tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>) {
  %o, %l = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 1.250000000e-01 : f32
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
    } : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
  return %o, %l : tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>
}

// -----

// Without a mask no tile is skipped: the loop body stays unguarded and no range is needed.
// CHECK-LABEL: tile.kernel @mha_d64
// CHECK-NOT: tile.row_range
// CHECK: tile.return
func.func @mha_d64(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> (tensor<?x?x2x64xbf16>, tensor<?x2x?xf32>) {
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

