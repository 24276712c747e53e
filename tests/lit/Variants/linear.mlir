// frontend/variants/linear.mlir (built by the linear factories, see VariantFilesTest.cpp)
// through the chunked kernel on the CPU tile executor, checked against the token-by-token
// reference: lengths 1, just past a chunk (65) and over two chunks (130).
// RUN: metaattn-run %S/../../../frontend/variants/linear.mlir --device=cpu --batch=2 --seq-q=1 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/linear.mlir --device=cpu --batch=1 --seq-q=65 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/linear.mlir --device=cpu --batch=2 --seq-q=130 | FileCheck %s
// RUN: metaattn-opt %S/../../../frontend/variants/linear.mlir --metaattn-lower | FileCheck %s --check-prefix=LOWER
// The fused kernel (GLA too: its key dim, 48, is one key tile), on sm_90a and sm_80:
// RUN: metaattn-run %S/../../../frontend/variants/linear.mlir --device=cpu --fused-chunks --batch=2 --seq-q=1 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/linear.mlir --device=cpu --fused-chunks --batch=2 --seq-q=130 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/linear.mlir --device=cpu --fused-chunks --target=sm_80 --batch=1 --seq-q=65 | FileCheck %s
// RUN: metaattn-opt %S/../../../frontend/variants/linear.mlir --metaattn-lower="fused-chunks=1" | FileCheck %s --check-prefix=FUSED

// CHECK-NOT: FAIL
// CHECK: PASS linear_attention
// CHECK: PASS linear_attention_states
// CHECK: PASS retnet_recurrent
// CHECK: PASS gated_retention
// CHECK: PASS gla_vector
// CHECK: PASS mamba2_ssd
// CHECK: PASS mamba2_ssd_groups
// CHECK-NOT: FAIL

// LOWER: tile.kernel @linear_attention
// LOWER-NOT: tile.scan
// LOWER: tile.kernel @linear_attention_states
// LOWER: tile.kernel @retnet_recurrent
// LOWER: tile.scan {{.*}} : memref<64xf32
// LOWER: tile.kernel @gla_vector
// LOWER: tile.scan {{.*}} : memref<64x64xf32
// LOWER: scf.for
// LOWER: tile.kernel @mamba2_ssd

// One kernel per function, a block per (value tile, head, batch), no chunk-states buffer; the
// chunk's Q Kᵀ, Q S and state update issued together, the update left in flight until P V.
// FUSED: tile.kernel @linear_attention(
// FUSED-NOT: chunk_states
// FUSED-SAME: grid = array<i64: -1, 0, 2, -1, 0, 2, 0, 0, 1>
// FUSED-SAME: tile.bindings = ["arg:0", "arg:1", "arg:2", "result:0"]
// FUSED: tile.kernel @linear_attention_states(
// FUSED-SAME: {tile.name = "o"}, %arg5: !tile.tensor<?x2x40x24xf32> {tile.name = "final_state"})
// FUSED: tile.kernel @retnet_recurrent(
// FUSED-NOT: tile.kernel
// FUSED: tile.gemm {{.*}} {async, tile.wgmma, transpose_b}
// FUSED-NEXT: tile.gemm {{.*}} {async, tile.wgmma}
// FUSED-NEXT: tile.gemm {{.*}} {async, tile.wgmma, transpose_a}
// FUSED-NEXT: tile.gemm_wait 1, %{{.*}}, %{{[^ ]*}} :
// FUSED: tile.gemm {{.*}} {tile.wgmma} : memref<64x64xbf16, #tile.space<fragment>>
// FUSED-NEXT: tile.gemm_wait 0, %{{[^ ]*}} :
// FUSED: tile.copy {{.*}} : memref<64x64xf32, #tile.space<fragment>> to memref<64x64xbf16, #tile.space<shared>>
// FUSED: tile.kernel @gated_retention(
// FUSED: tile.kernel @gla_vector(
// FUSED: tile.kernel @mamba2_ssd(
// FUSED: tile.kernel @mamba2_ssd_groups(
