#!/usr/bin/env bash
# Softcap's row maximum taken of the dot products and mapped through its tanh once per row
# (convert-attn-to-tile monotone-max, the default) against the maximum of the tanh's values
# (--monotone-max=false): both checked against the oracle (causal at B:Sq:Skv 2:1025:1025,
# 1:1:1, 3:130:77 and 1:2049:2049, not causal at 2:333:200), the default under
# compute-sanitizer memcheck, then H16 D128 causal bf16 timed at B4 S4k and B1 S16k beside our
# causal softmax, and D64 (H32) and D256 (H8) at B4 S4k (checked at B2 1025x1025 first), three
# interleaved repetitions. A table last.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/monotone_max.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-monotone-max}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
source "$(dirname "${BASH_SOURCE[0]}")/lib/runs.sh"
RUN=$BIN/metaattn-run
for v in softmax softcap; do
  "$BIN/metaattn-variant" $v --heads=16 --dim=128 --causal --name=f > "$OUT/$v.mlir"
  for d in 64 256; do
    "$BIN/metaattn-variant" $v --heads=$((2048 / d)) --dim=$d --causal --name=f > "$OUT/${v}_d$d.mlir"
  done
done
"$BIN/metaattn-variant" softcap --heads=16 --dim=128 --name=f > "$OUT/softcap_full.mlir"
for opts in "" "--monotone-max=false"; do
  for shape in 2:1025:1025 1:1:1 3:130:77 1:2049:2049 full:2:333:200 d64:2:1025:1025 d256:2:1025:1025; do
    file=softcap
    [[ $shape == full:* ]] && { file=softcap_full; shape=${shape#full:}; }
    [[ $shape == d*:* ]] && { file=softcap_${shape%%:*}; shape=${shape#*:}; }
    IFS=':' read -r nb sq skv <<< "$shape"
    # shellcheck disable=SC2086 # the options are words
    check_run "$file B$nb ${sq}x$skv ${opts:-(default)}" "$OUT/check_${file}_${sq}x$skv${opts:+_off}.log" \
      "$BIN" "$OUT/$file.mlir" --batch="$nb" --seq-q="$sq" --seq-kv="$skv" $opts
  done
done
if command -v compute-sanitizer > /dev/null; then
  timeout 120 compute-sanitizer --tool memcheck "$RUN" "$OUT/softcap.mlir" --device=gpu \
    --batch=1 --seq-q=300 > "$OUT/memcheck.log" 2>&1
  echo "memcheck softcap: exit $?, $(grep 'ERROR SUMMARY' "$OUT/memcheck.log")"
fi
cases=("softmax S4k|softmax|4|4096|" "softcap S4k|softcap|4|4096|"
       "softcap S4k max-of-tanh|softcap|4|4096|--monotone-max=false"
       "softmax S16k|softmax|1|16384|" "softcap S16k|softcap|1|16384|"
       "softcap S16k max-of-tanh|softcap|1|16384|--monotone-max=false"
       "softmax D64 S4k|softmax_d64|4|4096|" "softcap D64 S4k|softcap_d64|4|4096|"
       "softcap D64 S4k max-of-tanh|softcap_d64|4|4096|--monotone-max=false"
       "softmax D256 S4k|softmax_d256|4|4096|" "softcap D256 S4k|softcap_d256|4|4096|"
       "softcap D256 S4k max-of-tanh|softcap_d256|4|4096|--monotone-max=false")
declare -A ms
for rep in 1 2 3; do
  for x in "${cases[@]}"; do
    IFS='|' read -r name v nb s opts <<< "$x"
    # shellcheck disable=SC2086
    ms["$name|$rep"]=$(bench_ms "$BIN" "$OUT/$v.mlir" --batch="$nb" --seq-q="$s" $opts)
  done
done
printf '%-26s %8s %8s %8s %11s\n' case "ms" "(rep 2)" "(rep 3)" "softmax/x"
for x in "${cases[@]}"; do
  IFS='|' read -r name v nb s opts <<< "$x"
  base="softmax S$((s / 1024))k"
  [[ $name == *" D"[0-9]* ]] && base="softmax $(echo "$name" | grep -o 'D[0-9]*') S4k"
  r=$(awk -v a="${ms[$base|1]}" -v b="${ms[$base|2]}" -v c="${ms[$base|3]}" \
    -v d="${ms[$name|1]}" -v e="${ms[$name|2]}" -v f="${ms[$name|3]}" \
    'BEGIN { if (d + e + f > 0) printf "%.3f", (a + b + c) / (d + e + f) }')
  printf '%-26s %8s %8s %8s %11s\n' "$name" "${ms[$name|1]}" "${ms[$name|2]}" "${ms[$name|3]}" "$r"
done
