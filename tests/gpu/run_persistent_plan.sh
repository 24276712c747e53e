#!/usr/bin/env bash
# The persistent softmax kernels (metaattn-run --persistent), now with the gemm overlap inside
# the loop over tiles, and the short-grid plan (--persistent=short-grids: both forms compiled,
# the persistent one launched on grids of at most 8 query tiles) on the GPU:
#   1. the persistent form against the oracle where each block walks several tiles (grids of
#      at most 8 query tiles and more tiles than multiprocessors: causal, GQA, D 64/128/256,
#      D ≠ Dv, fp16, length 1, a last partial tile);
#   2. the short-grid plan at lengths on both sides of 8 query tiles (each log names its plan);
#   3. compute-sanitizer (memcheck, racecheck, synccheck) on the persistent causal D128 kernel;
#   4. TFLOP/s of the plain and the persistent forms at B·S = 16k, H·D = 2048
#      (tests/gpu/explore_configs.sh), printed last: at S ≤ 1k (8 query tiles of 128 rows) the
#      persistent row is what the short-grid plan runs; at 16k it shows whether the persistent
#      kernel still costs anything when launched one block per tile.
#   BIN=<dir with static metaattn-run> OUT=<dir> [SANITIZE=0] [TIMING=0] \
#     [SEQS="512 1024 16384"] [CONFIGS="--persistent=false|--persistent=true"] \
#     bash tests/gpu/run_persistent_plan.sh
# DEVICE=cpu runs steps 1 and 2 on the CPU tile executor (small batches; no sanitizers, no timing).
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-persistent}
mkdir -p "$OUT/logs"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
DEVICE=${DEVICE:-gpu}
ir="$OUT/persistent.mlir"
python3 benchmarks/softmax_ir.py d64:8:8:64:64:0 d64c:8:2:64:64:1 d128:4:4:128:128:0 \
  d128c:4:1:128:128:1 d256c:2:2:256:256:1 d128v256:4:4:128:256:0 h128c:4:4:128:128:1:f16 > "$ir"
# Batches: a multiple of 132 multiprocessors' worth of tiles on the GPU, a few on the CPU.
if [ "$DEVICE" = gpu ]; then SCALE=16; else SCALE=1; fi
check() { # function batch length options...: one PASS/FAIL line
  local f=$1 b=$2 s=$3; shift 3
  local log="$OUT/logs/${f}_b${b}_s${s}_${*//[^a-z0-9]/_}.log"
  if timeout 300 "$RUN" "$ir" --device="$DEVICE" --function="$f" --batch="$b" --seq-q="$s" "$@" \
      > "$log" 2>&1 && grep -q "^PASS $f" "$log"; then
    local plan
    plan=$(grep -m1 -o 'plan: [a-z ]*[a-z]' "$log")
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
} | tee "$OUT/correctness.txt"
if [ "$DEVICE" = gpu ] && [ "${SANITIZE:-1}" = 1 ]; then
  for tool in memcheck racecheck synccheck; do
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 3 "$RUN" "$ir" --device=gpu \
      --persistent --function=d128c --batch=8 --seq-q=300 > "$OUT/logs/$tool.log" 2>&1
    echo "$tool: exit $? $(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/logs/$tool.log")"
  done | tee "$OUT/sanitizers.txt"
fi
if [ "$DEVICE" = gpu ] && [ "${TIMING:-1}" = 1 ]; then
  SHAPES="d128 d128c d256 d256c d64 d64c" SEQS="${SEQS:-512 1024 16384}" \
    CONFIGS="${CONFIGS:---persistent=false|--persistent=true}" BIN="$BIN" OUT="$OUT/timing" \
    bash tests/gpu/explore_configs.sh > /dev/null 2>&1
  cat "$OUT/timing/configs.txt"
fi
echo "correctness: $(grep -c '^PASS' "$OUT/correctness.txt") passed, $(grep -c '^FAIL' "$OUT/correctness.txt") failed"
