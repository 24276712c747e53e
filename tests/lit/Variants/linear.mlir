// frontend/variants/linear.mlir (built by the linear factories, see VariantFilesTest.cpp)
// through the chunked kernel on the CPU tile executor, checked against the token-by-token
// reference: lengths 1, just past a chunk (65) and over two chunks (130).
// RUN: metaattn-run %S/../../../frontend/variants/linear.mlir --device=cpu --batch=2 --seq-q=1 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/linear.mlir --device=cpu --batch=1 --seq-q=65 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/linear.mlir --device=cpu --batch=2 --seq-q=130 | FileCheck %s
// RUN: metaattn-opt %S/../../../frontend/variants/linear.mlir --metaattn-lower | FileCheck %s --check-prefix=LOWER

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
