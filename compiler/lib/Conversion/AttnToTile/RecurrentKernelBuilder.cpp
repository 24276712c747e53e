//===- RecurrentKernelBuilder.cpp - attn.recurrent as a chunked tile.kernel --===//
//
// The chunked algorithm of linear attention, as two kernels (three with vector gates, by
// default: a gates kernel first applies gate_mod to the raw gates, masks and scans them per
// chunk, and writes the cumulative log-gates, [B, S, H, padded Dk] f32, which the other two
// read instead of each transforming and scanning them again). The states kernel gives one
// block to each (batch b, head h, tile of BK key rows x BV value columns of the state); it
// walks the sequence in chunks of C tokens, keeping its part of the state S (BK x BV, f32) in
// registers, and writes the state entering every chunk to a buffer [B, H, ceil(S / C), Dk, Dv]
// (16-bit) and the final state. The output kernel then computes every (chunk, value tile,
// head, batch) in parallel from that buffer, walking the key dim in tiles of BK (a pipelined
// loop over Q, K and the entering state's rows; V and the gates arrive once).
// With G_i the cumulative log-decay of the chunk up to row i (inclusive; a scan of the gates in
// f32):
//
//   O_c   = ((Q Kᵀ) ⊙ D) V + (Q ⊙ exp(G)) S        D_ij = exp(G_i - G_j) for j <= i, else 0
//   S_new = exp(G_last) ⊙ S + (K ⊙ exp(G_last - G))ᵀ V
//
// Every exponent is <= 0, so nothing overflows however strong the decay. Scalar gates (per
// head or per token) make D a rank-one pattern applied after the Q Kᵀ gemm, and the states
// kernel applies their decay to the rows of its V tile (BV wide) rather than of K; vector
// gates (GLA) decay K per key dim and make every (i, j) of D a sum over the key dim, computed
// element-wise; scalar gates scale the output rows, exp(G_i) (Q S)_i, vector gates Q itself.
// The state update reads K as stored (tile.gemm transpose_a). The q/k/v modifier regions are
// applied in shared memory right after each chunk (or key tile) arrives, the decayed operand's
// in the decay pass; positions past the sequence or the head dims are forced to zero, so any
// length works. Inputs the modifiers read per block are read once, per token once per row.
//
// With RecurrentTileConfig::fused (scalar gates or none) one kernel does both: a block per
// (value tile, head, batch) walks the chunks keeping its columns of the whole state in
// registers (one f32 fragment per key tile) and a 16-bit copy of them in shared memory, from
// which each chunk's Q S is computed before the update; no chunk state reaches global memory.
//
//===----------------------------------------------------------------------===//

#include "TileIRBuilder.h"
#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace metaattn;
using namespace metaattn::tile;
using attn::GateKind;
using attn::RecurrentDim;

namespace {

class RecurrentBuilder : public TileIRBuilder {
public:
  RecurrentBuilder(OpBuilder &b, attn::RecurrentOp op, const RecurrentTileConfig &config)
      : TileIRBuilder(b, op.getLoc()), op(op), cfg(config) {}

  enum class Role { States, Output, Gates, Fused };
  /// One of the kernels: the chunk states, the outputs from them, the gates kernel of
  /// precomputed gates, or the fused kernel (RecurrentTileConfig::fused) that does both.
  FailureOr<KernelOp> build(StringRef name, Role role);

private:
  Value expF(Value x) { return b.create<math::ExpOp>(loc, x); }
  Value subF(Value x, Value y) { return b.create<arith::SubFOp>(loc, x, y); }
  Value mulF(Value x, Value y) { return b.create<arith::MulFOp>(loc, x, y); }
  Value subI(Value x, Value y) { return b.create<arith::SubIOp>(loc, x, y); }
  Value toF32(Value x) {
    return x.getType().isF32() ? x : b.create<arith::ExtFOp>(loc, b.getF32Type(), x);
  }
  Value toElt(Value x) { return b.create<arith::TruncFOp>(loc, elt, x); }
  Value select(Value c, Value x, Value y) { return b.create<arith::SelectOp>(loc, c, x, y); }
  Value andI(Value x, Value y) { return b.create<arith::AndIOp>(loc, x, y); }

  /// Custom-input scalars at (b, t, h, d), `row` = t - t0 the chunk row. Inputs indexed by
  /// neither t nor d were read once at the kernel's start; those indexed by t but not d come
  /// from the chunk's copy in shared memory (copyChunkVectors).
  SmallVector<Value> readInputs(Value t, Value d, Value row);
  /// `region` applied to `x` at (t, d), or `x` when the region is empty.
  Value modify(Region &region, Value x, Value t, Value d, Value row);
  /// Whether q_mod scales q by a factor that depends on neither q nor the key dim
  /// (`x · f(b, t, h, inputs not indexed by d)`, as 1/√Dk; needs inputDims): it then commutes with
  /// both gemms over the key dim and the output kernel applies f per output row instead of a pass
  /// over every key tile.
  bool qModIsRowFactor();
  /// Whether input `i` is indexed by t but not by d (one value per chunk row).
  bool isRowInput(size_t i) const;
  /// Copies of the chunk's per-token vectors into shared memory: the gates (per token, or
  /// per token and key dim) and the row inputs. Whether any was copied.
  bool copyChunkVectors(Value t0, bool async);
  /// The cumulative log-decay at chunk row `i` (and key dim `d` for vector gates).
  Value logDecay(Value i, Value d) { return vectorGate ? load(gates, {i, d}) : load(gates, {i}); }

  void declareParams(KernelOp kernel);
  void loadGates(Value t0);
  void applyModifiers(Value t0, Value keyOffset, bool keys, bool values);
  /// `inside()` for chunk positions on or below the diagonal (j <= i), else 0 (an scf.if
  /// whose then-branch `inside` builds).
  Value causalOrZero(Value i, Value j, llvm::function_ref<Value()> inside);
  void accumulateKeyTile(Value keyOffset);
  void finishChunk(Value t0);
  void updateState(Value t0);
  /// `frag` (key rows from `row0`, the block's value columns) from the initial state, zero
  /// past the head dims, or zero without one.
  void initState(Value frag, Value row0);
  /// The loop over the chunks (cfg.stages), after scanning a constant per-head gate once
  /// (`constantGates`: then not per chunk).
  PipelinedOp beginChunkLoop(bool &constantGates);
  void buildStatesBody();
  void buildOutputBody();
  void buildGatesBody();
  /// The fused kernel: scalar or no gates, the state in registers a key tile at a time.
  void buildFusedBody();
  /// Fused kernel, scalar gates: V̂ = V ⊙ exp(G_last - G_j) into vhS and the state decayed by
  /// exp(G_last), ahead of the update.
  void decayForUpdate(Value t0);
  /// Fused kernel, vector gates: the same with K decayed per key dim, in place.
  void decayKeysForUpdate(Value t0);
  /// The vector-gate operand tiles of an output (or fused) kernel.
  void allocVectorOperands();

  attn::RecurrentOp op;
  RecurrentTileConfig cfg;
  Type elt;
  int64_t heads = 0, qkHeads = 0, keyDim = 0, valueDim = 0, chunk = 0;
  GateKind kind = GateKind::none;
  bool vectorGate = false, hasGate = false;

  bool outputKernel = false;
  /// The fused kernel (also an output kernel: it reads q and writes o).
  bool fusedKernel = false;
  /// The gates kernel (cfg.precomputeGates); whether this kernel reads the cumulative gates it
  /// wrote instead of the raw ones.
  bool gatesKernel = false, readsCumGates = false, precomputedGates = false;
  int64_t blockV = 0;   // value columns per block: cfg.blockV or cfg.outputBlockV
  int64_t keyCols = 0;  // key columns of the Q and K buffers (cfg.blockK)
  int64_t gateCols = 0; // key columns of the vector gates: the block's key tile or all
  Value qParam, kParam, vParam, gateParam, initParam, statesParam, oParam, finalParam;
  /// Precomputed gates: the cumulative log-gates, [B, S, H, padded Dk] f32.
  Value cumGatesParam;
  SmallVector<Value> inputParams;
  SmallVector<SmallVector<RecurrentDim>> inputDims;
  /// Per input: its value read once (neither t nor d), its staged chunk rows, or null.
  SmallVector<Value> inputScalars, inputRows;
  Value batch, head, qkHead, k0, v0, seqLen;
  // Buffers.
  Value qS, kS, vS, stateS, gates, scores, probs, out, state;
  /// The states kernel's staging tile for the chunk states' stores (cfg.stageStates).
  Value stateStage;
  /// Vector gates, output kernel: Q ⊙ exp(G), and per sub-chunk s >= 1 Q̃_s and K̃_s.
  Value qgS;
  SmallVector<Value> qtS, ktS;
  /// Vector gates, output kernel: the diagonal sub-chunks' scores, [chunk, sub] (f32), row i
  /// and column j - (first row of i's sub-chunk).
  Value diagS;
  /// Fused kernel: per key tile of blockK columns, Q's and K's slices of the chunk, the
  /// state's rows (f32 fragments) and their 16-bit copy that the output gemm reads; the
  /// decayed V of the update (scalar gates; V itself otherwise).
  SmallVector<Value> qTiles, kTiles, stateFrags, stateTiles;
  Value vhS;
  /// Whether this kernel writes the final state: the states kernel or the fused one.
  bool writesFinalState() {
    return op.getFinalState() && !gatesKernel && (!outputKernel || fusedKernel);
  }
  /// Rows of a sub-chunk (vector gates): a quarter of the chunk.
  int64_t sub = 16;
  /// Output kernel, scalar or no gates: q_mod is a row factor applied to the output rows.
  bool qRowFactor = false;
};

SmallVector<Value> RecurrentBuilder::readInputs(Value t, Value d, Value row) {
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

Value RecurrentBuilder::modify(Region &region, Value x, Value t, Value d, Value row) {
  if (region.empty())
    return x;
  SmallVector<Value> args = {x, batch, t, head, d};
  llvm::append_range(args, readInputs(t, d, row));
  return inlineRegion(region, args).front();
}

bool RecurrentBuilder::isRowInput(size_t i) const {
  return llvm::is_contained(inputDims[i], RecurrentDim::T) &&
         !llvm::is_contained(inputDims[i], RecurrentDim::D);
}

bool RecurrentBuilder::qModIsRowFactor() {
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

bool RecurrentBuilder::copyChunkVectors(Value t0, bool async) {
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

void RecurrentBuilder::loadGates(Value t0) {
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

void RecurrentBuilder::applyModifiers(Value t0, Value keyOffset, bool keys, bool values) {
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

Value RecurrentBuilder::causalOrZero(Value i, Value j, llvm::function_ref<Value()> inside) {
  Value keep = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, j, i);
  auto ifKeep = b.create<scf::IfOp>(loc, b.getF32Type(), keep, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifKeep.getThenRegion().front());
  b.create<scf::YieldOp>(loc, inside());
  b.setInsertionPointToStart(&ifKeep.getElseRegion().front());
  b.create<scf::YieldOp>(loc, f32(0.0));
  return ifKeep.getResult(0);
}

void RecurrentBuilder::accumulateKeyTile(Value keyOffset) {
  // One key tile of the output kernel: scores += Q_k K_kᵀ (vector gates: the decayed sum
  // over the tile's key dims, element-wise) and out += Q_k S_k. Vector gates scale Q_k by
  // exp(G) in place for the second; scalar gates do it on the output rows after the loop.
  if (vectorGate) {
    // The decay differs per key dim, so D does not factor out of Q Kᵀ. Sub-chunks of
    // `sub` rows: for rows i of sub-chunk s and keys j of an earlier sub-chunk, with the
    // reference R = G at s's first row, (Q Kᵀ ⊙ D)_ij = Σ_d q_id exp(G_id - R_d) ·
    // k_jd exp(R_d - G_jd), both factors <= 1: a gemm of Q̃ (every row against its own
    // sub-chunk's reference) and K̃_s (keys before s, zero elsewhere) restricted to the
    // rows of s (Q̃_s: the other rows zero). Only the diagonal sub-chunks stay element-wise.
    int64_t subs = chunk / sub;
    bool compact = cfg.compactVectorOutput;
    // One pass over the key tile writes Q ⊙ exp(G) (with `withQg`) and the operands of
    // sub-chunks [first, last) (each into its own tile pair, or all into the one pair of a
    // compact kernel, one sub-chunk per pass).
    auto operandPass = [&](bool withQg, int64_t first, int64_t last) {
      SmallVector<Value> pivs;
      ParallelOp ppar = beginParallel({chunk, keyCols}, pivs);
      Value r = pivs[0], c = pivs[1];
      Value d = add(keyOffset, c);
      Value q = toF32(load(qS, pivs));
      Value k = toF32(load(kS, pivs));
      Value g = logDecay(r, d);
      Value rowSub = b.create<arith::DivUIOp>(loc, r, idx(sub));
      if (withQg)
        store(toElt(mulF(q, expF(g))), qgS, pivs);
      Value qt = toElt(mulF(q, expF(subF(g, logDecay(mul(rowSub, idx(sub)), d)))));
      for (int64_t s = first; s < last; ++s) {
        Value ref = logDecay(idx(s * sub), d);
        Value inSub = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, rowSub, idx(s));
        unsigned pair = compact ? 0 : s - 1;
        store(select(inSub, qt, b.create<arith::ConstantOp>(loc, b.getZeroAttr(elt))), qtS[pair],
              pivs);
        Value before = lessThan(r, idx(s * sub));
        store(toElt(select(before, mulF(k, expF(subF(ref, g))), f32(0.0))), ktS[pair], pivs);
      }
      endParallel(ppar);
    };
    operandPass(/*withQg=*/true, 1, compact ? 2 : subs);
    b.create<BarrierOp>(loc);
    // The diagonal sub-chunks: Σ_d q_id k_jd exp(G_id - G_jd) for j <= i in i's sub-chunk,
    // into diagS[i, j - first row of the sub-chunk] (added to the scores in finishChunk).
    // Only the pairs on or below the diagonal are enumerated: rows a and sub-1-a of a
    // sub-chunk together hold sub+1 of them, so index p of a sub-chunk's sub·(sub+1)/2 is
    // pair p / (sub+1), position q = p % (sub+1): row a (q <= a) or row sub-1-a. Each thread
    // keeps its pairs over the key tiles (the first key tile stores, the others add).
    int64_t perSub = sub * (sub + 1) / 2;
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({subs * perSub}, ivs);
    Value subIdx = b.create<arith::DivUIOp>(loc, ivs[0], idx(perSub));
    Value p = b.create<arith::RemUIOp>(loc, ivs[0], idx(perSub));
    Value pair = b.create<arith::DivUIOp>(loc, p, idx(sub + 1));
    Value q = b.create<arith::RemUIOp>(loc, p, idx(sub + 1));
    Value low = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ule, q, pair);
    Value a = select(low, pair, subI(idx(sub - 1), pair));
    Value col = select(low, q, subI(q, add(pair, idx(1))));
    Value first = mul(subIdx, idx(sub));
    Value i = add(first, a), j = add(first, col);
    auto loop = b.create<scf::ForOp>(loc, idx(0), idx(keyCols), idx(1), ValueRange{f32(0.0)});
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(loop.getBody());
      Value dl = loop.getInductionVar();
      Value d = add(keyOffset, dl);
      Value qk = mulF(toF32(load(qS, {i, dl})), toF32(load(kS, {j, dl})));
      Value w = mulF(qk, expF(subF(logDecay(i, d), logDecay(j, d))));
      b.create<scf::YieldOp>(
          loc, b.create<arith::AddFOp>(loc, loop.getRegionIterArgs()[0], w).getResult());
    }
    Value firstTile = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, keyOffset, idx(0));
    Value before = select(firstTile, f32(0.0), load(diagS, {i, col}));
    store(b.create<arith::AddFOp>(loc, before, loop.getResult(0)), diagS, {i, col});
    endParallel(par);
    // Out += (Q ⊙ exp(G)) S first: it and the first sub-chunk gemm are issued together.
    b.create<GemmOp>(loc, qgS, stateS, out, /*transpose_b=*/false);
    if (!compact) {
      for (int64_t s = 1; s < subs; ++s)
        b.create<GemmOp>(loc, qtS[s - 1], ktS[s - 1], scores, /*transpose_b=*/true);
      return;
    }
    // Compact: one sub-chunk's operands at a time in the one pair, each gemm done (and seen
    // done by every thread) before the next pass overwrites them.
    b.create<GemmOp>(loc, qtS[0], ktS[0], scores, /*transpose_b=*/true);
    for (int64_t s = 2; s < subs; ++s) {
      b.create<BarrierOp>(loc);
      operandPass(/*withQg=*/false, s, s + 1);
      b.create<BarrierOp>(loc);
      b.create<GemmOp>(loc, qtS[0], ktS[0], scores, /*transpose_b=*/true);
    }
    return;
  } else {
    b.create<GemmOp>(loc, qS, kS, scores, /*transpose_b=*/true);
  }
  b.create<GemmOp>(loc, qS, stateS, out, /*transpose_b=*/false);
}

void RecurrentBuilder::finishChunk(Value t0) {
  // Scalar gates: out = exp(G_i) · (Q S)_i; then P = scores ⊙ D, causal within the chunk
  // (vector gates have D in the scores already), and out += P V. A q_mod row factor f_i
  // scales both (q_mod evaluated at x = 1 is f_i).
  auto rowFactor = [&](Value row) {
    return modify(op.getQMod(), f32(1.0), add(t0, row), idx(0), row);
  };
  if ((hasGate && !vectorGate) || qRowFactor) {
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({chunk, blockV}, ivs);
    Value factor = hasGate ? expF(logDecay(ivs[0], Value())) : Value();
    if (qRowFactor)
      factor = factor ? mulF(factor, rowFactor(ivs[0])) : rowFactor(ivs[0]);
    store(mulF(load(out, ivs), factor), out, ivs);
    endParallel(par);
  }
  SmallVector<Value> ivs;
  ParallelOp par = beginParallel({chunk, chunk}, ivs);
  Value i = ivs[0], j = ivs[1];
  Value p = causalOrZero(i, j, [&] {
    Value s = load(scores, ivs);
    if (vectorGate) {
      // The diagonal sub-chunk's element-wise sums (accumulateKeyTile).
      Value first = mul(b.create<arith::DivUIOp>(loc, i, idx(sub)), idx(sub));
      Value same = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, j, first);
      auto ifSame = b.create<scf::IfOp>(loc, b.getF32Type(), same, /*withElse=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifSame.getThenRegion().front());
      b.create<scf::YieldOp>(
          loc, b.create<arith::AddFOp>(loc, s, load(diagS, {i, subI(j, first)})).getResult());
      b.setInsertionPointToStart(&ifSame.getElseRegion().front());
      b.create<scf::YieldOp>(loc, s);
      s = ifSame.getResult(0);
    }
    if (hasGate && !vectorGate)
      s = mulF(s, expF(subF(logDecay(i, Value()), logDecay(j, Value()))));
    if (qRowFactor)
      s = mulF(s, rowFactor(i));
    return s;
  });
  store(toElt(p), probs, ivs);
  endParallel(par);
  b.create<GemmOp>(loc, probs, vS, out, /*transpose_b=*/false);
}

void RecurrentBuilder::updateState(Value t0) {
  // S = exp(G_last) ⊙ S + Kᵀ V̂. Scalar gates decay the rows of the value tile, V̂ = V ⊙
  // exp(G_last - G_j) (BV columns, narrower than K); vector gates decay K per key dim. In
  // place in shared memory, in the same pass as that operand's modifier (v_mod or k_mod,
  // left out of applyModifiers); rows past the sequence are zero already (copies zero-fill
  // them, the modifier is masked), and their gates are zero, so their factor is one.
  if (hasGate) {
    // The chunk's last row in the sequence: the gates of a partial last chunk need not be
    // masked past it (a constant per-head gate is computed once for every chunk).
    Value last = b.create<arith::MinSIOp>(loc, idx(chunk - 1), subI(subI(seqLen, t0), idx(1)));
    Value scaled = vectorGate ? kS : vS;
    Region &region = vectorGate ? op.getKMod() : op.getVMod();
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({chunk, vectorGate ? keyCols : blockV}, ivs);
    Value d = vectorGate ? ivs[1] : Value();
    Value x = toF32(load(scaled, ivs));
    if (!region.empty()) {
      Value t = add(t0, ivs[0]);
      Value col = add(vectorGate ? k0 : v0, ivs[1]);
      x = modify(region, x, t, col, ivs[0]);
      Value valid = andI(lessThan(t, seqLen), lessThan(col, idx(vectorGate ? keyDim : valueDim)));
      x = select(valid, x, f32(0.0));
    }
    // Rows past the sequence are zero; their exponent (with unmasked constant gates, of
    // the wrong sign) is replaced by 0 so that it cannot overflow to inf · 0.
    Value exponent = subF(logDecay(last, d), logDecay(ivs[0], d));
    x = mulF(x, expF(select(lessThan(add(t0, ivs[0]), seqLen), exponent, f32(0.0))));
    store(toElt(x), scaled, ivs);
    endParallel(par);
    SmallVector<Value> sivs;
    ParallelOp spar = beginParallel({keyCols, blockV}, sivs);
    Value decay = expF(logDecay(last, vectorGate ? sivs[0] : Value()));
    store(mulF(load(state, sivs), decay), state, sivs);
    endParallel(spar);
    b.create<BarrierOp>(loc);
  }
  b.create<GemmOp>(loc, kS, vS, state, /*transpose_b=*/false, /*async=*/false,
                   /*transpose_a=*/true);
}

void RecurrentBuilder::initState(Value frag, Value row0) {
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

PipelinedOp RecurrentBuilder::beginChunkLoop(bool &constantGates) {
  // A constant per-head gate without gate_mod gives every chunk the same cumulative decay,
  // (i + 1) log α: scanned once here (rows past a short sequence masked), not per chunk.
  constantGates = kind == GateKind::head && op.getGateMod().empty();
  if (constantGates)
    loadGates(idx(0));
  Value chunks = b.create<arith::CeilDivSIOp>(loc, seqLen, idx(chunk));
  return b.create<PipelinedOp>(loc, idx(0), chunks, cfg.stages);
}

void RecurrentBuilder::buildStatesBody() {
  // S starts from the initial state (zero past the head dims) or zero.
  initState(state, k0);
  bool constantGates = false;
  auto loop = beginChunkLoop(constantGates);
  {
    OpBuilder::InsertionGuard guard(b);
    Value j = loop.getInductionVar();
    b.setInsertionPoint(loop.getBody().front().getTerminator());
    Value t0 = mul(j, idx(chunk));
    // K and V slices of the chunk (the pipeline makes these copies async).
    b.create<CopyOp>(loc, kParam, ValueRange{batch, t0, qkHead, k0}, kS, ValueRange{},
                     b.getDenseI64ArrayAttr({1, 3}), false);
    b.create<CopyOp>(loc, vParam, ValueRange{batch, t0, head, v0}, vS, ValueRange{},
                     b.getDenseI64ArrayAttr({1, 3}), false);
    // The gates and row inputs, prefetched with them.
    copyChunkVectors(t0, /*async=*/false);
    // The state entering this chunk, for the output kernel.
    b.create<CopyOp>(loc, state, ValueRange{}, statesParam, ValueRange{batch, head, j, k0, v0},
                     b.getDenseI64ArrayAttr({3, 4}), false, stateStage);
    if (hasGate && !constantGates && !readsCumGates)
      loadGates(t0);
    // With a gate, updateState applies the modifier of the operand it decays.
    applyModifiers(t0, k0, /*keys=*/!vectorGate, /*values=*/!hasGate || vectorGate);
    updateState(t0);
  }
  if (finalParam)
    b.create<CopyOp>(loc, state, ValueRange{}, finalParam, ValueRange{batch, head, k0, v0},
                     b.getDenseI64ArrayAttr({2, 3}), false);
}

void RecurrentBuilder::buildOutputBody() {
  // One chunk of one value tile. V, the gates and the row inputs once, ahead of the key-tile
  // loop; the state entering the chunk comes from the states kernel, a key tile at a time.
  Value j = b.create<BlockIdOp>(loc, b.getIndexType(), 0);
  Value t0 = mul(j, idx(chunk));
  b.create<CopyOp>(loc, vParam, ValueRange{batch, t0, head, v0}, vS, ValueRange{},
                   b.getDenseI64ArrayAttr({1, 3}), /*async=*/true);
  bool vectors = copyChunkVectors(t0, /*async=*/true);
  b.create<AsyncCommitOp>(loc);
  if (vectors) {
    b.create<AsyncWaitOp>(loc, 0);
    b.create<BarrierOp>(loc);
  }
  if (hasGate && !readsCumGates)
    loadGates(t0);
  b.create<FillOp>(loc, scores, f32(0.0));
  b.create<FillOp>(loc, out, f32(0.0));
  auto loop = b.create<PipelinedOp>(loc, idx(0), idx(cfg.paddedKeyDim / keyCols), cfg.outputStages);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody().front().getTerminator());
    Value kk = mul(loop.getInductionVar(), idx(keyCols));
    b.create<CopyOp>(loc, qParam, ValueRange{batch, t0, qkHead, kk}, qS, ValueRange{},
                     b.getDenseI64ArrayAttr({1, 3}), false);
    b.create<CopyOp>(loc, kParam, ValueRange{batch, t0, qkHead, kk}, kS, ValueRange{},
                     b.getDenseI64ArrayAttr({1, 3}), false);
    b.create<CopyOp>(loc, statesParam, ValueRange{batch, head, j, kk, v0}, stateS, ValueRange{},
                     b.getDenseI64ArrayAttr({3, 4}), false);
    applyModifiers(t0, kk, /*keys=*/true, /*values=*/false);
    accumulateKeyTile(kk);
  }
  b.create<AsyncWaitOp>(loc, 0);
  b.create<BarrierOp>(loc);
  applyModifiers(t0, Value(), /*keys=*/false, /*values=*/true);
  finishChunk(t0);
  b.create<CopyOp>(loc, out, ValueRange{}, oParam, ValueRange{batch, t0, head, v0},
                   b.getDenseI64ArrayAttr({1, 3}), false);
}

void RecurrentBuilder::buildGatesBody() {
  // One chunk of one head: the raw gates (and the row inputs gate_mod reads), through gate_mod,
  // masked and scanned as the other kernels would, out to the cumulative gates. The kernels
  // reading them get zeros past the sequence (where their own scan held the last row's value):
  // the states kernel takes the last real row's decay and zeroes the exponents past it, and in
  // the output kernel such rows reach only output rows past the sequence, which are not stored.
  // The copies are async so that all of a thread's chunks are in flight at once (a
  // synchronous copy loads and stores one 16-byte chunk after another).
  Value t0 = mul(b.create<BlockIdOp>(loc, b.getIndexType(), 0), idx(chunk));
  copyChunkVectors(t0, /*async=*/true);
  b.create<AsyncCommitOp>(loc);
  b.create<AsyncWaitOp>(loc, 0);
  b.create<BarrierOp>(loc);
  loadGates(t0);
  b.create<CopyOp>(loc, gates, ValueRange{}, cumGatesParam, ValueRange{batch, t0, head, idx(0)},
                   b.getDenseI64ArrayAttr({1, 3}), false);
}

void RecurrentBuilder::allocVectorOperands() {
  // Q ⊙ exp(G) for the state's part, and Q̃_s, K̃_s for the sub-chunk gemms (one pair in a
  // compact kernel), a key tile each; the diagonal sub-chunks' sums.
  qgS = alloc({chunk, keyCols}, elt, MemorySpace::shared);
  for (int64_t s = 1; s < (cfg.compactVectorOutput ? 2 : chunk / sub); ++s) {
    qtS.push_back(alloc({chunk, keyCols}, elt, MemorySpace::shared));
    ktS.push_back(alloc({chunk, keyCols}, elt, MemorySpace::shared));
  }
  diagS = alloc({chunk, sub}, b.getF32Type(), MemorySpace::shared);
}

void RecurrentBuilder::decayKeysForUpdate(Value t0) {
  // Vector gates, fused kernel: K ⊙ exp(G_last - G) per key dim into K itself (the output's
  // gemms are done with it) and each state row decayed by exp(G_last) of its key dim. Rows
  // past the sequence are zero; their exponent is replaced by 0.
  Value last = b.create<arith::MinSIOp>(loc, idx(chunk - 1), subI(subI(seqLen, t0), idx(1)));
  for (auto [k, tile] : llvm::enumerate(kTiles)) {
    Value col0 = idx(static_cast<int64_t>(k) * keyCols);
    SmallVector<Value> ivs;
    ParallelOp par = beginParallel({chunk, keyCols}, ivs);
    Value d = add(col0, ivs[1]);
    Value exponent = subF(logDecay(last, d), logDecay(ivs[0], d));
    exponent = select(lessThan(add(t0, ivs[0]), seqLen), exponent, f32(0.0));
    store(toElt(mulF(toF32(load(tile, ivs)), expF(exponent))), tile, ivs);
    endParallel(par);
    SmallVector<Value> sivs;
    ParallelOp spar = beginParallel({keyCols, blockV}, sivs);
    Value decay = expF(logDecay(last, add(col0, sivs[0])));
    store(mulF(load(stateFrags[k], sivs), decay), stateFrags[k], sivs);
    endParallel(spar);
  }
}

void RecurrentBuilder::decayForUpdate(Value t0) {
  // As updateState, into a tile of its own (the output gemm still reads V): rows past the
  // sequence are zero in V and their exponent is replaced by 0 so that it cannot overflow.
  Value last = b.create<arith::MinSIOp>(loc, idx(chunk - 1), subI(subI(seqLen, t0), idx(1)));
  SmallVector<Value> ivs;
  ParallelOp par = beginParallel({chunk, blockV}, ivs);
  Value exponent = subF(logDecay(last, Value()), logDecay(ivs[0], Value()));
  exponent = select(lessThan(add(t0, ivs[0]), seqLen), exponent, f32(0.0));
  store(toElt(mulF(toF32(load(vS, ivs)), expF(exponent))), vhS, ivs);
  endParallel(par);
  for (Value frag : stateFrags) {
    SmallVector<Value> sivs;
    ParallelOp spar = beginParallel({keyCols, blockV}, sivs);
    store(mulF(load(frag, sivs), expF(logDecay(last, Value()))), frag, sivs);
    endParallel(spar);
  }
}

void RecurrentBuilder::buildFusedBody() {
  // One value tile of one head walks the chunks: the state's rows stay in registers (a
  // fragment per key tile, each a gemm accumulator of 16 rows per warp) and are copied to
  // 16-bit shared tiles after each update, which the next chunk's (Q ⊙ ...) S gemm reads. The
  // chunk's Q Kᵀ, Q S and the update are issued together; V̂ (scalar gates) gets a tile of
  // its own because P V still reads V.
  for (auto [k, frag] : llvm::enumerate(stateFrags)) {
    initState(frag, idx(static_cast<int64_t>(k) * keyCols));
    b.create<CopyOp>(loc, frag, ValueRange{}, stateTiles[k], ValueRange{}, nullptr, false);
  }
  bool constantGates = false;
  auto loop = beginChunkLoop(constantGates);
  {
    OpBuilder::InsertionGuard guard(b);
    Value j = loop.getInductionVar();
    b.setInsertionPoint(loop.getBody().front().getTerminator());
    Value t0 = mul(j, idx(chunk));
    auto dims = b.getDenseI64ArrayAttr({1, 3});
    for (auto [k, tile] : llvm::enumerate(qTiles)) {
      Value col = idx(static_cast<int64_t>(k) * keyCols);
      b.create<CopyOp>(loc, qParam, ValueRange{batch, t0, qkHead, col}, tile, ValueRange{}, dims,
                       false);
      b.create<CopyOp>(loc, kParam, ValueRange{batch, t0, qkHead, col}, kTiles[k], ValueRange{},
                       dims, false);
    }
    b.create<CopyOp>(loc, vParam, ValueRange{batch, t0, head, v0}, vS, ValueRange{}, dims, false);
    copyChunkVectors(t0, /*async=*/false);
    if (hasGate && !constantGates)
      loadGates(t0);
    for (auto [k, tile] : llvm::enumerate(qTiles)) {
      qS = tile;
      kS = kTiles[k];
      applyModifiers(t0, idx(static_cast<int64_t>(k) * keyCols), /*keys=*/true,
                     /*values=*/k == 0);
    }
    // V̂ in a tile of its own is ready before the chunk's gemms, and the update is issued
    // with them; in place (cfg.decayValuesInPlace, and K̂ of vector gates) it waits for P V.
    bool inPlace = hasGate && (cfg.decayValuesInPlace || vectorGate);
    auto update = [&] {
      for (auto [k, frag] : llvm::enumerate(stateFrags))
        b.create<GemmOp>(loc, kTiles[k], vhS, frag, /*transpose_b=*/false, /*async=*/false,
                         /*transpose_a=*/true);
    };
    if (hasGate && !inPlace) {
      decayForUpdate(t0);
      b.create<BarrierOp>(loc);
    }
    b.create<FillOp>(loc, scores, f32(0.0));
    b.create<FillOp>(loc, out, f32(0.0));
    for (auto [k, tile] : llvm::enumerate(qTiles)) {
      if (vectorGate) {
        // The output kernel's key-tile step on this tile of Q, K and the state; the operand
        // tiles it rewrites were read by the previous tile's gemms (all waited for).
        if (k > 0)
          b.create<BarrierOp>(loc);
        qS = tile;
        kS = kTiles[k];
        stateS = stateTiles[k];
        accumulateKeyTile(idx(static_cast<int64_t>(k) * keyCols));
        continue;
      }
      b.create<GemmOp>(loc, tile, kTiles[k], scores, /*transpose_b=*/true);
      b.create<GemmOp>(loc, tile, stateTiles[k], out, /*transpose_b=*/false);
    }
    if (!inPlace)
      update();
    finishChunk(t0);
    b.create<CopyOp>(loc, out, ValueRange{}, oParam, ValueRange{batch, t0, head, v0}, dims, false);
    if (inPlace) {
      // Every warp's P V is done reading V (and K).
      b.create<BarrierOp>(loc);
      if (vectorGate)
        decayKeysForUpdate(t0);
      else
        decayForUpdate(t0);
      b.create<BarrierOp>(loc);
      update();
    }
    // Every warp is done reading the state tiles before they take the new state.
    b.create<BarrierOp>(loc);
    for (auto [k, frag] : llvm::enumerate(stateFrags))
      b.create<CopyOp>(loc, frag, ValueRange{}, stateTiles[k], ValueRange{}, nullptr, false);
  }
  if (finalParam)
    for (auto [k, frag] : llvm::enumerate(stateFrags))
      b.create<CopyOp>(loc, frag, ValueRange{}, finalParam,
                       ValueRange{batch, head, idx(static_cast<int64_t>(k) * keyCols), v0},
                       b.getDenseI64ArrayAttr({2, 3}), false);
}

void RecurrentBuilder::declareParams(KernelOp kernel) {
  SmallVector<std::pair<std::string, SmallVector<StringRef>>> described = {
      {"q", {"B", "S", "Hqk", "Dk"}}, {"k", {"B", "S", "Hqk", "Dk"}}, {"v", {"B", "S", "H", "Dv"}}};
  if (hasGate) {
    SmallVector<StringRef> dims = kind == GateKind::head ? SmallVector<StringRef>{"H"}
                                  : kind == GateKind::token
                                      ? SmallVector<StringRef>{"B", "S", "H"}
                                      : SmallVector<StringRef>{"B", "S", "H", "Dk"};
    described.push_back({"gate", dims});
  }
  if (op.getInitialState())
    described.push_back({"initial_state", {"B", "H", "Dk", "Dv"}});
  for (auto [i, dims] : llvm::enumerate(inputDims)) {
    SmallVector<StringRef> symbols;
    for (RecurrentDim d : dims)
      symbols.push_back(d == RecurrentDim::B   ? "B"
                        : d == RecurrentDim::T ? "S"
                        : d == RecurrentDim::H ? "H"
                                               : "Dinput");
    described.push_back({"input" + std::to_string(i), symbols});
  }
  if (precomputedGates)
    described.push_back({"cum_gates", {"B", "S", "H", "Dk_padded"}});
  // The states entering each chunk: [B, H, ceil(S / chunk), padded Dk, Dv].
  std::string chunks = "S/" + std::to_string(chunk);
  if (!gatesKernel && !fusedKernel)
    described.push_back({"chunk_states", {"B", "H", chunks, "Dk_padded", "Dv"}});
  if (outputKernel)
    described.push_back({"o", {"B", "S", "H", "Dv"}});
  if (writesFinalState())
    described.push_back({"final_state", {"B", "H", "Dk", "Dv"}});
  SmallVector<Attribute> symbolAttrs;
  for (auto [i, entry] : llvm::enumerate(described)) {
    kernel.setArgAttr(i, "tile.name", b.getStringAttr(entry.first));
    SmallVector<Attribute> dims;
    for (StringRef s : entry.second)
      dims.push_back(b.getStringAttr(s));
    symbolAttrs.push_back(b.getArrayAttr(dims));
  }
  kernel->setAttr("tile.dim_symbols", b.getArrayAttr(symbolAttrs));
  // Written: the cumulative gates by the gates kernel, the chunk states by the states kernel
  // (with the final state), o by the output kernel, o and the final state by the fused one.
  int64_t statesIndex = op->getNumOperands() + (precomputedGates ? 1 : 0);
  SmallVector<int64_t> outputs;
  if (gatesKernel) {
    outputs.push_back(op->getNumOperands());
  } else if (fusedKernel) {
    outputs.push_back(op->getNumOperands());
    if (op.getFinalState())
      outputs.push_back(op->getNumOperands() + 1);
  } else if (outputKernel) {
    outputs.push_back(statesIndex + 1);
  } else {
    outputs.push_back(statesIndex);
    if (op.getFinalState())
      outputs.push_back(statesIndex + 1);
  }
  kernel->setAttr("tile.outputs", b.getDenseI64ArrayAttr(outputs));
}

FailureOr<KernelOp> RecurrentBuilder::build(StringRef name, Role role) {
  bool gatesOnly = role == Role::Gates;
  fusedKernel = role == Role::Fused;
  bool output = role == Role::Output || fusedKernel;
  outputKernel = output;
  gatesKernel = gatesOnly;
  blockV = output ? cfg.outputBlockV : cfg.blockV;
  keyCols = output ? cfg.blockK : cfg.stateRows;
  gateCols = output ? cfg.paddedKeyDim : cfg.stateRows;
  auto qt = cast<RankedTensorType>(op.getQ().getType());
  auto vt = cast<RankedTensorType>(op.getV().getType());
  elt = qt.getElementType();
  if (!elt.isBF16() && !elt.isF16())
    return op.emitOpError() << "the chunked kernel needs bf16 or f16 q/k/v (tensor cores), "
                               "found "
                            << elt;
  qkHeads = qt.getDimSize(2);
  keyDim = qt.getDimSize(3);
  heads = vt.getDimSize(2);
  valueDim = vt.getDimSize(3);
  chunk = cfg.chunk;
  sub = std::max<int64_t>(chunk / RecurrentTileConfig::kSubChunks, 1);
  kind = op.getGateKind();
  hasGate = kind != GateKind::none;
  vectorGate = kind == GateKind::vector;
  bool precomputed = cfg.precomputeGates && vectorGate;
  precomputedGates = precomputed;
  if (gatesKernel && !precomputed)
    return op.emitOpError() << "a gates kernel needs vector gates and precompute-gates";
  readsCumGates = precomputed && !gatesKernel;
  if (gatesKernel)
    gateCols = cfg.paddedKeyDim;
  if (chunk % (16 * cfg.warps) != 0 || cfg.paddedKeyDim % (16 * cfg.warps) != 0 ||
      cfg.blockK % (16 * cfg.warps) != 0 || cfg.paddedKeyDim % cfg.blockK != 0 || blockV % 16 != 0)
    return op.emitOpError() << "chunk config needs the chunk, the padded key dim and the key "
                               "tile to be multiples of 16·warps, the key tile to divide the "
                               "padded key dim and the value tile a multiple of 16, got chunk "
                            << chunk << ", key dim " << cfg.paddedKeyDim << ", key tile "
                            << cfg.blockK << ", value tile " << blockV << ", warps " << cfg.warps;
  if (!output && (cfg.stateWarps < 1 || cfg.stateRows % (16 * cfg.stateWarps) != 0 ||
                  cfg.paddedKeyDim % cfg.stateRows != 0))
    return op.emitOpError() << "states kernel config needs the state's rows per block to "
                               "divide the padded key dim ("
                            << cfg.paddedKeyDim << ") and to be a multiple of 16·warps, got "
                            << cfg.stateRows << " rows, " << cfg.stateWarps << " warps";
  for (Attribute attr : op.getInputDims()) {
    std::string error;
    auto dims = attn::parseRecurrentInputDims(cast<StringAttr>(attr).getValue(), error);
    if (!dims)
      return op.emitOpError() << error;
    inputDims.push_back(std::move(*dims));
  }
  qRowFactor = output && !vectorGate && qModIsRowFactor();

  auto toGlobal = [](Type t) {
    auto rt = cast<RankedTensorType>(t);
    return GlobalTensorType::get(t.getContext(), rt.getShape(), rt.getElementType());
  };
  int64_t dk = cfg.paddedKeyDim, bv = blockV;
  int64_t valueTiles = (valueDim + bv - 1) / bv;
  int64_t keyTiles = dk / keyCols;
  SmallVector<Type> params;
  for (Value operand : op->getOperands())
    params.push_back(toGlobal(operand.getType()));
  if (precomputed)
    params.push_back(GlobalTensorType::get(
        b.getContext(), {ShapedType::kDynamic, ShapedType::kDynamic, heads, dk}, b.getF32Type()));
  if (!gatesKernel && !fusedKernel)
    params.push_back(GlobalTensorType::get(
        b.getContext(), {ShapedType::kDynamic, heads, ShapedType::kDynamic, dk, valueDim}, elt));
  if (outputKernel)
    params.push_back(toGlobal(op.getOutput().getType()));
  if (writesFinalState())
    params.push_back(toGlobal(op.getFinalState().getType()));
  // Grid: states (key tiles × value tiles, heads, batch); output (chunks, heads × value
  // tiles, batch); gates (chunks, heads, batch); fused (value tiles, heads, batch: the blocks
  // of one head, which read the same q and k, run side by side).
  SmallVector<int64_t> grid =
      gatesKernel    ? SmallVector<int64_t>{0, 1, chunk, -1, 0, heads, 0, 0, 1}
      : fusedKernel  ? SmallVector<int64_t>{-1, 0, valueTiles, -1, 0, heads, 0, 0, 1}
      : outputKernel ? SmallVector<int64_t>{0, 1, chunk, -1, 0, heads * valueTiles, 0, 0, 1}
                     : SmallVector<int64_t>{-1, 0, keyTiles * valueTiles, -1, 0, heads, 0, 0, 1};
  auto kernel =
      b.create<KernelOp>(loc, name, b.getFunctionType(params, {}),
                         /*arg_attrs=*/nullptr, /*res_attrs=*/nullptr, b.getDenseI64ArrayAttr(grid),
                         (output || gatesKernel ? cfg.warps : cfg.stateWarps) * 32);
  declareParams(kernel);
  // Both kernels are small blocks (128 threads, 32-80 KB of shared memory) meant to run
  // several per multiprocessor: the states kernel's blocks each walk the chunks serially and
  // hide one another's latency.
  kernel->setAttr(kNoWarpSpecializeAttr, b.getUnitAttr());
  kernel->setAttr(kMinBlocksPerSmAttr, b.getI64IntegerAttr(gatesKernel    ? 2
                                                           : outputKernel ? cfg.outputBlocksPerSm
                                                                          : cfg.statesBlocksPerSm));
  Block *entry =
      b.createBlock(&kernel.getBody(), {}, params, SmallVector<Location>(params.size(), loc));
  b.setInsertionPointToStart(entry);
  unsigned next = 0;
  qParam = entry->getArgument(next++);
  kParam = entry->getArgument(next++);
  vParam = entry->getArgument(next++);
  if (hasGate)
    gateParam = entry->getArgument(next++);
  if (op.getInitialState())
    initParam = entry->getArgument(next++);
  for (size_t i = 0; i < op.getInputs().size(); ++i)
    inputParams.push_back(entry->getArgument(next++));
  if (precomputed)
    cumGatesParam = entry->getArgument(next++);
  if (!gatesKernel && !fusedKernel)
    statesParam = entry->getArgument(next++);
  if (outputKernel)
    oParam = entry->getArgument(next++);
  if (writesFinalState())
    finalParam = entry->getArgument(next++);

  Value vTile;
  if (gatesKernel) {
    head = b.create<BlockIdOp>(loc, b.getIndexType(), 1);
    vTile = idx(0);
    k0 = idx(0);
  } else if (fusedKernel) {
    vTile = b.create<BlockIdOp>(loc, b.getIndexType(), 0);
    head = b.create<BlockIdOp>(loc, b.getIndexType(), 1);
    k0 = idx(0);
  } else if (outputKernel) {
    Value y = b.create<BlockIdOp>(loc, b.getIndexType(), 1);
    head = b.create<arith::DivUIOp>(loc, y, idx(valueTiles));
    vTile = b.create<arith::RemUIOp>(loc, y, idx(valueTiles));
    k0 = idx(0);
  } else {
    // Key tiles vary fastest: their count (the padded key dim over 64 or 128 rows: 1, 2, 4
    // for the usual head dims) divides blockIdx.x by a power of two, a shift ptxas recomputes
    // for free; dividing by a value-tile count of 3 or 5 kept two more registers live and
    // spilled 148-228 bytes at three blocks per SM (Dv = 192, 320 at Dk = 256,
    // `metaattn-run --resource-report`).
    Value x = b.create<BlockIdOp>(loc, b.getIndexType(), 0);
    k0 = mul(b.create<arith::RemUIOp>(loc, x, idx(keyTiles)), idx(keyCols));
    vTile = b.create<arith::DivUIOp>(loc, x, idx(keyTiles));
    head = b.create<BlockIdOp>(loc, b.getIndexType(), 1);
  }
  batch = b.create<BlockIdOp>(loc, b.getIndexType(), 2);
  qkHead = b.create<arith::DivUIOp>(loc, head, idx(heads / qkHeads));
  v0 = mul(vTile, idx(bv));
  seqLen = b.create<DimOp>(loc, b.getIndexType(), qParam, 1);

  Type f32Type = b.getF32Type();
  if (fusedKernel) {
    for (int64_t k = 0; k < keyTiles; ++k) {
      qTiles.push_back(alloc({chunk, keyCols}, elt, MemorySpace::shared));
      kTiles.push_back(alloc({chunk, keyCols}, elt, MemorySpace::shared));
      stateTiles.push_back(alloc({keyCols, bv}, elt, MemorySpace::shared));
    }
    vS = alloc({chunk, bv}, elt, MemorySpace::shared);
    // Vector gates decay K (in place, after the output's gemms), not V.
    vhS = hasGate && !vectorGate && !cfg.decayValuesInPlace
              ? alloc({chunk, bv}, elt, MemorySpace::shared)
              : vS;
    if (vectorGate)
      allocVectorOperands();
  } else if (!gatesKernel) {
    kS = alloc({chunk, keyCols}, elt, MemorySpace::shared);
    vS = alloc({chunk, bv}, elt, MemorySpace::shared);
  }
  if (outputKernel && !fusedKernel) {
    qS = alloc({chunk, keyCols}, elt, MemorySpace::shared);
    stateS = alloc({keyCols, bv}, elt, MemorySpace::shared);
    if (vectorGate)
      allocVectorOperands();
  }
  if (hasGate)
    gates = vectorGate ? alloc({chunk, gateCols}, f32Type, MemorySpace::shared)
                       : alloc({chunk}, f32Type, MemorySpace::shared);
  // Inputs the modifiers read per block (read once here) or per chunk row (staged).
  for (auto [i, dims] : llvm::enumerate(inputDims)) {
    Type type = cast<RankedTensorType>(op.getInputs()[i].getType()).getElementType();
    bool perToken = llvm::is_contained(dims, RecurrentDim::T);
    bool perKey = llvm::is_contained(dims, RecurrentDim::D);
    Value scalar, rows;
    if (!perToken && !perKey) {
      SmallVector<Value> indices;
      for (RecurrentDim dim : dims)
        indices.push_back(dim == RecurrentDim::B ? batch : head);
      scalar = b.create<ReadOp>(loc, type, inputParams[i], indices);
    } else if (isRowInput(i)) {
      rows = alloc({chunk}, type, MemorySpace::shared);
    }
    inputScalars.push_back(scalar);
    inputRows.push_back(rows);
  }
  if (gatesKernel) {
    buildGatesBody();
  } else if (fusedKernel) {
    scores = alloc({chunk, chunk}, f32Type, MemorySpace::fragment);
    probs = alloc({chunk, chunk}, elt, MemorySpace::fragment);
    out = alloc({chunk, bv}, f32Type, MemorySpace::fragment);
    for (int64_t k = 0; k < keyTiles; ++k)
      stateFrags.push_back(alloc({keyCols, bv}, f32Type, MemorySpace::fragment));
    buildFusedBody();
  } else if (outputKernel) {
    scores = alloc({chunk, chunk}, f32Type, MemorySpace::fragment);
    probs = alloc({chunk, chunk}, elt, MemorySpace::fragment);
    out = alloc({chunk, bv}, f32Type, MemorySpace::fragment);
    buildOutputBody();
  } else {
    state = alloc({keyCols, bv}, f32Type, MemorySpace::fragment);
    if (cfg.stageStates)
      stateStage = alloc({keyCols, bv}, elt, MemorySpace::shared);
    buildStatesBody();
  }
  b.create<ReturnOp>(loc);
  return kernel;
}

} // namespace

/// The model's config for one chunk length (`request.chunk`, or the default).
static RecurrentTileConfig chooseForChunk(int64_t keyDim, int64_t valueDim, attn::GateKind gate,
                                          int64_t elementBytes, const TargetDesc &target,
                                          const RecurrentTileRequest &request) {
  auto pick = [](int64_t requested, int64_t model) { return requested ? requested : model; };
  RecurrentTileConfig cfg;
  cfg.chunk = pick(request.chunk, cfg.chunk);
  cfg.warps = pick(request.warps, cfg.warps);
  int64_t rowsPerWarpGroup = 16 * cfg.warps;
  cfg.paddedKeyDim = (keyDim + rowsPerWarpGroup - 1) / rowsPerWarpGroup * rowsPerWarpGroup;
  int64_t paddedValue = (valueDim + 15) / 16 * 16;
  // The states kernel splits the state into tiles of 128 (or 64) key rows x 64 value columns;
  // each block reads only its slices of K and V, and three stages keep the chunk loads ahead
  // of the serial walk over the chunks. On the H200 (tests/gpu/sweep_linear.sh, YOCO, RetNet
  // B8, Mamba2 B8, GLA) 128 rows over four warps on mma.sync were 9-14% faster than 64, and
  // 128 rows over eight warps with the update on wgmma (sm_90a) 3-5% faster again; without
  // wgmma, eight warps were slower than four.
  cfg.blockK = rowsPerWarpGroup;
  cfg.blockV = pick(request.blockV, std::min<int64_t>(paddedValue, 64));
  // Vector gates add an f32 gate tile of the block's key rows to every stage (twice the K
  // slice): 64 rows keep three blocks per multiprocessor where 128 left one (GLA at Dk = Dv =
  // 128 on the H200: 4-5% faster, benchmarks/RESULTS.md, eleventh session).
  int64_t rows = cfg.paddedKeyDim % 128 == 0 && gate != attn::GateKind::vector ? 128
                 : cfg.paddedKeyDim % 64 == 0                                  ? 64
                                                                               : cfg.paddedKeyDim;
  cfg.stateRows = pick(request.stateRows, rows);
  int64_t stateWarps = target.wgmma && elementBytes == 2 && cfg.stateRows == 128 ? 8 : 4;
  while (stateWarps > 1 && cfg.stateRows % (16 * stateWarps) != 0)
    stateWarps /= 2;
  cfg.stateWarps = pick(request.stateWarps, stateWarps);
  // The output kernel reads the state from shared memory, a key tile at a time: wider value
  // tiles there recompute the chunk's Q·Kᵀ for fewer tiles.
  cfg.outputBlockV = pick(request.blockV, std::min<int64_t>(paddedValue, 128));
  cfg.stages = pick(request.stages, 3);
  if (request.compactVectorOutput && gate == attn::GateKind::vector) {
    cfg.compactVectorOutput = true;
    cfg.outputStages = 1;
  }
  cfg.precomputeGates = request.precomputeGates && gate == attn::GateKind::vector;
  // Both kernels must fit the block's shared memory: narrow the output kernel's value tile,
  // then drop stages of the states kernel (sizes the caller set stay).
  while (!request.blockV && cfg.outputBlockV > 16 &&
         cfg.sharedBytes(elementBytes, gate, /*output=*/true) > target.sharedBytesPerBlock)
    cfg.outputBlockV /= 2;
  while (!request.stages && cfg.stages > 1 &&
         cfg.sharedBytes(elementBytes, gate, /*output=*/false) > target.sharedBytesPerBlock)
    --cfg.stages;
  // Several blocks per multiprocessor hide each other's latency (the states kernel's walk
  // over the chunks is serial): as many as shared memory allows, up to 3 for the states
  // kernel (170 registers per thread; capping it at 128 for a fourth block spilled and
  // measured 10% slower on the H200) and 2 for the output kernel. A multiprocessor has 1 KB
  // more than a block may take and reserves 1 KB per block; 2 KB more per block cover the
  // 1024-byte alignment of the wgmma tiles. The output loop keeps two stages (a third one
  // left room for one block only and measured 1.8-1.9x slower (YOCO, RetNet B8)).
  int64_t perSm = target.sharedBytesPerBlock + 1024;
  auto fit = [&](bool output) {
    return perSm / (cfg.sharedBytes(elementBytes, gate, output) + 3072);
  };
  // The states kernel trades its third stage for a third block (vector gates add 16 KB to
  // each stage).
  if (!request.stages && cfg.stages > 2 && fit(/*output=*/false) < 3)
    cfg.stages = 2;
  // Registers: the state's share of each thread plus about 104 for the rest on mma.sync
  // (ptxas took 158-166 for 64 or 128 rows x 64 over four warps at three blocks), 48 when
  // the update runs on wgmma (16 rows per warp, sm_90a: no ldmatrix fragments; capped for
  // three blocks, 128 rows x 64 over eight warps take 80, `metaattn-run --resource-report`:
  // YOCO no spills, RetNet 8 bytes; 108 for 64 over four uncapped).
  int64_t stateThreads = cfg.stateWarps * 32;
  bool wgmma = target.wgmma && elementBytes == 2 && cfg.stateRows == 16 * cfg.stateWarps &&
               cfg.stateWarps % 4 == 0 && cfg.blockV % 16 == 0 && cfg.blockV * 2 % 128 == 0;
  int64_t stateRegs = cfg.stateRows * cfg.blockV / stateThreads + (wgmma ? 48 : 104);
  // A key-tile count that is not a power of two (Dk = 384: three) divides blockIdx.x for
  // real, which kept more registers live: 148-228 bytes of spills at three blocks.
  if (!llvm::isPowerOf2_64(cfg.paddedKeyDim / cfg.stateRows))
    stateRegs += 16;
  int64_t byRegisters = 65536 / (stateThreads * stateRegs);
  auto statesBlocks = [&](const RecurrentTileConfig &c) {
    int64_t byShared = perSm / (c.sharedBytes(elementBytes, gate, /*output=*/false) + 3072);
    return std::clamp<int64_t>(std::min(byShared, byRegisters), 1, wgmma ? 4 : 3);
  };
  cfg.statesBlocksPerSm = statesBlocks(cfg);
  // Each chunk's state goes out through a shared tile of its size (whole 16-byte row chunks:
  // half the store instructions and sectors of pair-by-pair stores, which on the H200 kept
  // the load-store queue full) where that keeps the blocks per multiprocessor, at two
  // stages if need be (two and three measured the same, YOCO and RetNet B8).
  if (request.stagedStateStores && cfg.blockV * elementBytes % 16 == 0) {
    RecurrentTileConfig staged = cfg;
    staged.stageStates = true;
    if (!request.stages && staged.stages > 2 && statesBlocks(staged) < cfg.statesBlocksPerSm)
      staged.stages = 2;
    staged.statesBlocksPerSm = statesBlocks(staged);
    if (staged.statesBlocksPerSm >= cfg.statesBlocksPerSm &&
        staged.sharedBytes(elementBytes, gate, false) <= target.sharedBytesPerBlock)
      cfg = staged;
  }
  cfg.outputBlocksPerSm = std::clamp<int64_t>(fit(/*output=*/true), 1, 2);
  return cfg;
}

/// The fused kernel's config from the two-kernel one (its chunk, warps and key tiles), or
/// none where the state's columns would not fit the registers (more than 128 per thread: a
/// key dim over 256 at 64 value columns and four warps; with vector gates more than one key
/// tile) or the tiles the shared memory.
static std::optional<RecurrentTileConfig> chooseFused(RecurrentTileConfig cfg, int64_t valueDim,
                                                      attn::GateKind gate, int64_t elementBytes,
                                                      const TargetDesc &target,
                                                      const RecurrentTileRequest &request) {
  cfg.fused = true;
  cfg.stageStates = cfg.precomputeGates = false;
  // Vector gates: one pair of sub-chunk operand tiles, as the compact output kernel.
  cfg.compactVectorOutput = gate == attn::GateKind::vector;
  // 64 value columns: the narrowest tile wgmma's shared B operand takes (128-byte rows).
  int64_t paddedValue = (valueDim + 15) / 16 * 16;
  cfg.outputBlockV = request.blockV ? request.blockV : std::min<int64_t>(paddedValue, 64);
  cfg.blockV = cfg.outputBlockV;
  if (cfg.paddedKeyDim * cfg.outputBlockV > 128 * 32 * cfg.warps)
    return std::nullopt;
  // Vector gates: the output kernel's element-wise passes already take ~230 registers at
  // four warps; with the state of a second key tile beside them ptxas spilled 652 B (GLA at
  // Dk = 128, `metaattn-run --resource-report`), so one key tile at most.
  if (gate == attn::GateKind::vector && cfg.paddedKeyDim > cfg.blockK)
    return std::nullopt;
  // Stages (two, or one) and where V̂ goes: the most blocks per multiprocessor (up to two:
  // one warpgroup each, so a second hides the first's waits), then the most stages, then V̂
  // in a tile of its own (the update overlaps the output's element-wise work). At Dk = 256
  // that is one stage with V̂ in place: 108 KB, two blocks, where two stages take 190 KB.
  std::optional<RecurrentTileConfig> best;
  int64_t bestBlocks = 0;
  for (int64_t stages : {int64_t(2), int64_t(1)}) {
    if (request.stages && stages != request.stages)
      continue;
    for (bool inPlace : {false, true}) {
      // Without gates nothing is decayed; vector gates decay K in place always.
      if (inPlace && (gate == attn::GateKind::none || gate == attn::GateKind::vector))
        continue;
      RecurrentTileConfig c = cfg;
      c.stages = stages;
      c.decayValuesInPlace = inPlace;
      int64_t bytes = c.sharedBytes(elementBytes, gate, /*output=*/true);
      if (bytes > target.sharedBytesPerBlock)
        continue;
      int64_t blocks =
          std::clamp<int64_t>((target.sharedBytesPerBlock + 1024) / (bytes + 3072), 1, 2);
      if (blocks > bestBlocks) {
        best = c;
        best->outputBlocksPerSm = bestBlocks = blocks;
      }
    }
  }
  // A requested stage count that fits nowhere (three, say) is kept with V̂ apart, as asked.
  if (!best && request.stages) {
    cfg.stages = request.stages;
    if (cfg.sharedBytes(elementBytes, gate, /*output=*/true) > target.sharedBytesPerBlock)
      return std::nullopt;
    best = cfg;
  }
  return best;
}

RecurrentTileConfig metaattn::chooseRecurrentConfig(int64_t keyDim, int64_t valueDim,
                                                    attn::GateKind gate, int64_t elementBytes,
                                                    const TargetDesc &target,
                                                    const RecurrentTileRequest &request) {
  RecurrentTileConfig cfg = chooseForChunk(keyDim, valueDim, gate, elementBytes, target, request);
  // Where a kernel still does not fit the block's shared memory at the narrowest value tile
  // and one stage (vector gates with a wide key dim on a small target: GLA at Dk = 200 on
  // sm_80 keeps 64 KB of f32 gates per 64-token chunk in its output kernel), halve the chunk
  // and the warps that cover it, unless the caller set either.
  auto fits = [&](const RecurrentTileConfig &c) {
    return c.sharedBytes(elementBytes, gate, /*output=*/true) <= target.sharedBytesPerBlock &&
           c.sharedBytes(elementBytes, gate, /*output=*/false) <= target.sharedBytesPerBlock;
  };
  while (!request.chunk && !request.warps && !fits(cfg) && cfg.warps > 1) {
    RecurrentTileRequest smaller = request;
    smaller.chunk = cfg.chunk / 2;
    smaller.warps = cfg.warps / 2;
    cfg = chooseForChunk(keyDim, valueDim, gate, elementBytes, target, smaller);
  }
  if (request.fusedChunks)
    if (std::optional<RecurrentTileConfig> fused =
            chooseFused(cfg, valueDim, gate, elementBytes, target, request))
      return *fused;
  return cfg;
}

int64_t RecurrentTileConfig::sharedBytes(int64_t elementBytes, attn::GateKind gate,
                                         bool output) const {
  // Fused: Q's and K's slices of the chunk and V per stage (with per-token gates, and the
  // per-token, per-key-dim gates of vector gates), the state's 16-bit copy, the decayed V of
  // scalar gates, and the operand tiles of vector gates (as the compact output kernel's).
  if (fused && output) {
    bool scalar = gate == attn::GateKind::head || gate == attn::GateKind::token;
    int64_t perStage = (2 * chunk * paddedKeyDim + chunk * outputBlockV) * elementBytes +
                       (gate == attn::GateKind::token    ? chunk * 4
                        : gate == attn::GateKind::vector ? chunk * paddedKeyDim * 4
                                                         : 0);
    int64_t once = paddedKeyDim * outputBlockV * elementBytes +
                   (scalar && !decayValuesInPlace ? chunk * outputBlockV * elementBytes : 0) +
                   (gate == attn::GateKind::head ? chunk * 4 : 0);
    if (gate == attn::GateKind::vector)
      once += 3 * chunk * blockK * elementBytes + chunk * (chunk / kSubChunks) * 4;
    return perStage * stages + once;
  }
  int64_t gates = gate == attn::GateKind::vector ? chunk * (output ? paddedKeyDim : stateRows) * 4
                  : gate != attn::GateKind::none ? chunk * 4
                                                 : 0;
  // Vector gates, output kernel: Q ⊙ exp(G), the sub-chunk operands Q̃_s, K̃_s and the
  // diagonal sub-chunks' scores (f32).
  if (output && gate == attn::GateKind::vector)
    gates += (1 + 2 * (compactVectorOutput ? 1 : kSubChunks - 1)) * chunk * blockK * elementBytes +
             chunk * (chunk / kSubChunks) * 4;
  // Output kernel: the key tiles of q and k and the state's rows per stage, v once.
  if (output)
    return ((2 * chunk * blockK + blockK * outputBlockV) * outputStages + chunk * outputBlockV) *
               elementBytes +
           gates;
  // States kernel: its k and v slices (and vector gates) per pipeline stage, and the state's
  // staging tile.
  int64_t perStage = (chunk * stateRows + chunk * blockV) * elementBytes;
  int64_t staging = stageStates ? stateRows * blockV * elementBytes : 0;
  if (gate == attn::GateKind::vector)
    return (perStage + gates) * stages + staging;
  return perStage * stages + gates + staging;
}

int64_t metaattn::recurrentKernelCount(attn::RecurrentOp op, const RecurrentTileConfig &config) {
  if (config.fused)
    return 1;
  return config.precomputeGates && op.getGateKind() == GateKind::vector ? 3 : 2;
}

FailureOr<SmallVector<KernelOp>>
metaattn::buildRecurrentKernels(OpBuilder &builder, attn::RecurrentOp op,
                                ArrayRef<std::string> names, const RecurrentTileConfig &config) {
  int64_t count = recurrentKernelCount(op, config);
  if (static_cast<int64_t>(names.size()) != count)
    return op.emitOpError() << "expected " << count << " kernel names, got " << names.size();
  OpBuilder::InsertionGuard guard(builder);
  SmallVector<KernelOp> kernels;
  for (int64_t i = 0; i < count; ++i) {
    using Role = RecurrentBuilder::Role;
    Role role = config.fused           ? Role::Fused
                : count == 3 && i == 0 ? Role::Gates
                : i == count - 1       ? Role::Output
                                       : Role::States;
    FailureOr<KernelOp> kernel = RecurrentBuilder(builder, op, config).build(names[i], role);
    if (failed(kernel))
      return failure();
    builder.setInsertionPointAfter(*kernel);
    kernels.push_back(*kernel);
  }
  return kernels;
}
