#!/usr/bin/env bash
# Three kv stages against the tiling model's choice (two at D <= 128) for softmax on the GPU:
# D 64 and 128, causal or not, S 1k/4k/16k with B·S = 16k and H·D = 2048 (the grid's shapes),
# each checked against the oracle with --stages=3 at B1 S1025 first (a kernel whose three stages
# do not fit shared memory — D128 without a mask, whose kv tiles are wider — is reported and
# left out), then timed with
# `metaattn-run --bench --no-check --iters=30` without and with --stages=3, two interleaved
# repetitions. A table last: ms per shape and the speed-up of three stages.
#   BIN=<dir with static metaattn-run> OUT=<dir> bash tests/gpu/stages.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-stages}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
RUN="$BIN/metaattn-run"
python3 benchmarks/softmax_ir.py d64:32:32:64:64:0 d64c:32:32:64:64:1 d128:16:16:128:128:0 \
  d128c:16:16:128:128:1 > "$OUT/grid.mlir"
fns="d64 d64c d128 d128c"
for f in $fns; do
  if timeout 90 "$RUN" "$OUT/grid.mlir" --device=gpu --function=$f --batch=1 --seq-q=1025 \
       --stages=3 > "$OUT/check_$f.log" 2>&1; then
    echo "PASS $f B1 S1025 --stages=3"
  elif grep -q "bytes of shared memory, more than" "$OUT/check_$f.log"; then
    # The compiler's diagnostic: three stages of this kernel's tiles do not fit.
    echo "SKIP $f --stages=3: $(grep -o 'needs [0-9]* bytes of shared memory' "$OUT/check_$f.log")"
    fns=${fns/$f/}
  else
    echo "FAIL $f B1 S1025 --stages=3"
  fi
done
declare -A ms
for rep in 1 2; do
  for f in $fns; do
    for s in 1024 4096 16384; do
      for opt in "" "--stages=3"; do
        # shellcheck disable=SC2086 # the option is a word or nothing
        t=$(timeout 60 "$RUN" "$OUT/grid.mlir" --device=gpu --function=$f --batch=$((16384 / s)) \
            --seq-q=$s --bench --no-check --iters=30 $opt 2>&1 | grep -o 'time: [0-9.e+-]* ms' |
            head -1 | awk '{printf "%.4f", $2}')
        ms["$f|$s|$opt|$rep"]=${t:-error}
      done
    done
  done
done
printf '%-6s %6s %17s %17s %8s\n' kernel S "2 stages (reps)" "3 stages (reps)" "3 vs 2"
for f in $fns; do
  for s in 1024 4096 16384; do
    a1=${ms[$f|$s||1]} a2=${ms[$f|$s||2]} b1=${ms[$f|$s|--stages=3|1]} b2=${ms[$f|$s|--stages=3|2]}
    r=$(awk -v a="$a1" -v b="$a2" -v c="$b1" -v d="$b2" \
        'BEGIN { if (c + d > 0) printf "%.3f", (a + b) / (c + d) }')
    printf '%-6s %6s %8s %8s %8s %8s %8s\n' "$f" "$s" "$a1" "$a2" "$b1" "$b2" "$r"
  done
done
