// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-pipeline-plan -tile-warp-specialize=verbose=1 2>&1 | FileCheck %s --check-prefix=WHY

// A loop over the kept tiles of a map: the producer recomputes the list (its test and the
// values the test uses from above) and walks it as the consumers do.
// CHECK-LABEL: tile.kernel @walk
// CHECK: tile.warp_specialize producer {
// CHECK: %[[LIST:.*]], %[[N:.*]] = tile.kept_tiles
// CHECK: tile.read
// CHECK: tile.keep
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[N]]
// CHECK: tile.tile_at %[[LIST]][%[[R]]]
// CHECK: tile.tma_copy
// CHECK: } consumer {
// CHECK: tile.kept_tiles
// CHECK: tile.tile_at
tile.kernel @walk(%k: !tile.tensor<?x64xbf16>, %map: !tile.tensor<?xi32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i32
  %ks = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %list, %n = tile.kept_tiles %j = %c0 to %c8 {
    %m = tile.read %map[%j] : !tile.tensor<?xi32> -> i32
    %keep = arith.cmpi ne, %m, %zero : i32
    tile.keep %keep
  }
  tile.pipelined %r = %c0 to %n stages 2 {
    %j = tile.tile_at %list[%r]
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
    tile.copy %ks to %s : memref<64x64xbf16, #tile.space<shared>> to memref<64x64xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// The test reads a tensor the kernel writes: the producer could not rely on reading what the
// consumers read, so the loop stays on cp.async.
// CHECK-LABEL: tile.kernel @written
// CHECK-NOT: tile.warp_specialize
// WHY: remark: not warp-specialised: the loop bounds or copy origins depend on an op the producer cannot recompute
tile.kernel @written(%k: !tile.tensor<?x64xbf16>, %map: !tile.tensor<?xi32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i32
  %ks = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %flags = tile.alloc : memref<64xi32, #tile.space<shared>>
  %list, %n = tile.kept_tiles %j = %c0 to %c8 {
    %m = tile.read %map[%j] : !tile.tensor<?xi32> -> i32
    %keep = arith.cmpi ne, %m, %zero : i32
    tile.keep %keep
  }
  tile.pipelined %r = %c0 to %n stages 2 {
    %j = tile.tile_at %list[%r]
    %kv0 = arith.muli %j, %c64 : index
    tile.copy %k[%kv0, %c0] to %ks {dims = array<i64: 0, 1>} : !tile.tensor<?x64xbf16> to memref<64x64xbf16, #tile.space<shared>>
    tile.copy %ks to %s : memref<64x64xbf16, #tile.space<shared>> to memref<64x64xf32, #tile.space<fragment>>
  }
  tile.copy %flags to %map[%c0] {dims = array<i64: 0>} : memref<64xi32, #tile.space<shared>> to !tile.tensor<?xi32>
  tile.return
}
