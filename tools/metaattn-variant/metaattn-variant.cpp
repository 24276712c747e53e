//===- metaattn-variant.cpp - print a library variant as attn IR ------------===//
//
//   metaattn-variant softcap --heads=16 --dim=128 [--kv-heads=N] [--value-dim=N]
//                    [--causal] [--f16] [--lse] [--name=NAME] [--block-q=N --block-kv=N]
//
// Builds one factory of frontend/Variants.h with the given shape and prints the module, ready
// for metaattn-run or metaattn-opt. Used by the benchmarks to make the PERF.md shapes.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Frontend/LinearVariants.h"
#include "metaattn/Frontend/Variants.h"
#include "metaattn/Pipeline/Pipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace metaattn::frontend;
namespace cl = llvm::cl;

static cl::OptionCategory variantCategory("metaattn-variant options");
static cl::opt<std::string>
    variant(cl::cat(variantCategory), cl::Positional, cl::Required,
            cl::desc("<softmax|sigmoid|relu|softcap|alibi|relative_bias|"
                     "sliding_window|chunked|prefix_lm|sink|softpick|"
                     "retnet|document_mask|block_sparse|"
                     "differential|linear|retnet_recurrent|gated_retention|gla|"
                     "mamba2_ssd>"));
static cl::opt<int64_t> heads(cl::cat(variantCategory), "heads", cl::init(16),
                              cl::desc("query heads"));
static cl::opt<int64_t> kvHeads(cl::cat(variantCategory), "kv-heads", cl::init(0),
                                cl::desc("kv heads (default: heads)"));
static cl::opt<int64_t> dim(cl::cat(variantCategory), "dim", cl::init(128), cl::desc("head dim D"));
static cl::opt<int64_t> valueDim(cl::cat(variantCategory), "value-dim", cl::init(0),
                                 cl::desc("value dim (default: D)"));
static cl::opt<bool> causal(cl::cat(variantCategory), "causal",
                            cl::desc("causal (variants that have the option)"));
static cl::opt<bool> f16(cl::cat(variantCategory), "f16", cl::desc("fp16 instead of bf16"));
static cl::opt<std::string> biasType(cl::cat(variantCategory), "bias-type", cl::init("f32"),
                                     cl::desc("relative_bias: the bias matrix's element type "
                                              "(f32, bf16 or f16)"));
static cl::opt<bool> lse(cl::cat(variantCategory), "lse",
                         cl::desc("also return the row statistic"));
static cl::opt<std::string> name(cl::cat(variantCategory), "name", cl::init("attention"),
                                 cl::desc("function name"));
static cl::opt<int64_t> blockQ(cl::cat(variantCategory), "block-q", cl::init(128),
                               cl::desc("block_sparse: query block"));
static cl::opt<int64_t> blockKv(cl::cat(variantCategory), "block-kv", cl::init(128),
                                cl::desc("block_sparse: kv block"));

template <typename Options> static Options common() {
  Options o;
  o.numHeads = heads;
  o.numKvHeads = kvHeads ? kvHeads : heads;
  o.headDim = dim;
  if (valueDim)
    o.valueDim = valueDim;
  o.dtype = f16 ? DType::F16 : DType::BF16;
  o.withLse = lse;
  return o;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --help lists this tool's options, not every option the linked LLVM libraries register.
  cl::HideUnrelatedOptions(variantCategory);
  cl::ParseCommandLineOptions(argc, argv, "print a metaattn library variant as attn IR\n");
  std::optional<AttentionBuilder> builder;
  std::optional<RecurrentBuilder> recurrent;
  std::optional<CombinedAttentionBuilder> combined;
  std::string v = variant;
  // The linear family: --heads are v heads, --kv-heads the q/k heads (Mamba2's groups),
  // --dim the key dim (state size) and --value-dim the value dim (head dim).
  LinearOptions linear;
  linear.numHeads = heads;
  linear.numQkHeads = kvHeads ? kvHeads : heads;
  linear.keyDim = dim;
  linear.valueDim = valueDim ? valueDim : dim;
  linear.dtype = f16 ? DType::F16 : DType::BF16;
  if (v == "linear") {
    recurrent = linearAttention(linear);
  } else if (v == "retnet_recurrent") {
    recurrent = retnet(linear);
  } else if (v == "gated_retention") {
    recurrent = gatedRetention(linear);
  } else if (v == "gla") {
    recurrent = gla(linear);
  } else if (v == "mamba2_ssd") {
    recurrent = mamba2Ssd(linear);
  } else if (v == "softmax") {
    SoftmaxOptions o;
    o.numHeads = heads;
    o.numKvHeads = kvHeads ? kvHeads : heads;
    o.headDim = dim;
    o.valueDim = valueDim ? valueDim : dim;
    o.dtype = f16 ? DType::F16 : DType::BF16;
    o.causal = causal;
    o.withLse = lse;
    builder = softmaxAttention(o);
  } else if (v == "sigmoid") {
    auto o = common<SigmoidOptions>();
    o.causal = causal;
    builder = sigmoidAttention(o);
  } else if (v == "relu") {
    auto o = common<ReluOptions>();
    o.causal = causal;
    builder = reluAttention(o);
  } else if (v == "softcap") {
    auto o = common<SoftcapOptions>();
    o.causal = causal;
    builder = softcapAttention(o);
  } else if (v == "alibi") {
    auto o = common<AlibiOptions>();
    o.causal = causal;
    builder = alibiAttention(o);
  } else if (v == "relative_bias") {
    auto o = common<RelativeBiasOptions>();
    o.causal = causal;
    if (biasType == "bf16" || biasType == "f16") {
      o.biasType = biasType == "bf16" ? DType::BF16 : DType::F16;
    } else if (biasType != "f32") {
      llvm::errs() << "error: --bias-type must be f32, bf16 or f16, got '" << biasType << "'\n";
      return 1;
    }
    builder = relativeBiasAttention(o);
  } else if (v == "sliding_window") {
    auto o = common<SlidingWindowOptions>();
    o.left = 1024;
    builder = slidingWindowAttention(o);
  } else if (v == "chunked") {
    builder = chunkedAttention(common<ChunkedOptions>());
  } else if (v == "prefix_lm") {
    builder = prefixLMAttention(common<PrefixLMOptions>());
  } else if (v == "sink") {
    auto o = common<SinkOptions>();
    o.causal = causal;
    builder = sinkAttention(o);
  } else if (v == "softpick") {
    auto o = common<SoftpickOptions>();
    o.causal = causal;
    builder = softpickAttention(o);
  } else if (v == "retnet") {
    builder = retnetParallel(common<RetNetOptions>());
  } else if (v == "document_mask") {
    auto o = common<DocumentMaskOptions>();
    o.causal = causal;
    builder = documentMaskAttention(o);
  } else if (v == "block_sparse") {
    builder = blockSparseAttention(common<VariantOptions>(), blockQ, blockKv, causal);
  } else if (v == "differential") {
    combined = differentialAttention(common<VariantOptions>(), causal);
  } else {
    llvm::errs() << "metaattn-variant: unknown variant '" << v << "'\n";
    return 1;
  }
  mlir::DialectRegistry registry;
  metaattn::registerMetaAttnDialects(registry);
  mlir::MLIRContext ctx(registry);
  std::string error;
  auto module = recurrent ? recurrent->build(ctx, name, error)
                : builder ? builder->build(ctx, name, error)
                          : combined->build(ctx, name, error);
  if (failed(module)) {
    llvm::errs() << "metaattn-variant: " << error << "\n";
    return 1;
  }
  (*module)->print(llvm::outs());
  return 0;
}
