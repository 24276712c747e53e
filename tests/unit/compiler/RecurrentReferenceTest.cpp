//===- RecurrentReferenceTest.cpp - the token-by-token linear-attention oracle -===//
//
// evaluateRecurrent against independent computations (f32 results, so to 1e-5): ungated
// linear attention is causal attention with the identity normaliser; a per-head decay by hand
// on a 1x1 state; a run split in two through the initial and final states equals one run; bad
// operands give errors.
//
//===----------------------------------------------------------------------===//

#include "TestIR.h"

#include "metaattn/Reference/Reference.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace metaattn;
using namespace metaattn::test;

namespace {

const char *kLinear = R"(
func.func @f(%q: tensor<?x?x2x16xf32>, %k: tensor<?x?x2x16xf32>, %v: tensor<?x?x2x8xf32>)
    -> tensor<?x?x2x8xf32> {
  %o = attn.recurrent %q, %k, %v {gate_kind = #attn<gate none>}
    : tensor<?x?x2x16xf32>, tensor<?x?x2x16xf32>, tensor<?x?x2x8xf32> -> tensor<?x?x2x8xf32>
  return %o : tensor<?x?x2x8xf32>
})";

const char *kCausalIdentity = R"(
func.func @f(%q: tensor<?x?x2x16xf32>, %k: tensor<?x?x2x16xf32>, %v: tensor<?x?x2x8xf32>)
    -> tensor<?x?x2x8xf32> {
  %o = attn.attention %q, %k, %v score {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      attn.yield %s : f32
    } mask {
    ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %m = arith.cmpi sle, %ki, %qi : index
      attn.yield %m : i1
    } normalizer {
    ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
      %one = arith.constant 1.0 : f32
      attn.normalize %s, %one : f32, f32
    } : tensor<?x?x2x16xf32>, tensor<?x?x2x16xf32>, tensor<?x?x2x8xf32> -> tensor<?x?x2x8xf32>
  return %o : tensor<?x?x2x8xf32>
})";

const char *kStates = R"(
func.func @f(%q: tensor<?x?x1x4xf32>, %k: tensor<?x?x1x4xf32>, %v: tensor<?x?x2x3xf32>,
             %g: tensor<?x?x2xf32>, %s0: tensor<?x2x4x3xf32>)
    -> (tensor<?x?x2x3xf32>, tensor<?x2x4x3xf32>) {
  %o, %s = attn.recurrent %q, %k, %v gate(%g : tensor<?x?x2xf32>)
      initial_state(%s0 : tensor<?x2x4x3xf32>) {gate_kind = #attn<gate token>}
    : tensor<?x?x1x4xf32>, tensor<?x?x1x4xf32>, tensor<?x?x2x3xf32>
      -> tensor<?x?x2x3xf32>, tensor<?x2x4x3xf32>
  return %o, %s : tensor<?x?x2x3xf32>, tensor<?x2x4x3xf32>
})";

TEST(RecurrentReferenceTest, UngatedIsCausalIdentityAttention) {
  auto ctx = makeContext();
  auto rec = parseModule(*ctx, kLinear);
  auto par = parseModule(*ctx, kCausalIdentity);
  ASSERT_TRUE(rec && par);
  HostTensor q = HostTensor::random({2, 9, 2, 16}, DType::f32, 1, -1, 1);
  HostTensor k = HostTensor::random({2, 9, 2, 16}, DType::f32, 2, -1, 1);
  HostTensor v = HostTensor::random({2, 9, 2, 8}, DType::f32, 3, -1, 1);
  HostTensor a, b;
  std::string error;
  ASSERT_TRUE(succeeded(
      evaluateRecurrent(findFirst<attn::RecurrentOp>(*rec), {&q, &k, &v}, a, nullptr, error)))
      << error;
  ASSERT_TRUE(succeeded(
      evaluateAttention(findFirst<attn::AttentionOp>(*par), {&q, &k, &v}, b, nullptr, error)))
      << error;
  EXPECT_LT(maxToleranceRatio(a, b, 1e-5, 1e-5), 1.0);
}

TEST(RecurrentReferenceTest, HeadDecayByHand) {
  auto ctx = makeContext();
  auto module = parseModule(*ctx, R"(
func.func @f(%q: tensor<?x?x1x1xf32>, %k: tensor<?x?x1x1xf32>, %v: tensor<?x?x1x1xf32>,
             %g: tensor<1xf32>) -> tensor<?x?x1x1xf32> {
  %o = attn.recurrent %q, %k, %v gate(%g : tensor<1xf32>) {gate_kind = #attn<gate head>}
    : tensor<?x?x1x1xf32>, tensor<?x?x1x1xf32>, tensor<?x?x1x1xf32> -> tensor<?x?x1x1xf32>
  return %o : tensor<?x?x1x1xf32>
})");
  ASSERT_TRUE(module);
  HostTensor q = HostTensor::random({1, 6, 1, 1}, DType::f32, 4, -1, 1);
  HostTensor k = HostTensor::random({1, 6, 1, 1}, DType::f32, 5, -1, 1);
  HostTensor v = HostTensor::random({1, 6, 1, 1}, DType::f32, 6, -1, 1);
  HostTensor g = HostTensor::zeros({1}, DType::f32);
  double gamma = 0.75;
  g.set({0}, std::log(gamma));
  HostTensor o;
  std::string error;
  ASSERT_TRUE(succeeded(evaluateRecurrent(findFirst<attn::RecurrentOp>(*module), {&q, &k, &v, &g},
                                          o, nullptr, error)))
      << error;
  for (int64_t t = 0; t < 6; ++t) {
    double expected = 0;
    for (int64_t s = 0; s <= t; ++s)
      expected += std::pow(gamma, double(t - s)) * k.get({0, s, 0, 0}) * v.get({0, s, 0, 0});
    expected *= q.get({0, t, 0, 0});
    EXPECT_NEAR(o.get({0, t, 0, 0}), expected, 1e-6) << "t = " << t;
  }
}

TEST(RecurrentReferenceTest, SplitRunThroughStatesEqualsOneRun) {
  auto ctx = makeContext();
  auto module = parseModule(*ctx, kStates);
  ASSERT_TRUE(module);
  auto op = findFirst<attn::RecurrentOp>(*module);
  HostTensor q = HostTensor::random({2, 10, 1, 4}, DType::f32, 7, -1, 1);
  HostTensor k = HostTensor::random({2, 10, 1, 4}, DType::f32, 8, -1, 1);
  HostTensor v = HostTensor::random({2, 10, 2, 3}, DType::f32, 9, -1, 1);
  HostTensor g = HostTensor::random({2, 10, 2}, DType::f32, 10, -0.5, 0);
  HostTensor s0 = HostTensor::random({2, 2, 4, 3}, DType::f32, 11, -1, 1);
  auto slice = [](const HostTensor &t, int64_t from, int64_t len) {
    std::vector<int64_t> sizes = t.sizes;
    sizes[1] = len;
    HostTensor out = HostTensor::zeros(sizes, t.dtype);
    std::vector<int64_t> idx(sizes.size(), 0);
    for (int64_t e = 0; e < out.getNumElements(); ++e) {
      std::vector<int64_t> src = idx;
      src[1] += from;
      out.set(idx, t.get(src));
      for (int d = int(idx.size()) - 1; d >= 0 && ++idx[d] == sizes[d]; --d)
        idx[d] = 0;
    }
    return out;
  };
  std::string error;
  HostTensor whole, wholeState;
  ASSERT_TRUE(succeeded(evaluateRecurrent(op, {&q, &k, &v, &g, &s0}, whole, &wholeState, error)))
      << error;
  HostTensor q1 = slice(q, 0, 6), k1 = slice(k, 0, 6), v1 = slice(v, 0, 6), g1 = slice(g, 0, 6);
  HostTensor q2 = slice(q, 6, 4), k2 = slice(k, 6, 4), v2 = slice(v, 6, 4), g2 = slice(g, 6, 4);
  HostTensor o1, mid, o2, last;
  ASSERT_TRUE(succeeded(evaluateRecurrent(op, {&q1, &k1, &v1, &g1, &s0}, o1, &mid, error)));
  ASSERT_TRUE(succeeded(evaluateRecurrent(op, {&q2, &k2, &v2, &g2, &mid}, o2, &last, error)));
  EXPECT_LT(maxToleranceRatio(last, wholeState, 1e-5, 1e-5), 1.0);
  EXPECT_LT(maxToleranceRatio(o2, slice(whole, 6, 4), 1e-5, 1e-5), 1.0);
  EXPECT_LT(maxToleranceRatio(o1, slice(whole, 0, 6), 1e-5, 1e-5), 1.0);
}

TEST(RecurrentReferenceTest, BadOperandsAreErrors) {
  auto ctx = makeContext();
  auto module = parseModule(*ctx, kStates);
  ASSERT_TRUE(module);
  auto op = findFirst<attn::RecurrentOp>(*module);
  HostTensor q = HostTensor::random({1, 5, 1, 4}, DType::f32, 1, -1, 1);
  HostTensor v = HostTensor::random({1, 5, 2, 3}, DType::f32, 2, -1, 1);
  HostTensor gWrong = HostTensor::random({1, 5, 3}, DType::f32, 3, -1, 0);
  HostTensor s0 = HostTensor::random({1, 2, 4, 3}, DType::f32, 4, -1, 1);
  HostTensor o, s;
  std::string error;
  EXPECT_TRUE(failed(evaluateRecurrent(op, {&q, &q, &v, &gWrong, &s0}, o, &s, error)));
  EXPECT_NE(error.find("gate has sizes [1,5,3]"), std::string::npos) << error;
  EXPECT_TRUE(failed(evaluateRecurrent(op, {&q, &q, &v}, o, &s, error)));
  EXPECT_NE(error.find("expected 5 operands"), std::string::npos) << error;
  HostTensor sWrong = HostTensor::random({1, 2, 4, 4}, DType::f32, 5, -1, 1);
  HostTensor g = HostTensor::random({1, 5, 2}, DType::f32, 3, -1, 0);
  EXPECT_TRUE(failed(evaluateRecurrent(op, {&q, &q, &v, &g, &sWrong}, o, &s, error)));
  EXPECT_NE(error.find("initial state has sizes"), std::string::npos) << error;
}

} // namespace
