//===- metaattn/scan.cuh - Block-wide prefix sums in shared memory -*- CUDA -*-===//
///
/// \file
/// `block::scanRows<NThreads>(buf)`: in-place inclusive prefix sum down the rows of a shared
/// f32 buffer (tile.scan). A 2-D tile spreads its columns over the threads (each column
/// summed in row order); a 1-D vector is scanned by the first warp with shuffles, 64
/// elements at a time (two halves side by side). No barrier inside: the caller synchronises.
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/smem.cuh"

namespace metaattn {
namespace dev {
namespace block {

template <int NThreads, int Rows, int Cols>
METAATTN_DEV void scanRows(SmemTile<float, Rows, Cols, 1> t) {
  for (int c = (int)threadIdx.x; c < Cols; c += NThreads) {
    float acc = 0.0f;
#pragma unroll 4
    for (int r = 0; r < Rows; ++r) {
      acc += t.at(r, c);
      t.at(r, c) = acc;
    }
  }
}

template <int NThreads, int N> METAATTN_DEV void scanRows(SmemVec<float, N> v) {
  if (threadIdx.x >= 32)
    return;
  const int lane = (int)threadIdx.x;
  float carry = 0.0f;
  // 64 elements per round, the two halves scanned side by side (independent shuffles
  // overlap), the first half's total then added to the second.
  for (int base = 0; base < N; base += 64) {
    float x0 = base + lane < N ? v[base + lane] : 0.0f;
    float x1 = base + 32 + lane < N ? v[base + 32 + lane] : 0.0f;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      const float y0 = __shfl_up_sync(0xffffffffu, x0, off);
      const float y1 = __shfl_up_sync(0xffffffffu, x1, off);
      if (lane >= off) {
        x0 += y0;
        x1 += y1;
      }
    }
    x0 += carry;
    x1 += __shfl_sync(0xffffffffu, x0, 31);
    if (base + lane < N)
      v[base + lane] = x0;
    if (base + 32 + lane < N)
      v[base + 32 + lane] = x1;
    carry = __shfl_sync(0xffffffffu, x1, 31);
  }
}

} // namespace block
} // namespace dev
} // namespace metaattn
