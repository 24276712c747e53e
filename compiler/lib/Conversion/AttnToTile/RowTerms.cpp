//===- RowTerms.cpp - a score's additive term of the query row alone ---------===//
//
// See RowTerms.h. The analysis tracks, for each value of the score region, whether it depends
// on the score, the query row or the key position, then checks that the yielded value is a sum
// whose query-dependent part is linear in q with coefficients free of all three.
//
//===----------------------------------------------------------------------===//

#include "RowTerms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace metaattn;

namespace {
enum Dep : unsigned { kS = 1, kQ = 2, kKv = 4, kIn = 8 };
constexpr unsigned kScoreArg = 0;
/// Region argument index of an index argument (after the score).
unsigned argOf(attn::IndexArg a) { return 1 + static_cast<unsigned>(a); }
} // namespace

std::optional<RowTermSplit>
RowTermSplit::analyse(Region &score, ArrayRef<SmallVector<attn::InputAxis>> inputAxes) {
  if (!score.hasOneBlock())
    return std::nullopt;
  Block &block = score.front();
  unsigned numFixed = 1 + attn::kNumIndexArgs;
  if (block.getNumArguments() != numFixed + inputAxes.size())
    return std::nullopt;
  RowTermSplit split(score);
  split.deps[block.getArgument(kScoreArg)] = kS;
  split.deps[block.getArgument(argOf(attn::IndexArg::Q))] = kQ;
  split.deps[block.getArgument(argOf(attn::IndexArg::KV))] = kKv;
  for (auto [i, axes] : llvm::enumerate(inputAxes)) {
    unsigned d = 0;
    if (attn::hasInputDim(axes, attn::InputDim::Q))
      d |= kIn | kQ;
    if (attn::hasInputDim(axes, attn::InputDim::KV))
      d |= kIn | kKv;
    split.deps[block.getArgument(numFixed + i)] = d;
  }
  for (Operation &op : block) {
    unsigned d = 0;
    for (Value operand : op.getOperands())
      d |= split.deps.lookup(operand);
    // Values computed inside nested regions are not followed: count them as everything.
    if (op.getNumRegions() != 0)
      d |= kS | kQ | kKv | kIn;
    for (Value result : op.getResults())
      split.deps[result] = d;
  }
  if (block.getTerminator()->getNumOperands() != 1)
    return std::nullopt;
  Value yielded = block.getTerminator()->getOperand(0);
  if (!(split.deps.lookup(yielded) & kQ) || !split.separable(yielded))
    return std::nullopt;
  return split;
}

bool RowTermSplit::separable(Value v) {
  unsigned d = deps.lookup(v);
  if (!(d & kQ))
    return true;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getArgNumber() == argOf(attn::IndexArg::Q);
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Operation *op = v.getDefiningOp();
  auto invariant = [&](Value x) { return deps.lookup(x) == 0; };
  bool result = false;
  if (isa<arith::AddFOp, arith::SubFOp, arith::AddIOp, arith::SubIOp>(op))
    result = separable(op->getOperand(0)) && separable(op->getOperand(1));
  else if (isa<arith::NegFOp, arith::SIToFPOp, arith::IndexCastOp, arith::ExtSIOp, arith::ExtFOp>(
               op))
    result = separable(op->getOperand(0));
  else if (isa<arith::MulFOp, arith::MulIOp>(op))
    result = (invariant(op->getOperand(0)) && separable(op->getOperand(1))) ||
             (invariant(op->getOperand(1)) && separable(op->getOperand(0)));
  else if (isa<arith::DivFOp>(op))
    result = invariant(op->getOperand(1)) && separable(op->getOperand(0));
  memo[v] = result;
  return result;
}

Value RowTermSplit::cloneInvariant(OpBuilder &b, Value v, function_ref<Value(unsigned)> arg,
                                   IRMapping &mapping) const {
  if (Value mapped = mapping.lookupOrNull(v))
    return mapped;
  if (auto blockArg = dyn_cast<BlockArgument>(v)) {
    Value value = arg(blockArg.getArgNumber());
    mapping.map(v, value);
    return value;
  }
  Operation *op = v.getDefiningOp();
  for (Value operand : op->getOperands())
    cloneInvariant(b, operand, arg, mapping);
  b.clone(*op, mapping);
  return mapping.lookup(v);
}

/// G's part of `v` (null where it has none), built at `b`'s insertion point.
Value RowTermSplit::emit(OpBuilder &b, Location loc, Value v, function_ref<Value(unsigned)> arg,
                         IRMapping &mapping) const {
  if (!(deps.lookup(v) & kQ))
    return Value();
  if (isa<BlockArgument>(v))
    return arg(argOf(attn::IndexArg::Q));
  Operation *op = v.getDefiningOp();
  auto part = [&](unsigned i) { return emit(b, loc, op->getOperand(i), arg, mapping); };
  auto zeroLike = [&](Value x) {
    return b.create<arith::ConstantOp>(loc, b.getZeroAttr(x.getType())).getResult();
  };
  if (isa<arith::AddFOp, arith::AddIOp, arith::SubFOp, arith::SubIOp>(op)) {
    Value x = part(0), y = part(1);
    if (!y)
      return x;
    if (!x && isa<arith::AddFOp, arith::AddIOp>(op))
      return y;
    if (!x && isa<arith::SubFOp>(op))
      return b.create<arith::NegFOp>(loc, y);
    if (!x)
      x = zeroLike(y);
    IRMapping operands;
    operands.map(op->getOperand(0), x);
    operands.map(op->getOperand(1), y);
    return b.clone(*op, operands)->getResult(0);
  }
  if (isa<arith::MulFOp, arith::MulIOp, arith::DivFOp>(op)) {
    // One operand is free of s, q and kv (separable): that one is cloned, the other split.
    unsigned split = deps.lookup(op->getOperand(0)) & kQ ? 0 : 1;
    IRMapping operands;
    operands.map(op->getOperand(split), part(split));
    operands.map(op->getOperand(1 - split),
                 cloneInvariant(b, op->getOperand(1 - split), arg, mapping));
    return b.clone(*op, operands)->getResult(0);
  }
  // Negation and conversions of the one operand.
  IRMapping operands;
  operands.map(op->getOperand(0), part(0));
  return b.clone(*op, operands)->getResult(0);
}

Value RowTermSplit::emitRowTerm(OpBuilder &b, Location loc,
                                function_ref<Value(unsigned)> arg) const {
  IRMapping mapping;
  return emit(b, loc, score->front().getTerminator()->getOperand(0), arg, mapping);
}
