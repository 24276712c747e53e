//===- RecurrentKernelBuilder.cpp - attn.recurrent as chunked tile.kernels --===//
//
// The kernels of the chunked algorithm (see RecurrentKernelBuilder.h): the states, output,
// gates and fused kernels' parameters, grids, buffers and bodies, and buildRecurrentKernels.
//
//===----------------------------------------------------------------------===//

#include "RecurrentKernelBuilder.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace metaattn;
using namespace metaattn::tile;
using attn::GateKind;
using attn::RecurrentDim;

void RecurrentKernelBuilder::buildStatesBody() {
  // S starts from the initial state (zero past the head dims) or zero.
  initState(state, k0);
  bool constantGates = false;
  {
    OpBuilder::InsertionGuard guard(b);
    auto [j, t0] = beginChunkLoop(constantGates);
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

void RecurrentKernelBuilder::buildOutputBody() {
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

void RecurrentKernelBuilder::buildGatesBody() {
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

void RecurrentKernelBuilder::buildFusedBody() {
  // One value tile of one head walks the chunks: the state's rows stay in registers (a
  // fragment per key tile, each a gemm accumulator of 16 rows per warp) and are copied to
  // 16-bit shared tiles after each update, which the next chunk's Q S gemm reads. The chunk's
  // Q Kᵀ and Q S per key tile are issued together; with V̂ in a tile of its own (scalar gates,
  // where shared memory allows) the update joins them and stays in flight during the output's
  // element-wise work; otherwise V̂ (vector gates: K̂) overwrites its operand once P V is done
  // and the update follows.
  for (auto [k, frag] : llvm::enumerate(stateFrags)) {
    initState(frag, idx(static_cast<int64_t>(k) * keyCols));
    b.create<CopyOp>(loc, frag, ValueRange{}, stateTiles[k], ValueRange{}, nullptr, false);
  }
  bool constantGates = false;
  {
    OpBuilder::InsertionGuard guard(b);
    auto [j, t0] = beginChunkLoop(constantGates);
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
    // with them; in Q's first tile it follows the Q gemms; over V (and K̂ of vector gates)
    // it waits for P V. The update stays in flight during P's element-wise work but in the
    // last case (tile-use-wgmma).
    bool intoQ = hasGate && !vectorGate && vhS != vS && !qTiles.empty() && vhS == qTiles.front();
    bool inPlace = hasGate && (cfg.decayValuesInPlace || vectorGate) && !intoQ;
    auto update = [&] {
      for (auto [k, frag] : llvm::enumerate(stateFrags))
        b.create<GemmOp>(loc, kTiles[k], vhS, frag, /*transpose_b=*/false, /*async=*/false,
                         /*transpose_a=*/true);
    };
    if (hasGate && !inPlace && !intoQ) {
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
    if (intoQ) {
      // Every warp's Q gemms are done reading Q.
      b.create<BarrierOp>(loc);
      decayForUpdate(t0);
      b.create<BarrierOp>(loc);
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

void RecurrentKernelBuilder::declareParams(KernelOp kernel) {
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

FailureOr<KernelOp> RecurrentKernelBuilder::build(StringRef name, Role role) {
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
    // Vector gates decay K (in place, after the output's gemms), not V. Scalar gates without
    // a V̂ tile of its own put V̂ in Q's first key tile once the chunk's Q gemms are done (or,
    // where the shapes differ, over V once P V is).
    bool apart = hasGate && !vectorGate && !cfg.decayValuesInPlace;
    vhS = apart ? alloc({chunk, bv}, elt, MemorySpace::shared) : vS;
    if (hasGate && !vectorGate && cfg.decayValuesInPlace && bv == keyCols)
      vhS = qTiles.front();
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
    using Role = RecurrentKernelBuilder::Role;
    Role role = config.fused           ? Role::Fused
                : count == 3 && i == 0 ? Role::Gates
                : i == count - 1       ? Role::Output
                                       : Role::States;
    FailureOr<KernelOp> kernel = RecurrentKernelBuilder(builder, op, config).build(names[i], role);
    if (failed(kernel))
      return failure();
    builder.setInsertionPointAfter(*kernel);
    kernels.push_back(*kernel);
  }
  return kernels;
}
