// The main job (tools/scripts/demo.sh runs metaattn-demo) on the CPU tile executor: every
// variant it builds in C++ (softmax shapes, softcap, differential attention, a document mask
// with sorted ids, gated retention, Mamba2 SSD) is lowered, run and checked against the
// oracle. This file holds no IR.
// RUN: metaattn-demo --device=cpu | FileCheck %s

// CHECK-NOT: FAIL
// CHECK: PASS causal_mha_d64
// CHECK: PASS differential_causal
// CHECK: PASS document_mask_causal
// CHECK: PASS gated_retention
// CHECK: PASS mamba2_ssd
// CHECK: all variants match the oracle: 10 of 10 passed on the cpu
