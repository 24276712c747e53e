// frontend/variants/sigmoid.mlir (built by the factory, see VariantFilesTest.cpp) through the
// whole compiler on the CPU tile executor, checked against the reference evaluator; and
// lowered to tile IR by metaattn-opt.
// RUN: metaattn-run %S/../../../frontend/variants/sigmoid.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s
// More queries than keys: sigmoid_head_bias in empty-row-lse.mlir.
// RUN: metaattn-run %S/../../../frontend/variants/sigmoid.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 --function=sigmoid_full_bias | FileCheck %s --check-prefix=MORE-Q
// RUN: metaattn-opt %S/../../../frontend/variants/sigmoid.mlir --metaattn-lower | FileCheck %s --check-prefix=LOWER

// CHECK-NOT: FAIL
// CHECK: PASS sigmoid_head_bias
// CHECK: PASS sigmoid_full_bias
// CHECK-NOT: FAIL
// MORE-Q: PASS sigmoid_full_bias

// LOWER: tile.kernel @sigmoid_head_bias
// LOWER: tile.kernel @sigmoid_full_bias
