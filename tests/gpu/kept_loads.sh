#!/usr/bin/env bash
# Document masks with the kept list (the default) against the per-tile bounds of before
# (--kept-tiles=false) and our causal softmax: H16 D128 causal, B4 S4k and B1 S16k, 1/4/16
# sorted documents and unsorted ids, each configuration checked against the oracle at B2 S1025
# (4 documents) first. The thirty-second session ran it on a build with two temporary knobs
# (loads in flight per lane in the kept test, the producer's registers) to choose the
# defaults; the figures of every configuration are in benchmarks/RESULTS.md.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/kept_loads.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-kept-loads}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
B=$BIN/metaattn-run
"$BIN/metaattn-variant" document_mask --heads=16 --dim=128 --causal > "$OUT/doc.mlir"
"$BIN/metaattn-variant" softmax --heads=16 --dim=128 --causal > "$OUT/sm.mlir"
t() { r=$(timeout 60 "$@" 2>&1 | grep -E '^PASS|^FAIL|time:|rror' | grep -o 'PASS.*\|FAIL.*\|time: [0-9.e+-]* ms\|.*rror.*' | tr '\n' ' '); echo "${r:-TIMEOUT}"; }
configs=("default" "off")
for c in "${configs[@]}"; do
  set -- $c
  opt=$([ "$1" = off ] && echo --kept-tiles=false)
  echo "check [$c]: $(t $B "$OUT/doc.mlir" --device=gpu --batch=2 --seq-q=1025 --documents=4 $opt)"
done
for s in 4096 16384; do
  b=$((16384 / s))
  echo "softmax S$s: $(t $B "$OUT/sm.mlir" --device=gpu --batch=$b --seq-q=$s --bench --no-check --iters=30)"
  for d in 1 4 16 0; do
    o=$([ "$d" -gt 0 ] && echo "--documents=$d")
    for c in "${configs[@]}"; do
      set -- $c
      opt=$([ "$1" = off ] && echo --kept-tiles=false)
      echo "S$s docs=$d [$c]: $(t $B "$OUT/doc.mlir" --device=gpu --batch=$b --seq-q=$s $o $opt --bench --no-check --iters=30)"
    done
  done
done
