#!/usr/bin/env bash
# Tile and lowering options for the custom variants still below or near 0.9x our softmax
# (softcap, ALiBi, softpick, one document), H16 D128 (or DIM) causal bf16 at B4 S4k and B1 S16k: each
# case checked against the oracle at B2 1025x1025 and B3 130x77, then timed with two
# interleaved repetitions beside our causal softmax with the default options. A table last:
# each case's time per shape and softmax's time over it.
# CHECK=0 skips the checks (when they already ran); CHECK=<extended regex> checks only the cases
# whose name matches it.
# DIM (default 128) sets the head dim, with 2048 / DIM heads. A case's optional fourth field names
# another directory with metaattn-run for it (a runner built with a changed device library).
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> [CASES="name|variant|opts[|bin];..."] \
#     [DIM=64] bash tests/gpu/variant_options.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-variant-options}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
source "$(dirname "${BASH_SOURCE[0]}")/lib/runs.sh"
default_cases="softmax|softmax|;softmax 3 stages|softmax|--stages=3"
default_cases+=";softcap|softcap|;softcap 3 stages|softcap|--stages=3"
default_cases+=";softcap exp2-emul 2|softcap|--exp2-emulation=2"
default_cases+=";softcap exp2-emul 4|softcap|--exp2-emulation=4;softcap pingpong|softcap|--pingpong"
default_cases+=";alibi|alibi|;alibi 3 stages|alibi|--stages=3;alibi pingpong|alibi|--pingpong"
default_cases+=";softpick|softpick|;softpick 3 stages|softpick|--stages=3"
default_cases+=";document_1|document_mask|--documents=1"
default_cases+=";document_1 3 stages|document_mask|--documents=1 --stages=3"
IFS=';' read -r -a cases <<< "${CASES:-$default_cases}"
for c in "${cases[@]}"; do
  IFS='|' read -r name variant opts cbin <<< "$c"
  [ -f "$OUT/$variant.mlir" ] ||
    "$BIN/metaattn-variant" "$variant" --heads=$((2048 / ${DIM:-128})) --dim="${DIM:-128}" --causal \
      --name=f > "$OUT/$variant.mlir"
  case ${CHECK:-1} in
    1) ;;
    0) continue ;;
    *) [[ $name =~ $CHECK ]] || continue ;;
  esac
  for shape in 2:1025 3:130:77; do
    IFS=':' read -r nb sq skv <<< "$shape"
    # shellcheck disable=SC2086 # the case's options are words
    check_run "$name B$nb ${sq}x${skv:-$sq}" "$OUT/check_${name// /_}_${sq}.log" "${cbin:-$BIN}" \
      "$OUT/$variant.mlir" --batch="$nb" --seq-q="$sq" --seq-kv="${skv:-$sq}" $opts
  done
done
declare -A ms
for rep in 1 2; do
  for s in 4096 16384; do
    for c in "${cases[@]}"; do
      IFS='|' read -r name variant opts cbin <<< "$c"
      # shellcheck disable=SC2086
      ms["$name|$s|$rep"]=$(bench_ms "${cbin:-$BIN}" "$OUT/$variant.mlir" --batch=$((16384 / s)) --seq-q=$s $opts)
    done
  done
done
printf '%-22s %8s %8s %9s %8s %8s %9s\n' case "S4k ms" "(rep 2)" "softmax/x" "S16k ms" "(rep 2)" "softmax/x"
for c in "${cases[@]}"; do
  IFS='|' read -r name variant opts <<< "$c"
  line=$(printf '%-22s' "$name")
  for s in 4096 16384; do
    r=$(awk -v a="${ms[softmax|$s|1]}" -v b="${ms[softmax|$s|2]}" -v c="${ms[$name|$s|1]}" \
      -v d="${ms[$name|$s|2]}" 'BEGIN { if (c + d > 0) printf "%.3f", (a + b) / (c + d) }')
    line+=$(printf ' %8s %8s %9s' "${ms[$name|$s|1]}" "${ms[$name|$s|2]}" "$r")
  done
  echo "$line"
done
