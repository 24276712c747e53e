//===- FunctionPlanTest.cpp - kernels of a function and their intermediates -===//
//
// Lowers differential attention (two attentions and a combine, fused into two kernels or not)
// and checks the function plan:
// kernel order, bindings, intermediate shapes from the argument shapes, malformed plans, the
// choice between Mamba2's fused and separate chunk kernels by the grid; on a
// GPU, AttentionFunction::run (intermediates allocated by the runtime) against the oracle
// (skipped without one).
//
//===----------------------------------------------------------------------===//

#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Reference/Reference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace metaattn;

namespace {

/// `file` of frontend/variants: of the source tree the test was built from, or of
/// $METAATTN_VARIANTS_DIR (the binary run on another machine, tests/gpu/pending.sh).
std::string readVariant(const std::string &file) {
  const char *dir = std::getenv("METAATTN_VARIANTS_DIR");
  std::ifstream in(std::string(dir && *dir ? dir : METAATTN_VARIANTS_DIR) + "/" + file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Lowered {
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<LoweredFunction> functions;
};

void lowerText(const std::string &text, Lowered &out, const PipelineOptions &options = {}) {
  mlir::DialectRegistry registry;
  registerMetaAttnDialects(registry);
  out.ctx.appendDialectRegistry(registry);
  out.module = mlir::parseSourceString<mlir::ModuleOp>(text, &out.ctx);
  ASSERT_TRUE(out.module) << text;
  auto lowered = lowerToCuda(*out.module, options);
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  auto grouped = groupByFunction(std::move(*lowered));
  ASSERT_TRUE(grouped.ok()) << grouped.status().message();
  out.functions = std::move(*grouped);
}

void lowerVariant(const std::string &file, Lowered &out, const PipelineOptions &options = {}) {
  lowerText(readVariant(file), out, options);
}

/// A call's tensors for choosePlan, which reads only their shapes: `tensors` describe `shapes`.
rt::TensorList describe(std::vector<std::vector<int64_t>> &shapes, std::vector<DLTensor> &tensors) {
  tensors.assign(shapes.size(), DLTensor{});
  rt::TensorList list;
  for (size_t i = 0; i < shapes.size(); ++i) {
    tensors[i].ndim = static_cast<int32_t>(shapes[i].size());
    tensors[i].shape = shapes[i].data();
    list.push_back(&tensors[i]);
  }
  return list;
}

/// The plan choosePlan picks for a call with these shapes on 132 multiprocessors (99 on error).
size_t chosenPlan(llvm::ArrayRef<const LoweredFunction *> plans,
                  std::vector<std::vector<int64_t>> shapes) {
  std::vector<DLTensor> tensors;
  auto chosen = choosePlan(plans, describe(shapes, tensors), 132);
  EXPECT_TRUE(chosen.ok()) << chosen.status().message();
  return chosen.ok() ? *chosen : size_t(99);
}

TEST(FunctionPlanTest, DifferentialAttentionIsTwoKernels) {
  Lowered l;
  ASSERT_NO_FATAL_FAILURE(lowerVariant("differential.mlir", l));
  ASSERT_EQ(l.functions.size(), 2u);
  const LoweredFunction &f = l.functions[0];
  EXPECT_EQ(f.name, "differential_causal");
  // The combine runs in the second attention's epilogue (fuse-combine).
  ASSERT_EQ(f.kernels.size(), 2u);
  EXPECT_EQ(f.kernels[0].name, "differential_causal_step0");
  EXPECT_EQ(f.kernels[1].name, "differential_causal_step1");
  EXPECT_EQ(f.numArguments, 6u);
  EXPECT_EQ(f.numResults, 1u);
  EXPECT_EQ(f.numTemporaries, 1u);
  // q2, k2, v, the first attention's output, lambda (argument 5), the result.
  const auto &b = f.kernels[1].bindings;
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b[0].kind, ParamBinding::Argument);
  EXPECT_EQ(b[0].index, 2u);
  EXPECT_EQ(b[3].kind, ParamBinding::Temporary);
  EXPECT_EQ(b[3].index, 0u);
  EXPECT_EQ(b[4].kind, ParamBinding::Argument);
  EXPECT_EQ(b[4].index, 5u);
  EXPECT_EQ(b[5].kind, ParamBinding::Result);
  EXPECT_TRUE(f.kernels[1].signature.params[5].isOutput);
  EXPECT_FALSE(f.kernels[1].signature.params[3].isOutput);

  // The intermediate: f32 [B, Sq, H, Dv] from q1's batch and length.
  std::vector<std::vector<int64_t>> args = {{3, 77, 4, 64},  {3, 130, 2, 64}, {3, 77, 4, 64},
                                            {3, 130, 2, 64}, {3, 130, 2, 64}, {4}};
  auto temps = f.temporaries(args, {{3, 77, 4, 64}});
  ASSERT_TRUE(temps.ok()) << temps.status().message();
  ASSERT_EQ(temps->size(), 1u);
  EXPECT_EQ((*temps)[0].first, (std::vector<int64_t>{3, 77, 4, 64}));
  EXPECT_EQ((*temps)[0].second.code, kDLFloat);
  EXPECT_EQ((*temps)[0].second.bits, 32);
  EXPECT_EQ(f.temporaries(args, {}).status().message(),
            "function 'differential_causal' takes 6 arguments and 1 results, got 6 and 0");
}

TEST(FunctionPlanTest, DifferentialAttentionUnfusedIsThreeKernels) {
  Lowered l;
  PipelineOptions options;
  options.fuseCombine = false;
  ASSERT_NO_FATAL_FAILURE(lowerVariant("differential.mlir", l, options));
  const LoweredFunction &f = l.functions[0];
  ASSERT_EQ(f.kernels.size(), 3u);
  EXPECT_EQ(f.kernels[2].name, "differential_causal_step2");
  EXPECT_EQ(f.numTemporaries, 2u);
  // The combine reads both intermediates and lambda (argument 5) and writes the result.
  const auto &b = f.kernels[2].bindings;
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].kind, ParamBinding::Temporary);
  EXPECT_EQ(b[1].index, 1u);
  EXPECT_EQ(b[2].kind, ParamBinding::Argument);
  EXPECT_EQ(b[2].index, 5u);
  EXPECT_EQ(b[3].kind, ParamBinding::Result);
}

TEST(FunctionPlanTest, SingleAttentionKeepsItsName) {
  Lowered l;
  ASSERT_NO_FATAL_FAILURE(lowerVariant("block_sparse.mlir", l));
  ASSERT_EQ(l.functions.size(), 2u);
  const LoweredFunction &f = l.functions[0];
  ASSERT_EQ(f.kernels.size(), 1u);
  EXPECT_EQ(f.kernels[0].name, "block_sparse_64x128");
  EXPECT_EQ(f.numArguments, 4u);
  EXPECT_EQ(f.numResults, 2u);
  EXPECT_EQ(f.numTemporaries, 0u);
  // The block map's symbols are block counts.
  const rt::TensorParam &map = f.kernels[0].signature.params[3];
  EXPECT_EQ(map.symbols, (std::vector<std::string>{"B", "H", "Sq/64", "Skv/128"}));
}

// The fused chunk kernel of Mamba2's SSD (3 heads of 32 value columns: one block per head and
// batch) runs when its grid has the plan's blocks per multiprocessor; else the states and
// output kernels.
TEST(FunctionPlanTest, FusedChunkPlanNeedsEnoughBlocks) {
  Lowered separate, fused;
  ASSERT_NO_FATAL_FAILURE(lowerVariant("linear.mlir", separate));
  PipelineOptions options;
  options.chunkKernels = PipelineOptions::ChunkKernels::fused;
  ASSERT_NO_FATAL_FAILURE(lowerVariant("linear.mlir", fused, options));
  auto find = [](std::vector<LoweredFunction> &functions) -> LoweredFunction * {
    for (LoweredFunction &f : functions)
      if (f.name == "mamba2_ssd")
        return &f;
    return nullptr;
  };
  LoweredFunction *one = find(fused.functions), *two = find(separate.functions);
  ASSERT_TRUE(one && two);
  EXPECT_EQ(one->kernels.size(), 1u);
  EXPECT_EQ(one->numTemporaries, 0u);
  EXPECT_GE(two->kernels.size(), 2u);
  EXPECT_GE(two->numTemporaries, 1u);
  one->minBlocksPerSM = 0.75;
  std::vector<const LoweredFunction *> plans = {one, two};

  // x, B, C, dt, A; y. Only the shapes are read.
  auto call = [&](int64_t batch, std::vector<std::vector<int64_t>> &shapes,
                  std::vector<DLTensor> &tensors) {
    shapes = {{batch, 100, 1, 64}, {batch, 100, 1, 64}, {batch, 100, 3, 32},
              {batch, 100, 3},     {batch, 100, 3},     {3},
              {batch, 100, 3, 32}};
    return describe(shapes, tensors);
  };
  std::vector<std::vector<int64_t>> shapes;
  std::vector<DLTensor> tensors;
  auto chosen = choosePlan(plans, call(33, shapes, tensors), 132);
  ASSERT_TRUE(chosen.ok()) << chosen.status().message();
  EXPECT_EQ(*chosen, 0u) << "33 x 3 blocks are 0.75 per multiprocessor of 132";
  chosen = choosePlan(plans, call(32, shapes, tensors), 132);
  ASSERT_TRUE(chosen.ok()) << chosen.status().message();
  EXPECT_EQ(*chosen, 1u) << "32 x 3 blocks are fewer";
  EXPECT_EQ(*choosePlan(plans, call(1, shapes, tensors), 4), 0u);
  EXPECT_EQ(*choosePlan(plans, call(1, shapes, tensors), 5), 1u);

  rt::TensorList missing = call(1, shapes, tensors);
  missing.pop_back();
  EXPECT_EQ(choosePlan(plans, missing, 132).status().message(),
            "function 'mamba2_ssd' takes 6 arguments and 1 results, got 6 tensors");
  rt::TensorList withNull = call(1, shapes, tensors);
  withNull[2] = nullptr;
  EXPECT_EQ(choosePlan(plans, withNull, 132).status().message(),
            "function 'mamba2_ssd': tensor #2 is null");
}

/// Softmax without a mask, four heads of 128 (the kernel the long-keys tiling changes).
const std::string kSoftmaxD128 = R"(
func.func @softmax(%q: tensor<?x?x4x128xbf16>, %k: tensor<?x?x4x128xbf16>,
                   %v: tensor<?x?x4x128xbf16>) -> tensor<?x?x4x128xbf16> {
  %o = attn.attention %q, %k, %v score {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    attn.yield %s : f32
  } mask {
  ^bb0(%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %m = arith.constant true
    attn.yield %m : i1
  } normalizer {
  ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
    %mx = attn.row_reduce max %s : f32
    %d = arith.subf %s, %mx : f32
    %w = math.exp %d : f32
    %z = attn.row_reduce sum %w : f32
    attn.normalize %w, %z : f32, f32
  } : tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16> -> tensor<?x?x4x128xbf16>
  return %o : tensor<?x?x4x128xbf16>
})";

// The persistent form of a warp-specialised softmax kernel runs on grids of at most
// rt::kPersistentRowBlocks query tiles (128 rows each at D128), the plain one on longer ones.
TEST(FunctionPlanTest, PersistentPlanForShortGrids) {
  const std::string &softmax = kSoftmaxD128;
  Lowered plain, persistent, narrow;
  ASSERT_NO_FATAL_FAILURE(lowerText(softmax, plain));
  PipelineOptions options;
  options.persistent = true;
  ASSERT_NO_FATAL_FAILURE(lowerText(softmax, persistent, options));
  ASSERT_EQ(plain.functions.size(), 1u);
  ASSERT_EQ(persistent.functions.size(), 1u);
  LoweredFunction &one = persistent.functions[0], &two = plain.functions[0];
  ASSERT_EQ(one.kernels.size(), 1u);
  EXPECT_TRUE(one.kernels[0].signature.persistent);
  EXPECT_FALSE(two.kernels[0].signature.persistent);
  one.maxRowBlocks = rt::kPersistentRowBlocks;
  std::vector<const LoweredFunction *> plans = {&one, &two};
  auto choose = [&](int64_t seqQ) {
    return chosenPlan(plans,
                      {{2, seqQ, 4, 128}, {2, 300, 4, 128}, {2, 300, 4, 128}, {2, seqQ, 4, 128}});
  };
  EXPECT_EQ(choose(1), 0u);
  EXPECT_EQ(choose(8 * 128), 0u);
  EXPECT_EQ(choose(8 * 128 + 1), 1u);
  EXPECT_EQ(choose(16384), 1u);

  // Only the plan's persistent kernels are bounded: a (synthetic) plan that also launches a
  // plain kernel of 64-row tiles, 16 of them at 1024 rows, still runs there.
  options = {};
  options.blockM = 64;
  ASSERT_NO_FATAL_FAILURE(lowerText(softmax, narrow, options));
  ASSERT_FALSE(narrow.functions[0].kernels[0].signature.persistent);
  one.kernels.push_back(narrow.functions[0].kernels[0]);
  EXPECT_EQ(choose(8 * 128), 0u);
  EXPECT_EQ(choose(8 * 128 + 1), 1u);
}

/// The kv tile of a lowered attention kernel: the rows of the TMA box of its `k` parameter.
int kvTile(const LoweredKernel &kernel) {
  for (const rt::TensorMapParam &map : kernel.signature.tensorMaps)
    if (kernel.signature.params[map.tensor].name == "k")
      return map.boxRows;
  return 0;
}

// The long-keys tiling (KernelSchedule::longKeys) changes only mask-free softmax kernels with
// head dims <= 128, and their plan runs from kLongKeys keys (Skv) on, whatever the query length.
TEST(FunctionPlanTest, LongKeysPlan) {
  Lowered plain, wide;
  ASSERT_NO_FATAL_FAILURE(lowerText(kSoftmaxD128, plain));
  PipelineOptions options;
  options.longKeys = true;
  ASSERT_NO_FATAL_FAILURE(lowerText(kSoftmaxD128, wide, options));
  LoweredFunction &one = wide.functions[0], &two = plain.functions[0];
  EXPECT_EQ(kvTile(two.kernels[0]), 128);
  EXPECT_EQ(kvTile(one.kernels[0]), 192);
  // Persistent kernels keep 128 (with 192 their consumers' registers spill).
  Lowered persistentWide;
  PipelineOptions both = options;
  both.persistent = true;
  ASSERT_NO_FATAL_FAILURE(lowerText(kSoftmaxD128, persistentWide, both));
  EXPECT_TRUE(persistentWide.functions[0].kernels[0].signature.persistent);
  EXPECT_EQ(kvTile(persistentWide.functions[0].kernels[0]), 128);
  one.minKeys = kLongKeys;
  std::vector<const LoweredFunction *> plans = {&one, &two};
  auto choose = [&](int64_t seqQ, int64_t seqKv) {
    return chosenPlan(
        plans, {{1, seqQ, 4, 128}, {1, seqKv, 4, 128}, {1, seqKv, 4, 128}, {1, seqQ, 4, 128}});
  };
  EXPECT_EQ(choose(kLongKeys, kLongKeys), 0u);
  EXPECT_EQ(choose(16384, 16384), 0u);
  EXPECT_EQ(choose(1, kLongKeys), 0u) << "a short query against long keys: a long kv loop";
  EXPECT_EQ(choose(kLongKeys, kLongKeys - 1), 1u);
  EXPECT_EQ(choose(1024, 1024), 1u);

  // Left as they were: causal, D256 (kv 80 by shared memory), D64 (three consumer
  // warpgroups), D100 (rows of 200 bytes: no TMA, so not warp-specialised) and a
  // normaliser-free variant (ReLU: not timed so).
  auto replaced = [](std::string text, llvm::StringRef from, llvm::StringRef to) {
    for (size_t at = text.find(from.str()); at != std::string::npos;
         at = text.find(from.str(), at + to.size()))
      text.replace(at, from.size(), to.str());
    return text;
  };
  const std::string relu = replaced(
      replaced(kSoftmaxD128,
               "    %mx = attn.row_reduce max %s : f32\n    %d = arith.subf %s, %mx : f32\n"
               "    %w = math.exp %d : f32\n    %z = attn.row_reduce sum %w : f32\n"
               "    attn.normalize %w, %z : f32, f32",
               "    %one = arith.constant 1.0 : f32\n    attn.normalize %s, %one : f32, f32"),
      "    attn.yield %s : f32",
      "    %zero = arith.constant 0.0 : f32\n"
      "    %r = arith.maximumf %s, %zero : f32\n    attn.yield %r : f32");
  ASSERT_NE(relu, kSoftmaxD128);
  for (const std::string &text :
       {replaced(kSoftmaxD128, "%m = arith.constant true", "%m = arith.cmpi ule, %ki, %qi : index"),
        replaced(kSoftmaxD128, "x128xbf16", "x256xbf16"),
        replaced(kSoftmaxD128, "x128xbf16", "x64xbf16"),
        replaced(kSoftmaxD128, "x128xbf16", "x100xbf16"), relu}) {
    ASSERT_NE(text, kSoftmaxD128);
    Lowered a, b;
    ASSERT_NO_FATAL_FAILURE(lowerText(text, a));
    ASSERT_NO_FATAL_FAILURE(lowerText(text, b, options));
    EXPECT_EQ(a.functions[0].kernels[0].cudaSource, b.functions[0].kernels[0].cudaSource) << text;
  }
}

// The persistent plan of a function of three kernels (differential attention unfused: two
// attentions, a combine) is bounded by its attention kernels (D64: 192-row tiles, 8 of them up
// to 1536 rows); the combine, not persistent, does not bound it (nor could it: its grid comes
// from an intermediate).
TEST(FunctionPlanTest, PersistentPlanOfAThreeKernelFunction) {
  Lowered plain, persistent;
  PipelineOptions options;
  options.fuseCombine = false;
  ASSERT_NO_FATAL_FAILURE(lowerVariant("differential.mlir", plain, options));
  options.persistent = true;
  ASSERT_NO_FATAL_FAILURE(lowerVariant("differential.mlir", persistent, options));
  LoweredFunction &one = persistent.functions[0], &two = plain.functions[0];
  ASSERT_EQ(one.kernels.size(), 3u);
  EXPECT_TRUE(one.kernels[0].signature.persistent);
  EXPECT_TRUE(one.kernels[1].signature.persistent);
  EXPECT_FALSE(one.kernels[2].signature.persistent);
  one.maxRowBlocks = rt::kPersistentRowBlocks;
  std::vector<const LoweredFunction *> plans = {&one, &two};
  auto choose = [&](int64_t seqQ) {
    // q1, k1, q2, k2, v, lambda; the result.
    return chosenPlan(plans, {{3, seqQ, 4, 64},
                              {3, 130, 2, 64},
                              {3, seqQ, 4, 64},
                              {3, 130, 2, 64},
                              {3, 130, 2, 64},
                              {4},
                              {3, seqQ, 4, 64}});
  };
  EXPECT_EQ(choose(77), 0u);
  EXPECT_EQ(choose(8 * 192), 0u);
  EXPECT_EQ(choose(8 * 192 + 1), 1u);
  EXPECT_EQ(choose(4000), 1u);
}

TEST(FunctionPlanTest, MalformedPlansAreReported) {
  Lowered l;
  PipelineOptions unfused;
  unfused.fuseCombine = false;
  ASSERT_NO_FATAL_FAILURE(lowerVariant("differential.mlir", l, unfused));
  std::vector<LoweredKernel> kernels = l.functions[0].kernels;
  std::swap(kernels[0], kernels[2]);
  kernels[0].step = 0;
  kernels[2].step = 2;
  // The combine now comes first and reads intermediates nothing has written.
  EXPECT_EQ(groupByFunction(kernels).status().message(),
            "function 'differential_causal': kernel 'differential_causal_step2' reads "
            "intermediate #0 before any kernel writes it");
  kernels = l.functions[0].kernels;
  kernels[1].step = 5;
  EXPECT_EQ(groupByFunction(kernels).status().message(),
            "function 'differential_causal': kernel steps are not 0..2");
}

TEST(FunctionPlanTest, RunsOnTheGpu) {
  auto device = rt::Device::get(0);
  if (!device.ok())
    GTEST_SKIP() << "no CUDA device: " << device.status().message();
  Lowered l;
  mlir::DialectRegistry registry;
  registerMetaAttnDialects(registry);
  l.ctx.appendDialectRegistry(registry);
  l.module = mlir::parseSourceString<mlir::ModuleOp>(readVariant("differential.mlir"), &l.ctx);
  ASSERT_TRUE(l.module);
  auto func = l.module->lookupSymbol<mlir::func::FuncOp>("differential_full");
  ASSERT_TRUE(func);
  // Arguments: q1, k1, q2, k2 [2, S, 2, 32] f16, v, lambda [2] f32; Sq = 77, Skv = 130.
  std::vector<HostTensor> args;
  for (int i = 0; i < 5; ++i)
    args.push_back(
        HostTensor::random({2, i % 2 == 0 && i < 4 ? 77 : 130, 2, 32}, DType::f16, 11 + i, -1, 1));
  args.push_back(HostTensor::random({2}, DType::f32, 99, -1, 1));
  std::vector<const HostTensor *> argPtrs;
  for (const HostTensor &t : args)
    argPtrs.push_back(&t);
  std::vector<HostTensor> ref;
  std::string error;
  ASSERT_TRUE(mlir::succeeded(evaluateFunction(func, argPtrs, ref, error))) << error;

  mlir::OwningOpRef<mlir::ModuleOp> single = mlir::ModuleOp::create(l.module->getLoc());
  single->push_back(func->clone());
  auto functions = compileAttentionFunctions(*single, {}, *device);
  ASSERT_TRUE(functions.ok()) << functions.status().message();
  ASSERT_EQ(functions->size(), 1u);
  HostTensor out = HostTensor::zeros({2, 77, 2, 32}, DType::f16);
  std::vector<HostTensor *> host;
  for (HostTensor &t : args)
    host.push_back(&t);
  host.push_back(&out);
  std::vector<rt::DeviceBuffer> buffers;
  std::vector<DLTensor> tensors(host.size());
  rt::TensorList list;
  for (size_t i = 0; i < host.size(); ++i) {
    auto buffer = (*device)->allocate(host[i]->storage.size());
    ASSERT_TRUE(buffer.ok()) << buffer.status().message();
    ASSERT_TRUE((*device)
                    ->copyToDevice(buffer->get(), host[i]->storage.data(), host[i]->storage.size())
                    .ok());
    DLTensor &d = tensors[i];
    d.data = buffer->data();
    d.device = {kDLCUDA, 0};
    d.ndim = static_cast<int32_t>(host[i]->sizes.size());
    d.dtype =
        host[i]->dtype == DType::f16 ? DLDataType{kDLFloat, 16, 1} : DLDataType{kDLFloat, 32, 1};
    d.shape = host[i]->sizes.data();
    d.strides = nullptr;
    d.byte_offset = 0;
    buffers.push_back(std::move(*buffer));
    list.push_back(&d);
  }
  rt::Status ran = functions->front().run(list, *device);
  ASSERT_TRUE(ran.ok()) << ran.message();
  ASSERT_TRUE(
      (*device)->copyToHost(out.storage.data(), buffers.back().get(), out.storage.size()).ok());
  int64_t bad = 0;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t q = 0; q < 77; ++q)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t d = 0; d < 32; ++d) {
          double x = out.get({b, q, h, d}), y = ref[0].get({b, q, h, d});
          bad += !(std::fabs(x - y) <= 2e-3 + 2e-3 * std::fabs(y));
        }
  EXPECT_EQ(bad, 0);
}

} // namespace

// PipelineOptions::backgroundPlans: compileAttentionFunctions returns with the last plan loaded
// and the others (here the persistent and the long-keys plans of mask-free softmax D128) loading
// on a thread; calls run the last plan until theirs is loaded. Without it, every plan is loaded
// on return. Skipped without a GPU.
TEST(FunctionPlanTest, BackgroundPlansLoadAfterTheLastPlan) {
  auto device = rt::Device::get(0);
  if (!device.ok())
    GTEST_SKIP() << "no CUDA device: " << device.status().message();
  mlir::MLIRContext ctx;
  mlir::DialectRegistry registry;
  registerMetaAttnDialects(registry);
  ctx.appendDialectRegistry(registry);
  auto compile = [&](bool background) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(kSoftmaxD128, &ctx);
    EXPECT_TRUE(module);
    PipelineOptions options;
    options.backgroundPlans = background;
    return compileAttentionFunctions(*module, options, *device);
  };
  // A short grid (the persistent plan's), then long query and key sequences (the long-keys
  // plan's).
  std::vector<std::vector<int64_t>> shortShapes = {
      {2, 300, 4, 128}, {2, 300, 4, 128}, {2, 300, 4, 128}, {2, 300, 4, 128}};
  std::vector<std::vector<int64_t>> longShapes = {
      {1, 4096, 4, 128}, {1, kLongKeys, 4, 128}, {1, kLongKeys, 4, 128}, {1, 4096, 4, 128}};
  std::vector<DLTensor> shortTensors, longTensors;
  rt::TensorList shortCall = describe(shortShapes, shortTensors);
  rt::TensorList longCall = describe(longShapes, longTensors);

  {
    auto functions = compile(true);
    ASSERT_TRUE(functions.ok()) << functions.status().message();
    ASSERT_EQ(functions->size(), 1u);
    const AttentionFunction &f = functions->front();
    EXPECT_TRUE(f.isLoaded(2));
    auto early = f.choose(shortCall);
    ASSERT_TRUE(early.ok()) << early.status().message();
    // Whichever it is, it is loaded: the persistent plan if it already is, else the last.
    EXPECT_FALSE((*early)->kernels.empty());
    rt::Status waited = f.waitForPlans();
    ASSERT_TRUE(waited.ok()) << waited.message();
    ASSERT_EQ(f.plans().size(), 3u);
    for (size_t i = 0; i < 3; ++i)
      EXPECT_TRUE(f.isLoaded(i)) << i;
    auto chosen = f.choose(shortCall);
    ASSERT_TRUE(chosen.ok()) << chosen.status().message();
    EXPECT_EQ(*chosen, &f.plans()[0]);
    EXPECT_TRUE((*chosen)->kernels.front().signature().persistent);
    chosen = f.choose(longCall);
    ASSERT_TRUE(chosen.ok()) << chosen.status().message();
    EXPECT_EQ(*chosen, &f.plans()[1]);
  }
  {
    auto functions = compile(false);
    ASSERT_TRUE(functions.ok()) << functions.status().message();
    for (size_t i = 0; i < 3; ++i)
      EXPECT_TRUE(functions->front().isLoaded(i)) << i;
  }
  // Functions dropped while their background plans may still compile: the last one to go waits
  // for the thread.
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(compile(true).ok());
}
