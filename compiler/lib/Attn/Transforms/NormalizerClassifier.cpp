//===- NormalizerClassifier.cpp - streaming analysis of normalisers ---------===//
//
// The rescaling principle (DESIGN.md): O_i = (Σ_j w_ij V_j) / Z_i can be computed in one pass
// over kv when every per-element quantity that is summed scales by a known power of e^{-m}
// when the running row maximum m moves. This file assigns each value of the normaliser region
// its degree, or rejects the region naming the op that breaks the rule.
//
//===----------------------------------------------------------------------===//

#include "NormalizerClassifier.h"
#include "metaattn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace metaattn::attn;

namespace {

bool isZeroConstant(Value v) {
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

class Classifier {
public:
  explicit Classifier(AttentionOp op) : op(op) {}

  FailureOr<NormalizerPlan> run() {
    Block &block = op.getNormalizer().front();
    classifyArguments(block);
    for (Operation &inner : block.without_terminator())
      if (failed(classify(&inner)))
        return failure();
    auto normalize = cast<NormalizeOp>(block.getTerminator());
    plan.weight = normalize.getWeight();
    plan.denominator = normalize.getDenominator();
    const ValueClass &w = plan.classes[plan.weight];
    if (w.isRow || w.isShift || w.isExponent)
      return reject(normalize, "the weight must be a per-element value that does not depend "
                               "on a row sum; divide by row quantities in the denominator");
    const ValueClass &z = plan.classes[plan.denominator];
    if (z.perElement)
      return reject(normalize, "the denominator must be a per-row value (built from row "
                               "reductions, the row maximum and per-row inputs)");
    return std::move(plan);
  }

private:
  void classifyArguments(Block &block) {
    // (s, b, h, q, kv, sq, skv, inputs...)
    plan.classes[block.getArgument(0)].perElement = true;
    plan.classes[block.getArgument(1 + static_cast<unsigned>(IndexArg::KV))].perElement = true;
    for (unsigned i = 1; i <= kNumIndexArgs; ++i)
      plan.classes.try_emplace(block.getArgument(i));
    for (auto [i, attr] : llvm::enumerate(op.getInputDims())) {
      std::string error;
      auto dims = parseInputDims(cast<StringAttr>(attr).getValue(), error);
      ValueClass cls;
      cls.perElement = dims && hasInputDim(*dims, InputDim::KV);
      plan.classes[block.getArgument(1 + kNumIndexArgs + i)] = cls;
    }
  }

  FailureOr<NormalizerPlan> reject(Operation *at, const Twine &why) {
    InFlightDiagnostic diag = at->emitError()
                              << "normaliser cannot be streamed over kv tiles: " << why;
    diag.attachNote(op.getLoc()) << "in this attention";
    return failure();
  }

  LogicalResult fail(Operation *at, const Twine &why) {
    (void)reject(at, why);
    return failure();
  }

  LogicalResult classify(Operation *inner) {
    if (auto reduce = dyn_cast<RowReduceOp>(inner))
      return classifyReduction(reduce);
    SmallVector<ValueClass> in;
    for (Value operand : inner->getOperands())
      in.push_back(plan.classes.lookup(operand));
    ValueClass out;
    out.perElement = llvm::any_of(in, [](auto &c) { return c.perElement; });
    bool anyRow = llvm::any_of(in, [](auto &c) { return c.isRow; });
    bool anyShift = llvm::any_of(in, [](auto &c) { return c.isShift || c.isExponent; });

    if (anyRow) {
      if (out.perElement)
        return fail(inner, "a per-element value is combined with a row sum; only the "
                           "denominator may use row sums");
      out.isRow = true;
      return record(inner, out);
    }
    if (anyShift) {
      // max(m, c) with c per row and scale-free: the same streaming with the running maximum
      // started at c (a sink logit joining the maximum, for instance).
      if (isa<arith::MaximumFOp, arith::MaxNumFOp>(inner) && !out.perElement &&
          !plan.shiftWithInit) {
        for (unsigned i = 0; i < 2; ++i) {
          const ValueClass &m = in[i], &c = in[1 - i];
          if (!m.isShift || c.isShift || c.isExponent || c.degree != 0)
            continue;
          if (!plan.shift.getResult().hasOneUse())
            return fail(inner, "the row maximum is used both alone and as max(maximum, c); "
                               "use one of them");
          plan.shiftWithInit = inner;
          plan.shiftInit = inner->getOperand(1 - i);
          ValueClass shift;
          shift.isShift = true;
          return record(inner, shift);
        }
      }
      // Log-domain forms: y - m, -m, (y - m) ± y'.
      if (auto sub = dyn_cast<arith::SubFOp>(inner)) {
        const ValueClass &a = in[0], &b = in[1];
        if (b.isShift && !a.isShift && !a.isExponent && a.degree == 0)
          return recordExponent(inner, out.perElement, 1);
        if (a.isExponent && !b.isShift && !b.isExponent && b.degree == 0)
          return recordExponent(inner, out.perElement, a.degree);
      }
      if (auto add = dyn_cast<arith::AddFOp>(inner)) {
        const ValueClass &a = in[0], &b = in[1];
        if (a.isExponent && !b.isShift && !b.isExponent && b.degree == 0)
          return recordExponent(inner, out.perElement, a.degree);
        if (b.isExponent && !a.isShift && !a.isExponent && a.degree == 0)
          return recordExponent(inner, out.perElement, b.degree);
      }
      if (isa<arith::NegFOp>(inner) && in[0].isShift)
        return recordExponent(inner, false, 1);
      if (isa<math::ExpOp>(inner) && in[0].isExponent) {
        out.degree = in[0].degree;
        return record(inner, out);
      }
      if (!out.perElement) {
        // A per-row use of the maximum (e.g. the log-sum-exp): evaluated once per row.
        out.isRow = true;
        return record(inner, out);
      }
      return fail(inner, "the row maximum may only enter per-element values as exp(x - max)");
    }

    // Element algebra on values of known degree.
    if (isa<arith::MulFOp>(inner)) {
      out.degree = in[0].degree + in[1].degree;
      return record(inner, out);
    }
    if (isa<arith::DivFOp>(inner)) {
      out.degree = in[0].degree - in[1].degree;
      return record(inner, out);
    }
    if (isa<arith::AddFOp, arith::SubFOp, arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
            arith::MinNumFOp, arith::SelectOp, arith::CmpFOp>(inner)) {
      // Degree-preserving when every non-zero operand has one degree (max(x, 0) is
      // positively homogeneous). The condition of a select must be scale-free.
      unsigned first = isa<arith::SelectOp>(inner) ? 1 : 0;
      if (first == 1 && in[0].degree != 0)
        return fail(inner, "a select condition must not depend on the row maximum");
      std::optional<int64_t> degree;
      for (unsigned i = first; i < inner->getNumOperands(); ++i) {
        if (isZeroConstant(inner->getOperand(i)))
          continue;
        if (degree && *degree != in[i].degree)
          return fail(inner, "its operands scale differently with the row maximum (degrees " +
                                 Twine(*degree) + " and " + Twine(in[i].degree) +
                                 "), so their sum cannot be rescaled");
        degree = in[i].degree;
      }
      out.degree = isa<arith::CmpFOp>(inner) ? 0 : degree.value_or(0);
      return record(inner, out);
    }
    if (isa<math::AbsFOp, arith::NegFOp>(inner)) {
      out.degree = in[0].degree;
      return record(inner, out);
    }
    // Any other op must see only scale-free (degree 0) operands.
    for (auto [i, cls] : llvm::enumerate(in))
      if (cls.degree != 0)
        return fail(inner, "operand #" + Twine(i) +
                               " scales with the row maximum, and this op is not "
                               "homogeneous; apply it before subtracting the maximum");
    return record(inner, out);
  }

  LogicalResult classifyReduction(RowReduceOp reduce) {
    const ValueClass &in = plan.classes.lookup(reduce.getValue());
    if (in.isRow || in.isShift || in.isExponent)
      return fail(reduce, "a row reduction must reduce a per-element value");
    ValueClass out;
    if (reduce.getKind() == ReductionKind::max) {
      if (plan.shift)
        return fail(reduce, "only one row maximum can be streamed (the shift)");
      if (in.degree != 0)
        return fail(reduce, "the row maximum must be taken of a scale-free value");
      plan.shift = reduce;
      out.isShift = true;
      return record(reduce, out);
    }
    plan.accumulators.push_back(reduce);
    out.isRow = true;
    return record(reduce, out);
  }

  LogicalResult recordExponent(Operation *inner, bool perElement, int64_t degree) {
    ValueClass out;
    out.perElement = perElement;
    out.isExponent = true;
    out.degree = degree;
    return record(inner, out);
  }

  LogicalResult record(Operation *inner, const ValueClass &cls) {
    for (Value result : inner->getResults())
      plan.classes[result] = cls;
    return success();
  }

  AttentionOp op;
  NormalizerPlan plan;
};

} // namespace

FailureOr<NormalizerPlan> metaattn::attn::classifyNormalizer(AttentionOp op) {
  return Classifier(op).run();
}

LogicalResult metaattn::attn::checkStreamable(AttentionOp op) {
  return success(succeeded(classifyNormalizer(op)));
}
