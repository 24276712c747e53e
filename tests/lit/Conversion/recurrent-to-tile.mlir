// RUN: metaattn-opt %s --convert-attn-to-tile | FileCheck %s

// The chunked schedule of a token-gated recurrence with a v modifier: the gates are read
// through gate_mod, zeroed past the sequence and scanned in f32; the chunk's scores are
// decayed by exp(G_i - G_j) below the diagonal; Q is scaled by exp(G) before the state gemm;
// K is scaled by exp(G_last - G), transposed and zeroed past the sequence before the state
// update; the state is decayed by exp(G_last) and kept in registers, with a 16-bit copy in
// shared memory for the next chunk's gemm.

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

// CHECK-LABEL: tile.kernel @gated
// CHECK-SAME: grid = array<i64: 2, 3, 32, -1, 0, 4, 0, 0, 1>
// CHECK: tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// CHECK-NEXT: tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// CHECK-NEXT: tile.alloc : memref<64x32xbf16, #tile.space<shared>>
// CHECK-NEXT: %[[KT:.*]] = tile.alloc : memref<64x64xbf16, #tile.space<shared>>
// CHECK-NEXT: %[[STATES:.*]] = tile.alloc : memref<64x32xbf16, #tile.space<shared>>
// CHECK-NEXT: %[[GATES:.*]] = tile.alloc : memref<64xf32, #tile.space<shared>>
// CHECK-NEXT: tile.alloc : memref<64x64xf32, #tile.space<fragment>>
// CHECK-NEXT: tile.alloc : memref<64x64xbf16, #tile.space<fragment>>
// CHECK-NEXT: %[[OUT:.*]] = tile.alloc : memref<64x32xf32, #tile.space<fragment>>
// CHECK-NEXT: %[[STATE:.*]] = tile.alloc : memref<64x32xf32, #tile.space<fragment>>
// CHECK: tile.fill %[[STATE]]
// CHECK: tile.pipelined
// CHECK-COUNT-3: tile.copy
// CHECK: tile.parallel
// CHECK: tile.read %{{.*}} : <?x?x4xf32> -> f32
// CHECK: arith.select
// CHECK: memref.store {{.*}}, %[[GATES]]
// CHECK: tile.barrier
// CHECK-NEXT: tile.scan %[[GATES]] : memref<64xf32, #tile.space<shared>>
// CHECK-NEXT: tile.barrier
// CHECK: tile.read %{{.*}} : <4xf32> -> f32
// CHECK: tile.gemm {{.*}} {transpose_b}
// CHECK: tile.parallel
// CHECK: arith.cmpi sle
// CHECK: math.exp
// CHECK: tile.gemm {{.*}}, %[[OUT]]
// CHECK: math.exp
// CHECK: tile.gemm {{.*}}, %[[STATES]], %[[OUT]]
// CHECK: tile.copy %[[OUT]] to
// CHECK: memref.store {{.*}}, %[[KT]]
// CHECK: tile.gemm %[[KT]], {{.*}}, %[[STATE]]
// CHECK: memref.store {{.*}}, %[[STATES]]
