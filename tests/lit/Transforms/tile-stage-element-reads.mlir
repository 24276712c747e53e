// A bias matrix [H, Sq, Skv] read per score element in a warp-specialised kernel: the window
// of each kv tile is copied into a shared tile right after the async score gemm is issued
// (each consumer warpgroup its own 64 rows, after a warpgroup barrier: its readers of the
// previous tile are done), and both score loops (masked, unmasked) wait for the copies and
// read the tile at their own indices. No element read of the bias is left.
// RUN: metaattn-opt %s --metaattn-lower="target=sm_90a" | FileCheck %s
// RUN: metaattn-opt %s --metaattn-lower="target=sm_90a" | metaattn-translate --tile-to-cuda | FileCheck %s --check-prefix=CUDA
// Without the pass, with ping-pong turns (a warpgroup barrier would hold the turns up) and
// without warp specialisation (sm_80: cp.async groups of its own pipeline) the reads stay.
// RUN: metaattn-opt %s --metaattn-lower="target=sm_90a stage-reads=0" | FileCheck %s --check-prefix=LEFT
// RUN: metaattn-opt %s --metaattn-lower="target=sm_90a pingpong=1" | FileCheck %s --check-prefix=LEFT
// RUN: metaattn-opt %s --metaattn-lower="target=sm_80" | FileCheck %s --check-prefix=LEFT
// The CPU tile executor copies the whole window (the union of the warpgroups' rows): lengths
// past a tile, a last query tile with rows past the sequence, kv tiles past the keys.
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=2 --seq-q=130 --seq-kv=77 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --target=sm_90a --batch=1 --seq-q=1 --seq-kv=1 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --target=sm_90a --persistent --batch=1 --seq-q=257 --seq-kv=300 | FileCheck %s --check-prefix=EXEC
// With stage-ahead: the first kv tile's window is copied before the kv loop (after a
// warpgroup barrier), each iteration copies the next one's (iv + 1, while below the bound)
// right after the score loops, waiting for its own copy and its warpgroup's readers first,
// also on the path where the warpgroup skips the tile; nothing is in flight after the loop.
// RUN: metaattn-opt %s --metaattn-lower="target=sm_90a stage-ahead=1" | FileCheck %s --check-prefix=AHEAD
// RUN: metaattn-run %s --device=cpu --target=sm_90a --stage-ahead --batch=2 --seq-q=130 --seq-kv=77 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --target=sm_90a --stage-ahead --batch=1 --seq-q=1 --seq-kv=1 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %s --device=cpu --target=sm_90a --stage-ahead --persistent --batch=1 --seq-q=257 --seq-kv=300 | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: tile.kernel @bias
// CHECK: %[[TILE:.*]] = tile.alloc : memref<128x128xf32, #tile.space<shared>>
// CHECK-NEXT: tile.warp_specialize producer
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[S:.*]] {async, tile.wgmma, transpose_b}
// CHECK-NEXT: tile.barrier {warpgroup}
// CHECK-NEXT: tile.copy %arg3[%{{.*}}, %{{.*}}, %{{.*}}] to %[[TILE]] {async, dims = array<i64: 1, 2>, group_rows = 64 : i64}
// CHECK-NEXT: tile.async_commit
// CHECK: tile.gemm_wait
// CHECK: tile.async_wait 0
// CHECK-NEXT: tile.barrier {warpgroup}
// CHECK-NEXT: tile.parallel (%[[I:.*]], %[[J:.*]]) in [128, 128]
// CHECK: memref.load %[[TILE]][%[[I]], %[[J]]]
// CHECK: tile.async_wait 0
// CHECK-NEXT: tile.barrier {warpgroup}
// CHECK-NEXT: tile.parallel (%[[I2:.*]], %[[J2:.*]]) in [128, 128]
// CHECK: memref.load %[[TILE]][%[[I2]], %[[J2]]]
// CHECK-NOT: tile.read %arg3
// CHECK: tile.return

// CUDA: metaattn::dev::wg::groupBarrier();  // tile.barrier {warpgroup}
// CUDA: metaattn::dev::block::loadTileRowsAsync<128, 64>({{.*}}, input0, {{.*}}, 1, 2, metaattn::dev::wg::index() * 64, (int)threadIdx.x % 128);
// CUDA-NEXT: metaattn::dev::block::asyncCommit();
// CUDA: metaattn::dev::block::asyncWait<0>();
// CUDA-NEXT: metaattn::dev::wg::groupBarrier();
// CUDA: .template fragAt<P{{[0-9]+}}>(e{{[0-9]+}});

// AHEAD-LABEL: tile.kernel @bias
// AHEAD: %[[TILE:.*]] = tile.alloc : memref<128x128xf32, #tile.space<shared>>
// AHEAD: tile.barrier {warpgroup}
// AHEAD-NEXT: %[[FIRST:.*]] = arith.muli %[[LB:[a-z0-9]+]], %c128 : index
// AHEAD-NEXT: tile.copy %arg3[%{{.*}}, %{{.*}}, %[[FIRST]]] to %[[TILE]] {async, dims = array<i64: 1, 2>, group_rows = 64 : i64}
// AHEAD-NEXT: tile.async_commit
// AHEAD-NEXT: scf.for %[[IV:[a-z0-9]+]] = %[[LB]] to %[[UB:[a-z0-9]+]] step %[[STEP:[a-z0-9]+]]
// AHEAD-NEXT: %[[NEXT:.*]] = arith.addi %[[IV]], %[[STEP]] : index
// AHEAD-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : index
// AHEAD: tile.gemm %{{.*}}, %{{.*}}, %[[S:.*]] {async, tile.wgmma, transpose_b}
// AHEAD-NOT: tile.copy
// AHEAD: tile.async_wait 0
// AHEAD-NEXT: tile.barrier {warpgroup}
// AHEAD-NEXT: tile.parallel
// AHEAD: memref.load %[[TILE]]
// AHEAD: tile.async_wait 0
// AHEAD-NEXT: tile.barrier {warpgroup}
// AHEAD-NEXT: tile.parallel
// AHEAD: memref.load %[[TILE]]
// AHEAD: scf.if %[[MORE]] {
// AHEAD-NEXT: tile.async_wait 0
// AHEAD-NEXT: tile.barrier {warpgroup}
// AHEAD-NEXT: %[[K0:.*]] = arith.muli %[[NEXT]], %c128 : index
// AHEAD-NEXT: tile.copy %arg3[%{{.*}}, %{{.*}}, %[[K0]]] to %[[TILE]] {async, dims = array<i64: 1, 2>, group_rows = 64 : i64}
// AHEAD-NEXT: tile.async_commit
// AHEAD: } else {
// AHEAD: scf.if %[[MORE]] {
// AHEAD-NEXT: tile.async_wait 0
// AHEAD-NEXT: tile.barrier {warpgroup}
// AHEAD: tile.copy %arg3[%{{.*}}] to %[[TILE]] {async, dims = array<i64: 1, 2>, group_rows = 64 : i64}
// AHEAD-NEXT: tile.async_commit
// AHEAD: tile.async_wait 0
// AHEAD-NOT: tile.copy %arg3
// AHEAD-NOT: tile.read %arg3
// AHEAD: tile.return

// LEFT-LABEL: tile.kernel @bias
// LEFT-NOT: group_rows = 64
// LEFT: tile.read %arg3
// LEFT-NOT: tile.barrier {warpgroup}

// EXEC: PASS bias
func.func @bias(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>, %b: tensor<4x?x?xf32>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v inputs(%b : tensor<4x?x?xf32>) score {
  ^bb0(%s: f32, %bi: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %x: f32):
    %c = arith.constant 1.250000e-01 : f32
    %m = arith.mulf %s, %c : f32
    %y = arith.addf %m, %x : f32
    attn.yield %y : f32
  } mask {
  ^bb0(%bi: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %x: f32):
    %d = arith.subi %skv, %sq : index
    %e = arith.addi %qi, %d : index
    %p = arith.cmpi sle, %ki, %e : index
    attn.yield %p : i1
  } normalizer {
  ^bb0(%s: f32, %bi: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index, %x: f32):
    %m = attn.row_reduce max %s : f32
    %d = arith.subf %s, %m : f32
    %e = math.exp %d : f32
    %l = attn.row_reduce sum %e : f32
    attn.normalize %e, %l : f32, f32
  } {input_dims = ["h,q,kv"]} : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}
