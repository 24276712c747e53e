#!/usr/bin/env bash
# Autotuning with the ping-pong schedule as a candidate dimension: for each case (a variant at a
# head dim, H = 2048 / D, causal, bf16) `metaattn-run --autotune` times every kv tile size and
# stage count with and without ping-pong at B4 S4k and records the fastest in a tuning file;
# then tests/gpu/variant_options.sh checks the tuned kernels against the oracle (B2 1025x1025,
# B3 130x77) and times them beside the model's default and our causal softmax at S4k and S16k.
# The cases are where the tile model's choice is least certain: softcap at D128 (ping-pong lost
# 0.92x in the fortieth session), softmax and ALiBi at D64 (three consumer warpgroups, never
# ping-ponged by the model).
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> [CASES="softcap:128 ..."] \
#     bash tests/gpu/autotune_pingpong.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-autotune-pingpong}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
here=$(dirname "${BASH_SOURCE[0]}")
read -r -a cases <<< "${CASES:-softcap:128 softmax:64 alibi:64}"
declare -A opts_for_dim
for c in "${cases[@]}"; do
  IFS=':' read -r variant dim <<< "$c"
  dir="$OUT/d$dim"
  mkdir -p "$dir"
  tuning="$dir/tuning.txt"
  "$BIN/metaattn-variant" "$variant" --heads=$((2048 / dim)) --dim="$dim" --causal --name=f \
    > "$dir/$variant.mlir"
  echo "== autotune $variant D$dim (B4 H$((2048 / dim)) S4k causal)"
  timeout 240 "$BIN/metaattn-run" "$dir/$variant.mlir" --device=gpu --autotune \
    --tuning-file="$tuning" --batch=4 --seq-q=4096 --iters=30 2>&1 | grep -E 'autotune|rror'
  opts_for_dim[$dim]+=";$variant|$variant|;$variant tuned|$variant|--tuning-file=$tuning"
done
for dim in "${!opts_for_dim[@]}"; do
  echo "== D$dim: checked, then timed (ms; softmax/x is the model's causal softmax over the case)"
  cat "$OUT/d$dim/tuning.txt"
  cases_here="softmax|softmax|${opts_for_dim[$dim]}"
  # softmax itself may be a tuned case; listed once.
  cases_here=$(echo "$cases_here" | sed 's/^softmax|softmax|;softmax|softmax|;/softmax|softmax|;/')
  CASES="$cases_here" DIM=$dim OUT="$OUT/d$dim" BIN=$BIN bash "$here/variant_options.sh"
done
