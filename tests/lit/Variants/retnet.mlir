// frontend/variants/retnet.mlir (built by the factory, see VariantFilesTest.cpp) through the
// whole compiler on the CPU tile executor, checked against the reference evaluator; and
// lowered to tile IR by metaattn-opt.
// RUN: metaattn-run %S/../../../frontend/variants/retnet.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s
// More queries than keys: retnet_parallel, retnet_parallel_gqa in empty-row-lse.mlir.
// RUN: metaattn-opt %S/../../../frontend/variants/retnet.mlir --metaattn-lower | FileCheck %s --check-prefix=LOWER

// CHECK-NOT: FAIL
// CHECK: PASS retnet_parallel
// CHECK: PASS retnet_parallel_gqa
// CHECK-NOT: FAIL

// LOWER: tile.kernel @retnet_parallel
// LOWER: tile.kernel @retnet_parallel_gqa
