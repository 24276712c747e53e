//===- RecurrentOperands.cpp - a chunk's operands in shared memory ----------===//
//
// RecurrentKernelBuilder members that stage a chunk's operands: custom-input reads, the
// modifier regions applied in place, the chunk's gate and row-input copies, the gate scan, the
// state's start and the chunk loop.
//
//===----------------------------------------------------------------------===//

#include "RecurrentKernelBuilder.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace metaattn;
using namespace metaattn::tile;
using attn::GateKind;
using attn::RecurrentDim;

SmallVector<Value> RecurrentKernelBuilder::readInputs(Value t, Value d, Value row) {
  SmallVector<Value> values;
  for (auto [i, dims] : llvm::enumerate(inputDims)) {
    if (inputScalars[i]) {
      values.push_back(inputScalars[i]);
      continue;
    }
    if (inputRows[i]) {
      values.push_back(load(inputRows[i], {row}));
      continue;
    }
    Type type = cast<RankedTensorType>(op.getInputs()[i].getType()).getElementType();
    SmallVector<Value> indices;
    for (RecurrentDim dim : dims)
      indices.push_back(dim == RecurrentDim::B   ? batch
                        : dim == RecurrentDim::T ? t
                        : dim == RecurrentDim::H ? head
                                                 : d);
    values.push_back(b.create<ReadOp>(loc, type, inputParams[i], indices));
  }
  return values;
}

Value RecurrentKernelBuilder::modify(Region &region, Value x, Value t, Value d, Value row) {
  if (region.empty())
    return x;
  SmallVector<Value> args = {x, batch, t, head, d};
  llvm::append_range(args, readInputs(t, d, row));
  return inlineRegion(region, args).front();
}

bool RecurrentKernelBuilder::isRowInput(size_t i) const {
  return llvm::is_contained(inputDims[i], RecurrentDim::T) &&
         !llvm::is_contained(inputDims[i], RecurrentDim::D);
}

bool RecurrentKernelBuilder::qModIsRowFactor() {
  Region &region = op.getQMod();
  if (region.empty() || !region.hasOneBlock())
    return false;
  Block &body = region.front();
  auto yield = dyn_cast<attn::YieldOp>(body.getTerminator());
  if (!yield || yield->getNumOperands() != 1)
    return false;
  auto mul = yield->getOperand(0).getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value x = body.getArgument(0), d = body.getArgument(4);
  // The factor must not depend on x or d: walk its backward slice inside the region.
  auto independent = [&](Value factor) {
    SmallVector<Value> work = {factor};
    llvm::DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (v == x || v == d)
        return false;
      // An input indexed by the key dim varies with d too.
      if (auto arg = dyn_cast<BlockArgument>(v);
          arg && arg.getOwner() == &body && arg.getArgNumber() >= 5 &&
          llvm::is_contained(inputDims[arg.getArgNumber() - 5], RecurrentDim::D))
        return false;
      Operation *def = v.getDefiningOp();
      if (!def || def->getParentRegion() != &region)
        continue;
      if (def->getNumRegions() != 0)
        return false;
      llvm::append_range(work, def->getOperands());
    }
    return true;
  };
  return (mul.getLhs() == x && independent(mul.getRhs())) ||
         (mul.getRhs() == x && independent(mul.getLhs()));
}

bool RecurrentKernelBuilder::copyChunkVectors(Value t0, bool async) {
  // Out-of-bounds rows arrive as zeros; loadGates and the modifiers mask them.
  auto copy = [&](Value param, ValueRange indices, Value buffer, ArrayRef<int64_t> dims) {
    b.create<CopyOp>(loc, param, indices, buffer, ValueRange{}, b.getDenseI64ArrayAttr(dims),
                     async);
  };
  bool any = false;
  if (kind == GateKind::vector || kind == GateKind::token) {
    SmallVector<Value> indices = {batch, t0, head};
    if (vectorGate)
      indices.push_back(k0);
    copy(readsCumGates ? cumGatesParam : gateParam, indices, gates,
         vectorGate ? ArrayRef<int64_t>{1, 3} : ArrayRef<int64_t>{1});
    any = true;
  }
  for (size_t i = 0; i < inputRows.size(); ++i) {
    if (!inputRows[i])
      continue;
    SmallVector<Value> indices;
    int64_t tDim = 0;
    for (auto [n, dim] : llvm::enumerate(inputDims[i])) {
      if (dim == RecurrentDim::T)
        tDim = n;
      indices.push_back(dim == RecurrentDim::B ? batch : dim == RecurrentDim::T ? t0 : head);
    }
    copy(inputParams[i], indices, inputRows[i], {tDim});
    any = true;
  }
  return any;
}

void RecurrentKernelBuilder::loadGates(Value t0) {
  // log α per row (and key dim) of the chunk, through gate_mod, in place; zero past the
  // sequence, so the last chunk's total decay is that of its real rows. Gates per token (and
  // key dim) are already in `gates`, copied with the chunk's other operands; a gate per head
  // is read here. Without gate_mod the copies' zero fill past the sequence (and the key
  // dim) is the masking already, and the scan follows the barrier that made them visible.
  if (kind != GateKind::head && op.getGateMod().empty()) {
    b.create<ScanOp>(loc, gates);
    b.create<BarrierOp>(loc);
    return;
  }
  SmallVector<int64_t> shape = {chunk};
  if (vectorGate)
    shape.push_back(gateCols);
  SmallVector<Value> ivs;
  ParallelOp par = beginParallel(shape, ivs);
  Value t = add(t0, ivs[0]);
  Value d = vectorGate ? add(k0, ivs[1]) : idx(0);
  Value g = kind == GateKind::head ? b.create<ReadOp>(loc, b.getF32Type(), gateParam, head)
                                   : load(gates, ivs);
  g = modify(op.getGateMod(), g, t, d, ivs[0]);
  Value valid = lessThan(t, seqLen);
  if (vectorGate)
    valid = andI(valid, lessThan(d, idx(keyDim)));
  store(select(valid, g, f32(0.0)), gates, ivs);
  endParallel(par);
  b.create<BarrierOp>(loc);
  b.create<ScanOp>(loc, gates);
  b.create<BarrierOp>(loc);
}

void RecurrentKernelBuilder::applyModifiers(Value t0, Value keyOffset, bool keys, bool values) {
  // In place in shared memory; elements past the sequence or the head dim become zero. The
  // key operands (q in the output kernel, k) are the key tile at `keyOffset`.
  struct Operand {
    Region *region;
    Value buffer;
    int64_t cols, dim;
    Value colOffset;
  } operands[] = {{&op.getQMod(), keys && outputKernel && !qRowFactor ? qS : Value(), keyCols,
                   keyDim, keyOffset},
                  {&op.getKMod(), keys ? kS : Value(), keyCols, keyDim, keyOffset},
                  {&op.getVMod(), values ? vS : Value(), blockV, valueDim, v0}};
  bool any = false;
  for (Operand &o : operands) {
    if (o.region->empty() || !o.buffer)
      continue;
    any = true;
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({chunk, o.cols}, ivs);
    Value t = add(t0, ivs[0]);
    Value d = add(o.colOffset, ivs[1]);
    Value x = modify(*o.region, toF32(load(o.buffer, ivs)), t, d, ivs[0]);
    Value valid = andI(lessThan(t, seqLen), lessThan(d, idx(o.dim)));
    store(toElt(select(valid, x, f32(0.0))), o.buffer, ivs);
    endParallel(par);
  }
  if (any)
    b.create<BarrierOp>(loc);
}

void RecurrentKernelBuilder::initState(Value frag, Value row0) {
  if (!initParam) {
    b.create<FillOp>(loc, frag, f32(0.0));
    return;
  }
  SmallVector<Value> ivs;
  ParallelOp par = beginParallel({keyCols, blockV}, ivs);
  Value s = b.create<ReadOp>(loc, b.getF32Type(), initParam,
                             ValueRange{batch, head, add(row0, ivs[0]), add(v0, ivs[1])});
  store(s, frag, ivs);
  endParallel(par);
}

RecurrentKernelBuilder::ChunkLoop RecurrentKernelBuilder::beginChunkLoop(bool &constantGates) {
  // A constant per-head gate without gate_mod gives every chunk the same cumulative decay,
  // (i + 1) log α: scanned once here (rows past a short sequence masked), not per chunk.
  constantGates = kind == GateKind::head && op.getGateMod().empty();
  if (constantGates)
    loadGates(idx(0));
  Value chunks = b.create<arith::CeilDivSIOp>(loc, seqLen, idx(chunk));
  auto loop = b.create<PipelinedOp>(loc, idx(0), chunks, cfg.stages);
  b.setInsertionPoint(loop.getBody().front().getTerminator());
  Value j = loop.getInductionVar();
  return {j, mul(j, idx(chunk))};
}

void RecurrentKernelBuilder::allocVectorOperands() {
  // Q ⊙ exp(G) for the state's part, and Q̃_s, K̃_s for the sub-chunk gemms (one pair in a
  // compact kernel), a key tile each; the diagonal sub-chunks' sums.
  qgS = alloc({chunk, keyCols}, elt, MemorySpace::shared);
  for (int64_t s = 1; s < (cfg.compactVectorOutput ? 2 : chunk / sub); ++s) {
    qtS.push_back(alloc({chunk, keyCols}, elt, MemorySpace::shared));
    ktS.push_back(alloc({chunk, keyCols}, elt, MemorySpace::shared));
  }
  diagS = alloc({chunk, sub}, b.getF32Type(), MemorySpace::shared);
}
