//===- metaattn-demo.cpp - the main job: build, compile, run and check variants ===//
//
// Builds a set of attention variants with the C++ builders (softmax shapes, a custom score
// function and mask, differential attention, the linear family), lowers each through the
// compiler, runs it on the GPU when there is one (NVRTC, the runtime) or else on the CPU tile
// executor, and checks every result against the reference evaluator. Exit code 0 when every
// variant matches.
//
//   metaattn-demo [--device=auto|cpu|gpu] [--print-ir] [--print-cuda]
//
//===----------------------------------------------------------------------===//

#include "../metaattn-run/AttentionProblem.h"

#include "metaattn/Frontend/LinearVariants.h"
#include "metaattn/Frontend/Variants.h"
#include "metaattn/Runtime/Device.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"

#include <chrono>
#include <functional>

using namespace mlir;
using namespace metaattn;
namespace cl = llvm::cl;

static cl::OptionCategory demoCategory("metaattn-demo options");
static cl::opt<std::string> deviceOpt(cl::cat(demoCategory), "device", cl::desc("auto, cpu or gpu"),
                                      cl::init("auto"));
static cl::opt<bool> printIr(cl::cat(demoCategory), "print-ir",
                             cl::desc("print each variant's attn IR"));
static cl::opt<bool> printCuda(cl::cat(demoCategory), "print-cuda",
                               cl::desc("print each variant's generated CUDA"));

namespace {

/// Builds one variant's module under the given function name.
using BuildFn =
    std::function<FailureOr<OwningOpRef<ModuleOp>>(MLIRContext &, StringRef, std::string &)>;

struct Variant {
  const char *name;
  const char *what;
  BuildFn build;
};

/// The build function of any builder (AttentionBuilder, CombinedAttentionBuilder,
/// RecurrentBuilder).
template <typename Builder> BuildFn from(Builder builder) {
  return [builder](MLIRContext &ctx, StringRef name, std::string &error) {
    return builder.build(ctx, name, error);
  };
}

frontend::LinearOptions linear(int64_t heads, int64_t qkHeads, int64_t keyDim, int64_t valueDim) {
  frontend::LinearOptions o;
  o.numHeads = heads;
  o.numQkHeads = qkHeads;
  o.keyDim = keyDim;
  o.valueDim = valueDim;
  return o;
}

frontend::SoftmaxOptions softmax(int64_t heads, int64_t kvHeads, int64_t dim, int64_t valueDim,
                                 bool causal, frontend::DType dtype = frontend::DType::BF16) {
  frontend::SoftmaxOptions o;
  o.numHeads = heads;
  o.numKvHeads = kvHeads;
  o.headDim = dim;
  o.valueDim = valueDim;
  o.causal = causal;
  o.dtype = dtype;
  o.withLse = true;
  return o;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --help lists this tool's options, not every option the linked LLVM libraries register.
  cl::HideUnrelatedOptions(demoCategory);
  cl::ParseCommandLineOptions(argc, argv, "metaattn demo: build, compile, run, check\n");
  std::string device = deviceOpt;
  if (device == "auto") {
    auto gpu = rt::Device::get(0);
    device = gpu.ok() ? "gpu" : "cpu";
    if (!gpu.ok())
      llvm::outs() << "no GPU (" << gpu.status().message()
                   << "); running on the CPU tile executor\n";
  }
  frontend::VariantOptions small;
  small.numHeads = 4;
  small.numKvHeads = 2;
  small.headDim = 64;
  frontend::SoftcapOptions softcap;
  static_cast<frontend::VariantOptions &>(softcap) = small;
  softcap.causal = true;
  frontend::DocumentMaskOptions documents;
  static_cast<frontend::VariantOptions &>(documents) = small;
  documents.causal = true;
  const Variant variants[] = {
      {"causal_mha_d64", "causal softmax, 4 heads, D = 64",
       from(frontend::softmaxAttention(softmax(4, 4, 64, 64, true)))},
      {"gqa4_causal_d128", "causal softmax, GQA 8:2, D = 128",
       from(frontend::softmaxAttention(softmax(8, 2, 128, 128, true)))},
      {"mla_style_d192_dv128", "causal softmax, D = 192, Dv = 128 (DeepSeek-V2 shape)",
       from(frontend::softmaxAttention(softmax(2, 2, 192, 128, true)))},
      {"d128_dv256", "softmax, D = 128, Dv = 256",
       from(frontend::softmaxAttention(softmax(2, 2, 128, 256, false)))},
      {"f16_d64", "softmax in fp16, D = 64",
       from(frontend::softmaxAttention(softmax(2, 1, 64, 64, false, frontend::DType::F16)))},
      {"softcap_causal", "causal softmax over 50·tanh(s/50), GQA 4:2",
       from(frontend::softcapAttention(softcap))},
      {"differential_causal", "differential attention: two softmaxes combined with λ per head",
       from(frontend::differentialAttention(small, /*causal=*/true))},
      {"document_mask_causal",
       "causal softmax within documents (3 per sequence, sorted ids): kv tiles across "
       "documents skipped, tiles inside one unmasked",
       from(frontend::documentMaskAttention(documents))},
      {"gated_retention", "linear attention with a decay per token (chunked, two kernels)",
       from(frontend::gatedRetention(linear(4, 4, 64, 64)))},
      {"mamba2_ssd", "Mamba2 SSD: one group of B/C for 4 heads, state 64, head dim 32",
       from(frontend::mamba2Ssd(linear(4, 1, 64, 32)))},
  };
  run::RunOptions options;
  options.batch = 2;
  options.seqQ = device == "gpu" ? 1000 : 77;
  options.seqKv = device == "gpu" ? 1234 : 130;
  options.documents = 3; // the document mask's ids (no other variant has id inputs)

  DialectRegistry registry;
  registerMetaAttnDialects(registry);
  MLIRContext context(registry);
  int failures = 0;
  llvm::outs() << "device: " << device << ", B = " << options.batch << ", Sq = " << options.seqQ
               << ", Skv = " << options.seqKv << "\n";
  for (const Variant &v : variants) {
    std::string error;
    auto module = v.build(context, v.name, error);
    if (failed(module)) {
      llvm::errs() << v.name << ": the builder failed: " << error << "\n";
      ++failures;
      continue;
    }
    if (printIr)
      (*module)->print(llvm::outs());
    func::FuncOp func = *(*module)->getOps<func::FuncOp>().begin();
    run::Problem problem;
    auto start = std::chrono::steady_clock::now();
    if (failed(run::makeProblem(func, options, problem, error))) {
      llvm::errs() << v.name << ": " << error << "\n";
      ++failures;
      continue;
    }
    OwningOpRef<ModuleOp> lowered = (*module)->clone();
    std::optional<double> ms;
    LogicalResult ran = failure();
    if (device == "gpu") {
      if (printCuda)
        options.dumpCuda = std::string("/dev/stdout");
      ran = run::runOnGpu(*lowered, options, problem, ms, error);
    } else {
      auto cuda = lowerToCuda(*lowered, options.pipeline);
      if (!cuda.ok()) {
        error = cuda.status().message();
      } else {
        if (printCuda)
          llvm::outs() << cuda->front().cudaSource;
        ran = run::runOnCpu(*lowered, std::move(*cuda), v.name, problem, error);
      }
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (failed(ran)) {
      llvm::errs() << v.name << ": " << error << "\n";
      ++failures;
      continue;
    }
    llvm::outs() << v.name << " — " << v.what << "\n";
    bool ok = run::compareWithOracle(problem, options, llvm::outs());
    failures += !ok;
    llvm::outs() << (ok ? "PASS " : "FAIL ") << v.name << " (" << llvm::format("%.1f", seconds)
                 << " s including the oracle)\n";
  }
  llvm::outs() << (failures ? "FAILED: " : "all variants match the oracle: ")
               << (std::size(variants) - failures) << " of " << std::size(variants)
               << " passed on the " << device << "\n";
  return failures ? 1 : 0;
}
