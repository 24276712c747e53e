//===- metaattn/tma.cuh - TMA copies, mbarriers, warp specialisation -*- CUDA -*-===//
///
/// \file
/// The Hopper (sm_90a) pieces of a warp-specialised kernel: a producer thread
/// copies tiles with the Tensor Memory Accelerator (cp.async.bulk.tensor) into
/// a ring of shared stages, consumers wait for them on mbarriers and release
/// them by arriving on other mbarriers; setmaxnreg moves registers from the
/// producer warpgroup to the consumers, and named barriers synchronise the
/// consumers without the producer.
///
///   TmaDesc       the 128-byte CUtensorMap the runtime builds (a kernel
///                 parameter passed as `const __grid_constant__ TmaDesc`)
///   mbar::        init / arriveExpectTx / arrive / wait on a shared u64
///   tma::loadTile one tile of SmemTile<T, Rows, Cols> (rows of a multiple of
///                 128 bytes) as Cols*2/128 boxes of Rows x 64 elements
///   wg::turn*     ping-pong of consumer warpgroups on the tensor cores
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/smem.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define METAATTN_HAS_TMA 1
#else
#define METAATTN_HAS_TMA 0
#endif

namespace metaattn {
namespace dev {

/// A CUtensorMap built by the runtime (cuTensorMapEncodeTiled): opaque here.
struct alignas(64) TmaDesc {
  unsigned long long words[16];
};

namespace mbar {
METAATTN_DEV unsigned addr(long long* bar) { return detail::sharedAddr(bar); }
/// Expect `count` arrivals per phase. One thread; a block barrier follows.
METAATTN_DEV void init(long long* bar, int count) {
#if METAATTN_HAS_TMA
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(addr(bar)), "r"(count) : "memory");
#endif
}
/// Makes initialised mbarriers visible to the async proxy (TMA's complete_tx).
METAATTN_DEV void fenceInit() {
#if METAATTN_HAS_TMA
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}
/// Arrive once and announce `bytes` of async copies completing on `bar`.
METAATTN_DEV void arriveExpectTx(long long* bar, int bytes) {
#if METAATTN_HAS_TMA
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(addr(bar)),
               "r"(bytes)
               : "memory");
#endif
}
/// Arrive once (release: this thread's earlier shared accesses are done).
METAATTN_DEV void arrive(long long* bar) {
#if METAATTN_HAS_TMA
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(addr(bar)) : "memory");
#endif
}
/// Wait until the phase of parity `parity` has completed.
METAATTN_DEV void wait(long long* bar, int parity) {
#if METAATTN_HAS_TMA
  asm volatile("{\n"
               "  .reg .pred done;\n"
               "waitLoop:\n"
               "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "  @!done bra waitLoop;\n"
               "}\n" ::"r"(addr(bar)),
               "r"(parity)
               : "memory");
#endif
}
} // namespace mbar

namespace tma {
/// Tensor-map coordinates are innermost first: coordinate i is tensor dim R-1-i.
template <int R>
METAATTN_DEV void loadBox(unsigned dst, const TmaDesc& map, const int (&c)[R], long long* bar) {
#if METAATTN_HAS_TMA
  const unsigned long long desc = reinterpret_cast<unsigned long long>(&map);
  const unsigned b = mbar::addr(bar);
  if constexpr (R == 2)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::"
                 "bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"(desc), "r"(c[0]), "r"(c[1]), "r"(b)
                 : "memory");
  else if constexpr (R == 3)
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::"
                 "bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
                 "l"(desc), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(b)
                 : "memory");
  else if constexpr (R == 4)
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::"
                 "bytes [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
                 "l"(desc), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(b)
                 : "memory");
  else if constexpr (R == 5)
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::"
                 "bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];\n" ::"r"(dst),
                 "l"(desc), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(b)
                 : "memory");
  else
    static_assert(R >= 2 && R <= 5, "tma::loadBox: rank 2..5");
#endif
}

/// Copies the tile whose element (0, 0) is at `origin` (tensor dims; the
/// map's box gives the dim along the tile's rows, the last dim runs along its
/// columns) into `dst`, completing on `bar` with Tile::kStageBytes bytes. One
/// thread issues it.
template <class Tile, int R>
METAATTN_DEV void loadTile(const Tile& dst, const TmaDesc& map, const long long (&origin)[R],
                           long long* bar) {
  static_assert(Tile::kColumnBlocks && sizeof(typename Tile::Elem) == 2,
                "tma::loadTile: 16-bit tiles stored as 128-byte column blocks");
  int c[R];
#pragma unroll
  for (int i = 0; i < R; ++i)
    c[i] = (int)origin[R - 1 - i];
  const unsigned base = detail::sharedAddr(dst.base);
#pragma unroll
  for (int b = 0; b < Tile::kCols / 64; ++b) {
    loadBox<R>(base + b * Tile::kColumnBlockBytes, map, c, bar);
    c[0] += 64;
  }
}
} // namespace tma

namespace wg {
/// setmaxnreg: the executing warpgroup grows (Inc) or shrinks its registers
/// per thread to N.
template <bool Inc, int N> METAATTN_DEV void setMaxRegs() {
  static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setMaxRegs: N in 24..256, multiple of 8");
#if METAATTN_HAS_TMA
  if constexpr (Inc)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
  else
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}

/// This thread's warpgroup (threads [128 g, 128 g + 128)), broadcast from lane 0 so that the
/// compiler knows it is the same across the warp: branches on it stay warp-uniform (measured:
/// guards on `threadIdx.x / 128` itself cost causal D128 4-8% on the H200). The warp must be
/// converged.
METAATTN_DEV int index() { return __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 7), 0); }

/// A barrier among the calling warpgroup's 128 threads alone (named barrier 8 + its index;
/// the consumers' barrier is 1, the ping-pong turns 2 .. 1 + W): shared buffers that one
/// warpgroup writes and reads by itself (tile.barrier {warpgroup}).
METAATTN_DEV void groupBarrier() {
  asm volatile("bar.sync %0, 128;\n" ::"r"(8 + index()) : "memory");
}

/// Ping-pong between W consumer warpgroups (named barriers 2 .. 1 + W, each
/// between the warpgroup that waits on it and the one that passes to it).
template <int W> METAATTN_DEV void turnWait() {
  asm volatile("bar.sync %0, 256;\n" ::"r"(2 + index()) : "memory");
}
template <int W> METAATTN_DEV void turnPass() {
  asm volatile("bar.arrive %0, 256;\n" ::"r"(2 + (index() + 1) % W) : "memory");
}
/// The first turn: the last warpgroup passes to the first.
template <int W> METAATTN_DEV void turnStart() {
  if (index() == W - 1)
    asm volatile("bar.arrive 2, 256;\n" ::: "memory");
}
/// The final pass (from the last warpgroup) is taken by the first.
template <int W> METAATTN_DEV void turnFinish() {
  if (index() == 0)
    asm volatile("bar.sync 2, 256;\n" ::: "memory");
}
} // namespace wg

namespace block {
/// Barrier `Id` (1..15) among the first `Threads` threads only (bar.sync).
template <int Id, int Threads> METAATTN_DEV void namedBarrier() {
  static_assert(Id >= 1 && Id < 16 && Threads % 32 == 0, "namedBarrier: id 1..15, whole warps");
  asm volatile("bar.sync %0, %1;\n" ::"n"(Id), "n"(Threads) : "memory");
}
} // namespace block

} // namespace dev
} // namespace metaattn
