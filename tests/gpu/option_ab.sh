#!/usr/bin/env bash
# A compiler option's A/B for one library variant against our softmax: the variant with the
# default and with OFF (the option turned off) checked against the oracle (causal at B:Sq:Skv
# 2:1025:1025, 1:1:1, 3:130:77 and 1:2049:2049, not causal at 2:333:200, D64 and D256 at
# 2:1025:1025), the default under compute-sanitizer memcheck, then H16 D128 causal bf16 timed
# at B4 S4k and B1 S16k beside our causal softmax, and D64 (H32) and D256 (H8) at B4 S4k, three
# interleaved repetitions. A table last. CHECKS=0 skips the checks and memcheck (timing only, for
# a second call on kernels checked in the first); MEMCHECK_OFF=1 runs memcheck with OFF as
# well; DIMS (default "128 64 256") picks the head dims timed.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> VARIANT=softcap \
#     OFF=--monotone-max=false OFF_NAME=max-of-tanh bash tests/gpu/option_ab.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-option-ab}
VARIANT=${VARIANT:?VARIANT: a metaattn-variant name}
OFF=${OFF:?OFF: the metaattn-run option that turns the option off}
OFF_NAME=${OFF_NAME:-off}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
source "$(dirname "${BASH_SOURCE[0]}")/lib/runs.sh"
RUN=$BIN/metaattn-run
V=$VARIANT
for v in softmax "$V"; do
  "$BIN/metaattn-variant" "$v" --heads=16 --dim=128 --causal --name=f > "$OUT/$v.mlir"
  for d in 64 256; do
    "$BIN/metaattn-variant" "$v" --heads=$((2048 / d)) --dim=$d --causal --name=f > "$OUT/${v}_d$d.mlir"
  done
done
"$BIN/metaattn-variant" "$V" --heads=16 --dim=128 --name=f > "$OUT/${V}_full.mlir"
CHECKS=${CHECKS:-1}
DIMS=" ${DIMS:-128 64 256} "
[ "$CHECKS" = 1 ] && for opts in "" "$OFF"; do
  for shape in 2:1025:1025 1:1:1 3:130:77 1:2049:2049 full:2:333:200 d64:2:1025:1025 d256:2:1025:1025; do
    file=$V
    [[ $shape == full:* ]] && { file=${V}_full; shape=${shape#full:}; }
    [[ $shape == d*:* ]] && { file=${V}_${shape%%:*}; shape=${shape#*:}; }
    IFS=':' read -r nb sq skv <<< "$shape"
    # shellcheck disable=SC2086 # the options are words
    check_run "$file B$nb ${sq}x$skv ${opts:-(default)}" "$OUT/check_${file}_${sq}x$skv${opts:+_off}.log" \
      "$BIN" "$OUT/$file.mlir" --batch="$nb" --seq-q="$sq" --seq-kv="$skv" $opts
  done
done
if [ "$CHECKS" = 1 ] && command -v compute-sanitizer > /dev/null; then
  timeout 120 compute-sanitizer --tool memcheck "$RUN" "$OUT/$V.mlir" --device=gpu \
    --batch=1 --seq-q=300 > "$OUT/memcheck.log" 2>&1
  echo "memcheck $V: exit $?, $(grep 'ERROR SUMMARY' "$OUT/memcheck.log")"
  # MEMCHECK_OFF=1: the kernel with OFF too (an option that turns something on).
  if [ "${MEMCHECK_OFF:-0}" = 1 ]; then
    # shellcheck disable=SC2086 # the options are words
    timeout 120 compute-sanitizer --tool memcheck "$RUN" "$OUT/$V.mlir" --device=gpu \
      --batch=1 --seq-q=300 $OFF > "$OUT/memcheck_off.log" 2>&1
    echo "memcheck $V $OFF: exit $?, $(grep 'ERROR SUMMARY' "$OUT/memcheck_off.log")"
  fi
fi
cases=("softmax S4k|softmax|4|4096|" "$V S4k|$V|4|4096|" "$V S4k $OFF_NAME|$V|4|4096|$OFF"
       "softmax S16k|softmax|1|16384|" "$V S16k|$V|1|16384|" "$V S16k $OFF_NAME|$V|1|16384|$OFF"
       "softmax D64 S4k|softmax_d64|4|4096|" "$V D64 S4k|${V}_d64|4|4096|"
       "$V D64 S4k $OFF_NAME|${V}_d64|4|4096|$OFF"
       "softmax D256 S4k|softmax_d256|4|4096|" "$V D256 S4k|${V}_d256|4|4096|"
       "$V D256 S4k $OFF_NAME|${V}_d256|4|4096|$OFF")
keep=()
for x in "${cases[@]}"; do
  d=128
  [[ $x == *" D"[0-9]* ]] && d=$(echo "${x%%|*}" | grep -o 'D[0-9]*' | tr -d D)
  [[ $DIMS == *" $d "* ]] && keep+=("$x")
done
cases=("${keep[@]}")
declare -A ms
for rep in 1 2 3; do
  for x in "${cases[@]}"; do
    IFS='|' read -r name v nb s opts <<< "$x"
    # shellcheck disable=SC2086
    ms["$name|$rep"]=$(bench_ms "$BIN" "$OUT/$v.mlir" --batch="$nb" --seq-q="$s" $opts)
  done
done
printf '%-30s %8s %8s %8s %11s\n' case "ms" "(rep 2)" "(rep 3)" "softmax/x"
for x in "${cases[@]}"; do
  IFS='|' read -r name v nb s opts <<< "$x"
  base="softmax S$((s / 1024))k"
  [[ $name == *" D"[0-9]* ]] && base="softmax $(echo "$name" | grep -o 'D[0-9]*') S4k"
  r=$(awk -v a="${ms[$base|1]}" -v b="${ms[$base|2]}" -v c="${ms[$base|3]}" \
    -v d="${ms[$name|1]}" -v e="${ms[$name|2]}" -v f="${ms[$name|3]}" \
    'BEGIN { if (d + e + f > 0) printf "%.3f", (a + b + c) / (d + e + f) }')
  printf '%-30s %8s %8s %8s %11s\n' "$name" "${ms[$name|1]}" "${ms[$name|2]}" "${ms[$name|3]}" "$r"
done
