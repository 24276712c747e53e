//===- ExecutorVsOracleTest.cpp - the whole lowering against the oracle ------===//
//
// Lowers attn IR through the full pipeline, runs the tile kernel on the CPU tile executor and
// compares it with the reference evaluator on random inputs of awkward sizes (Sq = 77,
// Skv = 130, batch 3: not multiples of any tile).
//
//===----------------------------------------------------------------------===//

#include "AttentionIR.h"

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "metaattn/Executor/TileExecutor.h"
#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Reference/Reference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace metaattn;
using metaattn::irtext::shape;
using metaattn::irtext::SoftmaxShape;

namespace {

struct Case {
  const char *label;
  SoftmaxShape shape;
  int64_t batch, seqQ, seqKv;
};

/// Largest |a - b| / (atol + rtol·|b|) over all elements (inf when infinities differ).
double worstRatio(const HostTensor &got, const HostTensor &ref, double atol, double rtol) {
  double worst = 0;
  std::vector<int64_t> idx(ref.sizes.size(), 0);
  for (int64_t e = 0; e < ref.getNumElements(); ++e) {
    double x = got.get(idx), y = ref.get(idx);
    if (std::isinf(y))
      worst = std::max(worst, x == y ? 0.0 : INFINITY);
    else if (!std::isfinite(x))
      worst = INFINITY;
    else
      worst = std::max(worst, std::fabs(x - y) / (atol + rtol * std::fabs(y)));
    for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
      if (++idx[d] < ref.sizes[d])
        break;
      idx[d] = 0;
    }
  }
  return worst;
}

/// Keeps ctest's log readable: the case's label instead of its bytes.
void PrintTo(const Case &c, std::ostream *os) { *os << c.label; }

class ExecutorVsOracle : public ::testing::TestWithParam<Case> {};

TEST_P(ExecutorVsOracle, LoweredKernelMatchesReference) {
  const Case &c = GetParam();
  mlir::DialectRegistry registry;
  registerMetaAttnDialects(registry);
  mlir::MLIRContext ctx(registry);
  std::string ir = irtext::softmaxIR(c.shape);
  auto original = mlir::parseSourceString<mlir::ModuleOp>(ir, &ctx);
  ASSERT_TRUE(original);
  auto lowered = mlir::parseSourceString<mlir::ModuleOp>(ir, &ctx);
  ASSERT_TRUE(lowered);
  auto cuda = lowerToCuda(*lowered, {});
  ASSERT_TRUE(cuda.ok()) << cuda.status().message();

  attn::AttentionOp op;
  original->walk([&](attn::AttentionOp a) { op = a; });
  ASSERT_TRUE(op);
  DType dtype = c.shape.dtype == "bf16" ? DType::bf16 : DType::f16;
  const SoftmaxShape &s = c.shape;
  HostTensor q = HostTensor::random({c.batch, c.seqQ, s.heads, s.dim}, dtype, 1);
  HostTensor k = HostTensor::random({c.batch, c.seqKv, s.kvHeads, s.dim}, dtype, 2);
  HostTensor v = HostTensor::random({c.batch, c.seqKv, s.kvHeads, s.valueDim}, dtype, 3);
  HostTensor refOut = HostTensor::zeros({c.batch, c.seqQ, s.heads, s.valueDim}, DType::f32);
  HostTensor refLse;
  std::string error;
  ASSERT_TRUE(mlir::succeeded(evaluateAttention(op, {&q, &k, &v}, refOut, &refLse, error)))
      << error;

  HostTensor out = HostTensor::zeros({c.batch, c.seqQ, s.heads, s.valueDim}, dtype);
  HostTensor lse = HostTensor::zeros({c.batch, s.heads, c.seqQ}, DType::f32);
  tile::KernelOp kernel = *lowered->getOps<tile::KernelOp>().begin();
  ASSERT_TRUE(mlir::succeeded(executeKernel(kernel, {&q, &k, &v, &out, &lse}, error))) << error;

  // bf16 output rounding alone is up to 2^-9 relative; P is rounded to bf16 before P·V.
  double tol = dtype == DType::bf16 ? 8e-3 : 2e-3;
  EXPECT_LT(worstRatio(out, refOut, tol, tol), 1.0) << "output differs from the oracle";
  EXPECT_LT(worstRatio(lse, refLse, 2e-3, 1e-3), 1.0) << "log-sum-exp differs from the oracle";
}

INSTANTIATE_TEST_SUITE_P(
    Softmax, ExecutorVsOracle,
    ::testing::Values(Case{"d64", shape(2, 2, 64, 64, false), 3, 77, 130},
                      Case{"d64_causal", shape(2, 2, 64, 64, true), 3, 77, 130},
                      Case{"d128", shape(2, 2, 128, 128, false), 3, 77, 130},
                      Case{"d128_causal", shape(2, 2, 128, 128, true), 3, 77, 130},
                      Case{"d192_dv128_causal", shape(2, 2, 192, 128, true), 3, 77, 130},
                      Case{"gqa4_causal", shape(8, 2, 64, 64, true), 3, 77, 130},
                      Case{"causal_sq_gt_skv", shape(2, 1, 64, 64, true), 2, 130, 77},
                      Case{"odd_d72_dv40", shape(3, 1, 72, 40, true), 2, 65, 97},
                      Case{"length_one", shape(2, 2, 64, 64, true), 1, 1, 1},
                      Case{"f16_causal", shape(2, 2, 64, 64, true, "f16"), 2, 77, 130}),
    [](const ::testing::TestParamInfo<Case> &info) { return std::string(info.param.label); });

} // namespace
