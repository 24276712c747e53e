#!/usr/bin/env bash
# The GPU work left from the thirty-first session, in one call and in order of priority, each
# part under a time limit (together under the device tool's 10 minutes): three kv stages
# against two over the grid's D64/D128 shapes (tests/gpu/stages.sh: its checks ran, its timings
# did not), the variants below softmax checked, timed and profiled with the defaults
# (tests/gpu/limits.sh: softcap with approx-tanh, ALiBi with its slope folded, one document;
# those figures are H100 ones, this gives the machine's own), the custom-variant table
# (benchmarks/bench_variants.py) and the JIT's cold wall (benchmarks/bench_jit.py). Logs go into
# one archive so that few files come back; the tables are printed last.
#
#   BIN=<dir with static metaattn-run and metaattn-variant> OUT=<dir> bash tests/gpu/pending.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-pending}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
nvidia-smi -L | head -1 || { echo "no GPU"; exit 1; }
timeout 200 env BIN="$BIN" OUT="$OUT/st" bash tests/gpu/stages.sh > "$OUT/stages.txt" 2>&1
timeout 200 env BIN="$BIN" OUT="$OUT/lim" PROFILE="softcap alibi document_1" \
  bash tests/gpu/limits.sh > "$OUT/limits.txt" 2>&1
timeout 130 python3 benchmarks/bench_variants.py --bin "$BIN" --csv "$OUT/variants.csv" \
  > "$OUT/variants.txt" 2>&1
timeout 60 python3 benchmarks/bench_jit.py --runner "$BIN/metaattn-run" --out "$OUT/jit" \
  > "$OUT/jit.txt" 2>&1
(cd "$OUT" && tar czf logs.tgz st lim jit 2>/dev/null && rm -rf st lim jit)
echo "== three stages against two (softmax, ms)"
cat "$OUT/stages.txt"
echo "== the variants below softmax"
grep -v "^PASS file" "$OUT/limits.txt"
echo "== custom variants"
grep -A16 "^| variant" "$OUT/variants.txt"
echo "== JIT"
tail -8 "$OUT/jit.txt"
