// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize=persistent=1 | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize=persistent=1 | metaattn-opt -split-input-file | FileCheck %s

// Persistent mode: the grid's block count T is computed once from the grid triples
// (ceil(dim 0 of %q / 128) x 4 x 1); both sides loop over t = block_id to T step num_blocks
// (n), carrying the kv iterations of earlier tiles (ring slots and phases) and the tile count
// (query barrier phases). Round i = t / n is rotated by i: the tile is i*n + (t - i*n + i) mod
// min(n, T - i*n). Block coordinates are decoded from it, x fastest and reversed. The
// producer waits for the query tile's "empty" barrier (phase (k & 1) ^ 1), the consumers wait
// for its "full" one at phase k & 1 and arrive on "empty" after the kv loop, the last op that
// reads it.
// CHECK-LABEL: tile.kernel @ws
// CHECK-SAME: tile.persistent
// CHECK: %[[QFULL:.*]] = tile.alloc : memref<1xi64, #tile.space<shared>>
// CHECK: tile.mbarrier_init %[[QFULL]], 1
// CHECK: %[[QEMPTY:.*]] = tile.alloc : memref<1xi64, #tile.space<shared>>
// CHECK: tile.mbarrier_init %[[QEMPTY]], 8
// CHECK: %[[ROWS:.*]] = tile.dim %arg0, 0
// CHECK: %[[EX:.*]] = arith.ceildivsi %[[ROWS]], %{{.*}}
// CHECK: %[[EXY:.*]] = arith.muli %[[EX]], %{{.*}}
// CHECK: %[[TILES:.*]] = arith.muli %[[EXY]], %{{.*}}
// CHECK: tile.warp_specialize producer {
// CHECK: %[[I:.*]] = tile.block_id 0
// CHECK: %[[N:.*]] = tile.num_blocks 0
// CHECK: scf.for %[[T:.*]] = %[[I]] to %[[TILES]] step %[[N]] iter_args(%[[BASE:.*]] = %{{.*}}, %[[K:.*]] = %{{.*}}) -> (index, index)
// CHECK: %[[ROUND:.*]] = arith.divui %[[T]], %[[N]]
// CHECK: %[[RSTART:.*]] = arith.muli %[[ROUND]], %[[N]]
// CHECK: %[[P:.*]] = arith.subi %[[T]], %[[RSTART]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[TILES]], %[[RSTART]]
// CHECK: %[[M:.*]] = arith.minsi %[[N]], %[[LEFT]]
// CHECK: %[[PR:.*]] = arith.addi %[[P]], %[[ROUND]]
// CHECK: %[[TURNED:.*]] = arith.remui %[[PR]], %[[M]]
// CHECK: %[[TILE:.*]] = arith.addi %[[RSTART]], %[[TURNED]]
// CHECK: %[[XR:.*]] = arith.remui %[[TILE]], %[[EX]]
// CHECK: %[[LASTX:.*]] = arith.subi %[[EX]], %{{.*}}
// CHECK: %[[X:.*]] = arith.subi %[[LASTX]], %[[XR]]
// CHECK: %[[REST:.*]] = arith.divui %[[TILE]], %[[EX]]
// CHECK: %[[Y:.*]] = arith.remui %[[REST]], %{{.*}}
// CHECK-NOT: tile.block_id
// CHECK: %[[KODD:.*]] = arith.andi %[[K]], %{{.*}}
// CHECK: %[[EPAR:.*]] = arith.xori %[[KODD]], %{{.*}}
// CHECK: tile.mbarrier_wait %[[QEMPTY]][%{{.*}}], %[[EPAR]]
// CHECK: tile.mbarrier_arrive_expect_tx %[[QFULL]]
// CHECK: tile.tma_copy %arg0
// CHECK: scf.for %[[J:.*]] = %[[LO:.*]] to %[[HI:.*]] step
// CHECK: %[[REL:.*]] = arith.subi %[[J]], %[[LO]]
// CHECK: %[[TOTAL:.*]] = arith.addi %[[REL]], %[[BASE]]
// CHECK: arith.remui %[[TOTAL]], %{{.*}}
// CHECK: tile.tma_copy %arg1
// CHECK: }
// CHECK: %[[COUNT:.*]] = arith.subi %[[HI]], %[[LO]]
// CHECK: %[[NP:.*]] = arith.maxsi %[[COUNT]], %{{.*}}
// CHECK: %[[NEXT:.*]] = arith.addi %[[BASE]], %[[NP]]
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %{{.*}}
// CHECK: scf.yield %[[NEXT]], %[[K1]]
// CHECK: } consumer {
// CHECK: scf.for %[[CT:.*]] = %{{.*}} to %[[TILES]] step %{{.*}} iter_args(%[[CBASE:.*]] = %{{.*}}, %[[CK:.*]] = %{{.*}})
// CHECK-NOT: tile.block_id
// CHECK: %[[CPAR:.*]] = arith.andi %[[CK]], %{{.*}}
// CHECK: tile.mbarrier_wait %[[QFULL]][%{{.*}}], %[[CPAR]]
// CHECK-NOT: tile.barrier
// CHECK: scf.for %[[CJ:.*]] = %[[CLO:.*]] to %[[CHI:.*]] step
// CHECK: %[[CREL:.*]] = arith.subi %[[CJ]], %[[CLO]]
// CHECK: arith.addi %[[CREL]], %[[CBASE]]
// CHECK: tile.gemm
// CHECK-NEXT: tile.mbarrier_arrive
// CHECK-NEXT: }
// CHECK-NOT: tile.gemm
// CHECK: tile.mbarrier_arrive %[[QEMPTY]]
// The consumers write no shared buffer of their own: no barrier between tiles.
// CHECK-NOT: tile.barrier
// CHECK: scf.yield
tile.kernel @ws(%q: !tile.tensor<?x4x128xbf16>, %k: !tile.tensor<?x4x128xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 4, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %x = tile.block_id 0
  %h = tile.block_id 1
  %row0 = arith.muli %x, %c128 : index
  %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  %n = tile.dim %k, 0 : !tile.tensor<?x4x128xbf16>
  tile.copy %q[%row0, %h, %c0] to %qs {dims = array<i64: 0, 2>} : !tile.tensor<?x4x128xbf16> to memref<128x128xbf16, #tile.space<shared>>
  tile.barrier
  tile.pipelined %j = %c0 to %n stages 3 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %h, %c0] to %ks {dims = array<i64: 0, 2>} : !tile.tensor<?x4x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    tile.gemm %qs, %ks, %s {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// The consumers fill the query tile themselves (it stays their copy): the next tile's fill
// must wait until every consumer warp is done reading it, so each tile ends at a barrier.
// CHECK-LABEL: tile.kernel @q_written
// CHECK: } consumer {
// CHECK: scf.for
// CHECK: tile.fill %[[QW:.*]], %{{.*}}
// CHECK-NEXT: tile.copy %arg0[%{{.*}}, %{{.*}}] to %[[QW]]
// CHECK: tile.mbarrier_arrive
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier
// CHECK: scf.yield
tile.kernel @q_written(%q: !tile.tensor<?x64xbf16>, %k: !tile.tensor<?x128xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : bf16
  %qs = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  %n = tile.dim %k, 0 : !tile.tensor<?x128xbf16>
  tile.fill %qs, %zero : memref<128x128xbf16, #tile.space<shared>>, bf16
  tile.copy %q[%c0, %c0] to %qs {dims = array<i64: 0, 1>} : !tile.tensor<?x64xbf16> to memref<128x128xbf16, #tile.space<shared>>
  tile.barrier
  tile.pipelined %j = %c0 to %n stages 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x128xbf16> to memref<64x128xbf16, #tile.space<shared>>
    tile.gemm %qs, %ks, %s {transpose_b} : memref<128x128xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
  }
  tile.return
}

