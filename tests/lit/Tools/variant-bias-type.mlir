// metaattn-variant relative_bias --bias-type: a bf16 bias matrix is an input of that type,
// widened to f32 where the score reads it; in the warp-specialised kernel its window is staged
// through a bf16 shared tile (half the bytes of f32's), and the kernel matches the oracle on the
// CPU tile executor at lengths around a tile. A type other than f32, bf16 or f16 is an error.
// RUN: metaattn-variant relative_bias --bias-type=bf16 --heads=2 --dim=64 --causal --name=f > %t.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: metaattn-opt %t.mlir --metaattn-lower="target=sm_90a" | FileCheck %s --check-prefix=TILE
// RUN: metaattn-run %t.mlir --device=cpu --target=sm_90a --batch=2 --seq-q=130 --seq-kv=77 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-run %t.mlir --device=cpu --target=sm_90a --batch=1 --seq-q=1 --seq-kv=1 | FileCheck %s --check-prefix=EXEC
// RUN: metaattn-variant relative_bias --bias-type=f16 --heads=2 --dim=64 --name=f | FileCheck %s --check-prefix=F16
// RUN: not metaattn-variant relative_bias --bias-type=i8 2>&1 | FileCheck %s --check-prefix=BAD

// IR: func.func @f({{.*}}, %arg3: tensor<2x?x?xbf16>)
// IR: score {
// IR: arith.extf %{{.*}} : bf16 to f32

// TILE: tile.alloc : memref<128x128xbf16, #tile.space<shared>>
// TILE: tile.copy %arg3[{{.*}}] to %{{.*}} {async, dims = array<i64: 1, 2>, group_rows = 64 : i64} : !tile.tensor<2x?x?xbf16>

// EXEC: PASS f

// F16: tensor<2x?x?xf16>

// BAD: error: --bias-type must be f32, bf16 or f16, got 'i8'
