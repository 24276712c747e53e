// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -verify-diagnostics | FileCheck %s

// The K copy and the index arithmetic feeding it are stage 0; the gemm is stage 1.
// CHECK-LABEL: tile.kernel @plan
// CHECK: tile.pipelined
// CHECK: arith.muli {{.*}} {tile.pipeline_stage = 0 : i64}
// CHECK: tile.copy {{.*}} tile.pipeline_stage = 0 : i64
// CHECK: tile.gemm {{.*}} {tile.pipeline_stage = 1 : i64, transpose_b}
// CHECK: } {tile.pipeline_planned}
tile.kernel @plan(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %qs = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  tile.pipelined %j = %c0 to %c4 stages 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
    tile.gemm %qs, %ks, %s {transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// A prefetched buffer that is also filled later in the loop cannot be multi-buffered.
// CHECK-LABEL: tile.kernel @conflict
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages 1
tile.kernel @conflict(%k: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %ks = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %z = arith.constant 0.0 : bf16
  // expected-remark @+1 {{not pipelined: a prefetched shared buffer is also written by a later op of the loop}}
  tile.pipelined %j = %c0 to %c4 stages 2 {
    tile.copy %k[%j, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
    tile.fill %ks, %z : memref<64x64xbf16, #tile.space<shared>>, bf16
  }
  tile.return
}
