// frontend/variants/differential.mlir (built by the factory, see VariantFilesTest.cpp): two
// attentions with f32 outputs and their combination `A1 - lambda_h * A2`, through the whole
// compiler on the CPU tile executor, checked against the reference evaluator; and lowered to
// tile IR by metaattn-opt. By default the combination runs in the second attention's epilogue
// (two kernels, the first output an intermediate allocated by the runner); with
// fuse-combine off it is a kernel of its own (three kernels, two intermediates).
// RUN: metaattn-run %S/../../../frontend/variants/differential.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/differential.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/differential.mlir --device=cpu --batch=3 --seq-q=1 --seq-kv=200 --seed=5 | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/differential.mlir --device=cpu --batch=2 --seq-q=77 --seq-kv=130 --fuse-combine=false | FileCheck %s
// RUN: metaattn-run %S/../../../frontend/variants/differential.mlir --device=cpu --target=sm_80 --batch=1 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-opt %S/../../../frontend/variants/differential.mlir --metaattn-lower | FileCheck %s --check-prefix=LOWER
// RUN: metaattn-opt %S/../../../frontend/variants/differential.mlir --metaattn-lower="fuse-combine=false" | FileCheck %s --check-prefix=UNFUSED

// CHECK-NOT: FAIL
// CHECK: PASS differential_causal
// CHECK: PASS differential_full
// CHECK-NOT: FAIL

// LOWER: tile.kernel @differential_causal_step0({{.*}}!tile.tensor<?x?x4x64xf32> {tile.name = "o"})
// LOWER-SAME: tile.bindings = ["arg:0", "arg:1", "arg:4", "temp:0"]
// LOWER-SAME: tile.function = "differential_causal"
// LOWER-SAME: tile.step = 0 : i64
// LOWER: tile.kernel @differential_causal_step1({{.*}}!tile.tensor<?x?x4x64xf32> {tile.name = "x0"}, {{.*}}!tile.tensor<4xf32> {tile.name = "combine_input0"}, {{.*}}!tile.tensor<?x?x4x64xbf16> {tile.name = "o"})
// LOWER-SAME: tile.bindings = ["arg:2", "arg:3", "arg:4", "temp:0", "arg:5", "result:0"]
// LOWER-SAME: tile.step = 1 : i64
// LOWER-NOT: tile.kernel @differential_causal_step2
// LOWER: tile.kernel @differential_full_step0
// LOWER: tile.kernel @differential_full_step1
// LOWER-NOT: tile.kernel @differential_full_step2

// UNFUSED: tile.kernel @differential_causal_step0({{.*}}!tile.tensor<?x?x4x64xf32> {tile.name = "o"})
// UNFUSED-SAME: tile.bindings = ["arg:0", "arg:1", "arg:4", "temp:0"]
// UNFUSED-SAME: tile.function = "differential_causal"
// UNFUSED-SAME: tile.step = 0 : i64
// UNFUSED: tile.kernel @differential_causal_step1(
// UNFUSED-SAME: tile.bindings = ["arg:2", "arg:3", "arg:4", "temp:1"]
// UNFUSED-SAME: tile.step = 1 : i64
// UNFUSED: tile.kernel @differential_causal_step2(
// UNFUSED-SAME: tile.bindings = ["temp:0", "temp:1", "arg:5", "result:0"]
// UNFUSED-SAME: tile.step = 2 : i64
// UNFUSED: tile.kernel @differential_full_step0
// UNFUSED: tile.kernel @differential_full_step1
// UNFUSED: tile.kernel @differential_full_step2
