#!/usr/bin/env bash
# A short GPU check after a tiling change: softmax (D 64/128/192/256, GQA, fp16, causal) at
# awkward lengths and every variant file at one shape against the oracle, memcheck on one
# kernel, racecheck and synccheck on the warp-specialised softmax, and the default
# configuration's softmax TFLOP/s at S = 4k (explore_configs.sh).
#   BIN=<dir with static metaattn-run> OUT=<dir> [RUN_OPTS="--fold-score-scale ..."] \
#     bash tests/gpu/run_quick_check.sh
# RUN_OPTS go to every metaattn-run call (an option under test: correctness and sanitizers).
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-quick}
mkdir -p "$OUT/logs"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
python3 benchmarks/softmax_ir.py causal_d128_gqa4:8:2:128:128:1 mha_d64:4:4:64:64:0 \
  causal_d192_dv128:2:2:192:128:1 causal_d256:2:2:256:256:1 f16_causal_d128:2:2:128:128:1:f16 \
  d128_dv256:2:2:128:256:0 causal_d64:4:4:64:64:1 > "$OUT/cases.mlir"
{
  for f in causal_d128_gqa4 mha_d64 causal_d192_dv128 causal_d256 f16_causal_d128 d128_dv256 \
           causal_d64; do
    for lens in "1 4099" "77 130" "130 77" "127 129" "1000 1000" "193 193"; do
      echo "$OUT/cases.mlir $f 2 $lens"
    done
  done
  for file in frontend/variants/*.mlir; do
    for f in $(grep -o '^func.func @[A-Za-z0-9_]*' "$file" | sed 's/func.func @//'); do
      echo "$file $f 2 200 333"
    done
  done
} > "$OUT/jobs.txt"
run_job() {
  if timeout 120 "$RUN" "$1" --device=gpu --function="$2" --batch="$3" --seq-q="$4" --seq-kv="$5" $RUN_OPTS \
       > "$OUT/logs/$2_$4x$5.log" 2>&1; then echo "PASS $2 $4x$5"; else echo "FAIL $2 $4x$5"; fi
}
export -f run_job
RUN_OPTS=${RUN_OPTS:-}
export RUN OUT RUN_OPTS
xargs -P 16 -L 1 bash -c 'run_job "$@"' _ < "$OUT/jobs.txt" | sort > "$OUT/correctness.txt"
echo "quick check: $(grep -c ^PASS "$OUT/correctness.txt") passed," \
     "$(grep -c ^FAIL "$OUT/correctness.txt") failed"
grep ^FAIL "$OUT/correctness.txt" | head
# Only the failing jobs' logs are kept: the device tool returns a limited number of files from
# $OUT, and a caller's later results (a benchmark's CSV) must not be crowded out.
while read -r status fn lens; do
  [ "$status" = PASS ] && rm -f "$OUT/logs/${fn}_${lens}.log"
done < "$OUT/correctness.txt"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 3 "$RUN" "$OUT/cases.mlir" --device=gpu $RUN_OPTS \
  --function=causal_d128_gqa4 --batch=1 --seq-q=130 --seq-kv=77 > "$OUT/memcheck.log" 2>&1
echo "memcheck: exit $? ($(grep 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1))"
# The warp-specialised kernel (TMA producer, mbarriers, named barriers): shared-memory races
# and barrier misuse.
# Two consumer warpgroups (D128, causal, GQA) and three (D64 without a mask, 192 query rows;
# D64 causal, whose warpgroups skip kv tiles each on its own).
for f in causal_d128_gqa4 mha_d64 causal_d64; do
  for tool in racecheck synccheck; do
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 3 "$RUN" "$OUT/cases.mlir" --device=gpu $RUN_OPTS \
      --function=$f --batch=1 --seq-q=300 --seq-kv=400 > "$OUT/${tool}_$f.log" 2>&1
    echo "$tool $f: exit $? ($(grep -E '(ERROR|RACECHECK) SUMMARY' "$OUT/${tool}_$f.log" | tail -1))"
  done
done
BIN="$BIN" OUT="$OUT/cfg" CONFIGS="${QUICK_CONFIGS:-default}" SEQS=4096 bash tests/gpu/explore_configs.sh
