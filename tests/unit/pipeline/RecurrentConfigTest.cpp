//===- RecurrentConfigTest.cpp - the chunk config of attn.recurrent -------===//
//
// chooseRecurrentConfig: the states kernel's blocks by target and head dims, requested sizes
// winning over the model, and the derived stages and blocks per multiprocessor staying within
// the target's shared memory.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include <gtest/gtest.h>

using namespace metaattn;

namespace {

TargetDesc target(llvm::StringRef name) {
  std::optional<TargetDesc> t = TargetDesc::get(name);
  EXPECT_TRUE(t.has_value()) << name.str();
  return *t;
}

/// Shared memory a multiprocessor gives the states kernel's blocks (with the model's slack).
void expectFits(const RecurrentTileConfig &cfg, attn::GateKind gate, const TargetDesc &t) {
  EXPECT_LE(cfg.sharedBytes(2, gate, /*output=*/false), t.sharedBytesPerBlock);
  EXPECT_LE(cfg.sharedBytes(2, gate, /*output=*/true), t.sharedBytesPerBlock);
  EXPECT_LE((cfg.sharedBytes(2, gate, false) + 3072) * cfg.statesBlocksPerSm,
            t.sharedBytesPerBlock + 1024);
}

TEST(RecurrentConfigTest, WideKeysUseEightWarpsOnWgmma) {
  TargetDesc hopper = target("sm_90a");
  RecurrentTileConfig cfg = chooseRecurrentConfig(256, 256, attn::GateKind::token, 2, hopper);
  EXPECT_EQ(cfg.stateRows, 128);
  EXPECT_EQ(cfg.stateWarps, 8);
  EXPECT_EQ(cfg.paddedKeyDim % cfg.stateRows, 0);
  expectFits(cfg, attn::GateKind::token, hopper);
  // Without wgmma the same rows go over four warps (mma.sync).
  TargetDesc sm90 = target("sm_90");
  RecurrentTileConfig plain = chooseRecurrentConfig(256, 256, attn::GateKind::token, 2, sm90);
  EXPECT_EQ(plain.stateRows, 128);
  EXPECT_EQ(plain.stateWarps, 4);
  expectFits(plain, attn::GateKind::token, sm90);
}

TEST(RecurrentConfigTest, StateStoresAreStagedOnlyWhereTheBlocksPerSmStay) {
  TargetDesc hopper = target("sm_90a");
  // YOCO-like scalar gates: the staging tile fits with two stages, three blocks stay.
  RecurrentTileConfig scalar = chooseRecurrentConfig(256, 256, attn::GateKind::token, 2, hopper);
  RecurrentTileRequest off;
  off.stagedStateStores = false;
  RecurrentTileConfig unstaged =
      chooseRecurrentConfig(256, 256, attn::GateKind::token, 2, hopper, off);
  EXPECT_TRUE(scalar.stageStates);
  EXPECT_FALSE(unstaged.stageStates);
  EXPECT_EQ(scalar.statesBlocksPerSm, unstaged.statesBlocksPerSm);
  EXPECT_EQ(scalar.statesBlocksPerSm, 3);
  expectFits(scalar, attn::GateKind::token, hopper);
  // Three key tiles (Dk = 384) divide blockIdx.x for real: two blocks, no register cap that
  // spilled.
  EXPECT_EQ(chooseRecurrentConfig(384, 256, attn::GateKind::token, 2, hopper).statesBlocksPerSm, 2);
  // Vector gates (GLA, 128 x 128): their per-stage gates leave no room for the tile without
  // losing a block, so the stores stay pair by pair.
  RecurrentTileConfig vector = chooseRecurrentConfig(128, 128, attn::GateKind::vector, 2, hopper);
  RecurrentTileConfig vectorOff =
      chooseRecurrentConfig(128, 128, attn::GateKind::vector, 2, hopper, off);
  EXPECT_GE(vector.statesBlocksPerSm, vectorOff.statesBlocksPerSm);
  expectFits(vector, attn::GateKind::vector, hopper);
}

TEST(RecurrentConfigTest, PrecomputedGatesAreForVectorGatesOnly) {
  TargetDesc hopper = target("sm_90a");
  RecurrentTileRequest request;
  request.precomputeGates = true;
  EXPECT_TRUE(
      chooseRecurrentConfig(128, 128, attn::GateKind::vector, 2, hopper, request).precomputeGates);
  EXPECT_FALSE(
      chooseRecurrentConfig(128, 128, attn::GateKind::token, 2, hopper, request).precomputeGates);
  EXPECT_TRUE(chooseRecurrentConfig(128, 128, attn::GateKind::vector, 2, hopper).precomputeGates);
  request.precomputeGates = false;
  EXPECT_FALSE(
      chooseRecurrentConfig(128, 128, attn::GateKind::vector, 2, hopper, request).precomputeGates);
}

TEST(RecurrentConfigTest, VectorGatesTakeSixtyFourStateRows) {
  // GLA at Dk = Dv = 128: the per-stage f32 gate tile doubles with the rows; 64 rows over four
  // warps (the update still on wgmma) fit three blocks per multiprocessor.
  TargetDesc hopper = target("sm_90a");
  RecurrentTileConfig cfg = chooseRecurrentConfig(128, 128, attn::GateKind::vector, 2, hopper);
  EXPECT_EQ(cfg.stateRows, 64);
  EXPECT_EQ(cfg.stateWarps, 4);
  EXPECT_EQ(cfg.statesBlocksPerSm, 3);
  expectFits(cfg, attn::GateKind::vector, hopper);
}

TEST(RecurrentConfigTest, CompactVectorOutputFitsTwoBlocks) {
  TargetDesc hopper = target("sm_90a");
  RecurrentTileRequest wide;
  wide.compactVectorOutput = false;
  // GLA at Dk = Dv = 128: two blocks per multiprocessor by default (compact), one without.
  RecurrentTileConfig small = chooseRecurrentConfig(128, 128, attn::GateKind::vector, 2, hopper);
  RecurrentTileConfig plain =
      chooseRecurrentConfig(128, 128, attn::GateKind::vector, 2, hopper, wide);
  EXPECT_FALSE(plain.compactVectorOutput);
  EXPECT_EQ(plain.outputBlocksPerSm, 1);
  EXPECT_TRUE(small.compactVectorOutput);
  EXPECT_EQ(small.outputStages, 1);
  EXPECT_EQ(small.outputBlocksPerSm, 2);
  EXPECT_LT(small.sharedBytes(2, attn::GateKind::vector, /*output=*/true),
            plain.sharedBytes(2, attn::GateKind::vector, /*output=*/true));
  expectFits(small, attn::GateKind::vector, hopper);
  // Other gates ignore it.
  EXPECT_FALSE(
      chooseRecurrentConfig(128, 128, attn::GateKind::token, 2, hopper).compactVectorOutput);
}

TEST(RecurrentConfigTest, OddKeyDimsGetRowsThatDivideThePaddedDim) {
  TargetDesc hopper = target("sm_90a");
  for (int64_t dk : {1, 17, 64, 72, 136, 200}) {
    RecurrentTileConfig cfg = chooseRecurrentConfig(dk, 40, attn::GateKind::vector, 2, hopper);
    EXPECT_GE(cfg.paddedKeyDim, dk);
    EXPECT_EQ(cfg.paddedKeyDim % cfg.stateRows, 0) << "Dk " << dk;
    EXPECT_EQ(cfg.stateRows % (16 * cfg.stateWarps), 0) << "Dk " << dk;
    EXPECT_GE(cfg.stages, 1);
    EXPECT_GE(cfg.statesBlocksPerSm, 1);
    expectFits(cfg, attn::GateKind::vector, hopper);
  }
}

// Narrowed for a small shared memory (gfx90a's 64 KB), the output kernel's value tile stays
// a multiple of 16: Dv = 100 (padded 112) once gave 56, which the tiler rejected.
TEST(RecurrentConfigTest, NarrowedValueTilesStayMultiplesOf16) {
  TargetDesc cdna = target("gfx90a");
  for (int64_t dv : {24, 40, 72, 100, 136, 200, 232, 256})
    for (attn::GateKind gate : {attn::GateKind::none, attn::GateKind::token})
      for (int64_t dk : {48, 64, 128}) {
        RecurrentTileConfig cfg = chooseRecurrentConfig(dk, dv, gate, 2, cdna);
        EXPECT_EQ(cfg.outputBlockV % 16, 0) << "Dk " << dk << " Dv " << dv;
        EXPECT_GE(cfg.outputBlockV, 16) << "Dk " << dk << " Dv " << dv;
        EXPECT_LE(cfg.sharedBytes(2, gate, /*output=*/true), cdna.sharedBytesPerBlock);
        EXPECT_LE(cfg.sharedBytes(2, gate, /*output=*/false), cdna.sharedBytesPerBlock);
      }
}

TEST(RecurrentConfigTest, RequestedSizesWinAndStagesFollow) {
  TargetDesc hopper = target("sm_90a");
  RecurrentTileRequest request;
  request.stateRows = 256;
  request.stateWarps = 8;
  request.blockV = 32;
  RecurrentTileConfig cfg =
      chooseRecurrentConfig(256, 256, attn::GateKind::vector, 2, hopper, request);
  EXPECT_EQ(cfg.stateRows, 256);
  EXPECT_EQ(cfg.stateWarps, 8);
  EXPECT_EQ(cfg.blockV, 32);
  EXPECT_EQ(cfg.outputBlockV, 32);
  // The stages were chosen for the requested rows: the states kernel still fits.
  expectFits(cfg, attn::GateKind::vector, hopper);
  request.stages = 2;
  EXPECT_EQ(chooseRecurrentConfig(256, 256, attn::GateKind::vector, 2, hopper, request).stages, 2);
}

} // namespace

// GLA at Dk = 200 on sm_80: the output kernel's f32 gates of a 64-token chunk (64 KB at the
// padded Dk 256) left no room under 99 KB; the model halves the chunk and its warps until both
// kernels fit, and the defaults elsewhere keep 64 tokens.
namespace {
TEST(RecurrentConfigTest, VectorGatesWithWideKeysHalveTheChunkToFit) {
  TargetDesc ampere = target("sm_80");
  RecurrentTileConfig cfg = chooseRecurrentConfig(200, 136, attn::GateKind::vector, 2, ampere);
  EXPECT_LT(cfg.chunk, 64);
  EXPECT_EQ(cfg.chunk, 16 * cfg.warps);
  expectFits(cfg, attn::GateKind::vector, ampere);
  EXPECT_EQ(chooseRecurrentConfig(128, 128, attn::GateKind::vector, 2, ampere).chunk, 64);
  EXPECT_EQ(chooseRecurrentConfig(200, 136, attn::GateKind::vector, 2, target("sm_90a")).chunk, 64);
  // A chunk the caller sets stays, fitting or not.
  RecurrentTileRequest request;
  request.chunk = 64;
  EXPECT_EQ(chooseRecurrentConfig(200, 136, attn::GateKind::vector, 2, ampere, request).chunk, 64);
}
} // namespace

TEST(RecurrentConfigTest, FusedChunksWhereTheStateFitsTheRegisters) {
  TargetDesc hopper = target("sm_90a");
  RecurrentTileRequest request;
  request.fusedChunks = true;
  // Off unless asked for.
  EXPECT_FALSE(chooseRecurrentConfig(256, 512, attn::GateKind::head, 2, hopper).fused);
  // RetNet 6.7B (256/512): 64 value columns of all 256 key rows over four warps are 128
  // registers per thread; one stage with V̂ in Q's first key tile fits two blocks per
  // multiprocessor, where two stages (or V̂ apart) fit one.
  RecurrentTileConfig retnet =
      chooseRecurrentConfig(256, 512, attn::GateKind::head, 2, hopper, request);
  EXPECT_TRUE(retnet.fused);
  EXPECT_EQ(retnet.outputBlockV, 64);
  EXPECT_EQ(retnet.stages, 1);
  EXPECT_TRUE(retnet.decayValuesInPlace);
  EXPECT_EQ(retnet.outputBlocksPerSm, 2);
  EXPECT_LE((retnet.sharedBytes(2, attn::GateKind::head, /*output=*/true) + 3072) * 2,
            hopper.sharedBytesPerBlock + 1024);
  // Two stages asked for: one block either way, so V̂ keeps its own tile.
  RecurrentTileRequest twoStages = request;
  twoStages.stages = 2;
  RecurrentTileConfig retnet2 =
      chooseRecurrentConfig(256, 512, attn::GateKind::head, 2, hopper, twoStages);
  EXPECT_EQ(retnet2.stages, 2);
  EXPECT_FALSE(retnet2.decayValuesInPlace);
  EXPECT_EQ(retnet2.outputBlocksPerSm, 1);
  // Mamba2 (128/64, per-token gates): two stages, V̂ apart, two blocks per multiprocessor.
  RecurrentTileConfig mamba =
      chooseRecurrentConfig(128, 64, attn::GateKind::token, 2, hopper, request);
  EXPECT_TRUE(mamba.fused);
  EXPECT_EQ(mamba.stages, 2);
  EXPECT_FALSE(mamba.decayValuesInPlace);
  EXPECT_EQ(mamba.outputBlocksPerSm, 2);
  EXPECT_LE((mamba.sharedBytes(2, attn::GateKind::token, true) + 3072) * 2,
            hopper.sharedBytesPerBlock + 1024);
  // A requested single stage is kept.
  RecurrentTileRequest oneStage = request;
  oneStage.stages = 1;
  EXPECT_EQ(chooseRecurrentConfig(256, 512, attn::GateKind::head, 2, hopper, oneStage).stages, 1);
  // Vector gates fuse at one key tile (64 dims over four warps), with the compact operand
  // tiles; at two they keep the kernels (ptxas spilled 652 B), as does a key dim whose state
  // would not fit the registers (512 rows x 64 columns: 256 per thread).
  RecurrentTileConfig gla =
      chooseRecurrentConfig(64, 128, attn::GateKind::vector, 2, hopper, request);
  EXPECT_TRUE(gla.fused);
  EXPECT_TRUE(gla.compactVectorOutput);
  EXPECT_FALSE(gla.decayValuesInPlace);
  EXPECT_LE(gla.sharedBytes(2, attn::GateKind::vector, true), hopper.sharedBytesPerBlock);
  EXPECT_FALSE(chooseRecurrentConfig(128, 128, attn::GateKind::vector, 2, hopper, request).fused);
  EXPECT_FALSE(chooseRecurrentConfig(512, 64, attn::GateKind::none, 2, hopper, request).fused);
  // The smaller shared memory of sm_80: at Dk = 128 two stages fit with V̂ in place; at
  // Dk = 256 not even one stage (Q, K and the state's copy: 107 KB), so the two kernels stay.
  TargetDesc ampere = target("sm_80");
  RecurrentTileConfig small =
      chooseRecurrentConfig(128, 256, attn::GateKind::token, 2, ampere, request);
  EXPECT_TRUE(small.fused);
  EXPECT_EQ(small.stages, 2);
  EXPECT_TRUE(small.decayValuesInPlace);
  EXPECT_LE(small.sharedBytes(2, attn::GateKind::token, true), ampere.sharedBytesPerBlock);
  RecurrentTileConfig wide =
      chooseRecurrentConfig(256, 256, attn::GateKind::token, 2, ampere, request);
  EXPECT_FALSE(wide.fused);
  EXPECT_LE(wide.sharedBytes(2, attn::GateKind::token, true), ampere.sharedBytesPerBlock);
}
