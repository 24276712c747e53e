//===- RecurrentBuilderTest.cpp - RecurrentBuilder and the linear factories ===//
#include "metaattn/Frontend/LinearVariants.h"

#include "metaattn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace metaattn::frontend;

namespace {

std::string buildError(const RecurrentBuilder &r) {
  MLIRContext ctx;
  std::string error;
  auto module = r.build(ctx, "f", error);
  return failed(module) ? error : "";
}

TEST(RecurrentBuilderTest, FactoriesBuildVerifiedOps) {
  LinearOptions o;
  o.numHeads = 4;
  o.numQkHeads = 2;
  o.keyDim = 32;
  o.valueDim = 48;
  o.initialState = o.finalState = true;
  for (RecurrentBuilder r :
       {linearAttention(o), retnet(o), gatedRetention(o), gla(o), mamba2Ssd(o)}) {
    MLIRContext ctx;
    std::string error;
    auto module = r.build(ctx, "f", error);
    ASSERT_TRUE(succeeded(module)) << error;
    metaattn::attn::RecurrentOp op;
    (*module)->walk([&](metaattn::attn::RecurrentOp found) { op = found; });
    ASSERT_TRUE(op);
    EXPECT_TRUE(op.getInitialState() && op.getFinalState());
  }
}

TEST(RecurrentBuilderTest, Mamba2HasItsModifiersAndInputs) {
  LinearOptions o;
  o.numHeads = 3;
  o.numQkHeads = 1;
  MLIRContext ctx;
  std::string error;
  auto module = mamba2Ssd(o).build(ctx, "m", error);
  ASSERT_TRUE(succeeded(module)) << error;
  metaattn::attn::RecurrentOp op;
  (*module)->walk([&](metaattn::attn::RecurrentOp found) { op = found; });
  EXPECT_EQ(op.getGateKind(), metaattn::attn::GateKind::token);
  EXPECT_FALSE(op.getVMod().empty());
  EXPECT_FALSE(op.getGateMod().empty());
  EXPECT_TRUE(op.getQMod().empty()); // Mamba2 does not scale C
  EXPECT_EQ(op.getInputs().size(), 2u);
}

TEST(RecurrentBuilderTest, BadDescriptionsAreErrors) {
  RecurrentBuilder heads;
  heads.heads(6, 4);
  EXPECT_NE(buildError(heads).find("must be a multiple of q/k heads"), std::string::npos);

  RecurrentBuilder noGate;
  noGate.gateMod([](Sym x, const RecurrentIndices &) { return x; });
  EXPECT_NE(buildError(noGate).find("a gate modifier needs a gate"), std::string::npos);

  RecurrentBuilder boolMod;
  boolMod.qMod([](Sym x, const RecurrentIndices &) { return x > 0.0; });
  EXPECT_NE(buildError(boolMod).find("q_mod modifier must return an f32 value"), std::string::npos);

  RecurrentBuilder order;
  order.addInput("x", DType::F32, {TimeDim::H, TimeDim::B});
  EXPECT_NE(buildError(order).find("ordered subset of {B, T, H, D}"), std::string::npos);

  RecurrentBuilder dims;
  dims.headDims(0, 8);
  EXPECT_NE(buildError(dims).find("key dim Dk must be positive"), std::string::npos);
}

TEST(RecurrentBuilderTest, ModifierReadsAnInputOfAnotherBuilderIsAnError) {
  RecurrentBuilder other;
  Input foreign = other.addInput("y", DType::F32, {TimeDim::H});
  RecurrentBuilder r;
  r.qMod([foreign](Sym x, const RecurrentIndices &i) { return x * i.inputs[foreign]; });
  EXPECT_FALSE(buildError(r).empty());
}

} // namespace
