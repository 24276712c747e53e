//===- ValidationTest.cpp - errors the attention builder reports ----------===//
//
// Every invalid description fails with a message that says why; none asserts or crashes.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "metaattn/Frontend/Variants.h"

#include <gtest/gtest.h>

using namespace metaattn::frontend;
using namespace metaattn::frontend::test;

namespace {

AttentionBuilder base() {
  AttentionBuilder builder;
  builder.heads(8, 2).headDims(64, 64).dtype(DType::BF16);
  return builder;
}

TEST(ValidationTest, ValueDimZero) {
  EXPECT_EQ(buildError(softmaxAttention({8, 2, 64, 0, DType::BF16, false, {}, false})),
            "value head dim Dv must be positive, got 0");
}

TEST(ValidationTest, NonPositiveSizes) {
  EXPECT_EQ(buildError(base().heads(0, 1)), "query heads H must be positive, got 0");
  EXPECT_EQ(buildError(base().heads(8, -2)), "kv heads Hkv must be positive, got -2");
  EXPECT_EQ(buildError(base().headDims(0, 64)), "head dim D must be positive, got 0");
}

TEST(ValidationTest, GqaRatio) {
  EXPECT_EQ(buildError(softmaxAttention({12, 5, 64, 64, DType::BF16, true, {}, false})),
            "query heads (12) must be a multiple of kv heads (5)");
}

TEST(ValidationTest, UnsupportedDtype) {
  EXPECT_EQ(buildError(base().dtype(DType::F64)),
            "unsupported dtype f64 for q, k and v: expected bf16, f16 or f32");
  EXPECT_EQ(buildError(base().dtype(DType::I32)),
            "unsupported dtype i32 for q, k and v: expected bf16, f16 or f32");
}

TEST(ValidationTest, EmptyFunctionName) {
  mlir::MLIRContext ctx;
  std::string error;
  EXPECT_TRUE(mlir::failed(base().build(ctx, "", error)));
  EXPECT_EQ(error, "function name must not be empty");
}

TEST(ValidationTest, ScoreMustBeF32) {
  AttentionBuilder builder = base();
  builder.scoreFn([](Sym s, const Indices &) { return s > 0.0; });
  EXPECT_EQ(buildError(builder), "score function must return an f32 value, got i1");
  builder.scoreFn([](Sym, const Indices &i) { return i.q; });
  EXPECT_EQ(buildError(builder), "score function must return an f32 value, got index");
}

TEST(ValidationTest, MaskMustBeI1) {
  AttentionBuilder builder = base();
  builder.mask([](const Indices &i) { return toFloat(i.q); });
  EXPECT_EQ(buildError(builder), "mask must return an i1 value (a comparison), got f32");
}

TEST(ValidationTest, NormalizerMustReturnF32Pair) {
  AttentionBuilder builder = base();
  builder.normalizer(Normalizer::custom(
      [](Sym s, RowOps &rows) -> std::pair<Sym, Sym> { return {s, s > 0.0}; }, "bad"));
  EXPECT_EQ(buildError(builder), "normalizer 'bad' denominator must return an f32 value, got i1");
  builder.normalizer(Normalizer::custom(
      [](Sym s, RowOps &rows) -> std::pair<Sym, Sym> { return {Sym(), rows.rowSum(s)}; }));
  EXPECT_EQ(buildError(builder), "normalizer 'custom' weight returned an invalid Sym "
                                 "(default-constructed or the result of an earlier error)");
}

TEST(ValidationTest, MixedKindsInAnExpression) {
  AttentionBuilder builder = base();
  builder.scoreFn([](Sym s, const Indices &i) { return s + i.kv; });
  EXPECT_EQ(buildError(builder), "'+' in the score region needs two f32 or two index values "
                                 "(use toFloat() to mix), got f32 and index");
  builder.scoreFn([](Sym s, const Indices &i) { return s * toFloat(i.kv * 0.5); });
  EXPECT_EQ(buildError(builder), "'*' in the score region combines an index with the "
                                 "non-integer constant 0.500000; convert the index with "
                                 "toFloat()");
  builder.scoreFn([](Sym s, const Indices &i) { return exp(i.q); });
  EXPECT_EQ(buildError(builder), "'exp' in the score region needs an f32 value, got index");
}

TEST(ValidationTest, SymFromAnotherRegion) {
  // A Sym kept from the score lambda and used in the mask lambda.
  auto stash = std::make_shared<Sym>();
  AttentionBuilder builder = base();
  builder.scoreFn([stash](Sym s, const Indices &) {
    *stash = s;
    return s;
  });
  builder.mask([stash](const Indices &) { return *stash > 0.0; });
  EXPECT_EQ(buildError(builder), "'>' in the mask region uses a Sym of the score region; "
                                 "values cannot cross regions");
  // Returning it directly.
  builder.mask([stash](const Indices &i) { return i.q >= 0; })
      .normalizer(Normalizer::custom([stash](Sym s, RowOps &rows) -> std::pair<Sym, Sym> {
        return {*stash, rows.rowSum(s)};
      }));
  EXPECT_EQ(buildError(builder), "normalizer 'custom' weight returned a Sym of the score region");
}

TEST(ValidationTest, SymFromAnEarlierBuild) {
  // Syms outlive their build; using one later is reported, not a crash.
  auto stash = std::make_shared<Sym>();
  AttentionBuilder first = base();
  first.scoreFn([stash](Sym s, const Indices &) {
    *stash = s;
    return s;
  });
  EXPECT_EQ(buildError(first), "");
  AttentionBuilder second = base();
  second.scoreFn([stash](Sym s, const Indices &) { return s + *stash; });
  EXPECT_EQ(buildError(second), "'+' in the score region uses a Sym of the score region; "
                                "values cannot cross regions");
}

TEST(ValidationTest, CustomInputs) {
  AttentionBuilder builder = base();
  builder.addInput("bias", DType::F64, {Dim::H});
  EXPECT_EQ(buildError(builder), "custom input 'bias': unsupported dtype f64 (expected bf16, "
                                 "f16, f32, i32 or i64)");
  AttentionBuilder order = base();
  order.addInput("bias", DType::F32, {Dim::Q, Dim::H});
  EXPECT_EQ(buildError(order), "custom input 'bias': dims must be an ordered subset of {B, H, "
                               "Q, KV} without repeats");
  AttentionBuilder twice = base();
  twice.addInput("x", DType::F32, {});
  twice.addInput("x", DType::F32, {Dim::B});
  EXPECT_EQ(buildError(twice), "custom input name 'x' is used twice");
  AttentionBuilder zeroBlock = base();
  zeroBlock.addInput("m", DType::I32, {Dim::H, blocksOf(Dim::Q, 0)});
  EXPECT_EQ(buildError(zeroBlock), "custom input 'm': the block size of q must be positive, "
                                   "got 0");
  AttentionBuilder headBlock = base();
  headBlock.addInput("m", DType::I32, {blocksOf(Dim::H, 2)});
  EXPECT_EQ(buildError(headBlock), "custom input 'm': only Q and KV can be divided into "
                                   "blocks, not h");
}

TEST(ValidationTest, InputOfAnotherBuilder) {
  AttentionBuilder other = base();
  Input foreign = other.addInput("foreign", DType::F32, {Dim::H});
  AttentionBuilder builder = base();
  builder.addInput("mine", DType::F32, {Dim::H});
  builder.scoreFn([foreign](Sym s, const Indices &i) { return s + foreign.at(i); });
  EXPECT_EQ(buildError(builder), "custom input 'foreign' was declared on another AttentionBuilder");
}

TEST(ValidationTest, RowReductionOfAnIndex) {
  AttentionBuilder builder = base();
  builder.normalizer(Normalizer::custom([](Sym s, RowOps &rows) -> std::pair<Sym, Sym> {
    return {s, rows.rowMax(rows.indices().kv)};
  }));
  EXPECT_EQ(buildError(builder), "'rowMax' needs an f32 value, got index");
}

} // namespace
