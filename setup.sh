#!/usr/bin/env bash
# setup.sh: install what metaattn needs to build and test, from Debian's package archive.
# Idempotent: when every package is already installed it does not touch apt at all.
set -euo pipefail

PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libfmt-dev libgtest-dev libdlpack-dev libzstd-dev
  ninja-build clang-format-22 cmake g++
)
MLIR_CMAKE_DIR=/usr/lib/llvm-22/lib/cmake/mlir

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  echo "setup.sh: all ${#PACKAGES[@]} packages already installed; skipping apt."
else
  echo "setup.sh: installing ${missing[*]}"
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "setup.sh: error: not root and sudo is not available; install: ${missing[*]}" >&2
      exit 1
    fi
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${PACKAGES[@]}"
fi

if [[ ! -d "$MLIR_CMAKE_DIR" ]]; then
  echo "setup.sh: error: $MLIR_CMAKE_DIR does not exist after installing libmlir-22-dev;" \
       "is the archive's LLVM 22 the expected version?" >&2
  exit 1
fi

if [[ -f /usr/local/cuda/include/cuda.h ]]; then
  echo "setup.sh: CUDA toolkit found at /usr/local/cuda (NVRTC tests will build)."
else
  echo "setup.sh: no CUDA toolkit at /usr/local/cuda: the build works without it;" \
       "tests that compile generated kernels with NVRTC are skipped."
fi
echo "setup.sh: done."
