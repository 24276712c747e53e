// REQUIRES: nvrtc
// Tuning files: --record-tuning pins tile sizes for an attention (keyed by target and the op's
// signature, not by a length), a later run with --tuning-file uses them (the kv tiles of 32
// rows and 2 stages show in the shared memory: 2 x (32x64 K + 32x64 V) bf16, the mbarriers
// padded to 1024 bytes, 192x64 Q (the model's three consumer warpgroups), + 1024 for
// alignment), another target does not, and the tuned kernel still matches the oracle.
// RUN: rm -f %t
// RUN: metaattn-run %s --device=cpu --record-tuning --tuning-file=%t --target=sm_90a --block-n=32 --stages=2 | FileCheck %s --check-prefix=REC
// RUN: FileCheck %s --check-prefix=FILE < %t
// RUN: metaattn-run %s --device=cpu --resource-report --tuning-file=%t | FileCheck %s --check-prefix=TUNED
// RUN: metaattn-run %s --device=cpu --resource-report | FileCheck %s --check-prefix=MODEL
// RUN: METAATTN_TUNING_FILE=%t metaattn-run %s --device=cpu --resource-report | FileCheck %s --check-prefix=TUNED
// RUN: metaattn-run %s --device=cpu --resource-report --tuning-file=%t --target=sm_90 | FileCheck %s --check-prefix=OTHER
// Sizes tuned under the default schedule are not taken for another one (the cp.async
// pipeline keeps the model's tiles).
// RUN: metaattn-run %s --device=cpu --resource-report --tuning-file=%t --warp-specialize=false | FileCheck %s --check-prefix=NOWS
// RUN: metaattn-run %s --device=cpu --tuning-file=%t --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s --check-prefix=RAN
// RUN: not metaattn-run %s --device=cpu --record-tuning 2>&1 | FileCheck %s --check-prefix=NOFILE
// An entry may pin the ping-pong schedule (what --autotune records): pingpong=1 turns it on
// for this D64 kernel, which the model leaves without it (the emitted CUDA takes turns), and
// the kernel still matches the oracle; pingpong=2 is no choice.
// RUN: sed 's/stages=2/stages=2 pingpong=1/' %t > %t.pp
// RUN: metaattn-run %s --resource-report --tuning-file=%t.pp --dump-cuda=%t.pp.cu
// RUN: FileCheck %s --check-prefix=TURNS < %t.pp.cu
// RUN: metaattn-run %s --resource-report --tuning-file=%t --dump-cuda=%t.cu
// RUN: FileCheck %s --check-prefix=NOTURNS < %t.cu
// RUN: metaattn-run %s --device=cpu --tuning-file=%t.pp --batch=2 --seq-q=77 --seq-kv=130 | FileCheck %s --check-prefix=RAN
// RUN: sed 's/stages=2/stages=2 pingpong=2/' %t > %t.bad
// RUN: not metaattn-run %s --device=cpu --tuning-file=%t.bad 2>&1 | FileCheck %s --check-prefix=BAD
// Without a GPU, --autotune compiles its candidates in parallel (NVRTC) and records nothing:
// each kv tile size and stage count with and without the ping-pong schedule; the model's own
// choice (128-wide kv tiles, two stages, no ping-pong at D64) is named among them.
// RUN: env METAATTN_CACHE_DIR=%t.cache metaattn-run %s --device=cpu --autotune --tuning-file=%t.auto | FileCheck %s --check-prefix=MODELS
// RUN: env METAATTN_CACHE_DIR=%t.cache metaattn-run %s --device=cpu --autotune --tuning-file=%t.auto | FileCheck %s --check-prefix=AUTO
// RUN: not test -e %t.auto
// Under --pingpong (a schedule of its own in the file) it varies the tile sizes only, as it
// does for a target without the schedule (sm_80: each pair lowers alike and is one candidate).
// RUN: env METAATTN_CACHE_DIR=%t.cache metaattn-run %s --device=cpu --autotune --pingpong --tuning-file=%t.auto | FileCheck %s --check-prefix=AUTOPP
// RUN: env METAATTN_CACHE_DIR=%t.cache metaattn-run %s --device=cpu --autotune --target=sm_80 --tuning-file=%t.auto | FileCheck %s --check-prefix=AUTO80

// REC: recorded sm_90a {{[0-9a-f]+}} (@causal): block_m=0 block_n=32 warps=0 stages=2
// FILE: sm_90a {{[0-9a-f]+}} block_m=0 block_n=32 warps=0 stages=2 # recorded for @causal
// TUNED: resources causal (sm_90a): {{.*}} 43008 B dynamic shared, 512 threads; gemms: {{[0-9]+}} wgmma, 0 mma.sync
// MODEL: resources causal (sm_90a): {{.*}} 92160 B dynamic shared, 512 threads
// OTHER: resources causal (sm_90a): {{.*}} 128 threads; gemms: 0 wgmma, 2 mma.sync
// NOWS: resources causal (sm_90a): {{.*}} 82944 B dynamic shared, 256 threads; gemms: 2 wgmma, 0 mma.sync
// NOWS-NOT: 43008 B
// RAN: PASS causal
// NOFILE: --autotune and --record-tuning need --tuning-file
// TURNS: wg::turnStart<
// NOTURNS-NOT: wg::turnStart<
// BAD: '2' is not a valid value for pingpong
// AUTO-COUNT-12: candidate block_n={{(32|64|128)}} stages={{[23]}} pingpong={{[01]}}{{( \(the model's choice\))?}} (sm_90a): 1 kernel(s) compiled
// MODELS: candidate block_n=128 stages=2 pingpong=0 (the model's choice) (sm_90a)
// MODELS-NOT: (the model's choice)
// AUTO: autotune: 12 candidates compiled in parallel in
// AUTO-NEXT: autotune: no GPU here; nothing timed or recorded
// AUTOPP-COUNT-6: candidate block_n={{(32|64|128)}} stages={{[23]}}{{( \(the model's choice\))?}} (sm_90a): 1 kernel(s) compiled
// AUTOPP: autotune: 6 candidates compiled in parallel in
// AUTO80-NOT: pingpong=
// AUTO80: autotune: 6 candidates compiled in parallel in
func.func @causal(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>, %v: tensor<?x?x4x64xbf16>) -> tensor<?x?x4x64xbf16> {
  %o = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16> -> tensor<?x?x4x64xbf16>
  return %o : tensor<?x?x4x64xbf16>
}
