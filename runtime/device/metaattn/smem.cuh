//===- metaattn/smem.cuh - Swizzled shared-memory tiles ---------*- CUDA -*-===//
///
/// \file
/// `SmemTile<T, Rows, Cols, Stages>`: a view of dynamic shared memory holding
/// `Stages` row-major Rows x Cols tiles. Rows are split into 16-byte chunks and
/// the chunk index is XOR-swizzled with the row so that the eight 16-byte row
/// segments an `ldmatrix` (or a warp of `cp.async`s) touches fall into eight
/// different bank groups. Every access goes through the tile, so callers never
/// see the swizzle.
///
/// Swizzle, with C = 16-byte chunks per row:
///   C % 8 == 0: chunk ^= row & 7          (rows 8 apart share banks)
///   C % 4 == 0: chunk ^= (row >> 1) & 3   (row stride = 64 B mod 128 B)
///   C % 2 == 0: chunk ^= (row >> 2) & 1   (row stride = 32/96 B mod 128 B)
///   C odd:      no swizzle                (8 consecutive rows are distinct)
/// Each case keeps the chunk inside its row and makes any 8 consecutive rows
/// of one logical chunk column conflict-free.
///
/// When C % 8 == 0 the tile is stored as C/8 column blocks of 128-byte rows
/// (block b holds chunks 8b..8b+7 of every row, Rows * 128 bytes, one block
/// after the other). With a 1024-byte aligned base this is exactly the
/// canonical 128-byte-swizzled layout that wgmma and TMA read and write (K-
/// major for a tile whose rows are the M/N index, N-major for one whose rows
/// are the reduction index), so the same tile feeds ldmatrix and wgmma.
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/types.cuh"

namespace metaattn {
namespace dev {

namespace detail {
/// 32-bit shared-window address of a generic pointer into shared memory.
METAATTN_DEV unsigned sharedAddr(const void* p) {
  unsigned a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}
} // namespace detail

template <class T, int Rows, int Cols, int Stages = 1> struct SmemTile {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "SmemTile: element must be 2 or 4 bytes");
  static_assert(Rows > 0 && Rows % 16 == 0, "SmemTile: Rows must be a positive multiple of 16");
  static_assert(Cols > 0 && Cols % 8 == 0,
                "SmemTile: Cols must be a positive multiple of 8 elements");
  static_assert(Stages >= 1, "SmemTile: Stages must be at least 1");

  using Elem = T;
  static constexpr int kRows = Rows;
  static constexpr int kCols = Cols;
  static constexpr int kStages = Stages;
  /// Elements per 16-byte chunk.
  static constexpr int kChunkElems = 16 / (int)sizeof(T);
  /// 16-byte chunks per row.
  static constexpr int kChunks = Cols / kChunkElems;
  static constexpr int kStageElems = Rows * Cols;
  static constexpr int kStageBytes = kStageElems * (int)sizeof(T);
  /// Stored as 128-byte column blocks (the wgmma/TMA 128-byte swizzle).
  static constexpr bool kColumnBlocks = kChunks % 8 == 0;
  /// Bytes between two column blocks.
  static constexpr int kColumnBlockBytes = Rows * 128;
  /// Bytes of shared memory the tile (all stages) occupies.
  static constexpr int kBytes = kStageBytes * Stages;

  T* base;

  /// `p` must be 16-byte aligned (128-byte alignment avoids nothing extra but
  /// is what the emitter uses for the dynamic shared-memory base).
  METAATTN_DEV explicit SmemTile(unsigned char* p) : base(reinterpret_cast<T*>(p)) {}
  METAATTN_DEV explicit SmemTile(T* p) : base(p) {}

  /// The XOR applied to chunk indices of row `r`.
  METAATTN_HD static constexpr int swizzle(int r) {
    return kChunks % 8 == 0   ? (r & 7)
           : kChunks % 4 == 0 ? ((r >> 1) & 3)
           : kChunks % 2 == 0 ? ((r >> 2) & 1)
                              : 0;
  }
  /// Element offset of logical chunk `chunk` of row `r` (stage 0).
  METAATTN_HD static constexpr int chunkOffset(int r, int chunk) {
    return kColumnBlocks ? (chunk >> 3) * (Rows * 8 * kChunkElems) + r * (8 * kChunkElems) +
                               (((chunk & 7) ^ (r & 7)) * kChunkElems)
                         : r * Cols + ((chunk ^ swizzle(r)) * kChunkElems);
  }
  /// Element offset of logical element (r, c) (stage 0).
  METAATTN_HD static constexpr int offset(int r, int c) {
    return chunkOffset(r, c / kChunkElems) + (c % kChunkElems);
  }

  /// Stage `s` (runtime index) as a one-stage tile.
  METAATTN_DEV SmemTile<T, Rows, Cols, 1> stage(int s) const {
    return SmemTile<T, Rows, Cols, 1>(base + s * kStageElems);
  }

  /// Element (r, c) of stage 0 (for element-wise code and tests).
  METAATTN_DEV T& at(int r, int c) const { return base[offset(r, c)]; }
  /// Element e of an mma accumulator fragment layout P over this tile's shape (Frag: rows
  /// rowThread() + rowConst(e), columns colThread() + colConst(e)), read from the tile: the
  /// element at(P::row(e), P::col(e)), with the address split into a part per thread and a
  /// compile-time part. Rows per warp are a multiple of 16, so a row's swizzle is its lane's
  /// (rowConst is a multiple of 8), and colThread is 2·(lane mod 4) with colConst 8·n + 0|1,
  /// so a column's chunk is a constant XOR a per-thread value: unrolled over e, each read is
  /// one shared load at one of a few per-thread addresses plus an immediate (at() computes
  /// the swizzle per element: four integer instructions a load in the relative-bias loop).
  template <class P> METAATTN_DEV T fragAt(int e) const {
    if constexpr (kColumnBlocks && P::kRowsPerWarp % 16 == 0)
      return base[fragOffset(P::rowThread(), P::colThread(), P::rowConst(e), P::colConst(e))];
    else
      return at(P::row(e), P::col(e));
  }
  /// offset(rt + rc, ct + cc) for a fragment element with thread parts rt (its rows' swizzle
  /// rt & 7, rc a multiple of 8) and ct (0, 2, 4 or 6) and constant parts rc and cc
  /// (8·n + 0|1), on the column-block layout, written so that only (constant XOR thread
  /// value) and sums remain (fragAt; NvrtcTest checks it against offset for every lane).
  METAATTN_HD static constexpr int fragOffset(int rt, int ct, int rc, int cc) {
    const int n = cc >> 3, k = cc & 7, s = rt & 7;
    if (sizeof(T) == 4)
      return (n >> 2) * (Rows * 32) + (rt + rc) * 32 + ((2 * (n & 3)) ^ ((ct >> 2) ^ s)) * 4 +
             (ct & 3) + k;
    return (n >> 3) * (Rows * 64) + (rt + rc) * 64 + ((n & 7) ^ s) * 8 + ct + k;
  }
  /// Pointer to the 16-byte chunk holding logical chunk `chunk` of row `r`.
  METAATTN_DEV T* chunkPtr(int r, int chunk) const { return base + chunkOffset(r, chunk); }
  /// Shared-window address of that chunk (for ldmatrix / cp.async).
  METAATTN_DEV unsigned chunkAddr(int r, int chunk) const {
    return detail::sharedAddr(base) + (unsigned)(chunkOffset(r, chunk) * (int)sizeof(T));
  }
};

/// A 1-D shared buffer of N elements (no swizzle: it is read by index, not by ldmatrix),
/// Stages copies of it back to back for a pipelined loop.
template <class T, int N, int Stages = 1> struct SmemVec {
  static_assert(N > 0 && Stages > 0, "SmemVec: N and Stages must be positive");
  static constexpr int kN = N;
  static constexpr int kBytes = N * Stages * (int)sizeof(T);

  T* base;

  METAATTN_DEV explicit SmemVec(unsigned char* p) : base(reinterpret_cast<T*>(p)) {}
  METAATTN_DEV explicit SmemVec(T* p) : base(p) {}
  METAATTN_DEV T& operator[](int i) const { return base[i]; }
  /// Stage `s` (runtime index) as a one-stage vector.
  METAATTN_DEV SmemVec<T, N, 1> stage(int s) const { return SmemVec<T, N, 1>(base + s * N); }
};

} // namespace dev
} // namespace metaattn
