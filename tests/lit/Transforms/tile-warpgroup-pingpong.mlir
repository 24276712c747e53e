// RUN: metaattn-opt %s -split-input-file -tile-warpgroup-pingpong | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-warpgroup-pingpong -tile-warpgroup-pingpong | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-warpgroup-pingpong | metaattn-translate --tile-to-cuda -split-input-file | FileCheck %s --check-prefix=CUDA

// Two consumer warpgroups: the consumer region starts and finishes the turn order, and each
// run of consecutive gemms (here QK alone, then PV alone, with element-wise work between)
// becomes one section. The producer region is untouched. Running the pass twice changes
// nothing.
// CHECK-LABEL: tile.kernel @two
// CHECK: tile.warp_specialize producer {
// CHECK-NOT: tile.warpgroup_turn
// CHECK: } consumer {
// CHECK-NEXT: tile.warpgroup_turn "start"
// CHECK-NOT: tile.warpgroup_turn
// CHECK: scf.for
// CHECK: tile.mbarrier_wait
// CHECK-NEXT: tile.stage
// CHECK-NEXT: tile.warpgroup_turn "wait"
// CHECK-NEXT: tile.gemm
// CHECK-NEXT: tile.gemm
// CHECK-NEXT: tile.warpgroup_turn "pass"
// CHECK-NEXT: tile.fill
// CHECK-NEXT: tile.warpgroup_turn "wait"
// CHECK-NEXT: tile.gemm
// CHECK-NEXT: tile.warpgroup_turn "pass"
// CHECK-NEXT: tile.mbarrier_arrive
// CHECK: tile.warpgroup_turn "finish"
// CHECK-NEXT: }
// CUDA-LABEL: two(
// CUDA: metaattn::dev::wg::turnStart<2>();
// CUDA: metaattn::dev::wg::turnWait<2>();
// CUDA-NEXT: metaattn::dev::warp::gemmSS<true>(
// CUDA-NEXT: metaattn::dev::warp::gemmSS<true>(
// CUDA-NEXT: metaattn::dev::wg::turnPass<2>();
// CUDA: metaattn::dev::wg::turnFinish<2>();
tile.kernel @two(%k: !tile.tensor<?x128xbf16>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 384 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f0 = arith.constant 0.0 : f32
  %ring = tile.alloc : memref<2x64x128xbf16, #tile.space<shared>>
  %full = tile.alloc : memref<2xi64, #tile.space<shared>>
  %empty = tile.alloc : memref<2xi64, #tile.space<shared>>
  tile.mbarrier_init %full, 1 : memref<2xi64, #tile.space<shared>>
  tile.mbarrier_init %empty, 8 : memref<2xi64, #tile.space<shared>>
  tile.barrier
  tile.warp_specialize producer {
    scf.for %j = %c0 to %c4 step %c1 {
      %slot = arith.remui %j, %c1 : index
      tile.mbarrier_wait %empty[%slot], %c1 : memref<2xi64, #tile.space<shared>>
      tile.mbarrier_arrive_expect_tx %full[%slot], 16384 : memref<2xi64, #tile.space<shared>>
      %st = tile.stage %ring[%slot] : memref<2x64x128xbf16, #tile.space<shared>> -> memref<64x128xbf16, #tile.space<shared>>
      tile.tma_copy %k[%j, %c0] to %st, %full[%slot] {dims = array<i64: 0, 1>} : <?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>, memref<2xi64, #tile.space<shared>>
    }
  } consumer {
    %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
    %s = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x64xf32, #tile.space<fragment>>
    %o = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x128xf32, #tile.space<fragment>>
    %p = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x64xbf16, #tile.space<fragment>>
    scf.for %j = %c0 to %c4 step %c1 {
      %slot = arith.remui %j, %c1 : index
      tile.mbarrier_wait %full[%slot], %c0 : memref<2xi64, #tile.space<shared>>
      %st = tile.stage %ring[%slot] : memref<2x64x128xbf16, #tile.space<shared>> -> memref<64x128xbf16, #tile.space<shared>>
      tile.gemm %qs, %st, %s {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
      tile.gemm %qs, %st, %s {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
      tile.fill %o, %f0 : memref<128x128xf32, #tile.space<fragment>>, f32
      tile.gemm %p, %st, %o : memref<128x64xbf16, #tile.space<fragment>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
      tile.mbarrier_arrive %empty[%slot] : memref<2xi64, #tile.space<shared>>
    }
  } {consumer_threads = 256 : i64}
  tile.return
}

// -----

// wgmma gemms are only issued inside the turn: each becomes async, the turn passes right
// after the last issue, and the warpgroup waits for its gemms after passing, so the next
// warpgroup's gemms queue behind them on the tensor cores.
// CHECK-LABEL: tile.kernel @two_wgmma
// CHECK: } consumer {
// CHECK: scf.for
// CHECK: tile.warpgroup_turn "wait"
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[S:.*]] {async, tile.wgmma, transpose_b}
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[S]] {async, tile.wgmma, transpose_b}
// CHECK-NEXT: tile.warpgroup_turn "pass"
// CHECK-NEXT: tile.gemm_wait 0, %[[S]] :
// CHECK-NEXT: tile.fill
// CHECK-NEXT: tile.warpgroup_turn "wait"
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[O:.*]] {async, tile.wgmma}
// CHECK-NEXT: tile.warpgroup_turn "pass"
// CHECK-NEXT: tile.gemm_wait 0, %[[O]] :
// CHECK-NEXT: tile.mbarrier_arrive
// CUDA-LABEL: two_wgmma(
// CUDA: metaattn::dev::wg::turnWait<2>();
// CUDA-NEXT: metaattn::dev::wg::gemmSS<true, false>(
// CUDA-NEXT: metaattn::dev::wg::gemmSS<true, false>(
// CUDA-NEXT: metaattn::dev::wg::turnPass<2>();
// CUDA-NEXT: metaattn::dev::wg::waitGemms<0>(
tile.kernel @two_wgmma(%k: !tile.tensor<?x128xbf16>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 384 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f0 = arith.constant 0.0 : f32
  %ring = tile.alloc : memref<2x64x128xbf16, #tile.space<shared>>
  %full = tile.alloc : memref<2xi64, #tile.space<shared>>
  %empty = tile.alloc : memref<2xi64, #tile.space<shared>>
  tile.mbarrier_init %full, 1 : memref<2xi64, #tile.space<shared>>
  tile.mbarrier_init %empty, 8 : memref<2xi64, #tile.space<shared>>
  tile.barrier
  tile.warp_specialize producer {
    scf.for %j = %c0 to %c4 step %c1 {
      %slot = arith.remui %j, %c1 : index
      tile.mbarrier_wait %empty[%slot], %c1 : memref<2xi64, #tile.space<shared>>
      tile.mbarrier_arrive_expect_tx %full[%slot], 16384 : memref<2xi64, #tile.space<shared>>
      %st = tile.stage %ring[%slot] : memref<2x64x128xbf16, #tile.space<shared>> -> memref<64x128xbf16, #tile.space<shared>>
      tile.tma_copy %k[%j, %c0] to %st, %full[%slot] {dims = array<i64: 0, 1>} : <?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>, memref<2xi64, #tile.space<shared>>
    }
  } consumer {
    %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
    %s = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x64xf32, #tile.space<fragment>>
    %o = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x128xf32, #tile.space<fragment>>
    %p = tile.alloc {layout = #tile.layout<"mma", warps = 8>} : memref<128x64xbf16, #tile.space<fragment>>
    scf.for %j = %c0 to %c4 step %c1 {
      %slot = arith.remui %j, %c1 : index
      tile.mbarrier_wait %full[%slot], %c0 : memref<2xi64, #tile.space<shared>>
      %st = tile.stage %ring[%slot] : memref<2x64x128xbf16, #tile.space<shared>> -> memref<64x128xbf16, #tile.space<shared>>
      tile.gemm %qs, %st, %s {tile.wgmma, transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
      tile.gemm %qs, %st, %s {tile.wgmma, transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
      tile.fill %o, %f0 : memref<128x128xf32, #tile.space<fragment>>, f32
      tile.gemm %p, %st, %o {tile.wgmma} : memref<128x64xbf16, #tile.space<fragment>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
      tile.mbarrier_arrive %empty[%slot] : memref<2xi64, #tile.space<shared>>
    }
  } {consumer_threads = 256 : i64}
  tile.return
}

// -----

// One consumer warpgroup: nobody to take turns with.
// CHECK-LABEL: tile.kernel @one
// CHECK-NOT: tile.warpgroup_turn
tile.kernel @one(%k: !tile.tensor<?x128xbf16>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %ring = tile.alloc : memref<2x64x128xbf16, #tile.space<shared>>
  %full = tile.alloc : memref<2xi64, #tile.space<shared>>
  %empty = tile.alloc : memref<2xi64, #tile.space<shared>>
  tile.mbarrier_init %full, 1 : memref<2xi64, #tile.space<shared>>
  tile.mbarrier_init %empty, 4 : memref<2xi64, #tile.space<shared>>
  tile.barrier
  tile.warp_specialize producer {
    tile.mbarrier_arrive_expect_tx %full[%c0], 16384 : memref<2xi64, #tile.space<shared>>
  } consumer {
    %qs = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
    %s = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x64xf32, #tile.space<fragment>>
    %st = tile.stage %ring[%c0] : memref<2x64x128xbf16, #tile.space<shared>> -> memref<64x128xbf16, #tile.space<shared>>
    tile.mbarrier_wait %full[%c0], %c0 : memref<2xi64, #tile.space<shared>>
    tile.gemm %qs, %st, %s {transpose_b} : memref<64x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  } {consumer_threads = 128 : i64}
  tile.return
}
