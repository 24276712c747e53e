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

} // namespace

GemmOp metaattn::tile::asyncScoreGemmBefore(ParallelOp par, Value scores) {
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

SmallVector<ScoreLoop> metaattn::tile::getScoreLoops(Region &region) {
  SmallVector<ScoreLoop> loops;
  region.walk([&](ParallelOp par) {
    if (par.getShape().size() != 2)
      return;
    Value scores = getParallelAnchor(par);
    FragmentLayoutAttr layout = scores ? getFragmentLayout(scores) : FragmentLayoutAttr();
    if (!layout || layout.getKind() != "mma")
      return;
    if (GemmOp gemm = asyncScoreGemmBefore(par, scores))
      loops.push_back({par, scores, gemm});
  });
  return loops;
}

bool metaattn::tile::sameElementRead(Value tensor, ValueRange indices, ParallelOp loop, ReadOp read,
                                     ParallelOp par) {
  return tensor == read.getTensor() && indices.size() == read.getIndices().size() &&
         llvm::all_of(llvm::zip(indices, read.getIndices()), [&](auto xy) {
           return sameParallelValue(std::get<0>(xy), loop, std::get<1>(xy), par,
                                    std::equal_to<unsigned>());
         });
}

bool metaattn::tile::readAvailableAfter(ReadOp read, ParallelOp par, GemmOp gemm,
                                        DominanceInfo &dominance) {
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

bool metaattn::tile::axisPlus(Value index, ParallelOp par, unsigned axis,
                              llvm::DenseMap<Value, unsigned> &memo) {
  Value variable = par.getBody().front().getArgument(axis);
  auto onAxis = [&](Value v) {
    std::optional<unsigned> axes = parallelAxes(v, par, memo);
    return axes && (*axes & (1u << axis)) != 0;
  };
  while (index != variable) {
    Operation *def = index.getDefiningOp();
    if (auto add = dyn_cast_or_null<arith::AddIOp>(def)) {
      bool lhs = onAxis(add.getLhs()), rhs = onAxis(add.getRhs());
      if (lhs == rhs)
        return false;
      index = lhs ? add.getLhs() : add.getRhs();
    } else if (auto sub = dyn_cast_or_null<arith::SubIOp>(def)) {
      if (!onAxis(sub.getLhs()) || onAxis(sub.getRhs()))
        return false;
      index = sub.getLhs();
    } else {
      return false;
    }
  }
  return true;
}

namespace {

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
    DominanceInfo dominance(kernel);
    SmallVector<Prefetched> done;
    for (const ScoreLoop &score : getScoreLoops(kernel.getBody())) {
      ParallelOp par = score.loop;
      GemmOp gemm = score.gemm;
      llvm::DenseMap<Value, unsigned> memo;
      par.getBody().walk([&](ReadOp read) {
        if (written->contains(read.getTensor()) || !rowAlongColumns(read, par, memo) ||
            !readAvailableAfter(read, par, gemm, dominance))
          return;
        bool seen = llvm::any_of(done, [&](const Prefetched &p) {
          ReadOp other = p.read;
          return p.gemm == gemm &&
                 sameElementRead(other.getTensor(), other.getIndices(), p.loop, read, par);
        });
        if (seen)
          return;
        prefetchRows(read, par, gemm);
        done.push_back({gemm, read, par});
      });
    }
  }

  /// Whether `read` takes a row of the tensor's last (contiguous) axis along `par`'s columns:
  /// its last index is the column variable plus or minus values that do not depend on it
  /// (so neighbouring columns read neighbouring elements: not a block map's `kv / 80`), the
  /// others depend on the row (or neither) and not on the column.
  static bool rowAlongColumns(ReadOp read, ParallelOp par, llvm::DenseMap<Value, unsigned> &memo) {
    OperandRange indices = read.getIndices();
    if (indices.empty())
      return false;
    for (auto [d, index] : llvm::enumerate(indices)) {
      std::optional<unsigned> axes = parallelAxes(index, par, memo);
      if (!axes)
        return false;
      bool last = d + 1 == indices.size();
      if (last ? *axes != 2u || !axisPlus(index, par, /*axis=*/1, memo) : (*axes & 2u) != 0)
        return false;
    }
    return true;
  }

  /// Right after `gemm`: a loop over the rows of `par` that prefetches the cache lines of
  /// each row's columns into L1: the columns 0, L, 2L, ... and the last one (L elements to a
  /// line: a row that starts inside a line ends in the line after its last multiple of L).
  /// One thread takes a row and all its lines, so it keeps one row's offset, not one per
  /// line (spreading rows and lines over the threads gave each thread three 64-bit row
  /// offsets: ptxas spilled 52 B at D128, 44 B so, 8 B without the prefetch).
  static void prefetchRows(ReadOp read, ParallelOp par, GemmOp gemm) {
    Location loc = read.getLoc();
    int64_t rows = par.getShape()[0], cols = par.getShape()[1];
    Type elementType = read.getType();
    int64_t bytes = std::max<int64_t>(elementType.getIntOrFloatBitWidth() / 8, 1);
    int64_t perLine = std::max<int64_t>(kLineBytes / bytes, 1);
    OpBuilder b(gemm->getContext());
    b.setInsertionPointAfter(gemm);
    auto loop = b.create<ParallelOp>(loc, ArrayRef<int64_t>{rows});
    Block &body = loop.getBody().front();
    OpBuilder inner(body.getTerminator());
    Block &from = par.getBody().front();
    SmallVector<int64_t> columns;
    for (int64_t c = 0; c < cols; c += perLine)
      columns.push_back(c);
    if (columns.back() != cols - 1)
      columns.push_back(cols - 1);
    for (int64_t c : columns) {
      IRMapping map;
      map.map(from.getArgument(0), body.getArgument(0));
      map.map(from.getArgument(1), inner.create<arith::ConstantIndexOp>(loc, c).getResult());
      SmallVector<Value> indices;
      for (Value index : read.getIndices())
        indices.push_back(cloneParallelChain(index, par, map, inner));
      inner.create<PrefetchOp>(loc, read.getTensor(), indices, /*level=*/1);
    }
  }
};

} // namespace
