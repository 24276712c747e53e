#!/usr/bin/env bash
# tools/scripts/build.sh [TARGET...]: install dependencies (setup.sh), configure the build
# directory with Ninja and build TARGETs (default: everything).
#
# Environment: BUILD_DIR (default: build), JOBS (default: nproc), SKIP_SETUP=1 to skip setup.sh
# (e.g. on a machine where you are not root and the packages are already there).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
MLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir

if [[ "${SKIP_SETUP:-0}" != 1 ]]; then
  ./setup.sh
fi

if [[ -f "$BUILD_DIR/CMakeCache.txt" ]] &&
   ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$BUILD_DIR/CMakeCache.txt"; then
  echo "build.sh: error: $BUILD_DIR was configured with another generator;" \
       "remove it or set BUILD_DIR." >&2
  exit 1
fi

LAUNCHER=()
if command -v ccache >/dev/null; then
  echo "build.sh: using ccache"
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

cmake -G Ninja -S . -B "$BUILD_DIR" -DMLIR_DIR="$MLIR_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${LAUNCHER[@]}"
ninja -C "$BUILD_DIR" -j"$JOBS" "$@"
