// Blocks renumbered batch-fastest where a custom input over query or key positions has no
// batch axis (a bias matrix every batch entry reads): the launch's x-fastest order (query
// tiles, heads, batch) becomes batch, query tile, head, so the blocks in flight at once read
// the same rows of the bias while they are in L2. Inputs with a batch axis, or over heads
// alone, keep the launch order.
// RUN: metaattn-opt %s -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile="target=sm_90a" | FileCheck %s
// The renumbering reaches the producer of a warp-specialised kernel (its divisions by tensor
// extents are recomputed there) and the persistent plan's tile coordinates.
// RUN: metaattn-opt %s --metaattn-lower | FileCheck %s --check-prefix=WS
// RUN: metaattn-opt %s --metaattn-lower="persistent=1" | FileCheck %s --check-prefix=PERSIST
// The kernels on the CPU tile executor (its blocks run in launch order), lengths just past a
// tile and batches that do not divide the grid.
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=3 --seq-q=130 --seq-kv=77 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --target=sm_80 --batch=5 --seq-q=129 --seq-kv=200 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --target=sm_90a --persistent --batch=2 --seq-q=257 --seq-kv=129 | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: tile.kernel @shared_bias
// CHECK: %[[X:.*]] = tile.block_id 0
// CHECK-NEXT: %[[H:.*]] = tile.block_id 1
// CHECK-NEXT: %[[Z:.*]] = tile.block_id 2
// CHECK: %[[TILES:.*]] = arith.ceildivsi
// CHECK-NEXT: %[[B:.*]] = tile.dim %arg0, 0
// CHECK: %[[ZH:.*]] = arith.muli %[[Z]], %c4
// CHECK-NEXT: %[[HZ:.*]] = arith.addi %[[H]], %[[ZH]]
// CHECK-NEXT: %[[T:.*]] = arith.muli %[[TILES]], %[[HZ]]
// CHECK-NEXT: %[[LIN:.*]] = arith.addi %[[X]], %[[T]]
// CHECK-NEXT: %[[BATCH:.*]] = arith.remui %[[LIN]], %[[B]]
// CHECK-NEXT: %[[REST:.*]] = arith.divui %[[LIN]], %[[B]]
// CHECK-NEXT: arith.remui %[[REST]], %[[TILES]]
// CHECK-NEXT: %[[HEAD:.*]] = arith.divui %[[REST]], %[[TILES]]
// CHECK: arith.divui %[[HEAD]], %c2
// WS-LABEL: tile.kernel @shared_bias
// WS: tile.warp_specialize producer {
// WS: %[[BATCH:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// WS: tile.tma_copy %arg0[%[[BATCH]],
// WS: } consumer {
// PERSIST-LABEL: tile.kernel @shared_bias
// PERSIST: tile.warp_specialize producer {
// PERSIST: scf.for
// PERSIST-NOT: tile.block_id 1
// PERSIST: arith.remui
// EXEC: PASS shared_bias
// EXEC: PASS batched_bias
func.func @shared_bias(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>,
                       %bias: tensor<4x?x?xf32>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%bias : tensor<4x?x?xf32>) score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sq: index, %skv: index, %x: f32):
    %c = arith.constant 0.125 : f32
    %t = arith.mulf %s, %c : f32
    %r = arith.addf %t, %x : f32
    attn.yield %r : f32
  } mask {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %sq: index, %skv: index, %x: f32):
    %d = arith.subi %skv, %sq : index
    %e = arith.addi %i, %d : index
    %m = arith.cmpi sle, %j, %e : index
    attn.yield %m : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sq: index, %skv: index, %x: f32):
    %m = attn.row_reduce max %s : f32
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %l = attn.row_reduce sum %e : f32
    attn.normalize %e, %l : f32, f32
  } {input_dims = ["h,q,kv"]} : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}

// A batch axis: the launch order.
// CHECK-LABEL: tile.kernel @batched_bias
// CHECK: tile.block_id 2
// CHECK-NOT: arith.remui
// CHECK: tile.dim %arg1, 1
func.func @batched_bias(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>,
                        %bias: tensor<?x4x?x?xf32>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%bias : tensor<?x4x?x?xf32>) score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sq: index, %skv: index, %x: f32):
    %r = arith.addf %s, %x : f32
    attn.yield %r : f32
  } mask {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %sq: index, %skv: index, %x: f32):
    %true = arith.constant true
    attn.yield %true : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sq: index, %skv: index, %x: f32):
    %m = attn.row_reduce max %s : f32
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %l = attn.row_reduce sum %e : f32
    attn.normalize %e, %l : f32, f32
  } {input_dims = ["b,h,q,kv"]} : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}
