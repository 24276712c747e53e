//===- metaattn/reduce.cuh - Row reductions over fragments ------*- CUDA -*-===//
///
/// \file
/// Row max / sum / |sum| of a float Frag into a RowVec: each thread reduces
/// its own elements of a row, then the quad (4 lanes sharing the row) combines
/// with two xor-shuffles, so every lane of the quad ends with the result.
/// Rows of all -inf give -inf for rowMax (and -inf / NaN propagate through
/// the sums as in IEEE arithmetic); max ignores a NaN operand (fmaxf).
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/frag.cuh"
#include "metaattn/math.cuh"

namespace metaattn {
namespace dev {
namespace reduce_detail {

struct MaxOp {
  METAATTN_DEV static float map(float x) { return x; }
  METAATTN_DEV static float combine(float a, float b) { return fmaxf(a, b); }
};
struct SumOp {
  METAATTN_DEV static float map(float x) { return x; }
  METAATTN_DEV static float combine(float a, float b) { return a + b; }
};
struct AbsSumOp {
  METAATTN_DEV static float map(float x) { return fabsf(x); }
  METAATTN_DEV static float combine(float a, float b) { return a + b; }
};

template <class Op, int M, int N, int W>
METAATTN_DEV void rowReduce(const Frag<float, M, N, W>& f, RowVec<M, W>& out, bool accumulate) {
  using F = Frag<float, M, N, W>;
#pragma unroll
  for (int mt = 0; mt < F::MT; ++mt) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int e0 = mt * F::NT * 4 + 2 * h;
      float x = Op::combine(Op::map(f[e0]), Op::map(f[e0 + 1]));
#pragma unroll
      for (int nt = 1; nt < F::NT; ++nt)
        x = Op::combine(x, Op::combine(Op::map(f[e0 + nt * 4]), Op::map(f[e0 + nt * 4 + 1])));
      x = Op::combine(x, __shfl_xor_sync(0xffffffffu, x, 1));
      x = Op::combine(x, __shfl_xor_sync(0xffffffffu, x, 2));
      const int s = mt * 2 + h;
      out[s] = accumulate ? Op::combine(out[s], x) : x;
    }
  }
}

/// out[s] = the quad's combination of each lane's partial value part[s].
template <class Op, int M, int W>
METAATTN_DEV void quadCombine(const RowVec<M, W>& part, RowVec<M, W>& out, bool accumulate) {
#pragma unroll
  for (int s = 0; s < RowVec<M, W>::kSlots; ++s) {
    float x = part[s];
    x = Op::combine(x, __shfl_xor_sync(0xffffffffu, x, 1));
    x = Op::combine(x, __shfl_xor_sync(0xffffffffu, x, 2));
    out[s] = accumulate ? Op::combine(out[s], x) : x;
  }
}

} // namespace reduce_detail

namespace warp {
/// out[row] = max over the row's N columns (max with the old out[row] when
/// `accumulate`).
template <int M, int N, int W>
METAATTN_DEV void rowMax(const Frag<float, M, N, W>& f, RowVec<M, W>& out, bool accumulate) {
  reduce_detail::rowReduce<reduce_detail::MaxOp>(f, out, accumulate);
}
/// out[row] = sum over the row (plus the old out[row] when `accumulate`).
template <int M, int N, int W>
METAATTN_DEV void rowSum(const Frag<float, M, N, W>& f, RowVec<M, W>& out, bool accumulate) {
  reduce_detail::rowReduce<reduce_detail::SumOp>(f, out, accumulate);
}
/// out[row] = sum of |x| over the row (plus the old out[row] when `accumulate`).
template <int M, int N, int W>
METAATTN_DEV void rowAbsSum(const Frag<float, M, N, W>& f, RowVec<M, W>& out, bool accumulate) {
  reduce_detail::rowReduce<reduce_detail::AbsSumOp>(f, out, accumulate);
}
/// The same reductions from per-thread partials: `part[s]` holds the max / sum / |sum| of this
/// thread's elements of slot s's row (the emitter accumulates it in the element loop that
/// computes a fragment only a row reduction reads, so the fragment itself is never held);
/// the quad combines them as above.
template <int M, int W>
METAATTN_DEV void rowMaxOfPartials(const RowVec<M, W>& part, RowVec<M, W>& out, bool accumulate) {
  reduce_detail::quadCombine<reduce_detail::MaxOp>(part, out, accumulate);
}
template <int M, int W>
METAATTN_DEV void rowSumOfPartials(const RowVec<M, W>& part, RowVec<M, W>& out, bool accumulate) {
  reduce_detail::quadCombine<reduce_detail::SumOp>(part, out, accumulate);
}
} // namespace warp

} // namespace dev
} // namespace metaattn
