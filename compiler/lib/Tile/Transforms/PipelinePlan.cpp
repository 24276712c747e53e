//===- PipelinePlan.cpp - tile-pipeline-plan ---------------------------------===//
//
// Decides which ops of a tile.pipelined body are issued ahead (stage 0: global-to-shared
// copies and the index arithmetic feeding them) and which run in order (stage 1).
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEPIPELINEPLAN
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

bool isPrefetchCopy(CopyOp copy, PipelinedOp loop) {
  if (!isa<GlobalTensorType>(copy.getSource().getType()) || !isShared(copy.getDest().getType()))
    return false;
  auto alloc = copy.getDest().getDefiningOp<AllocOp>();
  return alloc && !loop->isAncestor(alloc);
}

/// Plans one loop; returns a reason when it cannot be pipelined.
std::optional<std::string> plan(PipelinedOp loop) {
  Block &body = loop.getBody().front();
  llvm::DenseSet<Operation *> stage0;
  llvm::DenseSet<Value> prefetched;
  for (Operation &op : body.without_terminator())
    if (auto copy = dyn_cast<CopyOp>(op); copy && isPrefetchCopy(copy, loop)) {
      if (!prefetched.insert(copy.getDest()).second)
        return "shared buffer is written by two copies in one iteration";
      stage0.insert(&op);
    }
  // Every other writer of a prefetched buffer inside the loop prevents multi-buffering.
  for (Operation &op : body.without_terminator()) {
    if (stage0.contains(&op))
      continue;
    bool writes = false;
    op.walk([&](Operation *inner) {
      if (auto copy = dyn_cast<CopyOp>(inner))
        writes |= prefetched.contains(copy.getDest());
      if (auto fill = dyn_cast<FillOp>(inner))
        writes |= prefetched.contains(fill.getBuffer());
    });
    if (writes)
      return "a prefetched shared buffer is also written by a later op of the loop";
  }
  // The index computations feeding stage-0 copies are issued ahead with them.
  SmallVector<Operation *> worklist(stage0.begin(), stage0.end());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != &body || stage0.contains(def))
        continue;
      if (!isPure(def) || def->getNumRegions() != 0)
        return "a prefetched copy depends on an op with side effects in the loop";
      stage0.insert(def);
      worklist.push_back(def);
    }
  }
  Builder b(loop.getContext());
  for (Operation &op : body.without_terminator())
    op.setAttr(kPipelineStageAttr, b.getI64IntegerAttr(stage0.contains(&op) ? 0 : 1));
  return std::nullopt;
}

struct TilePipelinePlanPass
    : public metaattn::tile::impl::TilePipelinePlanBase<TilePipelinePlanPass> {
  void runOnOperation() override {
    getOperation().walk([&](PipelinedOp loop) {
      if (loop->hasAttr(kPipelinePlannedAttr))
        return;
      if (auto reason = plan(loop)) {
        loop.emitRemark() << "not pipelined: " << *reason;
        loop.setNumStages(1);
        for (Operation &op : loop.getBody().front().without_terminator())
          op.setAttr(kPipelineStageAttr, Builder(loop.getContext()).getI64IntegerAttr(1));
      }
      loop->setAttr(kPipelinePlannedAttr, UnitAttr::get(loop.getContext()));
    });
  }
};

} // namespace
