//===- RecurrentChunkMath.cpp - one chunk of the chunked algorithm ----------===//
//
// RecurrentKernelBuilder members that compute a chunk: the intra-chunk scores and the state's
// contribution per key tile (element-wise for vector gates' diagonal sub-chunks), the decay
// and P·V, and the state update with its decayed operand.
//
//===----------------------------------------------------------------------===//

#include "RecurrentKernelBuilder.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace metaattn;
using namespace metaattn::tile;
using attn::GateKind;
using attn::RecurrentDim;

Value RecurrentKernelBuilder::causalOrZero(Value i, Value j, llvm::function_ref<Value()> inside) {
  Value keep = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, j, i);
  auto ifKeep = b.create<scf::IfOp>(loc, b.getF32Type(), keep, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifKeep.getThenRegion().front());
  b.create<scf::YieldOp>(loc, inside());
  b.setInsertionPointToStart(&ifKeep.getElseRegion().front());
  b.create<scf::YieldOp>(loc, f32(0.0));
  return ifKeep.getResult(0);
}

void RecurrentKernelBuilder::accumulateKeyTile(Value keyOffset) {
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

void RecurrentKernelBuilder::finishChunk(Value t0) {
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

void RecurrentKernelBuilder::updateState(Value t0) {
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

void RecurrentKernelBuilder::decayKeysForUpdate(Value t0) {
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

void RecurrentKernelBuilder::decayForUpdate(Value t0) {
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
