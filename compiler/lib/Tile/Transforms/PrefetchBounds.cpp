//===- PrefetchBounds.cpp - tile-prefetch-bounds -----------------------------===//
//
// A kv tile's id bounds (tile.read_bounds over its keys) decide whether the tile's work runs,
// so their loads and warp reductions used to wait in front of it in every iteration. This
// pass computes the bounds of the next iteration behind the current iteration's async score
// gemm and carries them through the loop.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEPREFETCHBOUNDS
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// The ops of `loop`'s body that compute `bounds`'s operands from the induction variable and
/// values defined above the loop, in order; failure when one is not a pure op without regions
/// (so that it can be evaluated again for another iteration).
FailureOr<SmallVector<Operation *>> operandSlice(ReadBoundsOp bounds, scf::ForOp loop) {
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist(bounds->getOperands());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (value == loop.getInductionVar() ||
        !loop->isAncestor(value.getParentRegion()->getParentOp()))
      continue;
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != body || def->getNumRegions() != 0 || !isPure(def))
      return failure();
    if (slice.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// The first async gemm directly in `block`.
GemmOp firstAsyncGemm(Block &block) {
  for (Operation &op : block)
    if (auto gemm = dyn_cast<GemmOp>(op); gemm && gemm.getAsync())
      return gemm;
  return nullptr;
}

/// Reads the bounds again at the current insertion point, for the iteration whose induction
/// variable is `iv`.
std::pair<Value, Value> readAt(OpBuilder &b, ReadBoundsOp bounds, ArrayRef<Operation *> slice,
                               scf::ForOp loop, Value iv) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (Operation *op : slice)
    b.clone(*op, mapping);
  auto copy = cast<ReadBoundsOp>(b.clone(*bounds, mapping));
  return {copy.getMin(), copy.getMax()};
}

/// Rotates `bounds` one iteration ahead in `loop`, if the loop has the shape described in
/// Passes.td; returns whether it did.
bool prefetch(ReadBoundsOp bounds, scf::ForOp loop) {
  FailureOr<SmallVector<Operation *>> slice = operandSlice(bounds, loop);
  if (failed(slice))
    return false;
  scf::IfOp guard;
  for (Operation *op = bounds->getNextNode(); op && !guard; op = op->getNextNode())
    if (auto candidate = dyn_cast<scf::IfOp>(op); candidate && candidate->getNumResults() == 0 &&
                                                  firstAsyncGemm(candidate.getThenRegion().front()))
      guard = candidate;
  if (!guard)
    return false;
  Location loc = bounds.getLoc();
  Type type = bounds.getMin().getType();
  IRRewriter rewriter(loop.getContext());

  // The first iteration's bounds, in front of the loop.
  rewriter.setInsertionPoint(loop);
  auto [firstMin, firstMax] = readAt(rewriter, bounds, *slice, loop, loop.getLowerBound());

  // The guard yields the next iteration's bounds: read behind the score gemm, or at once
  // where the tile is skipped.
  rewriter.setInsertionPoint(guard);
  auto next = rewriter.create<scf::IfOp>(guard.getLoc(), TypeRange{type, type},
                                         guard.getCondition(), /*withElseRegion=*/true);
  rewriter.eraseBlock(&next.getThenRegion().front());
  rewriter.eraseBlock(&next.getElseRegion().front());
  rewriter.inlineRegionBefore(guard.getThenRegion(), next.getThenRegion(),
                              next.getThenRegion().end());
  if (guard.getElseRegion().empty()) {
    Block *block = rewriter.createBlock(&next.getElseRegion());
    rewriter.setInsertionPointToStart(block);
    rewriter.create<scf::YieldOp>(guard.getLoc());
  } else {
    rewriter.inlineRegionBefore(guard.getElseRegion(), next.getElseRegion(),
                                next.getElseRegion().end());
  }
  rewriter.eraseOp(guard);
  Value step = loop.getStep();
  auto nextIv = [&](OpBuilder &b) {
    return b.create<arith::AddIOp>(loc, loop.getInductionVar(), step).getResult();
  };
  GemmOp gemm = firstAsyncGemm(next.getThenRegion().front());
  rewriter.setInsertionPointAfter(gemm);
  auto [thenMin, thenMax] = readAt(rewriter, bounds, *slice, loop, nextIv(rewriter));
  Operation *thenYield = next.getThenRegion().front().getTerminator();
  rewriter.modifyOpInPlace(thenYield, [&] { thenYield->insertOperands(0, {thenMin, thenMax}); });
  Operation *elseYield = next.getElseRegion().front().getTerminator();
  rewriter.setInsertionPoint(elseYield);
  auto [elseMin, elseMax] = readAt(rewriter, bounds, *slice, loop, nextIv(rewriter));
  rewriter.modifyOpInPlace(elseYield, [&] { elseYield->insertOperands(0, {elseMin, elseMax}); });

  // The loop carries them: the body's bounds are the carried ones.
  Value nextMin = next.getResult(0), nextMax = next.getResult(1);
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{firstMin, firstMax}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return SmallVector<Value>{nextMin, nextMax};
      });
  if (failed(grown))
    return false;
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  unsigned n = newLoop.getRegionIterArgs().size();
  rewriter.replaceOp(
      bounds, ValueRange{newLoop.getRegionIterArgs()[n - 2], newLoop.getRegionIterArgs()[n - 1]});
  return true;
}

struct TilePrefetchBoundsPass
    : public metaattn::tile::impl::TilePrefetchBoundsBase<TilePrefetchBoundsPass> {
  void runOnOperation() override {
    std::optional<llvm::SmallDenseSet<Value>> outputs = getKernelOutputs(getOperation());
    if (!outputs)
      return;
    SmallVector<std::pair<ReadBoundsOp, scf::ForOp>> candidates;
    getOperation().walk([&](ReadBoundsOp bounds) {
      if (auto loop = dyn_cast<scf::ForOp>(bounds->getParentOp());
          loop && !outputs->contains(bounds.getTensor()))
        candidates.push_back({bounds, loop});
    });
    // One per loop: after the first, the loop op is replaced.
    llvm::SmallPtrSet<Operation *, 4> done;
    for (auto [bounds, loop] : candidates)
      if (!done.contains(loop) && prefetch(bounds, loop))
        done.insert(loop);
  }
};

} // namespace
