//===- SplitIndexCasts.cpp - tile-split-index-casts -------------------------===//
//
// A score that uses a position as a number (ALiBi's slope times q - k, RetNet's decay to the
// power q - k) converts an integer to float in every element: an integer add and a conversion
// per element, where the integer is a block-wide position plus the element's offset in the
// tile. Converting the two parts separately and adding them in float leaves one conversion per
// tile and a float add per distinct offset: the offsets are compile-time constants once the
// emitter unrolls the element loop, and equal offsets share one add.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <optional>

namespace metaattn::tile {
#define GEN_PASS_DEF_TILESPLITINDEXCASTS
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// An integer as a sum of terms times integer coefficients plus a constant: the terms of
/// `invariant` are the same for every element of the loop, those of `element` are its
/// induction variables.
struct Linear {
  SmallVector<std::pair<Value, int64_t>> invariant;
  SmallVector<std::pair<Value, int64_t>> element;
  int64_t constant = 0;
};

/// Adds `coefficient` times `value` to `form`; false when `value` is not such a sum (a product
/// of two varying values, a load, a division).
bool decompose(Value value, int64_t coefficient, ParallelOp par, Linear &form,
               llvm::DenseMap<Value, unsigned> &memo) {
  if (auto arg = dyn_cast<BlockArgument>(value); arg && arg.getOwner() == &par.getBody().front()) {
    form.element.push_back({value, coefficient});
    return true;
  }
  if (std::optional<int64_t> c = getConstantIntValue(value)) {
    form.constant += coefficient * *c;
    return true;
  }
  if (!par->isAncestor(value.getParentRegion()->getParentOp())) {
    form.invariant.push_back({value, coefficient});
    return true;
  }
  Operation *op = value.getDefiningOp();
  if (auto add = dyn_cast_if_present<arith::AddIOp>(op))
    return decompose(add.getLhs(), coefficient, par, form, memo) &&
           decompose(add.getRhs(), coefficient, par, form, memo);
  if (auto sub = dyn_cast_if_present<arith::SubIOp>(op))
    return decompose(sub.getLhs(), coefficient, par, form, memo) &&
           decompose(sub.getRhs(), -coefficient, par, form, memo);
  if (auto mul = dyn_cast_if_present<arith::MulIOp>(op)) {
    for (auto [factor, other] :
         {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())})
      if (std::optional<int64_t> c = getConstantIntValue(factor))
        return decompose(other, coefficient * *c, par, form, memo);
  }
  // Index casts sign-extend or truncate; positions fit either width.
  if (auto cast = dyn_cast_if_present<arith::IndexCastOp>(op))
    return decompose(cast.getIn(), coefficient, par, form, memo);
  // A term the same for every element (tile-hoist-axis-reads' analysis).
  if (parallelAxes(value, par, memo) != 0u)
    return false;
  form.invariant.push_back({value, coefficient});
  return true;
}

/// The sum of `terms` times their coefficients plus `constant`, as an index.
Value sum(ArrayRef<std::pair<Value, int64_t>> terms, int64_t constant, OpBuilder &b, Location loc) {
  Value total;
  for (auto [term, coefficient] : terms) {
    Value v = term;
    if (!v.getType().isIndex())
      v = b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
    bool negate = coefficient < 0;
    int64_t magnitude = negate ? -coefficient : coefficient;
    if (magnitude != 1)
      v = b.create<arith::MulIOp>(loc, v, b.create<arith::ConstantIndexOp>(loc, magnitude));
    if (!total)
      total =
          negate ? b.create<arith::SubIOp>(loc, b.create<arith::ConstantIndexOp>(loc, 0), v) : v;
    else
      total = negate ? b.create<arith::SubIOp>(loc, total, v).getResult()
                     : b.create<arith::AddIOp>(loc, total, v).getResult();
  }
  if (!total)
    return b.create<arith::ConstantIndexOp>(loc, constant);
  if (constant != 0)
    total = b.create<arith::AddIOp>(loc, total, b.create<arith::ConstantIndexOp>(loc, constant));
  return total;
}

/// `index` converted to the float type of `cast` as `cast` converts its integer.
Value toFloat(Value index, arith::SIToFPOp cast, OpBuilder &b) {
  Location loc = cast.getLoc();
  Value integer = b.create<arith::IndexCastOp>(loc, cast.getIn().getType(), index);
  return b.create<arith::SIToFPOp>(loc, cast.getType(), integer);
}

/// The parts of `par`'s induction variable `arg` (one tile.index_parts per variable, at the
/// start of the body).
IndexPartsOp partsOf(BlockArgument arg, ParallelOp par) {
  Block &body = par.getBody().front();
  for (Operation &op : body)
    if (auto parts = dyn_cast<IndexPartsOp>(op); parts && parts.getIndex() == arg)
      return parts;
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  return b.create<IndexPartsOp>(par.getLoc(), b.getIndexType(), b.getIndexType(), arg);
}

/// Whether the conversion of `value` would split: a sum of block-wide terms and induction
/// variables with both present.
bool splits(Value value, ParallelOp par, llvm::DenseMap<Value, unsigned> &memo) {
  Linear form;
  return decompose(value, 1, par, form, memo) && !form.element.empty() && !form.invariant.empty();
}

/// `cast` of max(a, b) or min(a, b) (through index casts) where a or b splits: replaced by
/// the maximum or minimum of the conversions of a and b, which are returned (empty when
/// nothing changed). Exact: the conversion is monotone.
SmallVector<arith::SIToFPOp, 2> splitClamp(arith::SIToFPOp cast, ParallelOp par,
                                           llvm::DenseMap<Value, unsigned> &memo) {
  Value value = cast.getIn();
  while (auto inner = value.getDefiningOp<arith::IndexCastOp>())
    value = inner.getIn();
  Operation *clamp = value.getDefiningOp();
  if (!isa_and_present<arith::MaxSIOp, arith::MinSIOp>(clamp) ||
      !par->isAncestor(clamp->getParentRegion()->getParentOp()) ||
      llvm::none_of(clamp->getOperands(), [&](Value side) { return splits(side, par, memo); }))
    return {};
  OpBuilder b(cast);
  Location loc = cast.getLoc();
  SmallVector<arith::SIToFPOp, 2> sides;
  for (Value side : clamp->getOperands()) {
    Value integer = side;
    if (integer.getType() != cast.getIn().getType())
      integer = b.create<arith::IndexCastOp>(loc, cast.getIn().getType(), side);
    sides.push_back(b.create<arith::SIToFPOp>(loc, cast.getType(), integer));
  }
  Value clamped = isa<arith::MaxSIOp>(clamp)
                      ? b.create<arith::MaximumFOp>(loc, sides[0], sides[1]).getResult()
                      : b.create<arith::MinimumFOp>(loc, sides[0], sides[1]).getResult();
  cast.replaceAllUsesWith(clamped);
  cast.erase();
  return sides;
}

struct TileSplitIndexCastsPass
    : public metaattn::tile::impl::TileSplitIndexCastsBase<TileSplitIndexCastsPass> {
  void runOnOperation() override {
    SmallVector<arith::SIToFPOp> casts;
    // Only a loop whose threads own its indices through a fragment has per-thread parts; a
    // strided loop's would be the whole index.
    getOperation().walk([&](arith::SIToFPOp cast) {
      auto par = cast->getParentOfType<ParallelOp>();
      if (par && getParallelAnchor(par) && (cast.getType().isF32() || cast.getType().isF64()))
        casts.push_back(cast);
    });
    while (!casts.empty()) {
      arith::SIToFPOp cast = casts.pop_back_val();
      auto par = cast->getParentOfType<ParallelOp>();
      llvm::DenseMap<Value, unsigned> memo;
      // A clamped position (RetNet's max(q - k, 0)): the conversion is monotone, so it
      // converts each side and clamps in float, and each side splits in turn.
      if (SmallVector<arith::SIToFPOp, 2> sides = splitClamp(cast, par, memo); !sides.empty()) {
        casts.append(sides.begin(), sides.end());
        continue;
      }
      Linear form;
      if (!decompose(cast.getIn(), 1, par, form, memo) || form.element.empty() ||
          form.invariant.empty())
        continue;
      Location loc = cast.getLoc();
      // The block-wide terms are summed in front of the loop when they are all defined there.
      bool above = llvm::all_of(form.invariant, [&](auto term) {
        return !par->isAncestor(term.first.getParentRegion()->getParentOp());
      });
      OpBuilder outer(above ? par.getOperation() : cast.getOperation());
      Value blockWide = sum(form.invariant, 0, outer, loc);
      // Each induction variable's per-thread part joins the block-wide sum; its part per
      // element stays (a constant once unrolled).
      SmallVector<std::pair<Value, int64_t>> perThread{{blockWide, 1}}, perElement;
      for (auto [arg, coefficient] : form.element) {
        IndexPartsOp parts = partsOf(llvm::cast<BlockArgument>(arg), par);
        perThread.push_back({parts.getThread(), coefficient});
        perElement.push_back({parts.getElement(), coefficient});
      }
      OpBuilder here(cast);
      Value base = toFloat(sum(perThread, 0, here, loc), cast, here);
      Value offset = toFloat(sum(perElement, form.constant, here, loc), cast, here);
      cast.replaceAllUsesWith(here.create<arith::AddFOp>(loc, base, offset).getResult());
      cast.erase();
    }
  }
};

} // namespace
