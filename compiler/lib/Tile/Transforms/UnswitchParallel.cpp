//===- UnswitchParallel.cpp - tile-unswitch-parallel --------------------------===//
//
// A tile.parallel whose body branches on a condition computed outside it (the same for every
// element, e.g. "this kv tile is entirely inside the mask") is split into two copies under an
// scf.if on that condition, each with the condition replaced by a constant; canonicalization
// then folds the per-element branch away. Full tiles then pay nothing for the mask.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEUNSWITCHPARALLEL
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// The condition of the first scf.if directly in `op`'s body that is defined outside `op`.
Value uniformCondition(ParallelOp op) {
  for (Operation &inner : op.getBody().front())
    if (auto ifOp = dyn_cast<scf::IfOp>(inner)) {
      Value cond = ifOp.getCondition();
      if (!op->isAncestor(cond.getParentRegion()->getParentOp()))
        return cond;
    }
  return {};
}

struct TileUnswitchParallelPass
    : public metaattn::tile::impl::TileUnswitchParallelBase<TileUnswitchParallelPass> {
  void runOnOperation() override {
    SmallVector<ParallelOp> loops;
    getOperation().walk([&](ParallelOp op) { loops.push_back(op); });
    for (ParallelOp op : loops) {
      Value cond = uniformCondition(op);
      if (!cond)
        continue;
      OpBuilder b(op);
      Location loc = op.getLoc();
      auto ifOp = b.create<scf::IfOp>(loc, cond, /*withElseRegion=*/true);
      for (bool value : {true, false}) {
        Block &block = value ? ifOp.getThenRegion().front() : ifOp.getElseRegion().front();
        b.setInsertionPointToStart(&block);
        IRMapping mapping;
        mapping.map(cond, b.create<arith::ConstantIntOp>(loc, b.getI1Type(), value).getResult());
        b.clone(*op, mapping);
      }
      op.erase();
    }
  }
};

} // namespace
