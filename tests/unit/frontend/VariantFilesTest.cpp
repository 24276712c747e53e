//===- VariantFilesTest.cpp - frontend/variants/*.mlir match the factories ===//
//
// The files in frontend/variants/ are the factories' output for the configurations below
// (chosen so that windows, chunks and prefixes matter at the lengths the lit tests run,
// 77 queries over 130 keys and 130 over 77). This test rebuilds each and compares it with the
// checked-in text; to regenerate the files after changing a factory, run
//
//   METAATTN_UPDATE_VARIANTS=1 build/bin/MetaAttnFrontendTests --gtest_filter='VariantFiles*'
//
// tests/lit/Variants/ runs every file through the whole compiler on the CPU tile executor.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "metaattn/Frontend/LinearVariants.h"
#include "metaattn/Frontend/Variants.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#ifndef METAATTN_VARIANTS_DIR
#error "METAATTN_VARIANTS_DIR must name frontend/variants"
#endif

using namespace mlir;
using namespace metaattn::frontend;
using namespace metaattn::frontend::test;

namespace {

struct Function {
  using Build =
      std::function<FailureOr<OwningOpRef<ModuleOp>>(MLIRContext &, StringRef, std::string &)>;
  Function(std::string name, std::string comment, AttentionBuilder b)
      : name(std::move(name)), comment(std::move(comment)),
        build([b](MLIRContext &c, StringRef n, std::string &e) { return b.build(c, n, e); }) {}
  Function(std::string name, std::string comment, CombinedAttentionBuilder b)
      : name(std::move(name)), comment(std::move(comment)),
        build([b](MLIRContext &c, StringRef n, std::string &e) { return b.build(c, n, e); }) {}
  Function(std::string name, std::string comment, RecurrentBuilder b)
      : name(std::move(name)), comment(std::move(comment)),
        build([b](MLIRContext &c, StringRef n, std::string &e) { return b.build(c, n, e); }) {}
  std::string name;
  std::string comment;
  Build build;
};

struct VariantFile {
  std::string file;
  std::string factory;
  std::vector<Function> functions;
};

/// The linear variants, at sizes with odd head dims and group sharing.
std::vector<VariantFile> linearFiles() {
  auto opts = [](int64_t h, int64_t hqk, int64_t dk, int64_t dv) {
    LinearOptions o;
    o.numHeads = h;
    o.numQkHeads = hqk;
    o.keyDim = dk;
    o.valueDim = dv;
    return o;
  };
  LinearOptions withStates = opts(2, 2, 40, 24);
  withStates.initialState = withStates.finalState = true;
  LinearOptions retnetOpts = opts(2, 2, 64, 128);
  return {
      {"linear.mlir",
       "linearAttention, retnet, gatedRetention, gla, mamba2Ssd",
       {{"linear_attention", "no decay, Dk 64, Dv 80", linearAttention(opts(2, 2, 64, 80))},
        {"linear_attention_states", "no decay, Dk 40, Dv 24, initial and final state",
         linearAttention(withStates)},
        {"retnet_recurrent", "a decay per head, Dv = 2 Dk", retnet(retnetOpts)},
        {"gated_retention", "a decay per token", gatedRetention(opts(4, 4, 64, 64))},
        {"gla_vector", "a decay per token and key dim from gate logits", gla(opts(2, 2, 48, 64))},
        {"mamba2_ssd", "one group of B/C shared by 3 heads, state 64, head dim 32",
         mamba2Ssd(opts(3, 1, 64, 32))},
        {"mamba2_ssd_groups", "two groups, 4 heads, state 32, head dim 16",
         mamba2Ssd(opts(4, 2, 32, 16))}}},
  };
}

template <typename Options>
Options sized(int64_t h, int64_t hkv, int64_t d, DType dtype, bool lse) {
  Options o;
  o.numHeads = h;
  o.numKvHeads = hkv;
  o.headDim = d;
  o.dtype = dtype;
  o.withLse = lse;
  return o;
}

std::vector<VariantFile> variantFiles() {
  std::vector<VariantFile> files;
  {
    auto a = sized<SigmoidOptions>(4, 2, 64, DType::BF16, true);
    a.causal = true;
    a.bias = -3.0;
    a.biasInput = SigmoidBias::PerHead;
    auto b = sized<SigmoidOptions>(2, 2, 32, DType::F16, false);
    b.bias = -2.0;
    b.biasInput = SigmoidBias::Full;
    files.push_back({"sigmoid.mlir",
                     "sigmoidAttention",
                     {{"sigmoid_head_bias", "causal GQA, constant bias -3 plus a per-head bias",
                       sigmoidAttention(a)},
                      {"sigmoid_full_bias",
                       "not causal, f16, constant bias -2 plus a full [B, H, Sq, Skv] bias",
                       sigmoidAttention(b)}}});
  }
  {
    auto a = sized<ReluOptions>(4, 2, 64, DType::BF16, true);
    a.causal = true;
    a.lengthNorm = 64.0;
    auto b = sized<ReluOptions>(2, 1, 32, DType::F16, false);
    b.valueDim = 48;
    files.push_back({"relu.mlir",
                     "reluAttention",
                     {{"relu_causal_norm", "causal GQA, weights divided by 64", reluAttention(a)},
                      {"relu_plain", "not causal, MQA, f16, Dv = 48", reluAttention(b)}}});
  }
  {
    auto a = sized<SoftcapOptions>(4, 2, 64, DType::BF16, true);
    a.causal = true;
    a.scale = 1.0;
    auto b = sized<SoftcapOptions>(4, 4, 32, DType::BF16, true);
    b.cap = 2.0;
    files.push_back(
        {"softcap.mlir",
         "softcapAttention",
         {{"softcap_gemma", "causal GQA, cap 50 on unscaled scores", softcapAttention(a)},
          {"softcap_tight", "not causal, cap 2", softcapAttention(b)}}});
  }
  {
    auto a = sized<AlibiOptions>(8, 2, 64, DType::BF16, true);
    auto b = sized<AlibiOptions>(4, 4, 32, DType::F16, true);
    b.causal = false;
    files.push_back({"alibi.mlir",
                     "alibiAttention",
                     {{"alibi_causal", "causal GQA, 8 heads", alibiAttention(a)},
                      {"alibi_bidirectional", "not causal (|distance|), f16", alibiAttention(b)}}});
  }
  {
    auto a = sized<RelativeBiasOptions>(4, 2, 64, DType::BF16, true);
    a.causal = true;
    auto b = sized<RelativeBiasOptions>(2, 2, 32, DType::F16, true);
    files.push_back({"relative_bias.mlir",
                     "relativeBiasAttention",
                     {{"relative_bias_causal", "causal GQA", relativeBiasAttention(a)},
                      {"relative_bias_full", "not causal, f16", relativeBiasAttention(b)}}});
  }
  {
    auto a = sized<SlidingWindowOptions>(4, 2, 64, DType::BF16, true);
    a.left = 32;
    a.right = 0;
    auto b = sized<SlidingWindowOptions>(2, 2, 32, DType::BF16, true);
    b.left = 16;
    b.right = 24;
    files.push_back(
        {"sliding_window.mlir",
         "slidingWindowAttention",
         {{"sliding_window_causal", "causal window of 32 keys back", slidingWindowAttention(a)},
          {"sliding_window_two_sided", "16 keys back, 24 ahead", slidingWindowAttention(b)}}});
  }
  {
    auto a = sized<ChunkedOptions>(4, 2, 64, DType::BF16, true);
    a.chunkSize = 32;
    auto b = sized<ChunkedOptions>(2, 1, 32, DType::F16, true);
    b.chunkSize = 50;
    files.push_back({"chunked.mlir",
                     "chunkedAttention",
                     {{"chunked_32", "chunks of 32, GQA", chunkedAttention(a)},
                      {"chunked_50", "chunks of 50, MQA, f16", chunkedAttention(b)}}});
  }
  {
    auto a = sized<PrefixLMOptions>(4, 2, 64, DType::BF16, true);
    a.prefix = 16;
    auto b = sized<PrefixLMOptions>(2, 2, 32, DType::BF16, true);
    b.prefix = 100;
    files.push_back({"prefix_lm.mlir",
                     "prefixLMAttention",
                     {{"prefix_lm_16", "prefix of 16 keys, GQA", prefixLMAttention(a)},
                      {"prefix_lm_100", "prefix of 100 keys", prefixLMAttention(b)}}});
  }
  {
    auto a = sized<SinkOptions>(4, 2, 64, DType::BF16, true);
    auto b = sized<SinkOptions>(2, 2, 32, DType::F16, true);
    b.causal = false;
    files.push_back({"sink.mlir",
                     "sinkAttention",
                     {{"sink_causal", "causal GQA with per-head sinks", sinkAttention(a)},
                      {"sink_full", "not causal, f16", sinkAttention(b)}}});
  }
  {
    auto a = sized<SoftpickOptions>(4, 2, 64, DType::BF16, true);
    auto b = sized<SoftpickOptions>(2, 2, 32, DType::F16, true);
    b.causal = false;
    files.push_back({"softpick.mlir",
                     "softpickAttention",
                     {{"softpick_causal", "causal GQA", softpickAttention(a)},
                      {"softpick_full", "not causal, f16", softpickAttention(b)}}});
  }
  {
    auto a = sized<RetNetOptions>(4, 4, 64, DType::BF16, true);
    auto b = sized<RetNetOptions>(4, 2, 32, DType::F16, true);
    files.push_back({"retnet.mlir",
                     "retnetParallel",
                     {{"retnet_parallel", "D = 64, Dv = 128", retnetParallel(a)},
                      {"retnet_parallel_gqa", "GQA, f16, D = 32, Dv = 64", retnetParallel(b)}}});
  }
  {
    auto a = sized<DocumentMaskOptions>(4, 2, 64, DType::BF16, true);
    auto b = sized<DocumentMaskOptions>(2, 2, 32, DType::BF16, true);
    b.causal = false;
    files.push_back({"document_mask.mlir",
                     "documentMaskAttention",
                     {{"document_mask_causal", "causal GQA", documentMaskAttention(a)},
                      {"document_mask_bidirectional", "not causal", documentMaskAttention(b)}}});
  }
  {
    // Blocks of 64 x 128 are multiples of the default tiles (the map is read once per tile,
    // proven at compile time); 48 x 80 are not (checked per tile at run time, per element
    // where a tile straddles two blocks).
    auto a = sized<VariantOptions>(4, 2, 64, DType::BF16, true);
    auto b = sized<VariantOptions>(2, 2, 32, DType::F16, true);
    files.push_back({"block_sparse.mlir",
                     "blockSparseAttention",
                     {{"block_sparse_64x128", "blocks of 64 x 128, GQA",
                       blockSparseAttention(a, 64, 128, /*causal=*/false)},
                      {"block_sparse_causal_48x80", "causal, blocks of 48 x 80, f16",
                       blockSparseAttention(b, 48, 80, /*causal=*/true)}}});
  }
  {
    auto a = sized<VariantOptions>(4, 2, 64, DType::BF16, false);
    auto b = sized<VariantOptions>(2, 2, 32, DType::F16, false);
    files.push_back({"differential.mlir",
                     "differentialAttention",
                     {{"differential_causal", "causal GQA", differentialAttention(a, true)},
                      {"differential_full", "not causal, f16", differentialAttention(b, false)}}});
  }
  return files;
}

/// The text of one file: a header, then each function.
std::string generate(const VariantFile &file, std::string &error) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "// Generated from metaattn::frontend::" << file.factory
     << " by tests/unit/frontend/VariantFilesTest.cpp;\n"
     << "// regenerate with METAATTN_UPDATE_VARIANTS=1 MetaAttnFrontendTests "
        "--gtest_filter='VariantFiles*'.\n";
  for (const auto &f : file.functions) {
    MLIRContext ctx;
    auto module = f.build(ctx, f.name, error);
    if (failed(module)) {
      error = f.name + ": " + error;
      return "";
    }
    os << "\n// @" << f.name << ": " << f.comment << ".\n";
    for (Operation &op : (*module)->getBody()->getOperations())
      op.print(os);
    os << "\n";
  }
  return text;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    return "";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Compares each file with what its factories build (or rewrites it when asked).
void checkFiles(const std::vector<VariantFile> &files) {
  const char *update = std::getenv("METAATTN_UPDATE_VARIANTS");
  bool write = update && std::string(update) == "1";
  for (const VariantFile &file : files) {
    std::string error;
    std::string text = generate(file, error);
    ASSERT_TRUE(error.empty()) << file.file << ": " << error;
    EXPECT_EQ(parseAndVerify(text), "") << file.file;
    std::string path = std::string(METAATTN_VARIANTS_DIR) + "/" + file.file;
    if (write) {
      std::ofstream out(path);
      out << text;
      ASSERT_TRUE(out.good()) << "cannot write " << path;
      continue;
    }
    EXPECT_EQ(readFile(path), text) << path << " differs from what " << file.factory
                                    << " builds; regenerate with METAATTN_UPDATE_VARIANTS=1";
  }
}

TEST(VariantFilesTest, CheckedInFilesMatchTheFactories) { checkFiles(variantFiles()); }

TEST(VariantFilesTest, LinearFilesMatchTheFactories) { checkFiles(linearFiles()); }

} // namespace
