// RUN: metaattn-opt %s -split-input-file -tile-infer-layout -tile-use-wgmma | FileCheck %s
// RUN: metaattn-opt %s -split-input-file -tile-infer-layout -tile-use-wgmma="target=sm_90" | FileCheck %s --check-prefix=SM90

// Two warpgroups (256 threads), 128 query rows: Q·Kᵀ from shared tiles with 128-byte rows
// and P·V with P in registers both fit wgmma. Between them P is computed from S, so each is
// waited for on its own.
// CHECK-LABEL: tile.kernel @attention_gemms
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {tile.wgmma, transpose_b}
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {tile.wgmma}
// CHECK-NOT: gemm_wait
// Without wgmma on the target nothing is marked.
// SM90-LABEL: tile.kernel @attention_gemms
// SM90-NOT: tile.wgmma
tile.kernel @attention_gemms(%t: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %q = tile.alloc : memref<128x64xbf16, #tile.space<shared>>
  %k = tile.alloc : memref<128x64xbf16, #tile.space<shared>>
  %v = tile.alloc : memref<128x128xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x128xf32, #tile.space<fragment>>
  %p = tile.alloc : memref<128x128xbf16, #tile.space<fragment>>
  %o = tile.alloc : memref<128x128xf32, #tile.space<fragment>>
  tile.gemm %q, %k, %s {transpose_b} : memref<128x64xbf16, #tile.space<shared>>, memref<128x64xbf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
  tile.copy %s to %p : memref<128x128xf32, #tile.space<fragment>> to memref<128x128xbf16, #tile.space<fragment>>
  tile.gemm %p, %v, %o : memref<128x128xbf16, #tile.space<fragment>>, memref<128x128xbf16, #tile.space<shared>>, memref<128x128xf32, #tile.space<fragment>>
  tile.return
}

// -----

// Adjacent wgmma gemms into different accumulators, none reading another's (the output
// kernel of linear attention: scores += Q Kᵀ and out += Q S), are issued together and
// waited for once; a third gemm that reads the first one's accumulator starts a new group,
// and a lone gemm stays synchronous.
// CHECK-LABEL: tile.kernel @issued_together
// CHECK: tile.gemm %[[Q:.*]], %[[K:.*]], %[[S:.*]] {async, tile.wgmma, transpose_b}
// CHECK-NEXT: tile.gemm %[[Q]], %[[ST:.*]], %[[O:.*]] {async, tile.wgmma}
// CHECK-NEXT: tile.gemm_wait 0, %[[S]], %[[O]]
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[O]] {tile.wgmma}
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[O]] {tile.wgmma}
// CHECK-NEXT: tile.return
// SM90-LABEL: tile.kernel @issued_together
// SM90-NOT: async
// SM90-NOT: gemm_wait
tile.kernel @issued_together(%t: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %q = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %k = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %st = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %v = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %p = tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
  %o = tile.alloc : memref<64x128xf32, #tile.space<fragment>>
  tile.gemm %q, %k, %s {transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %q, %st, %o : memref<64x64xbf16, #tile.space<shared>>, memref<64x128xbf16, #tile.space<shared>>, memref<64x128xf32, #tile.space<fragment>>
  tile.copy %s to %p : memref<64x64xf32, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<fragment>>
  tile.gemm %p, %v, %o : memref<64x64xbf16, #tile.space<fragment>>, memref<64x128xbf16, #tile.space<shared>>, memref<64x128xf32, #tile.space<fragment>>
  tile.gemm %p, %v, %o : memref<64x64xbf16, #tile.space<fragment>>, memref<64x128xbf16, #tile.space<shared>>, memref<64x128xf32, #tile.space<fragment>>
  tile.return
}

// -----

// Gemms that keep mma.sync: 2 warps are not a warpgroup; 32 rows per warp; shared rows of
// 80 bytes (not whole 128-byte swizzle blocks).
// CHECK-LABEL: tile.kernel @two_warps
// CHECK-NOT: tile.wgmma
tile.kernel @two_warps(%t: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 32, -1, 0, 1, -1, 0, 1>, threads = 64 : i64} {
  %q = tile.alloc : memref<32x64xbf16, #tile.space<shared>>
  %k = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<32x64xf32, #tile.space<fragment>>
  tile.gemm %q, %k, %s {transpose_b} : memref<32x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<32x64xf32, #tile.space<fragment>>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @not_fitting
// CHECK-NOT: tile.wgmma
// CHECK: tile.return
tile.kernel @not_fitting(%t: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %q = tile.alloc : memref<128x64xbf16, #tile.space<shared>>
  %k = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  tile.gemm %q, %k, %s {transpose_b} : memref<128x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
  %q2 = tile.alloc : memref<128x40xbf16, #tile.space<shared>>
  %k2 = tile.alloc : memref<64x40xbf16, #tile.space<shared>>
  %s2 = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  tile.gemm %q2, %k2, %s2 {transpose_b} : memref<128x40xbf16, #tile.space<shared>>, memref<64x40xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
  tile.return
}

// -----

// The state update Kᵀ V with K stored as loaded (tokens x key dims, transpose_a): two
// warpgroups, each reading one 64-column block of Kᵀ, fit wgmma (imm-trans-a); with one
// warp per 32 rows of the state it stays on mma.sync (warp::gemmTS).
// CHECK-LABEL: tile.kernel @state_update
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {tile.wgmma, transpose_a}
// CHECK-LABEL: tile.kernel @state_update_32_rows_per_warp
// CHECK-NOT: tile.wgmma
// CHECK: tile.return
tile.kernel @state_update(%t: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 256 : i64} {
  %k = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %v = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  tile.gemm %k, %v, %s {transpose_a} : memref<64x128xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
  tile.return
}
tile.kernel @state_update_32_rows_per_warp(%t: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 128, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %k = tile.alloc : memref<64x128xbf16, #tile.space<shared>>
  %v = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<128x64xf32, #tile.space<fragment>>
  tile.gemm %k, %v, %s {transpose_a} : memref<64x128xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<128x64xf32, #tile.space<fragment>>
  tile.return
}
