// frontend/variants/sink.mlir (built by the factory, see VariantFilesTest.cpp) through the
// whole compiler on the CPU tile executor, checked against the reference evaluator; and
// lowered to tile IR by metaattn-opt.
// RUN: metaattn-run %S/../../../frontend/variants/sink.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/sink.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-opt %S/../../../frontend/variants/sink.mlir --metaattn-lower | FileCheck %s --check-prefix=LOWER

// CHECK-NOT: FAIL
// CHECK: PASS sink_causal
// CHECK: PASS sink_full
// CHECK-NOT: FAIL

// LOWER: tile.kernel @sink_causal
// LOWER: tile.kernel @sink_full
