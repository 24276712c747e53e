// metaattn-run --help lists the runner's own options, not those of the LLVM libraries it
// links (they stay usable, hidden).
// RUN: metaattn-run --help | FileCheck %s
// CHECK-NOT: amdgpu
// CHECK-NOT: polly
// CHECK: metaattn-run options:
// CHECK-DAG: --seq-q=
// CHECK-DAG: --resource-report
// CHECK-DAG: --warp-specialize
// CHECK-NOT: amdgpu
