#!/usr/bin/env bash
# Builds the device-library GPU test program and the NVRTC checker.
#   tests/gpu/device/build.sh OUT [NVRTC_OUT]
# OUT: the test program (run it on the H200; `OUT --bench` also times FA2).
# NVRTC_OUT (default OUT-nvrtc-check): the NVRTC compile check (no GPU needed):
#   NVRTC_OUT runtime/device tests/gpu/device/fa2_kernel.cuh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:?usage: build.sh OUT [NVRTC_OUT]}"
nvrtc_out="${2:-$out-nvrtc-check}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
nvcc="$cuda/bin/nvcc"

"$nvcc" -gencode=arch=compute_90a,code=sm_90a -std=c++17 -O3 -cudart=static \
  -I "$root/runtime/device" -I "$here" -Xptxas -v \
  "$here/device_lib_test.cu" -o "$out" 2> "$out.ptxas.log" || { cat "$out.ptxas.log" >&2; exit 1; }

g++ -std=c++17 -O2 -I "$cuda/include" "$here/nvrtc_check.cpp" \
  -o "$nvrtc_out" -L "$cuda/lib64" -lnvrtc -Wl,-rpath,"$cuda/lib64"
