#!/usr/bin/env bash
# The exp2-emulation experiment on the GPU (benchmarks/RESULTS.md, twenty-eighth session): every
# K-th softmax weight's 2^x on the FMA pipe (exp2Poly) instead of the special-function unit.
# First the oracle at awkward lengths with K = 4 and K = 1 (every weight emulated) and
# compute-sanitizer on one kernel, then the time of each kernel at K = 0, 8, 4, 2 in one
# process per run (medians of --iters), a short table last.
#
#   BIN=<dir with static metaattn-run and metaattn-variant> OUT=<dir> [CHECKS=0] \
#     bash tests/gpu/exp2_emulation.sh
# CHECKS=0 skips the oracle and memcheck (the timing table only).
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-exp2}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
V="$BIN/metaattn-variant"
nvidia-smi -L || { echo "no GPU"; exit 1; }
# Modules: softmax D64 (H32) and D128 (H16), causal or not, softcap D128 causal (H16).
$V softmax --heads=32 --dim=64 --causal --lse --name=f > "$OUT/d64c.mlir"
$V softmax --heads=32 --dim=64 --lse --name=f > "$OUT/d64.mlir"
$V softmax --heads=16 --dim=128 --causal --lse --name=f > "$OUT/d128c.mlir"
$V softcap --heads=16 --dim=128 --causal --name=f > "$OUT/softcap.mlir"
# The checks run in parallel (the oracle, on the CPU, is the slow part).
if [ "${CHECKS:-1}" != 0 ]; then
check() {
  if "$RUN" "$OUT/$1.mlir" --device=gpu --batch=$3 --seq-q=$4 --seq-kv=$5 \
       --exp2-emulation=$2 > "$OUT/check_$1_k$2_$4x$5.log" 2>&1; then
    echo "PASS $1 K=$2 B=$3 Sq=$4 Skv=$5"
  else
    echo "FAIL $1 K=$2 B=$3 Sq=$4 Skv=$5"
  fi
}
for m in d64c d64 d128c softcap; do
  for k in 4 1; do
    for lens in "2 77 130" "1 1 4099" "1 2049 2049"; do
      # shellcheck disable=SC2086 # the lengths are words
      check $m $k $lens > "$OUT/check_${m}_k${k}_$(echo $lens | tr ' ' x).txt" &
    done
  done
  wait
done
cat "$OUT"/check_*.txt > "$OUT/checks.txt"
grep FAIL "$OUT/checks.txt"
echo "oracle checks: $(grep -c ^PASS "$OUT/checks.txt") passed, $(grep -c ^FAIL "$OUT/checks.txt") failed"
if command -v compute-sanitizer > /dev/null; then
  compute-sanitizer --tool memcheck "$RUN" "$OUT/d64c.mlir" --device=gpu --batch=1 \
    --seq-q=300 --exp2-emulation=4 > "$OUT/memcheck.log" 2>&1
  echo "memcheck: $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
fi
fi
# Timing: B·S = 16k at S = 4k, and S = 16k for D64 causal.
printf '%-10s %-8s %10s %10s %10s %10s\n' kernel shape K=0 K=8 K=4 K=2 > "$OUT/table.txt"
for job in "d64c 4 4096" "d64c 1 16384" "d64 4 4096" "d128c 4 4096" "softcap 4 4096"; do
  set -- $job
  row=$(printf '%-10s %-8s' "$1" "B$2xS$3")
  for k in 0 8 4 2; do
    ms=$("$RUN" "$OUT/$1.mlir" --device=gpu --batch=$2 --seq-q=$3 --bench --no-check --iters=30 \
         --exp2-emulation=$k 2>&1 | grep -o 'time: [0-9.e+-]* ms' | head -1 | awk '{printf "%.4f", $2}')
    row="$row $(printf '%10s' "${ms:-error}")"
  done
  echo "$row" >> "$OUT/table.txt"
done
cat "$OUT/table.txt"
