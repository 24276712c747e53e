#!/usr/bin/env bash
# Block-sparse kernels that walk only their kept kv tiles (--kept-tiles, the default; tile.kept_tiles) on the
# GPU: three block-sparse functions (H16 D128 causal; H4 D64 not causal; GQA H4/2 D40 causal
# with the row statistic) at five shapes and two densities, sm_90a plain and persistent and
# sm_80, against the oracle; compute-sanitizer memcheck and racecheck on two; then the time of
# B4 H16 S4k and B1 S16k D128 causal at densities 0.05/0.2/0.5/1 with and without the option,
# beside our causal softmax. A short table last.
#
#   BIN=<dir with static metaattn-run and metaattn-variant> OUT=<dir> [TIMING=0] \
#     bash tests/gpu/kept_tiles.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-kept-tiles}
JOBS=${JOBS:-14}
mkdir -p "$OUT/logs"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
nvidia-smi -L || { echo "no GPU"; exit 1; }
"$BIN/metaattn-variant" block_sparse --heads=16 --dim=128 --causal --name=f > "$OUT/bs.mlir"
"$BIN/metaattn-variant" block_sparse --heads=4 --dim=64 --name=f > "$OUT/bsn.mlir"
"$BIN/metaattn-variant" block_sparse --heads=4 --kv-heads=2 --dim=40 --causal --lse --name=f \
  > "$OUT/bsg.mlir"
"$BIN/metaattn-variant" softmax --heads=16 --dim=128 --causal --name=f > "$OUT/softmax.mlir"
{
  for m in bs bsn bsg; do
    for lens in "2 77 130" "2 1000 1000" "1 1 4099" "1 2049 2049" "3 130 77"; do
      for d in 0.3 0.05; do
        for t in "sm_90a false" "sm_90a true" "sm_80 false"; do
          echo "$m $lens $d $t"
        done
      done
    done
  done
} > "$OUT/jobs.txt"
run_job() {
  local m=$1 b=$2 sq=$3 skv=$4 d=$5 t=$6 p=$7
  local log="$OUT/logs/${m}_b${b}_${sq}x${skv}_d${d}_${t}_p$p.log"
  if "$RUN" "$OUT/$m.mlir" --device=gpu --target="$t" --batch="$b" --seq-q="$sq" \
       --seq-kv="$skv" --block-density="$d" --persistent="$p" > "$log" 2>&1; then
    echo "PASS $m B=$b Sq=$sq Skv=$skv density=$d $t persistent=$p"
  else
    echo "FAIL $m B=$b Sq=$sq Skv=$skv density=$d $t persistent=$p"
  fi
}
export -f run_job
export RUN OUT
xargs -P "$JOBS" -L 1 bash -c 'run_job "$@"' _ < "$OUT/jobs.txt" | sort > "$OUT/correctness.txt"
echo "correctness: $(grep -c ^PASS "$OUT/correctness.txt") passed," \
     "$(grep -c ^FAIL "$OUT/correctness.txt") failed"
grep ^FAIL "$OUT/correctness.txt" | head -20
for tool in memcheck racecheck; do
  for p in false true; do
    compute-sanitizer --tool $tool --error-exitcode 3 "$RUN" "$OUT/bs.mlir" --device=gpu \
      --kept-tiles --batch=1 --seq-q=700 --seq-kv=770 --block-density=0.3 --persistent=$p \
      > "$OUT/${tool}_p$p.log" 2>&1
    echo "$tool persistent=$p: exit $? ($(grep 'ERROR SUMMARY\|RACECHECK SUMMARY' \
      "$OUT/${tool}_p$p.log" | tail -1))"
  done
done
[ "${TIMING:-1}" = 0 ] && exit 0
time_of() { # mlir batch seq options...
  local mlir=$1 b=$2 s=$3
  shift 3
  "$RUN" "$mlir" --device=gpu --batch=$b --seq-q=$s --bench --no-check --iters=30 "$@" 2>&1 |
    grep -o 'time: [0-9.e+-]* ms' | head -1 | awk '{printf "%.4f", $2}'
}
printf '%-10s %-8s %-8s %10s %10s %10s\n' shape density rep off on softmax > "$OUT/table.txt"
for rep in 1 2; do
  for shape in "4 4096" "1 16384"; do
    set -- $shape
    sm=$(time_of "$OUT/softmax.mlir" $1 $2)
    for d in 0.05 0.2 0.5 1; do
      off=$(time_of "$OUT/bs.mlir" $1 $2 --block-density=$d --kept-tiles=false)
      on=$(time_of "$OUT/bs.mlir" $1 $2 --block-density=$d --kept-tiles)
      printf '%-10s %-8s %-8s %10s %10s %10s\n' "B$1xS$2" $d $rep "${off:-error}" \
        "${on:-error}" "${sm:-error}" >> "$OUT/table.txt"
    done
  done
done
cat "$OUT/table.txt"
