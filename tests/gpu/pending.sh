#!/usr/bin/env bash
# GPU work in parts, each under a time limit (the default parts together under the device
# tool's 10 minutes; "model" alone takes most of one call). Logs go into one archive; the
# tables are printed last. Left after the forty-eighth session (no GPU lent; it added "l2",
# "bounded" and "lazy", whose kernels are checked on the CPU executor only), four calls:
#   1. the default, PARTS="l2 bounded" (inner limits 60 + 300 + 200 s): the L2 copy rates,
#      then softcap's constant shift checked, memcheck, and timed (D128, D64 with exponentials
#      on the FMA pipe);
#   2. PARTS=stage SANITIZE=0: the bf16 bias's time beside f32's (the forty-seventh session's
#      stage timing ran out of time): does halving the bias's bytes through L2 lift it?
#   3. PARTS=lazy: the lazily moved maximum checked and timed for softmax;
#   4. PARTS=grid on the H200 (not since the thirtieth session), with "variants" if time allows.
# (BIN=.carry/bin: static runners of the session's HEAD and l2_rate.)
#
# PARTS picks parts (default "l2 bounded"):
# "l2": tools/scripts/l2_rate.cu (BIN/l2_rate if there, else built with nvcc): the rate at
#   which the multiprocessors copy 64 KB windows out of L2 (8 and 32 MB footprints) and out of
#   memory (1 GB), by cp.async and by bulk copies, each window read by one block or by four
#   (the batch entries sharing a bias window): if it is near 6 TB/s, the bias matrix's 64 KB
#   per kv tile beside K and V (about 8.4 TB/s at softmax's speed) explains its 0.64x;
# "lazy": causal softmax with --lazy-rescale (the running maximum moves only past 2^8 in the
#   weights; threads whose factors are all 1 skip the output's rescale: 64 of the D128 kv loop's
#   919 instructions) against the default, tests/gpu/option_ab.sh (VARIANT=softmax): checks at
#   seven shapes both ways, memcheck both ways, timed at D128 (S4k, S16k), D64 and D256;
# "bounded": softcap with --bounded-shift (a constant shift near the bound of 50·tanh: no row
#   maximum, no rescaling; 991 against 1455 instructions in the D128 kv loop) against the
#   default, tests/gpu/bounded_shift.sh: checks at seven shapes both ways, memcheck both ways,
#   timed beside our softmax at D128 (S4k, S16k), D64 and D256; then at D64 with exponentials
#   on the FMA pipe as well (--exp2-emulation=2 and 4, checked first);
# "stage": the bias matrix staged through shared memory (tile-stage-element-reads) checked at
#   six shapes, memcheck, racecheck/synccheck, timed beside OLD=<dir>'s runner and the same
#   bias in bf16 (half its bytes through L2; not timed yet: the forty-seventh session's call
#   ran out of its inner 300 s on a fresh machine);
# "autotune": tests/gpu/autotune_pingpong.sh (softcap D128, softmax and ALiBi D64: --autotune
#   with ping-pong as a candidate, the tuned kernels checked and timed beside the defaults;
#   AUTOTUNE_S limits it, 250 s);
# "combos": tests/lit/Variants/combined-masks.mlir (masks and scores no library variant
#   combines; @alibidocwin, a window, a document mask and ALiBi at D96, ping-pongs by default)
#   checked against the oracle at six shapes; ping-pong kernels with the row statistic and GQA
#   (softmax, sink, window, document mask at D128, ALiBi at D72) at four; racecheck/synccheck
#   on @alibidocwin (SANITIZE=0 skips them);
# "model": the ping-pong schedule where the tile model picks it (widened in the fortieth
#   session: shifted normalisers under a mask with a causal bound at head dims padded to 128):
#   the kernels the widening added (ALiBi D96, softmax D72/D112, the differential) checked
#   against the oracle at odd shapes; the differential with and without it and the masks it
#   leaves out or took last (document mask, bias matrix, block map, prefix-LM, chunks) without
#   and with --pingpong (tests/gpu/variant_options.sh, D128 causal); racecheck/synccheck on
#   softmax D72 (SANITIZE=0 skips them); then the whole softmax grid (benchmarks/bench_suite.py
#   --only grid, cuDNN, FA2 and FlexAttention in the same process; GRID_S limits it, 300 s);
# "ppgrid": the softmax grid's D128 cells (benchmarks/bench_suite.py, every output checked,
#   cuDNN, FA2 and FlexAttention in the same process) with the default schedule and with
#   --pingpong, for a per-shape ping-pong default (the thirty-eighth session's H100 runs:
#   causal D128 1.00-1.09x, mask-free 0.95-0.98x); then racecheck/synccheck on a ping-pong
#   kernel (SANITIZE=0 skips them);
# "pingpong": the thirty-eighth session's ping-pong part: softmax, softcap and ALiBi at D128 with
#   and without --pingpong, each checked against the oracle, then timed beside our softmax
#   (tests/gpu/variant_options.sh), the sanitizers as in "ppgrid", and the softmax grid's
#   D128/D256 shapes with and without it (tests/gpu/explore_configs.sh);
# "grid": the softmax grid alone (benchmarks/bench_suite.py --only grid; GRID_S limits it, 330 s;
#   with "variants" one call's worth on the H200);
# "variants": the custom-variant table (benchmarks/bench_variants.py);
# "disjunct": masks that are disjunctions (prefix-LM and others; their kv loops bounded by the
#   wider side) checked at six shapes, memcheck, racecheck and synccheck on the D128 prefix-LM
#   kernel (ping-pong), then prefix-LM timed beside our softmax (OLD=<dir with an earlier
#   metaattn-run> adds it as a case; DISJUNCT_TIME=0 skips the timing);
# "sweep": random library variants, head dims, lengths to 1025 and pipeline options, each
#   checked against the oracle on the GPU (tools/scripts/sweep_variants.py --device gpu;
#   SWEEP_SEED, SWEEP_N cases, SWEEP_S seconds);
# "plans": background plans (PipelineOptions::backgroundPlans): FunctionPlanTest's GPU tests
#   (a static MetaAttnPipelineTests in BIN), softmax D128 causal checked on the persistent and
#   the plain plans' shapes, memcheck on one run;
# "jit": the cold-compile target (benchmarks/bench_jit.py, first, on a fresh machine; with each
#   kernel then recompiled with and without the background plans, for their ratio), then
#   NVRTC on one kernel alone, two and four at once and on two threads of one process
#   (tests/gpu/jit_contention.sh; PROBE names an nvrtc_time built elsewhere), printed at once;
# "castsab": ALiBi timed with and without tile-split-index-casts at D128 and D64 after one check
#   each way; "casts" is the whole of tests/gpu/index_casts.sh;
# "combo": a soft cap under a document mask and a window, @combo of
#   tests/lit/Conversion/convert-attn-to-tile-monotone-max.mlir, checked against the oracle;
# "mono": softcap's maximum of the dot products against the maximum after its tanh,
#   tests/gpu/monotone_max.sh;
# "limits": every variant file checked and the variants below softmax timed,
#   tests/gpu/limits.sh, PROFILE names cases to profile, default none;
# "stages": tests/gpu/stages.sh, three kv stages against the model's two for softmax;
# "d64": softcap at D64 with tile options (tests/gpu/variant_options.sh with DIM=64).
#
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> [PARTS="combo mono"] \
#     [CHECK_OPTS="--stage-ahead"] bash tests/gpu/pending.sh
# (CHECK_OPTS: runner options added to every shape check, check_shapes below.)
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-pending}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
nvidia-smi -L | head -1 || { echo "no GPU"; exit 1; }
PARTS=" ${PARTS:-l2 bounded} "
part() { [[ $PARTS == *" $1 "* ]]; }
# check_shapes "B:Sq:Skv ..." file...: every function of each file against the oracle on the GPU
# at each shape, a line per file and shape.
check_shapes() {
  local shapes=$1 f shape nb sq skv r
  shift
  for f in "$@"; do
    for shape in $shapes; do
      IFS=':' read -r nb sq skv <<< "$shape"
      # shellcheck disable=SC2086 # CHECK_OPTS are words
      r=$(timeout 120 "$BIN/metaattn-run" "$f" --device=gpu --batch="$nb" --seq-q="$sq" \
        --seq-kv="$skv" ${CHECK_OPTS:-} 2>&1 | grep -E '^PASS|^FAIL|rror' | tr '\n' ' ')
      echo "$(basename "$f") B$nb ${sq}x$skv ${CHECK_OPTS:-}: ${r:-no result}"
    done
  done
}
mkdir -p "$OUT/pp"
touch "$OUT/lazy.txt" "$OUT/bounded.txt" "$OUT/combo.txt" "$OUT/mono.txt" "$OUT/limits.txt" "$OUT/variants.txt" "$OUT/stages.txt" \
  "$OUT/d64.txt" "$OUT/casts.txt" "$OUT/pingpong.txt" "$OUT/model.txt"
combo=tests/lit/Conversion/convert-attn-to-tile-monotone-max.mlir
part combo && for shape in 1:1:1:1 2:129:65:1 2:200:333:3 1:1025:1025:4; do
  IFS=':' read -r nb sq skv docs <<< "$shape"
  r=$(timeout 90 "$BIN/metaattn-run" "$combo" --function=combo --device=gpu --batch="$nb" \
    --seq-q="$sq" --seq-kv="$skv" --documents="$docs" 2>&1 | grep -E '^PASS|^FAIL|rror' | head -1)
  echo "softcap + documents + window B$nb ${sq}x$skv, $docs documents: ${r:-no result}"
done > "$OUT/combo.txt"
part stages && timeout 200 env BIN="$BIN" OUT="$OUT/stages" bash tests/gpu/stages.sh \
  > "$OUT/stages.txt" 2>&1
d64="softmax|softmax|;softmax bm128|softmax|--block-m=128 --warps=8;softcap|softcap|"
d64+=";softcap bm128|softcap|--block-m=128 --warps=8;softcap 3 stages|softcap|--stages=3"
d64+=";softcap exp2-emul 2|softcap|--exp2-emulation=2;softcap exp2-emul 4|softcap|--exp2-emulation=4"
d64+=";softcap bm128 exp2-emul 2|softcap|--block-m=128 --warps=8 --exp2-emulation=2"
part casts && timeout 300 env BIN="$BIN" OUT="$OUT/casts" bash tests/gpu/index_casts.sh \
  > "$OUT/casts.txt" 2>&1
# ALiBi timed with and without the split, after one check each way (the full checks: "casts").
part castsab && for opts in "" "--split-index-casts=false"; do
  "$BIN/metaattn-variant" alibi --heads=16 --dim=128 --causal --name=f > "$OUT/alibi.mlir"
  # shellcheck disable=SC2086 # the options are words
  r=$(timeout 90 "$BIN/metaattn-run" "$OUT/alibi.mlir" --device=gpu --batch=2 --seq-q=1025 $opts 2>&1 |
    grep -E '^PASS|^FAIL|rror' | head -1)
  echo "alibi B2 1025x1025 ${opts:-(default)}: ${r:-no result}"
done > "$OUT/casts.txt" && timeout 240 env BIN="$BIN" OUT="$OUT/casts" VARIANT=alibi \
  OFF=--split-index-casts=false OFF_NAME=per-element CHECKS=0 DIMS="128 64" \
  bash tests/gpu/option_ab.sh >> "$OUT/casts.txt" 2>&1
pp="softmax|softmax|;softmax pingpong|softmax|--pingpong;softcap|softcap|"
pp+=";softcap pingpong|softcap|--pingpong;alibi|alibi|;alibi pingpong|alibi|--pingpong"
if part pingpong; then
  timeout 230 env BIN="$BIN" OUT="$OUT/pp" CASES="$pp" bash tests/gpu/variant_options.sh \
    > "$OUT/pingpong.txt" 2>&1
fi
if part ppgrid; then
  for opts in "" "--pingpong"; do
    name=${opts:-default}; name=${name#--}
    timeout 200 python3 benchmarks/bench_suite.py --runner "$BIN/metaattn-run" --only grid \
      --dims 128 --runner-opts="$opts" --out "$OUT/ppgrid_$name" > "$OUT/pp/grid_$name.txt" 2>&1
    echo "-- D128 grid, ${opts:-default schedule}"
    grep -A20 "^| D" "$OUT/pp/grid_$name.txt" | head -16
  done >> "$OUT/pingpong.txt"
  [ -f "$OUT/pp/softcap.mlir" ] ||
    "$BIN/metaattn-variant" softcap --heads=16 --dim=128 --causal --name=f > "$OUT/pp/softcap.mlir"
fi
if part pingpong || part ppgrid; then
  [ "${SANITIZE:-1}" = 1 ] && for tool in racecheck synccheck; do
    r=$(timeout 100 compute-sanitizer --tool $tool "$BIN/metaattn-run" "$OUT/pp/softcap.mlir" \
      --device=gpu --pingpong --batch=1 --seq-q=300 --seq-kv=400 2>&1 |
      grep -E 'SUMMARY|^PASS|^FAIL' | tr '\n' ' ')
    echo "$tool softcap --pingpong 300x400: ${r:-no result}"
  done >> "$OUT/pingpong.txt"
fi
if part pingpong; then
  timeout 150 env BIN="$BIN" OUT="$OUT/pp/cfg" SHAPES="d128 d128c d256 d256c" \
    SEQS="1024 4096 16384" CONFIGS="default|--pingpong" bash tests/gpu/explore_configs.sh \
    >> "$OUT/pingpong.txt" 2>&1
fi
# Printed as each step ends (a call cut short still shows the steps done).
if part jit; then
  # First, while the machine is fresh: the cold-compile target (benchmarks/bench_jit.py).
  echo "== JIT cold compile and cached load (benchmarks/bench_jit.py)"
  timeout 200 python3 benchmarks/bench_jit.py --runner "$BIN/metaattn-run" --out "$OUT/jit" 2>&1 |
    grep -E "^\| |cold:" | tail -12
  echo "== JIT time alone and contending (tests/gpu/jit_contention.sh)"
  timeout 90 env BIN="$BIN" bash tests/gpu/jit_contention.sh 2>&1 | tail -12
fi
if part plans; then
  # PipelineOptions::backgroundPlans: a function's last plan loaded before the compile returns,
  # its other plans on a thread (the GPU tests of the pipeline suite, built statically into BIN
  # where it has them), then metaattn-run (which waits for every plan) on the persistent plan's
  # short grids and the plain plan's long ones, each checked; memcheck on one run (SANITIZE=0
  # skips it).
  echo "== function plans (background plans)"
  if [[ -x $BIN/MetaAttnPipelineTests ]]; then
    timeout 180 env METAATTN_VARIANTS_DIR="$PWD/frontend/variants" \
      "$BIN/MetaAttnPipelineTests" --gtest_filter='FunctionPlanTest.*' 2>&1 |
      grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) |Failure|rror" | tail -16
  else
    echo "no $BIN/MetaAttnPipelineTests (the static build with METAATTN_BUILD_TESTS=ON has it)"
  fi
  mkdir -p "$OUT/plans"
  "$BIN/metaattn-variant" softmax --heads=16 --dim=128 --causal --name=f > "$OUT/plans/f.mlir"
  for shape in 1:1:1 2:300:300 1:1025:1025 1:4097:4097; do
    IFS=':' read -r nb sq skv <<< "$shape"
    r=$(timeout 120 "$BIN/metaattn-run" "$OUT/plans/f.mlir" --device=gpu --batch="$nb" \
      --seq-q="$sq" --seq-kv="$skv" 2>&1 | grep -E '^PASS|^FAIL|rror|plan:|jit: (ready|every)' |
      sed 's/^ *//' | cut -c1-60 | tr '\n' ';')
    echo "softmax D128 causal B$nb ${sq}x$skv: ${r:-no result}"
  done
  if [[ ${SANITIZE:-1} != 0 ]]; then
    timeout 240 compute-sanitizer --tool memcheck "$BIN/metaattn-run" "$OUT/plans/f.mlir" \
      --device=gpu --batch=1 --seq-q=300 --seq-kv=300 2>&1 | grep -E "ERROR SUMMARY|^PASS|^FAIL" |
      sed 's/^/memcheck: /'
  fi
fi
# Masks that are disjunctions, whose kv loops attn-mask-analysis now bounds by the wider side
# (the forty-fourth session): prefix-LM, a window or global keys, two bands (the row
# statistic), a bound on one side only; checked at six shapes, memcheck on one; then prefix-LM
# timed beside our softmax, with (the default since then) and without ping-pong, and with
# OLD's runner (a build from before the bound) when OLD names one.
if part disjunct; then
  echo "== disjunctions of masks (tests/lit/Variants/disjunct-masks.mlir, variants/prefix_lm.mlir)"
  mkdir -p "$OUT/disjunct"
  check_shapes "1:1:1 2:130:77 1:300:400 1:400:300 2:1025:1025 1:77:2000" \
    tests/lit/Variants/disjunct-masks.mlir frontend/variants/prefix_lm.mlir
  [[ ${SANITIZE:-1} != 0 ]] && timeout 200 compute-sanitizer --tool memcheck "$BIN/metaattn-run" \
    tests/lit/Variants/disjunct-masks.mlir --device=gpu --batch=1 --seq-q=300 --seq-kv=400 2>&1 |
    grep -E "ERROR SUMMARY|^PASS|^FAIL" | sed 's/^/memcheck: /'
  # The D128 prefix-LM kernel the tile model now runs ping-pong (variant_options.sh's).
  "$BIN/metaattn-variant" prefix_lm --heads=16 --dim=128 --causal --name=f \
    > "$OUT/disjunct/prefix_lm.mlir"
  [[ ${SANITIZE:-1} != 0 ]] && for tool in racecheck synccheck; do
    r=$(timeout 100 compute-sanitizer --tool $tool "$BIN/metaattn-run" \
      "$OUT/disjunct/prefix_lm.mlir" --device=gpu --batch=1 --seq-q=300 --seq-kv=400 2>&1 |
      grep -E 'SUMMARY|^PASS|^FAIL' | tr '\n' ' ')
    echo "$tool prefix_lm D128 300x400: ${r:-no result}"
  done
  cases="softmax|softmax|;prefix_lm|prefix_lm|;prefix_lm no pingpong|prefix_lm|--pingpong=false"
  [[ -n ${OLD:-} ]] && cases+=";prefix_lm before|prefix_lm||$OLD"
  [[ ${DISJUNCT_TIME:-1} != 0 ]] && timeout 240 env BIN="$BIN" OUT="$OUT/disjunct" \
    CASES="$cases" bash tests/gpu/variant_options.sh 2>&1 | tail -8
fi
# A bias matrix staged through shared memory by each consumer warpgroup while the score gemm
# runs (tile-stage-element-reads; forty-sixth session): checked at six shapes (GQA, the row
# statistic and D96 in a second file; sigmoid.mlir's full [B, H, Sq, Skv] bias), memcheck,
# racecheck and synccheck on the D128 kernel, then timed beside our softmax and without the
# staging (OLD=<dir> adds a runner from before it).
if part stage; then
  echo "== a bias matrix staged through shared memory (relative_bias, sigmoid.mlir)"
  mkdir -p "$OUT/stage"
  "$BIN/metaattn-variant" relative_bias --heads=6 --kv-heads=2 --dim=96 --causal --lse --name=f \
    > "$OUT/stage/rb_gqa.mlir"
  "$BIN/metaattn-variant" relative_bias --heads=16 --dim=128 --causal --name=f \
    > "$OUT/stage/rb128.mlir"
  check_shapes "1:1:1 3:130:77 2:300:400 5:400:300 2:1025:1025 3:77:2000" \
    frontend/variants/relative_bias.mlir "$OUT/stage/rb_gqa.mlir" frontend/variants/sigmoid.mlir
  check_shapes "1:1:1 2:130:77 1:1025:1025 1:77:2000" "$OUT/stage/rb128.mlir"
  # The same bias in bf16 (half the bytes through L2), for the time only beside f32's.
  "$BIN/metaattn-variant" relative_bias --heads=16 --dim=128 --causal --bias-type=bf16 --name=f \
    > "$OUT/stage/relative_bias_bf16.mlir"
  check_shapes "2:130:77 1:1025:1025" "$OUT/stage/relative_bias_bf16.mlir"
  [[ ${SANITIZE:-1} != 0 ]] && timeout 200 compute-sanitizer --tool memcheck "$BIN/metaattn-run" \
    frontend/variants/relative_bias.mlir --device=gpu --batch=3 --seq-q=300 --seq-kv=400 2>&1 |
    grep -E "ERROR SUMMARY|^PASS|^FAIL" | sed 's/^/memcheck: /'
  [[ ${SANITIZE:-1} != 0 ]] && for tool in racecheck synccheck; do
    r=$(timeout 100 compute-sanitizer --tool $tool "$BIN/metaattn-run" "$OUT/stage/rb128.mlir" \
      --device=gpu --batch=2 --seq-q=300 --seq-kv=400 2>&1 | grep -E 'SUMMARY|^PASS|^FAIL' |
      tr '\n' ' ')
    echo "$tool relative_bias D128 B2 300x400: ${r:-no result}"
  done
  cases="softmax|softmax|;relative_bias|relative_bias|"
  [[ -n ${OLD:-} ]] && cases+=";relative_bias before|relative_bias||$OLD"
  cases+=";relative_bias bf16|relative_bias_bf16|"
  # The staged kernel's checks ran above at every shape: variant_options.sh checks only the
  # timed staged case (six checks and the timing passed its 240 s on the H100).
  timeout 420 env BIN="$BIN" OUT="$OUT/stage" CASES="$cases" CHECK="^relative_bias$" \
    bash tests/gpu/variant_options.sh 2>&1 | tail -8
fi
# Random library variants, head dims, lengths (to 1025) and pipeline options on the GPU, each
# checked against the oracle (tools/scripts/sweep_variants.py --device gpu; printed at once).
if part sweep; then
  echo "== random variants on the GPU (sweep_variants.py --device gpu, seed ${SWEEP_SEED:-44})"
  timeout "${SWEEP_S:-300}" python3 tools/scripts/sweep_variants.py --bin "$BIN" --device gpu \
    --seed "${SWEEP_SEED:-44}" --count "${SWEEP_N:-200}" --jobs "${SWEEP_JOBS:-8}" --timeout 120 \
    --out "$OUT/sweep" 2>&1 | tail -40
fi
if part combos; then
  echo "== combined masks (tests/lit/Variants/combined-masks.mlir)"
  combos=tests/lit/Variants/combined-masks.mlir
  for shape in 1:1:1 2:130:77 1:129:257 1:1:200 1:300:400 2:1025:1025; do
    IFS=':' read -r nb sq skv <<< "$shape"
    r=$(timeout 90 "$BIN/metaattn-run" "$combos" --device=gpu --batch="$nb" --seq-q="$sq" \
      --seq-kv="$skv" --documents=3 2>&1 | grep -E '^PASS|^FAIL|rror' | cut -d: -f1 | tr '\n' ' ')
    echo "B$nb ${sq}x$skv: ${r:-no result}"
  done
  # Ping-pong kernels with the row statistic (lse) and GQA, which no GPU run has had.
  mkdir -p "$OUT/combos"
  for c in softmax:128: sink:128: sliding_window:128: document_mask:128:--documents=3 alibi:72:; do
    IFS=':' read -r v dim opts <<< "$c"
    "$BIN/metaattn-variant" "$v" --heads=6 --kv-heads=2 --dim="$dim" --causal --lse --name=f \
      > "$OUT/combos/$v$dim.mlir"
    for shape in 1:1:1 2:130:77 1:300:400 2:1025:1025; do
      IFS=':' read -r nb sq skv <<< "$shape"
      # shellcheck disable=SC2086 # the options are words
      r=$(timeout 60 "$BIN/metaattn-run" "$OUT/combos/$v$dim.mlir" --device=gpu --batch="$nb" \
        --seq-q="$sq" --seq-kv="$skv" $opts 2>&1 | grep -E '^PASS|^FAIL|rror' | head -1)
      echo "$v D$dim causal lse GQA 6:2 B$nb ${sq}x$skv: ${r:-no result}"
    done
  done
  [ "${SANITIZE:-1}" = 1 ] && for tool in racecheck synccheck; do
    r=$(timeout 100 compute-sanitizer --tool $tool "$BIN/metaattn-run" "$combos" \
      --function=alibidocwin --device=gpu --batch=1 --seq-q=300 --seq-kv=400 --documents=3 2>&1 |
      grep -E 'SUMMARY|^PASS|^FAIL' | tr '\n' ' ')
    echo "$tool alibidocwin 300x400: ${r:-no result}"
  done
fi
# The model part: the checks, the A/B, the sanitizers, then the grid.
if part model; then
  mkdir -p "$OUT/model"
  # The kernels the fortieth session's model adds (ALiBi at D96, softmax at D72 and D112, the
  # differential's two softmaxes) as they are; sinks, softpick, windows and softmax D96 were
  # checked with --pingpong, whose CUDA the default's equals.
  checks="alibi:96:;softmax:72:;softmax:112:;differential:128:"
  IFS=';' read -r -a cases <<< "$checks"
  for c in "${cases[@]}"; do
    IFS=':' read -r v dim opts <<< "$c"
    [ -f "$OUT/model/$v$dim.mlir" ] ||
      "$BIN/metaattn-variant" "$v" --heads=4 --dim="$dim" --causal --name=f > "$OUT/model/$v$dim.mlir"
    for shape in 1:1:1 2:1025:1025 3:130:77; do
      IFS=':' read -r nb sq skv <<< "$shape"
      # shellcheck disable=SC2086 # the options are words
      r=$(timeout 60 "$BIN/metaattn-run" "$OUT/model/$v$dim.mlir" --device=gpu --batch="$nb" \
        --seq-q="$sq" --seq-kv="$skv" $opts 2>&1 | grep -E '^PASS|^FAIL|rror' | head -1)
      echo "$v D$dim causal ${opts:-(default)} B$nb ${sq}x$skv: ${r:-no result}"
    done
  done > "$OUT/model.txt"
  echo "== the tile model's ping-pong: checks"
  grep -v ": PASS" "$OUT/model.txt"
  echo "$(grep -c ': PASS' "$OUT/model.txt") checks PASS"
  # The differential (picked by the model, untimed) with and without; the masks it leaves out
  # (kv-indexed inputs, masks that are not affine bounds) without and with --pingpong, those
  # checked first.
  ab="softmax|softmax|;differential|differential|;differential no pingpong|differential|--pingpong=false"
  ab+=";doc4|document_mask|--documents=4;doc4 pingpong|document_mask|--documents=4 --pingpong"
  ab+=";relative_bias|relative_bias|;relative_bias pingpong|relative_bias|--pingpong"
  ab+=";block_sparse|block_sparse|;block_sparse pingpong|block_sparse|--pingpong"
  ab+=";prefix_lm|prefix_lm|;prefix_lm pingpong|prefix_lm|--pingpong"
  ab+=";chunked|chunked|;chunked pingpong|chunked|--pingpong"
  timeout 330 env BIN="$BIN" OUT="$OUT/model/ab" CASES="$ab" CHECK="pingpong|differential\$" \
    bash tests/gpu/variant_options.sh > "$OUT/model/ab.txt" 2>&1
  echo "== the tile model's ping-pong against none (variant_options.sh, D128 causal)"
  grep -v PASS "$OUT/model/ab.txt" | tail -16
  [ "${SANITIZE:-1}" = 1 ] && for tool in racecheck synccheck; do
    r=$(timeout 100 compute-sanitizer --tool $tool "$BIN/metaattn-run" "$OUT/model/softmax72.mlir" \
      --device=gpu --batch=1 --seq-q=300 --seq-kv=400 2>&1 | grep -E 'SUMMARY|^PASS|^FAIL' | tr '\n' ' ')
    echo "$tool softmax D72 causal (model's ping-pong) 300x400: ${r:-no result}"
  done
  echo "== the tile model's ping-pong: softmax grid"
  timeout "${GRID_S:-300}" python3 benchmarks/bench_suite.py --runner "$BIN/metaattn-run" \
    --only grid --out "$OUT/model/grid" > "$OUT/model/grid.txt" 2>&1
  if grep -q "^| D" "$OUT/model/grid.txt"; then
    grep -A40 "^| D" "$OUT/model/grid.txt" | head -48
  else
    grep "^\[" "$OUT/model/grid.txt" # cut short: the cells done
  fi
fi
# Autotuning with ping-pong as a candidate (the forty-first session's, not yet run on a GPU).
part autotune && timeout "${AUTOTUNE_S:-250}" env BIN="$BIN" OUT="$OUT/autotune" \
  bash tests/gpu/autotune_pingpong.sh > "$OUT/autotune.txt" 2>&1
# The grid alone (for the H200, where the ping-pong default has not run): every output checked,
# cuDNN, FA2 and FlexAttention in the same process.
if part grid; then
  mkdir -p "$OUT/grid"
  timeout "${GRID_S:-330}" python3 benchmarks/bench_suite.py --runner "$BIN/metaattn-run" \
    --only grid --out "$OUT/grid" > "$OUT/grid.txt" 2>&1
fi
part d64 && timeout 200 env BIN="$BIN" OUT="$OUT/d64" DIM=64 CASES="$d64" \
  bash tests/gpu/variant_options.sh > "$OUT/d64.txt" 2>&1
part mono && timeout 200 env BIN="$BIN" OUT="$OUT/mono" bash tests/gpu/monotone_max.sh > "$OUT/mono.txt" 2>&1
# Printed at once (a call cut short still shows it).
if part l2; then
  echo "== L2 and memory copy rates (tools/scripts/l2_rate.cu)"
  l2=$BIN/l2_rate
  [[ -x $l2 ]] || { nvcc -O3 -gencode=arch=compute_90a,code=sm_90a tools/scripts/l2_rate.cu \
    -o "$OUT/l2_rate" && l2=$OUT/l2_rate; }
  timeout 60 "$l2" 2>&1 | tail -14
fi
if part lazy; then
  timeout 300 env BIN="$BIN" OUT="$OUT/lazy" VARIANT=softmax OFF=--lazy-rescale \
    OFF_NAME=lazy-rescale MEMCHECK_OFF=1 bash tests/gpu/option_ab.sh > "$OUT/lazy.txt" 2>&1
  echo "== softmax: a lazily moved maximum (--lazy-rescale) against the running maximum"
  grep -v "^PASS\|: PASS" "$OUT/lazy.txt" | tail -16
  echo "$(grep -c "PASS" "$OUT/lazy.txt") checks PASS"
fi
if part bounded; then
  timeout 300 env BIN="$BIN" OUT="$OUT/bounded" bash tests/gpu/bounded_shift.sh \
    > "$OUT/bounded.txt" 2>&1
  echo "== softcap: a constant shift (--bounded-shift) against the running maximum"
  grep -v "^PASS\|: PASS" "$OUT/bounded.txt" | tail -24
  echo "$(grep -c "PASS" "$OUT/bounded.txt") checks PASS"
  # At D64, where the special-function unit bounds softcap: the constant shift leaves issue
  # slots for exponentials on the FMA pipe (1032 instructions and 160 MUFU in the kv loop
  # with --exp2-emulation=2, against 1279 and 260 by default; sass.sh).
  b64="softmax|softmax|;softcap|softcap|;softcap bounded|softcap|--bounded-shift"
  b64+=";softcap bounded exp2-emul 2|softcap|--bounded-shift --exp2-emulation=2"
  b64+=";softcap bounded exp2-emul 4|softcap|--bounded-shift --exp2-emulation=4"
  # Softmax itself at D64 keeps the special-function unit as busy as the tensor pipe (52% and
  # 50%, thirty-sixth session's profile); its emulation timing never ran.
  b64+=";softmax exp2-emul 4|softmax|--exp2-emulation=4;softmax exp2-emul 8|softmax|--exp2-emulation=8"
  echo "== softcap D64: the constant shift with exponentials on the FMA pipe"
  timeout 200 env BIN="$BIN" OUT="$OUT/bounded/d64" DIM=64 CASES="$b64" CHECK="exp2" \
    bash tests/gpu/variant_options.sh 2>&1 | tail -8
fi
part limits && timeout 230 env BIN="$BIN" OUT="$OUT/lim" PROFILE="${PROFILE:-0}" KEEP_SASS=1 \
  bash tests/gpu/limits.sh > "$OUT/limits.txt" 2>&1
part variants && timeout 260 python3 benchmarks/bench_variants.py --bin "$BIN" --csv "$OUT/variants.csv" \
  > "$OUT/variants.txt" 2>&1
(cd "$OUT" && tar czf logs.tgz casts mono bounded lazy lim stages d64 pp model autotune combos \
  2>/dev/null
  rm -rf casts mono bounded lazy lim stages d64 pp model autotune combos)
show() { # title, file; the part's results, if it ran
  echo "== $1"
  cat "$2"
}
{ part ppgrid || part pingpong; } &&
  show "ping-pong (each branch passes the turn; no wgmma serialisation)" "$OUT/pingpong.txt"
part combo && show "a soft cap under a document mask and a window" "$OUT/combo.txt"
part stages && show "three kv stages against two (softmax)" "$OUT/stages.txt"
{ part casts || part castsab; } &&
  show "positions per thread and per element (tile-split-index-casts) against per element" \
    "$OUT/casts.txt"
part d64 && show "softcap at D64: tile options" "$OUT/d64.txt"
part mono && show "softcap: monotone-max against the maximum after the tanh" "$OUT/mono.txt"
part limits && show "every variant file; the variants below softmax" <(grep -v "^PASS file" "$OUT/limits.txt")
part grid && { grep -q "^| D" "$OUT/grid.txt" && show "softmax grid" <(grep -A40 "^| D" "$OUT/grid.txt" | head -48) ||
  show "softmax grid (cut short: the cells done)" <(grep "^\[" "$OUT/grid.txt"); }
part autotune && show "autotune with ping-pong as a candidate (tests/gpu/autotune_pingpong.sh)" \
  <(grep -v "^PASS" "$OUT/autotune.txt"; echo "$(grep -c "^PASS" "$OUT/autotune.txt") checks PASS")
part variants && show "custom variants" <(grep -A22 "^| variant" "$OUT/variants.txt")
exit 0
