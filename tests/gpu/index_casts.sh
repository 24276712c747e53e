#!/usr/bin/env bash
# Positions converted to float as a per-thread part plus a part per element
# (tile-split-index-casts, the default) against one conversion per element
# (--split-index-casts=false). First tests/lit/Variants/positions.mlir (sigmoid attention with
# ALiBi's bias and with a bias 0.01 (2q - 3k + 7 + h), a decay to the power max(q - k, 0) with a
# clamped bias: no softmax forgives a position off by a constant) and the library's ALiBi and
# RetNet files against the oracle, both ways, at lengths just past a
# tile, one and Sq != Skv, and the bias under compute-sanitizer memcheck; then ALiBi through
# tests/gpu/option_ab.sh (checks, memcheck, interleaved timing beside our softmax at D64, D128
# and D256). A table last.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/index_casts.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-index-casts}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
source "$(dirname "${BASH_SOURCE[0]}")/lib/runs.sh"
positions=tests/lit/Variants/positions.mlir
for opts in "" "--split-index-casts=false"; do
  for shape in 2:130:77 1:1:1 1:200:333 2:1025:1025; do
    IFS=':' read -r nb sq skv <<< "$shape"
    for f in sigmoid_alibi skewed clamped; do
      # shellcheck disable=SC2086 # the options are words
      check_run "$f B$nb ${sq}x$skv ${opts:-(default)}" "$OUT/check_${f}_${sq}x$skv${opts:+_off}.log" \
        "$BIN" "$positions" --function=$f --batch="$nb" --seq-q="$sq" --seq-kv="$skv" $opts
    done
  done
  for v in alibi retnet; do
    # shellcheck disable=SC2086
    check_run "library $v.mlir B2 77x130 ${opts:-(default)}" "$OUT/check_$v${opts:+_off}.log" \
      "$BIN" frontend/variants/$v.mlir --batch=2 --seq-q=77 --seq-kv=130 $opts
  done
done
if command -v compute-sanitizer > /dev/null; then
  timeout 120 compute-sanitizer --tool memcheck "$BIN/metaattn-run" "$positions" --function=skewed \
    --device=gpu --batch=1 --seq-q=300 > "$OUT/memcheck_skewed.log" 2>&1
  echo "memcheck skewed: exit $?, $(grep 'ERROR SUMMARY' "$OUT/memcheck_skewed.log")"
fi
BIN=$BIN OUT=$OUT/ab VARIANT=alibi OFF=--split-index-casts=false OFF_NAME=per-element \
  bash "$(dirname "${BASH_SOURCE[0]}")/option_ab.sh"
