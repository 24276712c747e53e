//===- MaskAnalysis.cpp - affine kv bounds of attention masks ---------------===//
//
// attn-mask-analysis: reads a mask region as a conjunction of comparisons and records the
// affine kv bounds it implies, so the tiler can skip empty tiles and leave full tiles
// unmasked without building any mask tensor at run time. A disjunction of two masks bounds kv
// by the larger of their upper bounds (the smaller of their lower ones): a prefix-LM mask,
// kv <= q or kv < p, keeps its kv loop within max(q, p - 1).
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Attn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

namespace metaattn::attn {
#define GEN_PASS_DEF_ATTNMASKANALYSIS
#include "metaattn/Dialect/Attn/Transforms/Passes.h.inc"
} // namespace metaattn::attn

using namespace mlir;
using namespace metaattn::attn;

namespace {

/// A linear form cq·q + ckv·kv + csq·sq + cskv·skv + c over the mask's index arguments.
struct Affine {
  int64_t cq = 0, ckv = 0, csq = 0, cskv = 0, c = 0;
  Affine operator+(const Affine &o) const {
    return {cq + o.cq, ckv + o.ckv, csq + o.csq, cskv + o.cskv, c + o.c};
  }
  Affine scaled(int64_t k) const { return {cq * k, ckv * k, csq * k, cskv * k, c * k}; }
  bool isConstant() const { return !cq && !ckv && !csq && !cskv; }
};

/// Expresses `value` as an affine form of the mask's index arguments, if it is one.
std::optional<Affine> getAffine(Value value, Block &block) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() != &block)
      return std::nullopt;
    Affine a;
    switch (static_cast<IndexArg>(arg.getArgNumber())) {
    case IndexArg::Q:
      a.cq = 1;
      return a;
    case IndexArg::KV:
      a.ckv = 1;
      return a;
    case IndexArg::SQ:
      a.csq = 1;
      return a;
    case IndexArg::SKV:
      a.cskv = 1;
      return a;
    default:
      return std::nullopt; // b, h and custom inputs are not affine bounds
    }
  }
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    Affine a;
    a.c = constant.getSExtValue();
    return a;
  }
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (auto cast = dyn_cast<arith::IndexCastOp>(op))
    return getAffine(cast.getIn(), block);
  if (op->getNumOperands() != 2)
    return std::nullopt;
  auto lhs = getAffine(op->getOperand(0), block);
  auto rhs = getAffine(op->getOperand(1), block);
  if (!lhs || !rhs)
    return std::nullopt;
  if (isa<arith::AddIOp>(op))
    return *lhs + *rhs;
  if (isa<arith::SubIOp>(op))
    return *lhs + rhs->scaled(-1);
  if (isa<arith::MulIOp>(op)) {
    if (lhs->isConstant())
      return rhs->scaled(lhs->c);
    if (rhs->isConstant())
      return lhs->scaled(rhs->c);
  }
  return std::nullopt;
}

/// Adds the bound of one comparison conjunct (of its negation when `negated`); returns false
/// when it gives no exact bound.
bool addComparison(arith::CmpIOp cmp, Block &block, MaskInfo &info, bool negated) {
  auto lhs = getAffine(cmp.getLhs(), block);
  auto rhs = getAffine(cmp.getRhs(), block);
  if (!lhs || !rhs)
    return false;
  // Bring every predicate to the form `form <= 0`.
  Affine diff = *lhs + rhs->scaled(-1);
  Affine form;
  arith::CmpIPredicate predicate = cmp.getPredicate();
  if (negated)
    predicate = arith::invertPredicate(predicate);
  switch (predicate) {
  case arith::CmpIPredicate::sle:
    form = diff;
    break;
  case arith::CmpIPredicate::slt:
    form = diff;
    form.c += 1;
    break;
  case arith::CmpIPredicate::sge:
    form = diff.scaled(-1);
    break;
  case arith::CmpIPredicate::sgt:
    form = diff.scaled(-1);
    form.c += 1;
    break;
  default:
    return false; // unsigned and (in)equality predicates give no interval
  }
  if (form.ckv != 1 && form.ckv != -1)
    return false;
  // kv·ckv + rest <= 0.
  Affine rest = form;
  rest.ckv = 0;
  KvBound bound;
  if (form.ckv == 1) { // kv <= -rest
    rest = rest.scaled(-1);
    bound.upper = true;
  } else { // kv >= rest
    bound.upper = false;
  }
  bound.cq = rest.cq;
  bound.csq = rest.csq;
  bound.cskv = rest.cskv;
  bound.c = rest.c;
  info.bounds.push_back(bound);
  return true;
}

bool collect(Value cond, Block &block, MaskInfo &info, bool negated = false);

/// One constraint of `bounds` in direction `upper` (a group of alternatives), for the union
/// of two masks: any of a mask's constraints bounds it (the others only narrow it further),
/// and one that moves with the query row is kept where there is one. Empty when none.
SmallVector<KvBound, 2> pickGroup(ArrayRef<KvBound> bounds, bool upper) {
  SmallVector<SmallVector<KvBound, 2>> groups = groupMaskBounds(bounds);
  SmallVector<KvBound, 2> picked;
  for (const SmallVector<KvBound, 2> &group : groups) {
    if (group.front().upper != upper)
      continue;
    bool moves = llvm::any_of(group, [](const KvBound &b) { return b.cq != 0; });
    if (picked.empty() || moves)
      picked = group;
    if (moves)
      break;
  }
  return picked;
}

/// The bounds of `lhs || rhs` (of `!lhs || !rhs` when `negated`): in each direction where both
/// masks have one, kv lies within the wider of the two; never exact.
void collectUnion(Value lhs, Value rhs, Block &block, MaskInfo &info, bool negated) {
  MaskInfo left, right;
  collect(lhs, block, left, negated);
  collect(rhs, block, right, negated);
  for (bool upper : {true, false}) {
    SmallVector<KvBound, 2> a = pickGroup(left.bounds, upper);
    SmallVector<KvBound, 2> b = pickGroup(right.bounds, upper);
    if (a.empty() || b.empty())
      continue; // one side leaves kv unbounded this way
    for (auto [i, bound] : llvm::enumerate(llvm::concat<KvBound>(a, b))) {
      KvBound alternative = bound;
      alternative.orPrevious = i != 0;
      info.bounds.push_back(alternative);
    }
  }
}

/// Walks a conjunction (of the negation of `cond` when `negated`, through De Morgan's laws and
/// `xori` with true); returns false when some conjunct is not an exact affine bound.
bool collect(Value cond, Block &block, MaskInfo &info, bool negated) {
  if (matchPattern(cond, negated ? m_Zero() : m_One()))
    return true;
  if (auto andOp = cond.getDefiningOp<arith::AndIOp>()) {
    if (negated) {
      collectUnion(andOp.getLhs(), andOp.getRhs(), block, info, negated);
      return false;
    }
    bool lhsExact = collect(andOp.getLhs(), block, info, negated);
    bool rhsExact = collect(andOp.getRhs(), block, info, negated);
    return lhsExact && rhsExact;
  }
  if (auto orOp = cond.getDefiningOp<arith::OrIOp>()) {
    if (negated) {
      bool lhsExact = collect(orOp.getLhs(), block, info, negated);
      bool rhsExact = collect(orOp.getRhs(), block, info, negated);
      return lhsExact && rhsExact;
    }
    collectUnion(orOp.getLhs(), orOp.getRhs(), block, info, negated);
    return false;
  }
  if (auto xorOp = cond.getDefiningOp<arith::XOrIOp>()) {
    for (auto [operand, other] :
         {std::pair(xorOp.getLhs(), xorOp.getRhs()), std::pair(xorOp.getRhs(), xorOp.getLhs())})
      if (matchPattern(other, m_One()))
        return collect(operand, block, info, !negated);
    return false;
  }
  if (auto cmp = cond.getDefiningOp<arith::CmpIOp>())
    return addComparison(cmp, block, info, negated);
  return false;
}

template <typename OpTy> void annotate(OpTy op) {
  MaskInfo info = analyzeMask(op.getMask());
  SmallVector<int64_t> encoded;
  for (const KvBound &b : info.bounds)
    encoded.append({(b.upper ? 0 : 1) + (b.orPrevious ? 2 : 0), b.cq, b.csq, b.cskv, b.c});
  Builder builder(op.getContext());
  op.setMaskBoundsAttr(builder.getDenseI64ArrayAttr(encoded));
  op.setMaskExact(info.exact);
}

struct AttnMaskAnalysisPass
    : public metaattn::attn::impl::AttnMaskAnalysisBase<AttnMaskAnalysisPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto attention = dyn_cast<AttentionOp>(op))
        annotate(attention);
      else if (auto online = dyn_cast<OnlineAttentionOp>(op))
        annotate(online);
    });
  }
};

} // namespace

MaskInfo metaattn::attn::analyzeMask(Region &mask) {
  MaskInfo info;
  Block &block = mask.front();
  auto yield = cast<YieldOp>(block.getTerminator());
  info.exact = collect(yield.getValues().front(), block, info);
  return info;
}

SmallVector<KvBound> metaattn::attn::decodeMaskBounds(ArrayRef<int64_t> encoded) {
  SmallVector<KvBound> bounds;
  for (size_t i = 0; i + 5 <= encoded.size(); i += 5)
    bounds.push_back({encoded[i] % 2 == 0, encoded[i + 1], encoded[i + 2], encoded[i + 3],
                      encoded[i + 4], encoded[i] >= 2});
  return bounds;
}

SmallVector<SmallVector<KvBound, 2>> metaattn::attn::groupMaskBounds(ArrayRef<KvBound> bounds) {
  SmallVector<SmallVector<KvBound, 2>> groups;
  for (const KvBound &bound : bounds) {
    if (bound.orPrevious && !groups.empty() && groups.back().front().upper == bound.upper)
      groups.back().push_back(bound);
    else
      groups.push_back({bound});
  }
  return groups;
}
