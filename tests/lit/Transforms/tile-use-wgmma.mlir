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

// Adjacent wgmma gemms, none reading another's accumulator (the output kernel of linear
// attention: scores += Q Kᵀ and out += Q S), are issued together and waited for once; a
// gemm that reads an earlier one's accumulator starts a new group. Gemms into one
// accumulator share a group (wgmma orders them), its wait naming the accumulator once.
// CHECK-LABEL: tile.kernel @issued_together
// CHECK: tile.gemm %[[Q:.*]], %[[K:.*]], %[[S:.*]] {async, tile.wgmma, transpose_b}
// CHECK-NEXT: tile.gemm %[[Q]], %[[ST:.*]], %[[O:.*]] {async, tile.wgmma}
// CHECK-NEXT: tile.gemm_wait 0, %[[S]], %[[O]] :
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[O]] {async, tile.wgmma}
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[O]] {async, tile.wgmma}
// CHECK-NEXT: tile.gemm_wait 0, %[[O]] :
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

// -----

// The fused linear kernel's chunk: Q Kᵀ and Q S (two key tiles each, into the same two
// accumulators) and the state updates Kᵀ V̂ are issued together. The updates' accumulators
// and operands are untouched until the synchronous P V gemm, so the first wait leaves them
// in flight (2 pending) and a second one after P V fences their registers.
// CHECK-LABEL: tile.kernel @deferred_updates
// CHECK-COUNT-6: {async, tile.wgmma
// CHECK-NEXT: tile.gemm_wait 2, %[[S:.*]], %[[O:[^ ]*]] :
// CHECK-NEXT: tile.copy %[[S]]
// CHECK-NEXT: tile.gemm {{.*}} {tile.wgmma}
// CHECK-NEXT: tile.gemm_wait 0, %[[U0:.*]], %[[U1:[^ ]*]] :
// CHECK-NEXT: tile.copy %[[U0]]
tile.kernel @deferred_updates(%t: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %q0 = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %q1 = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %k0 = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %k1 = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %st0 = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %st1 = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %v = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %vh = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %p = tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
  %o = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %u0 = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %u1 = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %q0, %k0, %s {transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %q0, %st0, %o : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %q1, %k1, %s {transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %q1, %st1, %o : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %k0, %vh, %u0 {transpose_a} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %k1, %vh, %u1 {transpose_a} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.copy %s to %p : memref<64x64xf32, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<fragment>>
  tile.gemm %p, %v, %o : memref<64x64xbf16, #tile.space<fragment>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.copy %u0 to %st0 : memref<64x64xf32, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<shared>>
  tile.copy %u1 to %st1 : memref<64x64xf32, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<shared>>
  tile.return
}

// -----

// Nothing stays in flight when the stretch before the next gemm touches a trailing gemm's
// operand (here the update's V̂ tile is rewritten), nor without a synchronous gemm after the
// group (the last three gemms form one group at the block's end).
// CHECK-LABEL: tile.kernel @not_deferred
// CHECK: tile.gemm_wait 0, %[[S:.*]], %[[U:[^ ]*]] :
// CHECK-NEXT: tile.copy %[[S]]
// CHECK-NEXT: tile.copy
// CHECK-COUNT-3: {async, tile.wgmma
// CHECK-NEXT: tile.gemm_wait 0, %{{.*}}, %{{.*}}, %{{[^ ]*}} :
// CHECK-NEXT: tile.return
tile.kernel @not_deferred(%t: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %q = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %k = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %v = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %vh = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %p = tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
  %o = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %u = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %q, %k, %s {transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %k, %vh, %u {transpose_a} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.copy %s to %p : memref<64x64xf32, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<fragment>>
  tile.copy %p to %vh : memref<64x64xbf16, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<shared>>
  tile.gemm %p, %v, %o : memref<64x64xbf16, #tile.space<fragment>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %q, %k, %s {transpose_b} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %k, %vh, %u {transpose_a} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.return
}

// -----

// A group wholly deferrable (the fused kernel's update once V̂ sits in Q's first tile) gets no
// wait of its own, and a single such gemm goes async too: both complete at the synchronous
// P V gemm, whose following wait fences their accumulators.
// CHECK-LABEL: tile.kernel @deferred_whole_group
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[U0:[0-9]+]] {async, tile.wgmma, transpose_a}
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[U1:[0-9]+]] {async, tile.wgmma, transpose_a}
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.gemm {{.*}} {tile.wgmma}
// CHECK-NEXT: tile.gemm_wait 0, %[[U0]], %[[U1]] :
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[U2:[0-9]+]] {async, tile.wgmma, transpose_a}
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.gemm {{.*}} {tile.wgmma}
// CHECK-NEXT: tile.gemm_wait 0, %[[U2]] :
tile.kernel @deferred_whole_group(%t: !tile.tensor<?x64xbf16>) attributes {grid = array<i64: 0, 0, 64, -1, 0, 1, -1, 0, 1>, threads = 128 : i64} {
  %k0 = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %k1 = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %vh = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %v = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
  %s = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %p = tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
  %o = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %u0 = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %u1 = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  %u2 = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %k0, %vh, %u0 {transpose_a} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %k1, %vh, %u1 {transpose_a} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.copy %s to %p : memref<64x64xf32, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<fragment>>
  tile.gemm %p, %v, %o : memref<64x64xbf16, #tile.space<fragment>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.gemm %k0, %vh, %u2 {transpose_a} : memref<64x64xbf16, #tile.space<shared>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.copy %s to %p : memref<64x64xf32, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<fragment>>
  tile.gemm %p, %v, %o : memref<64x64xbf16, #tile.space<fragment>>, memref<64x64xbf16, #tile.space<shared>>, memref<64x64xf32, #tile.space<fragment>>
  tile.return
}
