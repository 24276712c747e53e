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

bool TileConfig::fitsSharedMemory(int64_t elementBytes, const TargetDesc &target,
                                  int64_t extraBytes) const {
  constexpr int64_t kAlignmentAndBarriers = 3 * 1024;
  return sharedBytes(elementBytes) + extraBytes + kAlignmentAndBarriers <=
         target.sharedBytesPerBlock;
}

static int64_t roundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

TileConfig metaattn::chooseTileConfig(int64_t headDim, int64_t valueDim, int64_t elementBytes,
                                      const TargetDesc &target, bool masked,
                                      KernelSchedule schedule, VariantTraits traits) {
  TileConfig config;
  config.paddedDim = roundUp(headDim, 16);
  config.paddedValueDim = roundUp(valueDim, 16);
  // On wgmma targets head dims up to 256 are padded to whole 128-byte swizzle blocks (64
  // 16-bit elements; the padding columns load as zeros), so odd head dims (40, 72, 200) take
  // the wgmma path rather than the warp-level mma.sync one.
  if (target.wgmma && elementBytes == 2 && roundUp(headDim, 64) <= 256 &&
      roundUp(valueDim, 64) <= 256) {
    config.paddedDim = roundUp(headDim, 64);
    config.paddedValueDim = roundUp(valueDim, 64);
  }
  config.stages = 2;
  // Hopper (wgmma): two consumer warpgroups of 64 query rows each, three where their
  // fragments fit (below; plus the TMA producer warpgroup of tile-warp-specialize); both gemms run
  // on wgmma when every shared tile's rows are whole 128-byte swizzle blocks and the value
  // accumulator fits one instruction (N <= 256). kv tiles of 128 rows where the head dims are at
  // most 128 (see below for wider heads and mask-free kernels), in two stages: with warp
  // specialisation on the H200 (B·S = 16k, S = 4k; tests/gpu/run_ws.sh,
  // benchmarks/results/configs_ws_h200_2026-12-02.txt) 128-wide tiles beat 64-wide ones by 3-10% (D
  // = 64 and 128, causal or not), and 2 stages matched 3 causal and beat them by 7-8% not causal (D
  // = 64, 128); at D = 256 the three were within 0.3%. 64-row blocks (one warpgroup) were 1.0-3.3x
  // slower in the cp.async-era sweep.
  if (target.wgmma && elementBytes == 2 && config.paddedDim % 64 == 0 &&
      config.paddedValueDim % 64 == 0 && config.paddedDim <= 256 && config.paddedValueDim <= 256) {
    int64_t maxDim = std::max(config.paddedDim, config.paddedValueDim);
    config.stages = 2;
    // Registers per consumer thread of the big fragments of a 64-row warpgroup: f32 scores
    // (blockN / 2), their bf16 copy (blockN / 4) and the f32 output accumulator (Dv / 2).
    // Each needs 32 more for addresses, row statistics and temporaries under what setmaxnreg
    // gives it: 240 with two consumer warpgroups, 160 with three.
    auto fragmentRegisters = [&](int64_t blockN) {
      return blockN / 2 + blockN / 4 + config.paddedValueDim / 2;
    };
    constexpr int64_t kSpareRegisters = 32;
    // kv tiles of 128 rows for head dims <= 128; above, the widest multiple of 16 up to 128
    // whose two stages fit shared memory and whose fragments fit two consumers' registers
    // (D256: 80; 5-7% faster than 64 at S = 16k, 2-6% at 4k on the H200,
    // benchmarks/results/configs_d256_blockn80_h200_2026-12-04b.txt).
    config.blockM = 128;
    config.warps = 8;
    config.blockN = 128;
    // (The same with the gemm overlap: D256 kv 80 overlapped runs 1.07x the 64-wide tiles at
    // S = 16k, causal 1.06x; benchmarks/results/configs_packed_frag_overlap_h200_2026-12-04e.txt.)
    if (maxDim > 128)
      for (int64_t blockN = 128; blockN >= 16; blockN -= 16) {
        config.blockN = blockN;
        if (fragmentRegisters(blockN) <= 240 - kSpareRegisters &&
            config.fitsSharedMemory(elementBytes, target))
          break;
      }
    // Three consumer warpgroups (192 query rows) where their fragments fit 160 registers and
    // the kv tile is 128 wide: on the H200 (bf16, B·S = 16k, S = 4k / 16k;
    // benchmarks/results/configs_d64_blockm192_h200_2026-12-04b.txt) D64 runs 17-21% faster,
    // causal 8-20% (S = 512: +4%, causal -8%: fewer, partly empty blocks); only measured
    // with warp specialisation. tile-gemm-overlap leaves such kernels as they are.
    // Not for variants reading a kv-indexed input per element: at D64 their kernels spill
    // 36-1328 B per thread with three consumers (document mask, block-sparse, relative bias,
    // RetNet's parallel form), 0-88 B with two (ptxas via `metaattn-run --resource-report`,
    // `--block-m=192 --warps=12` for three). Not yet timed on the GPU.
    bool threeConsumers = schedule.warpSpecialize && config.blockN == 128 && !traits.kvInputs &&
                          fragmentRegisters(config.blockN) <= 160 - kSpareRegisters;
    // The gemm overlap hides a softmax's chain (row max, exp, row sum, rescale) behind the
    // P·V gemm. Masked variants without that shift lose with it on the H200 (D128 causal,
    // S = 1k..16k: sigmoid with a per-head bias 0.89-0.95x, ReLU 0.96-0.97x the plain
    // schedule), while unmasked they gain (sigmoid 1.12-1.22x, ReLU 1.01-1.08x) and causal
    // softmax gains 1.01-1.07x
    // (benchmarks/results/configs_overlap_shift_free_h200_2026-12-04f.txt).
    config.gemmOverlap = traits.shifted || !masked;
    config.blockM = threeConsumers ? 192 : 128;
    config.warps = threeConsumers ? 12 : 8;
    // Mask-free kernels with two consumers and head dims <= 128: 192-wide kv tiles where the
    // fragments fit (D128: 3-7% faster; causal D128 measured -3..+0.5%, so masked kernels keep
    // 128; benchmarks/results/configs_d128_blockn192_h200_2026-12-04b.txt).
    // Not with the gemm overlap: there 128 against 192 runs 1.14/1.13/1.02/0.99/0.96/0.89x at
    // S = 512/1k/2k/4k/8k/16k (D128; configs_packed_frag_overlap_h200_2026-12-04e).
    // On long key sequences (the long-keys plan, launched from kLongKeys keys on) they win
    // overlapped too: 1.04x at S = 8k, 1.13x at 16k (the same measurements). Only softmax-like
    // variants without kv-indexed inputs were timed so, and only warp-specialised (rows of
    // whole 16-byte units, which TMA needs: D100 stays on cp.async); masked kernels keep 128.
    bool overlapped = schedule.gemmOverlap && config.gemmOverlap;
    bool tmaRows = headDim * elementBytes % 16 == 0 && valueDim * elementBytes % 16 == 0;
    bool overlappedLongKeys =
        overlapped && schedule.longKeys && tmaRows && traits.shifted && !traits.kvInputs;
    if (!masked && schedule.warpSpecialize && (!overlapped || overlappedLongKeys) &&
        !threeConsumers && maxDim <= 128 && fragmentRegisters(192) <= 240 - kSpareRegisters)
      config.blockN = 192;
    while (config.stages > 1 && !config.fitsSharedMemory(elementBytes, target))
      --config.stages;
    // Ping-pong (the consumer warpgroups take turns on the tensor cores) on top of the gemm
    // overlap, where it was measured faster (benchmarks/RESULTS.md, thirty-eighth to fortieth
    // sessions; B·S = 16k, H16, bf16): causal softmax at D128 ran 1.00-1.09x the overlap alone on
    // the H100 and 0.99-1.16x on the H200 (S = 512..16k, geometric mean 1.057x); on the H100
    // at S = 4k and 16k, ALiBi 1.03-1.05x, a sink 1.02-1.03x, softpick 1.07x, a sliding window
    // 1.07-1.09x, the differential 1.02-1.06x, a causal document mask 1.04-1.08x (one document
    // 0.99-1.03x), a causal block map 1.02-1.08x, chunks 1.00x, and at D96 (padded to 128)
    // softmax 0.99-1.11x and ALiBi 1.03-1.05x. Not where it was slower: mask-free D128 0.94-1.04x,
    // a soft cap (a tanh per score, bound by the special-function unit) 0.91-0.92x, a bias matrix
    // read by the score 0.95x, D256 causal 0.98-1.04x. A prefix-LM mask, whose kv bound is the
    // wider of the causal one and the prefix's, 1.03-1.06x (forty-fourth session). Not where the
    // mask has no causal bound (untimed), nor with three consumer warpgroups (D64). Only
    // warp-specialised kernels take turns (rows of whole 16-byte units for TMA: not D100).
    config.pingpong = schedule.warpSpecialize && tmaRows && overlapped && masked &&
                      traits.shifted && traits.causal && !traits.specialScore &&
                      !traits.scoreKvInputs && !threeConsumers && config.paddedDim == 128 &&
                      config.paddedValueDim == 128 && config.blockN == 128;
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
