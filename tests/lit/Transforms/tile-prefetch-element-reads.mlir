// RUN: metaattn-opt %s -split-input-file -tile-prefetch-element-reads | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-prefetch-element-reads | metaattn-translate -split-input-file --tile-to-cuda | FileCheck %s --check-prefix=CUDA

// A bias matrix read per score element after an async score gemm: its rows' lines (columns
// 0 and 32, 32 f32 to a 128-byte line, and the last column 47) are prefetched into L1 right
// after the gemm, before the wait, a row to a thread; the reads stay. The masked and unmasked loops read the same
// elements: one prefetch loop. A read along the rows (the kv axis not last) and a per-row read
// are not prefetched.
// CHECK-LABEL: tile.kernel @bias
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[S:.*]] {async, tile.wgmma, transpose_b}
// CHECK-NEXT: tile.parallel (%[[R:.*]]) in [64] {
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[Q:.*]] = arith.addi %{{.*}}, %[[R]]
// CHECK-NEXT: %[[K:.*]] = arith.addi %[[K0:.*]], %[[C0]]
// CHECK-NEXT: tile.prefetch %arg1[%[[H:.*]], %[[Q]], %[[K]]] {level = 1 : i64} : <4x?x?xf32>
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[Q2:.*]] = arith.addi %{{.*}}, %[[R]]
// CHECK-NEXT: %[[K2:.*]] = arith.addi %[[K0]], %[[C32]]
// CHECK-NEXT: tile.prefetch %arg1[%[[H]], %[[Q2]], %[[K2]]] {level = 1 : i64}
// CHECK-NEXT: %[[C47:.*]] = arith.constant 47 : index
// CHECK-NEXT: %[[Q3:.*]] = arith.addi %{{.*}}, %[[R]]
// CHECK-NEXT: %[[K3:.*]] = arith.addi %[[K0]], %[[C47]]
// CHECK-NEXT: tile.prefetch %arg1[%[[H]], %[[Q3]], %[[K3]]] {level = 1 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: tile.gemm_wait 0, %[[S]]
// CHECK-NOT: tile.prefetch
// CHECK: tile.read %arg1
// CHECK: tile.read %arg1
// CHECK-NOT: tile.prefetch
// CHECK: tile.return

// CUDA: metaattn_prefetch(
// CUDA: asm volatile("prefetch.global.L1 [%0];" :: "l"(p));
// CUDA: __launch_bounds__(128) bias(
// CUDA: metaattn::dev::wg::gemmSS<{{.*}}>
// CUDA-NEXT: // tile.parallel [64] over shared buffers: indices spread over the threads
// CUDA: metaattn_prefetch<float, 1>(
// CUDA: metaattn::dev::wg::waitGemms<0>
tile.kernel @bias(%q: !tile.tensor<?x?xbf16>, %bias: !tile.tensor<4x?x?xf32>, %t: !tile.tensor<4x?x?xf32>, %rowb: !tile.tensor<?xf32>, %o: !tile.tensor<?xf32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 4>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %ninf = arith.constant 0xFF800000 : f32
  %h = tile.block_id 1
  %qt = tile.block_id 0
  %q0 = arith.muli %qt, %c64 : index
  %qs = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<48x64xbf16, #tile.space<shared>>
  %f = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x48xf32, #tile.space<fragment>>
  scf.for %j = %c0 to %c4 step %c1 {
    %k0 = arith.muli %j, %c48 : index
    %edge = arith.cmpi eq, %j, %c0 : index
    tile.gemm %qs, %ks, %f {async, tile.wgmma, transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<48x64xbf16, #tile.space<shared>>, memref<64x48xf32, #tile.space<fragment>>
    tile.gemm_wait 0, %f : memref<64x48xf32, #tile.space<fragment>>
    scf.if %edge {
      tile.parallel (%i, %k) in [64, 48] {
        %x = memref.load %f[%i, %k] : memref<64x48xf32, #tile.space<fragment>>
        %qi = arith.addi %q0, %i : index
        %ki = arith.addi %k0, %k : index
        %bb = tile.read %bias[%h, %qi, %ki] : <4x?x?xf32> -> f32
        %y = arith.addf %x, %bb : f32
        %in = arith.cmpi ule, %ki, %qi : index
        %z = arith.select %in, %y, %ninf : f32
        memref.store %z, %f[%i, %k] : memref<64x48xf32, #tile.space<fragment>>
      }
    } else {
      tile.parallel (%i, %k) in [64, 48] {
        %x = memref.load %f[%i, %k] : memref<64x48xf32, #tile.space<fragment>>
        %qi = arith.addi %q0, %i : index
        %ki = arith.addi %k0, %k : index
        %bb = tile.read %bias[%h, %qi, %ki] : <4x?x?xf32> -> f32
        %tt = tile.read %t[%h, %ki, %qi] : <4x?x?xf32> -> f32
        %rb = tile.read %rowb[%qi] : <?xf32> -> f32
        %y = arith.addf %x, %bb : f32
        %y2 = arith.addf %y, %tt : f32
        %y3 = arith.addf %y2, %rb : f32
        memref.store %y3, %f[%i, %k] : memref<64x48xf32, #tile.space<fragment>>
      }
    }
  }
  tile.return
}

// -----

// A sync gemm (the mma.sync path), or an output read: nothing is prefetched.
// CHECK-LABEL: tile.kernel @sync
// CHECK-NOT: tile.prefetch
// CHECK: tile.return
tile.kernel @sync(%bias: !tile.tensor<?x?xf32>, %o: !tile.tensor<?x?xf32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 1>} {
  %qs = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<32x64xbf16, #tile.space<shared>>
  %f = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x32xf32, #tile.space<fragment>>
  tile.gemm %qs, %ks, %f {transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<32x64xbf16, #tile.space<shared>>, memref<64x32xf32, #tile.space<fragment>>
  tile.parallel (%i, %k) in [64, 32] {
    %x = memref.load %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
    %bb = tile.read %bias[%i, %k] : <?x?xf32> -> f32
    %ov = tile.read %o[%i, %k] : <?x?xf32> -> f32
    %y = arith.addf %x, %bb : f32
    %y2 = arith.addf %y, %ov : f32
    memref.store %y2, %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
  }
  tile.return
}

// -----

// A block map read at (q / 16, kv / 16): neighbouring columns read the same element, so no
// line is worth prefetching.
// CHECK-LABEL: tile.kernel @block_map
// CHECK-NOT: tile.prefetch
// CHECK: tile.return
tile.kernel @block_map(%map: !tile.tensor<?x?xi32>, %o: !tile.tensor<?xf32>) attributes {grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64, tile.outputs = array<i64: 1>} {
  %c16 = arith.constant 16 : index
  %ninf = arith.constant 0xFF800000 : f32
  %qs = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %ks = tile.alloc : memref<32x64xbf16, #tile.space<shared>>
  %f = tile.alloc {layout = #tile.layout<"mma", warps = 4>} : memref<64x32xf32, #tile.space<fragment>>
  tile.gemm %qs, %ks, %f {async, tile.wgmma, transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<32x64xbf16, #tile.space<shared>>, memref<64x32xf32, #tile.space<fragment>>
  tile.gemm_wait 0, %f : memref<64x32xf32, #tile.space<fragment>>
  tile.parallel (%i, %k) in [64, 32] {
    %x = memref.load %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
    %qb = arith.divui %i, %c16 : index
    %kb = arith.divui %k, %c16 : index
    %keep = tile.read %map[%qb, %kb] : <?x?xi32> -> i32
    %zero = arith.constant 0 : i32
    %on = arith.cmpi ne, %keep, %zero : i32
    %y = arith.select %on, %x, %ninf : f32
    memref.store %y, %f[%i, %k] : memref<64x32xf32, #tile.space<fragment>>
  }
  tile.return
}
