// RUN: metaattn-opt %s -tile-pipeline-plan -tile-pipeline-expand | FileCheck %s --check-prefix=IR
// RUN: metaattn-opt %s -tile-pipeline-plan -tile-pipeline-expand | metaattn-translate --tile-to-cuda | FileCheck %s

// A strided vector (one f32 per row of a chunk, like a gate per token: [T, H] read down T)
// prefetched by a pipelined loop: the pipeline gives it a stage dimension, and the CUDA
// emitter prints the multi-buffer as a staged SmemVec and the copy as loadVecAsync (4-byte
// cp.async); the in-place update of the current stage stays after the wait.
// IR: %[[G3:.*]] = tile.alloc : memref<3x64xf32, #tile.space<shared>>
// IR: %[[ST:.*]] = tile.stage %[[G3]][%{{.*}}] : memref<3x64xf32, #tile.space<shared>> -> memref<64xf32, #tile.space<shared>>
// IR: tile.copy %{{.*}} to %[[ST]] {async, dims = array<i64: 0>} : !tile.tensor<?x?xf32> to memref<64xf32, #tile.space<shared>>
// CHECK: metaattn::dev::SmemVec<float, 64, 3> [[G:v[0-9]+]](smem + 0);  // tile.alloc shared, 768 bytes
// CHECK: const auto [[S0:v[0-9]+]] = [[G]].stage(
// CHECK: const long long [[O:origin[0-9]+]][2] = {
// CHECK-NEXT: metaattn::dev::block::loadVecAsync<128>([[S0]], gate, [[O]], 0);
// CHECK: for (
// CHECK: metaattn::dev::block::asyncWait<1>();
// CHECK: loadVecAsync<128>(
// CHECK: metaattn::dev::block::scanRows<128>(
tile.kernel @staged_vector(%gate: !tile.tensor<?x?xf32> {tile.name = "gate"}) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %h = tile.block_id 1
  %g = tile.alloc : memref<64xf32, #tile.space<shared>>
  tile.pipelined %j = %c0 to %c4 stages 3 {
    %t0 = arith.muli %j, %c64 : index
    tile.copy %gate[%t0, %h] to %g {dims = array<i64: 0>} : !tile.tensor<?x?xf32> to memref<64xf32, #tile.space<shared>>
    tile.scan %g : memref<64xf32, #tile.space<shared>>
    tile.barrier
  }
  tile.return
}
