#!/usr/bin/env bash
# tools/scripts/test.sh: the test command. Installs dependencies, configures, builds everything
# and runs every test (GoogleTest, lit, lint) under ctest, whose summary ends the output.
#
# Environment: as for build.sh (BUILD_DIR, JOBS, SKIP_SETUP); extra arguments go to ctest
# (e.g. `tools/scripts/test.sh -L lit`).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}

tools/scripts/build.sh

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "test.sh: a CUDA GPU is present; GPU tests will run."
else
  echo "test.sh: no CUDA GPU visible; GPU tests skip themselves (REQUIRES: cuda / GTEST_SKIP)."
fi

exec ctest --test-dir "$BUILD_DIR" --output-on-failure -j"${JOBS:-$(nproc)}" "$@"
