//===- WarpgroupPingpong.cpp - tile-warpgroup-pingpong -----------------------===//
//
// In a warp-specialised kernel with two or more consumer warpgroups, makes the warpgroups
// take turns on the tensor cores: each run of consecutive gemms becomes a section between
// `tile.warpgroup_turn "wait"` and `"pass"`, so while one warpgroup multiplies, the others
// run their softmax (FlashAttention-3's ping-pong schedule). wgmma gemms are only issued
// inside the turn and waited for after it. In the overlapped schedule (tile-gemm-overlap)
// the score gemm of tile j and the conditional output gemm of tile j - 1 share one turn,
// which each branch of the conditional passes before its waits.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEWARPGROUPPINGPONG
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// Whether `op` is the conditional issue of the overlapped schedule (tile-gemm-overlap):
/// `scf.if` whose then-block issues async gemms (after index arithmetic, stage views and
/// mbarrier waits) and whose branches both end in gemm waits. Such an `if` right after a
/// gemm joins that gemm's turn, so one turn issues both of the warpgroup's gemms
/// (FlashAttention-3: the score gemm of tile j and the output gemm of tile j - 1).
bool isConditionalIssue(Operation &op) {
  auto branch = dyn_cast<scf::IfOp>(op);
  if (!branch || branch.getNumResults() != 0 || !branch.elseBlock())
    return false;
  auto endsInWaits = [](Block *block) {
    auto ops = block->without_terminator();
    return !ops.empty() && isa<GemmWaitOp>(std::prev(ops.end()));
  };
  if (!endsInWaits(branch.thenBlock()) || !endsInWaits(branch.elseBlock()))
    return false;
  bool issues = false;
  for (Operation &inner : branch.thenBlock()->without_terminator()) {
    if (auto gemm = dyn_cast<GemmOp>(inner)) {
      if (!gemm.getAsync())
        return false;
      issues = true;
    } else if (!isa<GemmWaitOp, StageOp, MbarrierWaitOp>(inner) && !isPure(&inner)) {
      return false;
    }
  }
  for (Operation &inner : branch.elseBlock()->without_terminator())
    if (!isa<GemmWaitOp>(inner))
      return false;
  return issues;
}

/// Ends the turn inside both branches of `branch`, in front of their trailing gemm waits, so
/// that each branch passes the turn and then waits, in the block that issued its gemms. A pass
/// after the `if` with the waits in a second `if` on the same condition would join the
/// branches between the output gemm's wgmma commit and its wait: ptxas then serialises every
/// wgmma of the kernel ("non wgmma instructions reading accumulator registers of a wgmma
/// between start and end of the pipeline stage", C7514; `metaattn-run --resource-report
/// --pingpong` warns).
void passInBranches(scf::IfOp branch, OpBuilder &b) {
  for (Block *block : {branch.thenBlock(), branch.elseBlock()}) {
    Operation *firstWait = block->getTerminator();
    for (Operation &op : llvm::reverse(block->without_terminator())) {
      if (!isa<GemmWaitOp>(op))
        break;
      firstWait = &op;
    }
    b.setInsertionPoint(firstWait);
    b.create<WarpgroupTurnOp>(branch.getLoc(), "pass");
  }
}

/// Wraps each maximal run of consecutive gemms of `block` (and of the blocks nested in it),
/// with a conditional issue after it (see isConditionalIssue), in a turn.
void wrapSections(Block &block, OpBuilder &b) {
  // Conditional issues that follow a gemm join its turn; their gemms are not wrapped again.
  llvm::SmallPtrSet<Operation *, 4> joined;
  for (Operation &op : block)
    if (isConditionalIssue(op) && op.getPrevNode() && isa<GemmOp>(op.getPrevNode()))
      joined.insert(&op);
  for (Operation &op : block) {
    if (joined.contains(&op))
      continue;
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        wrapSections(inner, b);
  }
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
    bool issueOnly = true;
    for (Operation *op = first; op != last->getNextNode(); op = op->getNextNode()) {
      if (auto gemm = dyn_cast<GemmOp>(op)) {
        gemms.push_back(gemm);
        issueOnly &= gemm->hasAttr(kWgmmaAttr) && !gemm.getAsync();
      } else {
        issueOnly = false; // a joined conditional issue: its waits follow the turn already
      }
    }
    // A joined conditional issue that ends the run passes the turn in each branch, before
    // its waits.
    if (auto branch = dyn_cast<scf::IfOp>(last)) {
      passInBranches(branch, b);
    } else {
      b.setInsertionPointAfter(last);
      auto pass = b.create<WarpgroupTurnOp>(last->getLoc(), "pass");
      if (issueOnly)
        issueAsyncThenWait(gemms, pass);
    }
    first = last = nullptr;
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isa<GemmOp>(op) || (first && joined.contains(&op))) {
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
  using Base::Base;

  void runOnOperation() override {
    if (onlyMarked && !getOperation()->hasAttr(kPingpongAttr))
      return;
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
