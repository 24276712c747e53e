#!/usr/bin/env bash
# The GPU work left from the twenty-eighth and twenty-ninth sessions, in one call and in order of
# priority, each part under a time limit: the device-library test (if DEVLIB names its binary,
# built here with `bash tests/gpu/device/build.sh DEVLIB`), the row-partials checks and A/B
# (tests/gpu/row_partials.sh, OLD = a runner from before 035f9c1 if at hand), softcap and ALiBi
# against softmax (tests/gpu/softcap_alibi.sh), the exp2-emulation timing, the JIT's cold wall
# (benchmarks/bench_jit.py). Logs go into one archive so that few files come back; the
# summaries and tables are printed last.
#
#   BIN=<dir with static metaattn-run and metaattn-variant> OUT=<dir> [DEVLIB=<binary>] \
#     [OLD=<older metaattn-run>] bash tests/gpu/pending.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-pending}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
nvidia-smi -L | head -1 || { echo "no GPU"; exit 1; }
if [ -n "${DEVLIB:-}" ]; then
  timeout 60 "$DEVLIB" > "$OUT/devlib.txt" 2>&1
  echo "device library: exit $? ($(grep -c ^PASS "$OUT/devlib.txt") PASS," \
       "$(grep -c ^FAIL "$OUT/devlib.txt") FAIL)" > "$OUT/summary.txt"
  grep ^FAIL "$OUT/devlib.txt" >> "$OUT/summary.txt"
fi
timeout 240 env BIN="$BIN" OLD="${OLD:-}" OUT="$OUT/rp" bash tests/gpu/row_partials.sh \
  > "$OUT/row_partials.txt" 2>&1
grep -E "^correctness|^FAIL|^memcheck" "$OUT/row_partials.txt" >> "$OUT/summary.txt"
timeout 150 env BIN="$BIN" OUT="$OUT/sa" bash tests/gpu/softcap_alibi.sh \
  > "$OUT/softcap_alibi.txt" 2>&1
timeout 90 env BIN="$BIN" OUT="$OUT/exp2" CHECKS=0 bash tests/gpu/exp2_emulation.sh \
  > "$OUT/exp2.txt" 2>&1
timeout 100 python3 benchmarks/bench_jit.py --runner "$BIN/metaattn-run" --out "$OUT/jit" \
  > "$OUT/jit.txt" 2>&1
(cd "$OUT" && tar czf logs.tgz rp/logs rp/*.log sa/*.log exp2/*.log 2>/dev/null
 rm -rf rp/logs rp/*.log rp/*.mlir sa/*.log sa/*.mlir exp2/*.log exp2/*.mlir exp2/check_*)
echo "== row partials: ms (old = the runner before the partials)"
grep -A48 "^kernel" "$OUT/row_partials.txt"
echo "== softcap and ALiBi (ms)"
grep -E "^(PASS|FAIL)" "$OUT/softcap_alibi.txt"
grep -A8 "^kernel" "$OUT/softcap_alibi.txt"
echo "== exp2 emulation (ms)"
grep -A6 "^kernel" "$OUT/exp2.txt"
echo "== JIT"
tail -8 "$OUT/jit.txt"
echo "== checks"
cat "$OUT/summary.txt"
