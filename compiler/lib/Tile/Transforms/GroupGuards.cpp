//===- GroupGuards.cpp - tile-group-guards -----------------------------------===//
//
// Narrows a `tile.row_range` in a warp-specialised consumer region to the rows of the calling
// warpgroup, so the kv-tile guards built from it (skip a tile no row sees; run a tile the mask
// does not cut without the mask) are decided per warpgroup instead of per block. Applied only
// where every op those guards hold is local to a warpgroup.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEGROUPGUARDS
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// Whether `value` is a fragment whose rows are the block's `rows` rows (so warpgroup g holds
/// the same rows of it as of every other such fragment).
bool isRowFragment(Value value, int64_t rows) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && isFragment(type) && type.getShape()[0] == rows;
}

/// Whether every op nested in `region` only touches the calling warpgroup's rows and needs no
/// other thread of the block: then a warpgroup may skip the region alone. Anything not known
/// to be such an op makes the answer no.
bool isGroupLocal(Region &region, int64_t rows) {
  WalkResult result = region.walk([&](Operation *op) {
    if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<scf::IfOp, scf::YieldOp, scf::ForOp, YieldOp, ReadOp, ReadBoundsOp, DimOp, BlockIdOp>(
            op))
      return WalkResult::advance();
    if (auto gemm = dyn_cast<GemmOp>(op)) {
      // The accumulator's rows decide which rows of A a warpgroup multiplies; B is read whole.
      bool ok = isRowFragment(gemm.getC(), rows) &&
                (isRowFragment(gemm.getA(), rows) || isShared(gemm.getA().getType()));
      return ok ? WalkResult::advance() : WalkResult::interrupt();
    }
    if (isa<GemmWaitOp>(op))
      return WalkResult::advance();
    if (auto fill = dyn_cast<FillOp>(op))
      return isRowFragment(fill.getBuffer(), rows) ? WalkResult::advance()
                                                   : WalkResult::interrupt();
    if (auto reduce = dyn_cast<ReduceOp>(op))
      return isRowFragment(reduce.getSource(), rows) && isRowFragment(reduce.getDest(), rows)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    if (auto copy = dyn_cast<CopyOp>(op))
      return isRowFragment(copy.getSource(), rows) && isRowFragment(copy.getDest(), rows)
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    if (auto parallel = dyn_cast<ParallelOp>(op))
      return parallel.getShape()[0] == rows ? WalkResult::advance() : WalkResult::interrupt();
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return isRowFragment(store.getMemRef(), rows) ? WalkResult::advance()
                                                    : WalkResult::interrupt();
    if (isa<memref::LoadOp>(op))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// Whether narrowing `range` changes only guards over group-local code and per-element work.
bool canNarrow(RowRangeOp range) {
  int64_t rows = range.getRows();
  SmallVector<Value> worklist(range->getResults());
  DenseSet<Value> seen(worklist.begin(), worklist.end());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user->getParentOfType<ParallelOp>())
        continue; // per element, in the thread that owns the element
      if (auto guard = dyn_cast<scf::IfOp>(user)) {
        if (!isGroupLocal(guard.getThenRegion(), rows) ||
            !isGroupLocal(guard.getElseRegion(), rows))
          return false;
        continue;
      }
      if (!isa<arith::ArithDialect>(user->getDialect()) && !isa<ReadOp, ReadBoundsOp>(user))
        return false;
      for (Value result : user->getResults())
        if (seen.insert(result).second)
          worklist.push_back(result);
    }
  }
  return true;
}

struct TileGroupGuardsPass : public metaattn::tile::impl::TileGroupGuardsBase<TileGroupGuardsPass> {
  void runOnOperation() override {
    getOperation().walk([&](WarpSpecializeOp ws) {
      int64_t groups = ws.getConsumerThreads() / WarpSpecializeOp::kProducerThreads;
      if (groups < 2)
        return;
      ws.getConsumer().walk([&](RowRangeOp range) {
        int64_t rows = range.getRows();
        if (range.getGroupRows() || rows % groups != 0 || (rows / groups) % 16 != 0 ||
            !canNarrow(range))
          return;
        range.setGroupRows(rows / groups);
      });
    });
  }
};

} // namespace
