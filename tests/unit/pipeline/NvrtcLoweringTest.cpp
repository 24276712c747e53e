//===- NvrtcLoweringTest.cpp - every generated kernel through NVRTC ----------===//
//
// Lowers softmax attention at several head dims, GQA ratios, dtypes and masks to CUDA,
// compiles it with NVRTC for sm_90a (no GPU needed) and checks the PTX for the instructions
// the kernel must use: wgmma where the head dims fit it (target sm_90a, the default),
// mma.sync + ldmatrix otherwise and for target sm_90; where wgmma runs, K and V come by TMA
// from a producer warpgroup (cp.async.bulk.tensor, mbarriers, setmaxnreg); ptxas must neither
// spill nor serialize the wgmma instructions.
//
//===----------------------------------------------------------------------===//

#include "AttentionIR.h"

#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Runtime/Compiler.h"
#include "metaattn/Runtime/Nvrtc.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <regex>

using namespace metaattn;
using metaattn::irtext::shape;
using metaattn::irtext::SoftmaxShape;

namespace {

struct Case {
  const char *label;
  SoftmaxShape shape;
  /// Whether the sm_90a lowering runs both gemms on wgmma.
  bool wgmma;
  /// Consumer warpgroups of the warp-specialised kernel (the model's: three where the
  /// fragments fit 160 registers per thread).
  int consumers = 2;
};

/// Keeps ctest's log readable: the case's label instead of its bytes.
void PrintTo(const Case &c, std::ostream *os) { *os << c.label; }

class NvrtcLowering : public ::testing::TestWithParam<std::tuple<Case, const char *>> {};

TEST_P(NvrtcLowering, CompilesForSm90aWithTensorCoreInstructions) {
  auto nvrtc = rt::Nvrtc::get();
  if (!nvrtc.ok())
    GTEST_SKIP() << "NVRTC is not available: " << nvrtc.status().message();
  const Case &c = std::get<0>(GetParam());
  const std::string target = std::get<1>(GetParam());
  const bool wgmma = c.wgmma && target == "sm_90a";
  mlir::DialectRegistry registry;
  registerMetaAttnDialects(registry);
  mlir::MLIRContext ctx(registry);
  std::string ir = irtext::softmaxIR(c.shape);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(ir, &ctx);
  ASSERT_TRUE(module) << ir;
  PipelineOptions pipeline;
  pipeline.target = target;
  auto lowered = lowerToCuda(*module, pipeline);
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  ASSERT_EQ(lowered->size(), 1u);
  const LoweredKernel &kernel = lowered->front();

  rt::CompileOptions options;
  options.arch = "sm_90a";
  options.wantPtx = true;
  options.wantCubin = true;
  options.extraFlags = {"--ptxas-options=-v"};
  auto compiled = rt::compileCuda(kernel.cudaSource, "attention.cu", options);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message() << "\n" << kernel.cudaSource;
  const std::string &ptx = compiled->ptx;
  if (wgmma) {
    std::string op = "wgmma.mma_async.sync.aligned.m64n";
    EXPECT_NE(ptx.find(op), std::string::npos) << "no " << op << " in the PTX";
    std::string types = "." + c.shape.dtype + "." + c.shape.dtype;
    EXPECT_NE(ptx.find("k16.f32" + types), std::string::npos) << "wgmma of the wrong types";
    EXPECT_NE(ptx.find("wgmma.wait_group.sync.aligned"), std::string::npos);
    EXPECT_NE(ptx.find("fence.proxy.async.shared::cta"), std::string::npos);
    EXPECT_EQ(ptx.find("mma.sync.aligned"), std::string::npos) << "a gemm stayed on mma.sync";
    EXPECT_EQ(compiled->log.find("serialized"), std::string::npos) << compiled->log;
    // Warp specialisation: K and V arrive by TMA into a ring guarded by mbarriers, and the
    // producer warpgroup hands its registers to the consumers.
    EXPECT_NE(ptx.find("cp.async.bulk.tensor.4d.shared::cluster.global"), std::string::npos)
        << "no TMA copy in the PTX";
    EXPECT_NE(ptx.find("mbarrier.try_wait.parity"), std::string::npos);
    EXPECT_NE(ptx.find("mbarrier.arrive.expect_tx"), std::string::npos);
    // The consumers share what the producer's 128 threads give up; the producer keeps what
    // is left of the launch's pool (384 threads x 168 = 256 x 240 + 128 x 24; 512 threads x
    // 128 = 384 x 160 + 128 x 32).
    if (c.consumers == 1) {
      EXPECT_EQ(ptx.find("setmaxnreg"), std::string::npos) << "256 threads all start at 255";
    } else {
      std::string dec =
          "setmaxnreg.dec.sync.aligned.u32 " + std::string(c.consumers == 3 ? "32" : "24");
      EXPECT_NE(ptx.find(dec), std::string::npos) << "no " << dec;
      std::string inc =
          "setmaxnreg.inc.sync.aligned.u32 " + std::string(c.consumers == 3 ? "160" : "240");
      EXPECT_NE(ptx.find(inc), std::string::npos) << "no " << inc;
    }
    EXPECT_EQ(kernel.signature.threads, 128 * (c.consumers + 1));
    EXPECT_EQ(kernel.signature.tensorMaps.size(), 3u) << "one TMA map each for Q, K and V";
  } else {
    std::string mma =
        "mma.sync.aligned.m16n8k16.row.col.f32." + c.shape.dtype + "." + c.shape.dtype + ".f32";
    EXPECT_NE(ptx.find(mma), std::string::npos) << "no " << mma << " in the PTX";
    EXPECT_NE(ptx.find("ldmatrix.sync.aligned"), std::string::npos) << "no ldmatrix";
    EXPECT_EQ(ptx.find("wgmma"), std::string::npos);
    EXPECT_EQ(ptx.find("cp.async.bulk.tensor"), std::string::npos);
    EXPECT_TRUE(kernel.signature.tensorMaps.empty());
  }
  if (!wgmma) {
    EXPECT_NE(ptx.find("cp.async.cg.shared.global"), std::string::npos) << "no cp.async";
    EXPECT_NE(ptx.find("cp.async.wait_group"), std::string::npos);
  }
  EXPECT_FALSE(std::regex_search(compiled->log, std::regex(" [1-9][0-9]* bytes spill")))
      << compiled->log;
  EXPECT_NE(ptx.find(".target sm_90a"), std::string::npos);
  EXPECT_FALSE(compiled->cubin.empty());
  // Signature: q, k, v, o, lse with symbols for the runtime's checks.
  const rt::KernelSignature &sig = kernel.signature;
  ASSERT_EQ(sig.params.size(), c.shape.lse ? 5u : 4u);
  EXPECT_EQ(sig.params[0].name, "q");
  EXPECT_EQ(sig.params[3].name, "o");
  EXPECT_TRUE(sig.params[3].isOutput);
  EXPECT_EQ(sig.params[0].symbols[1], "Sq");
  EXPECT_EQ(sig.params[1].symbols[1], "Skv");
  EXPECT_GT(sig.dynamicSharedBytes, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Softmax, NvrtcLowering,
    ::testing::Combine(
        ::testing::Values(Case{"d64", shape(4, 4, 64, 64, false), true, 3},
                          Case{"d64_causal", shape(4, 4, 64, 64, true), true, 3},
                          Case{"d128_causal_gqa4", shape(8, 2, 128, 128, true), true},
                          Case{"d192_dv128", shape(4, 4, 192, 128, true), true},
                          Case{"d128_dv256", shape(4, 4, 128, 256, true), true},
                          Case{"d256", shape(2, 2, 256, 256, false), true},
                          // Odd dims padded to 128 / 64: the three-consumer wgmma kernel.
                          Case{"d72_odd", shape(3, 1, 72, 40, true), true, 3},
                          // Padding past 256: warp-level mma.sync and cp.async.
                          Case{"d264_odd", shape(2, 2, 264, 264, false), false},
                          // D = 320 pads to itself: one consumer warpgroup, which keeps its
                          // registers (no setmaxnreg).
                          Case{"d320_dv64", shape(2, 1, 320, 64, false), true, 1},
                          Case{"d128_f16", shape(4, 4, 128, 128, false, "f16"), true}),
        ::testing::Values("sm_90a", "sm_90")),
    [](const ::testing::TestParamInfo<std::tuple<Case, const char *>> &info) {
      return std::string(std::get<0>(info.param).label) + "_" + std::get<1>(info.param);
    });

} // namespace
