// frontend/variants/relu.mlir (built by the factory, see VariantFilesTest.cpp) through the
// whole compiler on the CPU tile executor, checked against the reference evaluator; and
// lowered to tile IR by metaattn-opt.
// RUN: metaattn-run %S/../../../frontend/variants/relu.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s
// More queries than keys: relu_causal_norm in empty-row-lse.mlir.
// RUN: metaattn-run %S/../../../frontend/variants/relu.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 --function=relu_plain | FileCheck %s --check-prefix=MORE-Q
// RUN: metaattn-opt %S/../../../frontend/variants/relu.mlir --metaattn-lower | FileCheck %s --check-prefix=LOWER

// CHECK-NOT: FAIL
// CHECK: PASS relu_causal_norm
// CHECK: PASS relu_plain
// CHECK-NOT: FAIL
// MORE-Q: PASS relu_plain

// LOWER: tile.kernel @relu_causal_norm
// LOWER: tile.kernel @relu_plain
