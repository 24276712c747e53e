#!/usr/bin/env bash
# One call on the GPU machine for the Hopper (wgmma) path: the device library's wgmma gemms
# against a host reference, the softmax cases of run_h200.sh against the oracle (with
# compute-sanitizer), the variant files at two shapes, the linear family, then a short softmax
# timing against cuDNN / FA2 / FlexAttention; short tables last.
#
#   BIN=<dir with static metaattn-run, metaattn-variant and device_lib_test> OUT=<dir> \
#     bash tests/gpu/run_hopper.sh
#
# device_lib_test is built here (no GPU needed) with
#   nvcc -gencode=arch=compute_90a,code=sm_90a -std=c++17 -O3 -cudart=static \
#     -I runtime/device -I tests/gpu/device tests/gpu/device/device_lib_test.cu -o BIN/device_lib_test
# SUITE=0 skips the timing; DIMS / SEQS choose its grid (default 64,128 x 1024,4096).
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-hopper}
JOBS=${JOBS:-14}
mkdir -p "$OUT/logs"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
nvidia-smi -L || { echo "no GPU"; exit 1; }

# --- 1. Device library (wgmma gemms among the rest) --------------------------------------------
if [ -x "$BIN/device_lib_test" ]; then
  timeout 120 "$BIN/device_lib_test" > "$OUT/device_lib.log" 2>&1
  echo "device library tests: exit $? ($(grep -c PASS "$OUT/device_lib.log") PASS," \
       "$(grep -c FAIL "$OUT/device_lib.log") FAIL)"
  grep -E "wg::|FAIL" "$OUT/device_lib.log" | head -20
fi

# --- 2. Softmax cases against the oracle, sanitizers -----------------------------------------
LONG=${LONG:-1} BENCH=0 SKIP_DEVICE_LIB=1 LINEAR=0 BIN="$BIN" OUT="$OUT/softmax" JOBS="$JOBS" \
  bash tests/gpu/run_h200.sh 2>&1 | grep -v "^GPU 0"

# --- 3. Variant files at two shapes -------------------------------------------------------------
{
  for file in frontend/variants/*.mlir; do
    for f in $(grep -o '^func.func @[A-Za-z0-9_]*' "$file" | sed 's/func.func @//'); do
      for lens in "2 77 130" "1 2049 2049" "3 130 77"; do echo "$file $f $lens"; done
    done
  done
} > "$OUT/variant_jobs.txt"
run_job() {
  local file=$1 f=$2 b=$3 sq=$4 skv=$5
  if "$RUN" "$file" --device=gpu --function="$f" --batch="$b" --seq-q="$sq" --seq-kv="$skv" \
       > "$OUT/logs/${f}_b${b}_${sq}x${skv}.log" 2>&1; then
    echo "PASS $f B=$b Sq=$sq Skv=$skv"
  else
    echo "FAIL $f B=$b Sq=$sq Skv=$skv"
  fi
}
export -f run_job
export RUN OUT
awk '{print $1, $2}' "$OUT/variant_jobs.txt" | sort -u | while read -r file f; do
  "$RUN" "$file" --device=gpu --function="$f" --batch=1 --seq-q=5 --seq-kv=5 > /dev/null 2>&1
done
xargs -P "$JOBS" -L 1 bash -c 'run_job "$@"' _ < "$OUT/variant_jobs.txt" | sort \
  > "$OUT/variants_correctness.txt"
echo "variant files: $(grep -c ^PASS "$OUT/variants_correctness.txt") passed," \
     "$(grep -c ^FAIL "$OUT/variants_correctness.txt") failed"
grep ^FAIL "$OUT/variants_correctness.txt" | head -20
for f in causal_d128_gqa4 causal_d192_dv128; do
  compute-sanitizer --tool racecheck --error-exitcode 3 "$RUN" "$OUT/softmax/cases.mlir" \
    --device=gpu --function=$f --batch=1 --seq-q=300 --seq-kv=257 > "$OUT/racecheck_$f.log" 2>&1
  echo "racecheck $f: exit $? ($(grep 'RACECHECK SUMMARY' "$OUT/racecheck_$f.log" | tail -1))"
done

# --- 4. Softmax timing against the peers -----------------------------------------------------
if [ "${SUITE:-1}" = 1 ]; then
  mkdir -p "$OUT/bench"
  PYTHONUNBUFFERED=1 timeout 300 python3 benchmarks/bench_suite.py --runner "$RUN" \
    --out "$OUT/bench" --only grid --dims "${DIMS:-64,128}" --seqs "${SEQS:-1024,4096}" \
    --iters 20 > "$OUT/bench_suite.log" 2>&1
  echo "bench_suite: exit $?"
  if [ -f "$OUT/bench/suite_summary.md" ]; then
    cat "$OUT/bench/suite.md" "$OUT/bench/suite_summary.md" 2>/dev/null | tail -30
  else
    tail -25 "$OUT/bench_suite.log"
  fi
fi
