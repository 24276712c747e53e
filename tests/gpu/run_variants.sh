#!/usr/bin/env bash
# One call on the GPU machine for the variant library: every function of
# frontend/variants/*.mlir against the oracle at several lengths, compute-sanitizer on four
# variants with custom inputs or several kernels, the modules that bench_variants.py times at
# shapes it does not print itself (block-sparse H16 D128 with --block-density, differential,
# fused and not, and softmax at H12 D128 Dv256) against the oracle at small lengths, then the
# timing against FlexAttention; a short table last.
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
# The benchmark's own modules, small lengths, against the oracle (in parallel: the oracle is
# the slow part, 6-8 s each).
"$BIN/metaattn-variant" block_sparse --heads=16 --dim=128 --causal --block-q=128 --block-kv=128 \
  > "$OUT/bench_block_sparse.mlir"
"$BIN/metaattn-variant" differential --heads=12 --dim=128 --value-dim=256 --causal \
  > "$OUT/bench_differential.mlir"
"$BIN/metaattn-variant" softmax --heads=12 --dim=128 --value-dim=256 --causal \
  > "$OUT/bench_softmax_dv256.mlir"
bench_module() {
  local name=${1%% *} opts=${1#* }
  local log="$OUT/logs/bench_${name}_$(echo "$opts" | tr -c 'A-Za-z0-9.\n' _).log"
  # shellcheck disable=SC2086 # the case's options are words
  if "$RUN" "$OUT/bench_$name.mlir" --device=gpu $opts > "$log" 2>&1; then
    echo "bench module $1: PASS $(grep -o 'block map.*kept' "$log")"
  else
    echo "bench module $1: FAIL ($log)"
  fi
}
for c in "block_sparse --batch=1 --seq-q=520 --block-density=0.15" \
         "block_sparse --batch=1 --seq-q=300 --seq-kv=520 --block-density=0.3 --seed=3" \
         "differential --batch=1 --seq-q=333" "differential --batch=1 --seq-q=333 --fuse-combine=false" \
         "softmax_dv256 --batch=1 --seq-q=333"; do
  bench_module "$c" > "$OUT/logs/bench_module_$(echo "$c" | tr -c 'A-Za-z0-9.\n' _).txt" &
done
wait
cat "$OUT"/logs/bench_module_*.txt
PYTHONUNBUFFERED=1 python3 benchmarks/bench_variants.py --bin "$BIN" --csv "$OUT/variants.csv" \
  2>&1 | tee "$OUT/bench_variants.log" | tail -20
