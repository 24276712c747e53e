//===- MaskedWeights.cpp - do masked scores need a second mask test ----------===//
//
// A kernel whose shift is the score itself stores masked scores as -inf. Where the weights'
// elementwise region then yields 0 on its own (softmax: exp(-inf - m) = 0), the weights loop
// needs no second evaluation of the mask. This decides it by evaluating the region on an
// abstract score of -inf and a finite shift.
//
//===----------------------------------------------------------------------===//

#include "MaskIntervals.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace {

/// What is known of a value when the score is -inf and the shift finite.
enum class Known { unknown, negInf, posInf, finite, zero };

/// A float constant's sign: +1, -1, or 0 when it is not a finite nonzero constant.
int constantSign(Value value) {
  FloatAttr attr;
  if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    attr = dyn_cast<FloatAttr>(constant.getValue());
  if (!attr || !attr.getValue().isFinite() || attr.getValue().isZero())
    return 0;
  return attr.getValue().isNegative() ? -1 : 1;
}

Known evaluate(Operation *op, llvm::DenseMap<Value, Known> &known) {
  auto at = [&](unsigned i) {
    auto it = known.find(op->getOperand(i));
    return it == known.end() ? Known::unknown : it->second;
  };
  auto isFinite = [](Known k) { return k == Known::finite || k == Known::zero; };
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto attr = dyn_cast<FloatAttr>(constant.getValue());
    if (!attr || !attr.getValue().isFinite())
      return Known::unknown;
    return attr.getValue().isZero() ? Known::zero : Known::finite;
  }
  if (isa<arith::SubFOp>(op)) {
    if (at(0) == Known::negInf && isFinite(at(1)))
      return Known::negInf;
    if (isFinite(at(0)) && at(1) == Known::posInf)
      return Known::negInf;
    return Known::unknown;
  }
  if (isa<arith::AddFOp>(op)) {
    if ((at(0) == Known::negInf && isFinite(at(1))) || (isFinite(at(0)) && at(1) == Known::negInf))
      return Known::negInf;
    return Known::unknown;
  }
  if (isa<arith::MulFOp, arith::DivFOp>(op)) {
    // -inf times (or over) a constant of known sign.
    bool mul = isa<arith::MulFOp>(op);
    for (unsigned i : {0u, 1u}) {
      if (!mul && i == 1)
        break;
      int sign = constantSign(op->getOperand(1 - i));
      if (at(i) == Known::negInf && sign != 0)
        return sign > 0 ? Known::negInf : Known::posInf;
    }
    return Known::unknown;
  }
  if (isa<arith::NegFOp>(op))
    return at(0) == Known::negInf ? Known::posInf : Known::unknown;
  if (isa<math::ExpOp, math::Exp2Op>(op))
    return at(0) == Known::negInf ? Known::zero : Known::unknown;
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(op))
    return at(0) == Known::negInf || at(1) == Known::negInf ? Known::negInf : Known::unknown;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op)) {
    if (at(0) == Known::negInf)
      return at(1);
    if (at(1) == Known::negInf)
      return at(0);
    return Known::unknown;
  }
  if (isa<arith::SelectOp>(op))
    return at(1) == at(2) ? at(1) : Known::unknown;
  return Known::unknown;
}

} // namespace

bool metaattn::weightsVanishOnMaskedScores(Region &elementwise) {
  Block &block = elementwise.front();
  if (block.getNumArguments() < 2)
    return false;
  llvm::DenseMap<Value, Known> known;
  known[block.getArgument(0)] = Known::negInf; // the score, masked
  known[block.getArgument(1)] = Known::finite; // the shift: a row maximum, 0 on empty rows
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      return op.getNumOperands() > 0 && llvm::all_of(op.getOperands(), [&](Value v) {
               auto it = known.find(v);
               return it != known.end() && it->second == Known::zero;
             });
    if (op.getNumResults() == 1)
      known[op.getResult(0)] = evaluate(&op, known);
  }
  return false;
}
