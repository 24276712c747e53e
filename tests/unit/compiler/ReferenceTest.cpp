//===- ReferenceTest.cpp - The reference evaluator against naive loops -------===//
//
// Each test parses an attn.attention from a string, evaluates it with the reference
// evaluator, and compares with an independent naive implementation written here.
//
//===----------------------------------------------------------------------===//

#include "TestIR.h"

#include "metaattn/Reference/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace metaattn;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Shapes and options of one attention problem.
struct Config {
  int64_t batch = 2, seqQ = 5, seqKv = 7, heads = 2, kvHeads = 2, dim = 16, valueDim = 16;
  bool causal = false;
  std::string elt = "bf16";
};

const char *kSoftmax = R"(
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32)";

const char *kCausalMask = R"(
      %off = arith.subi %skv, %sq : index
      %lim = arith.addi %qi, %off : index
      %m = arith.cmpi sle, %ki, %lim : index
      attn.yield %m : i1)";

const char *kNoMask = R"(
      %t = arith.constant true
      attn.yield %t : i1)";

const char *kScaleScore = R"(
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32)";

/// An attn.attention in a func, with the given region bodies. `inputs` is the text after
/// `inputs(` (empty: none), `extraArgs` the matching block arguments.
std::string attentionIR(const Config &c, const std::string &score, const std::string &mask,
                        const std::string &normalizer, const std::string &inputs = "",
                        const std::string &inputTypes = "", const std::string &extraArgs = "",
                        const std::string &inputDims = "") {
  auto t4 = [&](int64_t h, int64_t d) {
    return "tensor<?x?x" + std::to_string(h) + "x" + std::to_string(d) + "x" + c.elt + ">";
  };
  std::string q = t4(c.heads, c.dim), k = t4(c.kvHeads, c.dim), v = t4(c.kvHeads, c.valueDim);
  std::string o = t4(c.heads, c.valueDim);
  std::string lse = "tensor<?x" + std::to_string(c.heads) + "x?xf32>";
  std::string idx = "%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index";
  std::string fnInputs = inputs.empty() ? "" : ", %in0: " + inputTypes;
  std::string opInputs = inputs.empty() ? "" : " inputs(" + inputs + " : " + inputTypes + ")";
  std::string attrs = inputDims.empty() ? "" : " {input_dims = [\"" + inputDims + "\"]}";
  return "func.func @attn(%q: " + q + ", %k: " + k + ", %v: " + v + fnInputs + ") -> (" + o + ", " +
         lse + ") {\n  %o, %lse = attn.attention %q, %k, %v" + opInputs +
         "\n    score {\n    ^bb0(%s: f32, " + idx + extraArgs + "):" + score +
         "\n    } mask {\n    ^bb0(" + idx + extraArgs + "):" + mask +
         "\n    } normalizer {\n    ^bb0(%s: f32, " + idx + extraArgs + "):" + normalizer +
         "\n    }" + attrs + " : " + q + ", " + k + ", " + v + " -> " + o + ", " + lse +
         "\n  return %o, %lse : " + o + ", " + lse + "\n}\n";
}

/// The inputs of one problem.
struct Problem {
  HostTensor q, k, v;
  explicit Problem(const Config &c, DType dtype = DType::bf16, uint64_t seed = 1) {
    q = HostTensor::random({c.batch, c.seqQ, c.heads, c.dim}, dtype, seed, -2, 2);
    k = HostTensor::random({c.batch, c.seqKv, c.kvHeads, c.dim}, dtype, seed + 1, -2, 2);
    v = HostTensor::random({c.batch, c.seqKv, c.kvHeads, c.valueDim}, dtype, seed + 2, -1, 1);
  }
};

/// Independent naive attention: score `scale·q·k + bias(h)`, optional bottom-right causal
/// mask, then `kind` 0: softmax, 1: sigmoid weights with denominator 1, 2: RetNet
/// `s / max(Σ|s|, 1)`. Output [B,Sq,H,Dv] f32 and lse [B,H,Sq].
void naiveAttention(const Config &c, const Problem &p, int kind, HostTensor &o, HostTensor &lse,
                    const std::vector<double> &bias = {}) {
  o = HostTensor::zeros({c.batch, c.seqQ, c.heads, c.valueDim}, DType::f32);
  lse = HostTensor::zeros({c.batch, c.heads, c.seqQ}, DType::f32);
  int64_t group = c.heads / c.kvHeads;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < c.seqQ; ++i) {
        std::vector<double> s(c.seqKv);
        std::vector<bool> keep(c.seqKv);
        double mx = -kInf;
        for (int64_t j = 0; j < c.seqKv; ++j) {
          keep[j] = !c.causal || j <= i + c.seqKv - c.seqQ;
          double dot = 0;
          for (int64_t d = 0; d < c.dim; ++d)
            dot += p.q.get({b, i, h, d}) * p.k.get({b, j, h / group, d});
          s[j] = 0.125 * dot + (bias.empty() ? 0.0 : bias[h]);
          if (keep[j])
            mx = std::max(mx, s[j]);
        }
        std::vector<double> w(c.seqKv, 0.0);
        double z = 0;
        for (int64_t j = 0; j < c.seqKv; ++j) {
          if (!keep[j])
            continue;
          w[j] = kind == 0 ? std::exp(s[j] - mx) : kind == 1 ? 1 / (1 + std::exp(-s[j])) : s[j];
          z += kind == 2 ? std::fabs(s[j]) : w[j];
        }
        if (kind == 1)
          z = 1;
        if (kind == 2)
          z = std::max(z, 1.0);
        if (mx == -kInf) { // every entry masked
          lse.set({b, h, i}, -kInf);
          continue;
        }
        lse.set({b, h, i}, kind == 0 ? mx + std::log(z) : std::log(z));
        for (int64_t d = 0; d < c.valueDim; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < c.seqKv; ++j)
            if (keep[j])
              acc += w[j] * p.v.get({b, j, h / group, d});
          o.set({b, i, h, d}, acc / z);
        }
      }
}

class ReferenceTest : public ::testing::Test {
protected:
  void SetUp() override { ctx = test::makeContext(); }

  /// Parses `ir` and evaluates its attention with f32 results.
  std::string evaluate(const std::string &ir, ArrayRef<const HostTensor *> operands, HostTensor &o,
                       HostTensor &lse, bool f32Output = true) {
    module = test::parseModule(*ctx, ir);
    if (!module)
      return "parse error";
    auto op = test::findFirst<attn::AttentionOp>(*module);
    if (!op)
      return "no attn.attention";
    o = HostTensor();
    if (f32Output && operands.size() >= 3)
      o = HostTensor::zeros({operands[0]->sizes[0], operands[0]->sizes[1], operands[0]->sizes[2],
                             operands[2]->sizes[3]},
                            DType::f32);
    lse = HostTensor();
    std::string error;
    if (failed(evaluateAttention(op, operands, o, &lse, error)))
      return error.empty() ? "failed without a message" : error;
    return "";
  }

  /// Runs the reference and the naive implementation and compares them.
  void checkAgainstNaive(const Config &c, const std::string &ir, int kind,
                         const std::vector<double> &bias = {}, const HostTensor *extra = nullptr) {
    Problem p(c);
    HostTensor o, lse, eo, expLse;
    std::vector<const HostTensor *> operands = {&p.q, &p.k, &p.v};
    if (extra)
      operands.push_back(extra);
    ASSERT_EQ(evaluate(ir, operands, o, lse), "");
    naiveAttention(c, p, kind, eo, expLse, bias);
    EXPECT_LT(test::maxToleranceRatio(o, eo, 1e-6, 1e-6), 1.0);
    EXPECT_LT(test::maxToleranceRatio(lse, expLse, 1e-6, 1e-6), 1.0);
  }

  std::unique_ptr<MLIRContext> ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ReferenceTest, NonCausalSoftmax) {
  Config c;
  checkAgainstNaive(c, attentionIR(c, kScaleScore, kNoMask, kSoftmax), 0);
}

TEST_F(ReferenceTest, CausalBottomRight) {
  Config c;
  c.seqQ = 9;
  c.seqKv = 13;
  c.causal = true;
  checkAgainstNaive(c, attentionIR(c, kScaleScore, kCausalMask, kSoftmax), 0);
}

TEST_F(ReferenceTest, GroupedQueryAttentionWithWideHeads) {
  Config c;
  c.batch = 1;
  c.seqQ = 6;
  c.seqKv = 11;
  c.heads = 8;
  c.kvHeads = 2;
  c.dim = 192;
  c.valueDim = 128;
  c.causal = true;
  checkAgainstNaive(c, attentionIR(c, kScaleScore, kCausalMask, kSoftmax), 0);
}

TEST_F(ReferenceTest, FullyMaskedRows) {
  Config c;
  c.seqQ = 13;
  c.seqKv = 9; // rows q < 4 keep nothing
  c.causal = true;
  Problem p(c);
  HostTensor o, lse, eo, expLse;
  ASSERT_EQ(
      evaluate(attentionIR(c, kScaleScore, kCausalMask, kSoftmax), {&p.q, &p.k, &p.v}, o, lse), "");
  for (int64_t d = 0; d < c.valueDim; ++d)
    EXPECT_EQ(o.get({1, 2, 1, d}), 0.0);
  EXPECT_EQ(lse.get({1, 1, 3}), -kInf);
  EXPECT_NE(lse.get({1, 1, 4}), -kInf);
  naiveAttention(c, p, 0, eo, expLse);
  EXPECT_LT(test::maxToleranceRatio(o, eo, 1e-6, 1e-6), 1.0);
  EXPECT_LT(test::maxToleranceRatio(lse, expLse, 1e-6, 1e-6), 1.0);
}

TEST_F(ReferenceTest, SigmoidNormalizer) {
  Config c;
  c.causal = true;
  c.seqQ = 7;
  const char *sigmoid = R"(
      %one = arith.constant 1.0 : f32
      %n = arith.negf %s : f32
      %e = math.exp %n : f32
      %d = arith.addf %one, %e : f32
      %w = arith.divf %one, %d : f32
      attn.normalize %w, %one : f32, f32)";
  checkAgainstNaive(c, attentionIR(c, kScaleScore, kCausalMask, sigmoid), 1);
}

TEST_F(ReferenceTest, RetNetNormalizer) {
  Config c;
  const char *retnet = R"(
      %one = arith.constant 1.0 : f32
      %a = attn.row_reduce abs_sum %s : f32
      %z = arith.maximumf %a, %one : f32
      attn.normalize %s, %z : f32, f32)";
  checkAgainstNaive(c, attentionIR(c, kScaleScore, kNoMask, retnet), 2);
}

TEST_F(ReferenceTest, PerHeadBiasInput) {
  Config c;
  c.heads = 4;
  c.kvHeads = 1;
  const char *score = R"(
      %c = arith.constant 0.125 : f32
      %r = arith.mulf %s, %c : f32
      %t = arith.addf %r, %bias : f32
      attn.yield %t : f32)";
  HostTensor bias = HostTensor::zeros({4}, DType::f32);
  std::vector<double> values = {0.5, -1.0, 2.0, 0.25};
  for (int64_t h = 0; h < 4; ++h)
    bias.set({h}, values[h]);
  checkAgainstNaive(
      c, attentionIR(c, score, kNoMask, kSoftmax, "%in0", "tensor<4xf32>", ", %bias: f32", "h"), 0,
      values, &bias);
}

TEST_F(ReferenceTest, DefaultOutputRoundsToElementType) {
  Config c;
  Problem p(c);
  std::string ir = attentionIR(c, kScaleScore, kNoMask, kSoftmax);
  HostTensor o32, o16, lse;
  ASSERT_EQ(evaluate(ir, {&p.q, &p.k, &p.v}, o32, lse), "");
  ASSERT_EQ(evaluate(ir, {&p.q, &p.k, &p.v}, o16, lse, /*f32Output=*/false), "");
  EXPECT_EQ(o16.dtype, DType::bf16);
  EXPECT_EQ(o16.get({1, 4, 1, 15}), roundToBF16(o32.get({1, 4, 1, 15})));
}

TEST_F(ReferenceTest, StridedOperands) {
  Config c;
  Problem p(c);
  // q stored as [B, H, S, D], passed as a [B, S, H, D] view.
  HostTensor qStorage = HostTensor::zeros({c.batch, c.heads, c.seqQ, c.dim}, DType::bf16);
  HostTensor qView = qStorage.permuted({0, 2, 1, 3});
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t s = 0; s < c.seqQ; ++s)
      for (int64_t h = 0; h < c.heads; ++h)
        for (int64_t d = 0; d < c.dim; ++d)
          qView.set({b, s, h, d}, p.q.get({b, s, h, d}));
  std::string ir = attentionIR(c, kScaleScore, kNoMask, kSoftmax);
  HostTensor o1, o2, lse;
  ASSERT_EQ(evaluate(ir, {&p.q, &p.k, &p.v}, o1, lse), "");
  ASSERT_EQ(evaluate(ir, {&qView, &p.k, &p.v}, o2, lse), "");
  EXPECT_EQ(o1.storage, o2.storage);
}

TEST_F(ReferenceTest, OperandErrors) {
  Config c;
  Problem p(c);
  std::string ir = attentionIR(c, kScaleScore, kNoMask, kSoftmax);
  HostTensor o, lse;
  HostTensor kF16 = HostTensor::random({c.batch, c.seqKv, c.kvHeads, c.dim}, DType::f16, 3);
  std::string error = evaluate(ir, {&p.q, &kF16, &p.v}, o, lse);
  EXPECT_NE(error.find("k has dtype f16, expected bf16"), std::string::npos) << error;
  HostTensor q3 = HostTensor::random({c.batch, c.seqQ, c.heads + 1, c.dim}, DType::bf16, 3);
  error = evaluate(ir, {&q3, &p.k, &p.v}, o, lse);
  EXPECT_NE(error.find("q has sizes"), std::string::npos) << error;
  HostTensor vShort =
      HostTensor::random({c.batch, c.seqKv - 1, c.kvHeads, c.valueDim}, DType::bf16, 3);
  error = evaluate(ir, {&p.q, &p.k, &vShort}, o, lse);
  EXPECT_NE(error.find("v has sizes"), std::string::npos) << error;
  error = evaluate(ir, {&p.q, &p.k}, o, lse);
  EXPECT_NE(error.find("expected 3 operands"), std::string::npos) << error;
}

TEST_F(ReferenceTest, UnsupportedOpIsAnError) {
  Config c;
  Problem p(c);
  const char *score = R"(
      %r = math.atan %s : f32
      attn.yield %r : f32)";
  HostTensor o, lse;
  std::string error =
      evaluate(attentionIR(c, score, kNoMask, kSoftmax), {&p.q, &p.k, &p.v}, o, lse);
  EXPECT_NE(error.find("math.atan"), std::string::npos) << error;
}

} // namespace

namespace {

// attn.combine element by element, against values computed here: x0 - l[h]·x1 + q + 10·d,
// with a per-(batch, query block of 2) input selecting 0 or the value.
const char *kCombineIR = R"(
func.func @f(%x0: tensor<?x?x3x2xf32>, %x1: tensor<?x?x3x2xbf16>, %l: tensor<3xf32>,
             %on: tensor<?x?xi32>) -> tensor<?x?x3x2xf32> {
  %o = attn.combine %x0, %x1 inputs(%l, %on : tensor<3xf32>, tensor<?x?xi32>) {
  ^bb0(%a: f32, %c: f32, %b: index, %h: index, %q: index, %d: index, %lv: f32, %m: i32):
    %t = arith.mulf %lv, %c : f32
    %r = arith.subf %a, %t : f32
    %ten = arith.constant 10 : index
    %d10 = arith.muli %d, %ten : index
    %qd = arith.addi %q, %d10 : index
    %qi = arith.index_cast %qd : index to i64
    %qf = arith.sitofp %qi : i64 to f32
    %s = arith.addf %r, %qf : f32
    %zero = arith.constant 0 : i32
    %keep = arith.cmpi ne, %m, %zero : i32
    %z = arith.constant 0.0 : f32
    %y = arith.select %keep, %s, %z : f32
    attn.yield %y : f32
  } {input_dims = ["h", "b,q/2"]} : tensor<?x?x3x2xf32>, tensor<?x?x3x2xbf16> -> tensor<?x?x3x2xf32>
  return %o : tensor<?x?x3x2xf32>
})";

TEST(ReferenceCombineTest, ElementwiseWithInputs) {
  auto ctx = test::makeContext();
  auto module = test::parseModule(*ctx, kCombineIR);
  ASSERT_TRUE(module);
  auto op = test::findFirst<attn::CombineOp>(*module);
  ASSERT_TRUE(op);
  HostTensor x0 = HostTensor::random({2, 5, 3, 2}, DType::f32, 1, -1, 1);
  HostTensor x1 = HostTensor::random({2, 5, 3, 2}, DType::bf16, 2, -1, 1);
  HostTensor l = HostTensor::random({3}, DType::f32, 3, -1, 1);
  HostTensor on = HostTensor::random({2, 3}, DType::i32, 4, 0, 2); // ceil(5 / 2) blocks
  HostTensor out;
  std::string error;
  ASSERT_TRUE(succeeded(evaluateCombine(op, {&x0, &x1, &l, &on}, out, error))) << error;
  ASSERT_EQ(out.sizes, (std::vector<int64_t>{2, 5, 3, 2}));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t q = 0; q < 5; ++q)
      for (int64_t h = 0; h < 3; ++h)
        for (int64_t d = 0; d < 2; ++d) {
          double expected =
              on.get({b, q / 2}) != 0
                  ? x0.get({b, q, h, d}) - l.get({h}) * x1.get({b, q, h, d}) + double(q + 10 * d)
                  : 0.0;
          EXPECT_NEAR(out.get({b, q, h, d}), expected, 1e-5) << b << " " << q << " " << h;
        }
  // A block map of the wrong size is an error, not a read out of bounds.
  HostTensor wrong = HostTensor::zeros({2, 2}, DType::i32);
  EXPECT_TRUE(failed(evaluateCombine(op, {&x0, &x1, &l, &wrong}, out, error)));
  EXPECT_EQ(error, "attn.combine: custom input #1 has the wrong shape");
}

} // namespace
