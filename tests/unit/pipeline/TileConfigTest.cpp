//===- TileConfigTest.cpp - the tile model of softmax-family attention ----===//
//
// chooseTileConfig on sm_90a: consumer warpgroups and kv tile widths by head dims, mask and
// schedule, every choice within the target's shared memory and the consumers' registers.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include <gtest/gtest.h>

using namespace metaattn;

namespace {

struct Expected {
  int64_t blockM, blockN, warps, stages;
};

void expectConfig(const TileConfig &cfg, Expected e) {
  EXPECT_EQ(cfg.blockM, e.blockM);
  EXPECT_EQ(cfg.blockN, e.blockN);
  EXPECT_EQ(cfg.warps, e.warps);
  EXPECT_EQ(cfg.stages, e.stages);
  const TargetDesc hopper = *TargetDesc::get("sm_90a");
  // The emitter's alignment and mbarriers take up to 3 KB more.
  EXPECT_LE(cfg.sharedBytes(2) + 3072, hopper.sharedBytesPerBlock);
}

TileConfig hopper(int64_t d, int64_t dv, bool masked, KernelSchedule schedule = {}) {
  return chooseTileConfig(d, dv, 2, *TargetDesc::get("sm_90a"), masked, schedule);
}

TEST(TileConfigTest, ThreeConsumerWarpgroupsWhereTheirFragmentsFit) {
  // D64: scores 64 + probabilities 32 + output 32 registers fit three consumers' 160.
  expectConfig(hopper(64, 64, /*masked=*/true), {192, 128, 12, 2});
  expectConfig(hopper(64, 64, /*masked=*/false), {192, 128, 12, 2});
  // D128: the output accumulator alone takes 64; two consumers.
  expectConfig(hopper(128, 128, /*masked=*/true), {128, 128, 8, 2});
  expectConfig(hopper(64, 128, /*masked=*/true), {128, 128, 8, 2});
}

TEST(TileConfigTest, MaskFreeKernelsTakeWiderKvTiles) {
  expectConfig(hopper(128, 128, /*masked=*/false), {128, 192, 8, 2});
}

TEST(TileConfigTest, WideHeadsTakeTheWidestKvTileThatFits) {
  // D256: 96 rows would need 260 KB in two stages; 80 fit 224 KB.
  expectConfig(hopper(256, 256, /*masked=*/true), {128, 80, 8, 2});
  expectConfig(hopper(256, 256, /*masked=*/false), {128, 80, 8, 2});
  // Dv 256: the registers bound it (128 + 96 / 2 + 96 / 4 = 200 of 208).
  expectConfig(hopper(128, 256, /*masked=*/true), {128, 96, 8, 2});
  expectConfig(hopper(192, 128, /*masked=*/true), {128, 128, 8, 2});
}

TEST(TileConfigTest, TheOverlappedScheduleKeepsKvTilesOf128ForNarrowHeads) {
  // The pipeline's default. D64 keeps three consumers (tile-gemm-overlap leaves them); D128
  // without a mask keeps 128-wide kv tiles (192 measured slower at S <= 2k overlapped); D256
  // the same 80 as without the overlap.
  KernelSchedule overlap{/*warpSpecialize=*/true, /*gemmOverlap=*/true};
  expectConfig(hopper(64, 64, /*masked=*/false, overlap), {192, 128, 12, 2});
  expectConfig(hopper(128, 128, /*masked=*/false, overlap), {128, 128, 8, 2});
  expectConfig(hopper(128, 128, /*masked=*/true, overlap), {128, 128, 8, 2});
  expectConfig(hopper(256, 256, /*masked=*/true, overlap), {128, 80, 8, 2});
}

TEST(TileConfigTest, MaskedVariantsWithoutAShiftAreNotOverlapped) {
  // Causal sigmoid and ReLU ran 0.89-0.97x overlapped on the H200; unmasked ones and softmax
  // (shifted) gained. Not overlapped, the unmasked D128 kernel may take 192-wide kv tiles.
  KernelSchedule overlap{/*warpSpecialize=*/true, /*gemmOverlap=*/true};
  auto config = [&](bool masked, bool shifted) {
    return chooseTileConfig(128, 128, 2, *TargetDesc::get("sm_90a"), masked, overlap,
                            VariantTraits{/*shifted=*/shifted});
  };
  EXPECT_FALSE(config(/*masked=*/true, /*shifted=*/false).gemmOverlap);
  EXPECT_TRUE(config(/*masked=*/false, /*shifted=*/false).gemmOverlap);
  EXPECT_TRUE(config(/*masked=*/true, /*shifted=*/true).gemmOverlap);
  EXPECT_TRUE(config(/*masked=*/false, /*shifted=*/true).gemmOverlap);
  expectConfig(config(/*masked=*/true, /*shifted=*/false), {128, 128, 8, 2});
  expectConfig(config(/*masked=*/false, /*shifted=*/false), {128, 128, 8, 2});
}

TEST(TileConfigTest, KvIndexedInputsKeepTwoConsumers) {
  // A document id or block map read per element spilled 60-764 B per thread at D64 with three
  // consumer warpgroups (160 registers each); two have 240.
  KernelSchedule overlap{/*warpSpecialize=*/true, /*gemmOverlap=*/true};
  auto config = [&](bool kvInputs) {
    return chooseTileConfig(64, 64, 2, *TargetDesc::get("sm_90a"), /*masked=*/true, overlap,
                            VariantTraits{/*shifted=*/true, kvInputs});
  };
  expectConfig(config(/*kvInputs=*/false), {192, 128, 12, 2});
  expectConfig(config(/*kvInputs=*/true), {128, 128, 8, 2});
}

TEST(TileConfigTest, PingpongWhereItWasMeasuredFaster) {
  // Shifted variants under a mask with a causal bound (a window, documents, a block map too) at
  // D, Dv <= 128 padded to 128, with the gemm overlap: 1.00-1.16x. Not mask-free (0.95-1.04x),
  // not softcap (0.92x), not a bias matrix in the score (0.95x), not D256 or D64 (three
  // consumers), not without warp specialisation.
  KernelSchedule overlap{/*warpSpecialize=*/true, /*gemmOverlap=*/true};
  VariantTraits causalSoftmax;
  causalSoftmax.causal = true;
  auto pingpong = [&](int64_t d, bool masked, VariantTraits traits, KernelSchedule schedule) {
    return chooseTileConfig(d, d, 2, *TargetDesc::get("sm_90a"), masked, schedule, traits).pingpong;
  };
  EXPECT_TRUE(pingpong(128, /*masked=*/true, causalSoftmax, overlap));
  EXPECT_TRUE(pingpong(96, /*masked=*/true, causalSoftmax, overlap));
  EXPECT_TRUE(pingpong(72, /*masked=*/true, causalSoftmax, overlap));
  EXPECT_FALSE(pingpong(100, /*masked=*/true, causalSoftmax, overlap)); // no TMA: cp.async
  EXPECT_FALSE(pingpong(128, /*masked=*/true, causalSoftmax, {/*warpSpecialize=*/false, true}));
  EXPECT_FALSE(pingpong(128, /*masked=*/false, causalSoftmax, overlap));
  EXPECT_FALSE(pingpong(64, /*masked=*/true, causalSoftmax, overlap));
  EXPECT_FALSE(pingpong(256, /*masked=*/true, causalSoftmax, overlap));
  EXPECT_FALSE(pingpong(128, /*masked=*/true, causalSoftmax, {/*warpSpecialize=*/true, false}));
  EXPECT_FALSE(chooseTileConfig(128, 256, 2, *TargetDesc::get("sm_90a"), /*masked=*/true, overlap,
                                causalSoftmax)
                   .pingpong);
  // Causal softmax at D128 with one trait changed.
  auto changed = [&](auto change) {
    VariantTraits traits = causalSoftmax;
    change(traits);
    return pingpong(128, /*masked=*/true, traits, overlap);
  };
  EXPECT_FALSE(changed([](VariantTraits &t) { t.specialScore = true; })); // softcap
  EXPECT_FALSE(changed([](VariantTraits &t) { t.causal = false; }));      // no upper kv bound
  EXPECT_FALSE(changed([](VariantTraits &t) { t.shifted = false; }));     // sigmoid
  EXPECT_TRUE(changed([](VariantTraits &t) { t.kvInputs = true; }));      // documents
  EXPECT_FALSE(changed([](VariantTraits &t) {                             // a bias matrix
    t.kvInputs = true;
    t.scoreKvInputs = true;
  }));
}

TEST(TileConfigTest, TheCpAsyncScheduleKeepsTwoConsumers) {
  KernelSchedule noWs{/*warpSpecialize=*/false, /*gemmOverlap=*/false};
  expectConfig(hopper(64, 64, /*masked=*/false, noWs), {128, 128, 8, 2});
}

TEST(TileConfigTest, MmaSyncTargetsKeepOneWarpgroup) {
  TileConfig cfg = chooseTileConfig(64, 64, 2, *TargetDesc::get("sm_90"), /*masked=*/false);
  EXPECT_EQ(cfg.blockM, 64);
  EXPECT_EQ(cfg.warps, 4);
}

} // namespace
