//===- ScoreRange.cpp - the interval a score function can yield --------------===//
//
// Interval arithmetic over a score region: the dot product, custom inputs and converted
// indices may be anything, constants are themselves, and tanh, erf, exp, sums, products,
// quotients by intervals without 0, minima, maxima and selects carry the bounds through. A
// soft cap's c·tanh(s·k) lies in [−c, c] whatever s is.
//
//===----------------------------------------------------------------------===//

#include "MaskIntervals.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using Range = metaattn::FloatRange;

Range unbounded() { return Range{-kInf, kInf}; }

/// x·y over the reals, where a zero factor wins over an infinite one (the values are real
/// numbers; only the bounds are infinite).
double product(double x, double y) {
  if (x == 0.0 || y == 0.0)
    return 0.0;
  return x * y;
}

Range times(Range a, Range b) {
  double candidates[] = {product(a.lo, b.lo), product(a.lo, b.hi), product(a.hi, b.lo),
                         product(a.hi, b.hi)};
  return Range{*std::min_element(std::begin(candidates), std::end(candidates)),
               *std::max_element(std::begin(candidates), std::end(candidates))};
}

class Analysis {
public:
  explicit Analysis(Block &block) : block(block) {}

  Range of(Value v) {
    if (auto it = known.find(v); it != known.end())
      return it->second;
    Range r = compute(v);
    if (std::isnan(r.lo) || std::isnan(r.hi))
      r = unbounded();
    known[v] = r;
    return r;
  }

private:
  Range compute(Value v) {
    Operation *def = v.getDefiningOp();
    // The dot product, custom inputs and anything defined outside the region.
    if (!def || def->getBlock() != &block || !isa<FloatType>(v.getType()))
      return unbounded();
    FloatAttr constant;
    if (matchPattern(v, m_Constant(&constant))) {
      double c = constant.getValueAsDouble();
      return std::isfinite(c) ? Range{c, c} : unbounded();
    }
    auto at = [&](unsigned i) { return of(def->getOperand(i)); };
    if (isa<math::TanhOp, math::ErfOp>(def)) {
      Range x = at(0);
      double (*f)(double) = isa<math::TanhOp>(def) ? static_cast<double (*)(double)>(std::tanh)
                                                   : static_cast<double (*)(double)>(std::erf);
      return Range{f(x.lo), f(x.hi)};
    }
    if (isa<math::ExpOp>(def))
      return Range{std::exp(at(0).lo), std::exp(at(0).hi)};
    if (isa<math::Exp2Op>(def))
      return Range{std::exp2(at(0).lo), std::exp2(at(0).hi)};
    if (isa<arith::NegFOp>(def))
      return Range{-at(0).hi, -at(0).lo};
    if (isa<math::AbsFOp>(def)) {
      Range x = at(0);
      if (x.lo >= 0)
        return x;
      if (x.hi <= 0)
        return Range{-x.hi, -x.lo};
      return Range{0.0, std::max(-x.lo, x.hi)};
    }
    if (isa<arith::AddFOp>(def))
      return Range{at(0).lo + at(1).lo, at(0).hi + at(1).hi};
    if (isa<arith::SubFOp>(def))
      return Range{at(0).lo - at(1).hi, at(0).hi - at(1).lo};
    if (isa<arith::MulFOp>(def))
      return times(at(0), at(1));
    if (isa<arith::DivFOp>(def)) {
      Range d = at(1);
      if (d.lo <= 0 && d.hi >= 0)
        return unbounded();
      return times(at(0), Range{1.0 / d.hi, 1.0 / d.lo});
    }
    if (isa<arith::MaximumFOp, arith::MaxNumFOp>(def))
      return Range{std::max(at(0).lo, at(1).lo), std::max(at(0).hi, at(1).hi)};
    if (isa<arith::MinimumFOp, arith::MinNumFOp>(def))
      return Range{std::min(at(0).lo, at(1).lo), std::min(at(0).hi, at(1).hi)};
    if (isa<arith::SelectOp>(def))
      return Range{std::min(at(1).lo, at(2).lo), std::max(at(1).hi, at(2).hi)};
    // A narrower float rounds to nearest: at most half an ulp of its format out, which the
    // caller's margin covers for the formats that scores use (f32, bf16, f16).
    if (isa<arith::ExtFOp, arith::TruncFOp>(def))
      return at(0);
    return unbounded();
  }

  Block &block;
  llvm::DenseMap<Value, Range> known;
};

} // namespace

std::optional<metaattn::FloatRange> metaattn::scoreRange(Region &score) {
  Block &block = score.front();
  Value yielded = block.getTerminator()->getOperand(0);
  Range r = Analysis(block).of(yielded);
  if (!std::isfinite(r.lo) || !std::isfinite(r.hi))
    return std::nullopt;
  // The device computes in f32 (tanh.approx, ex2.approx): a relative margin of 2^-8 of the
  // bounds' magnitude covers its rounding and the approximations' errors.
  double margin = std::ldexp(std::max(std::abs(r.lo), std::abs(r.hi)), -8) + 1e-6;
  return FloatRange{r.lo - margin, r.hi + margin};
}
