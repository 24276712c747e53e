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
/// `RowVec<M, Warps, T = float>`: one value per row of such a Frag, replicated
/// across the four lanes of a quad; slot s = mt*2 + (r >= 2) (see Frag::rowSlot).
///
/// `ColVec<N, T>`: one value per column a thread's Frag elements touch (N/4 of
/// them: nt*8 + (lane%4)*2 + {0, 1}), replicated across the eight quads of a
/// warp and over warps; slot s = nt*2 + (r & 1) (see Frag::colSlot). A value
/// that depends on the column only (a key's document id) is then read once per
/// column rather than once per element.
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

/// The elements of a fragment, one per register (float; 16-bit elements unpacked).
template <class T, int Elems, bool Packed> struct FragStorage {
  T v[Elems];

  METAATTN_DEV T& operator[](int e) { return v[e]; }
  METAATTN_DEV const T& operator[](int e) const { return v[e]; }
  /// 16-bit elements 2i and 2i + 1 as one word (low half first), as the packed storage.
  METAATTN_DEV unsigned word(int i) const { return packPair(v[2 * i], v[2 * i + 1]); }
  METAATTN_DEV void setWord(int i, unsigned x) { unpackPair(x, v[2 * i], v[2 * i + 1]); }
};

/// 16-bit elements are held two per 32-bit word, element 2i in the low half of
/// word i: the layout of an mma A-operand register (see packARegs). A fragment
/// that stays live between its conversion and its gemm (the probabilities of
/// the overlapped schedule, carried across the loop's back edge) then takes
/// one register per pair rather than one per element (the D128 overlapped kernel
/// spilled 384-560 B with one per element; none packed). Elements are read by value and written
/// through `Ref`; `word`/`setWord` move whole pairs.
template <class T, int Elems> struct FragStorage<T, Elems, true> {
  static_assert(Elems % 2 == 0, "FragStorage: 16-bit fragments hold whole pairs");
  unsigned w[Elems / 2];

  struct Ref {
    unsigned& word;
    int high;
    METAATTN_DEV operator T() const {
      T x;
      x.bits = (unsigned short)(high ? word >> 16 : word & 0xffffu);
      return x;
    }
    METAATTN_DEV Ref& operator=(T x) {
      word = high ? (word & 0xffffu) | (unsigned(x.bits) << 16)
                  : (word & 0xffff0000u) | unsigned(x.bits);
      return *this;
    }
    METAATTN_DEV Ref& operator=(const Ref& other) { return *this = T(other); }
  };

  METAATTN_DEV Ref operator[](int e) { return Ref{w[e >> 1], e & 1}; }
  METAATTN_DEV T operator[](int e) const {
    T x;
    x.bits = (unsigned short)((e & 1) ? w[e >> 1] >> 16 : w[e >> 1] & 0xffffu);
    return x;
  }
  /// Elements 2i (low half) and 2i + 1 (high half).
  METAATTN_DEV unsigned word(int i) const { return w[i]; }
  METAATTN_DEV void setWord(int i, unsigned x) { w[i] = x; }
};
} // namespace detail

template <class T, int M, int N, int Warps, bool Packed = detail::Is16Bit<T>::value>
struct Frag : detail::FragStorage<T, (M / Warps / 16) * (N / 8) * 4, Packed> {
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

  static_assert(!Packed || detail::Is16Bit<T>::value, "Frag: only 16-bit elements pack");
  using detail::FragStorage<T, kElems, Packed>::operator[];

  /// Sub-tile indices of element e (compile-time after unrolling).
  METAATTN_HD static constexpr int mtOf(int e) { return (e >> 2) / NT; }
  METAATTN_HD static constexpr int ntOf(int e) { return (e >> 2) % NT; }
  /// Row within this warp's rows / column, without the per-thread part.
  METAATTN_HD static constexpr int rowConst(int e) { return mtOf(e) * 16 + ((e & 2) << 2); }
  METAATTN_HD static constexpr int colConst(int e) { return ntOf(e) * 8 + (e & 1); }

  /// The per-thread parts of row(e) and col(e) (tile.index_parts).
  METAATTN_DEV static int rowThread() {
    return detail::warpId() * kRowsPerWarp + (detail::laneId() >> 2);
  }
  METAATTN_DEV static int colThread() { return (detail::laneId() & 3) << 1; }
  /// Row of element e in the M x N tile (uses threadIdx).
  METAATTN_DEV static int row(int e) { return rowThread() + rowConst(e); }
  /// Column of element e in the M x N tile (uses threadIdx).
  METAATTN_DEV static int col(int e) { return colThread() + colConst(e); }
  /// Slot of element e's row in the matching RowVec<M, Warps>.
  METAATTN_HD static constexpr int rowSlot(int e) { return mtOf(e) * 2 + ((e & 3) >> 1); }
  /// Slot of element e's column in the matching ColVec<N>.
  METAATTN_HD static constexpr int colSlot(int e) { return ntOf(e) * 2 + (e & 1); }

  METAATTN_DEV void fill(T x) {
#pragma unroll
    for (int e = 0; e < kElems; ++e)
      (*this)[e] = x;
  }
};

/// The four m16n8k16 A-operand registers of k-step `kt` for row tile `mt` of a
/// 16-bit fragment: sub-tiles (mt, 2 kt) and (mt, 2 kt + 1), two elements per
/// register (the layout in the file comment). warp::gemmRS and wg::gemmRS both
/// read their register A operand through this.
template <class T, int M, int K, int W, bool P>
METAATTN_DEV void packARegs(const Frag<T, M, K, W, P>& A, int mt, int kt, unsigned (&a)[4]) {
  using F = Frag<T, M, K, W, P>;
  const int e0 = (mt * F::NT + 2 * kt) * 4, e1 = e0 + 4;
  a[0] = A.word(e0 / 2);
  a[1] = A.word(e0 / 2 + 1);
  a[2] = A.word(e1 / 2);
  a[3] = A.word(e1 / 2 + 1);
}

template <int M, int Warps, class T = float> struct RowVec {
  static_assert(Warps >= 1, "RowVec: Warps must be at least 1");
  static_assert(M % Warps == 0, "RowVec: M must be divisible by Warps");
  static_assert((M / Warps) % 16 == 0, "RowVec: rows per warp (M/Warps) must be a multiple of 16");

  static constexpr int kM = M;
  static constexpr int kWarps = Warps;
  static constexpr int kRowsPerWarp = M / Warps;
  /// Values each thread holds (two rows per 16-row sub-tile).
  static constexpr int kSlots = kRowsPerWarp / 16 * 2;

  T v[kSlots];

  METAATTN_DEV T& operator[](int s) { return v[s]; }
  METAATTN_DEV const T& operator[](int s) const { return v[s]; }

  /// Row held in slot s (uses threadIdx; the same for the 4 lanes of a quad): a per-thread
  /// part plus a part constant per slot (tile.index_parts).
  METAATTN_DEV static int rowThread() {
    return detail::warpId() * kRowsPerWarp + (detail::laneId() >> 2);
  }
  METAATTN_HD static constexpr int rowConst(int s) { return (s >> 1) * 16 + (s & 1) * 8; }
  METAATTN_DEV static int row(int s) { return rowThread() + rowConst(s); }

  METAATTN_DEV void fill(T x) {
#pragma unroll
    for (int s = 0; s < kSlots; ++s)
      v[s] = x;
  }

  /// Whether every slot of this thread holds x (a rescale by factors all 1 is skipped).
  METAATTN_DEV bool allEqual(T x) const {
    bool all = true;
#pragma unroll
    for (int s = 0; s < kSlots; ++s)
      all = all && v[s] == x;
    return all;
  }
};

template <int N, class T = float> struct ColVec {
  static_assert(N > 0 && N % 8 == 0, "ColVec: N must be a positive multiple of 8");

  static constexpr int kN = N;
  /// Values each thread holds (two columns per 8-column sub-tile).
  static constexpr int kSlots = N / 8 * 2;

  T v[kSlots];

  METAATTN_DEV T& operator[](int s) { return v[s]; }
  METAATTN_DEV const T& operator[](int s) const { return v[s]; }

  /// Column held in slot s (uses threadIdx; the same for lanes with equal lane % 4): a
  /// per-thread part plus a part constant per slot (tile.index_parts).
  METAATTN_DEV static int colThread() { return (detail::laneId() & 3) << 1; }
  METAATTN_HD static constexpr int colConst(int s) { return (s >> 1) * 8 + (s & 1); }
  METAATTN_DEV static int col(int s) { return colThread() + colConst(s); }

  METAATTN_DEV void fill(T x) {
#pragma unroll
    for (int s = 0; s < kSlots; ++s)
      v[s] = x;
  }
};

namespace warp {
/// dst[e] = convert(src[e]) for every element; 16-bit destinations are
/// converted two at a time (cvt.rn.{bf16,f16}x2.f32).
template <class T, class S, int M, int N, int W, bool PT, bool PS>
METAATTN_DEV void convert(Frag<T, M, N, W, PT>& dst, const Frag<S, M, N, W, PS>& src) {
  if constexpr (detail::Is16Bit<T>::value && detail::IsSame<S, float>::value) {
#pragma unroll
    for (int e = 0; e < Frag<T, M, N, W, PT>::kElems; e += 2)
      dst.setWord(e / 2, packFloat2<T>(src[e], src[e + 1]));
  } else {
#pragma unroll
    for (int e = 0; e < Frag<T, M, N, W, PT>::kElems; ++e)
      dst[e] = convertElem<T>(src[e]);
  }
}
} // namespace warp

} // namespace dev
} // namespace metaattn
