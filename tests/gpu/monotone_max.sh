#!/usr/bin/env bash
# Softcap's row maximum taken of the dot products and mapped through its tanh once per row
# (convert-attn-to-tile monotone-max, the default) against the maximum of the tanh's values
# (--monotone-max=false), through tests/gpu/option_ab.sh: checks at several shapes, memcheck,
# interleaved timing beside our softmax at D64, D128 and D256. A table last.
#   BIN=<dir with static metaattn-run, metaattn-variant> OUT=<dir> bash tests/gpu/monotone_max.sh
BIN=${BIN:-build-static/bin} OUT=${OUT:-/tmp/metaattn-monotone-max} VARIANT=softcap \
  OFF=--monotone-max=false OFF_NAME=max-of-tanh \
  exec bash "$(dirname "${BASH_SOURCE[0]}")/option_ab.sh"
