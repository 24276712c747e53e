// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile | FileCheck %s
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="block-m=128 block-n=32 warps=8 stages=3" | FileCheck %s --check-prefix=CFG

// One block per 64 query rows of one (head, batch); K and V in a pipelined loop over the
// visible kv tiles; the causal mask only on partial tiles, and there only once: masked scores
// are stored as -inf, whose weight exp(-inf - m) is 0 without a second test.
// CHECK-LABEL: tile.kernel @causal
// CHECK-SAME: tile.name = "q"
// CHECK-SAME: tile.name = "o"
// CHECK-SAME: grid = array<i64: 0, 1, 64, -1, 0, 4, 0, 0, 1>
// CHECK-SAME: threads = 128
// CHECK: %[[QT:.*]] = tile.block_id 0
// CHECK: %[[SQ:.*]] = tile.dim %{{.*}}, 1
// CHECK: %[[QS:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// CHECK: %[[KS:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// CHECK: %[[VS:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// CHECK: %[[S:.*]] = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
// CHECK: %[[P:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
// CHECK: %[[O:.*]] = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
// CHECK: tile.copy %{{.*}}[%{{.*}}] to %[[QS]] {dims = array<i64: 1, 3>}
// CHECK: tile.barrier
// CHECK: tile.pipelined %[[J:.*]] = %{{.*}} to %{{.*}} stages 2 {
// CHECK: tile.copy %{{.*}} to %[[KS]]
// CHECK: tile.copy %{{.*}} to %[[VS]]
// CHECK: tile.gemm %[[QS]], %[[KS]], %[[S]] {transpose_b}
// CHECK: tile.parallel
// CHECK: scf.if
// CHECK: arith.cmpi sle
// CHECK: tile.reduce max
// CHECK-NOT: arith.cmpi sle
// CHECK: math.exp
// CHECK-NOT: arith.cmpi sle
// CHECK: tile.reduce sum
// CHECK: tile.gemm %[[P]], %[[VS]], %[[O]]
// CHECK: }
// CHECK: arith.divf
// CHECK: tile.copy %[[O]] to %{{.*}}[%{{.*}}] {dims = array<i64: 1, 3>}
// CHECK: tile.return

// CFG-LABEL: tile.kernel @causal
// CFG-SAME: grid = array<i64: 0, 1, 128, -1, 0, 4, 0, 0, 1>
// CFG-SAME: threads = 256
// CFG: memref<32x64xbf16, #tile.space<shared>>
// CFG: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages 3
func.func @causal(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
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
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}
