//===- metaattn/math.cuh - Scalar math for generated kernels ----*- CUDA -*-===//
///
/// \file
/// Fast scalar math used by element-wise regions: special-function-unit
/// approximations, with their error documented.
///
//===----------------------------------------------------------------------===//
#pragma once

#include "metaattn/types.cuh"

namespace metaattn {
namespace dev {

constexpr float kLog2e = 1.4426950408889634f; ///< log2(e)
constexpr float kLn2 = 0.6931471805599453f;   ///< ln(2)

/// -infinity (the identity of max, the score of a masked element).
METAATTN_DEV float negInf() { return __uint_as_float(0xff800000u); }
/// +infinity.
METAATTN_DEV float posInf() { return __uint_as_float(0x7f800000u); }

/// 2^x: `ex2.approx.ftz.f32` as the runtime compiles kernels (-ftz=true; without it
/// `ex2.approx.f32`, which keeps denormal results): relative error about 2^-22 over the
/// normal range, exp2Approx(-inf) == +0. exp2f rather than inline assembly so that the
/// compiler merges repeated evaluations (a decay factor per row computed once for the
/// row's elements, not once per element).
METAATTN_DEV float exp2Approx(float x) { return exp2f(x); }

/// 2^x on the FMA and integer pipes instead of the special-function unit, for x <= 127 (the
/// exponents of softmax weights, x <= 0): x = j + f with j = round(x) (the 1.5·2^23 shift
/// leaves j in the low mantissa bits of t), 2^f for f in [-0.5, 0.5] by a cubic fitted for
/// relative error (at most 1.1e-4, below bf16's 2^-9 rounding of the weights), and j added to
/// the exponent field. x <= -127 (and -inf) gives 0 or a subnormal that -ftz flushes. Three
/// FADD, three FFMA, a FMNMX, a shift and an add: kernels run it for part of their weights
/// (exp2Mixed) where the special-function unit, 16 results per cycle and multiprocessor, is
/// what bounds them.
METAATTN_DEV float exp2Poly(float x) {
  constexpr float kShift = 12582912.0f; // 1.5·2^23
  x = fmaxf(x, -127.0f);
  float t = x + kShift;
  float f = x - (t - kShift);
  float p = fmaf(fmaf(fmaf(0.05500875786f, f, 0.24221138656f), f, 0.69328302145f), f, 1.0f);
  return __uint_as_float(__float_as_uint(p) + (__float_as_uint(t) << 23));
}

/// 2^x for fragment element `element` of an unrolled element loop: every kEvery-th element
/// (the last of each group of kEvery) on the FMA pipe (exp2Poly), the others on the
/// special-function unit; `element` is a constant after unrolling, so no branch remains.
template <int kEvery> METAATTN_DEV float exp2Mixed(int element, float x) {
  if (kEvery > 0 && element % kEvery == kEvery - 1)
    return exp2Poly(x);
  return exp2Approx(x);
}

/// log2(x): `lg2.approx.ftz.f32` under -ftz=true: absolute error about 2^-22 for x in
/// [0.5, 2], relative error about 2^-22 elsewhere; log2(0) == -inf.
METAATTN_DEV float log2Approx(float x) { return __log2f(x); }

/// e^x as exp2Approx(x * log2e). Besides ex2's 2^-22, rounding the product
/// to float adds a relative error of up to |x| * 2^-24 (e.g. 5e-6 at |x| = 80);
/// exp(-inf) == 0, results below 2^-126 flush to 0.
METAATTN_DEV float exp(float x) { return exp2Approx(x * kLog2e); }

/// e^(a - b) as exp2Approx(a * log2e - b * log2e) with one fma: where b is shared by many
/// elements (a row's running max), b * log2e is computed once and each element costs one
/// fma and one ex2 instead of a subtraction, a multiplication and the ex2. Rounding b * log2e
/// adds an absolute error of up to |b| * 2^-24 to the exponent (a relative error of the result
/// of 6e-6 at |b| = 100). Same infinities and NaNs as exp(a - b).
METAATTN_DEV float expSub(float a, float b) { return exp2Approx(fmaf(a, kLog2e, -(b * kLog2e))); }

/// e^(x·k - b) as expSub(x·k, b) with the product folded into the fma: exp2Approx(x·(k·log2e)
/// − b·log2e), for a constant k (a score scale) and b shared by many elements. Rounding k·log2e
/// adds a relative error of |x·k|·2^-24 to the exponent.
METAATTN_DEV float expSubScaled(float x, float k, float b) {
  return exp2Approx(fmaf(x, k * kLog2e, -(b * kLog2e)));
}

/// exp, expSub and expSubScaled with the 2^x of exp2Mixed.
template <int kEvery> METAATTN_DEV float expMixed(int element, float x) {
  return exp2Mixed<kEvery>(element, x * kLog2e);
}
template <int kEvery> METAATTN_DEV float expSubMixed(int element, float a, float b) {
  return exp2Mixed<kEvery>(element, fmaf(a, kLog2e, -(b * kLog2e)));
}
template <int kEvery> METAATTN_DEV float expSubScaledMixed(int element, float x, float k, float b) {
  return exp2Mixed<kEvery>(element, fmaf(x, k * kLog2e, -(b * kLog2e)));
}

/// Natural log as log2Approx(x) * ln2 (same error as log2Approx, times ln2,
/// plus one rounding); log(0) == -inf, log(x < 0) == NaN.
METAATTN_DEV float log(float x) { return log2Approx(x) * kLn2; }

/// tanh with `tanh.approx.f32` (sm_75+): maximum relative error about 2^-11.
METAATTN_DEV float tanh(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

/// The logistic function 1 / (1 + e^-x) as 0.5 + 0.5·tanh(x / 2): one `tanh.approx.f32`
/// instead of an ex2 and a reciprocal (two special-function ops). Absolute error at most
/// 2^-12 (tanh's 2^-11 relative error, halved), below bf16's rounding for results above 1/8;
/// sigmoid(+inf) == 1, sigmoid(-inf) == 0.
METAATTN_DEV float sigmoid(float x) { return fmaf(0.5f, tanh(0.5f * x), 0.5f); }

/// max that never returns NaN when one operand is a number (fmaxf semantics,
/// one FMNMX instruction); max(-inf, -inf) == -inf.
METAATTN_DEV float max(float a, float b) { return fmaxf(a, b); }
METAATTN_DEV float min(float a, float b) { return fminf(a, b); }

} // namespace dev
} // namespace metaattn
