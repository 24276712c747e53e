// Shapes past the host's memory end with a message, not an abort: the reference refuses a
// linear-attention state per head it cannot hold (Dk x Dv in double precision), and any other
// host allocation that fails ends the run with "out of host memory".
// RUN: metaattn-variant linear --dim=20000 --name=f > %t.mlir
// RUN: not metaattn-run %t.mlir --device=cpu --batch=1 --seq-q=3 2>&1 | FileCheck %s
// CHECK: the reference keeps a Dk x Dv state per head in double precision: 20000 x 20000 values
