// REQUIRES: nvrtc
// metaattn-run --resource-report names a softmax shift that an option changed: the constant of
// a bounded score (--bounded-shift; a cap of 2 gives 2 + 2/256) and the rescales skipped where
// a thread's factors are all 1 (--lazy-rescale). The default kernels print neither.
// RUN: metaattn-run %S/../Conversion/convert-attn-to-tile-bounded-shift.mlir --function=tight --target=sm_90a --resource-report --bounded-shift | FileCheck %s --check-prefix=BOUNDED
// RUN: metaattn-run %S/../Conversion/convert-attn-to-tile-lazy-rescale.mlir --function=falling --target=sm_90a --resource-report --lazy-rescale | FileCheck %s --check-prefix=LAZY
// RUN: metaattn-run %S/../Conversion/convert-attn-to-tile-bounded-shift.mlir --function=tight --target=sm_90a --resource-report | FileCheck %s --check-prefix=DEFAULT
// BOUNDED: resources tight (sm_90a):
// BOUNDED-NEXT: shift: the constant 2.00781 (a bounded score; no row maximum)
// LAZY: resources falling (sm_90a):
// LAZY-NEXT: rescale: skipped in threads whose factors are all 1 (1 loop)
// DEFAULT: resources tight (sm_90a):
// DEFAULT-NOT: shift:
// DEFAULT-NOT: rescale:
