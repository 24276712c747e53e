#!/usr/bin/env bash
# The GPU work left after the thirty-third session, in one call, each part under a time limit
# (together under the device tool's 10 minutes): every variant file checked and the variants
# below softmax timed, one document profiled (tests/gpu/limits.sh: one document is 0.89x our
# causal softmax at B4 S4k with the pre-pass, the leaner cursor and warp-uniform branches; the
# profile says what remains), the kept list against the per-tile form on the machine at hand
# (tests/gpu/kept_cursor.sh), and the custom-variant table (benchmarks/bench_variants.py). The
# session's figures are H100 ones: on the H200 this gives its first. Logs go into one archive;
# the tables are printed last.
#
#   BIN=<dir with static metaattn-run, metaattn-variant, device_lib_test> OUT=<dir> \
#     bash tests/gpu/pending.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-pending}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
nvidia-smi -L | head -1 || { echo "no GPU"; exit 1; }
timeout 240 env BIN="$BIN" OUT="$OUT/lim" PROFILE="document_1" \
  bash tests/gpu/limits.sh > "$OUT/limits.txt" 2>&1
timeout 180 env BIN="$BIN" OUT="$OUT/kept" bash tests/gpu/kept_cursor.sh > "$OUT/kept.txt" 2>&1
timeout 120 python3 benchmarks/bench_variants.py --bin "$BIN" --csv "$OUT/variants.csv" \
  > "$OUT/variants.txt" 2>&1
(cd "$OUT" && tar czf logs.tgz lim kept 2>/dev/null && rm -rf lim kept)
echo "== every variant file; the variants below softmax, one document profiled"
grep -v "^PASS file" "$OUT/limits.txt"
echo "== document masks: the kept list against --kept-tiles=false"
cat "$OUT/kept.txt"
echo "== custom variants"
grep -A16 "^| variant" "$OUT/variants.txt"
