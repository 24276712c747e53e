#!/usr/bin/env bash
# tools/scripts/demo.sh: installs dependencies, configures, builds metaattn-demo and runs it:
# it compiles a set of attention variants and runs each on the GPU if there is one, else on the
# CPU tile executor, checking each against the reference. Extra arguments go to the demo.
#
# Environment: as for build.sh (BUILD_DIR, JOBS, SKIP_SETUP).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}

tools/scripts/build.sh metaattn-demo

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "demo.sh: a CUDA GPU is present; kernels run on it."
else
  echo "demo.sh: no CUDA GPU visible; kernels run on the CPU tile executor."
fi

exec "$BUILD_DIR/bin/metaattn-demo" "$@"
