#!/usr/bin/env bash
# Where the fused chunk kernel starts to beat the separate states + output kernels: ours in both
# forms (metaattn-run --fused-chunks=true / =false) and the default's choice, at batches whose
# fused grid (B x H x 64-column value tiles) runs from a few blocks to past the multiprocessor
# count. Prints one line per shape: blocks, blocks per multiprocessor, the three times and the
# default's plan.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/fused_crossover.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-crossover}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
SMS=$(nvidia-smi --query-gpu=multiprocessor_count --format=csv,noheader 2>/dev/null | head -1)
[[ "$SMS" =~ ^[0-9]+$ ]] || SMS=132  # nvidia-smi without the field: the H200's
printf "%-16s %4s %6s %6s %6s %10s %10s %10s %s\n" variant B T blocks per_SM separate fused \
  default "(default's plan)"
while read -r variant h hkv dk dv b t; do
  ir="$OUT/${variant}_${h}_${dk}_${dv}.mlir"
  [ -f "$ir" ] || "$BIN/metaattn-variant" "$variant" --heads="$h" --kv-heads="$hkv" --dim="$dk" \
    --value-dim="$dv" > "$ir" < /dev/null
  blocks=$(( b * h * ((dv + 63) / 64) ))
  row=()
  for opts in --fused-chunks=false --fused-chunks ""; do
    timeout 120 "$BIN/metaattn-run" "$ir" --device=gpu --batch="$b" --seq-q="$t" --bench \
      --no-check --iters=20 $opts > "$OUT/time.log" 2>&1 < /dev/null
    ms=$(sed -n 's/.*time: \([0-9.e+-]*\) ms.*/\1/p' "$OUT/time.log" | head -1)
    row+=("${ms:-fail}")
  done
  plan=$(grep -m1 -o 'plan: [a-z ]*[a-z]' "$OUT/time.log")
  printf "%-16s %4s %6s %6s %6.2f %10s %10s %10s %s\n" "$variant" "$b" "$t" "$blocks" \
    "$(awk -v b="$blocks" -v s="$SMS" 'BEGIN { print b / s }')" "${row[@]}" "${plan#plan: }" | sed 's/ *$//'
done <<'SHAPES'
gated_retention 16 16 64 64 6 8192
gated_retention 16 16 64 64 7 8192
gated_retention 16 16 64 64 5 8192
mamba2_ssd 80 1 128 64 1 2048
gated_retention 40 40 256 256 1 8192
retnet_recurrent 32 32 256 512 1 8192
gated_retention 16 16 64 64 4 8192
gated_retention 16 16 64 64 6 2048
gated_retention 16 16 64 64 7 2048
mamba2_ssd 80 1 128 64 1 4096
gla 16 16 64 64 4 4096
gla 16 16 64 64 8 4096
SHAPES
