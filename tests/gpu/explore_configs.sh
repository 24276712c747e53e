#!/usr/bin/env bash
# Times softmax attention (bf16, B·S = 16k, H·D = 2048) under several tile configurations
# (metaattn-run --block-n / --stages / --block-m / --warps overrides) to calibrate the
# configuration model: one line per (shape, config) with the TFLOP/s.
#   BIN=<dir with static metaattn-run> OUT=<dir> [SHAPES="d64 d64c"] [SEQS="1024 4096"] \
#     [CONFIGS="default|--block-n=64"] bash tests/gpu/explore_configs.sh
# Shapes: d64 d64c d128 d128c d256 d256c (softmax), sig128c sig128 relu64 relu128 relu128c doc64c
# (custom variants).
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-configs}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
python3 benchmarks/softmax_ir.py d64:32:32:64:64:0 d64c:32:32:64:64:1 d128:16:16:128:128:0 \
  d128c:16:16:128:128:1 d256:8:8:256:256:0 d256c:8:8:256:256:1 > "$OUT/cfg.mlir"
# Custom variants at the same shapes (SHAPES="sig128c relu64" ...): sigmoid with a per-head
# bias (causal D128) and ReLU (D64), as benchmarks/variant_ir.py writes them.
python3 benchmarks/variant_ir.py sigmoid sig128c 16 128 128 1 >> "$OUT/cfg.mlir"
python3 benchmarks/variant_ir.py relu relu64 32 64 64 0 >> "$OUT/cfg.mlir"
python3 benchmarks/variant_ir.py relu relu128 16 128 128 0 >> "$OUT/cfg.mlir"
python3 benchmarks/variant_ir.py relu relu128c 16 128 128 1 >> "$OUT/cfg.mlir"
python3 benchmarks/variant_ir.py sigmoid sig128 16 128 128 0 >> "$OUT/cfg.mlir"
# A document mask (causal, D64, kv-indexed i32 inputs; the runner's random document ids),
# from the library factory when the runner's metaattn-variant is next to it.
if [ -x "$BIN/metaattn-variant" ]; then
  "$BIN/metaattn-variant" document_mask --dim=64 --heads=32 --causal --name=doc64c |
    sed '1d;$d' >> "$OUT/cfg.mlir"
fi
CONFIGS=${CONFIGS:-"default|--block-n=64|--stages=3|--block-n=64 --stages=3|--block-n=128 --stages=3|--block-m=64"}
printf "%-6s %-6s %-28s %s\n" shape S config TFLOP/s
for f in ${SHAPES:-d64 d64c d128 d128c d256 d256c}; do
  for s in ${SEQS:-1024 4096}; do
    b=$((16384 / s))
    IFS='|' read -ra cfgs <<< "$CONFIGS"
    for c in "${cfgs[@]}"; do
      opts=""; [ "$c" != default ] && opts="$c"
      r=$(timeout 60 "$BIN/metaattn-run" "$OUT/cfg.mlir" --device=gpu --function=$f --batch=$b \
          --seq-q=$s --bench --no-check --iters=20 $opts 2>&1 | grep -o "[0-9.e+-]* TFLOP/s" | head -1)
      printf "%-6s %-6s %-28s %s\n" "$f" "$s" "$c" "${r:-error}"
    done
  done
done | tee "$OUT/configs.txt"
