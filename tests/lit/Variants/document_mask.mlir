// frontend/variants/document_mask.mlir (built by the factory, see VariantFilesTest.cpp) through the
// whole compiler on the CPU tile executor, checked against the reference evaluator; and
// lowered to tile IR by metaattn-opt.
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/document_mask.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-opt %S/../../../frontend/variants/document_mask.mlir --metaattn-lower | FileCheck %s --check-prefix=LOWER

// CHECK-NOT: FAIL
// CHECK: PASS document_mask_causal
// CHECK: PASS document_mask_bidirectional
// CHECK-NOT: FAIL

// LOWER: tile.kernel @document_mask_causal
// LOWER: tile.kernel @document_mask_bidirectional
