//===- metaattn/kept.cuh - Walking the kept tiles of a range ------*- CUDA -*-===//
///
/// \file
/// tile.kept_tiles and tile.tile_at: the indices j of a range [lo, hi) that a condition
/// keeps (a block-sparse map's kept kv tiles, a document mask's tiles whose ids meet),
/// counted and walked in order without a list in memory. The lanes of a warp test 32
/// consecutive j at once and ballots gather the answers, so both run on whole warps, every
/// lane holding the same state.
///
/// The test, `keep(j, Loads<U>())`, returns a bool, or with M marks an unsigned whose bit 0
/// says whether j is kept and bit k + 1 its mark k (a document tile that needs no mask). U is
/// how many loads per lane a test that reads a range of ids may keep in flight: the count,
/// before the kv loop, affords more registers than a cursor inside it.
///
//===----------------------------------------------------------------------===//
#pragma once

namespace metaattn::dev {

/// The loads in flight per lane a kept_tiles test may use.
template <int U> struct Loads {
  static constexpr int value = U;
};

/// The ballots of one window of 32 j: bit i of keep for j = base + i, of marks[k] for its
/// mark k.
template <int M> struct KeptWindow {
  unsigned keep = 0u;
  unsigned marks[M] = {};
};
template <> struct KeptWindow<0> {
  unsigned keep = 0u;
};

namespace warp {

/// Tests the window of 32 j from `base` (lanes past hi keep nothing). Every lane calls it.
template <int M, int U, class Keep>
__device__ __forceinline__ KeptWindow<M> testWindow(int base, int hi, Keep keep) {
  const int j = base + (threadIdx.x & 31);
  const unsigned bits = j < hi ? static_cast<unsigned>(keep(j, Loads<U>())) : 0u;
  KeptWindow<M> w;
  w.keep = __ballot_sync(0xffffffffu, bits & 1u);
  if constexpr (M > 0) {
#pragma unroll
    for (int k = 0; k < M; ++k)
      w.marks[k] = __ballot_sync(0xffffffffu, (bits >> (k + 1)) & 1u);
  }
  return w;
}

/// How many j in [lo, hi) `keep(j)` keeps; `first` gets the window from lo, which the
/// cursors start from instead of testing it again. Called by every lane of the warp.
template <int M, int U, class Keep>
__device__ __forceinline__ int countKept(int lo, int hi, Keep keep, KeptWindow<M>& first) {
  int count = 0;
  first = KeptWindow<M>();
  for (int base = lo; base < hi; base += 32) {
    const KeptWindow<M> w = testWindow<M, U>(base, hi, keep);
    if (base == lo)
      first = w;
    count += __popc(w.keep);
  }
  return count;
}

} // namespace warp

/// A reader of the kept j of [lo, hi) by rank. `at(r, keep)` is the r-th kept j (from 0):
/// asked for increasing ranks (one per iteration of a loop) it tests each 32 j of the range
/// once (the first window comes from countKept); a smaller rank than the last restarts from
/// lo. A rank past the last kept j gives hi. `mark(k)` is mark k of the j `at` last returned
/// (false past the last). Called by every lane of the warp with the same arguments.
template <int M, int U> class KeptCursor {
public:
  __device__ __forceinline__ KeptCursor(int lo, int hi, const KeptWindow<M>& first)
      : lo_(lo), hi_(hi), first_(first) {
    restart();
  }

  template <class Keep> __device__ __forceinline__ int at(int rank, Keep keep) {
    // The common case, the rank after the last one, takes the lowest bit of the window: a
    // few instructions in front of each kv tile's gemms (the general search below ran about
    // 35, half of them selects keeping its state, on every tile).
    if (rank != next_)
      seek(rank, keep);
    while (mask_ == 0u) {
      base_ += 32;
      if (base_ >= hi_) {
        bit_ = 0u;
        return hi_;
      }
      window_ = warp::testWindow<M, U>(base_, hi_, keep);
      mask_ = window_.keep;
    }
    bit_ = mask_ & (0u - mask_);
    mask_ ^= bit_;
    ++next_;
    return base_ + __ffs(bit_) - 1;
  }

  __device__ __forceinline__ bool mark(int k) const {
    static_assert(M > 0, "KeptCursor: mark() of a cursor that keeps no marks");
    return (window_.marks[k] & bit_) != 0u;
  }

private:
  /// Leaves the cursor where the next j taken is the rank-th kept one (or past the last).
  template <class Keep> __device__ __forceinline__ void seek(int rank, Keep keep) {
    if (rank < next_)
      restart();
    for (;;) {
      const int inWindow = __popc(mask_);
      if (rank - next_ < inWindow)
        break;
      next_ += inWindow;
      mask_ = 0u;
      base_ += 32;
      if (base_ >= hi_) {
        base_ -= 32; // at() finds the window empty and returns hi
        return;
      }
      window_ = warp::testWindow<M, U>(base_, hi_, keep);
      mask_ = window_.keep;
    }
    for (; next_ < rank; ++next_)
      mask_ &= mask_ - 1u;
  }

  __device__ __forceinline__ void restart() {
    base_ = lo_;
    window_ = first_;
    mask_ = first_.keep;
    next_ = 0;
    bit_ = 0u;
  }

  int lo_, hi_;
  KeptWindow<M> first_;  // the window from lo, tested by countKept
  KeptWindow<M> window_; // the window from base_
  int base_;             // first j of the window
  unsigned mask_;        // kept j of the window not yet returned
  int next_;             // rank of the lowest bit of mask_
  unsigned bit_;         // the bit of the j last returned (0 past the last)
};

} // namespace metaattn::dev
