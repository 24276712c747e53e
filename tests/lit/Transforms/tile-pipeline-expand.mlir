// RUN: metaattn-opt %s -tile-pipeline-plan -tile-pipeline-expand | FileCheck %s

// Two stages: the K buffer gains a stage dimension; the prologue issues iteration lo; each
// iteration waits for its own copies, synchronises, issues iteration j+1 into the other stage
// and computes on stage (j - lo) mod 2.
// CHECK-LABEL: tile.kernel @expand
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[KS2:.*]] = tile.alloc : memref<2x64x64xbf16, #tile.space<shared>>
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %{{.*}}, %[[C4]] : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[ST0:.*]] = tile.stage %[[KS2]][%{{.*}}]
// CHECK: tile.copy %{{.*}} to %[[ST0]] {async, dims = array<i64: 0, 1>}
// CHECK: }
// CHECK-NEXT: tile.async_commit
// CHECK: scf.for %[[J:.*]] = %[[C0]] to %[[C4]] step %{{.*}} {
// CHECK-NEXT: tile.async_wait 0
// CHECK-NEXT: tile.barrier
// CHECK: %[[NEXT:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: scf.if
// CHECK: tile.copy {{.*}} {async, dims = array<i64: 0, 1>}
// CHECK: tile.async_commit
// CHECK: %[[REL:.*]] = arith.subi %[[J]], %[[C0]] : index
// CHECK: %[[SLOT:.*]] = arith.remui %[[REL]], %{{.*}} : index
// CHECK: %[[CUR:.*]] = tile.stage %[[KS2]][%[[SLOT]]]
// CHECK: tile.gemm %{{.*}}, %[[CUR]], %{{.*}} {transpose_b}
// CHECK: }
// CHECK: tile.async_wait 0
// CHECK-NOT: tile.pipelined
tile.kernel @expand(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
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
