#!/usr/bin/env bash
# Odd head dims on the GPU: library variants at D 40 / 72 / 200 (GQA 3:1, row statistic) and
# D320/Dv64 against the oracle at awkward lengths, then softmax TFLOP/s at B4 S4k for two builds
# (OLD, e.g. one from before a tiling change, and BIN).
#   BIN=<dir with static metaattn-run, metaattn-variant> [OLD=<dir with another metaattn-run>] \
#     OUT=<dir> bash tests/gpu/odd_dims.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-odd}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
V="$BIN/metaattn-variant"
$V softmax --heads=3 --kv-heads=1 --dim=40 --lse --causal --name=f > "$OUT/softmax_d40_c1.mlir"
$V softmax --heads=3 --kv-heads=1 --dim=72 --lse --name=f > "$OUT/softmax_d72_c0.mlir"
$V softmax --heads=3 --kv-heads=1 --dim=200 --lse --causal --name=f > "$OUT/softmax_d200_c1.mlir"
$V alibi --heads=3 --kv-heads=1 --dim=72 --lse --causal --name=f > "$OUT/alibi_d72_c1.mlir"
$V document_mask --heads=3 --kv-heads=1 --dim=200 --lse --name=f > "$OUT/document_mask_d200_c0.mlir"
$V sliding_window --heads=3 --kv-heads=1 --dim=40 --lse --name=f > "$OUT/sliding_window_d40_c0.mlir"
python3 benchmarks/softmax_ir.py wide:2:1:320:64:0 d72t:28:28:72:72:0 d200t:10:10:200:200:1 \
  d40t:48:48:40:40:1 > "$OUT/t.mlir"
{
  for f in softmax_d40_c1 softmax_d72_c0 softmax_d200_c1 alibi_d72_c1 document_mask_d200_c0 \
           sliding_window_d40_c0; do
    for l in "130 77" "193 193" "1 257"; do echo "$OUT/$f.mlir f $l"; done
  done
  echo "$OUT/t.mlir wide 130 77"
} > "$OUT/jobs.txt"
export RUN="$BIN/metaattn-run"
xargs -P 12 -L 1 bash -c 'r=$(timeout 60 "$RUN" "$0" --device=gpu --function="$1" --batch=2 \
  --seq-q="$2" --seq-kv="$3" 2>&1 | tail -1); echo "$(basename "$0") $2x$3: $r"' < "$OUT/jobs.txt" | sort
for f in d72t d200t d40t; do
  for b in ${OLD:+"$OLD"} "$BIN"; do
    r=$(timeout 30 "$b/metaattn-run" "$OUT/t.mlir" --device=gpu --function=$f --batch=4 \
        --seq-q=4096 --bench --no-check --iters=10 2>&1 | grep -o "[0-9.e+-]* TFLOP/s" | head -1)
    echo "$f $b: ${r:-error}"
  done
done
