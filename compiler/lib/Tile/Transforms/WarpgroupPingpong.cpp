//===- WarpgroupPingpong.cpp - tile-warpgroup-pingpong -----------------------===//
//
// In a warp-specialised kernel with two or more consumer warpgroups, makes the warpgroups
// take turns on the tensor cores: each run of consecutive gemms becomes a section between
// `tile.warpgroup_turn "wait"` and `"pass"`, so while one warpgroup multiplies, the others
// run their softmax (FlashAttention-3's ping-pong schedule). wgmma gemms are only issued
// inside the turn and waited for after it.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEWARPGROUPPINGPONG
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// Wraps each maximal run of consecutive gemms of `block` (and of the blocks nested in it).
void wrapSections(Block &block, OpBuilder &b) {
  for (Operation &op : block)
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        wrapSections(inner, b);
  Operation *first = nullptr, *last = nullptr;
  auto close = [&] {
    if (!first)
      return;
    b.setInsertionPoint(first);
    b.create<WarpgroupTurnOp>(first->getLoc(), "wait");
    // wgmma gemms are only issued in the turn: the next warpgroup may issue its own while
    // these run, so the tensor cores always have the next gemm queued. The warpgroup then
    // waits for its gemms outside the turn.
    SmallVector<GemmOp> gemms;
    for (Operation *op = first; op != last->getNextNode(); op = op->getNextNode())
      gemms.push_back(cast<GemmOp>(op));
    bool issueOnly = llvm::all_of(
        gemms, [](GemmOp gemm) { return gemm->hasAttr(kWgmmaAttr) && !gemm.getAsync(); });
    b.setInsertionPointAfter(last);
    auto pass = b.create<WarpgroupTurnOp>(last->getLoc(), "pass");
    if (issueOnly)
      issueAsyncThenWait(gemms, pass);
    first = last = nullptr;
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isa<GemmOp>(op)) {
      first = first ? first : &op;
      last = &op;
      continue;
    }
    close();
  }
  close();
}

struct TileWarpgroupPingpongPass
    : public metaattn::tile::impl::TileWarpgroupPingpongBase<TileWarpgroupPingpongPass> {
  void runOnOperation() override {
    getOperation().walk([&](WarpSpecializeOp ws) {
      if (ws.getConsumerThreads() < 256)
        return;
      Block &consumer = ws.getConsumer().front();
      bool hasGemm = false;
      consumer.walk([&](GemmOp) { hasGemm = true; });
      if (!hasGemm || !consumer.getOps<WarpgroupTurnOp>().empty())
        return;
      OpBuilder b(ws.getContext());
      wrapSections(consumer, b);
      b.setInsertionPointToStart(&consumer);
      b.create<WarpgroupTurnOp>(ws.getLoc(), "start");
      b.setInsertionPoint(consumer.getTerminator());
      b.create<WarpgroupTurnOp>(ws.getLoc(), "finish");
    });
  }
};

} // namespace
