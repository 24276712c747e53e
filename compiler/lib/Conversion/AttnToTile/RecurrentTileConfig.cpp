//===- RecurrentTileConfig.cpp - the tile model of attn.recurrent -----------===//
//
// chooseRecurrentConfig: the chunk, blocks, stages and blocks per multiprocessor of the
// chunked kernels (and whether one fused kernel replaces them) from the head dims, the gate
// kind and the target's shared memory and registers; RecurrentTileConfig::sharedBytes.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include <algorithm>
#include <optional>

using namespace metaattn;

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
  // (Halved to a multiple of 16, the gemms' granularity: a padded value dim of 112 goes to
  // 48, not 56.)
  while (!request.blockV && cfg.outputBlockV > 16 &&
         cfg.sharedBytes(elementBytes, gate, /*output=*/true) > target.sharedBytesPerBlock)
    cfg.outputBlockV = std::max<int64_t>(16, cfg.outputBlockV / 2 / 16 * 16);
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
  // that is one stage with V̂ in Q's first key tile: 108 KB, two blocks, where two stages take
  // 190 KB.
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
