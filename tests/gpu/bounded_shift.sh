#!/usr/bin/env bash
# Softcap with a constant shift near its bound (convert-attn-to-tile bounded-shift: no running
# row maximum, no rescaling of the output) against the default running maximum, through
# tests/gpu/option_ab.sh: both checked at several shapes, memcheck on both, interleaved timing
# beside our softmax at D128, D64 and D256. A table last.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/bounded_shift.sh
BIN=${BIN:-build-static/bin} OUT=${OUT:-/tmp/metaattn-bounded-shift} VARIANT=softcap \
  OFF=--bounded-shift OFF_NAME=bounded-shift MEMCHECK_OFF=1 \
  exec bash "$(dirname "${BASH_SOURCE[0]}")/option_ab.sh"
