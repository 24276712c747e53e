//===- metaattn/scan.cuh - Block-wide prefix sums in shared memory -*- CUDA -*-===//
///
/// \file
/// `block::scanRows<NThreads>(buf)`: in-place inclusive prefix sum down the rows of a shared
/// f32 buffer (tile.scan). A 2-D tile spreads its columns over the threads, several adjacent
/// lanes per column when the block has the threads (each a segment of the rows, joined by
/// shuffles); a 1-D vector is scanned by the first warp with shuffles, 64
/// elements at a time (two halves side by side). No barrier inside: the caller synchronises.
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/smem.cuh"

namespace metaattn {
namespace dev {
namespace block {

namespace detail {
/// Threads per column of a 2-D scan: as many as the block has for each column, up to a warp,
/// while each keeps at least 8 rows.
METAATTN_HD constexpr int scanParts(int threads, int rows, int cols) {
  int p = 1;
  while (2 * p <= threads / cols && 2 * p <= 32 && rows % (2 * p) == 0 && rows / (2 * p) >= 8)
    p *= 2;
  return p;
}
} // namespace detail

template <int NThreads, int Rows, int Cols>
METAATTN_DEV void scanRows(SmemTile<float, Rows, Cols, 1> t) {
  // P adjacent lanes per column, each owning Seg consecutive rows, read Batch at a time into
  // registers (independent loads, not a chain of load-add-store): the lanes first sum their
  // segments, exchange the sums by shuffles (an exclusive prefix within the P lanes), then
  // scan their rows from that offset. Every lane runs the same trip counts (columns past the
  // tile read zeros and store nothing), so the shuffles see full warps.
  constexpr int P = detail::scanParts(NThreads, Rows, Cols);
  constexpr int Seg = Rows / P;
  constexpr int Batch = Seg < 16 ? Seg : 16;
  static_assert(Seg % Batch == 0, "scanRows: rows per lane must be a multiple of the batch");
  constexpr int PerRound = NThreads / P;
  const int part = (int)threadIdx.x % P;
  const int first = part * Seg;
  for (int base = 0; base < Cols; base += PerRound) {
    const int c = base + (int)threadIdx.x / P;
    const bool live = c < Cols;
    // Rows first + b .. first + b + Batch - 1 of column c (zeros past the tile).
    auto loadBatch = [&](float (&x)[Batch], int b) {
#pragma unroll
      for (int i = 0; i < Batch; ++i)
        x[i] = live ? t.at(first + b + i, c) : 0.0f;
    };
    float offset = 0.0f;
    if constexpr (P > 1) {
      float total = 0.0f;
#pragma unroll
      for (int b = 0; b < Seg; b += Batch) {
        float x[Batch];
        loadBatch(x, b);
#pragma unroll
        for (int i = 0; i < Batch; ++i)
          total += x[i];
      }
      float inclusive = total;
#pragma unroll
      for (int off = 1; off < P; off <<= 1) {
        const float y = __shfl_up_sync(0xffffffffu, inclusive, off, P);
        if (part >= off)
          inclusive += y;
      }
      offset = inclusive - total;
    }
    float acc = offset;
#pragma unroll
    for (int b = 0; b < Seg; b += Batch) {
      float x[Batch];
      loadBatch(x, b);
#pragma unroll
      for (int i = 0; i < Batch; ++i) {
        acc += x[i];
        x[i] = acc;
      }
      if (live) {
#pragma unroll
        for (int i = 0; i < Batch; ++i)
          t.at(first + b + i, c) = x[i];
      }
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
