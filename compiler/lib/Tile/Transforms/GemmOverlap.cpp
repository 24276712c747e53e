//===- GemmOverlap.cpp - tile-gemm-overlap -----------------------------------===//
//
// Overlaps the two gemms of an attention kv loop with the element-wise work between them,
// inside each consumer warpgroup (FlashAttention-3's intra-warpgroup pipelining). The loop
//
//   S = Q·K(j); softmax(S) -> P, rescale O; O += P·V(j); release V(j)
//
// becomes
//
//   S = Q·K(j) async; [j > lo: O += P·V(j-1) async]; wait S
//   softmax(S) into S itself; wait O; [j > lo: release V(j-1)]; rescale O; P = bf16(S)
//
// and after the loop, O += P·V(last). The tensor cores run P·V(j-1) while the warpgroup
// computes the softmax of tile j. The rewrite applies only when it is provably the same
// computation: see `analyse` for the conditions.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEGEMMOVERLAP
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// Whether `buffer` appears as an operand anywhere in `op`.
bool touches(Operation *op, Value buffer) {
  bool found = false;
  op->walk([&](Operation *inner) { found |= llvm::is_contained(inner->getOperands(), buffer); });
  return found;
}

/// Whether `op` (or an op nested in it) may write `buffer`.
bool writes(Operation *op, Value buffer) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (auto store = dyn_cast<memref::StoreOp>(inner))
      found |= store.getMemRef() == buffer;
    else if (auto fill = dyn_cast<FillOp>(inner))
      found |= fill.getBuffer() == buffer;
    else if (auto gemm = dyn_cast<GemmOp>(inner))
      found |= gemm.getC() == buffer;
    else if (auto reduce = dyn_cast<ReduceOp>(inner))
      found |= reduce.getDest() == buffer;
    else if (auto copy = dyn_cast<CopyOp>(inner))
      found |= copy.getDest() == buffer;
    else if (auto scan = dyn_cast<ScanOp>(inner))
      found |= scan.getBuffer() == buffer;
    else if (!isa<memref::LoadOp, ParallelOp, YieldOp, scf::IfOp, scf::YieldOp>(inner) &&
             !isPure(inner))
      found |= llvm::is_contained(inner->getOperands(), buffer);
  });
  return found;
}

/// The buffers (memref values) `op` touches.
SmallVector<Value> buffersOf(Operation *op) {
  SmallVector<Value> out;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isa<MemRefType>(v.getType()) && !llvm::is_contained(out, v))
        out.push_back(v);
  });
  return out;
}

/// The producer's TMA copies into the ring whose stage `view` is (in the warp_specialize
/// around `loop`); empty when that cannot be told.
SmallVector<TmaCopyOp> copiesInto(Value view, scf::ForOp loop) {
  SmallVector<TmaCopyOp> copies;
  auto stage = view.getDefiningOp<StageOp>();
  auto ws = loop->getParentOfType<WarpSpecializeOp>();
  if (!stage || !ws)
    return copies;
  ws.getProducer().walk([&](TmaCopyOp copy) {
    auto dest = copy.getDest().getDefiningOp<StageOp>();
    if (dest && dest.getBuffer() == stage.getBuffer())
      copies.push_back(copy);
  });
  return copies;
}

/// The `empty` mbarriers of the ring whose stage `view` is: the producer waits for them before
/// announcing the bytes of a TMA copy into that ring; null when that cannot be told.
Value emptyBarrierOf(Value view, scf::ForOp loop) {
  Value found;
  for (TmaCopyOp copy : copiesInto(view, loop)) {
    for (Operation *op = copy->getPrevNode(); op; op = op->getPrevNode()) {
      auto expect = dyn_cast<MbarrierExpectTxOp>(op);
      if (!expect || expect.getBarriers() != copy.getBarriers())
        continue;
      if (auto wait = dyn_cast_or_null<MbarrierWaitOp>(expect->getPrevNode()))
        found = wait.getBarriers();
      break;
    }
  }
  return found;
}

/// The `full` mbarriers of the ring whose stage `view` is (its TMA copies complete on them);
/// null when that cannot be told.
Value fullBarrierOf(Value view, scf::ForOp loop) {
  SmallVector<TmaCopyOp> copies = copiesInto(view, loop);
  return copies.empty() ? Value() : copies.back().getBarriers();
}

/// The loop and the pieces of its body the rewrite moves.
struct Plan {
  scf::ForOp loop;
  /// The `scf.if` around the gemms (the "tile not fully masked" test), or null.
  scf::IfOp guard;
  GemmOp scoreGemm, outputGemm;
  Value scores, probs, out;
  /// Stage releases after the output gemm (or after the guard): deferred by one iteration.
  SmallVector<Operation *> releases;
  /// The consumers' wait for the output gemm's B stage (its TMA copy), or null: it moves
  /// with that gemm to the next iteration, so that a tile's score gemm does not wait for a
  /// V tile whose copy could start only when the previous V stage was released.
  MbarrierWaitOp outputWait;
  /// Top-level ops between the gemms that touch the output accumulator.
  SmallVector<Operation *> rescale;
  /// Stores of a rounded value into the probabilities.
  SmallVector<memref::StoreOp> probStores;
};

/// Fills `plan` for `loop`, or says why the loop cannot be overlapped.
std::string analyse(scf::ForOp loop, Plan &plan) {
  plan.loop = loop;
  if (!matchPattern(loop.getStep(), m_One()) || loop.getNumResults() != 0)
    return "the loop's step is not 1 or it carries values";
  SmallVector<GemmOp> gemms;
  loop.walk([&](GemmOp gemm) { gemms.push_back(gemm); });
  if (gemms.size() != 2 || gemms[0]->getBlock() != gemms[1]->getBlock())
    return "the loop does not hold exactly two gemms in one block";
  Block &body = *loop.getBody();
  Block &work = *gemms[0]->getBlock();
  Operation *end = nullptr; // where the ops after the gemms' block are checked from
  if (&work == &body) {
    end = gemms[1]->getNextNode();
  } else {
    plan.guard = dyn_cast<scf::IfOp>(work.getParentOp());
    if (!plan.guard || plan.guard->getBlock() != &body || plan.guard.getNumResults() != 0 ||
        !plan.guard.getElseRegion().empty() || gemms[1]->getNextNode() != work.getTerminator())
      return "the gemms are not at the top of the loop body or of one scf.if in it";
    end = plan.guard->getNextNode();
  }
  // The releases after the gemms: the output gemm's stage is released an iteration later,
  // once that gemm completes; the others stay (their gemm is waited for before).
  Value emptyOfB = emptyBarrierOf(gemms[1].getB(), loop);
  for (Operation *op = end; op != body.getTerminator(); op = op->getNextNode()) {
    auto arrive = dyn_cast<MbarrierArriveOp>(op);
    if (!arrive)
      return "an op other than a stage release follows the output gemm";
    if (!emptyOfB || arrive.getBarriers() == emptyOfB)
      plan.releases.push_back(op);
  }
  GemmOp first = gemms[0], second = gemms[1];
  if (Value fullOfB = fullBarrierOf(gemms[1].getB(), loop)) {
    for (Operation &op : body) {
      auto wait = dyn_cast<MbarrierWaitOp>(op);
      if (wait && wait.getBarriers() == fullOfB &&
          (plan.guard ? wait->isBeforeInBlock(plan.guard) : wait->isBeforeInBlock(first)))
        plan.outputWait = wait;
    }
  }
  plan.scoreGemm = first;
  plan.outputGemm = second;
  plan.scores = first.getC();
  plan.probs = second.getA();
  plan.out = second.getC();
  if (!first->hasAttr(kWgmmaAttr) || !second->hasAttr(kWgmmaAttr) || first.getAsync() ||
      second.getAsync())
    return "the gemms are not synchronous wgmma gemms";
  auto probsType = cast<MemRefType>(plan.probs.getType());
  auto scoresType = cast<MemRefType>(plan.scores.getType());
  if (!isFragment(probsType) || probsType.getShape() != scoresType.getShape())
    return "the second gemm's A is not a fragment shaped like the first gemm's accumulator";
  if (plan.out == plan.scores || plan.probs == first.getA() || plan.out == first.getA())
    return "the gemms share a fragment";
  auto probsAlloc = plan.probs.getDefiningOp<AllocOp>();
  auto scoresAlloc = plan.scores.getDefiningOp<AllocOp>();
  if (!probsAlloc || !scoresAlloc || loop->isAncestor(probsAlloc) ||
      probsAlloc->getAttr("layout") != scoresAlloc->getAttr("layout"))
    return "the probabilities and scores are not fragments of one layout allocated outside";

  // The probabilities and the output accumulator are used only where the rewrite expects.
  for (Operation &op : work) {
    if (&op == second.getOperation())
      continue;
    bool between = first->isBeforeInBlock(&op) && op.isBeforeInBlock(second);
    if (touches(&op, plan.out)) {
      if (!between)
        return "the output accumulator is used outside the gemms and the ops between them";
      plan.rescale.push_back(&op);
    }
    if (touches(&op, plan.probs) && !between)
      return "the probabilities are used before the score gemm";
  }
  for (Operation &op : body)
    if (plan.guard && &op != plan.guard.getOperation() &&
        (touches(&op, plan.out) || touches(&op, plan.probs)))
      return "the output accumulator or the probabilities are used outside the gemms' block";
  for (Operation *op : plan.rescale) {
    if (!isa<ParallelOp>(op) || touches(op, plan.probs))
      return "the output accumulator is touched by an op other than an element-wise rescale";
    for (Value buffer : buffersOf(op)) {
      if (buffer == plan.out)
        continue;
      if (!isFragment(cast<MemRefType>(buffer.getType())))
        return "the output rescale reads shared memory";
      if (writes(op, buffer))
        return "the output rescale writes another buffer";
      for (Operation *later = op->getNextNode(); later != second; later = later->getNextNode())
        if (writes(later, buffer))
          return "a buffer the output rescale reads is written after it";
    }
  }

  // Every write of the probabilities is `store (truncf x), P[i, j]` in an element loop; the
  // rewrite keeps x in the scores instead and rounds the whole tile after the wait.
  Operation *lastProbOp = nullptr;
  for (Operation *op = first->getNextNode(); op != second; op = op->getNextNode()) {
    if (!touches(op, plan.probs))
      continue;
    lastProbOp = op;
    WalkResult bad = op->walk([&](Operation *inner) {
      if (!llvm::is_contained(inner->getOperands(), plan.probs))
        return WalkResult::advance();
      auto store = dyn_cast<memref::StoreOp>(inner);
      auto par = store ? store->getParentOfType<ParallelOp>() : ParallelOp();
      if (!store || store.getMemRef() != plan.probs || !par ||
          !store.getValue().getDefiningOp<arith::TruncFOp>() ||
          store.getIndices() != ValueRange(par.getBody().front().getArguments()))
        return WalkResult::interrupt();
      plan.probStores.push_back(store);
      return WalkResult::advance();
    });
    if (bad.wasInterrupted())
      return "the probabilities are written other than by rounding an element-wise value";
  }
  if (plan.probStores.empty())
    return "the probabilities are not computed between the gemms";
  for (Operation *op = lastProbOp->getNextNode(); op != second; op = op->getNextNode())
    if (writes(op, plan.scores))
      return "the scores are written after the probabilities";
  return "";
}

class Rewriter {
public:
  explicit Rewriter(Plan &plan) : plan(plan), b(plan.loop), loc(plan.loop.getLoc()) {}

  void run() {
    carryPending();
    scf::ForOp loop = plan.loop;
    Value iv = loop.getInductionVar();
    Value lo = loop.getLowerBound();
    Value pending = loop.getRegionIterArgs().front();
    keepScores();
    // A fresh mapping at each place: recomputed values do not dominate the other places.
    auto previousAt = [&] {
      IRMapping previous;
      previous.map(iv, b.create<arith::SubIOp>(loc, iv, idx(1)));
      return previous;
    };

    // The previous iteration's output gemm runs behind this one's score gemm.
    plan.scoreGemm.setAsync(true);
    b.setInsertionPointAfter(plan.scoreGemm);
    auto issue = b.create<scf::IfOp>(loc, pending, /*withElseRegion=*/true);
    b.setInsertionPointToStart(issue.thenBlock());
    IRMapping previous = previousAt();
    if (plan.outputWait)
      cloneAt(plan.outputWait, previous);
    cast<GemmOp>(cloneAt(plan.outputGemm, previous)).setAsync(true);
    b.create<GemmWaitOp>(loc, 1, ValueRange{plan.scores});
    b.setInsertionPointToStart(issue.elseBlock());
    b.create<GemmWaitOp>(loc, 0, ValueRange{plan.scores});

    // At the end of the gemms' block: retire it, rescale O, round P.
    Operation *workEnd = plan.outputGemm->getNextNode();
    // Unconditional (a no-op when nothing is in flight): ptxas serialises every wgmma when
    // some path reads an accumulator that may still be in flight.
    b.setInsertionPoint(workEnd);
    b.create<GemmWaitOp>(loc, 0, ValueRange{plan.out});
    for (Operation *op : plan.rescale)
      op->moveBefore(workEnd);
    b.setInsertionPoint(workEnd);
    roundProbabilities();

    // A skipped tile still owes the previous output gemm.
    if (plan.guard) {
      plan.guard.getElseRegion().push_back(new Block());
      b.setInsertionPointToStart(&plan.guard.getElseRegion().front());
      b.create<scf::YieldOp>(loc);
      b.setInsertionPointToStart(&plan.guard.getElseRegion().front());
      auto owed = b.create<scf::IfOp>(loc, pending, /*withElseRegion=*/false);
      b.setInsertionPointToStart(owed.thenBlock());
      IRMapping owedPrevious = previousAt();
      if (plan.outputWait)
        cloneAt(plan.outputWait, owedPrevious);
      cloneAt(plan.outputGemm, owedPrevious);
    }

    // The previous iteration's stages are released once its output gemm is complete.
    if (!plan.releases.empty()) {
      b.setInsertionPoint(plan.releases.front());
      Value notFirst = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, iv, lo);
      auto release = b.create<scf::IfOp>(loc, notFirst, /*withElseRegion=*/false);
      b.setInsertionPointToStart(release.thenBlock());
      IRMapping prev = previousAt();
      // A skipped tile's V copy was not waited for: its stage is released only once it landed
      // (a second wait for a completed phase returns at once).
      if (plan.outputWait)
        cloneAt(plan.outputWait, prev);
      for (Operation *op : plan.releases)
        cloneAt(op, prev);
    }

    // After the loop: the last tile's V copy (in flight even when the tile was skipped) and
    // its output gemm, if the tile was not skipped.
    b.setInsertionPointAfter(loop);
    if (plan.outputWait) {
      auto landed = b.create<scf::IfOp>(loc, loopRan(), /*withElseRegion=*/false);
      b.setInsertionPointToStart(landed.thenBlock());
      IRMapping lastWait = lastIteration();
      cloneAt(plan.outputWait, lastWait);
      b.setInsertionPointAfter(landed);
    }
    auto tail = b.create<scf::IfOp>(loc, loop.getResult(0), /*withElseRegion=*/false);
    b.setInsertionPointToStart(tail.thenBlock());
    IRMapping last = lastIteration();
    cloneAt(plan.outputGemm, last);
    // A persistent kernel's ring goes on into the next tile's loop: the last stage is
    // released too, once its output gemm is done (the tail gemm is synchronous).
    if (!plan.releases.empty() && loop->getParentOfType<KernelOp>()->hasAttr(kPersistentAttr)) {
      b.setInsertionPointAfter(tail);
      auto release = b.create<scf::IfOp>(loc, loopRan(), /*withElseRegion=*/false);
      b.setInsertionPointToStart(release.thenBlock());
      IRMapping lastRelease = lastIteration();
      for (Operation *op : plan.releases)
        cloneAt(op, lastRelease);
    }
    for (Operation *op : plan.releases)
      op->erase();
    plan.outputGemm->erase();
    if (plan.outputWait)
      plan.outputWait->erase();
  }

private:
  Value idx(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }

  /// Whether the loop ran at least once (at the insertion point, after it).
  Value loopRan() {
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, plan.loop.getUpperBound(),
                                   plan.loop.getLowerBound());
  }

  /// The induction variable mapped to the loop's last iteration (after it).
  IRMapping lastIteration() {
    IRMapping last;
    last.map(plan.loop.getInductionVar(),
             b.create<arith::SubIOp>(loc, plan.loop.getUpperBound(), idx(1)));
    return last;
  }

  /// Gives the loop an i1 carried value, false on entry: "the output gemm of the previous
  /// iteration is owed" (true after an iteration whose tile was not skipped).
  void carryPending() {
    IRRewriter rewriter(plan.loop.getContext());
    rewriter.setInsertionPoint(plan.loop);
    Value no = rewriter.create<arith::ConstantIntOp>(loc, 0, 1);
    auto grown = plan.loop.replaceWithAdditionalYields(
        rewriter, ValueRange{no}, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &yb, Location yl, ArrayRef<BlockArgument>) -> SmallVector<Value> {
          if (plan.guard)
            return {plan.guard.getCondition()};
          return {yb.create<arith::ConstantIntOp>(yl, 1, 1)};
        });
    plan.loop = cast<scf::ForOp>(grown->getOperation());
  }

  /// `value` as seen from the insertion point with the mapped induction variable: values
  /// computed in the loop body from it are recomputed.
  Value remap(Value value, IRMapping &mapping) {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    Operation *def = value.getDefiningOp();
    if (!def || !plan.loop->isProperAncestor(def))
      return value;
    for (Value operand : def->getOperands())
      remap(operand, mapping);
    return b.clone(*def, mapping)->getResult(cast<OpResult>(value).getResultNumber());
  }

  Operation *cloneAt(Operation *op, IRMapping &mapping) {
    for (Value operand : op->getOperands())
      remap(operand, mapping);
    return b.clone(*op, mapping);
  }

  /// Each element loop that rounds a value x into P[i, j] keeps x in S[i, j] instead (it
  /// may already do so).
  void keepScores() {
    for (memref::StoreOp store : plan.probStores) {
      Value exact = store.getValue().getDefiningOp<arith::TruncFOp>().getIn();
      bool kept = false;
      for (Operation &op : *store->getBlock())
        if (auto other = dyn_cast<memref::StoreOp>(op))
          kept |= other.getMemRef() == plan.scores && other.getValue() == exact &&
                  other.getIndices() == store.getIndices();
      if (!kept) {
        OpBuilder here(store);
        here.create<memref::StoreOp>(store.getLoc(), exact, plan.scores, store.getIndices());
      }
      Operation *trunc = store.getValue().getDefiningOp();
      store->erase();
      if (trunc->use_empty())
        trunc->erase();
    }
  }

  /// P = round(S) over the whole tile, at the insertion point.
  void roundProbabilities() {
    auto type = cast<MemRefType>(plan.probs.getType());
    auto par = b.create<ParallelOp>(loc, type.getShape());
    Block &body = par.getBody().front();
    OpBuilder inner(body.getTerminator());
    ValueRange ij = body.getArguments();
    Value x = inner.create<memref::LoadOp>(loc, plan.scores, ij);
    Value p = inner.create<arith::TruncFOp>(loc, type.getElementType(), x);
    inner.create<memref::StoreOp>(loc, p, plan.probs, ij);
  }

  Plan &plan;
  OpBuilder b;
  Location loc;
};

struct TileGemmOverlapPass : public metaattn::tile::impl::TileGemmOverlapBase<TileGemmOverlapPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](WarpSpecializeOp ws) {
      // The tile model's choice (TileConfig::gemmOverlap): a masked variant without a
      // running-max shift, which runs slower overlapped.
      auto kernel = ws->getParentOfType<KernelOp>();
      if (kernel && kernel->hasAttr(kNoGemmOverlapAttr)) {
        if (verbose)
          ws.emitRemark() << "gemms not overlapped: the kernel is marked " << kNoGemmOverlapAttr;
        return;
      }
      // Three consumer warpgroups (192-row blocks, D64) already keep the tensor cores busy
      // with the others' gemms; overlapped they measured 0.98x-1.0x, causal 0.78x at S = 1k
      // (H200, benchmarks/results/configs_packed_frag_overlap_h200_2026-12-04e.txt).
      if (ws.getConsumerThreads() > 256) {
        if (verbose)
          ws.emitRemark() << "gemms not overlapped: more than two consumer warpgroups";
        return;
      }
      // The kv loops: at the top of the consumer, or one level down in a persistent
      // kernel's loop over tiles.
      for (auto loop : ws.getConsumer().front().getOps<scf::ForOp>()) {
        if (kernel && kernel->hasAttr(kPersistentAttr))
          llvm::append_range(loops, loop.getBody()->getOps<scf::ForOp>());
        else
          loops.push_back(loop);
      }
    });
    for (scf::ForOp loop : loops) {
      Plan plan;
      std::string why = analyse(loop, plan);
      if (!why.empty()) {
        if (verbose)
          loop.emitRemark() << "gemms not overlapped: " << why;
        continue;
      }
      Rewriter(plan).run();
    }
  }
};

} // namespace
