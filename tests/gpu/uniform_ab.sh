#!/usr/bin/env bash
# Branches of a kernel's scalar code said to be warp-uniform (metaattn::dev::warpUniform, a
# vote) against the build before (OLD_BIN): every variant file checked against the oracle
# (tests/gpu/limits.sh's checks, with the new build, which also times softmax, softcap, ALiBi
# and one document), then the same kernels timed with both builds, interleaved, two
# repetitions each: softmax D64/D128/D256 with and without the causal mask (bf16, B·S = 16k,
# H·D = 2048, S 4k) and document masks (H16 D128 causal, 1/4/16 documents and unsorted ids,
# B4 S4k and B1 S16k).
#   BIN=<new build> OLD_BIN=<old build> OUT=<dir> bash tests/gpu/uniform_ab.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-uniform-ab}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
timeout 300 env BIN="$BIN" OUT="$OUT/lim" PROFILE=0 bash tests/gpu/limits.sh > "$OUT/limits.txt" 2>&1
grep -v "^PASS file" "$OUT/limits.txt"
python3 benchmarks/softmax_ir.py d64:32:32:64:64:0 d64c:32:32:64:64:1 d128:16:16:128:128:0 \
  d128c:16:16:128:128:1 d256:8:8:256:256:0 d256c:8:8:256:256:1 > "$OUT/sm.mlir"
"$BIN/metaattn-variant" document_mask --heads=16 --dim=128 --causal --name=doc > "$OUT/doc.mlir"
cases=()
for f in d64 d64c d128 d128c d256 d256c; do cases+=("softmax $f S4k|sm.mlir|--function=$f --batch=4 --seq-q=4096"); done
for s in 4096 16384; do
  for d in 1 4 16 0; do
    o=$([ "$d" -gt 0 ] && echo "--documents=$d")
    cases+=("docs=$d S$s|doc.mlir|--batch=$((16384 / s)) --seq-q=$s $o")
  done
done
declare -A ms
for rep in 1 2; do
  for x in "${cases[@]}"; do
    IFS='|' read -r name f opts <<< "$x"
    for b in new old; do
      bin=$([ $b = new ] && echo "$BIN" || echo "$OLD_BIN")
      # shellcheck disable=SC2086
      ms["$name|$b|$rep"]=$(timeout 60 "$bin/metaattn-run" "$OUT/$f" --device=gpu --bench --no-check \
        --iters=30 $opts 2>&1 | grep -o 'time: [0-9.e+-]* ms' | awk '{printf "%.4f", $2}')
    done
  done
done
printf '%-18s %9s %9s %9s %9s %7s\n' case "old ms" "(rep 2)" "new ms" "(rep 2)" "old/new"
for x in "${cases[@]}"; do
  IFS='|' read -r name f opts <<< "$x"
  r=$(awk -v a="${ms[$name|old|1]}" -v b="${ms[$name|old|2]}" -v c="${ms[$name|new|1]}" -v d="${ms[$name|new|2]}" \
      'BEGIN { if (c + d > 0) printf "%.3f", (a + b) / (c + d) }')
  printf '%-18s %9s %9s %9s %9s %7s\n' "$name" "${ms[$name|old|1]}" "${ms[$name|old|2]}" \
    "${ms[$name|new|1]}" "${ms[$name|new|2]}" "$r"
done
