// With more queries than keys and a causal mask, the first Sq - Skv query rows see no key:
// their log-sum-exp is -inf also for normalisers without a max shift (sigmoid, ReLU, RetNet),
// where the kernel counts each row's kept entries to know.
// RUN: metaattn-run %S/../../../frontend/variants/sigmoid.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 --function=sigmoid_head_bias | FileCheck %s --check-prefix=SIGMOID-HEAD-BIAS
// RUN: metaattn-run %S/../../../frontend/variants/relu.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 --function=relu_causal_norm | FileCheck %s --check-prefix=RELU-CAUSAL-NORM
// RUN: metaattn-run %S/../../../frontend/variants/retnet.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 --function=retnet_parallel | FileCheck %s --check-prefix=RETNET-PARALLEL
// RUN: metaattn-run %S/../../../frontend/variants/retnet.mlir --device=cpu --batch=1 --seq-q=130 --seq-kv=77 --function=retnet_parallel_gqa | FileCheck %s --check-prefix=RETNET-PARALLEL-GQA

// SIGMOID-HEAD-BIAS: lse: {{.*}}, 0 of {{[0-9]+}} elements outside
// SIGMOID-HEAD-BIAS: PASS sigmoid_head_bias
// RELU-CAUSAL-NORM: lse: {{.*}}, 0 of {{[0-9]+}} elements outside
// RELU-CAUSAL-NORM: PASS relu_causal_norm
// RETNET-PARALLEL: lse: {{.*}}, 0 of {{[0-9]+}} elements outside
// RETNET-PARALLEL: PASS retnet_parallel
// RETNET-PARALLEL-GQA: lse: {{.*}}, 0 of {{[0-9]+}} elements outside
// RETNET-PARALLEL-GQA: PASS retnet_parallel_gqa
