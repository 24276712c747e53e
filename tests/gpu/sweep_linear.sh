#!/usr/bin/env bash
# Times the linear family (both chunked kernels together) under several configurations of
# the states kernel (metaattn-run --state-rows / --state-warps / --block-n) at the PERF.md
# shapes, after checking each configuration against the oracle at a short awkward length.
# One line per (shape, config): check result and milliseconds.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/sweep_linear.sh
# SHAPES="variant:B:H:Hqk:Dk:Dv:T ..." and CONFIGS="opts|opts|..." override the defaults.
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-sweep}
mkdir -p "$OUT/sweep_linear"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
SHAPES=${SHAPES:-"gated_retention:64:16:16:64:64:1024 gated_retention:8:40:40:256:256:1024
  retnet_recurrent:8:32:32:256:512:2048 mamba2_ssd:8:80:1:128:64:4096 gla:8:16:16:128:128:2048"}
CONFIGS=${CONFIGS:-"default|--state-rows=128|--state-rows=128 --state-warps=8|--state-rows=256 --state-warps=8"}
printf "%-40s %-36s %-6s %s\n" shape config check ms
for spec in $SHAPES; do
  IFS=: read -r variant b h hqk dk dv t <<< "$spec"
  ir="$OUT/sweep_linear/${variant}_${h}_${dk}_${dv}.mlir"
  "$BIN/metaattn-variant" "$variant" --heads="$h" --kv-heads="$hqk" --dim="$dk" \
    --value-dim="$dv" > "$ir"
  IFS='|' read -ra cfgs <<< "$CONFIGS"
  for c in "${cfgs[@]}"; do
    opts=""; [ "$c" != default ] && opts="$c"
    # A configuration that does not apply (rows not dividing the key dim) is reported, not run.
    if ! "$BIN/metaattn-run" "$ir" --device=gpu --batch=2 --seq-q=130 $opts \
        > "$OUT/sweep_linear/check.log" 2>&1; then
      printf "%-40s %-36s %-6s %s\n" "$variant B$b H$h Dk$dk Dv$dv T$t" "$c" FAIL \
        "$(grep -m1 -i "error\|FAIL" "$OUT/sweep_linear/check.log" | cut -c1-80)"
      continue
    fi
    ms=$("$BIN/metaattn-run" "$ir" --device=gpu --batch="$b" --seq-q="$t" --bench --no-check \
         --iters=20 $opts 2>&1 | grep -o "time: [0-9.e+-]*" | head -1 | cut -d' ' -f2)
    printf "%-40s %-36s %-6s %s\n" "$variant B$b H$h Dk$dk Dv$dv T$t" "$c" PASS "${ms:-error}"
  done
done | tee "$OUT/sweep_linear.txt"
