#!/usr/bin/env bash
# Where a kernel's JIT compile time goes, without a GPU: dumps the CUDA metaattn prints for an
# .mlir file's kernels and times NVRTC on it as the runtime calls it (tools/scripts/
# nvrtc_time.cpp, built here with g++): to PTX (front end and NVVM) and to a cubin (plus
# ptxas), median of REPEAT runs (default 3); also the device library's headers alone.
#   tools/scripts/compile_time.sh [--bin build/bin] FILE.mlir [metaattn-run options...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$root/build/bin"
if [ "${1:-}" = "--bin" ]; then bin="$2"; shift 2; fi
file="${1:?usage: compile_time.sh [--bin DIR] FILE.mlir [options]}"; shift
cuda="${CUDA_HOME:-/usr/local/cuda}"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
g++ -std=c++17 -O2 -I "$cuda/include" "$root/tools/scripts/nvrtc_time.cpp" -o "$work/nvrtc_time" \
  -L "$cuda/lib64" -lnvrtc -Wl,-rpath,"$cuda/lib64"
"$bin/metaattn-run" "$file" --target=sm_90a --resource-report --dump-cuda="$work/kernel.cu" "$@" \
  > "$work/report.txt" 2>&1 || { cat "$work/report.txt" >&2; exit 1; }
printf '#include "metaattn/tile.cuh"\n#include "metaattn/warpgroup.cuh"\n#include "metaattn/tma.cuh"\nextern "C" __global__ void probe() {}\n' \
  > "$work/headers_only.cu"
for cu in "$work"/headers_only.cu "$work"/kernel*.cu; do
  printf '%-16s ' "$(basename "$cu" .cu)"
  "$work/nvrtc_time" "$cu" "$root/runtime/device" "${REPEAT:-3}"
done
