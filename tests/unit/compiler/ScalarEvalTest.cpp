//===- ScalarEvalTest.cpp - Scalar arith and math evaluation -----------------===//

#include "TestIR.h"

#include "metaattn/Support/ScalarEval.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace metaattn;

namespace {

/// Parses `func.func @f(args) -> results { body }` and evaluates its body.
class ScalarEvalTest : public ::testing::Test {
protected:
  void SetUp() override { ctx = test::makeContext(); }

  /// Evaluates the function; returns the error text, or "" with `results` set.
  std::string eval(StringRef signature, StringRef body, ArrayRef<Scalar> args,
                   SmallVectorImpl<Scalar> &results,
                   FloatPrecision precision = FloatPrecision::Double) {
    std::string source = ("func.func @f" + signature + " {\n" + body + "\n}").str();
    module = test::parseModule(*ctx, source);
    if (!module)
      return "parse error";
    auto fn = test::findFirst<func::FuncOp>(*module);
    std::string error;
    if (failed(evaluateScalarBlock(fn.getBody().front(), args, results, precision, error)))
      return error.empty() ? "failed without a message" : error;
    return "";
  }

  std::unique_ptr<MLIRContext> ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ScalarEvalTest, FloatModeRoundsF32) {
  SmallVector<Scalar> r;
  double tiny = std::ldexp(1.0, -30);
  StringRef sig = "(%a: f32, %b: f32) -> f32";
  StringRef body = "%s = arith.addf %a, %b : f32\n return %s : f32";
  ASSERT_EQ(eval(sig, body, {Scalar::ofFloat(1), Scalar::ofFloat(tiny)}, r, FloatPrecision::Float),
            "");
  EXPECT_EQ(r[0].f, 1.0);
  ASSERT_EQ(eval(sig, body, {Scalar::ofFloat(1), Scalar::ofFloat(tiny)}, r), "");
  EXPECT_EQ(r[0].f, 1.0 + tiny);
}

// exp2Poly, the FMA-pipe 2^x: relative error at most 1.1e-4 over the exponents of softmax
// weights, exact at integers, 0 at -inf and below 2^-126 (flushed, as under -ftz).
TEST(Exp2PolyTest, RelativeErrorAndSpecials) {
  double worst = 0;
  for (int i = 0; i <= 100000; ++i) {
    float x = -126.0f + 126.4f * static_cast<float>(i) / 100000.0f;
    double want = std::exp2(static_cast<double>(x));
    worst = std::max(worst, std::fabs(exp2Poly(x) - want) / want);
  }
  EXPECT_LT(worst, 1.1e-4);
  EXPECT_GT(worst, 1e-5); // an approximation, not exp2 itself
  EXPECT_EQ(exp2Poly(0.0f), 1.0f);
  EXPECT_EQ(exp2Poly(-1.0f), 0.5f);
  EXPECT_EQ(exp2Poly(-20.0f), std::ldexp(1.0f, -20));
  EXPECT_EQ(exp2Poly(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(exp2Poly(-126.6f), 0.0f);
}

// A math.exp marked for exp2-emulation evaluates through exp2Poly in Float precision (the
// tile executor) and exactly in Double precision (the oracle).
TEST_F(ScalarEvalTest, MarkedExpUsesExp2PolyInFloatMode) {
  SmallVector<Scalar> r;
  StringRef sig = "(%a: f32) -> f32";
  StringRef body = "%e = math.exp %a {tile.exp2_emulation = 4 : i64} : f32\n return %e : f32";
  ASSERT_EQ(eval(sig, body, {Scalar::ofFloat(-0.3)}, r, FloatPrecision::Float), "");
  EXPECT_EQ(r[0].f, exp2Poly(static_cast<float>(-0.3f) * 1.4426950408889634f));
  EXPECT_NE(r[0].f, static_cast<double>(std::exp(-0.3f)));
  ASSERT_EQ(eval(sig, body, {Scalar::ofFloat(-0.3)}, r), "");
  EXPECT_DOUBLE_EQ(r[0].f, std::exp(-0.3));
}

TEST_F(ScalarEvalTest, TruncfRoundsToSixteenBits) {
  SmallVector<Scalar> r;
  StringRef body = "%t = arith.truncf %a : f32 to bf16\n %h = arith.truncf %a : f32 to f16\n"
                   "%e = arith.extf %t : bf16 to f32\n return %t, %h, %e : bf16, f16, f32";
  ASSERT_EQ(eval("(%a: f32) -> (bf16, f16, f32)", body, {Scalar::ofFloat(1.0 / 3)}, r), "");
  EXPECT_EQ(r[0].f, static_cast<double>(bf16ToFloat(floatToBF16(1.0f / 3))));
  EXPECT_EQ(r[1].f, static_cast<double>(f16ToFloat(floatToF16(1.0f / 3))));
  EXPECT_EQ(r[2].f, r[0].f);
}

TEST_F(ScalarEvalTest, FloatOps) {
  SmallVector<Scalar> r;
  StringRef body = R"(
    %nan = arith.constant 0x7FC00000 : f32
    %0 = arith.subf %a, %b : f32
    %1 = arith.mulf %a, %b : f32
    %2 = arith.divf %a, %b : f32
    %3 = arith.negf %a : f32
    %4 = arith.maximumf %a, %nan : f32
    %5 = arith.maxnumf %a, %nan : f32
    %6 = arith.minimumf %a, %b : f32
    %7 = arith.minnumf %nan, %b : f32
    %8 = math.exp %a : f32
    %9 = math.tanh %a : f32
    %10 = math.erf %a : f32
    %11 = math.rsqrt %b : f32
    %12 = math.powf %b, %a : f32
    %13 = math.fma %a, %b, %a : f32
    %14 = math.log2 %b : f32
    %15 = math.absf %3 : f32
    %16 = math.exp2 %a : f32
    %17 = math.sqrt %b : f32
    %18 = math.log %b : f32
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18
      : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)";
  std::string sig = "(%a: f32, %b: f32) -> (f32";
  for (int i = 0; i < 18; ++i)
    sig += ", f32";
  sig += ")";
  double a = 0.5, b = 4.0;
  ASSERT_EQ(eval(sig, body, {Scalar::ofFloat(a), Scalar::ofFloat(b)}, r), "");
  EXPECT_EQ(r[0].f, -3.5);
  EXPECT_EQ(r[1].f, 2.0);
  EXPECT_EQ(r[2].f, 0.125);
  EXPECT_EQ(r[3].f, -0.5);
  EXPECT_TRUE(std::isnan(r[4].f));
  EXPECT_EQ(r[5].f, 0.5);
  EXPECT_EQ(r[6].f, 0.5);
  EXPECT_EQ(r[7].f, 4.0);
  EXPECT_DOUBLE_EQ(r[8].f, std::exp(a));
  EXPECT_DOUBLE_EQ(r[9].f, std::tanh(a));
  EXPECT_DOUBLE_EQ(r[10].f, std::erf(a));
  EXPECT_EQ(r[11].f, 0.5);
  EXPECT_EQ(r[12].f, 2.0);
  EXPECT_EQ(r[13].f, 2.5);
  EXPECT_EQ(r[14].f, 2.0);
  EXPECT_EQ(r[15].f, 0.5);
  EXPECT_DOUBLE_EQ(r[16].f, std::sqrt(2.0));
  EXPECT_EQ(r[17].f, 2.0);
  EXPECT_DOUBLE_EQ(r[18].f, std::log(4.0));
}

TEST_F(ScalarEvalTest, CmpfPredicates) {
  SmallVector<Scalar> r;
  const char *preds[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                         "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};
  // Expected for (1, 2) and for (1, NaN).
  const int lt[] = {0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 1};
  const int un[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
  for (int i = 0; i < 16; ++i) {
    std::string body =
        std::string("%c = arith.cmpf ") + preds[i] + ", %a, %b : f32\n return %c : i1";
    ASSERT_EQ(eval("(%a: f32, %b: f32) -> i1", body, {Scalar::ofFloat(1), Scalar::ofFloat(2)}, r),
              "");
    EXPECT_EQ(r[0].i, lt[i]) << preds[i];
    ASSERT_EQ(eval("(%a: f32, %b: f32) -> i1", body,
                   {Scalar::ofFloat(1), Scalar::ofFloat(std::numeric_limits<double>::quiet_NaN())},
                   r),
              "");
    EXPECT_EQ(r[0].i, un[i]) << preds[i];
  }
}

TEST_F(ScalarEvalTest, IntegerOps) {
  SmallVector<Scalar> r;
  StringRef body = R"(
    %0 = arith.divsi %a, %b : i32
    %1 = arith.ceildivsi %a, %b : i32
    %2 = arith.floordivsi %a, %b : i32
    %3 = arith.remsi %a, %b : i32
    %4 = arith.divui %a, %b : i32
    %5 = arith.remui %a, %b : i32
    %6 = arith.ceildivui %a, %b : i32
    %7 = arith.minui %a, %b : i32
    %8 = arith.maxui %a, %b : i32
    %9 = arith.minsi %a, %b : i32
    %10 = arith.maxsi %a, %b : i32
    %big = arith.constant 2147483647 : i32
    %11 = arith.addi %big, %b : i32
    %12 = arith.cmpi ult, %a, %b : i32
    %13 = arith.cmpi slt, %a, %b : i32
    %14 = arith.index_castui %a : i32 to index
    %15 = arith.index_cast %a : i32 to index
    %16 = arith.xori %a, %b : i32
    %17 = arith.andi %a, %b : i32
    %18 = arith.ori %a, %b : i32
    %19 = arith.muli %a, %b : i32
    %20 = arith.subi %a, %b : i32
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20
      : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i1, i1, index, index, i32, i32, i32, i32, i32)";
  std::string sig = "(%a: i32, %b: i32) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, "
                    "i32, i32, i1, i1, index, index, i32, i32, i32, i32, i32)";
  ASSERT_EQ(eval(sig, body, {Scalar::ofInt(-7), Scalar::ofInt(2)}, r), "");
  EXPECT_EQ(r[0].i, -3);
  EXPECT_EQ(r[1].i, -3);
  EXPECT_EQ(r[2].i, -4);
  EXPECT_EQ(r[3].i, -1);
  EXPECT_EQ(r[4].i, 0x7FFFFFFC); // 0xFFFFFFF9 / 2
  EXPECT_EQ(r[5].i, 1);
  EXPECT_EQ(r[6].i, 0x7FFFFFFD);
  EXPECT_EQ(r[7].i, 2); // unsigned: -7 is huge
  EXPECT_EQ(r[8].i, -7);
  EXPECT_EQ(r[9].i, -7);
  EXPECT_EQ(r[10].i, 2);
  EXPECT_EQ(r[11].i, -2147483647); // wraps
  EXPECT_EQ(r[12].i, 0);
  EXPECT_EQ(r[13].i, 1);
  EXPECT_EQ(r[14].i, 0xFFFFFFF9);
  EXPECT_EQ(r[15].i, -7);
  EXPECT_EQ(r[16].i, -7 ^ 2);
  EXPECT_EQ(r[17].i, -7 & 2);
  EXPECT_EQ(r[18].i, -7 | 2);
  EXPECT_EQ(r[19].i, -14);
  EXPECT_EQ(r[20].i, -9);
}

TEST_F(ScalarEvalTest, CastsAndSelect) {
  SmallVector<Scalar> r;
  StringRef body = R"(
    %0 = arith.sitofp %i : i32 to f32
    %1 = arith.uitofp %i : i32 to f32
    %2 = arith.fptosi %f : f32 to i32
    %3 = arith.select %c, %0, %f : f32
    %4 = arith.index_cast %n : index to i32
    return %0, %1, %2, %3, %4 : f32, f32, i32, f32, i32)";
  ASSERT_EQ(eval("(%i: i32, %f: f32, %c: i1, %n: index) -> (f32, f32, i32, f32, i32)", body,
                 {Scalar::ofInt(-3), Scalar::ofFloat(-2.75), Scalar::ofInt(0),
                  Scalar::ofInt(int64_t(1) << 33 | 5)},
                 r, FloatPrecision::Float),
            "");
  EXPECT_EQ(r[0].f, -3.0);
  EXPECT_EQ(r[1].f, 4294967293.0f);
  EXPECT_EQ(r[2].i, -2);
  EXPECT_EQ(r[3].f, -2.75);
  EXPECT_EQ(r[4].i, 5); // truncated to 32 bits
}

TEST_F(ScalarEvalTest, ErrorsNameTheOp) {
  SmallVector<Scalar> r;
  std::string error =
      eval("(%a: i32) -> f32", "%f = arith.bitcast %a : i32 to f32\n return %f : f32",
           {Scalar::ofInt(1)}, r);
  EXPECT_NE(error.find("arith.bitcast"), std::string::npos) << error;
  EXPECT_NE(error.find("unsupported"), std::string::npos) << error;
  error = eval("(%a: i32, %b: i32) -> i32", "%q = arith.divsi %a, %b : i32\n return %q : i32",
               {Scalar::ofInt(1), Scalar::ofInt(0)}, r);
  EXPECT_NE(error.find("division by zero"), std::string::npos) << error;
}

} // namespace
