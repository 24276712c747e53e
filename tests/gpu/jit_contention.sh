#!/usr/bin/env bash
# Is a GPU host's JIT time per kernel its single-core speed, or compiles contending? Times NVRTC
# (tools/scripts/nvrtc_time.cpp: to PTX and to a cubin, median of three) on one kernel alone,
# then two and four copies at once (processes), then two on two threads of one process (as the
# runtime compiles a function's kernels), and prints the host's CPU model and core count.
#   BIN=<dir with metaattn-run, metaattn-variant> [PROBE=<built nvrtc_time>] \
#     bash tests/gpu/jit_contention.sh
# PROBE defaults to building tools/scripts/nvrtc_time.cpp with g++ (as compile_time.sh does).
set -eu
# NVRTC's own cache in the driver's compute cache would serve every compile after the first
# (the forty-third session's first run: 55-86 ms "compiles"): off.
export CUDA_CACHE_DISABLE=1
BIN=${BIN:-build-static/bin}
cuda=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
probe=${PROBE:-}
if [ -z "$probe" ]; then
  probe="$work/nvrtc_time"
  g++ -std=c++17 -O2 -I "$cuda/include" tools/scripts/nvrtc_time.cpp -o "$probe" \
    -L "$cuda/lib64" -lnvrtc -lpthread -Wl,-rpath,"$cuda/lib64"
fi
"$BIN/metaattn-variant" softmax --heads=16 --dim=128 --causal --name=f > "$work/f.mlir"
"$BIN/metaattn-run" "$work/f.mlir" --target=sm_90a --resource-report \
  --dump-cuda="$work/k.cu" > /dev/null
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "kernel: softmax H16 D128 causal, sm_90a; ms to PTX / to cubin (median of 3 each)"
for n in 1 2 4; do
  for i in $(seq "$n"); do
    "$probe" "$work/k.cu" runtime/device 3 > "$work/t$i.txt" 2>&1 &
  done
  wait
  for i in $(seq "$n"); do echo "$n at once, copy $i: $(tr '\n' ' ' < "$work/t$i.txt")"; done
done
echo "2 threads of one process: $(NVRTC_THREADS=2 "$probe" "$work/k.cu" runtime/device 3 2>&1)"
