//===- metaattn/frag.cuh - Register fragments and row vectors --*- CUDA -*-===//
///
/// \file
/// `Frag<T, M, N, Warps>`: an M x N register tile owned by a block of
/// `Warps` warps (1-D thread block, warp w = threadIdx.x / 32). Warp w owns
/// rows [w*M/Warps, (w+1)*M/Warps) and all N columns, stored as MT x NT
/// sub-tiles of 16 x 8 in the mma.m16n8 accumulator layout:
///
///   e = ((mt * NT) + nt) * 4 + r,   MT = M/Warps/16, NT = N/8, r in 0..3
///   row(e) = w*(M/Warps) + mt*16 + lane/4 + (r >= 2 ? 8 : 0)
///   col(e) = nt*8 + (lane%4)*2 + (r & 1)
///
/// For 16-bit T this is also the m16n8k16 A-operand layout: sub-tiles
/// (mt, 2k) and (mt, 2k+1) are the A registers of k-step k. A float Frag
/// converted element by element into a bf16 Frag of the same shape is
/// therefore the A operand of the next gemm with no data movement.
///
/// `RowVec<M, Warps>`: one float per row of such a Frag, replicated across
/// the four lanes of a quad; slot s = mt*2 + (r >= 2) (see Frag::rowSlot).
///
/// Element-wise work is written by the emitter as fully unrolled loops:
///   for (int e = 0; e < F::kElems; ++e) { int i = F::row(e), j = F::col(e); ... }
/// With `e` a compile-time constant after unrolling, row/col are one add of a
/// per-thread value and a constant, and rowSlot is a constant.
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/types.cuh"

namespace metaattn {
namespace dev {

namespace detail {
METAATTN_DEV int laneId() { return (int)(threadIdx.x & 31u); }
METAATTN_DEV int warpId() { return (int)(threadIdx.x >> 5); }
} // namespace detail

template <class T, int M, int N, int Warps> struct Frag {
  static_assert(Warps >= 1, "Frag: Warps must be at least 1");
  static_assert(M % Warps == 0, "Frag: M must be divisible by Warps");
  static_assert((M / Warps) % 16 == 0, "Frag: rows per warp (M/Warps) must be a multiple of 16");
  static_assert(N > 0 && N % 8 == 0, "Frag: N must be a positive multiple of 8");
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Frag: element must be float, bf16 or fp16");

  using Elem = T;
  static constexpr int kM = M;
  static constexpr int kN = N;
  static constexpr int kWarps = Warps;
  static constexpr int kRowsPerWarp = M / Warps;
  static constexpr int MT = kRowsPerWarp / 16;
  static constexpr int NT = N / 8;
  /// Elements each thread holds.
  static constexpr int kElems = MT * NT * 4;

  T v[kElems];

  METAATTN_DEV T& operator[](int e) { return v[e]; }
  METAATTN_DEV const T& operator[](int e) const { return v[e]; }

  /// Sub-tile indices of element e (compile-time after unrolling).
  METAATTN_HD static constexpr int mtOf(int e) { return (e >> 2) / NT; }
  METAATTN_HD static constexpr int ntOf(int e) { return (e >> 2) % NT; }
  /// Row within this warp's rows / column, without the per-thread part.
  METAATTN_HD static constexpr int rowConst(int e) { return mtOf(e) * 16 + ((e & 2) << 2); }
  METAATTN_HD static constexpr int colConst(int e) { return ntOf(e) * 8 + (e & 1); }

  /// Row of element e in the M x N tile (uses threadIdx).
  METAATTN_DEV static int row(int e) {
    return detail::warpId() * kRowsPerWarp + (detail::laneId() >> 2) + rowConst(e);
  }
  /// Column of element e in the M x N tile (uses threadIdx).
  METAATTN_DEV static int col(int e) { return ((detail::laneId() & 3) << 1) + colConst(e); }
  /// Slot of element e's row in the matching RowVec<M, Warps>.
  METAATTN_HD static constexpr int rowSlot(int e) { return mtOf(e) * 2 + ((e & 3) >> 1); }

  METAATTN_DEV void fill(T x) {
#pragma unroll
    for (int e = 0; e < kElems; ++e)
      v[e] = x;
  }
};

/// The four m16n8k16 A-operand registers of k-step `kt` for row tile `mt` of a
/// 16-bit fragment: sub-tiles (mt, 2 kt) and (mt, 2 kt + 1), two elements per
/// register (the layout in the file comment). warp::gemmRS and wg::gemmRS both
/// read their register A operand through this.
template <class T, int M, int K, int W>
METAATTN_DEV void packARegs(const Frag<T, M, K, W>& A, int mt, int kt, unsigned (&a)[4]) {
  using F = Frag<T, M, K, W>;
  const int e0 = (mt * F::NT + 2 * kt) * 4, e1 = e0 + 4;
  a[0] = packPair(A[e0 + 0], A[e0 + 1]);
  a[1] = packPair(A[e0 + 2], A[e0 + 3]);
  a[2] = packPair(A[e1 + 0], A[e1 + 1]);
  a[3] = packPair(A[e1 + 2], A[e1 + 3]);
}

template <int M, int Warps> struct RowVec {
  static_assert(Warps >= 1, "RowVec: Warps must be at least 1");
  static_assert(M % Warps == 0, "RowVec: M must be divisible by Warps");
  static_assert((M / Warps) % 16 == 0, "RowVec: rows per warp (M/Warps) must be a multiple of 16");

  static constexpr int kM = M;
  static constexpr int kWarps = Warps;
  static constexpr int kRowsPerWarp = M / Warps;
  /// Values each thread holds (two rows per 16-row sub-tile).
  static constexpr int kSlots = kRowsPerWarp / 16 * 2;

  float v[kSlots];

  METAATTN_DEV float& operator[](int s) { return v[s]; }
  METAATTN_DEV const float& operator[](int s) const { return v[s]; }

  /// Row held in slot s (uses threadIdx; the same for the 4 lanes of a quad).
  METAATTN_DEV static int row(int s) {
    return detail::warpId() * kRowsPerWarp + (s >> 1) * 16 + (detail::laneId() >> 2) + (s & 1) * 8;
  }

  METAATTN_DEV void fill(float x) {
#pragma unroll
    for (int s = 0; s < kSlots; ++s)
      v[s] = x;
  }
};

namespace warp {
/// dst[e] = convert(src[e]) for every element; 16-bit destinations are
/// converted two at a time (cvt.rn.{bf16,f16}x2.f32).
template <class T, class S, int M, int N, int W>
METAATTN_DEV void convert(Frag<T, M, N, W>& dst, const Frag<S, M, N, W>& src) {
  if constexpr (detail::Is16Bit<T>::value && detail::IsSame<S, float>::value) {
#pragma unroll
    for (int e = 0; e < Frag<T, M, N, W>::kElems; e += 2)
      unpackPair(packFloat2<T>(src[e], src[e + 1]), dst[e], dst[e + 1]);
  } else {
#pragma unroll
    for (int e = 0; e < Frag<T, M, N, W>::kElems; ++e)
      dst[e] = convertElem<T>(src[e]);
  }
}
} // namespace warp

} // namespace dev
} // namespace metaattn
