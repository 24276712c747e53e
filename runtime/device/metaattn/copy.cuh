//===- metaattn/copy.cuh - Global/shared/register copies --------*- CUDA -*-===//
///
/// \file
/// Block-wide copies between global tensors (`TensorRef`) and shared tiles,
/// register fragments and row vectors, plus the warp-level shared->fragment
/// load (ldmatrix).
///
/// Window convention: a copy moves the Rows x Cols window of a rank-R tensor
/// whose corner is `origin` (one index per dim); rows run along `rowDim`,
/// columns along `colDim`, every other dim is fixed at its origin. Elements
/// outside `sizes` (also negative indices) are zero-filled on loads and
/// skipped on stores.
///
/// Synchronisation: `loadTileAsync` only issues copies. The caller commits
/// (`block::asyncCommit`), waits (`block::asyncWait<N>`) and then calls
/// `block::barrier()` before any thread reads the tile; the same barrier is
/// needed after `loadTile`.
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/frag.cuh"
#include "metaattn/ptx.cuh"
#include "metaattn/smem.cuh"
#include "metaattn/types.cuh"

namespace metaattn {
namespace dev {
namespace block {

/// Closes the current group of cp.async copies (cp.async.commit_group).
METAATTN_DEV void asyncCommit() { ptx::cpAsyncCommit(); }
/// Waits until at most N committed groups of this thread are still pending
/// (cp.async.wait_group N). Follow with barrier() before reading the tile.
template <int N> METAATTN_DEV void asyncWait() { ptx::cpAsyncWait<N>(); }
/// Block-wide barrier and shared-memory fence (bar.sync 0).
METAATTN_DEV void barrier() { __syncthreads(); }

namespace detail {

/// Copies rows [rowBegin, rowBegin + CopyRows) of the Rows x Cols window into the same rows
/// of `dst`, `tid` (0 .. NThreads - 1) naming the calling thread among the NThreads that
/// share the copy.
template <bool Async, int NThreads, int CopyRows, class T, int Rows, int Cols, int R>
METAATTN_DEV void loadTileImpl(SmemTile<T, Rows, Cols, 1> dst, const TensorRef<R>& src,
                               const long long (&origin)[R], int rowDim, int colDim, int rowBegin,
                               int tid) {
  using Tile = SmemTile<T, Rows, Cols, 1>;
  static_assert(NThreads > 0 && NThreads % 32 == 0,
                "loadTile: NThreads must be a positive multiple of 32 (whole warps)");
  static_assert(CopyRows > 0 && CopyRows <= Rows, "loadTile: CopyRows must be 1..Rows");
  constexpr int CE = Tile::kChunkElems;
  constexpr int kChunks = Tile::kChunks;
  constexpr int kTotal = CopyRows * kChunks;
  constexpr int kIters = (kTotal + NThreads - 1) / NThreads;
  constexpr bool kRowAligned = NThreads % kChunks == 0; // chunk column fixed per thread

  bool othersIn;
  const long long off = dev::detail::originOffset(src, origin, rowDim, colDim, othersIn);
  const long long sr = src.strides[rowDim], sc = src.strides[colDim];
  const T* base = static_cast<const T*>(src.data) + off + (long long)rowBegin * sr;
  const long long r0 = origin[rowDim] + rowBegin, c0 = origin[colDim];
  const long long nr = src.sizes[rowDim], nc = src.sizes[colDim];
  // 16-byte copies need contiguous columns, a 16-byte aligned corner and a
  // row stride that keeps every row 16-byte aligned. Uniform over the block.
  const bool vec = sc == 1 && ((unsigned long long)base & 15ull) == 0 &&
                   ((sr * (long long)sizeof(T)) & 15ll) == 0;
  // Async copies (the pipelined loops) of a window wholly inside the tensor (every tile but
  // the last of a sequence): 16-byte copies without per-chunk bounds arithmetic. Uniform
  // over the block. (The synchronous copies keep the one path: a second one made ptxas
  // spill in the 192-dim softmax on mma.sync.)
  if constexpr (Async)
    if (vec && othersIn && r0 >= 0 && c0 >= 0 && r0 + CopyRows <= nr && c0 + Cols <= nc) {
#pragma unroll
      for (int it = 0; it < kIters; ++it) {
        const int idx = tid + it * NThreads;
        const int r = kRowAligned ? tid / kChunks + it * (NThreads / kChunks) : idx / kChunks;
        const int ch = kRowAligned ? tid % kChunks : idx % kChunks;
        if (kTotal % NThreads != 0 && r >= CopyRows)
          break;
        const T* gp = base + (long long)r * sr + ch * CE;
        ptx::cpAsync16(dev::detail::sharedAddr(dst.chunkPtr(rowBegin + r, ch)), gp, 16);
      }
      return;
    }

  // One chunk of the window per call (false past the last row). The general path of an
  // async copy (the last tile of a sequence, or a tensor without 16-byte rows) is not
  // unrolled: its cp.async calls do not wait, and unrolled it was most of a kernel's NVRTC
  // time (nine copies in the fused chunk kernel: 1.8 s to a cubin, 0.9 s rolled). Synchronous
  // copies stay unrolled so that their loads are in flight together; the element-wise fallback
  // (strided or misaligned tensors) is rolled in both.
  auto copyChunk = [&](int it) {
    int r, ch;
    if constexpr (kRowAligned) {
      r = tid / kChunks + it * (NThreads / kChunks);
      ch = tid % kChunks;
    } else {
      const int idx = tid + it * NThreads;
      r = idx / kChunks;
      ch = idx % kChunks;
    }
    if (kTotal % NThreads != 0 && r >= CopyRows)
      return false;
    T* sp = dst.chunkPtr(rowBegin + r, ch);
    const long long gr = r0 + r;
    const long long gc = c0 + (long long)ch * CE;
    const bool rowIn = othersIn && (unsigned long long)gr < (unsigned long long)nr;
    const T* rowPtr = base + (long long)r * sr;
    if (vec && gc >= 0) {
      const T* gp = rowPtr + ch * CE;
      const long long avail = nc - gc; // in-bounds elements from gc on
      const int bytes = !rowIn || avail <= 0 ? 0 : avail >= CE ? 16 : (int)avail * (int)sizeof(T);
      if constexpr (Async) {
        // Partial and empty chunks are zero-filled by cp.async itself.
        ptx::cpAsync16(dev::detail::sharedAddr(sp), bytes ? (const void*)gp : src.data, bytes);
      } else {
        if (bytes == 16) {
          *reinterpret_cast<uint4*>(sp) = *reinterpret_cast<const uint4*>(gp);
        } else if (bytes == 0) {
          *reinterpret_cast<uint4*>(sp) = make_uint4(0u, 0u, 0u, 0u);
        } else {
#pragma unroll
          for (int e = 0; e < CE; ++e)
            sp[e] = e < avail ? gp[e] : T{};
        }
      }
    } else {
      // Element-wise: strided columns, misaligned rows, or a chunk that
      // starts before column 0.
#pragma unroll 1
      for (int e = 0; e < CE; ++e) {
        const long long c = gc + e;
        const bool in = rowIn && (unsigned long long)c < (unsigned long long)nc;
        sp[e] = in ? rowPtr[(long long)(ch * CE + e) * sc] : T{};
      }
    }
    return true;
  };
  if constexpr (Async) {
#pragma unroll 1
    for (int it = 0; it < kIters; ++it)
      if (!copyChunk(it))
        break;
  } else {
#pragma unroll
    for (int it = 0; it < kIters; ++it)
      if (!copyChunk(it))
        break;
  }
}
} // namespace detail

/// Issues cp.async copies of the Rows x Cols window of `src` (element type T)
/// at `origin` into `dst`; zero-fills out-of-bounds elements. Fast path: one
/// 16-byte `cp.async.cg` per chunk (partial and fully out-of-bounds chunks
/// through its src-size operand) when strides[colDim] == 1 and the window's
/// corner and row stride are 16-byte aligned; otherwise element-wise loads
/// and shared stores (complete on return). Does not commit or wait.
template <int NThreads, class T, int Rows, int Cols, int R>
METAATTN_DEV void loadTileAsync(SmemTile<T, Rows, Cols, 1> dst, const TensorRef<R>& src,
                                const long long (&origin)[R], int rowDim, int colDim) {
  detail::loadTileImpl<true, NThreads, Rows>(dst, src, origin, rowDim, colDim, 0, (int)threadIdx.x);
}

/// loadTileAsync of the window's rows [rowBegin, rowBegin + CopyRows) alone, into the same
/// rows of `dst`, by NThreads threads of which the caller is `tid` (a consumer warpgroup
/// staging its own rows: NThreads = 128, tid = threadIdx.x % 128).
template <int NThreads, int CopyRows, class T, int Rows, int Cols, int R>
METAATTN_DEV void loadTileRowsAsync(SmemTile<T, Rows, Cols, 1> dst, const TensorRef<R>& src,
                                    const long long (&origin)[R], int rowDim, int colDim,
                                    int rowBegin, int tid) {
  detail::loadTileImpl<true, NThreads, CopyRows>(dst, src, origin, rowDim, colDim, rowBegin, tid);
}

/// Synchronous loadTileAsync: 16-byte loads/stores on the fast path, no
/// cp.async; nothing is pending on return (a barrier is still needed before
/// other threads read the tile).
template <int NThreads, class T, int Rows, int Cols, int R>
METAATTN_DEV void loadTile(SmemTile<T, Rows, Cols, 1> dst, const TensorRef<R>& src,
                           const long long (&origin)[R], int rowDim, int colDim) {
  detail::loadTileImpl<false, NThreads, Rows>(dst, src, origin, rowDim, colDim, 0,
                                              (int)threadIdx.x);
}

namespace detail {
template <bool Async, int NThreads, class T, int N, int R>
METAATTN_DEV void loadVecImpl(SmemVec<T, N, 1> dst, const TensorRef<R>& src,
                              const long long (&origin)[R], int dim) {
  bool othersIn;
  const long long off = dev::detail::originOffset(src, origin, dim, dim, othersIn);
  const T* base = static_cast<const T*>(src.data) + off;
  const long long stride = src.strides[dim], n = src.sizes[dim], i0 = origin[dim];
  for (int i = (int)threadIdx.x; i < N; i += NThreads) {
    const bool in = othersIn && (unsigned long long)(i0 + i) < (unsigned long long)n;
    if constexpr (Async && sizeof(T) == 4)
      ptx::cpAsync4(dev::detail::sharedAddr(&dst[i]),
                    in ? (const void*)(base + i * stride) : src.data, in ? 4 : 0);
    else
      dst[i] = in ? base[i * stride] : T{};
  }
}
} // namespace detail

/// The N elements of `src` from `origin` along dimension `dim` into `dst`, zero past the
/// tensor's bounds (a strided vector: one gate or one per-token input per row of a chunk).
/// 4-byte elements go by cp.async (pending until asyncWait, like loadTileAsync); others are
/// loaded and stored element-wise, complete on return.
template <int NThreads, class T, int N, int R>
METAATTN_DEV void loadVecAsync(SmemVec<T, N, 1> dst, const TensorRef<R>& src,
                               const long long (&origin)[R], int dim) {
  detail::loadVecImpl<true, NThreads>(dst, src, origin, dim);
}

/// Synchronous loadVecAsync: complete on return (a barrier is still needed before other
/// threads read it).
template <int NThreads, class T, int N, int R>
METAATTN_DEV void loadVec(SmemVec<T, N, 1> dst, const TensorRef<R>& src,
                          const long long (&origin)[R], int dim) {
  detail::loadVecImpl<false, NThreads>(dst, src, origin, dim);
}

/// Converts fragment `f` (float or 16-bit) to T and writes its M x N window
/// at `origin`, skipping elements out of bounds. Adjacent column pairs are
/// written with one 4- or 8-byte store when contiguous and aligned. Threads
/// of warps >= Warps (e.g. producer warps) write nothing.
template <int NThreads, class T, int R, class S, int M, int N, int W, bool P>
METAATTN_DEV void storeFrag(const TensorRef<R>& dst, const long long (&origin)[R], int rowDim,
                            int colDim, const Frag<S, M, N, W, P>& f) {
  using F = Frag<S, M, N, W, P>;
  static_assert(NThreads >= 32 * W, "storeFrag: NThreads is smaller than the fragment's warps");
  if (NThreads > 32 * W && dev::detail::warpId() >= W)
    return;
  bool othersIn;
  const long long off = dev::detail::originOffset(dst, origin, rowDim, colDim, othersIn);
  T* base = static_cast<T*>(dst.data) + off;
  const long long sr = dst.strides[rowDim], sc = dst.strides[colDim];
  const long long r0 = origin[rowDim], c0 = origin[colDim];
  const long long nr = dst.sizes[rowDim], nc = dst.sizes[colDim];
  // Fast path: contiguous rows, every column in bounds, every pair aligned; a pair's address
  // is its row's pointer plus a constant.
  if (othersIn && sc == 1 && c0 >= 0 && c0 + N <= nc && sr % 2 == 0 &&
      ((unsigned long long)base & (2 * sizeof(T) - 1)) == 0) {
    // Every row in bounds too (all but a sequence's last tile): no per-pair check.
    const bool rowsIn = r0 >= 0 && r0 + M <= nr;
#pragma unroll
    for (int e = 0; e < F::kElems; e += 2) {
      const int i = F::row(e);
      if (!rowsIn && (unsigned long long)(r0 + i) >= (unsigned long long)nr)
        continue;
      T* p = base + (long long)i * sr + F::col(e);
      if constexpr (sizeof(T) == 4)
        *reinterpret_cast<float2*>(p) =
            make_float2(convertElem<float>(f[e]), convertElem<float>(f[e + 1]));
      else if constexpr (dev::detail::IsSame<S, float>::value)
        *reinterpret_cast<unsigned*>(p) = packFloat2<T>(f[e], f[e + 1]);
      else
        *reinterpret_cast<unsigned*>(p) = packPair(convertElem<T>(f[e]), convertElem<T>(f[e + 1]));
    }
    return;
  }
#pragma unroll
  for (int e = 0; e < F::kElems; e += 2) {
    const int i = F::row(e), j = F::col(e);
    const long long gr = r0 + i, gc = c0 + j;
    if (!othersIn || (unsigned long long)gr >= (unsigned long long)nr)
      continue;
    T* p = base + (long long)i * sr + (long long)j * sc;
    const T lo = convertElem<T>(f[e]), hi = convertElem<T>(f[e + 1]);
    const bool pairIn = gc >= 0 && gc + 1 < nc;
    if (sc == 1 && pairIn && ((unsigned long long)p & (2 * sizeof(T) - 1)) == 0) {
      if constexpr (sizeof(T) == 4) {
        *reinterpret_cast<float2*>(p) = make_float2(toFloat(lo), toFloat(hi));
      } else if constexpr (dev::detail::IsSame<S, float>::value) {
        *reinterpret_cast<unsigned*>(p) = packFloat2<T>(f[e], f[e + 1]);
      } else {
        *reinterpret_cast<unsigned*>(p) = packPair(lo, hi);
      }
    } else {
      if ((unsigned long long)gc < (unsigned long long)nc)
        p[0] = lo;
      if ((unsigned long long)(gc + 1) < (unsigned long long)nc)
        p[sc] = hi;
    }
  }
}

namespace detail {
/// Chunks [0, Count) of the rows from `row0` of shared tile `src`, chunk i = it * Step +
/// `index` for it = 0, 1, ... (row row0 + i / chunks per row), written to the window at
/// `origin` as T: 16-byte stores where the columns are contiguous, 16-byte aligned, in bounds
/// and T is the tile's type; element by element (converted, skipping what is outside)
/// elsewhere.
template <int Count, int Step, class T, int R, class S, int Rows, int Cols>
METAATTN_DEV void storeChunks(const TensorRef<R>& dst, const long long (&origin)[R], int rowDim,
                              int colDim, SmemTile<S, Rows, Cols, 1> src, int row0, int index) {
  using Tile = SmemTile<S, Rows, Cols, 1>;
  bool othersIn;
  const long long off = dev::detail::originOffset(dst, origin, rowDim, colDim, othersIn);
  if (!othersIn)
    return;
  T* base = static_cast<T*>(dst.data) + off;
  const long long sr = dst.strides[rowDim], sc = dst.strides[colDim];
  const long long r0 = origin[rowDim], c0 = origin[colDim];
  const long long nr = dst.sizes[rowDim], nc = dst.sizes[colDim];
  // 16-byte stores: contiguous columns, every row's chunks 16-byte aligned. Uniform.
  const bool vec = dev::detail::IsSame<S, T>::value && sc == 1 &&
                   ((unsigned long long)base & 15ull) == 0 &&
                   ((sr * (long long)sizeof(T)) & 15ll) == 0;
  constexpr int kChunks = Tile::kChunks, CE = Tile::kChunkElems;
#pragma unroll
  for (int it = 0; it < (Count + Step - 1) / Step; ++it) {
    const int i = it * Step + index;
    if (Count % Step != 0 && i >= Count)
      break;
    const int r = row0 + i / kChunks, ch = i % kChunks;
    if ((unsigned long long)(r0 + r) >= (unsigned long long)nr)
      continue;
    const long long gc = c0 + (long long)ch * CE;
    const S* sp = src.chunkPtr(r, ch);
    T* rowPtr = base + (long long)r * sr;
    if (vec && gc >= 0 && gc + CE <= nc) {
      *reinterpret_cast<uint4*>(rowPtr + ch * CE) = *reinterpret_cast<const uint4*>(sp);
    } else {
#pragma unroll
      for (int e = 0; e < CE; ++e)
        if ((unsigned long long)(gc + e) < (unsigned long long)nc)
          rowPtr[(long long)(ch * CE + e) * sc] = convertElem<T>(sp[e]);
    }
  }
}
} // namespace detail

/// storeFrag through shared memory: each warp converts its own rows of `f` to T into `stage`
/// (element pairs, conflict-free in the swizzled tile), then writes those rows out of it as
/// whole 16-byte chunks, eight lanes per 128 bytes of a row (chunks that are not contiguous,
/// aligned and in bounds go element by element, skipping what is outside). Only the warp's
/// own rows of `stage` are touched, so a __syncwarp orders it (no block barrier). Warps >= W
/// write nothing.
template <int NThreads, class T, int R, class S, int M, int N, int W, bool P>
METAATTN_DEV void storeFragStaged(const TensorRef<R>& dst, const long long (&origin)[R], int rowDim,
                                  int colDim, const Frag<S, M, N, W, P>& f,
                                  SmemTile<T, M, N, 1> stage) {
  using F = Frag<S, M, N, W, P>;
  using Tile = SmemTile<T, M, N, 1>;
  static_assert(NThreads >= 32 * W,
                "storeFragStaged: NThreads is smaller than the fragment's warps");
  if (NThreads > 32 * W && dev::detail::warpId() >= W)
    return;
  __syncwarp(); // this warp's reads of its rows of `stage` (a previous call) are done
#pragma unroll
  for (int e = 0; e < F::kElems; e += 2) {
    T* p = stage.base + Tile::offset(F::row(e), F::col(e));
    if constexpr (sizeof(T) == 4)
      *reinterpret_cast<float2*>(p) =
          make_float2(convertElem<float>(f[e]), convertElem<float>(f[e + 1]));
    else if constexpr (dev::detail::IsSame<S, float>::value)
      *reinterpret_cast<unsigned*>(p) = packFloat2<T>(f[e], f[e + 1]);
    else
      *reinterpret_cast<unsigned*>(p) = packPair(convertElem<T>(f[e]), convertElem<T>(f[e + 1]));
  }
  __syncwarp();
  detail::storeChunks<F::kRowsPerWarp * Tile::kChunks, 32, T>(
      dst, origin, rowDim, colDim, stage, dev::detail::warpId() * F::kRowsPerWarp,
      dev::detail::laneId());
}

/// Writes shared tile `src` (converted to T) as the Rows x Cols window at `origin`, skipping
/// what is outside the tensor: whole 16-byte row chunks where the columns are contiguous,
/// aligned and in bounds (and T is the tile's type), element by element elsewhere. All
/// NThreads threads take part; the caller synchronises before (the tile is written) and after.
template <int NThreads, class T, int R, class S, int Rows, int Cols>
METAATTN_DEV void storeTile(const TensorRef<R>& dst, const long long (&origin)[R], int rowDim,
                            int colDim, SmemTile<S, Rows, Cols, 1> src) {
  detail::storeChunks<Rows * SmemTile<S, Rows, Cols, 1>::kChunks, NThreads, T>(
      dst, origin, rowDim, colDim, src, 0, (int)threadIdx.x);
}

/// Writes row vector `v` (converted to T) along `rowDim` at `origin`: one lane
/// per quad writes each in-bounds row. Warps >= W write nothing.
template <class T, int R, int M, int W>
METAATTN_DEV void storeRowVec(const TensorRef<R>& dst, const long long (&origin)[R], int rowDim,
                              const RowVec<M, W>& v) {
  if (dev::detail::warpId() >= W || (dev::detail::laneId() & 3) != 0)
    return;
  bool othersIn;
  const long long off = dev::detail::originOffset(dst, origin, rowDim, rowDim, othersIn);
  T* base = static_cast<T*>(dst.data) + off;
  const long long sr = dst.strides[rowDim], r0 = origin[rowDim], nr = dst.sizes[rowDim];
#pragma unroll
  for (int s = 0; s < RowVec<M, W>::kSlots; ++s) {
    const int i = RowVec<M, W>::row(s);
    if (othersIn && (unsigned long long)(r0 + i) < (unsigned long long)nr)
      base[(long long)i * sr] = fromFloat<T>(v[s]);
  }
}

} // namespace block

namespace warp {

/// Writes this warp's rows of fragment `f`, converted to T, into the M x N shared tile `s`
/// (element pairs, conflict-free in the swizzled tile). Warps >= W write nothing; the caller
/// synchronises before other warps (or wgmma) read the tile.
template <class T, class S, int M, int N, int W, bool P>
METAATTN_DEV void storeFrag(SmemTile<T, M, N, 1> s, const Frag<S, M, N, W, P>& f) {
  using F = Frag<S, M, N, W, P>;
  if (dev::detail::warpId() >= W)
    return;
#pragma unroll
  for (int e = 0; e < F::kElems; e += 2) {
    T* p = s.base + SmemTile<T, M, N, 1>::offset(F::row(e), F::col(e));
    if constexpr (sizeof(T) == 4)
      *reinterpret_cast<float2*>(p) =
          make_float2(convertElem<float>(f[e]), convertElem<float>(f[e + 1]));
    else if constexpr (dev::detail::IsSame<S, float>::value)
      *reinterpret_cast<unsigned*>(p) = packFloat2<T>(f[e], f[e + 1]);
    else
      *reinterpret_cast<unsigned*>(p) = packPair(convertElem<T>(f[e]), convertElem<T>(f[e + 1]));
  }
}

/// Loads this warp's rows of an M x N shared tile into fragment `f`
/// (ldmatrix.x4 per 16x16 block, .x2 for a trailing 16x8 block).
template <class T, int M, int N, int W, bool P>
METAATTN_DEV void loadFrag(Frag<T, M, N, W, P>& f, SmemTile<T, M, N, 1> s) {
  using F = Frag<T, M, N, W, P>;
  static_assert(dev::detail::Is16Bit<T>::value,
                "loadFrag: only bf16/fp16 fragments (ldmatrix is b16)");
  const int lane = dev::detail::laneId();
  const int rowBase = dev::detail::warpId() * F::kRowsPerWarp + (lane & 15);
#pragma unroll
  for (int mt = 0; mt < F::MT; ++mt) {
#pragma unroll
    for (int np = 0; np < F::NT / 2; ++np) {
      // Matrices: (rows 0-7, chunk 2np), (rows 8-15, 2np), (0-7, 2np+1), (8-15, 2np+1).
      unsigned r[4];
      ptx::ldmatrixX4(r, s.chunkAddr(rowBase + mt * 16, (2 * np) ^ (lane >> 4)));
      const int e0 = (mt * F::NT + 2 * np) * 4, e1 = e0 + 4;
      f.setWord(e0 / 2, r[0]);
      f.setWord(e0 / 2 + 1, r[1]);
      f.setWord(e1 / 2, r[2]);
      f.setWord(e1 / 2 + 1, r[3]);
    }
    if constexpr (F::NT % 2 == 1) {
      unsigned r[2];
      ptx::ldmatrixX2(r, s.chunkAddr(rowBase + mt * 16, F::NT - 1));
      const int e0 = (mt * F::NT + F::NT - 1) * 4;
      f.setWord(e0 / 2, r[0]);
      f.setWord(e0 / 2 + 1, r[1]);
    }
  }
}

} // namespace warp
} // namespace dev
} // namespace metaattn
