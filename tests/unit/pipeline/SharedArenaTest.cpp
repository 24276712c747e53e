//===- SharedArenaTest.cpp - passes and the CUDA emitter count shared alike --===//
//
// tile::SharedArena is how tile-stage-element-reads decides whether one more shared tile fits,
// and how the CUDA emitter places the buffers and sizes the launch's dynamic shared memory.
// For every kernel of every library variant file, lowered for sm_90a (wgmma and TMA: tiles at
// 1024 bytes, the base aligned at run time) and sm_80 (tiles at 128), the arena's launch bytes
// are the emitted signature's; and the arena's answer for a tile allocated before a given op is
// the emitter's once the tile is there.
//
//===----------------------------------------------------------------------===//

#include "AttentionIR.h"
#include "metaattn/Dialect/Tile/IR/TileOps.h"
#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Target/CUDA/CUDAEmitter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace metaattn;

namespace {

class SharedArenaTest : public ::testing::TestWithParam<const char *> {};

TEST_P(SharedArenaTest, LaunchBytesAreTheEmittersForEveryVariantKernel) {
  mlir::DialectRegistry registry;
  registerMetaAttnDialects(registry);
  mlir::MLIRContext ctx(registry);
  PipelineOptions options;
  options.target = GetParam();
  int kernels = 0, grown = 0;
  for (const std::string &name : irtext::variantFiles()) {
    std::string file = std::string(METAATTN_VARIANTS_DIR) + "/" + name;
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text.str(), &ctx);
    ASSERT_TRUE(module) << file;
    mlir::PassManager pm(&ctx);
    buildAttnToTilePipeline(pm, options);
    ASSERT_TRUE(mlir::succeeded(pm.run(*module))) << file;
    module->walk([&](tile::KernelOp kernel) {
      ++kernels;
      tile::SharedArena arena = tile::SharedArena::of(kernel);
      mlir::FailureOr<EmittedKernel> emitted = emitCuda(kernel);
      ASSERT_TRUE(mlir::succeeded(emitted)) << file;
      EXPECT_EQ(arena.launchBytes(), emitted->signature.dynamicSharedBytes)
          << file << " " << kernel.getSymName().str();
      // One more f32 tile right before the warp specialisation (or the first op), as
      // tile-stage-element-reads asks before it allocates one.
      mlir::Operation *before = &kernel.getBody().front().front();
      kernel.walk([&](tile::WarpSpecializeOp ws) { before = ws; });
      auto type = tile::getBufferType(&ctx, {128, 96}, mlir::Float32Type::get(&ctx),
                                      tile::MemorySpace::shared);
      int64_t predicted = tile::SharedArena::of(kernel, before, type).launchBytes();
      mlir::OpBuilder b(before);
      b.create<tile::AllocOp>(before->getLoc(), type, nullptr);
      mlir::FailureOr<EmittedKernel> bigger = emitCuda(kernel);
      ASSERT_TRUE(mlir::succeeded(bigger)) << file;
      EXPECT_EQ(predicted, bigger->signature.dynamicSharedBytes)
          << file << " " << kernel.getSymName().str();
      grown += predicted > emitted->signature.dynamicSharedBytes;
    });
  }
  EXPECT_GT(kernels, 20);
  EXPECT_EQ(grown, kernels) << "the extra tile must count";
}

INSTANTIATE_TEST_SUITE_P(Targets, SharedArenaTest, ::testing::Values("sm_90a", "sm_80"));

} // namespace
