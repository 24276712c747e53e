#!/usr/bin/env bash
# The linear family on the GPU: every function of frontend/variants/linear.mlir against the
# token-by-token oracle at awkward lengths (bf16), the real head dims of the PERF.md shapes at a
# short length, compute-sanitizer on a chunked kernel, then (BENCH_LINEAR=1) the timing against
# FLA (benchmarks/bench_linear.py; FLA from $FLA_PATH when given). SANITIZE=0 skips the sanitizer.
#
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/run_linear.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-gpu}
JOBS=${JOBS:-14}
mkdir -p "$OUT/linear_logs"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
FILE=frontend/variants/linear.mlir
{
  for lens in 1 17 64 65 130 300 1000; do echo "$FILE 2 $lens"; done
  echo "$FILE 1 2049"
  # The PERF.md head dims (state and value sizes), checked at a short length.
  for spec in "gated_retention 4 4 64 64" "gated_retention 2 2 256 256" \
              "retnet_recurrent 2 2 256 512" "mamba2_ssd 4 1 128 64" "gla 2 2 128 128"; do
    set -- $spec
    ir="$OUT/linear_logs/$1_$4_$5.mlir"
    "$BIN/metaattn-variant" "$1" --heads="$2" --kv-heads="$3" --dim="$4" --value-dim="$5" > "$ir"
    echo "$ir 2 200"
    echo "$ir 2 200 --fused-chunks"
  done
  # The fused kernel (scalar gates or none; GLA keeps its kernels) at the same lengths.
  for lens in 1 17 65 130 300 1000; do echo "$FILE 2 $lens --fused-chunks"; done
  echo "$FILE 1 2049 --fused-chunks"
  echo "$FILE 2 300 --fused-chunks --stages=1"
} > "$OUT/linear_jobs.txt"
run_job() {
  local f=$1 b=$2 s=$3
  shift 3
  local tag="${*//[^a-z0-9]/_}"
  local log="$OUT/linear_logs/$(basename "$f" .mlir)_b${b}_${s}${tag}.log"
  if "$RUN" "$f" --device=gpu --batch="$b" --seq-q="$s" "$@" > "$log" 2>&1; then
    echo "PASS $(basename "$f") B=$b S=$s $* ($(grep -c '^PASS' "$log") functions)"
  else
    echo "FAIL $(basename "$f") B=$b S=$s $* (see $(basename "$log"))"
  fi
}
export -f run_job
export RUN OUT
"$RUN" "$FILE" --device=gpu --batch=1 --seq-q=5 > /dev/null 2>&1  # fill the kernel cache
xargs -P "$JOBS" -L 1 bash -c 'run_job "$@"' _ < "$OUT/linear_jobs.txt" | sort > "$OUT/linear_correctness.txt"
# The non-default forms of GLA's kernels at Dk = Dv = 128 (the one-block output kernel, the
# 128-row states blocks over eight warps, the gates scanned in the states and output kernels).
for opts in "--compact-vector-output=false" "--state-rows=128 --state-warps=8" \
            "--precompute-gates=false"; do
  log="$OUT/linear_logs/gla_128_128_${opts//[^a-z0-9]/_}.log"
  if "$RUN" "$OUT/linear_logs/gla_128_128.mlir" --device=gpu --batch=2 --seq-q=300 $opts \
       > "$log" 2>&1
  then echo "PASS gla_128_128 B=2 S=300 $opts"; else echo "FAIL gla_128_128 B=2 S=300 $opts"; fi
done >> "$OUT/linear_correctness.txt"
echo "linear correctness: $(grep -c ^PASS "$OUT/linear_correctness.txt") passed," \
     "$(grep -c ^FAIL "$OUT/linear_correctness.txt") failed"
grep ^FAIL "$OUT/linear_correctness.txt" | head
[ "${SANITIZE:-1}" = 1 ] && for tool in memcheck racecheck; do
  compute-sanitizer --tool "$tool" --error-exitcode 3 "$RUN" "$FILE" --device=gpu \
    --function=gated_retention --batch=1 --seq-q=130 > "$OUT/linear_sanitizer_$tool.log" 2>&1
  echo "compute-sanitizer $tool (gated_retention): exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
    "$OUT/linear_sanitizer_$tool.log" | tail -1))"
  compute-sanitizer --tool "$tool" --error-exitcode 3 "$RUN" "$OUT/linear_logs/retnet_recurrent_256_512.mlir" \
    --device=gpu --fused-chunks --batch=1 --seq-q=130 > "$OUT/linear_sanitizer_fused_$tool.log" 2>&1
  echo "compute-sanitizer $tool (fused RetNet 256/512): exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
    "$OUT/linear_sanitizer_fused_$tool.log" | tail -1))"
done
if [ "${BENCH_LINEAR:-1}" = 1 ]; then
  PYTHONUNBUFFERED=1 python3 benchmarks/bench_linear.py --bin "$BIN" --csv "$OUT/linear.csv" \
    ${FLA_PATH:+--fla-path "$FLA_PATH"} ${LINEAR_QUICK:+--quick} ${LINEAR_OPTS:+--opts "$LINEAR_OPTS"} \
    > "$OUT/bench_linear.log" 2>&1
  echo "bench_linear: exit $?"
  tail -30 "$OUT/bench_linear.log"
fi
