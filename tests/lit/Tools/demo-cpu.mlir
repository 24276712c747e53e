// The main job (tools/scripts/demo.sh runs metaattn-demo) on the CPU tile executor: every
// variant it builds in C++ (softmax shapes, softcap, differential attention, gated retention,
// Mamba2 SSD) is lowered, run and checked against the oracle. This file holds no IR.
// RUN: metaattn-demo --device=cpu | FileCheck %s

// CHECK-NOT: FAIL
// CHECK: PASS causal_mha_d64
// CHECK: PASS differential_causal
// CHECK: PASS gated_retention
// CHECK: PASS mamba2_ssd
// CHECK: all variants match the oracle: 9 of 9 passed on the cpu
