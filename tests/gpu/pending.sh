#!/usr/bin/env bash
# The GPU work left after the thirty-second session, in one call and in order of priority, each
# part under a time limit (together under the device tool's 10 minutes): every variant file
# checked and the variants below softmax timed and profiled (tests/gpu/limits.sh: one document
# with the kept list, 0.76-0.79x our softmax with no id read left on its unmasked tiles' path,
# has not been profiled since; softcap); document masks with the kept list against the per-tile
# form on the machine at hand (tests/gpu/kept_loads.sh: the session's figures are H100 ones);
# the custom-variant table (benchmarks/bench_variants.py). Logs go into one archive so that few
# files come back; the tables are printed last.
#
#   BIN=<dir with static metaattn-run and metaattn-variant> OUT=<dir> bash tests/gpu/pending.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-pending}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
nvidia-smi -L | head -1 || { echo "no GPU"; exit 1; }
timeout 240 env BIN="$BIN" OUT="$OUT/lim" PROFILE="document_1 softcap" \
  bash tests/gpu/limits.sh > "$OUT/limits.txt" 2>&1
timeout 200 env BIN="$BIN" OUT="$OUT/kept" bash tests/gpu/kept_loads.sh > "$OUT/kept.txt" 2>&1
timeout 120 python3 benchmarks/bench_variants.py --bin "$BIN" --csv "$OUT/variants.csv" \
  > "$OUT/variants.txt" 2>&1
(cd "$OUT" && tar czf logs.tgz lim kept 2>/dev/null && rm -rf lim kept)
echo "== every variant file; the variants below softmax, profiled"
grep -v "^PASS file" "$OUT/limits.txt"
echo "== document masks: kept list against --kept-tiles=false"
cat "$OUT/kept.txt"
echo "== custom variants"
grep -A16 "^| variant" "$OUT/variants.txt"
