//===- TileConfig.cpp - tile sizes from head dims and the target -------------===//
#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include <algorithm>

using namespace metaattn;

std::optional<TargetDesc> TargetDesc::get(llvm::StringRef name) {
  if (name == "sm_90a")
    return TargetDesc{"sm_90a", 227 * 1024, 255, /*wgmma=*/true};
  if (name == "sm_90")
    return TargetDesc{"sm_90", 227 * 1024, 255};
  if (name == "sm_80" || name == "sm_86" || name == "sm_89")
    return TargetDesc{name.str(), 99 * 1024, 255};
  if (name == "gfx90a")
    return TargetDesc{"gfx90a", 64 * 1024, 512};
  return std::nullopt;
}

int64_t TileConfig::sharedBytes(int64_t elementBytes) const {
  return elementBytes * (blockM * paddedDim + stages * blockN * (paddedDim + paddedValueDim));
}

static int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

TileConfig metaattn::chooseTileConfig(int64_t headDim, int64_t valueDim, int64_t elementBytes,
                                      const TargetDesc &target) {
  TileConfig config;
  config.paddedDim = roundUp(headDim, 16);
  config.paddedValueDim = roundUp(valueDim, 16);
  config.stages = 2;
  // Hopper (wgmma): two consumer warpgroups of 64 query rows each (plus the TMA producer
  // warpgroup of tile-warp-specialize); both gemms run on wgmma when every shared tile's rows
  // are whole 128-byte swizzle blocks and the value accumulator fits one instruction
  // (N <= 256). kv tiles of 128 rows where the head dims are at most 128, else 64, in two
  // stages: with warp specialisation on the H200 (B·S = 16k, S = 4k; tests/gpu/run_ws.sh,
  // benchmarks/results/configs_ws_h200_2026-12-02.txt) 128-wide tiles beat 64-wide ones by
  // 3-10% (D = 64 and 128, causal or not), and 2 stages matched 3 causal and beat them by 7-8%
  // not causal (D = 64, 128); at D = 256 the three were within 0.3%. 64-row blocks (one
  // warpgroup) were 1.0-3.3x slower in the cp.async-era sweep.
  if (target.wgmma && elementBytes == 2 && config.paddedDim % 64 == 0 &&
      config.paddedValueDim % 64 == 0 && config.paddedDim <= 256 && config.paddedValueDim <= 256) {
    config.blockM = 128;
    config.warps = 8;
    config.blockN = std::max(config.paddedDim, config.paddedValueDim) <= 128 ? 128 : 64;
    config.stages = 2;
    // The emitter adds up to 1 KB to align the shared base; the mbarrier arrays (16 bytes
    // apart) and the 1024-byte alignment of the tile after them take up to 2 KB more.
    constexpr int64_t kAlignmentAndBarriers = 3 * 1024;
    while (config.stages > 1 &&
           config.sharedBytes(elementBytes) + kAlignmentAndBarriers > target.sharedBytesPerBlock)
      --config.stages;
    return config;
  }
  config.blockM = 64;
  config.warps = 4;
  // Per-thread registers of the two big fragments (f32): the output accumulator
  // (blockM/warps rows x Dv / 32 lanes) and the score tile; keep them under ~60% of the
  // register file so the gemm operands and addresses fit without spilling.
  auto registers = [&](int64_t blockN) {
    int64_t rowsPerWarp = config.blockM / config.warps;
    return rowsPerWarp * (config.paddedValueDim + 2 * blockN) / 32;
  };
  for (int64_t blockN : {64, 32, 16}) {
    config.blockN = blockN;
    if (registers(blockN) <= target.registersPerThread * 6 / 10 &&
        config.sharedBytes(elementBytes) <= target.sharedBytesPerBlock)
      break;
  }
  while (config.stages > 1 && config.sharedBytes(elementBytes) > target.sharedBytesPerBlock)
    --config.stages;
  return config;
}
