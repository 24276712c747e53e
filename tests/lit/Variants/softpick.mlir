// frontend/variants/softpick.mlir (built by the factory, see VariantFilesTest.cpp) through the
// whole compiler on the CPU tile executor, checked against the reference evaluator; and
// lowered to tile IR by metaattn-opt.
// RUN: metaattn-run %S/../../../frontend/variants/softpick.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/softpick.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-opt %S/../../../frontend/variants/softpick.mlir --metaattn-lower | FileCheck %s --check-prefix=LOWER
// RUN: metaattn-opt %S/../../../frontend/variants/softpick.mlir -attn-mask-analysis -attn-online-normalize -convert-attn-to-tile | FileCheck %s --check-prefix=WEIGHTS

// CHECK-NOT: FAIL
// CHECK: PASS softpick_causal
// CHECK: PASS softpick_full
// CHECK-NOT: FAIL

// LOWER: tile.kernel @softpick_causal
// LOWER: tile.kernel @softpick_full

// Softpick's weight relu(exp(s - m) - exp(-m)) is not 0 on its own at a masked (-inf) score,
// so its weights loop tests the mask again (softmax's does not: convert-attn-to-tile.mlir).
// WEIGHTS-LABEL: tile.kernel @softpick_causal
// WEIGHTS: tile.reduce max
// WEIGHTS: math.exp
// WEIGHTS: arith.cmpi sle
// WEIGHTS: tile.reduce abs_sum
