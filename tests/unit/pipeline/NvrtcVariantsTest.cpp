//===- NvrtcVariantsTest.cpp - every library variant through NVRTC -----------===//
//
// Lowers every function of frontend/variants/*.mlir to CUDA, compiles it with NVRTC for
// sm_90a and checks the PTX for the tensor-core and async-copy instructions (attention
// kernels) or global loads and stores (the kernels of attn.combine).
//
//===----------------------------------------------------------------------===//

#include "AttentionIR.h"
#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Runtime/Compiler.h"
#include "metaattn/Runtime/Nvrtc.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace metaattn;

namespace {

/// The module of variant file `name` (in ctx).
mlir::OwningOpRef<mlir::ModuleOp> parseVariant(const std::string &name, mlir::MLIRContext &ctx) {
  std::ifstream in(std::string(METAATTN_VARIANTS_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return mlir::parseSourceString<mlir::ModuleOp>(text.str(), &ctx);
}

/// Compiles `kernel` to PTX for sm_90a and checks its instructions; whether it is an
/// attention kernel (has gemms).
bool compilesWithItsInstructions(const LoweredKernel &kernel, std::string *ptx = nullptr) {
  rt::CompileOptions options;
  options.arch = "sm_90a";
  options.wantPtx = true;
  options.wantCubin = false;
  auto compiled = rt::compileCuda(kernel.cudaSource, kernel.name + ".cu", options);
  EXPECT_TRUE(compiled.ok()) << kernel.name << ": " << compiled.status().message();
  if (!compiled.ok())
    return false;
  if (ptx)
    *ptx = compiled->ptx;
  if (kernel.cudaSource.find("// tile.gemm") == std::string::npos) {
    // An element-wise combination of attention outputs (attn.combine), or the gates kernel of
    // GLA: global loads and stores only.
    EXPECT_NE(compiled->ptx.find("ld.global"), std::string::npos) << kernel.name;
    EXPECT_NE(compiled->ptx.find("st.global"), std::string::npos) << kernel.name;
    EXPECT_EQ(compiled->ptx.find("mma.sync"), std::string::npos) << kernel.name;
    return false;
  }
  // Tensor cores: wgmma for the gemms tile-use-wgmma marked, mma.sync for the others.
  const bool wgmmaSource = kernel.cudaSource.find("wg::gemm") != std::string::npos;
  const bool warpSource = kernel.cudaSource.find("warp::gemm") != std::string::npos;
  EXPECT_EQ(compiled->ptx.find("wgmma.mma_async") != std::string::npos, wgmmaSource) << kernel.name;
  EXPECT_EQ(compiled->ptx.find("mma.sync.aligned.m16n8k16") != std::string::npos, warpSource)
      << kernel.name;
  // K/V tiles arrive by TMA in warp-specialised kernels, by cp.async in the others.
  const bool specialised = kernel.cudaSource.find("tile.warp_specialize") != std::string::npos;
  if (specialised) {
    EXPECT_NE(compiled->ptx.find("cp.async.bulk.tensor"), std::string::npos) << kernel.name;
    EXPECT_NE(compiled->ptx.find("setmaxnreg.inc"), std::string::npos) << kernel.name;
    EXPECT_FALSE(kernel.signature.tensorMaps.empty()) << kernel.name;
  } else {
    EXPECT_NE(compiled->ptx.find("cp.async.cg.shared.global"), std::string::npos) << kernel.name;
    EXPECT_TRUE(kernel.signature.tensorMaps.empty()) << kernel.name;
  }
  return true;
}

mlir::DialectRegistry metaAttnDialects() {
  mlir::DialectRegistry registry;
  registerMetaAttnDialects(registry);
  return registry;
}

/// A test that needs NVRTC (skipped without it), with a context holding the dialects.
template <class Base> class WithNvrtc : public Base {
protected:
  void SetUp() override {
    auto nvrtc = rt::Nvrtc::get();
    if (!nvrtc.ok())
      GTEST_SKIP() << "NVRTC is not available: " << nvrtc.status().message();
  }
  mlir::MLIRContext ctx{metaAttnDialects()};
};

class NvrtcVariants : public WithNvrtc<::testing::TestWithParam<std::string>> {};

TEST_P(NvrtcVariants, EveryFunctionCompilesForSm90a) {
  auto module = parseVariant(GetParam(), ctx);
  ASSERT_TRUE(module) << GetParam();
  size_t attentionOps = 0, attentionKernels = 0;
  module->walk([&](attn::AttentionOp) { ++attentionOps; });
  module->walk([&](attn::RecurrentOp) { attentionOps += 2; }); // chunk states, then outputs
  auto lowered = lowerToCuda(*module, {});
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  ASSERT_FALSE(lowered->empty());
  for (const LoweredKernel &kernel : *lowered)
    attentionKernels += compilesWithItsInstructions(kernel);
  // Every function has its attention kernels (one per attn.attention or attn.recurrent).
  EXPECT_EQ(attentionKernels, attentionOps) << GetParam();
}

// The fused chunk kernel (--fused-chunks): one kernel per function of linear.mlir, compiled,
// with the update's wgmma group left in flight across the element-wise output work (a
// wait_group with gemms still pending) where V̂ has a tile of its own.
class NvrtcVariantsFused : public WithNvrtc<::testing::Test> {};

TEST_F(NvrtcVariantsFused, LinearFunctionsCompileAsOneKernelEach) {
  auto module = parseVariant("linear.mlir", ctx);
  ASSERT_TRUE(module);
  size_t functions = 0;
  module->walk([&](attn::RecurrentOp) { ++functions; });
  PipelineOptions options;
  options.chunkKernels = PipelineOptions::ChunkKernels::fused;
  auto lowered = lowerToCuda(*module, options);
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  EXPECT_EQ(lowered->size(), functions);
  for (const LoweredKernel &kernel : *lowered) {
    EXPECT_EQ(kernel.name, kernel.function) << "one kernel, named as its function";
    std::string ptx;
    EXPECT_TRUE(compilesWithItsInstructions(kernel, &ptx)) << kernel.name;
    if (kernel.name == "retnet_recurrent") {
      EXPECT_NE(ptx.find("wgmma.wait_group.sync.aligned 1;"), std::string::npos) << ptx;
    }
  }
}

// Options of the softmax's shift, compiled.
class NvrtcShiftOptions : public WithNvrtc<::testing::Test> {};

// A constant shift for the bounded soft caps (--bounded-shift): every kernel of softcap.mlir
// compiles with its instructions and takes no row maximum, which the default kernels do.

TEST_F(NvrtcShiftOptions, SoftcapKernelsTakeNoRowMaximum) {
  auto module = parseVariant("softcap.mlir", ctx);
  ASSERT_TRUE(module);
  PipelineOptions options;
  options.boundedShift = true;
  auto bounded = lowerToCuda(*module, options);
  ASSERT_TRUE(bounded.ok()) << bounded.status().message();
  auto again = parseVariant("softcap.mlir", ctx); // lowering rewrites the module
  ASSERT_TRUE(again);
  auto running = lowerToCuda(*again, {});
  ASSERT_TRUE(running.ok()) << running.status().message();
  ASSERT_EQ(bounded->size(), running->size());
  for (size_t i = 0; i < bounded->size(); ++i) {
    const LoweredKernel &kernel = (*bounded)[i];
    EXPECT_TRUE(compilesWithItsInstructions(kernel)) << kernel.name;
    EXPECT_EQ(kernel.cudaSource.find("rowMax("), std::string::npos) << kernel.name;
    EXPECT_NE((*running)[i].cudaSource.find("rowMax("), std::string::npos) << kernel.name;
  }
}

// A lazily moved maximum (--lazy-rescale): the kernels of a variant with a sink's start value
// and of ALiBi compile with their instructions, each skipping its output's rescale where a
// thread's factors are all 1.
TEST_F(NvrtcShiftOptions, LazyRescaleKernelsGuardTheirRescale) {
  for (const char *file : {"sink.mlir", "alibi.mlir"}) {
    auto module = parseVariant(file, ctx);
    ASSERT_TRUE(module) << file;
    PipelineOptions options;
    options.lazyRescale = true;
    auto lowered = lowerToCuda(*module, options);
    ASSERT_TRUE(lowered.ok()) << lowered.status().message();
    for (const LoweredKernel &kernel : *lowered) {
      EXPECT_TRUE(compilesWithItsInstructions(kernel)) << kernel.name;
      EXPECT_NE(kernel.cudaSource.find(".allEqual(1.0f)) {  // tile.skip_unit_scale"),
                std::string::npos)
          << kernel.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Library, NvrtcVariants, ::testing::ValuesIn(irtext::variantFiles()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param.substr(0, info.param.size() - 5);
                         });

} // namespace
