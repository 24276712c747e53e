#!/usr/bin/env bash
# One call on the GPU machine for the warp-specialised Hopper path: run_quick_check.sh
# (softmax at awkward lengths and every variant file against the oracle; memcheck, racecheck
# and synccheck; the default tiles against 64-wide kv tiles at S = 4k), then one part of the
# benchmark suite against cuDNN / FlashAttention-2 / FlexAttention; the suite's tables last.
#
#   BIN=<dir with static metaattn-run> OUT=<dir> [PART=grid|families|none] [QUICK=0|1] \
#     bash tests/gpu/run_ws.sh
set -u
BIN=${BIN:-build-static/bin}
OUT=${OUT:-/tmp/metaattn-ws}
mkdir -p "$OUT"
export METAATTN_CACHE_DIR=${METAATTN_CACHE_DIR:-/tmp/metaattn-cache}
if [ "${QUICK:-1}" = 1 ]; then
  QUICK_CONFIGS="${QUICK_CONFIGS:-default|--block-n=64}" BIN="$BIN" OUT="$OUT/quick" \
    bash tests/gpu/run_quick_check.sh 2>&1 | tail -30
fi
[ "${PART:-grid}" = none ] && exit 0
timeout "${SUITE_LIMIT:-420}" python3 benchmarks/bench_suite.py --runner "$BIN/metaattn-run" \
  --out "$OUT/suite" --only "${PART:-grid}" 2>&1 | tail -60
