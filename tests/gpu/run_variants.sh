#!/usr/bin/env bash
# One call on the GPU machine for the variant library: every function of
# frontend/variants/*.mlir against the oracle at several lengths, compute-sanitizer on four
# variants with custom inputs or several kernels, then the timing against FlexAttention; a
# short table last.
#
#   BIN=<dir with static metaattn-run and metaattn-variant> OUT=<dir> bash tests/gpu/run_variants.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-variants}
JOBS=${JOBS:-14}
mkdir -p "$OUT/logs"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
nvidia-smi -L || { echo "no GPU"; exit 1; }
{
  for file in frontend/variants/*.mlir; do
    for f in $(grep -o '^func.func @[A-Za-z0-9_]*' "$file" | sed 's/func.func @//'); do
      for lens in "2 77 130" "2 1000 1000" "1 1 4099" "1 2049 2049" "3 130 77"; do
        echo "$file $f $lens"
      done
    done
  done
} > "$OUT/jobs.txt"
run_job() {
  local file=$1 f=$2 b=$3 sq=$4 skv=$5
  local log="$OUT/logs/${f}_b${b}_${sq}x${skv}.log"
  if "$RUN" "$file" --device=gpu --function="$f" --batch="$b" --seq-q="$sq" --seq-kv="$skv" \
       > "$log" 2>&1; then
    echo "PASS $f B=$b Sq=$sq Skv=$skv"
  else
    echo "FAIL $f B=$b Sq=$sq Skv=$skv"
  fi
}
export -f run_job
export RUN OUT
awk '{print $1, $2}' "$OUT/jobs.txt" | sort -u | while read -r file f; do
  "$RUN" "$file" --device=gpu --function="$f" --batch=1 --seq-q=5 --seq-kv=5 > /dev/null 2>&1
done
start=$(date +%s)
xargs -P "$JOBS" -L 1 bash -c 'run_job "$@"' _ < "$OUT/jobs.txt" | sort > "$OUT/correctness.txt"
echo "variant correctness: $(grep -c ^PASS "$OUT/correctness.txt") passed," \
     "$(grep -c ^FAIL "$OUT/correctness.txt") failed, $(( $(date +%s) - start )) s"
grep ^FAIL "$OUT/correctness.txt" | head -20
for f in document_mask_causal:frontend/variants/document_mask.mlir \
         sink_causal:frontend/variants/sink.mlir \
         block_sparse_causal_48x80:frontend/variants/block_sparse.mlir \
         differential_causal:frontend/variants/differential.mlir; do
  compute-sanitizer --tool memcheck --error-exitcode 3 "$RUN" "${f#*:}" --device=gpu \
    --function="${f%%:*}" --batch=1 --seq-q=130 --seq-kv=77 > "$OUT/memcheck_${f%%:*}.log" 2>&1
  echo "memcheck ${f%%:*}: exit $? ($(grep 'ERROR SUMMARY' "$OUT/memcheck_${f%%:*}.log" | tail -1))"
done
PYTHONUNBUFFERED=1 python3 benchmarks/bench_variants.py --bin "$BIN" --csv "$OUT/variants.csv" \
  2>&1 | tee "$OUT/bench_variants.log" | tail -16
