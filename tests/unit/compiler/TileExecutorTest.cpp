//===- TileExecutorTest.cpp - The CPU tile executor on small kernels ---------===//

#include "TestIR.h"

#include "metaattn/Executor/TileExecutor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace metaattn;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Aliases that keep the kernels short.
const char *kPrelude = "#sh = #tile.space<shared>\n#fr = #tile.space<fragment>\n";
const char *kOneBlock = "grid = array<i64: -1, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 128 : i64";

class TileExecutorTest : public ::testing::Test {
protected:
  void SetUp() override { ctx = test::makeContext(); }

  /// Parses `kernel` (after the prelude) and runs it; returns the error or "".
  std::string run(const std::string &kernel, ArrayRef<HostTensor *> params) {
    module = test::parseModule(*ctx, kPrelude + kernel);
    if (!module)
      return "parse error";
    auto op = test::findFirst<tile::KernelOp>(*module);
    if (!op)
      return "no tile.kernel";
    std::string error;
    if (failed(executeKernel(op, params, error)))
      return error.empty() ? "failed without a message" : error;
    return "";
  }

  std::unique_ptr<MLIRContext> ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(TileExecutorTest, CopyWindowsThroughSharedAndFragment) {
  // x is a [B=2, S=10, H=3, D=6] bf16 view of [B, H, S, D] storage. The block copies the
  // window rows 6..13, cols 0..7 of (b=1, h=2): rows >= 10 and cols >= 6 read as zero.
  std::string kernel = std::string(R"(
tile.kernel @copy(%x: !tile.tensor<2x?x3x6xbf16>, %y: !tile.tensor<8x8xf32>,
                  %z: !tile.tensor<?x?xf32>) attributes {)") +
                       kOneBlock + R"(} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %s = tile.alloc : memref<8x8xbf16, #sh>
  %f = tile.alloc : memref<8x8xf32, #fr>
  tile.copy %x[%c1, %c6, %c2, %c0] to %s {dims = array<i64: 1, 3>}
      : !tile.tensor<2x?x3x6xbf16> to memref<8x8xbf16, #sh>
  tile.copy %s to %f : memref<8x8xbf16, #sh> to memref<8x8xf32, #fr>
  tile.copy %f to %y[%c0, %c0] {dims = array<i64: 0, 1>} : memref<8x8xf32, #fr> to !tile.tensor<8x8xf32>
  tile.copy %f to %z[%c2, %c1] {dims = array<i64: 0, 1>} : memref<8x8xf32, #fr> to !tile.tensor<?x?xf32>
  tile.return
})";
  HostTensor storage = HostTensor::random({2, 3, 10, 6}, DType::bf16, 5);
  HostTensor x = storage.permuted({0, 2, 1, 3});
  HostTensor y = HostTensor::zeros({8, 8}, DType::f32);
  HostTensor z = HostTensor::zeros({5, 4}, DType::f32); // writes outside it are skipped
  ASSERT_EQ(run(kernel, {&x, &y, &z}), "");
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 8; ++j) {
      double expected = (6 + i < 10 && j < 6) ? storage.get({1, 2, 6 + i, j}) : 0.0;
      ASSERT_EQ(y.get({i, j}), expected) << i << "," << j;
      if (i + 2 < 5 && j + 1 < 4) {
        ASSERT_EQ(z.get({i + 2, j + 1}), expected);
      }
    }
  EXPECT_EQ(z.get({0, 0}), 0.0);
  EXPECT_EQ(z.get({1, 3}), 0.0);
}

/// A gemm kernel: C = A·B or A·Bᵀ for A [16, 24] and B [24, 8] (or [8, 24]).
std::string gemmKernel(bool transposeB) {
  std::string bType = transposeB ? "8x24" : "24x8";
  return std::string(R"(
tile.kernel @gemm(%a: !tile.tensor<16x24xbf16>, %b: !tile.tensor<)") +
         bType + R"(xbf16>, %c: !tile.tensor<16x8xf32>) attributes {)" + kOneBlock + R"(} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %as = tile.alloc : memref<16x24xbf16, #sh>
  %bs = tile.alloc : memref<)" +
         bType + R"(xbf16, #sh>
  %acc = tile.alloc : memref<16x8xf32, #fr>
  tile.copy %a[%c0, %c0] to %as {dims = array<i64: 0, 1>} : !tile.tensor<16x24xbf16> to memref<16x24xbf16, #sh>
  tile.copy %b[%c0, %c0] to %bs {dims = array<i64: 0, 1>} : !tile.tensor<)" +
         bType + R"(xbf16> to memref<)" + bType + R"(xbf16, #sh>
  tile.fill %acc, %zero : memref<16x8xf32, #fr>, f32
  tile.gemm %as, %bs, %acc)" +
         (transposeB ? " {transpose_b}" : "") + R"( : memref<16x24xbf16, #sh>, memref<)" + bType +
         R"(xbf16, #sh>, memref<16x8xf32, #fr>
  tile.gemm %as, %bs, %acc)" +
         (transposeB ? " {transpose_b}" : "") + R"( : memref<16x24xbf16, #sh>, memref<)" + bType +
         R"(xbf16, #sh>, memref<16x8xf32, #fr>
  tile.copy %acc to %c[%c0, %c0] {dims = array<i64: 0, 1>} : memref<16x8xf32, #fr> to !tile.tensor<16x8xf32>
  tile.return
})";
}

TEST_F(TileExecutorTest, GemmBothLayouts) {
  for (bool transposeB : {false, true}) {
    HostTensor a = HostTensor::random({16, 24}, DType::bf16, 11);
    HostTensor b = HostTensor::random(
        transposeB ? std::vector<int64_t>{8, 24} : std::vector<int64_t>{24, 8}, DType::bf16, 12);
    HostTensor c = HostTensor::zeros({16, 8}, DType::f32);
    ASSERT_EQ(run(gemmKernel(transposeB), {&a, &b, &c}), "");
    for (int64_t i = 0; i < 16; ++i)
      for (int64_t j = 0; j < 8; ++j) {
        double expected = 0;
        for (int64_t l = 0; l < 24; ++l)
          expected += a.get({i, l}) * (transposeB ? b.get({j, l}) : b.get({l, j}));
        expected *= 2; // the kernel accumulates the product twice
        ASSERT_NEAR(c.get({i, j}), expected, 1e-5 * (1 + std::fabs(expected)))
            << "transpose_b=" << transposeB << " at " << i << "," << j;
      }
  }
}

TEST_F(TileExecutorTest, RowReductions) {
  std::string kernel = std::string(R"(
tile.kernel @reduce(%x: !tile.tensor<4x6xf32>, %y: !tile.tensor<4x4xf32>) attributes {)") +
                       kOneBlock + R"(} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %half = arith.constant 0.5 : f32
  %f = tile.alloc : memref<4x6xf32, #fr>
  %mx = tile.alloc : memref<4xf32, #fr>
  %sm = tile.alloc : memref<4xf32, #fr>
  %ab = tile.alloc : memref<4xf32, #fr>
  %acc = tile.alloc : memref<4xf32, #fr>
  tile.copy %x[%c0, %c0] to %f {dims = array<i64: 0, 1>} : !tile.tensor<4x6xf32> to memref<4x6xf32, #fr>
  tile.reduce max %f to %mx : memref<4x6xf32, #fr> to memref<4xf32, #fr>
  tile.reduce sum %f to %sm : memref<4x6xf32, #fr> to memref<4xf32, #fr>
  tile.reduce abs_sum %f to %ab : memref<4x6xf32, #fr> to memref<4xf32, #fr>
  tile.fill %acc, %half : memref<4xf32, #fr>, f32
  tile.reduce max %f to %acc {accumulate} : memref<4x6xf32, #fr> to memref<4xf32, #fr>
  tile.copy %mx to %y[%c0, %c0] {dims = array<i64: 1>} : memref<4xf32, #fr> to !tile.tensor<4x4xf32>
  tile.copy %sm to %y[%c1, %c0] {dims = array<i64: 1>} : memref<4xf32, #fr> to !tile.tensor<4x4xf32>
  tile.copy %ab to %y[%c2, %c0] {dims = array<i64: 1>} : memref<4xf32, #fr> to !tile.tensor<4x4xf32>
  tile.copy %acc to %y[%c3, %c0] {dims = array<i64: 1>} : memref<4xf32, #fr> to !tile.tensor<4x4xf32>
  tile.return
})";
  HostTensor x = HostTensor::random({4, 6}, DType::f32, 3, -1, 0.4);
  for (int64_t j = 0; j < 6; ++j)
    x.set({3, j}, -kInf); // an all -inf row
  HostTensor y = HostTensor::zeros({4, 4}, DType::f32);
  ASSERT_EQ(run(kernel, {&x, &y}), "");
  for (int64_t i = 0; i < 4; ++i) {
    double mx = -kInf, sum = 0, abs = 0;
    for (int64_t j = 0; j < 6; ++j) {
      mx = std::max(mx, x.get({i, j}));
      sum += x.get({i, j});
      abs += std::fabs(x.get({i, j}));
    }
    EXPECT_EQ(y.get({0, i}), mx);
    if (i < 3) {
      EXPECT_NEAR(y.get({1, i}), sum, 1e-6);
      EXPECT_NEAR(y.get({2, i}), abs, 1e-6);
    }
    EXPECT_EQ(y.get({3, i}), std::max(mx, 0.5));
  }
  EXPECT_EQ(y.get({0, 3}), -kInf);
}

TEST_F(TileExecutorTest, ParallelWithIndexArithmetic) {
  std::string kernel = std::string(R"(
tile.kernel @par(%y: !tile.tensor<?x5xf32>, %r: !tile.tensor<4xf32>) attributes {)") +
                       kOneBlock + R"(} {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %n = tile.dim %y, 0 : !tile.tensor<?x5xf32>
  %f = tile.alloc : memref<4x5xf32, #fr>
  %row = tile.alloc : memref<4xf32, #fr>
  tile.parallel (%i, %j) in [4, 5] {
    %a = arith.muli %i, %c10 : index
    %b = arith.addi %a, %j : index
    %c = arith.addi %b, %n : index
    %d = arith.index_cast %c : index to i64
    %e = arith.sitofp %d : i64 to f32
    memref.store %e, %f[%i, %j] : memref<4x5xf32, #fr>
  }
  tile.parallel (%i) in [4] {
    %v = memref.load %f[%i, %c0] : memref<4x5xf32, #fr>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %row[%i] : memref<4xf32, #fr>
  }
  tile.copy %f to %y[%c0, %c0] {dims = array<i64: 0, 1>} : memref<4x5xf32, #fr> to !tile.tensor<?x5xf32>
  tile.copy %row to %r[%c0] {dims = array<i64: 0>} : memref<4xf32, #fr> to !tile.tensor<4xf32>
  tile.return
})";
  HostTensor y = HostTensor::zeros({3, 5}, DType::f32); // row 3 is outside: skipped
  HostTensor r = HostTensor::zeros({4}, DType::f32);
  ASSERT_EQ(run(kernel, {&y, &r}), "");
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j)
      EXPECT_EQ(y.get({i, j}), 10 * i + j + 3);
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(r.get({i}), (10.0 * i + 3) * (10.0 * i + 3));
}

/// Sums x [?] in tiles of 4 with `loop` (pipelined or scf.for), over a grid of blocks that
/// each handle one row of a [?, ?] input; also counts the tiles with an scf.for iter_arg.
std::string loopKernel(bool pipelined) {
  std::string head =
      pipelined ? "tile.pipelined %j = %c0 to %nt stages 2 {"
                : "%cnt = scf.for %j = %c0 to %nt step %c1 iter_args(%k = %zero) -> (f32) {";
  std::string tail = pipelined
                         ? "  }\n  %cnt = arith.constant 0.0 : f32"
                         : "    %k1 = arith.addf %k, %one : f32\n    scf.yield %k1 : f32\n  }";
  return std::string(R"(
tile.kernel @loop(%x: !tile.tensor<?x?xf32>, %y: !tile.tensor<?x2xf32>)
    attributes {grid = array<i64: 0, 0, 1, -1, 0, 1, -1, 0, 1>, threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %row = tile.block_id 0
  %n = tile.dim %x, 1 : !tile.tensor<?x?xf32>
  %nt = arith.ceildivui %n, %c4 : index
  %t = tile.alloc : memref<1x4xf32, #fr>
  %s = tile.alloc : memref<1xf32, #fr>
  tile.fill %s, %zero : memref<1xf32, #fr>, f32
  )") + head +
         R"(
    %col = arith.muli %j, %c4 : index
    tile.copy %x[%row, %col] to %t {dims = array<i64: 0, 1>} : !tile.tensor<?x?xf32> to memref<1x4xf32, #fr>
    tile.reduce sum %t to %s {accumulate} : memref<1x4xf32, #fr> to memref<1xf32, #fr>
  )" + tail +
         R"(
  %out = tile.alloc : memref<2xf32, #fr>
  %total = memref.load %s[%c0] : memref<1xf32, #fr>
  memref.store %total, %out[%c0] : memref<2xf32, #fr>
  memref.store %cnt, %out[%c1] : memref<2xf32, #fr>
  tile.copy %out to %y[%row, %c0] {dims = array<i64: 1>} : memref<2xf32, #fr> to !tile.tensor<?x2xf32>
  tile.return
})";
}

TEST_F(TileExecutorTest, PipelinedAndForLoops) {
  for (bool pipelined : {true, false}) {
    HostTensor x = HostTensor::random({3, 13}, DType::f32, 9);
    HostTensor y = HostTensor::zeros({3, 2}, DType::f32);
    ASSERT_EQ(run(loopKernel(pipelined), {&x, &y}), "") << pipelined;
    for (int64_t i = 0; i < 3; ++i) {
      double sum = 0;
      for (int64_t j = 0; j < 13; ++j)
        sum += x.get({i, j});
      EXPECT_NEAR(y.get({i, 0}), sum, 1e-5) << "pipelined=" << pipelined;
      EXPECT_EQ(y.get({i, 1}), pipelined ? 0.0 : 4.0);
    }
  }
}

TEST_F(TileExecutorTest, ScfIfAndStages) {
  std::string kernel = std::string(R"(
tile.kernel @stages(%y: !tile.tensor<2x4xbf16>) attributes {)") +
                       kOneBlock + R"(} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = arith.constant 1.0 : bf16
  %b = arith.constant 2.0 : bf16
  %buf = tile.alloc : memref<2x4xbf16, #sh>
  %s0 = tile.stage %buf[%c0] : memref<2x4xbf16, #sh> -> memref<4xbf16, #sh>
  %s1 = tile.stage %buf[%c1] : memref<2x4xbf16, #sh> -> memref<4xbf16, #sh>
  %cond = arith.cmpi eq, %c0, %c1 : index
  %v = scf.if %cond -> (bf16) {
    scf.yield %a : bf16
  } else {
    scf.yield %b : bf16
  }
  tile.fill %s0, %a : memref<4xbf16, #sh>, bf16
  tile.fill %s1, %v : memref<4xbf16, #sh>, bf16
  tile.barrier
  tile.async_commit
  tile.async_wait 0
  tile.copy %s0 to %y[%c0, %c0] {dims = array<i64: 1>} : memref<4xbf16, #sh> to !tile.tensor<2x4xbf16>
  tile.copy %s1 to %y[%c1, %c0] {dims = array<i64: 1>} : memref<4xbf16, #sh> to !tile.tensor<2x4xbf16>
  tile.return
})";
  HostTensor y = HostTensor::zeros({2, 4}, DType::bf16);
  ASSERT_EQ(run(kernel, {&y}), "");
  EXPECT_EQ(y.get({0, 3}), 1.0);
  EXPECT_EQ(y.get({1, 0}), 2.0);
}

TEST_F(TileExecutorTest, ParamErrors) {
  HostTensor a = HostTensor::random({16, 24}, DType::bf16, 11);
  HostTensor b = HostTensor::random({24, 8}, DType::bf16, 12);
  HostTensor c = HostTensor::zeros({16, 8}, DType::f32);
  HostTensor c3 = HostTensor::zeros({16, 8, 1}, DType::f32);
  HostTensor cBad = HostTensor::zeros({16, 8}, DType::f16);
  HostTensor cSize = HostTensor::zeros({16, 9}, DType::f32);
  std::string error = run(gemmKernel(false), {&a, &b, &c3});
  EXPECT_NE(error.find("parameter #2 of @gemm has rank 3, expected 2"), std::string::npos) << error;
  error = run(gemmKernel(false), {&a, &b, &cBad});
  EXPECT_NE(error.find("has dtype f16, expected f32"), std::string::npos) << error;
  error = run(gemmKernel(false), {&a, &b, &cSize});
  EXPECT_NE(error.find("has size 9 in dim 1, expected 8"), std::string::npos) << error;
  error = run(gemmKernel(false), {&a, &b});
  EXPECT_NE(error.find("takes 3 parameters, given 2"), std::string::npos) << error;
}

TEST_F(TileExecutorTest, OutOfBoundsLocalIndex) {
  std::string kernel = std::string(R"(
tile.kernel @oob(%y: !tile.tensor<8xf32>) attributes {)") +
                       kOneBlock + R"(} {
  %zero = arith.constant 0.0 : f32
  %f = tile.alloc : memref<8xf32, #fr>
  tile.parallel (%i) in [9] {
    memref.store %zero, %f[%i] : memref<8xf32, #fr>
  }
  tile.return
})";
  HostTensor y = HostTensor::zeros({8}, DType::f32);
  std::string error = run(kernel, {&y});
  EXPECT_NE(error.find("index [8] is out of bounds for a buffer of shape [8]"), std::string::npos)
      << error;
  EXPECT_NE(error.find("memref.store"), std::string::npos) << error;
  EXPECT_NE(error.find(":8:5"), std::string::npos)
      << error; // line 8 of the source (after the 2-line prelude), col 5
}

TEST_F(TileExecutorTest, UnsupportedOp) {
  std::string kernel = std::string(R"(
tile.kernel @bad(%y: !tile.tensor<8xf32>) attributes {)") +
                       kOneBlock + R"(} {
  %f = tile.alloc : memref<8xf32, #fr>
  %g = tile.alloc : memref<8xf32, #fr>
  memref.copy %f, %g : memref<8xf32, #fr> to memref<8xf32, #fr>
  tile.return
})";
  HostTensor y = HostTensor::zeros({8}, DType::f32);
  std::string error = run(kernel, {&y});
  EXPECT_NE(error.find("memref.copy"), std::string::npos) << error;
  EXPECT_NE(error.find("unsupported"), std::string::npos) << error;
}

} // namespace
