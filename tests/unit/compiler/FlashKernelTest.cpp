//===- FlashKernelTest.cpp - A hand-written flash attention kernel -----------===//
//
// A complete online-softmax tile kernel (causal, bottom-right aligned, GQA 2:1, D=64, Dv=32,
// bf16), run by the CPU executor and compared with the reference evaluator on sizes that are
// not multiples of the tiles. A variant that forgets to rescale the output accumulator must
// fail the same comparison.
//
//===----------------------------------------------------------------------===//

#include "TestIR.h"

#include "metaattn/Executor/TileExecutor.h"
#include "metaattn/Reference/Reference.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace metaattn;

namespace {

const char *kAttention = R"(
func.func @attn(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x2x32xbf16>)
    -> (tensor<?x?x4x32xbf16>, tensor<?x4x?xf32>) {
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
    } : tensor<?x?x4x64xbf16>, tensor<?x?x2x64xbf16>, tensor<?x?x2x32xbf16>
        -> tensor<?x?x4x32xbf16>, tensor<?x4x?xf32>
  return %o, %lse : tensor<?x?x4x32xbf16>, tensor<?x4x?xf32>
}
)";

const char *kKernelHead = R"(
#sh = #tile.space<shared>
#fr = #tile.space<fragment>
tile.kernel @flash(%q: !tile.tensor<?x?x4x64xbf16>, %k: !tile.tensor<?x?x2x64xbf16>,
                   %v: !tile.tensor<?x?x2x32xbf16>, %o: !tile.tensor<?x?x4x32xbf16>,
                   %lse: !tile.tensor<?x4x?xf32>)
    attributes {grid = array<i64: 0, 1, 32, -1, 0, 4, 0, 0, 1>, threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %bx = tile.block_id 0
  %h = tile.block_id 1
  %b = tile.block_id 2
  %hk = arith.divui %h, %c2 : index
  %sq = tile.dim %q, 1 : !tile.tensor<?x?x4x64xbf16>
  %skv = tile.dim %k, 1 : !tile.tensor<?x?x2x64xbf16>
  %row0 = arith.muli %bx, %c32 : index
  %off = arith.subi %skv, %sq : index
  %qs = tile.alloc : memref<32x64xbf16, #sh>
  %ks = tile.alloc : memref<32x64xbf16, #sh>
  %vs = tile.alloc : memref<32x32xbf16, #sh>
  %s = tile.alloc : memref<32x32xf32, #fr>
  %p = tile.alloc : memref<32x32xbf16, #fr>
  %acc = tile.alloc : memref<32x32xf32, #fr>
  %m = tile.alloc : memref<32xf32, #fr>
  %mprev = tile.alloc : memref<32xf32, #fr>
  %l = tile.alloc : memref<32xf32, #fr>
  tile.fill %acc, %zero : memref<32x32xf32, #fr>, f32
  tile.fill %m, %ninf : memref<32xf32, #fr>, f32
  tile.fill %l, %zero : memref<32xf32, #fr>, f32
  tile.copy %q[%b, %row0, %h, %c0] to %qs {dims = array<i64: 1, 3>}
      : !tile.tensor<?x?x4x64xbf16> to memref<32x64xbf16, #sh>
  %nkv = arith.ceildivui %skv, %c32 : index
  tile.pipelined %j = %c0 to %nkv stages 2 {
    %kv0 = arith.muli %j, %c32 : index
    tile.copy %k[%b, %kv0, %hk, %c0] to %ks {dims = array<i64: 1, 3>}
        : !tile.tensor<?x?x2x64xbf16> to memref<32x64xbf16, #sh>
    tile.copy %v[%b, %kv0, %hk, %c0] to %vs {dims = array<i64: 1, 3>}
        : !tile.tensor<?x?x2x32xbf16> to memref<32x32xbf16, #sh>
    tile.fill %s, %zero : memref<32x32xf32, #fr>, f32
    tile.gemm %qs, %ks, %s {transpose_b}
        : memref<32x64xbf16, #sh>, memref<32x64xbf16, #sh>, memref<32x32xf32, #fr>
    tile.copy %m to %mprev : memref<32xf32, #fr> to memref<32xf32, #fr>
    tile.parallel (%i, %jj) in [32, 32] {
      %x = memref.load %s[%i, %jj] : memref<32x32xf32, #fr>
      %y = arith.mulf %x, %scale : f32
      %qi = arith.addi %row0, %i : index
      %ki = arith.addi %kv0, %jj : index
      %lim = arith.addi %qi, %off : index
      %causal = arith.cmpi sle, %ki, %lim : index
      %inside = arith.cmpi slt, %ki, %skv : index
      %keep = arith.andi %causal, %inside : i1
      %r = arith.select %keep, %y, %ninf : f32
      memref.store %r, %s[%i, %jj] : memref<32x32xf32, #fr>
    }
    tile.reduce max %s to %m {accumulate} : memref<32x32xf32, #fr> to memref<32xf32, #fr>
    tile.parallel (%i, %jj) in [32, 32] {
      %mi = memref.load %m[%i] : memref<32xf32, #fr>
      %empty = arith.cmpf oeq, %mi, %ninf : f32
      %shift = arith.select %empty, %zero, %mi : f32
      %x = memref.load %s[%i, %jj] : memref<32x32xf32, #fr>
      %d = arith.subf %x, %shift : f32
      %e = math.exp %d : f32
      memref.store %e, %s[%i, %jj] : memref<32x32xf32, #fr>
    }
    tile.parallel (%i) in [32] {
      %mo = memref.load %mprev[%i] : memref<32xf32, #fr>
      %mn = memref.load %m[%i] : memref<32xf32, #fr>
      %empty = arith.cmpf oeq, %mn, %ninf : f32
      %shift = arith.select %empty, %zero, %mn : f32
      %d = arith.subf %mo, %shift : f32
      %alpha = math.exp %d : f32
      %li = memref.load %l[%i] : memref<32xf32, #fr>
      %ln = arith.mulf %li, %alpha : f32
      memref.store %ln, %l[%i] : memref<32xf32, #fr>
      memref.store %alpha, %mprev[%i] : memref<32xf32, #fr>
    }
)";

/// Rescales the output accumulator by exp(m_old - m_new) (kept in %mprev).
const char *kRescale = R"(
    tile.parallel (%i, %jj) in [32, 32] {
      %alpha = memref.load %mprev[%i] : memref<32xf32, #fr>
      %a = memref.load %acc[%i, %jj] : memref<32x32xf32, #fr>
      %an = arith.mulf %a, %alpha : f32
      memref.store %an, %acc[%i, %jj] : memref<32x32xf32, #fr>
    }
)";

const char *kKernelTail = R"(
    tile.reduce sum %s to %l {accumulate} : memref<32x32xf32, #fr> to memref<32xf32, #fr>
    tile.copy %s to %p : memref<32x32xf32, #fr> to memref<32x32xbf16, #fr>
    tile.gemm %p, %vs, %acc
        : memref<32x32xbf16, #fr>, memref<32x32xbf16, #sh>, memref<32x32xf32, #fr>
  }
  tile.parallel (%i, %jj) in [32, 32] {
    %li = memref.load %l[%i] : memref<32xf32, #fr>
    %pos = arith.cmpf ogt, %li, %zero : f32
    %a = memref.load %acc[%i, %jj] : memref<32x32xf32, #fr>
    %d = arith.divf %a, %li : f32
    %r = arith.select %pos, %d, %zero : f32
    memref.store %r, %acc[%i, %jj] : memref<32x32xf32, #fr>
  }
  tile.parallel (%i) in [32] {
    %li = memref.load %l[%i] : memref<32xf32, #fr>
    %mi = memref.load %m[%i] : memref<32xf32, #fr>
    %lg = math.log %li : f32
    %r = arith.addf %mi, %lg : f32
    memref.store %r, %mprev[%i] : memref<32xf32, #fr>
  }
  tile.copy %acc to %o[%b, %row0, %h, %c0] {dims = array<i64: 1, 3>}
      : memref<32x32xf32, #fr> to !tile.tensor<?x?x4x32xbf16>
  tile.copy %mprev to %lse[%b, %h, %row0] {dims = array<i64: 2>}
      : memref<32xf32, #fr> to !tile.tensor<?x4x?xf32>
  tile.return
}
)";

/// Outputs of the kernel and of the oracle on one problem.
struct Results {
  HostTensor kernelOut, kernelLse, refOut, refLse;
};

class FlashKernelTest : public ::testing::Test {
protected:
  void SetUp() override { ctx = test::makeContext(); }

  /// Runs the kernel (with or without the rescale) and the reference on B=2 and the given
  /// lengths; returns the error or "".
  std::string runBoth(int64_t seqQ, int64_t seqKv, bool rescale, Results &r) {
    auto attnModule = test::parseModule(*ctx, kAttention);
    std::string kernelText = std::string(kKernelHead) + (rescale ? kRescale : "") + kKernelTail;
    auto kernelModule = test::parseModule(*ctx, kernelText);
    if (!attnModule || !kernelModule)
      return "parse error";
    HostTensor q = HostTensor::random({2, seqQ, 4, 64}, DType::bf16, 21, -2, 2);
    HostTensor k = HostTensor::random({2, seqKv, 2, 64}, DType::bf16, 22, -2, 2);
    HostTensor v = HostTensor::random({2, seqKv, 2, 32}, DType::bf16, 23, -1, 1);
    std::string error;
    r.refOut = HostTensor::zeros({2, seqQ, 4, 32}, DType::f32);
    r.refLse = HostTensor();
    if (failed(evaluateAttention(test::findFirst<attn::AttentionOp>(*attnModule), {&q, &k, &v},
                                 r.refOut, &r.refLse, error)))
      return "reference: " + error;
    r.kernelOut = HostTensor::zeros({2, seqQ, 4, 32}, DType::bf16);
    r.kernelLse = HostTensor::zeros({2, 4, seqQ}, DType::f32);
    if (failed(executeKernel(test::findFirst<tile::KernelOp>(*kernelModule),
                             {&q, &k, &v, &r.kernelOut, &r.kernelLse}, error)))
      return "executor: " + error;
    return "";
  }

  std::unique_ptr<MLIRContext> ctx;
};

TEST_F(FlashKernelTest, MatchesReference) {
  Results r;
  ASSERT_EQ(runBoth(77, 130, /*rescale=*/true, r), "");
  // bf16 P and bf16 output: 2e-2 relative with a small absolute floor.
  double outRatio = test::maxToleranceRatio(r.kernelOut, r.refOut, 2e-3, 2e-2);
  double lseRatio = test::maxToleranceRatio(r.kernelLse, r.refLse, 1e-4, 1e-4);
  RecordProperty("out_ratio", std::to_string(outRatio));
  RecordProperty("lse_ratio", std::to_string(lseRatio));
  EXPECT_LT(outRatio, 1.0);
  EXPECT_LT(lseRatio, 1.0);
}

TEST_F(FlashKernelTest, MatchesReferenceWithFullyMaskedRows) {
  Results r;
  ASSERT_EQ(runBoth(130, 77, /*rescale=*/true, r), ""); // rows q < 53 keep nothing
  EXPECT_LT(test::maxToleranceRatio(r.kernelOut, r.refOut, 2e-3, 2e-2), 1.0);
  EXPECT_LT(test::maxToleranceRatio(r.kernelLse, r.refLse, 1e-4, 1e-4), 1.0);
  EXPECT_EQ(r.kernelLse.get({1, 3, 10}), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(r.kernelOut.get({1, 10, 3, 5}), 0.0);
}

TEST_F(FlashKernelTest, MissingRescaleIsCaught) {
  Results r;
  ASSERT_EQ(runBoth(77, 130, /*rescale=*/false, r), "");
  double outRatio = test::maxToleranceRatio(r.kernelOut, r.refOut, 2e-3, 2e-2);
  RecordProperty("out_ratio", std::to_string(outRatio));
  EXPECT_GT(outRatio, 1.0);
}

} // namespace
