//===- PipelineExpand.cpp - tile-pipeline-expand -----------------------------===//
//
// Rewrites a planned tile.pipelined loop into a prologue and an scf.for whose iterations
// issue the stage-0 copies `stages - 1` iterations ahead into multi-buffered shared memory.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEPIPELINEEXPAND
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

int64_t stageOf(Operation *op) {
  auto attr = op->getAttrOfType<IntegerAttr>(kPipelineStageAttr);
  return attr ? attr.getInt() : 1;
}

class Expander {
public:
  Expander(PipelinedOp loop) : loop(loop), b(loop), loc(loop.getLoc()) {}

  LogicalResult run() {
    Block &body = loop.getBody().front();
    stages = loop.getNumStages();
    for (Operation &op : body.without_terminator())
      if (stageOf(&op) == 0)
        if (auto copy = dyn_cast<CopyOp>(op))
          multiBuffer(copy.getDest());

    Value lo = loop.getLower(), hi = loop.getUpper();
    // Prologue: iterations lo .. lo + stages - 2.
    for (int64_t p = 0; p + 1 < stages; ++p)
      issue(b.create<arith::AddIOp>(loc, lo, idx(p)), lo, hi);

    auto forOp = b.create<scf::ForOp>(loc, lo, hi, idx(1));
    b.setInsertionPointToStart(forOp.getBody());
    Value j = forOp.getInductionVar();
    if (stages == 1) {
      b.create<BarrierOp>(loc); // the previous iteration is done reading the buffers
      issue(j, lo, hi);
      b.create<AsyncWaitOp>(loc, 0);
      b.create<BarrierOp>(loc);
    } else {
      b.create<AsyncWaitOp>(loc, stages - 2);
      b.create<BarrierOp>(loc);
      issue(b.create<arith::AddIOp>(loc, j, idx(stages - 1)), lo, hi);
    }
    // Stage 1 on the buffers of iteration j.
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), j);
    Value slot = slotOf(j, lo);
    for (auto &[original, multi] : buffers)
      mapping.map(original,
                  b.create<StageOp>(loc, cast<MemRefType>(original.getType()), multi, slot));
    for (Operation &op : body.without_terminator()) {
      if (stageOf(&op) == 0 && isa<CopyOp>(op))
        continue;
      Operation *clone = b.clone(op, mapping);
      clone->removeAttr(kPipelineStageAttr);
      clone->walk([](Operation *inner) { inner->removeAttr(kPipelineStageAttr); });
    }
    b.setInsertionPointAfter(forOp);
    b.create<AsyncWaitOp>(loc, 0);
    loop.erase();
    for (auto &[original, multi] : buffers)
      if (original.use_empty())
        original.getDefiningOp()->erase();
    return success();
  }

private:
  Value idx(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }

  /// (j - lo) mod stages.
  Value slotOf(Value j, Value lo) {
    Value rel = b.create<arith::SubIOp>(loc, j, lo);
    return b.create<arith::RemUIOp>(loc, rel, idx(stages));
  }

  void multiBuffer(Value buffer) {
    if (buffers.count(buffer))
      return;
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<int64_t> shape = {stages};
    llvm::append_range(shape, type.getShape());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(buffer.getDefiningOp());
    auto multiType = MemRefType::get(shape, type.getElementType(), MemRefLayoutAttrInterface(),
                                     type.getMemorySpace());
    buffers[buffer] = b.create<AllocOp>(loc, multiType, nullptr);
  }

  /// Issues the stage-0 ops of iteration `j` (if j < hi) into its slot and commits.
  void issue(Value j, Value lo, Value hi) {
    Value valid = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, j, hi);
    auto ifOp = b.create<scf::IfOp>(loc, valid, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), j);
      Value slot = slotOf(j, lo);
      for (auto &[original, multi] : buffers)
        mapping.map(original,
                    b.create<StageOp>(loc, cast<MemRefType>(original.getType()), multi, slot));
      for (Operation &op : loop.getBody().front().without_terminator()) {
        if (stageOf(&op) != 0)
          continue;
        Operation *clone = b.clone(op, mapping);
        clone->removeAttr(kPipelineStageAttr);
        if (auto copy = dyn_cast<CopyOp>(clone))
          copy.setAsync(true);
      }
    }
    b.create<AsyncCommitOp>(loc);
  }

  PipelinedOp loop;
  OpBuilder b;
  Location loc;
  int64_t stages = 1;
  llvm::MapVector<Value, Value> buffers; // single buffer -> multi-stage buffer
};

struct TilePipelineExpandPass
    : public metaattn::tile::impl::TilePipelineExpandBase<TilePipelineExpandPass> {
  void runOnOperation() override {
    SmallVector<PipelinedOp> loops;
    getOperation().walk([&](PipelinedOp loop) { loops.push_back(loop); });
    for (PipelinedOp loop : loops) {
      if (!loop->hasAttr(kPipelinePlannedAttr)) {
        loop.emitError() << "tile-pipeline-expand needs a planned loop: run "
                            "tile-pipeline-plan first";
        return signalPassFailure();
      }
      if (failed(Expander(loop).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
