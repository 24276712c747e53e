#!/usr/bin/env bash
# The GPU work of the thirty-fourth session, in one call, each part under a time limit
# (together under the device tool's 10 minutes): softcap's maximum of the dot products against
# the maximum after its tanh (tests/gpu/monotone_max.sh: checks, memcheck, interleaved timing at
# B4 S4k and B1 S16k), every variant file checked and the variants below softmax timed with
# softmax, softcap and one document profiled (tests/gpu/limits.sh; the per-instruction stall
# samples kept), and the custom-variant table
# (benchmarks/bench_variants.py). Logs go into one archive; the tables are printed last.
#
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/pending.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-pending}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
nvidia-smi -L | head -1 || { echo "no GPU"; exit 1; }
timeout 140 env BIN="$BIN" OUT="$OUT/mono" bash tests/gpu/monotone_max.sh > "$OUT/mono.txt" 2>&1
timeout 290 env BIN="$BIN" OUT="$OUT/lim" PROFILE="softmax softcap document_1" KEEP_SASS=1 \
  bash tests/gpu/limits.sh > "$OUT/limits.txt" 2>&1
timeout 120 python3 benchmarks/bench_variants.py --bin "$BIN" --csv "$OUT/variants.csv" \
  > "$OUT/variants.txt" 2>&1
(cd "$OUT" && tar czf logs.tgz mono lim 2>/dev/null && rm -rf mono lim)
echo "== softcap: monotone-max against the maximum after the tanh"
cat "$OUT/mono.txt"
echo "== every variant file; the variants below softmax, softcap and one document profiled"
grep -v "^PASS file" "$OUT/limits.txt"
echo "== custom variants"
grep -A16 "^| variant" "$OUT/variants.txt"
