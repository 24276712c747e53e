// Odd head dims through the sm_90a pipeline (padded to whole 64-element swizzle blocks and run on
// the warp-specialised wgmma kernel), on the CPU tile executor against the oracle: library
// variants with GQA 3:1 and the row statistic, causal or not, at lengths around a tile; and a
// head dim that pads past 256 (264: mma.sync and cp.async). resource-report.mlir checks the
// gemm paths NVRTC compiles for D72 and D264.
// RUN: metaattn-variant softmax --heads=3 --kv-heads=1 --dim=40 --lse --causal --name=f > %t.d40.mlir
// RUN: metaattn-run %t.d40.mlir --device=cpu --target=sm_90a --function=f --batch=1 --seq-q=193 --seq-kv=193 | FileCheck %s
// RUN: metaattn-run %t.d40.mlir --device=cpu --target=sm_90a --function=f --batch=1 --seq-q=1 --seq-kv=257 | FileCheck %s
// RUN: metaattn-variant alibi --heads=3 --kv-heads=1 --dim=72 --lse --causal --name=f > %t.d72.mlir
// RUN: metaattn-run %t.d72.mlir --device=cpu --target=sm_90a --function=f --batch=1 --seq-q=130 --seq-kv=77 | FileCheck %s
// RUN: metaattn-variant sliding_window --heads=3 --kv-heads=1 --dim=200 --value-dim=72 --lse --name=f > %t.d200.mlir
// RUN: metaattn-run %t.d200.mlir --device=cpu --target=sm_90a --function=f --batch=1 --seq-q=77 --seq-kv=130 | FileCheck %s
// RUN: metaattn-variant softmax --heads=2 --kv-heads=2 --dim=264 --name=f > %t.d264.mlir
// RUN: metaattn-run %t.d264.mlir --device=cpu --target=sm_90a --function=f --batch=1 --seq-q=65 --seq-kv=65 | FileCheck %s

// CHECK: PASS f
