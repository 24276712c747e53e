#!/usr/bin/env bash
# The GPU work left from the twenty-eighth to thirtieth sessions, in one call and in order of
# priority, each part under a time limit (together under the device tool's 10 minutes): the
# device-library test (if DEVLIB names its binary, built here with `bash
# tests/gpu/device/build.sh DEVLIB`), the row-partials checks (tests/gpu/row_partials.sh
# TIMING=0), the kept-tile walk's checks and timing (tests/gpu/kept_tiles.sh), softcap and
# ALiBi against softmax (tests/gpu/softcap_alibi.sh), the JIT's cold wall
# (benchmarks/bench_jit.py); PART2=1 runs instead what is left after those: the row-partials
# A/B (OLD = a runner from before 035f9c1) and the exp2-emulation timing. Logs go into one
# archive so that few files come back; the summaries and tables are printed last.
#
#   BIN=<dir with static metaattn-run and metaattn-variant> OUT=<dir> [DEVLIB=<binary>] \
#     [OLD=<older metaattn-run>] [PART2=1] bash tests/gpu/pending.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-pending}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
nvidia-smi -L | head -1 || { echo "no GPU"; exit 1; }
: > "$OUT/summary.txt"
if [ "${PART2:-0}" = 1 ]; then
  timeout 330 env BIN="$BIN" OLD="${OLD:-}" OUT="$OUT/rp" bash tests/gpu/row_partials.sh \
    > "$OUT/row_partials.txt" 2>&1
  timeout 200 env BIN="$BIN" OUT="$OUT/exp2" CHECKS=0 bash tests/gpu/exp2_emulation.sh \
    > "$OUT/exp2.txt" 2>&1
  (cd "$OUT" && tar czf logs.tgz rp/logs rp/*.log exp2/*.log 2>/dev/null
   rm -rf rp/logs rp/*.log rp/*.mlir exp2/*.log exp2/*.mlir exp2/check_*)
  grep -E "^correctness|^FAIL|^memcheck" "$OUT/row_partials.txt"
  echo "== row partials: ms (old = the runner before the partials)"
  grep -A48 "^kernel" "$OUT/row_partials.txt"
  echo "== exp2 emulation (ms)"
  grep -A6 "^kernel" "$OUT/exp2.txt"
  exit 0
fi
if [ -n "${DEVLIB:-}" ]; then
  timeout 40 "$DEVLIB" > "$OUT/devlib.txt" 2>&1
  echo "device library: exit $? ($(grep -c ^PASS "$OUT/devlib.txt") PASS," \
       "$(grep -c ^FAIL "$OUT/devlib.txt") FAIL)" >> "$OUT/summary.txt"
  grep ^FAIL "$OUT/devlib.txt" >> "$OUT/summary.txt"
fi
timeout 120 env BIN="$BIN" OUT="$OUT/rp" TIMING=0 bash tests/gpu/row_partials.sh \
  > "$OUT/row_partials.txt" 2>&1
echo "row partials:" >> "$OUT/summary.txt"
grep -E "^correctness|^FAIL|^memcheck" "$OUT/row_partials.txt" >> "$OUT/summary.txt"
timeout 200 env BIN="$BIN" OUT="$OUT/kt" bash tests/gpu/kept_tiles.sh > "$OUT/kept_tiles.txt" 2>&1
echo "kept tiles:" >> "$OUT/summary.txt"
grep -E "^correctness|^FAIL|^memcheck|^racecheck" "$OUT/kept_tiles.txt" >> "$OUT/summary.txt"
timeout 150 env BIN="$BIN" OUT="$OUT/sa" bash tests/gpu/softcap_alibi.sh \
  > "$OUT/softcap_alibi.txt" 2>&1
timeout 60 python3 benchmarks/bench_jit.py --runner "$BIN/metaattn-run" --out "$OUT/jit" \
  > "$OUT/jit.txt" 2>&1
(cd "$OUT" && tar czf logs.tgz rp/logs rp/*.log kt/logs kt/*.log sa/*.log 2>/dev/null
 rm -rf rp/logs rp/*.log rp/*.mlir kt/logs kt/*.log kt/*.mlir sa/*.log sa/*.mlir)
echo "== kept tiles: block-sparse H16 D128 causal, ms (off / --kept-tiles / causal softmax)"
grep -A20 "^shape" "$OUT/kept_tiles.txt"
echo "== softcap and ALiBi (ms)"
grep -E "^(PASS|FAIL)" "$OUT/softcap_alibi.txt"
grep -A8 "^kernel" "$OUT/softcap_alibi.txt"
echo "== JIT"
tail -8 "$OUT/jit.txt"
echo "== checks"
cat "$OUT/summary.txt"
