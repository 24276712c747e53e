//===- metaattn/warpgroup.cuh - Warpgroup wgmma gemms (sm_90a) --*- CUDA -*-===//
///
/// \file
/// `C += A * op(B)` on wgmma.mma_async.m64nNk16 with f32 accumulators, the
/// same contract as warp::gemmSS / warp::gemmRS (gemm.cuh) for the fragments
/// and tiles that fit a warpgroup:
///
///   C: Frag<float, M, N, W> with 16 rows per warp (M / W == 16) and W a
///      multiple of 4, so warps 4g..4g+3 (warpgroup g) own rows 64g..64g+63
///      and each warp's sub-tiles are laid out exactly as wgmma's m64nN
///      accumulator fragment. N a multiple of 16, at most 256.
///   A: a shared K-major tile SmemTile<T, M, K> (gemmSS), a register
///      Frag<T, M, K, W> (gemmRS; its m16n8 layout is wgmma's A fragment), or
///      Aᵀ stored as a K x M tile SmemTile<T, K, M> read M-major (gemmTS: the
///      state update Kᵀ V with K as loaded, rows = tokens); warpgroup g reads
///      column block g (64 columns) of it.
///   B: TransB = true:  an N x K tile (rows = output columns), K-major.
///      TransB = false: a K x N tile (rows = reduction index), read N-major.
///   Shared tiles must be stored as 128-byte column blocks (SmemTile with a
///   row of a multiple of 128 bytes) at a 1024-byte aligned address.
///
/// By default the call is synchronous for the warpgroup: it fences the
/// registers, issues K/16 wgmma instructions, commits them and waits for
/// completion, so the accumulators can be read and the shared tiles
/// overwritten (after the usual barrier) on return. With Wait = false it
/// returns after the commit: the gemm is one wgmma group in flight until
/// wg::waitGemms<n>(...) leaves at most n groups pending; until then C must
/// not be touched, nor the shared tiles overwritten (ptxas keeps a register
/// A operand alive until the wait). Shared memory written by ordinary stores or
/// cp.async must be made visible to wgmma's async proxy first:
/// block::barrierAsyncProxy() is the barrier to use before a wgmma reads it.
/// With Overwrite = true the gemm is `C = A * op(B)`: C's old values are not
/// read (its first wgmma has scale-d 0 and C as outputs only), so a fill of C
/// just before it is dead code rather than N/2 register moves per thread.
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/frag.cuh"
#include "metaattn/smem.cuh"
#include "metaattn/wgmma_ops.cuh"

namespace metaattn {
namespace dev {
namespace ptx {

METAATTN_DEV void wgmmaFence() {
#if METAATTN_HAS_WGMMA
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
METAATTN_DEV void wgmmaCommit() {
#if METAATTN_HAS_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int N> METAATTN_DEV void wgmmaWait() {
#if METAATTN_HAS_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
/// Orders this thread's generic-proxy shared-memory writes before later
/// async-proxy (wgmma, TMA) accesses of other threads after a barrier.
METAATTN_DEV void fenceProxyAsyncShared() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
/// Keeps the compiler from moving accesses of `x` across an async wgmma.
METAATTN_DEV void fenceOperand(float& x) { asm volatile("" : "+f"(x)::"memory"); }

/// Shared-memory matrix descriptor with the 128-byte swizzle: start address,
/// leading- and stride-dimension byte offsets (all in 16-byte units).
METAATTN_DEV unsigned long long wgmmaDesc(unsigned addr, unsigned lbo, unsigned sbo) {
  return (unsigned long long)((addr & 0x3FFFFu) >> 4) |
         ((unsigned long long)((lbo >> 4) & 0x3FFFu) << 16) |
         ((unsigned long long)((sbo >> 4) & 0x3FFFu) << 32) | (1ull << 62);
}

} // namespace ptx

namespace block {
/// A block barrier that also publishes this thread's shared-memory writes to
/// the async proxy, for kernels whose gemms read shared tiles with wgmma.
METAATTN_DEV void barrierAsyncProxy() {
  ptx::fenceProxyAsyncShared();
  __syncthreads();
}
} // namespace block

namespace wg_detail {

template <class T, int M, int N, int W> struct Check {
  static_assert(detail::Is16Bit<T>::value, "wg gemm: operands must be bf16 or fp16");
  static_assert(M / W == 16 && W % 4 == 0,
                "wg gemm: the accumulator needs 16 rows per warp and whole warpgroups");
  static_assert(N % 16 == 0 && N <= 256, "wg gemm: N must be a multiple of 16, at most 256");
  static constexpr bool ok = true;
};

/// Descriptor of B for k-step kt. TransB: N x K tile, K-major (8-row groups
/// 1024 bytes apart, k-steps 32 bytes apart inside a column block).
/// Otherwise: K x N tile read N-major (k-steps of 16 rows = 2048 bytes,
/// column blocks of 64 columns `kColumnBlockBytes` apart).
template <bool TransB, class TileB> METAATTN_DEV unsigned long long descB(const TileB& B, int kt) {
  const unsigned base = detail::sharedAddr(B.base);
  if constexpr (TransB)
    return ptx::wgmmaDesc(base + (kt >> 2) * TileB::kColumnBlockBytes + (kt & 3) * 32, 16, 1024);
  else
    return ptx::wgmmaDesc(base + kt * 2048, TileB::kColumnBlockBytes, 1024);
}

/// Whether `Tile` stores element (r, c) where the 128-byte swizzle of wgmma and TMA expects it
/// in bytes from a 1024-aligned base: column block c / (128 / sizeof(T)) of Rows 128-byte rows,
/// and inside a row the 16-byte chunk index XORed with r mod 8 (address bits 4-6 ^= 7-9).
/// Checked at compile time by NvrtcTest.SmemTileLayoutIsTheWgmmaSwizzle, not here: evaluated in
/// every kernel's compile it cost NVRTC's front end about 80-110 ms (causal D128 to PTX 451 ->
/// 342 ms without it, tools/scripts/compile_time.sh).
template <class Tile> constexpr bool matchesSwizzle128() {
  using T = typename Tile::Elem;
  constexpr int perRow = 128 / (int)sizeof(T), perChunk = 16 / (int)sizeof(T);
  for (int r = 0; r < Tile::kRows; ++r)
    for (int c = 0; c < Tile::kCols; ++c) {
      const int expected = (c / perRow) * Tile::kRows * 128 + r * 128 +
                           (((c % perRow) / perChunk) ^ (r % 8)) * 16 +
                           (c % perChunk) * (int)sizeof(T);
      if (Tile::offset(r, c) * (int)sizeof(T) != expected)
        return false;
    }
  return true;
}

template <int N> METAATTN_DEV void fenceAll(float* d) {
#pragma unroll
  for (int i = 0; i < N / 2; ++i)
    ptx::fenceOperand(d[i]);
}

} // namespace wg_detail

namespace wg {

/// C += A * op(B), A and B in shared memory (see the file comment).
template <bool TransB, bool Wait = true, bool Overwrite = false, class T, int M, int N, int W,
          int K, int BR, int BC>
METAATTN_DEV void gemmSS(Frag<float, M, N, W>& C, SmemTile<T, M, K, 1> A,
                         SmemTile<T, BR, BC, 1> B) {
  static_assert(wg_detail::Check<T, M, N, W>::ok, "");
  static_assert(SmemTile<T, M, K, 1>::kColumnBlocks && SmemTile<T, BR, BC, 1>::kColumnBlocks,
                "wg::gemmSS: tiles must have rows of a multiple of 128 bytes");
  static_assert(TransB ? (BR == N && BC == K) : (BR == K && BC == N),
                "wg::gemmSS: B tile must be N x K (TransB) or K x N");
  using TA = SmemTile<T, M, K, 1>;
  const unsigned aBase = detail::sharedAddr(A.base) + (detail::warpId() >> 2) * 64 * 128;
  if constexpr (!Overwrite)
    wg_detail::fenceAll<N>(C.v);
  ptx::wgmmaFence();
#pragma unroll
  for (int kt = 0; kt < K / 16; ++kt) {
    const unsigned long long da =
        ptx::wgmmaDesc(aBase + (kt >> 2) * TA::kColumnBlockBytes + (kt & 3) * 32, 16, 1024);
    if (Overwrite && kt == 0)
      ptx::WgmmaOp<N>::template ss<T, TransB ? 0 : 1, 0, true>(C.v, da,
                                                               wg_detail::descB<TransB>(B, kt), 0);
    else
      ptx::WgmmaOp<N>::template ss<T, TransB ? 0 : 1>(C.v, da, wg_detail::descB<TransB>(B, kt), 1);
  }
  ptx::wgmmaCommit();
  if constexpr (Wait)
    ptx::wgmmaWait<0>();
  wg_detail::fenceAll<N>(C.v);
}

/// C += Aᵀ * op(B), A stored transposed: a K x M shared tile read M-major
/// (imm-trans-a), one 128-byte column block (64 rows of C) per warpgroup.
template <bool TransB, bool Wait = true, bool Overwrite = false, class T, int M, int N, int W,
          int K, int BR, int BC>
METAATTN_DEV void gemmTS(Frag<float, M, N, W>& C, SmemTile<T, K, M, 1> At,
                         SmemTile<T, BR, BC, 1> B) {
  static_assert(wg_detail::Check<T, M, N, W>::ok, "");
  using TA = SmemTile<T, K, M, 1>;
  static_assert(TA::kColumnBlocks && SmemTile<T, BR, BC, 1>::kColumnBlocks,
                "wg::gemmTS: tiles must have rows of a multiple of 128 bytes");
  static_assert(64 * (int)sizeof(T) == 128, "wg::gemmTS: 64 rows of C per 128-byte column block");
  static_assert(TransB ? (BR == N && BC == K) : (BR == K && BC == N),
                "wg::gemmTS: B tile must be N x K (TransB) or K x N");
  const unsigned aBase =
      detail::sharedAddr(At.base) + (detail::warpId() >> 2) * TA::kColumnBlockBytes;
  if constexpr (!Overwrite)
    wg_detail::fenceAll<N>(C.v);
  ptx::wgmmaFence();
#pragma unroll
  for (int kt = 0; kt < K / 16; ++kt) {
    // Sixteen rows (k) of 128 bytes per k-step, as B's N-major reads.
    const unsigned long long da = ptx::wgmmaDesc(aBase + kt * 2048, TA::kColumnBlockBytes, 1024);
    if (Overwrite && kt == 0)
      ptx::WgmmaOp<N>::template ss<T, TransB ? 0 : 1, 1, true>(C.v, da,
                                                               wg_detail::descB<TransB>(B, kt), 0);
    else
      ptx::WgmmaOp<N>::template ss<T, TransB ? 0 : 1, 1>(C.v, da, wg_detail::descB<TransB>(B, kt),
                                                         1);
  }
  ptx::wgmmaCommit();
  if constexpr (Wait)
    ptx::wgmmaWait<0>();
  wg_detail::fenceAll<N>(C.v);
}

/// C += A * op(B), A a register fragment (P after the softmax), B in shared
/// memory (see the file comment). The P * V case is TransB = false.
template <bool TransB, bool Wait = true, bool Overwrite = false, class T, int M, int N, int W,
          int K, int BR, int BC, bool P>
METAATTN_DEV void gemmRS(Frag<float, M, N, W>& C, const Frag<T, M, K, W, P>& A,
                         SmemTile<T, BR, BC, 1> B) {
  static_assert(wg_detail::Check<T, M, N, W>::ok, "");
  static_assert(SmemTile<T, BR, BC, 1>::kColumnBlocks,
                "wg::gemmRS: the B tile must have rows of a multiple of 128 bytes");
  static_assert(TransB ? (BR == N && BC == K) : (BR == K && BC == N),
                "wg::gemmRS: B tile must be N x K (TransB) or K x N");
  static_assert(K % 16 == 0, "wg::gemmRS: K must be a multiple of 16");
  // Every k-step's A registers are packed before the fence and kept live until
  // the wait: wgmma reads them asynchronously.
  unsigned a[K / 16][4];
#pragma unroll
  for (int kt = 0; kt < K / 16; ++kt)
    packARegs(A, 0, kt, a[kt]);
  if constexpr (!Overwrite)
    wg_detail::fenceAll<N>(C.v);
  ptx::wgmmaFence();
#pragma unroll
  for (int kt = 0; kt < K / 16; ++kt) {
    if (Overwrite && kt == 0)
      ptx::WgmmaOp<N>::template rs<T, TransB ? 0 : 1, true>(C.v, a[kt],
                                                            wg_detail::descB<TransB>(B, kt), 0);
    else
      ptx::WgmmaOp<N>::template rs<T, TransB ? 0 : 1>(C.v, a[kt], wg_detail::descB<TransB>(B, kt),
                                                      1);
  }
  ptx::wgmmaCommit();
  if constexpr (Wait)
    ptx::wgmmaWait<0>();
  wg_detail::fenceAll<N>(C.v);
#pragma unroll
  for (int kt = 0; kt < K / 16; ++kt)
    asm volatile("" ::"r"(a[kt][0]), "r"(a[kt][1]), "r"(a[kt][2]), "r"(a[kt][3]));
}

/// Waits until at most `Pending` async gemm groups of this warpgroup are in
/// flight, then fences the registers of `done`, the accumulators of the
/// gemms now complete, so their reads are not moved above the wait.
template <int Pending, class... F> METAATTN_DEV void waitGemms(F&... done) {
  ptx::wgmmaWait<Pending>();
  (
      [&] {
#pragma unroll
        for (int e = 0; e < F::kElems; ++e)
          ptx::fenceOperand(done.v[e]);
      }(),
      ...);
}

} // namespace wg
} // namespace dev
} // namespace metaattn
