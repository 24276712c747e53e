//===- PrefetchElementReads.cpp - tile-prefetch-element-reads ----------------===//
//
// A score that adds a matrix input (a relative-position bias: one value per query and key)
// reads it element by element in the loop over the score fragment, which runs after the
// score gemm has been waited for: every kv tile then waits for those loads (L2 or memory
// latency) with the tensor cores idle. Reading them into registers earlier does not fit (a
// 128 x 128 f32 fragment is 64 more registers per thread beside the scores, the output and
// the probabilities: ptxas spilled 220 B at D128). This pass instead prefetches the lines of
// the tile's rows into L1 right after the async score gemm is issued, so the loads behind the
// gemm's wait find them there.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEPREFETCHELEMENTREADS
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// Bytes of a cache line: one prefetch per line of a row.
constexpr int64_t kLineBytes = 128;

/// The async gemm that writes `scores` and comes before `par` in the same iteration: in
/// `par`'s block or in a block of an enclosing `scf.if` (not across a loop's iterations).
GemmOp scoreGemmBefore(ParallelOp par, Value scores) {
  for (Operation *at = par; at;) {
    for (Operation *prev = at->getPrevNode(); prev; prev = prev->getPrevNode())
      if (auto gemm = dyn_cast<GemmOp>(prev); gemm && gemm.getAsync() && gemm.getC() == scores)
        return gemm;
    at = at->getParentOp();
    if (!isa_and_nonnull<scf::IfOp>(at))
      return nullptr;
  }
  return nullptr;
}

/// Whether every value `read`'s indices take from above `par` is available right after
/// `gemm`.
bool availableAfter(ReadOp read, ParallelOp par, GemmOp gemm, DominanceInfo &dominance) {
  SmallVector<Value> worklist(read.getIndices());
  llvm::SmallPtrSet<Value, 16> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (par->isAncestor(v.getParentRegion()->getParentOp())) {
      if (Operation *def = v.getDefiningOp())
        llvm::append_range(worklist, def->getOperands());
      continue;
    }
    if (!dominance.properlyDominates(v, gemm))
      return false;
  }
  return true;
}

/// A read whose rows' lines are prefetched after a score gemm (in the loop it was found in).
struct Prefetched {
  GemmOp gemm;
  ReadOp read;
  ParallelOp loop;
};

struct TilePrefetchElementReadsPass
    : public metaattn::tile::impl::TilePrefetchElementReadsBase<TilePrefetchElementReadsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    // Without the list of outputs any argument may be written: leave every read alone.
    std::optional<llvm::SmallDenseSet<Value>> written = getKernelOutputs(kernel);
    if (!written)
      return;
    SmallVector<ParallelOp> loops;
    kernel.walk([&](ParallelOp par) {
      if (par.getShape().size() == 2)
        loops.push_back(par);
    });
    DominanceInfo dominance(kernel);
    SmallVector<Prefetched> done;
    for (ParallelOp par : loops) {
      Value scores = getParallelAnchor(par);
      FragmentLayoutAttr layout = scores ? getFragmentLayout(scores) : FragmentLayoutAttr();
      if (!layout || layout.getKind() != "mma")
        continue;
      GemmOp gemm = scoreGemmBefore(par, scores);
      if (!gemm)
        continue;
      llvm::DenseMap<Value, unsigned> memo;
      par.getBody().walk([&](ReadOp read) {
        if (written->contains(read.getTensor()) || !rowAlongColumns(read, par, memo) ||
            !availableAfter(read, par, gemm, dominance))
          return;
        bool seen = llvm::any_of(done, [&](const Prefetched &p) {
          ReadOp other = p.read;
          return p.gemm == gemm && other.getTensor() == read.getTensor() &&
                 llvm::all_of(llvm::zip(other.getIndices(), read.getIndices()), [&](auto xy) {
                   return sameParallelValue(std::get<0>(xy), p.loop, std::get<1>(xy), par,
                                            std::equal_to<unsigned>());
                 });
        });
        if (seen)
          return;
        prefetchRows(read, par, gemm);
        done.push_back({gemm, read, par});
      });
    }
  }

  /// Whether `read` takes a row of the tensor's last (contiguous) axis along `par`'s columns:
  /// its last index depends on the column variable and not on the row, the others on the row
  /// (or neither) and not on the column.
  static bool rowAlongColumns(ReadOp read, ParallelOp par, llvm::DenseMap<Value, unsigned> &memo) {
    OperandRange indices = read.getIndices();
    if (indices.empty())
      return false;
    for (auto [d, index] : llvm::enumerate(indices)) {
      std::optional<unsigned> axes = parallelAxes(index, par, memo);
      if (!axes)
        return false;
      bool last = d + 1 == indices.size();
      if (last ? *axes != 2u : (*axes & 2u) != 0)
        return false;
    }
    return true;
  }

  /// Right after `gemm`: a loop over the cache lines of a row's columns and the rows of `par`
  /// that prefetches each line into L1 (the columns 0, L, 2L, ... and the last one, L
  /// elements to a line: a row that starts inside a line ends in the line after its last
  /// multiple of L). Rows vary fastest, so the threads split the loop by shifts (rows are a
  /// power of two), not by divisions by the line count.
  static void prefetchRows(ReadOp read, ParallelOp par, GemmOp gemm) {
    Location loc = read.getLoc();
    int64_t rows = par.getShape()[0], cols = par.getShape()[1];
    Type elementType = read.getType();
    int64_t bytes = std::max<int64_t>(elementType.getIntOrFloatBitWidth() / 8, 1);
    int64_t perLine = std::max<int64_t>(kLineBytes / bytes, 1);
    int64_t lines = (cols + perLine - 1) / perLine + (cols > 1 ? 1 : 0);
    OpBuilder b(gemm->getContext());
    b.setInsertionPointAfter(gemm);
    auto loop = b.create<ParallelOp>(loc, ArrayRef<int64_t>{lines, rows});
    Block &body = loop.getBody().front();
    OpBuilder inner(body.getTerminator());
    Value line = inner.create<arith::MulIOp>(loc, body.getArgument(0),
                                             inner.create<arith::ConstantIndexOp>(loc, perLine));
    Value column = inner.create<arith::MinSIOp>(
        loc, line, inner.create<arith::ConstantIndexOp>(loc, cols - 1));
    Block &from = par.getBody().front();
    IRMapping map;
    map.map(from.getArgument(0), body.getArgument(1));
    map.map(from.getArgument(1), column);
    SmallVector<Value> indices;
    for (Value index : read.getIndices())
      indices.push_back(cloneParallelChain(index, par, map, inner));
    inner.create<PrefetchOp>(loc, read.getTensor(), indices, /*level=*/1);
  }
};

} // namespace
