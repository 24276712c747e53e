//===- metaattn/gemm.cuh - Warp-level mma.sync gemms ------------*- CUDA -*-===//
///
/// \file
/// `C += A * op(B)` with float accumulation on mma.sync.m16n8k16. Each warp
/// computes its own M/Warps rows of C (the rows its Frag owns); every warp
/// reads all of B. Operands come from swizzled shared tiles through ldmatrix
/// (gemmSS; gemmTS with A stored transposed, K x M, read with ldmatrix.trans) or,
/// for A, from a register fragment (gemmRS).
///
/// B layouts:
///   TransB = true : B tile is N x K (row n holds B^T's row), C = A * B^T.
///                   The S = Q * K^T case with K stored rows = keys.
///   TransB = false: B tile is K x N, C = A * B, read with ldmatrix.trans.
///                   The O = P * V case with V stored rows = keys.
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/copy.cuh"
#include "metaattn/frag.cuh"
#include "metaattn/ptx.cuh"
#include "metaattn/smem.cuh"

namespace metaattn {
namespace dev {
namespace gemm_detail {

/// B registers for n-tiles (2*np, 2*np+1) of k-step kt: {b0, b1} of the first
/// then of the second.
template <bool TransB, class Tile>
METAATTN_DEV void loadB16(unsigned (&b)[4], const Tile& B, int np, int kt, int lane) {
  const int j = lane >> 3, i = lane & 7;
  if constexpr (TransB) {
    // Matrices: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15).
    ptx::ldmatrixX4(b, B.chunkAddr(np * 16 + i + ((j >> 1) << 3), (2 * kt) ^ (j & 1)));
  } else {
    // Matrices (transposed): (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15).
    ptx::ldmatrixX4Trans(b, B.chunkAddr(kt * 16 + i + ((j & 1) << 3), (2 * np) ^ (j >> 1)));
  }
}

/// B registers {b0, b1} for the single n-tile nt of k-step kt.
template <bool TransB, class Tile>
METAATTN_DEV void loadB8(unsigned (&b)[2], const Tile& B, int nt, int kt, int lane) {
  const int j = (lane >> 3) & 1, i = lane & 7;
  if constexpr (TransB)
    ptx::ldmatrixX2(b, B.chunkAddr(nt * 8 + i, (2 * kt) ^ j));
  else
    ptx::ldmatrixX2Trans(b, B.chunkAddr(kt * 16 + i + (j << 3), nt));
}

template <class T, int M, int N, int W>
METAATTN_DEV void mmaTile(Frag<float, M, N, W>& C, int mt, int nt, const unsigned (&a)[4],
                          unsigned b0, unsigned b1) {
  const int e = (mt * Frag<float, M, N, W>::NT + nt) * 4;
  ptx::Mma16816<T>::run(C[e], C[e + 1], C[e + 2], C[e + 3], a[0], a[1], a[2], a[3], b0, b1);
}

/// One k-step: a[mt] already loaded; loops over n-tile pairs.
template <bool TransB, class T, int M, int N, int W, class TileB, int MT>
METAATTN_DEV void kStep(Frag<float, M, N, W>& C, const unsigned (&a)[MT][4], const TileB& B, int kt,
                        int lane) {
  constexpr int NT = N / 8;
#pragma unroll
  for (int np = 0; np < NT / 2; ++np) {
    unsigned b[4];
    loadB16<TransB>(b, B, np, kt, lane);
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      mmaTile<T>(C, mt, 2 * np, a[mt], b[0], b[1]);
      mmaTile<T>(C, mt, 2 * np + 1, a[mt], b[2], b[3]);
    }
  }
  if constexpr (NT % 2 == 1) {
    unsigned b[2];
    loadB8<TransB>(b, B, NT - 1, kt, lane);
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
      mmaTile<T>(C, mt, NT - 1, a[mt], b[0], b[1]);
  }
}

template <bool TransB, int N, int K, int BR, int BC> struct CheckB {
  static_assert(!TransB || (BR == N && BC == K),
                "gemm<TransB=true>: B tile must be N x K (rows = output columns)");
  static_assert(TransB || (BR == K && BC == N),
                "gemm<TransB=false>: B tile must be K x N (rows = reduction index)");
  static_assert(K % 16 == 0, "gemm: K must be a multiple of 16 (mma k-step)");
  static constexpr bool ok = true;
};

} // namespace gemm_detail

namespace warp {

/// C += A * op(B), A and B in shared memory. A: M x K tile (this warp reads
/// its own rows), B: see TransB above. 16-bit T (bf16 or fp16).
template <bool TransB, class T, int M, int N, int W, int K, int BR, int BC>
METAATTN_DEV void gemmSS(Frag<float, M, N, W>& C, SmemTile<T, M, K, 1> A,
                         SmemTile<T, BR, BC, 1> B) {
  static_assert(dev::detail::Is16Bit<T>::value, "gemmSS: operands must be bf16 or fp16");
  static_assert(gemm_detail::CheckB<TransB, N, K, BR, BC>::ok, "");
  using F = Frag<float, M, N, W>;
  const int lane = dev::detail::laneId();
  const int rowBase = dev::detail::warpId() * F::kRowsPerWarp + (lane & 15);
#pragma unroll
  for (int kt = 0; kt < K / 16; ++kt) {
    // A matrices: (rows 0-7, k 0-7), (rows 8-15, k 0-7), (0-7, 8-15), (8-15, 8-15).
    unsigned a[F::MT][4];
#pragma unroll
    for (int mt = 0; mt < F::MT; ++mt)
      ptx::ldmatrixX4(a[mt], A.chunkAddr(rowBase + mt * 16, (2 * kt) ^ (lane >> 4)));
    gemm_detail::kStep<TransB, T>(C, a, B, kt, lane);
  }
}

/// C += Aᵀ * op(B), A stored transposed: a K x M shared tile (row k holds column k
/// of Aᵀ, e.g. K of a chunk, rows = tokens, for the state update Kᵀ * V). Each
/// 8x8 block of A comes from ldmatrix.trans.
template <bool TransB, class T, int M, int N, int W, int K, int BR, int BC>
METAATTN_DEV void gemmTS(Frag<float, M, N, W>& C, SmemTile<T, K, M, 1> At,
                         SmemTile<T, BR, BC, 1> B) {
  static_assert(dev::detail::Is16Bit<T>::value, "gemmTS: operands must be bf16 or fp16");
  static_assert(gemm_detail::CheckB<TransB, N, K, BR, BC>::ok, "");
  using F = Frag<float, M, N, W>;
  const int lane = dev::detail::laneId();
  const int q = lane >> 3, i = lane & 7;
  const int chunkBase = (dev::detail::warpId() * F::kRowsPerWarp) / 8 + (q & 1);
#pragma unroll
  for (int kt = 0; kt < K / 16; ++kt) {
    // A matrices as gemmSS's; matrix q is stored at rows k = 16 kt + 8 (q >> 1) + 0..7,
    // columns m = 8 (q & 1) + 0..7 of the warp's 16-row block.
    unsigned a[F::MT][4];
#pragma unroll
    for (int mt = 0; mt < F::MT; ++mt)
      ptx::ldmatrixX4Trans(a[mt], At.chunkAddr(kt * 16 + ((q >> 1) << 3) + i, chunkBase + 2 * mt));
    gemm_detail::kStep<TransB, T>(C, a, B, kt, lane);
  }
}

/// C += A * op(B), A a register fragment (e.g. P converted to bf16 from the
/// softmax), B in shared memory. The P * V case is TransB = false.
template <bool TransB, class T, int M, int N, int W, int K, int BR, int BC, bool P>
METAATTN_DEV void gemmRS(Frag<float, M, N, W>& C, const Frag<T, M, K, W, P>& A,
                         SmemTile<T, BR, BC, 1> B) {
  static_assert(dev::detail::Is16Bit<T>::value, "gemmRS: operands must be bf16 or fp16");
  static_assert(gemm_detail::CheckB<TransB, N, K, BR, BC>::ok, "");
  using FA = Frag<T, M, K, W, P>;
  const int lane = dev::detail::laneId();
#pragma unroll
  for (int kt = 0; kt < K / 16; ++kt) {
    unsigned a[FA::MT][4];
#pragma unroll
    for (int mt = 0; mt < FA::MT; ++mt)
      packARegs(A, mt, kt, a[mt]);
    gemm_detail::kStep<TransB, T>(C, a, B, kt, lane);
  }
}

} // namespace warp
} // namespace dev
} // namespace metaattn
