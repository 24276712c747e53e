#!/usr/bin/env bash
# The GPU work left after the thirty-third session, in one call, each part under a time limit
# (together under the device tool's 10 minutes): document masks with the kv tiles' id bounds
# from a pre-pass (the default since d3cbfae) checked against the oracle, under memcheck,
# racecheck and synccheck, and timed against the in-kernel bounds of before
# (--kv-tile-bounds=false) and our causal softmax (tests/gpu/run_documents.sh, S4k and S16k;
# S1k below, where the persistent plan runs); then the custom-variant table
# (benchmarks/bench_variants.py). Logs go into one archive; the tables are printed last.
#
#   BIN=<dir with static metaattn-run and metaattn-variant> OUT=<dir> bash tests/gpu/pending.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-pending}
mkdir -p "$OUT/doc"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
nvidia-smi -L | head -1 || { echo "no GPU"; exit 1; }
timeout 330 env BIN="$BIN" OUT="$OUT/doc" RUN_OPTS="--kv-tile-bounds=false" \
  bash tests/gpu/run_documents.sh > "$OUT/documents.txt" 2>&1
B=$BIN/metaattn-run
t() { r=$(timeout 60 "$@" --device=gpu --bench --no-check --iters=30 2>&1 | grep -o 'time: [0-9.e+-]* ms\|FAIL.*\|.*rror.*' | tr '\n' ' '); echo "${r:-TIMEOUT}"; }
{
  echo "softmax causal S1024 B16: $(t $B "$OUT/doc/sm128.mlir" --batch=16 --seq-q=1024)"
  for d in 1 4 16; do
    for x in "" "--kv-tile-bounds=false"; do
      echo "docs=$d S1024 B16 $x: $(t $B "$OUT/doc/doc128.mlir" --batch=16 --seq-q=1024 --documents=$d $x)"
    done
  done
} >> "$OUT/documents.txt" 2>&1
timeout 150 python3 benchmarks/bench_variants.py --bin "$BIN" --csv "$OUT/variants.csv" \
  > "$OUT/variants.txt" 2>&1
(cd "$OUT" && tar czf logs.tgz doc 2>/dev/null && rm -rf doc)
echo "== document masks: the pre-pass (default) against --kv-tile-bounds=false"
cat "$OUT/documents.txt"
echo "== custom variants"
grep -A16 "^| variant" "$OUT/variants.txt"
