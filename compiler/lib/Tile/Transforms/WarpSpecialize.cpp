//===- WarpSpecialize.cpp - tile-warp-specialize -----------------------------===//
//
// Rewrites a planned tile.pipelined loop into Hopper's producer/consumer form: a producer
// thread copies each iteration's stage-0 tiles with TMA into rings of shared stages, the
// consumers wait for a ring's stage on its "full" mbarrier right before they first read it,
// and release it on its "empty" mbarrier right after they last read it. Kernels that do not
// fit keep the cp.async pipeline of tile-pipeline-expand.
//
// In `persistent` mode both sides also loop over the grid's tiles (launched blocks take
// them in rounds): the producer copies the next tile's query and first kv
// tiles while the consumers finish the current one, so only the first tile of each block
// pays the memory latency. The rings' slot and phase then count kv iterations across tiles,
// and the query tile gets an "empty" mbarrier the consumers arrive on after its last read.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

constexpr int64_t kProducerThreads = WarpSpecializeOp::kProducerThreads;

bool isStage0(Operation *op) {
  auto attr = op->getAttrOfType<IntegerAttr>(kPipelineStageAttr);
  return attr && attr.getInt() == 0;
}

/// Why a stage-0 copy cannot be a TMA copy, or an empty string.
std::string whyNotTma(CopyOp copy, Block &kernelBody) {
  auto source = dyn_cast<GlobalTensorType>(copy.getSource().getType());
  auto dest = dyn_cast<MemRefType>(copy.getDest().getType());
  if (!source || !dest || !isShared(dest) || dest.getRank() != 2)
    return "a prefetched copy is not a 2-D global-to-shared tile";
  Type elt = dest.getElementType();
  if (!(elt.isBF16() || elt.isF16()) || elt != source.getElementType())
    return "a prefetched tile is not bf16 or f16";
  if (dest.getDimSize(1) * 2 % 128 != 0 || dest.getDimSize(0) > 256)
    return "a prefetched tile's rows are not a multiple of 128 bytes (or it has over 256 rows)";
  int64_t rank = source.getRank();
  ArrayRef<int64_t> dims = *copy.getDims();
  if (rank < 2 || rank > 5 || dims[1] != rank - 1)
    return "a prefetched tile's columns are not the tensor's last dim (or its rank is not 2..5)";
  int64_t last = source.getShape().back();
  if (ShapedType::isDynamic(last) || last * 2 % 16 != 0)
    return "a prefetched tensor's last dim is dynamic or not a multiple of 16 bytes";
  auto alloc = copy.getDest().getDefiningOp<AllocOp>();
  if (!alloc || alloc->getBlock() != &kernelBody)
    return "a prefetched tile is not allocated at the top of the kernel";
  return "";
}

/// What the rewrite needs, gathered before anything changes.
struct Plan {
  PipelinedOp loop;
  /// Top-level ops of the kernel the producer recomputes (loop bounds, copy origins).
  SmallVector<Operation *> slice;
  SmallVector<CopyOp> copies;
  /// Copies before the loop (the query tile) that the producer issues by TMA first; the
  /// consumers wait for them on their own mbarrier where the copy was.
  SmallVector<CopyOp> prologueCopies;
  /// The `scf.if` of the loop body that holds every read of the prefetched tiles, where its
  /// condition reads kernel inputs (a document mask's ids, a block-sparse map) and the
  /// producer can evaluate it: then the producer copies nothing for an iteration the
  /// consumers skip. Null otherwise.
  scf::IfOp guard;
  /// The ops of the loop body the guard's condition depends on, in order.
  SmallVector<Operation *> guardSlice;
};

/// Whether a copy of `kernel` writes the global tensor `tensor` (a kernel parameter).
bool writesTensor(KernelOp kernel, Value tensor) {
  bool found = false;
  kernel.walk([&](CopyOp copy) { found |= copy.getDest() == tensor; });
  return found;
}

/// Adds to `slice` the pure top-level ops that `values` depend on, or returns false (and
/// leaves `slice` as it was) if one of them cannot be recomputed by the producer.
bool extendSlice(ArrayRef<Value> values, Block &body, llvm::SetVector<Operation *> &slice) {
  llvm::SetVector<Operation *> added;
  SmallVector<Value> worklist(values.begin(), values.end());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || slice.contains(def) || added.contains(def))
      continue; // kernel parameters are visible everywhere
    if (def->getBlock() != &body)
      return false;
    if (isa<KeptTilesOp>(def)) {
      // Its test holds pure ops and reads (the verifier's rule): the producer recomputes the
      // same list where the kernel writes none of the tensors read, from the values the test
      // uses from above.
      auto kernel = def->getParentOfType<KernelOp>();
      bool readsWritten = false;
      def->walk([&](Operation *inner) {
        if (auto read = dyn_cast<ReadOp>(inner))
          readsWritten |= writesTensor(kernel, read.getTensor());
        if (auto bounds = dyn_cast<ReadBoundsOp>(inner))
          readsWritten |= writesTensor(kernel, bounds.getTensor());
      });
      if (readsWritten)
        return false;
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(def->getRegions(), above);
      llvm::append_range(worklist, above);
    } else if (!isMemoryEffectFree(def) || def->getNumRegions() != 0) {
      // Not isPure: a top-level op runs on every path of the kernel, so the producer's copy
      // speculates nothing (a division by a tensor's extent, as a block renumbering has).
      return false;
    }
    added.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  slice.insert(added.begin(), added.end());
  return true;
}

/// Sets plan.guard and plan.guardSlice where the loop body's reads of the prefetched tiles
/// all sit in one `scf.if` without results or else branch, whose condition is computed in the
/// loop body from pure ops and reads of inputs the kernel does not write (at least one such
/// read: a condition of the indices alone is settled by the loop's bounds) and from top-level
/// values the producer can recompute (added to `slice`).
void findGuard(KernelOp kernel, Plan &plan, llvm::SetVector<Operation *> &slice) {
  Block &loopBody = plan.loop.getBody().front();
  llvm::DenseSet<Value> tiles;
  for (CopyOp copy : plan.copies)
    tiles.insert(copy.getDest());
  scf::IfOp guard;
  for (Operation &op : loopBody.without_terminator()) {
    if (isStage0(&op) && isa<CopyOp>(op))
      continue;
    bool reads = false;
    op.walk([&](Operation *inner) {
      reads |= llvm::any_of(inner->getOperands(), [&](Value v) { return tiles.contains(v); });
    });
    if (!reads)
      continue;
    auto ifOp = dyn_cast<scf::IfOp>(op);
    if (guard || !ifOp || ifOp.getNumResults() != 0 || !ifOp.getElseRegion().empty())
      return;
    guard = ifOp;
  }
  if (!guard)
    return;
  llvm::SetVector<Operation *> inLoop;
  SmallVector<Value> outside;
  SmallVector<Value> worklist = {guard.getCondition()};
  bool readsInputs = false;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def)
      continue; // the induction variable or a kernel parameter
    if (!plan.loop->isAncestor(def)) {
      outside.push_back(v);
      continue;
    }
    if (def->getBlock() != &loopBody || def->getNumRegions() != 0)
      return;
    Value tensor;
    if (auto read = dyn_cast<ReadOp>(def))
      tensor = read.getTensor();
    else if (auto bounds = dyn_cast<ReadBoundsOp>(def))
      tensor = bounds.getTensor();
    if (tensor && writesTensor(kernel, tensor))
      return;
    if (!tensor && !isPure(def))
      return;
    readsInputs |= static_cast<bool>(tensor);
    if (inLoop.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  if (!readsInputs || !extendSlice(outside, kernel.getBody().front(), slice))
    return;
  plan.guard = guard;
  for (Operation &op : loopBody)
    if (inLoop.contains(&op))
      plan.guardSlice.push_back(&op);
}

/// Fills `plan` for `kernel`, or says why it cannot be warp-specialised.
std::string analyse(KernelOp kernel, Plan &plan, bool persistent, bool skipLoads) {
  if (kernel->hasAttr(kNoWarpSpecializeAttr))
    return "the kernel runs several blocks per multiprocessor (tile.no_warp_specialize)";
  SmallVector<PipelinedOp> loops;
  kernel.walk([&](PipelinedOp loop) { loops.push_back(loop); });
  if (loops.size() != 1)
    return loops.empty() ? "no pipelined loop" : "more than one pipelined loop";
  if (!kernel.getOps<WarpSpecializeOp>().empty())
    return "already warp-specialised";
  PipelinedOp loop = loops.front();
  plan.loop = loop;
  Block &body = kernel.getBody().front();
  if (loop->getBlock() != &body)
    return "the pipelined loop is nested in control flow";
  if (!loop->hasAttr(kPipelinePlannedAttr) || loop.getNumStages() < 2)
    return "the loop is not pipelined over two or more stages";
  int64_t threads = kernel.getThreads();
  if (threads % 128 != 0 || threads + kProducerThreads > 1024)
    return "the consumer threads are not whole warpgroups (or leave no room for a producer)";
  llvm::SetVector<Value> needed;
  needed.insert(loop.getLower());
  needed.insert(loop.getUpper());
  for (Operation &op : loop.getBody().front().without_terminator()) {
    if (!isStage0(&op))
      continue;
    if (auto copy = dyn_cast<CopyOp>(op)) {
      if (std::string why = whyNotTma(copy, body); !why.empty())
        return why;
      plan.copies.push_back(copy);
    } else if (!isPure(&op) || op.getNumRegions() != 0) {
      return "a prefetched copy depends on an op with side effects";
    }
    for (Value operand : op.getOperands())
      if (!loop->isAncestor(operand.getParentRegion()->getParentOp()) &&
          !isa_and_nonnull<AllocOp>(operand.getDefiningOp()))
        needed.insert(operand);
  }
  if (plan.copies.empty())
    return "the loop prefetches nothing";
  // The producer recomputes everything those values depend on: pure top-level ops only.
  llvm::SetVector<Operation *> slice;
  if (!extendSlice(needed.getArrayRef(), body, slice))
    return "the loop bounds or copy origins depend on an op the producer cannot recompute";
  // Synchronous copies before the loop whose tile TMA can load and whose origin the producer
  // can compute move to the producer too (the query tile): it is then in flight together with
  // the first kv tiles instead of loaded by the consumers before they wait for those.
  for (Operation &op : body) {
    if (&op == loop.getOperation())
      break;
    auto copy = dyn_cast<CopyOp>(op);
    if (!copy || copy.getAsync() || !isa<GlobalTensorType>(copy.getSource().getType()) ||
        !whyNotTma(copy, body).empty())
      continue;
    // Only read after the copy, and only by gemms (the wait stands where the copy was); or,
    // after the loop, the staging tile of an output store (tile.copy via), which each warp
    // writes in its own rows once its gemms are done. Not in a persistent kernel, whose
    // producer loads the next tile's query into that tile meanwhile.
    bool onlyGemmReads = llvm::all_of(copy.getDest().getUsers(), [&](Operation *user) {
      auto gemm = dyn_cast<GemmOp>(user);
      auto staged = dyn_cast<CopyOp>(user);
      bool stagingAfterLoop = !persistent && staged && staged.getStaging() == copy.getDest() &&
                              staged.getSource() != copy.getDest() &&
                              staged.getDest() != copy.getDest() && staged->getBlock() == &body &&
                              loop->isBeforeInBlock(staged);
      return user == copy.getOperation() || (gemm && gemm.getC() != copy.getDest()) ||
             stagingAfterLoop;
    });
    SmallVector<Value> origin(copy.getSourceIndices());
    if (onlyGemmReads && extendSlice(origin, body, slice))
      plan.prologueCopies.push_back(copy);
  }
  if (skipLoads)
    findGuard(kernel, plan, slice);
  for (Operation &op : body)
    if (slice.contains(&op))
      plan.slice.push_back(&op);
  return "";
}

class Rewriter {
public:
  Rewriter(KernelOp kernel, Plan &plan, bool persistent)
      : kernel(kernel), plan(plan), b(kernel.getContext()), loc(plan.loop.getLoc()),
        stages(plan.loop.getNumStages()), persistent(persistent) {}

  void run() {
    Block &body = kernel.getBody().front();
    int64_t consumers = kernel.getThreads();
    b.setInsertionPointToStart(&body);
    // The ring of stages, and one full and one empty mbarrier per stage.
    for (CopyOp copy : plan.copies) {
      Value dest = copy.getDest();
      if (ring.count(dest))
        continue;
      auto type = cast<MemRefType>(dest.getType());
      SmallVector<int64_t> shape = {stages};
      llvm::append_range(shape, type.getShape());
      ring[dest] = b.create<AllocOp>(
          loc, getBufferType(b.getContext(), shape, type.getElementType(), MemorySpace::shared),
          nullptr);
    }
    // One full and one empty mbarrier per stage of each ring, so a tile is released as soon
    // as its last reader is done (K after the score gemm, V after the output gemm).
    auto barrierType = getBufferType(b.getContext(), {stages}, b.getI64Type(), MemorySpace::shared);
    for (auto &[original, multi] : ring) {
      Barriers &pair = barriers[original];
      pair.full = b.create<AllocOp>(loc, barrierType, nullptr);
      pair.empty = b.create<AllocOp>(loc, barrierType, nullptr);
      b.create<MbarrierInitOp>(loc, pair.full, 1);
      b.create<MbarrierInitOp>(loc, pair.empty, consumers / 32);
    }
    // One single-use mbarrier per copy before the loop.
    auto oneBarrier = getBufferType(b.getContext(), {1}, b.getI64Type(), MemorySpace::shared);
    for (CopyOp copy : plan.prologueCopies) {
      prologueBarriers.push_back(b.create<AllocOp>(loc, oneBarrier, nullptr));
      b.create<MbarrierInitOp>(loc, prologueBarriers.back(), 1);
    }
    if (persistent) {
      // The consumers release the query tiles once per tile; the producer waits for that
      // before it copies the next ones.
      if (!plan.prologueCopies.empty()) {
        prologueEmpty = b.create<AllocOp>(loc, oneBarrier, nullptr);
        b.create<MbarrierInitOp>(loc, prologueEmpty, consumers / 32);
      }
      buildTileCount();
      kernel->setAttr(kPersistentAttr, b.getUnitAttr());
    }
    b.create<BarrierOp>(loc);
    auto ws = b.create<WarpSpecializeOp>(loc, consumers);
    // Their tiles are written by the producer and read by the consumers.
    for (CopyOp copy : plan.prologueCopies)
      copy.getDest().getDefiningOp()->moveBefore(ws);
    for (Region *region : {&ws.getProducer(), &ws.getConsumer()}) {
      region->push_back(new Block());
      OpBuilder::atBlockEnd(&region->front()).create<YieldOp>(loc);
    }
    kernel.setThreads(consumers + kProducerThreads);

    // Everything the kernel did runs on the consumers.
    Block &consumer = ws.getConsumer().front();
    consumer.getOperations().splice(consumer.getTerminator()->getIterator(), body.getOperations(),
                                    std::next(ws->getIterator()),
                                    body.getTerminator()->getIterator());
    buildProducer(ws.getProducer().front());
    // The consumers' ops, in persistent mode inside their loop over tiles.
    Block *consumerOps = &consumer;
    TileLoop tiles;
    if (persistent) {
      b.setInsertionPointToStart(&consumer);
      tiles = openTileLoop();
      consumerOps = tiles.loop.getBody();
      consumerOps->getOperations().splice(consumerOps->end(), consumer.getOperations(),
                                          std::next(tiles.loop->getIterator()),
                                          consumer.getTerminator()->getIterator());
      replaceBlockIds(*consumerOps, tiles);
    }
    buildConsumerLoop(tiles.base);
    for (auto [copy, barrier] : llvm::zip(plan.prologueCopies, prologueBarriers)) {
      b.setInsertionPoint(copy);
      Value slot = idx(0); // the barrier's only slot; its phase alternates per tile
      b.create<MbarrierWaitOp>(loc, barrier, slot, persistent ? tileParity(tiles, 0) : slot);
      copy.erase();
    }
    if (persistent)
      closeConsumerTileLoop(tiles);
    if (!plan.prologueCopies.empty())
      dropRedundantConsumerBarrier(*consumerOps);
    for (auto &[original, multi] : ring)
      if (original.use_empty())
        original.getDefiningOp()->erase();
  }

private:
  Value idx(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }

  /// The consumers' first barrier made their copies before it visible to each other; when
  /// the ops before it only wait for TMA copies (each thread observes their mbarrier itself),
  /// allocate, or compute values, it orders nothing and goes.
  static void dropRedundantConsumerBarrier(Block &consumer) {
    for (Operation &op : consumer) {
      if (isa<BarrierOp>(op)) {
        op.erase();
        return;
      }
      // Memory-effect free, not pure: a division by the grid's extent is not speculatable.
      if (!isa<AllocOp, MbarrierWaitOp>(op) &&
          !(isMemoryEffectFree(&op) && op.getNumRegions() == 0))
        return;
    }
  }

  /// (slot, round) of iteration `j` of a loop starting at `lo`, after `base` iterations of
  /// earlier tiles (null: none).
  std::pair<Value, Value> slotAndRound(Value j, Value lo, Value base) {
    Value rel = b.create<arith::SubIOp>(loc, j, lo);
    if (base)
      rel = b.create<arith::AddIOp>(loc, rel, base);
    return {b.create<arith::RemUIOp>(loc, rel, idx(stages)),
            b.create<arith::DivUIOp>(loc, rel, idx(stages))};
  }

  /// Maps each single-stage buffer to its view in stage `slot` of the ring.
  void mapStages(IRMapping &mapping, Value slot) {
    for (auto &[original, multi] : ring)
      mapping.map(original,
                  b.create<StageOp>(loc, cast<MemRefType>(original.getType()), multi, slot));
  }

  void buildProducer(Block &producer) {
    b.setInsertionPoint(producer.getTerminator());
    IRMapping mapping;
    TileLoop tiles;
    if (persistent)
      tiles = openTileLoop();
    // The slice's ops that the query tile's origin needs come first and its copy is issued
    // before the rest: a kept list's count (a document mask's id bounds, one or more rounds
    // of loads) then overlaps the query tile's load instead of delaying it.
    llvm::SetVector<Operation *> forPrologue;
    {
      SmallVector<Value> worklist;
      for (CopyOp copy : plan.prologueCopies)
        llvm::append_range(worklist, copy.getSourceIndices());
      llvm::DenseSet<Operation *> inSlice(plan.slice.begin(), plan.slice.end());
      while (!worklist.empty()) {
        Operation *def = worklist.pop_back_val().getDefiningOp();
        if (def && inSlice.contains(def) && forPrologue.insert(def))
          llvm::append_range(worklist, def->getOperands());
      }
    }
    auto cloneSlice = [&](bool prologue) {
      for (Operation *op : plan.slice) {
        if (forPrologue.contains(op) != prologue)
          continue;
        auto id = dyn_cast<BlockIdOp>(op);
        if (persistent && id)
          mapping.map(id.getResult(), tiles.coords[id.getDim()]);
        else
          b.clone(*op, mapping);
      }
    };
    cloneSlice(/*prologue=*/true);
    if (persistent && prologueEmpty) // the consumers are done with the last tile's queries
      b.create<MbarrierWaitOp>(loc, prologueEmpty, idx(0), tileParity(tiles, 1));
    for (auto [copy, barrier] : llvm::zip(plan.prologueCopies, prologueBarriers)) {
      auto type = cast<MemRefType>(copy.getDest().getType());
      Value slot = idx(0);
      b.create<MbarrierExpectTxOp>(loc, barrier, slot, type.getNumElements() * 2);
      SmallVector<Value> indices;
      for (Value v : copy.getSourceIndices())
        indices.push_back(mapping.lookupOrDefault(v));
      b.create<TmaCopyOp>(loc, copy.getSource(), indices, copy.getDest(), barrier, slot,
                          *copy.getDims());
    }
    cloneSlice(/*prologue=*/false);
    Value lo = mapping.lookupOrDefault(plan.loop.getLower());
    Value hi = mapping.lookupOrDefault(plan.loop.getUpper());
    // With a guard, each iteration evaluates the next one's (carried by the loop): the first
    // iteration's is evaluated here.
    SmallVector<Value> carried;
    if (plan.guard)
      carried.push_back(guardAt(mapping, lo));
    auto forOp = b.create<scf::ForOp>(loc, lo, hi, idx(1), carried,
                                      [&](OpBuilder &yb, Location yl, Value, ValueRange args) {
                                        yb.create<scf::YieldOp>(yl, args);
                                      });
    if (persistent) {
      b.setInsertionPointAfter(forOp);
      yieldNextTile(tiles, lo, hi);
    }
    b.setInsertionPointToStart(forOp.getBody());
    Value j = forOp.getInductionVar();
    auto [slot, round] = slotAndRound(j, lo, tiles.base);
    // Round r reuses the stage the consumers released in round r - 1; in round 0 the wait
    // for parity 1 passes at once.
    Value parity =
        b.create<arith::XOrIOp>(loc, b.create<arith::AndIOp>(loc, round, idx(1)), idx(1));
    llvm::MapVector<Value, int64_t> bytes; // ring -> bytes copied into one stage
    for (CopyOp copy : plan.copies)
      bytes[copy.getDest()] += cast<MemRefType>(copy.getDest().getType()).getNumElements() * 2;
    mapping.map(plan.loop.getInductionVar(), j);
    mapStages(mapping, slot);
    if (plan.guard) {
      copyGuarded(forOp, mapping, slot, parity, bytes);
      return;
    }
    llvm::DenseSet<Value> announced;
    for (Operation &op : plan.loop.getBody().front().without_terminator()) {
      if (!isStage0(&op))
        continue;
      if (auto copy = dyn_cast<CopyOp>(op)) {
        Barriers &pair = barriers[copy.getDest()];
        // Before the first copy into a stage: wait until the consumers released it and
        // announce every byte this iteration copies into it.
        if (announced.insert(copy.getDest()).second) {
          b.create<MbarrierWaitOp>(loc, pair.empty, slot, parity);
          b.create<MbarrierExpectTxOp>(loc, pair.full, slot, bytes[copy.getDest()]);
        }
        SmallVector<Value> indices;
        for (Value v : copy.getSourceIndices())
          indices.push_back(mapping.lookupOrDefault(v));
        b.create<TmaCopyOp>(loc, copy.getSource(), indices, mapping.lookup(copy.getDest()),
                            pair.full, slot, *copy.getDims());
        continue;
      }
      b.clone(op, mapping)->removeAttr(kPipelineStageAttr);
    }
  }

  /// The guard's condition for iteration `j` at the insertion point (the ops it depends on
  /// cloned with the induction variable mapped to `j`; `mapping` holds the producer's values
  /// outside the loop).
  Value guardAt(const IRMapping &mapping, Value j) {
    IRMapping at = mapping;
    at.map(plan.loop.getInductionVar(), j);
    for (Operation &op : plan.loop.getBody().front().without_terminator())
      if ((isStage0(&op) && !isa<CopyOp>(op)) || llvm::is_contained(plan.guardSlice, &op))
        b.clone(op, at)->removeAttr(kPipelineStageAttr);
    return at.lookupOrDefault(plan.guard.getCondition());
  }

  /// The producer's iteration with a guard (carried by `forOp`): per ring the wait for its
  /// stage and either its copies or, for an iteration the consumers skip, an arrival that
  /// announces no bytes (their wait for the stage then passes at once). The next iteration's
  /// guard is evaluated after the first ring's copies, so that its reads (the next tile's id
  /// bounds) are in flight while the producer waits for the later rings' stages (V's is
  /// released last) instead of delaying the next tile's first copy. On the last iteration it
  /// reads past the loop's range: tile.read and tile.read_bounds read 0 there.
  void copyGuarded(scf::ForOp forOp, IRMapping &mapping, Value slot, Value parity,
                   const llvm::MapVector<Value, int64_t> &bytes) {
    for (Operation &op : plan.loop.getBody().front().without_terminator())
      if (isStage0(&op) && !isa<CopyOp>(op))
        b.clone(op, mapping)->removeAttr(kPipelineStageAttr);
    Value visible = forOp.getRegionIterArgs().front();
    Value next;
    for (auto &[dest, count] : bytes) {
      Barriers &pair = barriers[dest];
      b.create<MbarrierWaitOp>(loc, pair.empty, slot, parity);
      auto copies = b.create<scf::IfOp>(loc, visible, /*withElseRegion=*/true);
      b.setInsertionPointToStart(copies.thenBlock());
      b.create<MbarrierExpectTxOp>(loc, pair.full, slot, count);
      for (CopyOp copy : plan.copies) {
        if (copy.getDest() != dest)
          continue;
        SmallVector<Value> indices;
        for (Value v : copy.getSourceIndices())
          indices.push_back(mapping.lookupOrDefault(v));
        b.create<TmaCopyOp>(loc, copy.getSource(), indices, mapping.lookup(dest), pair.full, slot,
                            *copy.getDims());
      }
      b.setInsertionPointToStart(copies.elseBlock());
      b.create<MbarrierExpectTxOp>(loc, pair.full, slot, 0);
      b.setInsertionPointAfter(copies);
      if (!next)
        next = guardAt(mapping, b.create<arith::AddIOp>(loc, forOp.getInductionVar(), idx(1)));
    }
    forOp.getBody()->getTerminator()->setOperand(0, next);
  }

  void buildConsumerLoop(Value base) {
    PipelinedOp loop = plan.loop;
    b.setInsertionPoint(loop);
    Value lo = loop.getLower();
    auto forOp = b.create<scf::ForOp>(loc, lo, loop.getUpper(), idx(1));
    consumerKvLoop = forOp;
    b.setInsertionPointToStart(forOp.getBody());
    Value j = forOp.getInductionVar();
    auto [slot, round] = slotAndRound(j, lo, base);
    Value parity = b.create<arith::AndIOp>(loc, round, idx(1));
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), j);
    mapStages(mapping, slot);
    for (Operation &op : loop.getBody().front().without_terminator()) {
      if (isStage0(&op) && isa<CopyOp>(op))
        continue;
      Operation *clone = b.clone(op, mapping);
      clone->walk([](Operation *inner) { inner->removeAttr(kPipelineStageAttr); });
    }
    // Each stage is waited for right before the first op that reads it and released right
    // after the last one (gemms wait for their wgmma, copies for their warp).
    Block *loopBody = forOp.getBody();
    for (auto &[original, multi] : ring) {
      Value view = mapping.lookup(original);
      Operation *first = nullptr, *last = nullptr;
      for (Operation &op : loopBody->without_terminator()) {
        if (op.getNumResults() == 1 && op.getResult(0) == view)
          continue;
        bool uses = false;
        op.walk([&](Operation *inner) { uses |= llvm::is_contained(inner->getOperands(), view); });
        if (uses) {
          first = first ? first : &op;
          last = &op;
        }
      }
      Barriers &pair = barriers[original];
      if (first)
        b.setInsertionPoint(first);
      else
        b.setInsertionPoint(loopBody->getTerminator());
      b.create<MbarrierWaitOp>(loc, pair.full, slot, parity);
      if (last)
        b.setInsertionPointAfter(last);
      b.create<MbarrierArriveOp>(loc, pair.empty, slot);
    }
    loop.erase();
  }

  /// The loop of a persistent kernel's side over its block's tiles (`for t = block_id to
  /// tileCount step num_blocks`), carrying `base` (kv iterations of the earlier tiles, for
  /// the rings' slots and phases) and `k` (earlier tiles, for the query barriers' phases).
  struct TileLoop {
    scf::ForOp loop;
    Value base, k;
    Value coords[3];
  };

  /// The grid's block count, from the kernel's `grid` triples (as the launch computes it).
  void buildTileCount() {
    ArrayRef<int64_t> grid = kernel.getGrid();
    Block &body = kernel.getBody().front();
    for (int d = 0; d < 3; ++d) {
      int64_t param = grid[3 * d], dim = grid[3 * d + 1], divisor = grid[3 * d + 2];
      if (param < 0) {
        extents[d] = idx(divisor);
        continue;
      }
      Value size = b.create<DimOp>(loc, b.getIndexType(), body.getArgument(param), dim);
      extents[d] = b.create<arith::CeilDivSIOp>(loc, size, idx(divisor));
    }
    tileCount = b.create<arith::MulIOp>(loc, b.create<arith::MulIOp>(loc, extents[0], extents[1]),
                                        extents[2]);
  }

  /// Opens a TileLoop at the insertion point and leaves it inside, after the tile's grid
  /// coordinates. Round i of n blocks covers tiles [i*n, i*n + m), m = min(n, T - i*n), in
  /// x-fastest order, so blocks working at once share keys and values in L2 as a plain
  /// launch's do; block p takes tile i*n + (p + i) mod m, so its x changes from round to
  /// round even when n is a multiple of the grid's x extent (a causal kernel would otherwise
  /// give some blocks only its longest rows). x runs backwards: the longest rows first.
  TileLoop openTileLoop() {
    TileLoop tiles;
    Value block = b.create<BlockIdOp>(loc, b.getIndexType(), 0);
    Value blocks = b.create<NumBlocksOp>(loc, b.getIndexType(), 0);
    Value zero = idx(0);
    tiles.loop = b.create<scf::ForOp>(loc, block, tileCount, blocks, ValueRange{zero, zero});
    Block *body = tiles.loop.getBody();
    tiles.base = body->getArgument(1);
    tiles.k = body->getArgument(2);
    b.setInsertionPointToStart(body);
    Value t = tiles.loop.getInductionVar();
    Value round = b.create<arith::DivUIOp>(loc, t, blocks);
    Value roundStart = b.create<arith::MulIOp>(loc, round, blocks);
    Value p = b.create<arith::SubIOp>(loc, t, roundStart);
    Value m =
        b.create<arith::MinSIOp>(loc, blocks, b.create<arith::SubIOp>(loc, tileCount, roundStart));
    Value turned = b.create<arith::RemUIOp>(loc, b.create<arith::AddIOp>(loc, p, round), m);
    Value tile = b.create<arith::AddIOp>(loc, roundStart, turned);
    Value x = b.create<arith::RemUIOp>(loc, tile, extents[0]);
    tiles.coords[0] =
        b.create<arith::SubIOp>(loc, b.create<arith::SubIOp>(loc, extents[0], idx(1)), x);
    Value rest = b.create<arith::DivUIOp>(loc, tile, extents[0]);
    tiles.coords[1] = b.create<arith::RemUIOp>(loc, rest, extents[1]);
    tiles.coords[2] = b.create<arith::DivUIOp>(loc, rest, extents[1]);
    return tiles;
  }

  /// (k & 1) ^ flip: the phase of the query barriers this tile waits for.
  Value tileParity(const TileLoop &tiles, int64_t flip) {
    Value parity = b.create<arith::AndIOp>(loc, tiles.k, idx(1));
    return flip ? b.create<arith::XOrIOp>(loc, parity, idx(flip)).getResult() : parity;
  }

  /// Ends a tile of a TileLoop whose kv loop ran from `lo` to `hi`.
  void yieldNextTile(const TileLoop &tiles, Value lo, Value hi) {
    Value count = b.create<arith::MaxSIOp>(loc, b.create<arith::SubIOp>(loc, hi, lo), idx(0));
    b.create<scf::YieldOp>(loc, ValueRange{b.create<arith::AddIOp>(loc, tiles.base, count),
                                           b.create<arith::AddIOp>(loc, tiles.k, idx(1))});
  }

  static void replaceBlockIds(Block &block, const TileLoop &tiles) {
    block.walk([&](BlockIdOp id) {
      id.getResult().replaceAllUsesWith(tiles.coords[id.getDim()]);
      id.erase();
    });
  }

  /// Releases the query tiles after their last read, orders the consumers' own shared
  /// buffers between tiles, and ends the consumers' tile.
  void closeConsumerTileLoop(TileLoop &tiles) {
    Block *body = tiles.loop.getBody();
    if (prologueEmpty) {
      Operation *last = nullptr;
      for (Operation &op : *body) {
        bool reads = false;
        op.walk([&](Operation *inner) {
          for (CopyOp copy : plan.prologueCopies)
            reads |= llvm::is_contained(inner->getOperands(), copy.getDest());
        });
        if (reads)
          last = &op;
      }
      if (last) {
        b.setInsertionPointAfter(last);
      } else {
        b.setInsertionPointToEnd(body);
      }
      b.create<MbarrierArriveOp>(loc, prologueEmpty, idx(0));
    }
    b.setInsertionPointToEnd(body);
    if (writesOwnSharedBuffers(*body))
      b.create<BarrierOp>(loc); // the next tile's writes wait for this tile's readers
    yieldNextTile(tiles, consumerKvLoop.getLowerBound(), consumerKvLoop.getUpperBound());
  }

  /// Whether the consumers write a shared buffer other than the producer's (rings, query
  /// tiles), barriers, and per-warp staging buffers (each warp only touches its own rows).
  bool writesOwnSharedBuffers(Block &body) {
    llvm::DenseSet<Value> exempt;
    for (CopyOp copy : plan.prologueCopies)
      exempt.insert(copy.getDest());
    bool writes = false;
    body.walk([&](Operation *op) {
      if (auto copy = dyn_cast<CopyOp>(op)) {
        if (copy.getStaging())
          exempt.insert(copy.getStaging());
        auto dest = dyn_cast<MemRefType>(copy.getDest().getType());
        writes |= dest && isShared(dest) && !exempt.contains(copy.getDest());
        return;
      }
      if (isa<GemmOp, StageOp, MbarrierWaitOp, MbarrierArriveOp>(op))
        return; // gemms write fragments; stages and barriers are the producer's protocol
      for (Value operand : op->getOperands()) {
        auto type = dyn_cast<MemRefType>(operand.getType());
        if (type && isShared(type) && !exempt.contains(operand) &&
            !operand.getDefiningOp<StageOp>())
          writes |=
              !isa<MemoryEffectOpInterface>(op) || hasEffect<MemoryEffects::Write>(op, operand);
      }
    });
    return writes;
  }

  struct Barriers {
    Value full, empty;
  };

  KernelOp kernel;
  Plan &plan;
  OpBuilder b;
  Location loc;
  int64_t stages;
  llvm::MapVector<Value, Value> ring;       // single-stage buffer -> ring of stages
  llvm::DenseMap<Value, Barriers> barriers; // single-stage buffer -> its ring's mbarriers
  SmallVector<Value> prologueBarriers;      // one per plan.prologueCopies
  bool persistent;
  Value prologueEmpty; // persistent: the consumers are done with the query tiles
  Value extents[3];    // persistent: the grid
  Value tileCount;     // persistent: its block count
  scf::ForOp consumerKvLoop;
};

struct TileWarpSpecializePass
    : public metaattn::tile::impl::TileWarpSpecializeBase<TileWarpSpecializePass> {
  using Base::Base;

  void runOnOperation() override {
    if (!targetHasWgmma(target))
      return;
    KernelOp kernel = getOperation();
    Plan plan;
    std::string why = analyse(kernel, plan, persistent, skipLoads);
    if (!why.empty()) {
      if (plan.loop && verbose)
        plan.loop.emitRemark() << "not warp-specialised: " << why;
      return;
    }
    Rewriter(kernel, plan, persistent).run();
  }
};

} // namespace
