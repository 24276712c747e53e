#!/usr/bin/env bash
# One call on the GPU machine: GPU correctness against the oracle, compute-sanitizer, the
# device-library tests and the benchmark suite (bench_suite.py, bench_jit.py); short tables last.
#
#   BIN=<dir with static metaattn-run> OUT=<dir for logs and CSV> bash tests/gpu/run_h200.sh
#   (LONG=0 skips the single-head cases up to 8193 tokens; BENCH=quick runs the short benchmark
#   suite, BENCH=0 none)
#
# Build BIN here with: cmake -G Ninja -S . -B build-static -DMETAATTN_STATIC_LLVM=ON \
#   -DMETAATTN_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release && ninja -C build-static metaattn-run
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-gpu}
JOBS=${JOBS:-14}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
nvidia-smi -L || { echo "no GPU"; exit 1; }

# --- 1. Variants at many lengths against the oracle ------------------------------------------
CASES="$OUT/cases.mlir"
python3 benchmarks/softmax_ir.py \
  mha_d64:4:4:64:64:0 causal_d64:4:4:64:64:1 causal_d128_gqa4:8:2:128:128:1 \
  d128_gqa4:8:2:128:128:0 causal_d192_dv128:2:2:192:128:1 d128_dv256:2:2:128:256:0 \
  odd_d72_dv40:3:1:72:40:1 f16_causal_d128:2:2:128:128:1:f16 f16_d64:4:4:64:64:0:f16 \
  long_d64:1:1:64:64:0 long_causal_d128:1:1:128:128:1 long_f16_d64:1:1:64:64:1:f16 > "$CASES"
{
  for f in mha_d64 causal_d64 causal_d128_gqa4 d128_gqa4 causal_d192_dv128 d128_dv256 \
           odd_d72_dv40 f16_causal_d128 f16_d64; do
    for lens in "1 1" "1 4099" "17 17" "64 64" "65 65" "77 130" "130 77" "127 129" "200 1000" \
                "1000 200" "1000 1000"; do
      echo "$f 3 $lens"
    done
  done
  [ "${LONG:-1}" = 1 ] && for f in long_d64 long_causal_d128 long_f16_d64; do
    for lens in "2049 2049" "4099 4099" "8192 8192" "8191 8193"; do echo "$f 1 $lens"; done
  done
} > "$OUT/jobs.txt"
run_job() {
  local f=$1 b=$2 sq=$3 skv=$4
  local log="$OUT/logs/${f}_b${b}_${sq}x${skv}.log"
  if "$RUN" "$CASES" --device=gpu --function="$f" --batch="$b" --seq-q="$sq" --seq-kv="$skv" \
       > "$log" 2>&1; then
    echo "PASS $f B=$b Sq=$sq Skv=$skv"
  else
    echo "FAIL $f B=$b Sq=$sq Skv=$skv (see $(basename "$log"))"
  fi
}
export -f run_job
export RUN CASES OUT
mkdir -p "$OUT/logs"
# Compile each kernel once first (fills the NVRTC cache), then run everything in parallel.
awk '{print $1}' "$OUT/jobs.txt" | sort -u | while read -r f; do
  "$RUN" "$CASES" --device=gpu --function="$f" --batch=1 --seq-q=5 --seq-kv=5 > /dev/null 2>&1
done
start=$(date +%s)
xargs -P "$JOBS" -L 1 bash -c 'run_job "$@"' _ < "$OUT/jobs.txt" | sort > "$OUT/correctness.txt"
echo "correctness: $(grep -c ^PASS "$OUT/correctness.txt") passed," \
     "$(grep -c ^FAIL "$OUT/correctness.txt") failed, $(( $(date +%s) - start )) s"
grep ^FAIL "$OUT/correctness.txt" | head -20

# --- 2. compute-sanitizer on generated kernels -----------------------------------------------
for tool in memcheck racecheck; do
  compute-sanitizer --tool "$tool" --error-exitcode 3 "$RUN" "$CASES" --device=gpu \
    --function=causal_d128_gqa4 --batch=1 --seq-q=130 --seq-kv=77 > "$OUT/sanitizer_$tool.log" 2>&1
  echo "compute-sanitizer $tool: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' \
    "$OUT/sanitizer_$tool.log" | tail -1))"
done

# --- 3. Device-library test program (hand-written kernels on the library) -------------------
if [ "${SKIP_DEVICE_LIB:-0}" = 1 ]; then
  echo "device library tests: skipped (SKIP_DEVICE_LIB=1)"
elif bash tests/gpu/device/build.sh /tmp/device_lib_test > "$OUT/device_lib_build.log" 2>&1; then
  /tmp/device_lib_test > "$OUT/device_lib.log" 2>&1
  echo "device library tests: exit $? ($(grep -c PASS "$OUT/device_lib.log") PASS," \
       "$(grep -c FAIL "$OUT/device_lib.log") FAIL)"
else
  echo "device library tests: build failed (see device_lib_build.log)"
fi

# --- 3b. The linear family (chunked kernels) against the oracle, sanitizer, FLA timing ---------
if [ "${LINEAR:-1}" = 1 ]; then
  BIN="$BIN" OUT="$OUT" JOBS="$JOBS" bash tests/gpu/run_linear.sh
fi

# --- 4. Benchmark ------------------------------------------------------------------------------
# BENCH=1 (default): the full suite (softmax grid D 64/128/256 x S 512..16k x causal, PERF.md
# shapes of the parallel family) and the JIT timings; BENCH=quick: bench_suite.py --quick;
# BENCH=0: skip. Writes suite.csv/png/md and jit.csv/md to $OUT; the short tables come last.
BENCH=${BENCH:-1}
case "$BENCH" in
  0) exit 0 ;;
  quick) SUITE_FLAG=--quick ;;
  *) SUITE_FLAG= ;;
esac
mkdir -p "$OUT/bench"
PYTHONUNBUFFERED=1 python3 benchmarks/bench_suite.py --runner "$RUN" --out "$OUT/bench" \
  $SUITE_FLAG --iters "${BENCH_ITERS:-20}" > "$OUT/bench_suite.log" 2>&1
suite_rc=$?
PYTHONUNBUFFERED=1 python3 benchmarks/bench_jit.py --runner "$RUN" --out "$OUT/bench" \
  > "$OUT/bench_jit.log" 2>&1
jit_rc=$?
cp "$OUT"/bench/suite.csv "$OUT"/bench/suite.png "$OUT"/bench/suite.md "$OUT"/bench/jit.csv \
  "$OUT"/bench/jit.md "$OUT"/ 2>/dev/null
echo "bench_suite: exit $suite_rc ($(grep -c '^\[' "$OUT/bench_suite.log") cases; log" \
     "bench_suite.log, stderr lines: $(grep -c '^  ' "$OUT/bench_suite.log"))"
grep -E '^  ' "$OUT/bench_suite.log" | sort | uniq -c | sort -rn | head -8
echo "bench_jit: exit $jit_rc (log bench_jit.log)"
echo
[ -f "$OUT/bench/jit.md" ] && cat "$OUT/bench/jit.md" && echo
if [ -f "$OUT/bench/suite_summary.md" ]; then
  echo "### Summary of the suite (tables: suite.md)"
  echo
  cat "$OUT/bench/suite_summary.md"
else
  tail -20 "$OUT/bench_suite.log"
fi
