// Malformed input gives a diagnostic with its location and exit code 1, never a crash.
// RUN: not metaattn-opt %s 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not metaattn-run %s --device=cpu 2>&1 | FileCheck %s --check-prefix=RUNNER
// RUN: not metaattn-run %S/no-such-file.mlir --device=cpu 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not metaattn-run %s --device=cpu --batch=0 2>&1 | FileCheck %s --check-prefix=BATCH
// A negative kv length given is an error, not "the query length" (which only an absent --seq-kv means).
// RUN: not metaattn-run %s --device=cpu --seq-kv=-5 2>&1 | FileCheck %s --check-prefix=BATCH
// RUN: not metaattn-run %S/../../../frontend/variants/differential.mlir --device=cpu --load-inputs=%t 2>&1 | FileCheck %s --check-prefix=LOAD
// A tile config the chunked kernels cannot take is an error on the op, without a dump of it.
// RUN: not metaattn-run %S/../../../frontend/variants/linear.mlir --device=cpu --function=gla_vector --block-n=24 2>&1 | FileCheck %s --check-prefix=CONFIG

// OPT: bad-input.mlir:[[@LINE+3]]:{{[0-9]+}}: error: 'attn.attention' op query heads (6) must be a multiple of kv heads (4)
// RUNNER: bad-input.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'attn.attention' op query heads (6) must be a multiple of kv heads (4)
func.func @gqa(%q: tensor<?x?x6x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x6x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %t = arith.constant true
      attn.yield %t : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x6x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x6x64xbf16>
  return %o : tensor<?x?x6x64xbf16>
}

// MISSING: metaattn-run: cannot open input file '{{.*}}no-such-file.mlir'
// BATCH: metaattn-run: batch and lengths must be at least 1
// LOAD: metaattn-run: differential_causal: --load-inputs needs a function of one attention whose first arguments are q, k, v
// CONFIG: linear.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'attn.recurrent' op chunk config needs {{.*}} value tile 24, warps 4
// CONFIG-NOT: see current operation
