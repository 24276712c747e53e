#!/usr/bin/env bash
# The kernels whose fragments only row reductions read (the emitter keeps per-thread partials
# instead, benchmarks/RESULTS.md, twenty-ninth session) on the GPU: every function of the
# library files that have one (softpick, RetNet parallel, ReLU, sigmoid) against the oracle at
# five shapes, plain and persistent, compute-sanitizer on two, then the time of the H16 D128
# kernels that spilled before (softpick causal, RetNet parallel D128 Dv256 with the row
# statistic; persistent and not) with this build and, where OLD is given, an older runner in
# the same call; a short table last.
#
#   BIN=<dir with static metaattn-run and metaattn-variant> [OLD=<older metaattn-run>] \
#     OUT=<dir> [TIMING=0] bash tests/gpu/row_partials.sh
# TIMING=0 stops after the checks.
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-row-partials}
OLD=${OLD:-}
JOBS=${JOBS:-14}
mkdir -p "$OUT/logs"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
nvidia-smi -L || { echo "no GPU"; exit 1; }
{
  for file in frontend/variants/{softpick,retnet,relu,sigmoid}.mlir; do
    for f in $(grep -o '^func.func @[A-Za-z0-9_]*' "$file" | sed 's/func.func @//'); do
      for lens in "2 77 130" "2 1000 1000" "1 1 4099" "1 2049 2049" "3 130 77"; do
        for p in false true; do
          echo "$file $f $lens $p"
        done
      done
    done
  done
} > "$OUT/jobs.txt"
run_job() {
  local file=$1 f=$2 b=$3 sq=$4 skv=$5 p=$6
  local log="$OUT/logs/${f}_b${b}_${sq}x${skv}_p$p.log"
  if "$RUN" "$file" --device=gpu --function="$f" --batch="$b" --seq-q="$sq" --seq-kv="$skv" \
       --persistent="$p" > "$log" 2>&1; then
    echo "PASS $f B=$b Sq=$sq Skv=$skv persistent=$p"
  else
    echo "FAIL $f B=$b Sq=$sq Skv=$skv persistent=$p"
  fi
}
export -f run_job
export RUN OUT
xargs -P "$JOBS" -L 1 bash -c 'run_job "$@"' _ < "$OUT/jobs.txt" | sort > "$OUT/correctness.txt"
echo "correctness: $(grep -c ^PASS "$OUT/correctness.txt") passed," \
     "$(grep -c ^FAIL "$OUT/correctness.txt") failed"
grep ^FAIL "$OUT/correctness.txt" | head -20
for f in softpick_causal:softpick retnet_parallel_gqa:retnet; do
  compute-sanitizer --tool memcheck --error-exitcode 3 "$RUN" "frontend/variants/${f#*:}.mlir" \
    --device=gpu --function="${f%%:*}" --batch=1 --seq-q=130 --seq-kv=77 --persistent=true \
    > "$OUT/memcheck_${f%%:*}.log" 2>&1
  echo "memcheck ${f%%:*}: exit $? ($(grep 'ERROR SUMMARY' "$OUT/memcheck_${f%%:*}.log" | tail -1))"
done
[ "${TIMING:-1}" = 0 ] && exit 0
# Timing at the bench_variants shape (B4 S4k) and a short grid (B1 S1k, where the persistent
# kernel runs by default).
"$BIN/metaattn-variant" softpick --heads=16 --dim=128 --causal --name=f > "$OUT/softpick.mlir"
"$BIN/metaattn-variant" retnet --heads=16 --dim=128 --value-dim=256 --causal --lse --name=f \
  > "$OUT/retnet_lse.mlir"
"$BIN/metaattn-variant" softmax --heads=16 --dim=128 --causal --name=f > "$OUT/softmax.mlir"
runners="new:$RUN"
[ -n "$OLD" ] && runners="old:$OLD $runners"
printf '%-8s %-12s %-10s %-5s %10s\n' kernel shape persistent build ms > "$OUT/table.txt"
for rep in 1 2; do
  for m in softmax softpick retnet_lse; do
    for shape in "4 4096" "1 1024"; do
      set -- $shape
      for p in false true; do
        for r in $runners; do
          ms=$("${r#*:}" "$OUT/$m.mlir" --device=gpu --batch=$1 --seq-q=$2 --bench --no-check \
               --iters=30 --persistent=$p 2>&1 | grep -o 'time: [0-9.e+-]* ms' | head -1 | awk '{printf "%.4f", $2}')
          printf '%-8s %-12s %-10s %-5s %10s\n' "$m" "B$1xS$2" "$p" "${r%%:*}$rep" \
            "${ms:-error}" >> "$OUT/table.txt"
        done
      done
    done
  done
done
cat "$OUT/table.txt"
