// RUN: metaattn-opt %s --convert-attn-to-tile | FileCheck %s
// RUN: metaattn-opt %s --convert-attn-to-tile="state-rows=32 state-warps=2" | FileCheck %s --check-prefix=ROWS
// RUN: not metaattn-opt %s --convert-attn-to-tile="state-rows=48" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: metaattn-opt %s --convert-attn-to-tile="staged-state-stores=false" | FileCheck %s --check-prefix=UNSTAGED

// The states kernel's blocks as asked: 32 rows of the state over two warps (two key tiles).
// ROWS-LABEL: tile.kernel @gated_step0
// ROWS-SAME: grid = array<i64: -1, 0, 2, -1, 0, 4, 0, 0, 1>
// ROWS-SAME: threads = 64
// Key tiles vary fastest along blockIdx.x (a division by their count, a power of two).
// ROWS: %[[X:.*]] = tile.block_id 0
// ROWS: %[[KT:.*]] = arith.remui %[[X]], %c2
// ROWS-NEXT: arith.muli %[[KT]], %c32
// ROWS: arith.divui %[[X]], %c2
// ROWS: tile.alloc : memref<64x32xbf16, #tile.space<shared>>
// ROWS: tile.alloc : memref<32x32xf32, #tile.space<fragment>>
// ROWS-LABEL: tile.kernel @gated_step1
// ROWS-SAME: threads = 128
// Without staging the chunk states go out pair by pair (no staging tile, no `via`).
// UNSTAGED-LABEL: tile.kernel @gated_step0
// UNSTAGED-NOT: via
// UNSTAGED: tile.copy %{{.*}} to %arg5[{{.*}}] {dims = array<i64: 3, 4>} : memref<64x32xf32, #tile.space<fragment>>
// UNSTAGED-LABEL: tile.kernel @gated_step1
// BAD: states kernel config needs the state's rows per block to divide the padded key dim (64) and to be a multiple of 16·warps, got 48 rows, 1 warps

// The chunked algorithm is two kernels. @gated_step0 walks the chunks of one (key tile x
// value tile, head, batch) with its part of the state in registers: it writes the state
// entering each chunk to the chunk-states buffer (parameter 5, [B, H, ceil(S/64), 64, 32]
// bf16; through a shared staging tile, which still leaves three blocks per multiprocessor),
// scans the gates in f32 right after they arrive (without gate_mod the copy's zero
// fill past the sequence is their masking: no pass over them), applies v_mod (its per-head input read once, at the start) and scales the rows of V
// by exp(G_last - G) in one pass in place, decays the state by exp(G_last) and adds Kᵀ V,
// reading K as stored (transpose_a). @gated_step1 handles one
// (chunk, head x value tile, batch): V and the gates once, then a pipelined loop over the key
// tiles adding Q Kᵀ to the scores and Q times the entering state's rows to the output; after
// it the output rows are scaled by exp(G), the scores decayed by exp(G_i - G_j) below the
// diagonal, and P V added.

func.func @gated(%q: tensor<?x?x2x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x4x32xbf16>,
                 %g: tensor<?x?x4xf32>, %scale: tensor<4xf32>) -> tensor<?x?x4x32xbf16> {
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x4xf32>) inputs(%scale : tensor<4xf32>)
    v_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index, %s: f32):
      %y = arith.mulf %x, %s : f32
      attn.yield %y : f32
    } {gate_kind = #attn<gate token>, input_dims = ["h"]}
    : tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x4x32xbf16> -> tensor<?x?x4x32xbf16>
  return %o : tensor<?x?x4x32xbf16>
}

// CHECK-LABEL: tile.kernel @gated_step0
// CHECK-SAME: tile.name = "chunk_states"
// CHECK-SAME: grid = array<i64: -1, 0, 1, -1, 0, 4, 0, 0, 1>
// CHECK-SAME: tile.bindings = ["arg:0", "arg:1", "arg:2", "arg:3", "arg:4", "temp:0"]
// CHECK: %[[X:.*]] = tile.block_id 0
// CHECK: %[[KTILE:.*]] = arith.remui %[[X]]
// CHECK-NEXT: %[[K0:.*]] = arith.muli %[[KTILE]], %c64
// CHECK: %[[K:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// CHECK-NEXT: %[[V:.*]] = tile.alloc : memref<64x32xbf16, #tile.space<shared>>
// CHECK-NEXT: %[[GATES:.*]] = tile.alloc : memref<64xf32, #tile.space<shared>>
// CHECK-NEXT: %[[SCALE:.*]] = tile.read %arg4[%{{.*}}] : <4xf32> -> f32
// CHECK-NEXT: %[[STATE:.*]] = tile.alloc : memref<64x32xf32, #tile.space<fragment>>
// CHECK-NEXT: %[[STAGE:.*]] = tile.alloc : memref<64x32xbf16, #tile.space<shared>>
// CHECK: tile.fill %[[STATE]]
// CHECK: tile.pipelined {{.*}} stages 3
// CHECK: tile.copy %arg1[{{.*}}, %[[K0]]] to %[[K]]
// CHECK-NEXT: tile.copy %arg2
// CHECK-NEXT: tile.copy %arg3[{{.*}}] to %[[GATES]] {dims = array<i64: 1>} : !tile.tensor<?x?x4xf32> to memref<64xf32, #tile.space<shared>>
// CHECK-NEXT: tile.copy %[[STATE]] to %arg5[{{.*}}, %[[K0]], {{.*}}] via %[[STAGE]] : memref<64x32xbf16, #tile.space<shared>> {dims = array<i64: 3, 4>} : memref<64x32xf32, #tile.space<fragment>> to !tile.tensor<?x4x?x64x32xbf16>
// CHECK-NEXT: tile.scan %[[GATES]] : memref<64xf32, #tile.space<shared>>
// CHECK-NEXT: tile.barrier
// CHECK: tile.parallel (%[[J:.*]], %[[C:.*]]) in [64, 32]
// CHECK-NOT: tile.read %arg4
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: math.exp
// CHECK: memref.store {{.*}}, %[[V]][%[[J]], %[[C]]]
// CHECK: tile.parallel
// CHECK: math.exp
// CHECK: memref.store {{.*}}, %[[STATE]]
// CHECK: tile.barrier
// CHECK-NEXT: tile.gemm %[[K]], %[[V]], %[[STATE]] {transpose_a}

// CHECK-LABEL: tile.kernel @gated_step1
// CHECK-SAME: grid = array<i64: 0, 1, 64, -1, 0, 4, 0, 0, 1>
// CHECK-SAME: tile.bindings = ["arg:0", "arg:1", "arg:2", "arg:3", "arg:4", "temp:0", "result:0"]
// CHECK: %[[K:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// CHECK-NEXT: %[[V:.*]] = tile.alloc : memref<64x32xbf16, #tile.space<shared>>
// CHECK-NEXT: %[[Q:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// CHECK-NEXT: %[[STATES:.*]] = tile.alloc : memref<64x32xbf16, #tile.space<shared>>
// CHECK-NEXT: %[[GATES:.*]] = tile.alloc : memref<64xf32, #tile.space<shared>>
// CHECK-NEXT: tile.read %arg4
// CHECK-NEXT: %[[SCORES:.*]] = tile.alloc : memref<64x64xf32, #tile.space<fragment>>
// CHECK-NEXT: %[[P:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
// CHECK-NEXT: %[[OUT:.*]] = tile.alloc : memref<64x32xf32, #tile.space<fragment>>
// CHECK: tile.copy %arg2{{.*}} to %[[V]] {async, dims = array<i64: 1, 3>}
// CHECK-NEXT: tile.copy %arg3{{.*}} to %[[GATES]] {async, dims = array<i64: 1>}
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: tile.async_wait 0
// CHECK-NEXT: tile.barrier
// CHECK: tile.scan %[[GATES]]
// CHECK: tile.pipelined %[[KT:.*]] = %{{.*}} to %{{.*}} stages 2
// CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[KK:.*]] = arith.muli %[[KT]], %[[C64]]
// CHECK-NEXT: tile.copy %arg0[{{.*}}, %[[KK]]] to %[[Q]]
// CHECK-NEXT: tile.copy %arg1[{{.*}}, %[[KK]]] to %[[K]]
// CHECK-NEXT: tile.copy %arg5[{{.*}}, %[[KK]], {{.*}}] to %[[STATES]] {dims = array<i64: 3, 4>}
// CHECK-NEXT: tile.gemm %[[Q]], %[[K]], %[[SCORES]] {transpose_b}
// CHECK-NEXT: tile.gemm %[[Q]], %[[STATES]], %[[OUT]]
// CHECK-NEXT: }
// CHECK-NEXT: tile.async_wait 0
// CHECK-NEXT: tile.barrier
// CHECK: memref.store {{.*}}, %[[V]]
// CHECK: tile.barrier
// CHECK: math.exp
// CHECK: memref.store {{.*}}, %[[OUT]]
// CHECK: arith.cmpi sle
// CHECK: math.exp
// CHECK: memref.store {{.*}}, %[[P]]
// CHECK: tile.gemm %[[P]], %[[V]], %[[OUT]]
// CHECK-NEXT: tile.copy %[[OUT]] to %arg6

// With gate_mod (Mamba2's A·dt) the gates go through it in a pass over the chunk that also
// zeroes them past the sequence (the modifier of a zero need not be zero), then the scan.
func.func @modified_gate(%q: tensor<?x?x1x64xbf16>, %k: tensor<?x?x1x64xbf16>, %v: tensor<?x?x8x64xbf16>,
                         %g: tensor<?x?x8xf32>, %dt: tensor<?x?x8xf32>, %a: tensor<8xf32>) -> tensor<?x?x8x64xbf16> {
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x8xf32>) inputs(%dt, %a : tensor<?x?x8xf32>, tensor<8xf32>)
    gate_mod {
    ^bb0(%x: f32, %b: index, %t: index, %h: index, %d: index, %dtv: f32, %av: f32):
      %r = arith.mulf %av, %dtv : f32
      attn.yield %r : f32
    } {gate_kind = #attn<gate token>, input_dims = ["b,t,h", "h"]}
    : tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16>, tensor<?x?x8x64xbf16> -> tensor<?x?x8x64xbf16>
  return %o : tensor<?x?x8x64xbf16>
}

// CHECK-LABEL: tile.kernel @modified_gate_step0
// CHECK: tile.pipelined
// CHECK: tile.parallel (%[[R:.*]]) in [64]
// CHECK: memref.load %{{.*}}[%[[R]]]
// CHECK-NEXT: %[[DT:.*]] = memref.load %{{.*}}[%[[R]]]
// CHECK-NEXT: %[[M:.*]] = arith.mulf %{{.*}}, %[[DT]] : f32
// CHECK: %[[Z:.*]] = arith.select %{{.*}}, %[[M]], %{{.*}} : f32
// CHECK: memref.store %[[Z]], %[[GATES:.*]][%[[R]]]
// CHECK: tile.barrier
// CHECK-NEXT: tile.scan %[[GATES]]
// CHECK-NEXT: tile.barrier
// CHECK-LABEL: tile.kernel @modified_gate_step1
