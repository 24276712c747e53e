// metaattn-run --help lists the runner's own options, not those of the LLVM libraries it
// links (they stay usable, hidden).
// RUN: metaattn-run --help | FileCheck %s
// CHECK-NOT: amdgpu
// CHECK-NOT: polly
// CHECK: metaattn-run options:
// CHECK-DAG: --seq-q=
// CHECK-DAG: --resource-report
// CHECK-DAG: --warp-specialize
// CHECK-DAG: --state-rows=
// CHECK-NOT: amdgpu

// The same for metaattn-variant and metaattn-demo.
// RUN: metaattn-variant --help | FileCheck %s --check-prefix=VARIANT
// VARIANT-NOT: amdgpu
// VARIANT: metaattn-variant options:
// VARIANT-DAG: --heads=
// VARIANT-DAG: --value-dim=
// VARIANT-NOT: amdgpu
// RUN: metaattn-demo --help | FileCheck %s --check-prefix=DEMO
// DEMO-NOT: amdgpu
// DEMO: metaattn-demo options:
// DEMO-DAG: --print-cuda
// DEMO-NOT: amdgpu

// metaattn-opt and metaattn-translate list MLIR's options and their passes and translations,
// not LLVM's backend options (hidden, still accepted, listed by --help-hidden).
// RUN: metaattn-opt --help | FileCheck %s --check-prefix=OPT
// OPT-NOT: amdgpu
// OPT: --pass-pipeline=
// OPT: --metaattn-lower
// OPT: --staged-state-stores
// OPT-NOT: amdgpu
// RUN: metaattn-opt --help-hidden | FileCheck %s --check-prefix=HIDDEN
// HIDDEN: --amdgpu-
// RUN: metaattn-translate --help | FileCheck %s --check-prefix=TRANSLATE
// TRANSLATE-NOT: amdgpu
// TRANSLATE: --tile-to-cuda
// TRANSLATE-NOT: amdgpu
