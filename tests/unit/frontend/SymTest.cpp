//===- SymTest.cpp - the ops that Sym operators emit ----------------------===//
//
// Each operator and function of Sym emits the expected arith/math op in the region being
// built; checked on the score and mask regions of small attentions.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtil.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::frontend;
using namespace metaattn::frontend::test;

namespace {

using Names = std::vector<std::string>;

/// The ops of the score region for `fn` (empty with a test failure if the build failed).
Names scoreOps(AttentionBuilder::ScoreFn fn) {
  MLIRContext ctx;
  std::string error;
  AttentionBuilder builder;
  builder.heads(2, 2).headDims(16, 16).scoreFn(std::move(fn));
  auto module = builder.build(ctx, "f", error);
  EXPECT_TRUE(succeeded(module)) << error;
  if (failed(module))
    return {};
  return opNames(findAttention(**module).getScore());
}

/// The ops of the mask region for `fn`.
Names maskOps(AttentionBuilder::MaskFn fn) {
  MLIRContext ctx;
  std::string error;
  AttentionBuilder builder;
  builder.heads(2, 2).headDims(16, 16).mask(std::move(fn));
  auto module = builder.build(ctx, "f", error);
  EXPECT_TRUE(succeeded(module)) << error;
  if (failed(module))
    return {};
  return opNames(findAttention(**module).getMask());
}

TEST(SymTest, FloatArithmetic) {
  EXPECT_EQ(
      scoreOps([](Sym s, const Indices &) { return -(s + s) * s / s - s; }),
      (Names{"arith.addf", "arith.negf", "arith.mulf", "arith.divf", "arith.subf", "attn.yield"}));
  EXPECT_EQ(scoreOps([](Sym s, const Indices &) { return 2 * s; }),
            (Names{"arith.constant", "arith.mulf", "attn.yield"}));
}

TEST(SymTest, FloatFunctions) {
  // Named steps: C++ leaves the evaluation order of function arguments unspecified.
  EXPECT_EQ(scoreOps([](Sym s, const Indices &) {
              Sym a = exp2(log(exp(s)));
              Sym b = abs(tanh(s));
              Sym m = min(a, b);
              Sym r = sqrt(s);
              return max(m, r);
            }),
            (Names{"math.exp", "math.log", "math.exp2", "math.tanh", "math.absf", "arith.minimumf",
                   "math.sqrt", "arith.maximumf", "attn.yield"}));
  // sigmoid(x) = 1 / (1 + exp(-x)).
  EXPECT_EQ(scoreOps([](Sym s, const Indices &) { return sigmoid(s); }),
            (Names{"arith.negf", "math.exp", "arith.constant", "arith.addf", "arith.constant",
                   "arith.divf", "attn.yield"}));
}

TEST(SymTest, SelectAndFloatComparisons) {
  EXPECT_EQ(
      scoreOps([](Sym s, const Indices &) { return select(s < 0.0, 0.0, s); }),
      (Names{"arith.constant", "arith.cmpf", "arith.constant", "arith.select", "attn.yield"}));
}

TEST(SymTest, IndexArithmeticAndToFloat) {
  EXPECT_EQ(scoreOps([](Sym s, const Indices &i) {
              return s + toFloat((i.q - i.kv) * 2 / i.sq % i.skv);
            }),
            (Names{"arith.subi", "arith.constant", "arith.muli", "arith.divsi", "arith.remsi",
                   "arith.index_cast", "arith.sitofp", "arith.addf", "attn.yield"}));
}

TEST(SymTest, IndexComparisonsAndLogic) {
  MLIRContext ctx;
  std::string error;
  AttentionBuilder builder;
  builder.heads(1, 1).headDims(16, 16).mask([](const Indices &i) {
    Sym inWindow = i.q - i.kv < 64;
    return !(i.kv > i.q) && (inWindow || i.kv == 0);
  });
  auto module = builder.build(ctx, "f", error);
  ASSERT_TRUE(succeeded(module)) << error;
  std::vector<arith::CmpIPredicate> preds;
  int logic = 0;
  for (Operation &op : findAttention(**module).getMask().front()) {
    if (auto cmp = dyn_cast<arith::CmpIOp>(op))
      preds.push_back(cmp.getPredicate());
    logic += isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op);
  }
  ASSERT_EQ(preds.size(), 3u);
  std::sort(preds.begin(), preds.end());
  EXPECT_EQ(preds,
            (std::vector<arith::CmpIPredicate>{arith::CmpIPredicate::eq, arith::CmpIPredicate::slt,
                                               arith::CmpIPredicate::sgt}));
  EXPECT_EQ(logic, 3); // xori (not), ori, andi
  EXPECT_EQ(parseAndVerify(print(**module)), "");
}

TEST(SymTest, AllComparisonPredicates) {
  Names ops = maskOps([](const Indices &i) {
    return (i.q < i.kv) == (i.q <= i.kv) && (i.q > i.kv) != (i.q >= i.kv);
  });
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "arith.cmpi"), 6);
}

TEST(SymTest, IndexMinMaxAbs) {
  EXPECT_EQ(maskOps([](const Indices &i) {
              Sym hi = max(i.q, i.kv);
              Sym lo = min(i.q, 3);
              Sym d = hi - lo;
              return d <= abs(i.sq);
            }),
            (Names{"arith.maxsi", "arith.constant", "arith.minsi", "arith.subi", "arith.constant",
                   "arith.subi", "arith.maxsi", "arith.cmpi", "attn.yield"}));
}

TEST(SymTest, OutsideARegionIsInert) {
  // No region is being built: operations return invalid Syms and do nothing.
  Sym a;
  Sym b = exp(a) + 1.0;
  EXPECT_FALSE(b.isValid());
  EXPECT_EQ(b.kind(), Sym::Kind::Invalid);
  EXPECT_FALSE(constF32(1.0).isValid());
}

} // namespace
