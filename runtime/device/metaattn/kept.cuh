//===- metaattn/kept.cuh - Walking the kept tiles of a range ------*- CUDA -*-===//
///
/// \file
/// tile.kept_tiles and tile.tile_at: the indices j of a range [lo, hi) that a condition
/// keeps (a block-sparse map's kept kv tiles), counted and walked in order without a list in
/// memory. The lanes of a warp test 32 consecutive j at once and a ballot gathers the
/// answers, so both run on whole warps, every lane holding the same state.
///
//===----------------------------------------------------------------------===//
#pragma once

namespace metaattn::dev {

namespace warp {

/// How many j in [lo, hi) `keep(j)` keeps. Called by every lane of the warp.
template <class Keep> __device__ __forceinline__ int countKept(int lo, int hi, Keep keep) {
  const int lane = threadIdx.x & 31;
  int count = 0;
  for (int base = lo; base < hi; base += 32) {
    const int j = base + lane;
    count += __popc(__ballot_sync(0xffffffffu, j < hi && keep(j)));
  }
  return count;
}

} // namespace warp

/// A reader of the kept j of [lo, hi) by rank. `at(r, keep)` is the r-th kept j (from 0):
/// asked for increasing ranks (one per iteration of a loop) it tests each 32 j of the range
/// once; a smaller rank than the last restarts from lo. A rank past the last kept j gives
/// hi. Called by every lane of the warp with the same arguments.
class KeptCursor {
public:
  __device__ __forceinline__ KeptCursor(int lo, int hi) : lo_(lo), hi_(hi) { restart(); }

  template <class Keep> __device__ __forceinline__ int at(int rank, Keep keep) {
    if (rank < next_)
      restart();
    const int lane = threadIdx.x & 31;
    for (;;) {
      if (mask_ == 0u) {
        base_ += 32;
        if (base_ >= hi_)
          return hi_;
        const int j = base_ + lane;
        mask_ = __ballot_sync(0xffffffffu, j < hi_ && keep(j));
        continue;
      }
      const int inWindow = __popc(mask_);
      if (rank - next_ >= inWindow) {
        next_ += inWindow;
        mask_ = 0u;
        continue;
      }
      for (; next_ < rank; ++next_)
        mask_ &= mask_ - 1u;
      const int j = base_ + __ffs(mask_) - 1;
      mask_ &= mask_ - 1u;
      ++next_;
      return j;
    }
  }

private:
  __device__ __forceinline__ void restart() {
    base_ = lo_ - 32;
    mask_ = 0u;
    next_ = 0;
  }

  int lo_, hi_;
  int base_;      // first j of the window of 32 the mask covers
  unsigned mask_; // kept j of the window not yet returned
  int next_;      // rank of the lowest bit of mask_
};

} // namespace metaattn::dev
