//===- TuningTest.cpp - tuning files and attention signatures -----------------===//
#include "AttentionIR.h"

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Pipeline/Tuning.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace metaattn;
using metaattn::irtext::shape;

namespace {

class Tuning : public ::testing::Test {
protected:
  Tuning() : ctx(registry()) {}
  static mlir::DialectRegistry registry() {
    mlir::DialectRegistry r;
    registerMetaAttnDialects(r);
    return r;
  }
  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &ir) {
    return mlir::parseSourceString<mlir::ModuleOp>(ir, &ctx);
  }
  std::string signatureOf(mlir::ModuleOp module) {
    std::string s;
    module.walk([&](attn::AttentionOp op) { s = attentionSignature(op); });
    return s;
  }
  std::string tempPath(const char *name) {
    return ::testing::TempDir() + "/metaattn_tuning_" + name + ".txt";
  }
  mlir::MLIRContext ctx;
};

TEST_F(Tuning, SignatureDependsOnTheVariantNotOnTheFunction) {
  auto a = parse(irtext::softmaxIR(shape(4, 4, 128, 128, true), "first"));
  auto b = parse(irtext::softmaxIR(shape(4, 4, 128, 128, true), "second"));
  auto causalOff = parse(irtext::softmaxIR(shape(4, 4, 128, 128, false)));
  auto otherDim = parse(irtext::softmaxIR(shape(4, 4, 64, 64, true)));
  auto otherType = parse(irtext::softmaxIR(shape(4, 4, 128, 128, true, "f16")));
  ASSERT_TRUE(a && b && causalOff && otherDim && otherType);
  std::string s = signatureOf(*a);
  EXPECT_EQ(s.size(), 16u);
  EXPECT_EQ(s, signatureOf(*b));
  EXPECT_NE(s, signatureOf(*causalOff));
  EXPECT_NE(s, signatureOf(*otherDim));
  EXPECT_NE(s, signatureOf(*otherType));
}

TEST_F(Tuning, FileRoundTripAndApply) {
  std::string path = tempPath("roundtrip");
  std::remove(path.c_str());
  auto missing = TuningTable::load(path);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->size(), 0u);

  auto module = parse(irtext::softmaxIR(shape(4, 4, 128, 128, true)));
  ASSERT_TRUE(module);
  std::string signature = signatureOf(*module);
  TuningTable table;
  TunedConfig config{0, 32, 0, 2, 123.5, "B4 S4k", /*pingpong=*/1};
  table.set("sm_90a", signature, config);
  ASSERT_TRUE(table.save(path).ok());
  auto loaded = TuningTable::load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const TunedConfig *got = loaded->lookup("sm_90a", signature);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(*got, config);
  EXPECT_DOUBLE_EQ(got->tflops, 123.5);
  EXPECT_EQ(got->note, "B4 S4k");
  EXPECT_EQ(got->pingpong, 1);
  EXPECT_EQ(loaded->lookup("sm_80", signature), nullptr);

  // Another architecture's entry does not apply; this one does, and the signature ignores it.
  EXPECT_EQ(applyTuning(*module, *loaded, "sm_80"), 0u);
  EXPECT_EQ(applyTuning(*module, *loaded, "sm_90a"), 1u);
  EXPECT_EQ(signatureOf(*module), signature);

  // Lowering with the file gives the recorded kv tile (32 rows of K) and 2 stages.
  auto fresh = parse(irtext::softmaxIR(shape(4, 4, 128, 128, true)));
  PipelineOptions options;
  options.tuningFile = path;
  auto lowered = lowerToCuda(*fresh, options);
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  EXPECT_NE(lowered->front().cudaSource.find("SmemTile<bf16, 32, 128, 2>"), std::string::npos)
      << lowered->front().cudaSource.substr(0, 3000);
  // The entry pins the ping-pong schedule, which the model drops for a 32-row kv tile.
  EXPECT_NE(lowered->front().cudaSource.find("wg::turnStart<"), std::string::npos);
  table.set("sm_90a", signature, TunedConfig{0, 32, 0, 2});
  ASSERT_TRUE(table.save(path).ok());
  auto unpinned = parse(irtext::softmaxIR(shape(4, 4, 128, 128, true)));
  auto model = lowerToCuda(*unpinned, options);
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_EQ(model->front().cudaSource.find("wg::turnStart<"), std::string::npos);
  std::remove(path.c_str());
}

TEST_F(Tuning, EntriesAreKeptPerKernelSchedule) {
  PipelineOptions defaults;
  EXPECT_EQ(tuningArch("sm_90a", defaults), "sm_90a");
  PipelineOptions cpAsync;
  cpAsync.warpSpecialize = false;
  EXPECT_EQ(tuningArch("sm_90a", cpAsync), "sm_90a+no-ws");
  PipelineOptions turns;
  turns.pingpong = PipelineOptions::Pingpong::all;
  turns.gemmOverlap = false;
  EXPECT_EQ(tuningArch("sm_90a", turns), "sm_90a+pingpong+no-gemm-overlap");
  PipelineOptions noTurns;
  noTurns.pingpong = PipelineOptions::Pingpong::off;
  EXPECT_EQ(tuningArch("sm_90a", noTurns), "sm_90a+no-pingpong");
  PipelineOptions bounded;
  bounded.boundedShift = true;
  EXPECT_EQ(tuningArch("sm_90a", bounded), "sm_90a+bounded-shift");

  // A tile recorded for the cp.async schedule is not taken by the warp-specialised one.
  std::string path = tempPath("schedule");
  auto module = parse(irtext::softmaxIR(shape(4, 4, 128, 128, true)));
  ASSERT_TRUE(module);
  TuningTable table;
  table.set(tuningArch("sm_90a", cpAsync), signatureOf(*module), TunedConfig{0, 32, 0, 2});
  ASSERT_TRUE(table.save(path).ok());
  EXPECT_EQ(applyTuning(*module, table, tuningArch("sm_90a", defaults)), 0u);
  EXPECT_EQ(applyTuning(*module, table, tuningArch("sm_90a", cpAsync)), 1u);
  for (bool warpSpecialize : {false, true}) {
    auto fresh = parse(irtext::softmaxIR(shape(4, 4, 128, 128, true)));
    PipelineOptions options;
    options.tuningFile = path;
    options.warpSpecialize = warpSpecialize;
    auto lowered = lowerToCuda(*fresh, options);
    ASSERT_TRUE(lowered.ok()) << lowered.status().message();
    bool tuned =
        lowered->front().cudaSource.find("SmemTile<bf16, 32, 128, 2>") != std::string::npos;
    EXPECT_EQ(tuned, !warpSpecialize) << "warp-specialize " << warpSpecialize;
  }
  std::remove(path.c_str());
}

TEST_F(Tuning, MalformedLinesAreErrorsWithTheirLine) {
  std::string path = tempPath("bad");
  {
    std::ofstream f(path);
    f << "# comment\n\nsm_90a 0123456789abcdef block_n=64 stages=3\nsm_90a abc block_n=x\n";
  }
  auto bad = TuningTable::load(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(":4: 'x' is not a valid value for block_n"),
            std::string::npos)
      << bad.status().message();
  {
    std::ofstream f(path);
    f << "sm_90a abc speed=3\n";
  }
  auto unknown = TuningTable::load(path);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown key 'speed'"), std::string::npos);
  {
    std::ofstream f(path);
    f << "sm_90a\n";
  }
  EXPECT_FALSE(TuningTable::load(path).ok());
  std::remove(path.c_str());
}

} // namespace
