// RUN: metaattn-opt %S/../../../frontend/variants/differential.mlir --metaattn-lower | metaattn-translate --tile-to-cuda | FileCheck %s

// Differential attention with the combine in the second attention's epilogue (fuse-combine):
// that kernel reads the first attention's f32 output element by element after normalising
// its own, evaluates `x0 - lambda_h * own` and stores the result as bf16. Those reads, made
// once per block tile, use metaattn_read_pred, which has no early return: its load is
// predicated, so ptxas issues a tile's reads together (with a branch per read they went one at
// a time: the epilogue then cost 0.6 ms at B8 H12 S4k on an H100). Reads in the kv loop keep
// metaattn_read (the predicated form cost document masks 1-4%).
// CHECK: T metaattn_read(
// CHECK: return T{};
// CHECK: T metaattn_read_pred(
// CHECK-NOT: return T{};
// CHECK: return in ? static_cast<const T*>(t.data)[offset] : T{};
// CHECK-LABEL: void __launch_bounds__({{.*}}) differential_causal_step1(
// CHECK: const metaattn::dev::TensorRef<4> x0,
// CHECK-NEXT: const metaattn::dev::TensorRef<1> combine_input0,
// CHECK-NEXT: const metaattn::dev::TensorRef<4> o,
// CHECK: metaattn_read_pred<float>(combine_input0,
// CHECK: metaattn_read_pred<float>(x0,
// CHECK: block::storeFrag<{{[0-9]+}}, bf16>(o,
// CHECK-NOT: differential_causal_step2(
