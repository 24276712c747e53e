//===- StageElementReads.cpp - tile-stage-element-reads ----------------------===//
//
// A score that adds a matrix input (a relative-position bias `[H, Sq, Skv]`) reads it element
// by element in the loop over the score fragment. In the wgmma accumulator layout one warp
// instruction reads two elements of each of eight rows per quad of lanes: eight 128-byte lines
// for 128 useful bytes, and the loop waits for L2 behind the score gemm's wait (the forty-sixth
// session's H100 run: 0.47x our softmax at B4 H16 S4k D128 causal, with an L1 prefetch of the
// rows no faster). This pass copies the window into shared memory with coalesced 16-byte
// cp.async while the score gemm runs, each consumer warpgroup its own rows, and the loop reads
// the tile there.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILESTAGEELEMENTREADS
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// A window read staged after a score gemm: later reads of the same window share its tile.
/// (The read itself is gone by then: its tensor and indices are kept.)
struct Staged {
  GemmOp gemm;
  Value tensor;
  SmallVector<Value> indices;
  ParallelOp loop;
  Value tile;
  /// Copying ahead: the next iteration's copy in the gemm's block, after the tile's last
  /// reader there (moved down when a later loop reads the same tile).
  Operation *tail = nullptr;
};

struct TileStageElementReadsPass
    : public metaattn::tile::impl::TileStageElementReadsBase<TileStageElementReadsPass> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    std::optional<llvm::SmallDenseSet<Value>> written = getKernelOutputs(kernel);
    if (!written)
      return;
    // Warpgroups taking turns (ping-pong) or other cp.async groups in flight (whose waits
    // count groups) are left alone.
    WarpSpecializeOp ws;
    bool unsupported = false;
    kernel.walk([&](Operation *op) {
      if (auto w = dyn_cast<WarpSpecializeOp>(op))
        ws = w;
      auto copy = dyn_cast<CopyOp>(op);
      unsupported |=
          isa<WarpgroupTurnOp, AsyncCommitOp, AsyncWaitOp>(op) || (copy && copy.getAsync());
    });
    if (!ws || unsupported)
      return;
    int64_t groups = ws.getConsumerThreads() / WarpSpecializeOp::kProducerThreads;
    DominanceInfo dominance(kernel);
    SmallVector<Staged> staged;
    for (const ScoreLoop &score : getScoreLoops(ws.getConsumer())) {
      ParallelOp par = score.loop;
      GemmOp gemm = score.gemm;
      int64_t rows = par.getShape()[0], cols = par.getShape()[1];
      // Each consumer warpgroup holds its own rows of the fragment; a shared tile has rows
      // in multiples of 16 and 16-byte chunks.
      if (groups < 1 || rows % groups != 0 || (rows / groups) % 16 != 0 || cols % 8 != 0)
        continue;
      SmallVector<ReadOp> reads;
      par.getBody().walk([&](ReadOp read) { reads.push_back(read); });
      llvm::DenseMap<Value, unsigned> memo;
      bool waited = false;
      for (ReadOp read : reads) {
        unsigned bits = read.getType().isIntOrFloat() ? read.getType().getIntOrFloatBitWidth() : 0;
        if (written->contains(read.getTensor()) || (bits != 16 && bits != 32) ||
            read->getParentOp() != par || !isWindow(read, par, memo) ||
            !readAvailableAfter(read, par, gemm, dominance))
          continue;
        Staged *earlier = findStaged(staged, gemm, read, par);
        Value tile = earlier ? earlier->tile : Value();
        if (earlier && earlier->tail) {
          // The next iteration's copy waits for this reader too.
          Operation *anchor = gemm->getBlock()->findAncestorOpInBlock(*par);
          if (earlier->tail->isBeforeInBlock(anchor))
            earlier->tail->moveAfter(anchor);
        }
        if (!tile) {
          // The kernel's shared memory with the tile (allocated before the specialisation),
          // counted as the emitter lays it out.
          MemRefType type =
              getBufferType(ws->getContext(), par.getShape(), read.getType(), MemorySpace::shared);
          if (SharedArena::of(kernel, ws, type).launchBytes() > sharedBytes)
            continue;
          Operation *tail = nullptr;
          if (ahead)
            tile = stageAhead(read, par, gemm, ws, type, rows / groups, tail);
          if (!tile)
            tile = stageAfter(read, par, gemm, ws, type, rows / groups);
          staged.push_back(
              {gemm, read.getTensor(), llvm::to_vector(read.getIndices()), par, tile, tail});
        }
        OpBuilder b(read);
        if (!waited) {
          // The warpgroup's copies have landed and every thread of it sees them.
          OpBuilder before(par);
          before.create<AsyncWaitOp>(read.getLoc(), /*pending=*/0);
          before.create<BarrierOp>(read.getLoc(), /*warpgroup=*/true);
          waited = true;
        }
        Block &body = par.getBody().front();
        Value load = b.create<memref::LoadOp>(read.getLoc(), tile,
                                              ValueRange{body.getArgument(0), body.getArgument(1)});
        read.replaceAllUsesWith(load);
        read.erase();
      }
    }
  }

  /// Whether `read` takes a window of the tensor along `par`'s rows and columns: its last
  /// index is the column variable plus values independent of it, the one before the row
  /// variable plus values independent of it, any others depend on neither.
  static bool isWindow(ReadOp read, ParallelOp par, llvm::DenseMap<Value, unsigned> &memo) {
    OperandRange indices = read.getIndices();
    size_t n = indices.size();
    if (n < 2)
      return false;
    for (auto [d, index] : llvm::enumerate(indices)) {
      std::optional<unsigned> axes = parallelAxes(index, par, memo);
      if (!axes)
        return false;
      if (d + 2 < n ? *axes != 0u
                    : *axes != (d + 1 == n ? 2u : 1u) ||
                          !axisPlus(index, par, /*axis=*/d + 1 == n ? 1 : 0, memo))
        return false;
    }
    return true;
  }

  /// The staging of an earlier read of the same window after the same gemm, if any.
  static Staged *findStaged(MutableArrayRef<Staged> staged, GemmOp gemm, ReadOp read,
                            ParallelOp par) {
    for (Staged &s : staged)
      if (s.gemm == gemm && sameElementRead(s.tensor, s.indices, s.loop, read, par))
        return &s;
    return nullptr;
  }

  /// A shared tile of `type` (`par`'s shape, allocated before the warp specialisation) and, right
  /// after `gemm`, the warpgroup barrier, the async copy of the window at the read's indices
  /// for element (0, 0), and the commit. Returns the tile.
  static Value stageAfter(ReadOp read, ParallelOp par, GemmOp gemm, WarpSpecializeOp ws,
                          MemRefType type, int64_t groupRows) {
    Location loc = read.getLoc();
    OpBuilder top(ws);
    Value tile = top.create<AllocOp>(loc, type, nullptr).getBuffer();
    OpBuilder b(gemm->getContext());
    b.setInsertionPointAfter(gemm);
    // The warpgroup's readers of the previous tile are done before it is overwritten.
    b.create<BarrierOp>(loc, /*warpgroup=*/true);
    IRMapping map;
    copyWindow(b, read, par, par, map, tile, groupRows);
    return tile;
  }

  /// At `b`: the async copy of `read`'s window (its indices at element (0, 0), the values
  /// inside `scope` recomputed with `map`) into `tile`, `groupRows` rows per warpgroup, and
  /// the commit.
  static void copyWindow(OpBuilder &b, ReadOp read, ParallelOp par, Operation *scope,
                         IRMapping &map, Value tile, int64_t groupRows) {
    Location loc = read.getLoc();
    Block &body = par.getBody().front();
    Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
    map.map(body.getArgument(0), zero);
    map.map(body.getArgument(1), zero);
    SmallVector<Value> origin;
    for (Value index : read.getIndices())
      origin.push_back(cloneChainInside(index, scope, map, b));
    int64_t rank = origin.size();
    auto copy = b.create<CopyOp>(loc, read.getTensor(), origin, tile, ValueRange{},
                                 b.getDenseI64ArrayAttr({rank - 2, rank - 1}), /*async=*/true);
    copy.setGroupRows(groupRows);
    b.create<AsyncCommitOp>(loc);
  }

  /// Whether `value` is computed by pure ops from the induction variable of `loop`, `par`'s
  /// variables and values defined above `loop` (so it can be recomputed for another iteration).
  static bool perIteration(Value value, scf::ForOp loop, ParallelOp par,
                           llvm::SmallPtrSetImpl<Value> &seen) {
    if (!loop->isAncestor(value.getParentRegion()->getParentOp()) ||
        value == loop.getInductionVar() || !seen.insert(value).second)
      return true;
    if (auto arg = dyn_cast<BlockArgument>(value))
      return arg.getOwner() == &par.getBody().front();
    Operation *op = value.getDefiningOp();
    return op->getNumRegions() == 0 && op->getNumResults() == 1 && isPure(op) &&
           llvm::all_of(op->getOperands(),
                        [&](Value v) { return perIteration(v, loop, par, seen); });
  }

  /// Copying one iteration ahead: where the score gemm sits in a loop (through `scf.if`s
  /// only) and the window is a function of the loop's variable, the first iteration's window
  /// is copied before the loop and each iteration copies the next one's right after the
  /// tile's last reader (on the paths that skip the reader, at the end of the skipping
  /// branch), so the copy runs behind the rest of the iteration and the next score gemm
  /// rather than behind that gemm alone. Returns the tile (null, nothing changed, where it
  /// does not apply) and the tail after the reader.
  static Value stageAhead(ReadOp read, ParallelOp par, GemmOp gemm, WarpSpecializeOp ws,
                          MemRefType type, int64_t groupRows, Operation *&tail) {
    auto loop = gemm->getParentOfType<scf::ForOp>();
    if (!loop || !ws.getConsumer().isAncestor(loop->getParentRegion()))
      return {};
    SmallVector<scf::IfOp> guards;
    for (Operation *op = gemm->getParentOp(); op != loop; op = op->getParentOp()) {
      auto guard = dyn_cast<scf::IfOp>(op);
      if (!guard || guard.getNumResults() != 0)
        return {};
      guards.push_back(guard);
    }
    llvm::SmallPtrSet<Value, 16> seen;
    if (!llvm::all_of(read.getIndices(),
                      [&](Value index) { return perIteration(index, loop, par, seen); }))
      return {};
    Location loc = read.getLoc();
    Value tile = OpBuilder(ws).create<AllocOp>(loc, type, nullptr).getBuffer();
    // Before the loop: the first iteration's window (after the warpgroup's readers of the
    // tile in an enclosing loop's previous iteration, a persistent kernel's previous tile).
    OpBuilder pre(loop);
    pre.create<BarrierOp>(loc, /*warpgroup=*/true);
    IRMapping first;
    first.map(loop.getInductionVar(), loop.getLowerBound());
    copyWindow(pre, read, par, loop, first, tile, groupRows);
    // After the loop nothing is left in flight.
    OpBuilder post(loop->getContext());
    post.setInsertionPointAfter(loop);
    post.create<AsyncWaitOp>(loc, /*pending=*/0);
    // In each iteration but the last: the next one's window, after this one's readers.
    OpBuilder top = OpBuilder::atBlockBegin(loop.getBody());
    Value next = top.create<arith::AddIOp>(loc, loop.getInductionVar(), loop.getStep());
    Value more =
        top.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, next, loop.getUpperBound());
    auto copyNext = [&](OpBuilder &b) -> Operation * {
      auto guard = b.create<scf::IfOp>(loc, more, /*withElseRegion=*/false);
      OpBuilder in = guard.getThenBodyBuilder();
      // This thread's copy of this iteration has landed (a path that skipped the reader did
      // not wait for it) and the warpgroup's readers are done.
      in.create<AsyncWaitOp>(loc, /*pending=*/0);
      in.create<BarrierOp>(loc, /*warpgroup=*/true);
      IRMapping map;
      map.map(loop.getInductionVar(), next);
      copyWindow(in, read, par, loop, map, tile, groupRows);
      return guard;
    };
    OpBuilder after(loop->getContext());
    after.setInsertionPointAfter(gemm->getBlock()->findAncestorOpInBlock(*par));
    tail = copyNext(after);
    // The paths that skip the gemm: at the end of each enclosing guard's other branch.
    Operation *inner = gemm;
    for (scf::IfOp guard : guards) {
      bool inThen = guard.getThenRegion().isAncestor(inner->getParentRegion());
      Region &other = inThen ? guard.getElseRegion() : guard.getThenRegion();
      if (other.empty()) {
        other.emplaceBlock();
        OpBuilder::atBlockEnd(&other.front()).create<scf::YieldOp>(loc);
      }
      OpBuilder end(other.front().getTerminator());
      copyNext(end);
      inner = guard;
    }
    return tile;
  }
};

} // namespace
