//===- AttentionBuilderTest.cpp - IR emitted by the attention builder -----===//
//
// Builds variants with AttentionBuilder and softmaxAttention, checks the function signature
// and region contents, and that the printed module parses back and verifies.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "metaattn/Frontend/Variants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::frontend;
using namespace metaattn::frontend::test;

namespace {

using Names = std::vector<std::string>;

TEST(AttentionBuilderTest, CausalGqaSoftmaxRoundTrips) {
  MLIRContext ctx;
  std::string error;
  auto module = softmaxAttention({/*numHeads=*/8, /*numKvHeads=*/2, /*headDim=*/64,
                                  /*valueDim=*/64, DType::BF16, /*causal=*/true,
                                  /*scale=*/std::nullopt, /*withLse=*/true})
                    .build(ctx, "causal", error);
  ASSERT_TRUE(succeeded(module)) << error;
  EXPECT_TRUE(error.empty());

  std::string text = print(**module);
  EXPECT_EQ(parseAndVerify(text), "") << text;
  for (const char *expected :
       {"func.func @causal(%arg0: tensor<?x?x8x64xbf16>, %arg1: tensor<?x?x2x64xbf16>, "
        "%arg2: tensor<?x?x2x64xbf16>) -> (tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>)",
        "attn.attention", "arith.constant 1.250000e-01 : f32", "arith.mulf", "arith.subi",
        "arith.addi", "arith.cmpi sle", "max", "math.exp", "sum", "attn.normalize",
        "return %output, %lse : tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>"})
    EXPECT_NE(text.find(expected), std::string::npos) << "missing '" << expected << "' in\n"
                                                      << text;

  attn::AttentionOp op = findAttention(**module);
  ASSERT_TRUE(op);
  EXPECT_EQ(opNames(op.getScore()), (Names{"arith.constant", "arith.mulf", "attn.yield"}));
  EXPECT_EQ(opNames(op.getNormalizer()), (Names{"attn.row_reduce", "arith.subf", "math.exp",
                                                "attn.row_reduce", "attn.normalize"}));
}

TEST(AttentionBuilderTest, CausalGqaSoftmaxMatchesHandWrittenIr) {
  // The builder's output prints exactly like the hand-written form of the same attention.
  static const char *handWritten = R"mlir(
func.func @causal(%q: tensor<?x?x8x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x64xbf16>) -> (tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v
    score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    } : tensor<?x?x8x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x64xbf16> -> tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x?x8x64xbf16>, tensor<?x8x?xf32>
}
)mlir";
  MLIRContext ctx;
  std::string error;
  auto built = softmaxAttention({8, 2, 64, 64, DType::BF16, /*causal=*/true, {}, true})
                   .build(ctx, "causal", error);
  ASSERT_TRUE(succeeded(built)) << error;
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(handWritten, &ctx);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(print(**built), print(*parsed));
}

TEST(AttentionBuilderTest, CausalMaskIsBottomRightAffine) {
  MLIRContext ctx;
  std::string error;
  SoftmaxOptions options;
  options.numHeads = 4;
  options.numKvHeads = 4;
  options.causal = true;
  auto module = softmaxAttention(options).build(ctx, "causal", error);
  ASSERT_TRUE(succeeded(module)) << error;
  attn::AttentionOp op = findAttention(**module);
  ASSERT_TRUE(op);

  // kv <= q + (skv - sq), with the index arguments (b, h, q, kv, sq, skv).
  Block &mask = op.getMask().front();
  ASSERT_EQ(opNames(op.getMask()), (Names{"arith.subi", "arith.addi", "arith.cmpi", "attn.yield"}));
  auto it = mask.begin();
  auto sub = cast<arith::SubIOp>(*it++);
  auto add = cast<arith::AddIOp>(*it++);
  auto cmp = cast<arith::CmpIOp>(*it++);
  auto yield = cast<attn::YieldOp>(*it++);
  EXPECT_EQ(sub.getLhs(), mask.getArgument(5)); // skv
  EXPECT_EQ(sub.getRhs(), mask.getArgument(4)); // sq
  EXPECT_EQ(add.getLhs(), mask.getArgument(2)); // q
  EXPECT_EQ(add.getRhs(), sub.getResult());
  EXPECT_EQ(cmp.getPredicate(), arith::CmpIPredicate::sle);
  EXPECT_EQ(cmp.getLhs(), mask.getArgument(3)); // kv
  EXPECT_EQ(cmp.getRhs(), add.getResult());
  EXPECT_EQ(yield.getValues()[0], cmp.getResult());
}

TEST(AttentionBuilderTest, DefaultsAreScaledSoftmaxWithoutMask) {
  MLIRContext ctx;
  std::string error;
  AttentionBuilder builder;
  builder.heads(2, 1).headDims(16, 32).dtype(DType::F16);
  auto module = builder.build(ctx, "plain", error);
  ASSERT_TRUE(succeeded(module)) << error;
  attn::AttentionOp op = findAttention(**module);
  ASSERT_TRUE(op);
  EXPECT_FALSE(op.getLse());
  EXPECT_EQ(op.getOutput().getType(),
            RankedTensorType::get({ShapedType::kDynamic, ShapedType::kDynamic, 2, 32},
                                  Float16Type::get(&ctx)));
  // s * 1/sqrt(16).
  auto scale = cast<arith::ConstantOp>(op.getScore().front().front());
  EXPECT_EQ(cast<FloatAttr>(scale.getValue()).getValueAsDouble(), 0.25);
  EXPECT_EQ(opNames(op.getMask()), (Names{"arith.constant", "attn.yield"}));
  EXPECT_EQ(parseAndVerify(print(**module)), "");
}

TEST(AttentionBuilderTest, ExplicitScale) {
  MLIRContext ctx;
  std::string error;
  SoftmaxOptions options;
  options.scale = 0.5;
  auto module = softmaxAttention(options).build(ctx, "scaled", error);
  ASSERT_TRUE(succeeded(module)) << error;
  auto scale = cast<arith::ConstantOp>(findAttention(**module).getScore().front().front());
  EXPECT_EQ(cast<FloatAttr>(scale.getValue()).getValueAsDouble(), 0.5);
}

TEST(AttentionBuilderTest, CustomNormalizerThroughRowOps) {
  // RetNet's S / max(Σ|S|, 1), with a softcap score function and a sliding-window mask.
  MLIRContext ctx;
  std::string error;
  AttentionBuilder builder;
  builder.heads(4, 4)
      .headDims(32, 32)
      .dtype(DType::F32)
      .scoreFn([](Sym s, const Indices &) { return 30.0 * tanh(s / 30.0); })
      .mask([](const Indices &i) { return i.kv <= i.q && i.q - i.kv < 128; })
      .normalizer(Normalizer::custom(
          [](Sym s, RowOps &rows) -> std::pair<Sym, Sym> {
            return {s, max(rows.rowAbsSum(s), 1.0)};
          },
          "retnet"))
      .withLse(true);
  auto module = builder.build(ctx, "retnet", error);
  ASSERT_TRUE(succeeded(module)) << error;
  attn::AttentionOp op = findAttention(**module);
  ASSERT_TRUE(op);
  EXPECT_EQ(opNames(op.getNormalizer()),
            (Names{"attn.row_reduce", "arith.constant", "arith.maximumf", "attn.normalize"}));
  auto reduce = cast<attn::RowReduceOp>(op.getNormalizer().front().front());
  EXPECT_EQ(reduce.getKind(), attn::ReductionKind::abs_sum);
  EXPECT_EQ(opNames(op.getScore()), (Names{"arith.constant", "arith.divf", "math.tanh",
                                           "arith.constant", "arith.mulf", "attn.yield"}));
  EXPECT_EQ(parseAndVerify(print(**module)), "");
}

TEST(AttentionBuilderTest, SinksReadAPerHeadInput) {
  // Softmax with a learned sink per head: the sink joins the denominator.
  MLIRContext ctx;
  std::string error;
  AttentionBuilder builder;
  builder.heads(8, 8).headDims(64, 64);
  Input sink = builder.addInput("sink", DType::F32, {Dim::H});
  builder.normalizer(Normalizer::custom([sink](Sym s, RowOps &rows) -> std::pair<Sym, Sym> {
    // The sink joins the maximum: the running maximum starts at the sink (shift_init).
    Sym m = max(rows.rowMax(s), sink.at(rows.indices()));
    Sym w = exp(s - m);
    return {w, rows.rowSum(w) + exp(rows.indices().inputs[sink] - m)};
  }));
  auto module = builder.build(ctx, "sinks", error);
  ASSERT_TRUE(succeeded(module)) << error;
  auto func = *(*module)->getBody()->getOps<func::FuncOp>().begin();
  EXPECT_EQ(func.getArgumentTypes()[3], RankedTensorType::get({8}, Float32Type::get(&ctx)));
  attn::AttentionOp op = findAttention(**module);
  EXPECT_EQ(op.getInputDims()[0], StringAttr::get(&ctx, "h"));
  EXPECT_EQ(parseAndVerify(print(**module)), "");
}

TEST(AttentionBuilderTest, CustomInputsConvertToF32AndIndex) {
  // An ALiBi-style bias from a bf16 slope per head, and a document mask from i32 ids.
  MLIRContext ctx;
  std::string error;
  AttentionBuilder builder;
  builder.heads(4, 2).headDims(64, 128).dtype(DType::BF16);
  Input slope = builder.addInput("slope", DType::BF16, {Dim::H});
  Input qDoc = builder.addInput("q_doc", DType::I32, {Dim::B, Dim::Q});
  Input kvDoc = builder.addInput("kv_doc", DType::I32, {Dim::B, Dim::KV});
  builder
      .scoreFn([slope](Sym s, const Indices &i) {
        return s * 0.125 - slope.at(i) * toFloat(abs(i.q - i.kv));
      })
      .mask([qDoc, kvDoc](const Indices &i) { return i.inputs[qDoc] == i.inputs[kvDoc]; });
  auto module = builder.build(ctx, "doc", error);
  ASSERT_TRUE(succeeded(module)) << error;
  std::string text = print(**module);
  for (const char *expected :
       {"%arg3: tensor<4xbf16>, %arg4: tensor<?x?xi32>, %arg5: tensor<?x?xi32>",
        "input_dims = [\"h\", \"b,q\", \"b,kv\"]", "arith.extf", "arith.index_cast", "arith.sitofp",
        "arith.maxsi", "arith.cmpi eq"})
    EXPECT_NE(text.find(expected), std::string::npos) << "missing '" << expected << "' in\n"
                                                      << text;
  EXPECT_EQ(parseAndVerify(text), "");
}

TEST(AttentionBuilderTest, IdentityNormalizerWithSigmoidScore) {
  MLIRContext ctx;
  std::string error;
  AttentionBuilder builder;
  builder.heads(2, 2)
      .headDims(64, 64)
      .scoreFn([](Sym s, const Indices &) { return sigmoid(s * 0.125 - 3.0); })
      .normalizer(Normalizer::identity());
  auto module = builder.build(ctx, "sigmoid_attn", error);
  ASSERT_TRUE(succeeded(module)) << error;
  attn::AttentionOp op = findAttention(**module);
  EXPECT_EQ(opNames(op.getNormalizer()), (Names{"arith.constant", "attn.normalize"}));
  EXPECT_EQ(parseAndVerify(print(**module)), "");
}

TEST(AttentionBuilderTest, BuilderIsReusable) {
  // One description, two builds, two contexts: each build starts from scratch.
  AttentionBuilder builder = softmaxAttention({4, 1, 64, 64, DType::BF16, true, {}, false});
  for (int i = 0; i < 2; ++i) {
    MLIRContext ctx;
    std::string error;
    auto module = builder.build(ctx, "again", error);
    ASSERT_TRUE(succeeded(module)) << error;
    EXPECT_EQ(parseAndVerify(print(**module)), "");
  }
}

} // namespace

TEST(AttentionBuilderTest, NormaliserThatCannotStreamIsRejectedAtBuild) {
  // exp(s - max) + 1 mixes degrees 1 and 0: its row sum cannot be rescaled when the maximum
  // moves. The builder reports it, naming the op, before anything is compiled.
  MLIRContext ctx;
  std::string error;
  AttentionBuilder builder;
  builder.heads(2, 2).headDims(32, 32).normalizer(Normalizer::custom(
      [](Sym s, RowOps &rows) -> std::pair<Sym, Sym> {
        Sym w = exp(s - rows.rowMax(s)) + 1.0;
        return {w, rows.rowSum(w)};
      },
      "not streamable"));
  auto module = builder.build(ctx, "bad", error);
  EXPECT_TRUE(failed(module));
  EXPECT_NE(error.find("normaliser cannot be streamed over kv tiles: its operands scale "
                       "differently with the row maximum (degrees 1 and 0)"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("in this attention"), std::string::npos) << error;
}
