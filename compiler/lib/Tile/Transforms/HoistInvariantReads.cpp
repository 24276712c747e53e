//===- HoistInvariantReads.cpp - tile-hoist-invariant-reads -------------------===//
//
// Reads of kernel inputs whose indices do not change inside a branch or tile.parallel are
// moved in front of it, and identical ones merged: a score function's per-head parameter is
// then loaded once per kv tile, not in every element loop and mask branch of it. Bounds
// (tile.read_bounds) whose range does not change inside a loop leave the loop too: the ids of
// a block's rows are bounded once, not once per kv tile.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <map>

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEHOISTINVARIANTREADS
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// Whether `value` is defined outside `op` (so the same for every iteration or branch of it).
bool definedOutside(Value value, Operation *op) {
  return !op->isAncestor(value.getParentRegion()->getParentOp());
}

/// The outermost op among the branches, tile.parallels and tile.kept_tiles tests enclosing
/// `op` (up to the first other op; scf.for loops too when `crossLoops`) that none of its
/// operands is defined in (a kept_tiles test bounds the block's row ids once, not per tile);
/// null when there is none. A read is not taken out of the kv loop: there a per-head bias held
/// a register across it and made the three-consumer D64 sigmoid kernel spill 12 B
/// (`--resource-report`); one load per kv tile (an L1 hit) costs less than that. Bounds cost
/// a warp's loads and two reductions per evaluation, and both can run where their operands
/// exist: an out-of-range element reads as 0, so moving them out of a branch is safe.
Operation *hoistTarget(Operation *op, bool crossLoops) {
  Operation *target = nullptr;
  for (Operation *parent = op->getParentOp();
       parent &&
       (isa<scf::IfOp, ParallelOp, KeptTilesOp>(parent) || (crossLoops && isa<scf::ForOp>(parent)));
       parent = parent->getParentOp()) {
    if (!llvm::all_of(op->getOperands(), [&](Value v) { return definedOutside(v, parent); }))
      break;
    target = parent;
  }
  return target;
}

struct TileHoistInvariantReadsPass
    : public metaattn::tile::impl::TileHoistInvariantReadsBase<TileHoistInvariantReadsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    // Without the list, any argument may be written: leave every read where it is.
    std::optional<llvm::SmallDenseSet<Value>> written = getKernelOutputs(kernel);
    if (!written)
      return;
    const llvm::SmallDenseSet<Value> &outputs = *written;

    SmallVector<ReadOp> reads;
    kernel.walk([&](ReadOp read) {
      if (!outputs.contains(read.getTensor()))
        reads.push_back(read);
    });
    // Reads moved in front of the same op, by tensor and indices: the first is kept.
    std::map<std::pair<Operation *, std::vector<const void *>>, ReadOp> hoisted;
    for (ReadOp read : reads) {
      Operation *target = hoistTarget(read, /*crossLoops=*/false);
      if (!target)
        continue;
      std::vector<const void *> key = {read.getTensor().getAsOpaquePointer()};
      for (Value index : read.getIndices())
        key.push_back(index.getAsOpaquePointer());
      auto [it, inserted] = hoisted.try_emplace({target, key}, read);
      if (!inserted && it->second.getType() == read.getType()) {
        read.replaceAllUsesWith(it->second.getResult());
        read.erase();
        continue;
      }
      read->moveBefore(target);
    }
    SmallVector<ReadBoundsOp> bounds;
    kernel.walk([&](ReadBoundsOp op) {
      if (!outputs.contains(op.getTensor()))
        bounds.push_back(op);
    });
    // Bounds leave a loop or a kept_tiles test (evaluated once instead of per tile), but not
    // only a branch: a kv tile's ids bounded in the branch for the tiles the kept list did
    // not mark unmasked stay there.
    for (ReadBoundsOp op : bounds) {
      Operation *target = hoistTarget(op, /*crossLoops=*/true);
      if (!target)
        continue;
      bool leavesLoop = false;
      for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp()) {
        leavesLoop |= isa<scf::ForOp, KeptTilesOp>(parent);
        if (parent == target)
          break;
      }
      if (leavesLoop)
        op->moveBefore(target);
    }
  }
};

} // namespace
