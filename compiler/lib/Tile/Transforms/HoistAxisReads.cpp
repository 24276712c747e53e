//===- HoistAxisReads.cpp - tile-hoist-axis-reads ---------------------------===//
//
// A read of a kernel input inside a 2-D tile.parallel over an mma fragment whose indices
// depend on the row only (or the column only) is taken out into a 1-D loop over the rows
// (columns) this thread holds, which fills a row (column) vector; the element loop reads the
// vector. A document mask's query and key ids are then read 2 + 32 times per thread and kv
// tile instead of twice per element (128 times).
//
//===----------------------------------------------------------------------===//

#include "metaattn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <map>
#include <optional>

namespace metaattn::tile {
#define GEN_PASS_DEF_TILEHOISTAXISREADS
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace metaattn::tile

using namespace mlir;
using namespace metaattn::tile;

namespace {

/// Whether `a` computed in loop `pa` from its induction variable `argA` and `b` computed in
/// loop `pb` from its variable `argB` are the same function of them and of the values
/// defined above both loops.
bool sameIndex(Value a, ParallelOp pa, unsigned argA, Value b, ParallelOp pb, unsigned argB) {
  return sameParallelValue(a, pa, b, pb,
                           [&](unsigned i, unsigned j) { return i == argA && j == argB; });
}

/// The layout of the rank-2 fragment that gives the loop its thread mapping, if mma.
FragmentLayoutAttr anchorLayout(ParallelOp par) {
  Value anchor = getParallelAnchor(par);
  FragmentLayoutAttr layout = anchor ? getFragmentLayout(anchor) : FragmentLayoutAttr();
  return layout && layout.getKind() == "mma" ? layout : FragmentLayoutAttr();
}

/// A vector of reads along one axis: the read it holds, in loop `source` as a function of
/// that loop's induction variable `sourceArg` (the element loop's axis until the vector is
/// filled, then variable 0 of the loop that fills it).
struct Vector {
  Value buffer;
  ReadOp read;
  ParallelOp source;
  unsigned sourceArg;
  unsigned axis;
};

struct TileHoistAxisReadsPass
    : public metaattn::tile::impl::TileHoistAxisReadsBase<TileHoistAxisReadsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    // Without the list of outputs any argument may be written: leave every read where it is.
    std::optional<llvm::SmallDenseSet<Value>> written = getKernelOutputs(kernel);
    if (!written)
      return;
    const llvm::SmallDenseSet<Value> &outputs = *written;

    SmallVector<ParallelOp> loops;
    kernel.walk([&](ParallelOp par) {
      if (par.getShape().size() == 2)
        loops.push_back(par);
    });
    // The vectors filled so far in each block: a later loop of the block reuses them (the
    // mask is evaluated where the scores are masked and again where they are exponentiated).
    llvm::DenseMap<Block *, SmallVector<Vector>> filled;
    for (ParallelOp par : loops) {
      FragmentLayoutAttr layout = anchorLayout(par);
      if (!layout)
        continue;
      llvm::DenseMap<Value, unsigned> memo;
      SmallVector<std::pair<ReadOp, unsigned>> reads;
      SmallVector<ReadOp> unused;
      par.getBody().walk([&](ReadOp read) {
        // A read nothing uses (a mask's ids where the weights no longer test the mask) goes,
        // rather than becoming a vector filled for nobody.
        if (read.getResult().use_empty()) {
          unused.push_back(read);
          return;
        }
        if (outputs.contains(read.getTensor()))
          return;
        unsigned mask = 0;
        for (Value index : read.getIndices()) {
          std::optional<unsigned> inner = parallelAxes(index, par, memo);
          if (!inner)
            return;
          mask |= *inner;
        }
        // Both axes: per element; neither: tile-hoist-invariant-reads' work.
        if (mask == 1u || mask == 2u)
          reads.push_back({read, mask == 1u ? 0u : 1u});
      });
      for (ReadOp read : unused)
        read.erase();
      SmallVector<Vector> &vectors = filled[par->getBlock()];
      for (unsigned axis : {0u, 1u}) {
        // Each read takes a vector of the block that holds the same read, or a fresh one
        // filled in front of `par` (one per group of identical reads).
        SmallVector<Vector> fresh;
        SmallVector<std::pair<ReadOp, std::pair<Value, int>>> uses; // a vector or fresh[i]
        for (auto [read, readAxis] : reads) {
          if (readAxis != axis)
            continue;
          ReadOp r = read;
          auto same = [&](Vector v) {
            return v.axis == axis && v.read.getTensor() == r.getTensor() &&
                   v.read.getType() == r.getType() &&
                   v.source.getShape()[v.sourceArg] == par.getShape()[axis] &&
                   llvm::all_of(llvm::zip(v.read.getIndices(), r.getIndices()), [&](auto xy) {
                     return sameIndex(std::get<0>(xy), v.source, v.sourceArg, std::get<1>(xy), par,
                                      axis);
                   });
          };
          if (const Vector *v = llvm::find_if(vectors, same); v != vectors.end()) {
            uses.push_back({read, {v->buffer, -1}});
            continue;
          }
          const Vector *v = llvm::find_if(fresh, same);
          int index = v - fresh.begin();
          if (v == fresh.end())
            fresh.push_back({Value(), read, par, axis, axis});
          uses.push_back({read, {Value(), index}});
        }
        if (!fresh.empty())
          fill(par, axis, layout.getWarps(), fresh);
        Value index = par.getBody().front().getArgument(axis);
        for (auto &[read, target] : uses) {
          Value buffer = target.second < 0 ? target.first : fresh[target.second].buffer;
          OpBuilder here(read);
          read.replaceAllUsesWith(
              here.create<memref::LoadOp>(read.getLoc(), buffer, index).getResult());
        }
        vectors.append(fresh.begin(), fresh.end());
        for (auto &[read, target] : uses)
          read.erase();
      }
    }
  }

  /// Allocates the vectors of `fresh` and fills them with one 1-D loop, placed as early in
  /// `par`'s block as its operands allow (its loads then overlap what comes before `par`: the
  /// score gemm).
  void fill(ParallelOp par, unsigned axis, unsigned warps, MutableArrayRef<Vector> fresh) {
    MLIRContext *ctx = par.getContext();
    Location loc = par.getLoc();
    int64_t extent = par.getShape()[axis];
    auto layout = FragmentLayoutAttr::get(ctx, axis == 0 ? "row" : "col", warps);
    OpBuilder b(par);
    SmallVector<Operation *> made;
    for (Vector &v : fresh) {
      MemRefType type = getBufferType(ctx, {extent}, v.read.getType(), MemorySpace::fragment);
      auto alloc = b.create<AllocOp>(loc, type, layout);
      v.buffer = alloc.getBuffer();
      made.push_back(alloc);
    }
    auto loop = b.create<ParallelOp>(loc, ArrayRef<int64_t>{extent});
    made.push_back(loop);
    Block &body = loop.getBody().front();
    OpBuilder inner(body.getTerminator());
    IRMapping map;
    map.map(par.getBody().front().getArgument(axis), body.getArgument(0));
    for (Vector &v : fresh) {
      SmallVector<Value> indices;
      for (Value index : v.read.getIndices())
        indices.push_back(cloneParallelChain(index, par, map, inner));
      auto read = inner.create<ReadOp>(loc, v.read.getType(), v.read.getTensor(), indices);
      inner.create<memref::StoreOp>(loc, read.getResult(), v.buffer, body.getArgument(0));
      // From now on the vector is known by its fill (the element loop's read goes away).
      v.read = read;
      v.source = loop;
      v.sourceArg = 0;
    }
    // Up the block past every op that defines nothing the loop reads.
    llvm::SmallDenseSet<Operation *> definers;
    loop.walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          definers.insert(def);
    });
    Operation *first = made.front();
    Operation *before = first;
    while (Operation *prev = before->getPrevNode()) {
      bool defines = false;
      prev->walk([&](Operation *op) { defines |= definers.contains(op); });
      if (defines)
        break;
      before = prev;
    }
    if (before != first)
      for (Operation *op : made)
        op->moveBefore(before);
  }
};

} // namespace

Value metaattn::tile::cloneParallelChain(Value value, ParallelOp par, IRMapping &map,
                                         OpBuilder &b) {
  return cloneChainInside(value, par, map, b);
}

Value metaattn::tile::cloneChainInside(Value value, Operation *scope, IRMapping &map,
                                       OpBuilder &b) {
  if (!scope->isAncestor(value.getParentRegion()->getParentOp()))
    return value;
  if (Value mapped = map.lookupOrNull(value))
    return mapped;
  Operation *op = value.getDefiningOp();
  for (Value operand : op->getOperands())
    cloneChainInside(operand, scope, map, b);
  return b.clone(*op, map)->getResult(0);
}

bool metaattn::tile::sameParallelValue(Value a, ParallelOp pa, Value b, ParallelOp pb,
                                       llvm::function_ref<bool(unsigned, unsigned)> sameArg) {
  bool aAbove = !pa->isAncestor(a.getParentRegion()->getParentOp());
  bool bAbove = !pb->isAncestor(b.getParentRegion()->getParentOp());
  if (aAbove || bAbove)
    return aAbove && bAbove && a == b;
  auto argA = dyn_cast<BlockArgument>(a), argB = dyn_cast<BlockArgument>(b);
  if (argA || argB)
    return argA && argB && argA.getOwner() == &pa.getBody().front() &&
           argB.getOwner() == &pb.getBody().front() &&
           sameArg(argA.getArgNumber(), argB.getArgNumber());
  Operation *opA = a.getDefiningOp(), *opB = b.getDefiningOp();
  if (opA->getName() != opB->getName() || opA->getAttrDictionary() != opB->getAttrDictionary() ||
      opA->getResultTypes() != opB->getResultTypes() ||
      opA->getNumOperands() != opB->getNumOperands())
    return false;
  for (auto [x, y] : llvm::zip(opA->getOperands(), opB->getOperands()))
    if (!sameParallelValue(x, pa, y, pb, sameArg))
      return false;
  return true;
}

std::optional<unsigned> metaattn::tile::parallelAxes(Value value, ParallelOp par,
                                                     llvm::DenseMap<Value, unsigned> &memo) {
  if (!par->isAncestor(value.getParentRegion()->getParentOp()))
    return 0u; // defined above the loop
  if (auto it = memo.find(value); it != memo.end())
    return it->second;
  Block &body = par.getBody().front();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() != &body)
      return std::nullopt;
    return 1u << arg.getArgNumber();
  }
  Operation *op = value.getDefiningOp();
  if (op->getNumRegions() != 0 || op->getNumResults() != 1 || !isPure(op))
    return std::nullopt;
  unsigned mask = 0;
  for (Value operand : op->getOperands()) {
    std::optional<unsigned> inner = parallelAxes(operand, par, memo);
    if (!inner)
      return std::nullopt;
    mask |= *inner;
  }
  memo[value] = mask;
  return mask;
}
