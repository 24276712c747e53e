#!/usr/bin/env bash
# Two builds on the same machine, interleaved (two repetitions each): our causal softmax, softcap,
# ALiBi and softpick at B4 S4k and document masks with 1/4/16 documents and unsorted ids at B4 S4k
# and B1 S16k (H16 D128 causal, bf16), with softmax at both; then the custom-variant table
# (benchmarks/bench_variants.py) with the new build. Prints a table of both builds' times and
# each case against the new build's softmax at its shape.
#   BIN=<new build> OLD_BIN=<old build> OUT=<dir> bash tests/gpu/variants_ab.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-variants-ab}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
for v in softmax softcap alibi softpick document_mask; do
  "$BIN/metaattn-variant" $v --heads=16 --dim=128 --causal --name=f > "$OUT/$v.mlir"
done
cases=()
for v in softmax softcap alibi softpick; do cases+=("$v S4k|$v|4096|"); done
cases+=("softmax S16k|softmax|16384|")
for s in 4096 16384; do
  for d in 1 4 16 0; do
    o=$([ "$d" -gt 0 ] && echo "--documents=$d")
    cases+=("docs=$d S$((s / 1024))k|document_mask|$s|$o")
  done
done
for x in "${cases[@]}"; do
  IFS='|' read -r name v s opts <<< "$x"
  # shellcheck disable=SC2086
  r=$(timeout 60 "$BIN/metaattn-run" "$OUT/$v.mlir" --device=gpu --batch=2 --seq-q=1025 $opts 2>&1 | grep -E '^PASS|^FAIL|rror' | head -1)
  echo "check $name: ${r:-TIMEOUT}"
done
declare -A ms
for rep in 1 2; do
  for x in "${cases[@]}"; do
    IFS='|' read -r name v s opts <<< "$x"
    for b in new old; do
      bin=$([ $b = new ] && echo "$BIN" || echo "${OLD_BIN:-$BIN}")
      # shellcheck disable=SC2086
      ms["$name|$b|$rep"]=$(timeout 60 "$bin/metaattn-run" "$OUT/$v.mlir" --device=gpu --batch=$((16384 / s)) \
        --seq-q=$s --bench --no-check --iters=30 $opts 2>&1 | grep -o 'time: [0-9.e+-]* ms' | awk '{printf "%.4f", $2}')
    done
  done
done
printf '%-14s %8s %8s %8s %8s %8s %10s\n' case "old ms" "(rep 2)" "new ms" "(rep 2)" "old/new" "softmax/x"
for x in "${cases[@]}"; do
  IFS='|' read -r name v s opts <<< "$x"
  base="softmax S$((s / 1024))k"
  r=$(awk -v a="${ms[$name|old|1]}" -v b="${ms[$name|old|2]}" -v c="${ms[$name|new|1]}" -v d="${ms[$name|new|2]}" \
      'BEGIN { if (c + d > 0) printf "%.3f", (a + b) / (c + d) }')
  q=$(awk -v a="${ms[$base|new|1]}" -v b="${ms[$base|new|2]}" -v c="${ms[$name|new|1]}" -v d="${ms[$name|new|2]}" \
      'BEGIN { if (c + d > 0) printf "%.2f", (a + b) / (c + d) }')
  printf '%-14s %8s %8s %8s %8s %8s %10s\n' "$name" "${ms[$name|old|1]}" "${ms[$name|old|2]}" \
    "${ms[$name|new|1]}" "${ms[$name|new|2]}" "$r" "$q"
done
timeout 150 python3 benchmarks/bench_variants.py --bin "$BIN" --csv "$OUT/variants.csv" \
  > "$OUT/variants.txt" 2>&1
echo "== custom variants (new build)"
grep -A16 "^| variant" "$OUT/variants.txt"
