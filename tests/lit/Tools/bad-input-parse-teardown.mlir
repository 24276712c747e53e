// A file that does not parse, shaped so that MLIR's parser leaves an op pointing at a block
// argument of a region it has already freed (the first op forward-references %arg4, the
// attention's score region defines %arg4, then the mask region ends the file): the tools
// print the diagnostic and exit with 1 instead of aborting in the teardown (`not` fails on a
// crash). Found by fuzzing the variant files. The attn ops now parse each region as its own
// name scope (custom<IsolatedRegion>), so the region's %arg4 never resolves the outer
// reference: also through MlirOptMain's own parsing (--split-input-file), which the tools'
// early exit did not cover (1 abort in 6 runs before).
// RUN: not metaattn-opt %s 2>&1 | FileCheck %s
// RUN: not metaattn-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: not metaattn-opt %s -o %t.out 2>&1 | FileCheck %s
// RUN: not metaattn-run %s --device=cpu 2>&1 | FileCheck %s
// CHECK: error: expected operation name in quotes
    %0 = arith.mulf %arg4, %cst : f32
  %output, %lse = attn.attention %arg0, %arg1, %arg2 inputs(%arg3 : tensor<4xf32>) score {
  ^bb0(%arg4: f32, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index, %arg11: f32):
  } mask {
  ^bb0(%arg4: index, %arg5: index, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: f32):