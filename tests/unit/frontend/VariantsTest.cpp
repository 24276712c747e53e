//===- VariantsTest.cpp - the ready-made variant factories ----------------===//
//
// Every factory builds a module that verifies and round-trips through the parser, with the
// inputs, signature and normaliser its documentation promises; bad options fail in build()
// with a message that names the variant and the option.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "metaattn/Frontend/Variants.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::frontend;
using namespace metaattn::frontend::test;

namespace {

using Names = std::vector<std::string>;

/// Builds `builder` as @f, checks that it verifies and parses back, and returns its text.
struct Built {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  std::string text;
  attn::AttentionOp op;
};

void buildOk(const AttentionBuilder &builder, Built &out) {
  std::string error;
  auto module = builder.build(out.ctx, "f", error);
  ASSERT_TRUE(succeeded(module)) << error;
  out.module = std::move(*module);
  out.text = print(*out.module);
  EXPECT_EQ(parseAndVerify(out.text), "") << out.text;
  out.op = findAttention(*out.module);
  ASSERT_TRUE(out.op);
}

bool contains(const std::string &text, const std::string &what) {
  return text.find(what) != std::string::npos;
}

/// input_dims of the attention as strings.
Names inputDims(attn::AttentionOp op) {
  Names dims;
  for (Attribute a : op.getInputDims())
    dims.push_back(cast<StringAttr>(a).getValue().str());
  return dims;
}

bool hasOp(Region &region, const std::string &name) {
  for (const std::string &n : opNames(region))
    if (n == name)
      return true;
  return false;
}

TEST(VariantsTest, Sigmoid) {
  SigmoidOptions o;
  o.numHeads = 4;
  o.numKvHeads = 2;
  o.causal = true;
  o.bias = -2.0;
  o.biasInput = SigmoidBias::PerHead;
  o.withLse = true;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(sigmoidAttention(o), b));
  EXPECT_EQ(inputDims(b.op), (Names{"h"}));
  EXPECT_TRUE(contains(b.text, "tensor<4xf32>")) << b.text;
  EXPECT_TRUE(contains(b.text, "arith.constant -2.000000e+00 : f32")) << b.text;
  EXPECT_TRUE(hasOp(b.op.getScore(), "math.exp"));
  EXPECT_TRUE(hasOp(b.op.getMask(), "arith.cmpi"));
  // Identity normaliser: no reduction.
  EXPECT_EQ(opNames(b.op.getNormalizer()), (Names{"arith.constant", "attn.normalize"}));

  o.biasInput = SigmoidBias::Full;
  o.causal = false;
  Built full;
  ASSERT_NO_FATAL_FAILURE(buildOk(sigmoidAttention(o), full));
  EXPECT_EQ(inputDims(full.op), (Names{"b,h,q,kv"}));
  EXPECT_TRUE(contains(full.text, "tensor<?x4x?x?xf32>")) << full.text;
  EXPECT_EQ(opNames(full.op.getMask()), (Names{"arith.constant", "attn.yield"}));

  o.biasInput = SigmoidBias::None;
  Built none;
  ASSERT_NO_FATAL_FAILURE(buildOk(sigmoidAttention(o), none));
  EXPECT_TRUE(none.op.getInputs().empty());
}

TEST(VariantsTest, Relu) {
  ReluOptions o;
  o.lengthNorm = 128.0;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(reluAttention(o), b));
  EXPECT_TRUE(hasOp(b.op.getScore(), "arith.maximumf"));
  EXPECT_TRUE(hasOp(b.op.getScore(), "arith.divf"));
  EXPECT_EQ(opNames(b.op.getNormalizer()), (Names{"arith.constant", "attn.normalize"}));
  o.lengthNorm.reset();
  Built plain;
  ASSERT_NO_FATAL_FAILURE(buildOk(reluAttention(o), plain));
  EXPECT_FALSE(hasOp(plain.op.getScore(), "arith.divf"));
}

TEST(VariantsTest, Softcap) {
  SoftcapOptions o;
  o.headDim = 128;
  o.causal = true;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(softcapAttention(o), b));
  EXPECT_TRUE(hasOp(b.op.getScore(), "math.tanh"));
  EXPECT_TRUE(contains(b.text, "5.000000e+01")) << b.text;
  // Dv defaults to D.
  EXPECT_TRUE(contains(b.text, "tensor<?x?x1x128xbf16>")) << b.text;
}

TEST(VariantsTest, Alibi) {
  AlibiOptions o;
  o.numHeads = 8;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(alibiAttention(o), b));
  EXPECT_TRUE(b.op.getInputs().empty());
  EXPECT_TRUE(hasOp(b.op.getScore(), "math.exp2"));
  EXPECT_TRUE(hasOp(b.op.getScore(), "arith.sitofp"));
  // -8 / 8 per head.
  EXPECT_TRUE(contains(b.text, "arith.constant -1.000000e+00 : f32")) << b.text;
  o.causal = false;
  Built bidir;
  ASSERT_NO_FATAL_FAILURE(buildOk(alibiAttention(o), bidir));
  EXPECT_TRUE(hasOp(bidir.op.getScore(), "arith.maxsi"));
}

TEST(VariantsTest, RelativeBias) {
  RelativeBiasOptions o;
  o.numHeads = 4;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(relativeBiasAttention(o), b));
  EXPECT_EQ(inputDims(b.op), (Names{"h,q,kv"}));
  EXPECT_TRUE(contains(b.text, "tensor<4x?x?xf32>")) << b.text;
  EXPECT_FALSE(hasOp(b.op.getScore(), "arith.extf"));
  // A 16-bit bias is widened where the score reads it.
  o.biasType = DType::BF16;
  Built half;
  ASSERT_NO_FATAL_FAILURE(buildOk(relativeBiasAttention(o), half));
  EXPECT_TRUE(contains(half.text, "tensor<4x?x?xbf16>")) << half.text;
  EXPECT_TRUE(hasOp(half.op.getScore(), "arith.extf"));
}

TEST(VariantsTest, SlidingWindow) {
  SlidingWindowOptions o;
  o.left = 32;
  o.right = 8;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(slidingWindowAttention(o), b));
  EXPECT_TRUE(contains(b.text, "arith.cmpi sge")) << b.text;
  EXPECT_TRUE(contains(b.text, "arith.cmpi sle")) << b.text;
  EXPECT_TRUE(hasOp(b.op.getMask(), "arith.andi"));
}

TEST(VariantsTest, Chunked) {
  ChunkedOptions o;
  o.chunkSize = 32;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(chunkedAttention(o), b));
  EXPECT_TRUE(hasOp(b.op.getMask(), "arith.divsi"));
  EXPECT_TRUE(contains(b.text, "arith.cmpi eq")) << b.text;
}

TEST(VariantsTest, PrefixLM) {
  PrefixLMOptions o;
  o.prefix = 16;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(prefixLMAttention(o), b));
  EXPECT_TRUE(hasOp(b.op.getMask(), "arith.ori"));
  EXPECT_TRUE(contains(b.text, "arith.cmpi slt")) << b.text;
}

TEST(VariantsTest, Sink) {
  SinkOptions o;
  o.numHeads = 4;
  o.withLse = true;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(sinkAttention(o), b));
  EXPECT_EQ(inputDims(b.op), (Names{"h"}));
  EXPECT_EQ(opNames(b.op.getNormalizer()),
            (Names{"attn.row_reduce", "arith.subf", "math.exp", "attn.row_reduce", "arith.subf",
                   "math.exp", "arith.addf", "attn.normalize"}));
}

TEST(VariantsTest, Softpick) {
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(softpickAttention(SoftpickOptions{}), b));
  EXPECT_EQ(
      opNames(b.op.getNormalizer()),
      (Names{"attn.row_reduce", "arith.subf", "math.exp", "arith.negf", "math.exp", "arith.subf",
             "arith.constant", "arith.maximumf", "attn.row_reduce", "attn.normalize"}));
  EXPECT_TRUE(contains(b.text, "abs_sum")) << b.text;
}

TEST(VariantsTest, RetNet) {
  RetNetOptions o;
  o.numHeads = 4;
  o.headDim = 64;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(retnetParallel(o), b));
  // The decay γ_h^(q-kv) is computed from the indices: no input.
  EXPECT_EQ(inputDims(b.op), Names{});
  EXPECT_TRUE(hasOp(b.op.getScore(), "math.exp2"));
  EXPECT_TRUE(hasOp(b.op.getScore(), "math.log"));
  // Dv defaults to 2·D.
  EXPECT_TRUE(contains(b.text, "tensor<?x?x4x128xbf16>")) << b.text;
  EXPECT_TRUE(hasOp(b.op.getMask(), "arith.cmpi"));
  EXPECT_EQ(opNames(b.op.getNormalizer()),
            (Names{"attn.row_reduce", "arith.constant", "arith.maximumf", "attn.normalize"}));
  o.valueDim = 64;
  Built explicitDv;
  ASSERT_NO_FATAL_FAILURE(buildOk(retnetParallel(o), explicitDv));
  EXPECT_TRUE(contains(explicitDv.text, "tensor<?x?x4x64xbf16>")) << explicitDv.text;
}

TEST(VariantsTest, DocumentMask) {
  DocumentMaskOptions o;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(documentMaskAttention(o), b));
  EXPECT_EQ(inputDims(b.op), (Names{"b,q", "b,kv"}));
  EXPECT_TRUE(contains(b.text, "tensor<?x?xi32>")) << b.text;
  EXPECT_TRUE(hasOp(b.op.getMask(), "arith.index_cast"));
  EXPECT_TRUE(hasOp(b.op.getMask(), "arith.andi"));
  o.causal = false;
  Built bidir;
  ASSERT_NO_FATAL_FAILURE(buildOk(documentMaskAttention(o), bidir));
  EXPECT_FALSE(hasOp(bidir.op.getMask(), "arith.andi"));
}

TEST(VariantsTest, BlockSparse) {
  VariantOptions o;
  o.numHeads = 4;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(blockSparseAttention(o, 64, 128, /*causal=*/false), b));
  EXPECT_EQ(inputDims(b.op), (Names{"b,h,q/64,kv/128"}));
  EXPECT_TRUE(contains(b.text, "tensor<?x4x?x?xi32>")) << b.text;
  EXPECT_TRUE(hasOp(b.op.getMask(), "arith.cmpi"));
  EXPECT_FALSE(hasOp(b.op.getMask(), "arith.andi"));
  Built causalBuilt;
  ASSERT_NO_FATAL_FAILURE(buildOk(blockSparseAttention(o, 96, 96, /*causal=*/true), causalBuilt));
  EXPECT_EQ(inputDims(causalBuilt.op), (Names{"b,h,q/96,kv/96"}));
  EXPECT_TRUE(hasOp(causalBuilt.op.getMask(), "arith.andi"));
}

TEST(VariantsTest, Differential) {
  VariantOptions o;
  o.numHeads = 4;
  o.numKvHeads = 2;
  MLIRContext ctx;
  std::string error;
  auto module = differentialAttention(o, /*causal=*/true).build(ctx, "diff", error);
  ASSERT_TRUE(succeeded(module)) << error;
  auto func = *(*module)->getOps<func::FuncOp>().begin();
  // q1, k1, q2, k2, v, lambda -> o.
  ASSERT_EQ(func.getNumArguments(), 6u);
  EXPECT_EQ(func.getArgument(5).getType(), RankedTensorType::get({4}, Float32Type::get(&ctx)));
  SmallVector<attn::AttentionOp> attentions(func.getOps<attn::AttentionOp>());
  ASSERT_EQ(attentions.size(), 2u);
  for (attn::AttentionOp a : attentions) {
    EXPECT_TRUE(cast<RankedTensorType>(a.getOutput().getType()).getElementType().isF32());
    EXPECT_TRUE(hasOp(a.getMask(), "arith.cmpi"));
  }
  // Both read v (argument 4); the second reads q2 and k2.
  EXPECT_EQ(attentions[0].getV(), func.getArgument(4));
  EXPECT_EQ(attentions[1].getV(), func.getArgument(4));
  EXPECT_EQ(attentions[1].getQ(), func.getArgument(2));
  auto combine = *func.getOps<attn::CombineOp>().begin();
  EXPECT_EQ(combine.getValues()[0], attentions[0].getOutput());
  EXPECT_EQ(combine.getValues()[1], attentions[1].getOutput());
  EXPECT_EQ(opNames(combine.getCombiner()), (Names{"arith.mulf", "arith.subf", "attn.yield"}));
  EXPECT_TRUE(cast<RankedTensorType>(combine.getOutput().getType()).getElementType().isBF16());
  auto full = differentialAttention(o, /*causal=*/false).build(ctx, "full", error);
  ASSERT_TRUE(succeeded(full)) << error;
  auto fullFunc = *(*full)->getOps<func::FuncOp>().begin();
  EXPECT_FALSE(hasOp((*fullFunc.getOps<attn::AttentionOp>().begin()).getMask(), "arith.cmpi"));
}

TEST(VariantsTest, ScaleDefaultsToInverseSqrtD) {
  SoftcapOptions o;
  o.headDim = 16;
  o.cap = 1.0;
  Built b;
  ASSERT_NO_FATAL_FAILURE(buildOk(softcapAttention(o), b));
  // scale / cap = 0.25.
  EXPECT_TRUE(contains(b.text, "2.500000e-01")) << b.text;
  o.scale = 0.5;
  Built s;
  ASSERT_NO_FATAL_FAILURE(buildOk(softcapAttention(o), s));
  EXPECT_TRUE(contains(s.text, "5.000000e-01")) << s.text;
}

//===----------------------------------------------------------------------===//
// Bad options
//===----------------------------------------------------------------------===//

TEST(VariantsValidationTest, OptionErrors) {
  SlidingWindowOptions window;
  window.left = -1;
  EXPECT_EQ(buildError(slidingWindowAttention(window)),
            "sliding-window attention: left must be >= 0, got -1");
  window.left = 4;
  window.right = -3;
  EXPECT_EQ(buildError(slidingWindowAttention(window)),
            "sliding-window attention: right must be >= 0, got -3");

  ChunkedOptions chunk;
  chunk.chunkSize = 0;
  EXPECT_EQ(buildError(chunkedAttention(chunk)),
            "chunked attention: chunkSize must be >= 1, got 0");

  PrefixLMOptions prefix;
  prefix.prefix = -5;
  EXPECT_EQ(buildError(prefixLMAttention(prefix)),
            "prefix-LM attention: prefix must be >= 0, got -5");

  SoftcapOptions cap;
  cap.cap = 0;
  EXPECT_EQ(buildError(softcapAttention(cap)),
            "softcap attention: cap must be positive and finite, got 0");
  cap.cap = -1;
  EXPECT_EQ(buildError(softcapAttention(cap)),
            "softcap attention: cap must be positive and finite, got -1");

  ReluOptions relu;
  relu.lengthNorm = 0.0;
  EXPECT_EQ(buildError(reluAttention(relu)),
            "ReLU attention: lengthNorm must be positive and finite, got 0");

  AlibiOptions alibi;
  alibi.maxBias = -8;
  EXPECT_EQ(buildError(alibiAttention(alibi)),
            "ALiBi attention: maxBias must be positive and finite, got -8");

  SigmoidOptions sigmoid;
  sigmoid.bias = std::numeric_limits<double>::infinity();
  EXPECT_EQ(buildError(sigmoidAttention(sigmoid)),
            "sigmoid attention: bias must be finite, got inf");

  RelativeBiasOptions intBias;
  intBias.biasType = DType::I32;
  EXPECT_EQ(buildError(relativeBiasAttention(intBias)),
            "relative-bias attention: biasType must be f32, bf16 or f16, got i32");

  SinkOptions sink;
  sink.scale = std::nan("");
  EXPECT_EQ(buildError(sinkAttention(sink)), "sink attention: scale must be finite, got nan");

  VariantOptions shared;
  MLIRContext ctx;
  std::string error;
  VariantOptions lse;
  lse.withLse = true;
  EXPECT_TRUE(failed(differentialAttention(lse, true).build(ctx, "d", error)));
  EXPECT_EQ(error, "attention #0: differential attention: withLse is not supported (the result "
                   "is a difference of two softmaxes)");
  VariantOptions badScale;
  badScale.scale = std::nan("");
  EXPECT_TRUE(failed(differentialAttention(badScale, false).build(ctx, "d", error)));
  EXPECT_EQ(error, "attention #0: differential attention: scale must be finite, got nan");
  EXPECT_EQ(buildError(blockSparseAttention(shared, 0, 64, false)),
            "block-sparse attention: blockQ must be >= 1, got 0");
  EXPECT_EQ(buildError(blockSparseAttention(shared, 64, -2, true)),
            "block-sparse attention: blockKv must be >= 1, got -2");
}

TEST(VariantsValidationTest, SharedSizeErrors) {
  // The builder's own checks apply to every variant.
  RetNetOptions retnet;
  retnet.numHeads = 12;
  retnet.numKvHeads = 5;
  EXPECT_EQ(buildError(retnetParallel(retnet)),
            "query heads (12) must be a multiple of kv heads (5)");
  DocumentMaskOptions doc;
  doc.headDim = 0;
  EXPECT_EQ(buildError(documentMaskAttention(doc)), "head dim D must be positive, got 0");
  AlibiOptions alibi;
  alibi.numHeads = 0;
  EXPECT_EQ(buildError(alibiAttention(alibi)), "query heads H must be positive, got 0");
  SinkOptions sink;
  sink.valueDim = -1;
  EXPECT_EQ(buildError(sinkAttention(sink)), "value head dim Dv must be positive, got -1");
  SoftpickOptions softpick;
  softpick.dtype = DType::I32;
  EXPECT_EQ(buildError(softpickAttention(softpick)),
            "unsupported dtype i32 for q, k and v: expected bf16, f16 or f32");
}

TEST(VariantsValidationTest, SoftmaxUnchanged) {
  // softmaxAttention keeps its positional options and its IR.
  MLIRContext ctx;
  std::string error;
  auto module =
      softmaxAttention({4, 2, 32, 48, DType::BF16, true, {}, true}).build(ctx, "f", error);
  ASSERT_TRUE(succeeded(module)) << error;
  attn::AttentionOp op = findAttention(**module);
  ASSERT_TRUE(op);
  EXPECT_EQ(opNames(op.getMask()), (Names{"arith.subi", "arith.addi", "arith.cmpi", "attn.yield"}));
}

} // namespace
