#!/usr/bin/env bash
# The launch-time plans of softmax functions on the GPU: the persistent kernels (metaattn-run
# --persistent, the gemm overlap inside the loop over tiles) with the short-grid plan
# (--persistent=short-grids: the persistent form launched on grids of at most 8 query tiles),
# and the long-keys plan (on by default: 192-wide kv tiles for mask-free kernels with head dims
# <= 128, launched from 8192 keys; --long-keys forces that tiling, --long-keys=false drops it):
#   1. the persistent form against the oracle where each block walks several tiles (grids of
#      at most 8 query tiles and more tiles than multiprocessors: causal, GQA, D 64/128/256,
#      D ≠ Dv, fp16, length 1, a last partial tile);
#   2. the short-grid plan at lengths on both sides of 8 query tiles, the long-keys plan on
#      both sides of 8192 keys (each log names its plan);
#   3. the long-keys tiling against the oracle (--long-keys: lengths around a 192-row tile,
#      GQA, fp16);
#   4. compute-sanitizer (memcheck, racecheck, synccheck) on the persistent causal D128 kernel
#      and the long-keys D128 kernel;
#   5. TFLOP/s at B·S = 16k, H·D = 2048 (tests/gpu/explore_configs.sh), printed last: the
#      plain and persistent forms at S = 512, 1k, 16k (at S ≤ 1k the persistent row is what
#      the short-grid plan runs; at 16k it shows whether the persistent kernel still costs
#      anything launched one block per tile), then D128 with and without the long-keys tiling
#      at S = 2k..16k.
#   BIN=<dir with static metaattn-run> OUT=<dir> [SANITIZE=0] [TIMING=0] \
#     [SEQS="512 1024 16384"] [CONFIGS="--persistent=false|--persistent=true"] \
#     [LONG_SEQS="2048 4096 8192 16384"] bash tests/gpu/run_plans.sh
# DEVICE=cpu runs steps 1-3 on the CPU tile executor (small batches, the long-keys plan's
# lengths scaled down: the executor runs one tiling; no sanitizers, no timing).
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-plans}
mkdir -p "$OUT/logs"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
DEVICE=${DEVICE:-gpu}
ir="$OUT/plans.mlir"
python3 benchmarks/softmax_ir.py d64:8:8:64:64:0 d64c:8:2:64:64:1 d128:4:4:128:128:0 \
  d128c:4:1:128:128:1 d256c:2:2:256:256:1 d128v256:4:4:128:256:0 h128c:4:4:128:128:1:f16 \
  g128:8:2:128:128:0 h128:4:4:128:128:0:f16 > "$ir"
# Batches: a multiple of 132 multiprocessors' worth of tiles on the GPU, a few on the CPU.
if [ "$DEVICE" = gpu ]; then SCALE=16; LONG=8192; else SCALE=1; LONG=400; fi
check() { # function batch length options...: one PASS/FAIL line
  local f=$1 b=$2 s=$3; shift 3
  local log="$OUT/logs/${f}_b${b}_s${s}_${*//[^a-z0-9]/_}.log"
  if timeout 300 "$RUN" "$ir" --device="$DEVICE" --function="$f" --batch="$b" --seq-q="$s" "$@" \
      > "$log" 2>&1 && grep -q "^PASS $f" "$log"; then
    local plan
    plan=$(grep -m1 -o 'plan: [a-z -]*[a-z]' "$log")
    echo "PASS $f B=$b S=$s $*${plan:+ ($plan)}"
  else
    echo "FAIL $f B=$b S=$s $* (see $log)"
  fi
}
{
  for f in d64 d64c d128 d128c d256c d128v256 h128c; do
    check $f $((2 * SCALE)) 400 --persistent
    check $f $((3 * SCALE)) 130 --persistent --seq-kv=77
    check $f 2 1 --persistent
  done
  for s in 300 1024 1025; do check d128c 2 $s --persistent=short-grids; done
  # The plan at 8191 and 8192 keys (a short query: the oracle stays cheap).
  for kv in $((LONG - 1)) $LONG; do check d128 1 64 --seq-kv=$kv; check g128 1 1 --seq-kv=$kv; done
  for f in d128 g128 h128; do
    check $f $((2 * SCALE)) 400 --long-keys
    check $f $((SCALE)) 130 --long-keys --seq-kv=385
    check $f 2 193 --long-keys --seq-kv=193
    check $f 2 1 --long-keys --seq-kv=1
  done
} | tee "$OUT/correctness.txt"
if [ "$DEVICE" = gpu ] && [ "${SANITIZE:-1}" = 1 ]; then
  for case in "d128c --persistent" "g128 --long-keys"; do
    set -- $case
    for tool in memcheck racecheck synccheck; do
      timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 3 "$RUN" "$ir" --device=gpu \
        --function="$1" "$2" --batch=8 --seq-q=300 > "$OUT/logs/${tool}_$1.log" 2>&1
      echo "$tool $1 $2: exit $? $(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/logs/${tool}_$1.log")"
    done
  done | tee "$OUT/sanitizers.txt"
fi
if [ "$DEVICE" = gpu ] && [ "${TIMING:-1}" = 1 ]; then
  SHAPES="d128 d128c d256 d256c d64 d64c" SEQS="${SEQS:-512 1024 16384}" \
    CONFIGS="${CONFIGS:---persistent=false|--persistent=true}" BIN="$BIN" OUT="$OUT/timing" \
    bash tests/gpu/explore_configs.sh > /dev/null 2>&1
  SHAPES="d128" SEQS="${LONG_SEQS:-2048 4096 8192 16384}" \
    CONFIGS="--long-keys=false|--long-keys=true" BIN="$BIN" OUT="$OUT/timing-long" \
    bash tests/gpu/explore_configs.sh > /dev/null 2>&1
  cat "$OUT/timing/configs.txt" "$OUT/timing-long/configs.txt"
fi
echo "correctness: $(grep -c '^PASS' "$OUT/correctness.txt") passed, $(grep -c '^FAIL' "$OUT/correctness.txt") failed"
