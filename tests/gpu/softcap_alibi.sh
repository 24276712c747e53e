#!/usr/bin/env bash
# Softcap and ALiBi against our softmax on the GPU (benchmarks/RESULTS.md, twenty-eighth and
# twenty-ninth sessions): the oracle at three shapes, then, in one process per run and two
# interleaved repetitions, H16 D128 causal bf16 at B4 S4k (bench_variants' shape) and B1 S16k:
# softmax; softcap with its cap folded into the exponent (default) and not
# (--fold-score-scale=false), and with part of its exp on the FMA pipe (--exp2-emulation=4, 2);
# ALiBi with its row term kept (default) and dropped (--drop-row-terms=true). With STALLS=1,
# Nsight Compute's stall sampling of softmax and softcap at B4 S4k (tests/gpu/stalls_softmax.sh).
# A short table last.
#
#   BIN=<dir with static metaattn-run and metaattn-variant> OUT=<dir> [STALLS=1] \
#     bash tests/gpu/softcap_alibi.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-softcap-alibi}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
nvidia-smi -L || { echo "no GPU"; exit 1; }
for v in softmax softcap alibi; do
  "$BIN/metaattn-variant" $v --heads=16 --dim=128 --causal --name=f > "$OUT/$v.mlir"
done
for m in softcap alibi; do
  for lens in "2 77 130" "1 2049 2049" "3 130 77"; do
    set -- $lens
    if "$RUN" "$OUT/$m.mlir" --device=gpu --batch=$1 --seq-q=$2 --seq-kv=$3 \
         > "$OUT/check_${m}_$2x$3.log" 2>&1; then
      echo "PASS $m B=$1 Sq=$2 Skv=$3"
    else
      echo "FAIL $m B=$1 Sq=$2 Skv=$3"
    fi
  done
done
cases=("softmax|" "softcap|" "softcap|--fold-score-scale=false" "softcap|--exp2-emulation=4"
       "softcap|--exp2-emulation=2" "alibi|" "alibi|--drop-row-terms=true")
printf '%-8s %-26s %10s %10s %10s %10s\n' kernel options "B4xS4k" "(rep 2)" "B1xS16k" \
  "(rep 2)" > "$OUT/table.txt"
declare -A ms
for rep in 1 2; do
  for c in "${cases[@]}"; do
    for shape in "4 4096" "1 16384"; do
      set -- $shape
      # shellcheck disable=SC2086 # the case's options are words
      t=$("$RUN" "$OUT/${c%%|*}.mlir" --device=gpu --batch=$1 --seq-q=$2 --bench --no-check \
          --iters=30 ${c#*|} 2>&1 | grep -o 'time: [0-9.e+-]* ms' | head -1 | awk '{printf "%.4f", $2}')
      ms["$c|$1|$rep"]=${t:-error}
    done
  done
done
for c in "${cases[@]}"; do
  printf '%-8s %-26s %10s %10s %10s %10s\n' "${c%%|*}" "${c#*|}" "${ms[$c|4|1]}" \
    "${ms[$c|4|2]}" "${ms[$c|1|1]}" "${ms[$c|1|2]}" >> "$OUT/table.txt"
done
if [ "${STALLS:-0}" = 1 ]; then
  for m in softmax softcap; do
    MLIR="$OUT/$m.mlir" SHAPES=f TAG="_$m" BATCH=4 SEQ=4096 BIN="$BIN" OUT="$OUT/stalls" \
      bash tests/gpu/stalls_softmax.sh 2>&1 | tail -14
  done
  rm -f "$OUT"/stalls/*.ncu-rep "$OUT"/stalls/*.sass.csv
fi
cat "$OUT/table.txt"
