//===- Pipeline.cpp - the attn -> tile -> CUDA pipeline ---------------------===//
#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Pipeline/Tuning.h"

#include "metaattn/Conversion/AttnToTile/AttnToTile.h"
#include "metaattn/Dialect/Attn/IR/AttnDialect.h"
#include "metaattn/Dialect/Attn/Transforms/Passes.h"
#include "metaattn/Dialect/Tile/IR/TileDialect.h"
#include "metaattn/Dialect/Tile/Transforms/Passes.h"
#include "metaattn/Target/CUDA/CUDAEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace metaattn;

void metaattn::registerMetaAttnDialects(DialectRegistry &registry) {
  registry
      .insert<attn::AttnDialect, tile::TileDialect, arith::ArithDialect, math::MathDialect,
              func::FuncDialect, memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect>();
}

void metaattn::buildAttnToTilePipeline(OpPassManager &pm, const PipelineOptions &options) {
  pm.addPass(attn::createAttnMaskAnalysis());
  pm.addPass(attn::createAttnOnlineNormalize());
  std::string target = options.target.empty() ? std::string(kDefaultTarget) : options.target;
  ConvertAttnToTileOptions convert;
  convert.target = target;
  convert.blockM = options.blockM;
  convert.blockN = options.blockN;
  convert.numWarps = options.warps;
  convert.numStages = options.stages;
  convert.stateRows = options.stateRows;
  convert.stateWarps = options.stateWarps;
  convert.stagedStateStores = options.stagedStateStores;
  convert.compactVectorOutput = options.compactVectorOutput;
  convert.precomputeGates = options.precomputeGates;
  convert.fusedChunks = options.chunkKernels == PipelineOptions::ChunkKernels::fused;
  convert.foldScoreScale = options.foldScoreScale;
  convert.monotoneMax = options.monotoneMax;
  convert.dropRowTerms = options.dropRowTerms;
  convert.exp2Emulation = options.exp2Emulation;
  convert.boundedShift = options.boundedShift;
  convert.lazyRescale = options.lazyRescale;
  convert.idBounds = options.idBounds;
  convert.keptTiles = options.keptTiles;
  convert.kvTileBounds = options.kvTileBounds;
  convert.approxTanh = options.approxTanh;
  convert.fuseCombine = options.fuseCombine;
  convert.warpSpecialize = options.warpSpecialize;
  convert.markPingpong = options.warpSpecialize && options.gemmOverlap &&
                         options.pingpong == PipelineOptions::Pingpong::model;
  convert.gemmOverlap = options.warpSpecialize && options.gemmOverlap;
  // Not for persistent kernels: their consumers get 8 registers fewer (the producer keeps 40
  // for the walk over tiles), and with 192-wide kv tiles ptxas then spills 32 B and serialises
  // the wgmma (`metaattn-run --resource-report --persistent`, D72..D128).
  convert.longKeys = options.longKeys && !options.persistent;
  convert.stagedOutput = options.stagedOutput;
  convert.persistent = options.warpSpecialize && options.persistent;
  pm.addPass(createConvertAttnToTile(convert));
  OpPassManager &kernels = pm.nest<tile::KernelOp>();
  kernels.addPass(tile::createTileUnswitchParallel());
  kernels.addPass(tile::createTileInferLayout());
  kernels.addPass(tile::createTileUseWgmma({target}));
  // Folds the branches constant for this kernel (a mask-free kernel's "tile not fully
  // masked" test) so that warp specialisation releases each stage right after its last use.
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(tile::createTilePipelinePlan());
  if (options.warpSpecialize)
    kernels.addPass(tile::createTileWarpSpecialize({target, /*verbose=*/false,
                                                    /*persistent=*/options.persistent,
                                                    /*skipLoads=*/options.skipLoads}));
  if (options.warpSpecialize && options.gemmOverlap)
    kernels.addPass(tile::createTileGemmOverlap());
  if (options.warpSpecialize && options.pingpong != PipelineOptions::Pingpong::off)
    kernels.addPass(tile::createTileWarpgroupPingpong(
        {/*onlyMarked=*/options.pingpong == PipelineOptions::Pingpong::model}));
  // After the passes that may put barriers or turns into the guards (it then leaves them).
  if (options.warpSpecialize && options.groupGuards)
    kernels.addPass(tile::createTileGroupGuards());
  kernels.addPass(tile::createTilePipelineExpand());
  kernels.addPass(tile::createTileHoistInvariantReads());
  if (options.prefetchBounds)
    kernels.addPass(tile::createTilePrefetchBounds());
  if (options.axisReads)
    kernels.addPass(tile::createTileHoistAxisReads());
  if (options.stageReads && options.warpSpecialize) {
    std::optional<TargetDesc> desc = TargetDesc::get(target);
    tile::TileStageElementReadsOptions stage;
    if (desc)
      stage.sharedBytes = desc->sharedBytesPerBlock;
    stage.ahead = options.stageAhead;
    kernels.addPass(tile::createTileStageElementReads(stage));
  }
  if (options.prefetchReads)
    kernels.addPass(tile::createTilePrefetchElementReads());
  if (options.splitIndexCasts)
    kernels.addPass(tile::createTileSplitIndexCasts());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
}

std::string metaattn::tuningArch(llvm::StringRef target, const PipelineOptions &options) {
  std::string arch = target.str();
  if (!options.warpSpecialize)
    arch += "+no-ws";
  if (options.pingpong == PipelineOptions::Pingpong::all)
    arch += "+pingpong";
  if (options.pingpong == PipelineOptions::Pingpong::off)
    arch += "+no-pingpong";
  if (!options.gemmOverlap)
    arch += "+no-gemm-overlap";
  if (options.persistent)
    arch += "+persistent";
  if (options.stagedOutput)
    arch += "+staged-output";
  if (!options.groupGuards)
    arch += "+no-group-guards";
  if (!options.axisReads)
    arch += "+no-axis-reads";
  if (!options.idBounds)
    arch += "+no-id-bounds";
  if (!options.fuseCombine)
    arch += "+no-fuse-combine";
  if (options.dropRowTerms)
    arch += "+drop-row-terms";
  if (options.exp2Emulation > 0)
    arch += "+exp2-emulation=" + std::to_string(options.exp2Emulation);
  if (!options.keptTiles)
    arch += "+no-kept-tiles";
  if (!options.kvTileBounds)
    arch += "+no-kv-tile-bounds";
  if (!options.approxTanh)
    arch += "+exact-tanh";
  if (!options.monotoneMax)
    arch += "+no-monotone-max";
  if (options.boundedShift)
    arch += "+bounded-shift";
  if (options.lazyRescale)
    arch += "+lazy-rescale";
  if (!options.splitIndexCasts)
    arch += "+no-split-index-casts";
  if (options.prefetchBounds)
    arch += "+prefetch-bounds";
  if (options.prefetchReads)
    arch += "+prefetch-reads";
  if (!options.stageReads)
    arch += "+no-stage-reads";
  if (options.stageReads && options.stageAhead)
    arch += "+stage-ahead";
  if (options.skipLoads)
    arch += "+skip-loads";
  if (options.chunkKernels == PipelineOptions::ChunkKernels::fused)
    arch += "+fused-chunks";
  return arch;
}

namespace {
/// `--metaattn-lower="target=sm_90 block-m=64 ..."`: PipelineOptions on the command line.
struct LowerPipelineOptions : public PassPipelineOptions<LowerPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("GPU architecture: sm_80, sm_90, sm_90a (wgmma), "
                                            "gfx90a (default sm_90a)"),
                             llvm::cl::init("")};
  Option<int64_t> blockM{*this, "block-m", llvm::cl::desc("query rows per block (0: model)"),
                         llvm::cl::init(0)};
  Option<int64_t> blockN{*this, "block-n", llvm::cl::desc("kv positions per tile (0: model)"),
                         llvm::cl::init(0)};
  Option<int64_t> warps{*this, "warps", llvm::cl::desc("warps per block (0: model)"),
                        llvm::cl::init(0)};
  Option<int64_t> stages{*this, "stages", llvm::cl::desc("pipeline stages (0: model)"),
                         llvm::cl::init(0)};
  Option<int64_t> stateRows{*this, "state-rows",
                            llvm::cl::desc("attn.recurrent: key rows of the state per block of "
                                           "the states kernel (0: model)"),
                            llvm::cl::init(0)};
  Option<int64_t> stateWarps{*this, "state-warps",
                             llvm::cl::desc("attn.recurrent: warps per block of the states "
                                            "kernel (0: model)"),
                             llvm::cl::init(0)};
  Option<bool> stagedStateStores{
      *this, "staged-state-stores",
      llvm::cl::desc("attn.recurrent: the states kernel writes each chunk's state through "
                     "shared memory where that keeps its blocks per multiprocessor (default "
                     "true)"),
      llvm::cl::init(true)};
  Option<bool> precomputeGates{
      *this, "precompute-gates",
      llvm::cl::desc("attn.recurrent with vector gates: a gates kernel writes the cumulative "
                     "log-gates once, read by the states and output kernels (default true)"),
      llvm::cl::init(true)};
  Option<bool> fusedChunks{
      *this, "fused-chunks",
      llvm::cl::desc("attn.recurrent: one kernel keeps the state on chip where it fits "
                     "(default false)"),
      llvm::cl::init(false)};
  Option<bool> compactVectorOutput{
      *this, "compact-vector-output",
      llvm::cl::desc("attn.recurrent with vector gates: the output kernel reuses one pair of "
                     "sub-chunk operand tiles and one stage, two blocks per multiprocessor "
                     "(default true: 20% faster on the H200 at Dk = Dv = 128)"),
      llvm::cl::init(true)};
  Option<int64_t> exp2Emulation{
      *this, "exp2-emulation",
      llvm::cl::desc("softmax-family weights: every K-th element's exp on the FMA pipe "
                     "(default 0: none)"),
      llvm::cl::init(0)};
  Option<bool> dropRowTerms{
      *this, "drop-row-terms",
      llvm::cl::desc("softmax-family attentions whose score has a term of the query row alone "
                     "(ALiBi): the element loop computes it at the block's first row "
                     "(default false: slower)"),
      llvm::cl::init(false)};
  Option<bool> foldScoreScale{
      *this, "fold-score-scale",
      llvm::cl::desc("softmax-family attentions with a score y * c (c > 0; y the score or computed "
                     "from it): raw y, c folded into the exponent's fma (default true)"),
      llvm::cl::init(true)};
  Option<bool> monotoneMax{
      *this, "monotone-max",
      llvm::cl::desc("with fold-score-scale, a score y * c whose y is nondecreasing in the dot "
                     "product s (a soft cap's tanh): the row maximum of s, mapped through y's "
                     "function once per row (default true)"),
      llvm::cl::init(true)};
  Option<bool> boundedShift{
      *this, "bounded-shift",
      llvm::cl::desc("softmax-family attentions whose score is bounded whatever the dot "
                     "product (a soft cap): a constant shift near the bound, no running row "
                     "maximum, no rescaling (default false)"),
      llvm::cl::init(false)};
  Option<bool> lazyRescale{
      *this, "lazy-rescale",
      llvm::cl::desc("softmax-family attentions: the running maximum moves only where a row's "
                     "maximum passes it by more than 2^8 in the weights; threads whose rescale "
                     "factors are all 1 skip the output's rescale (default false)"),
      llvm::cl::init(false)};
  Option<bool> splitIndexCasts{
      *this, "split-index-casts",
      llvm::cl::desc("element loops convert a position's block-wide part and its element "
                     "offset to float separately (default true)"),
      llvm::cl::init(true)};
  Option<bool> pingpong{*this, "pingpong",
                        llvm::cl::desc("warp-specialised kernels: consumer warpgroups take "
                                       "turns on the tensor cores, true: in every kernel, "
                                       "false: in none (default: where the tile model picks "
                                       "it: shifted normalisers under a mask with a causal "
                                       "bound at head dims padded to 128, no special "
                                       "function or kv-indexed input per score)"),
                        llvm::cl::init(false)};
  Option<bool> gemmOverlap{*this, "gemm-overlap",
                           llvm::cl::desc("warp-specialised kernels: run a tile's output gemm "
                                          "behind the next tile's softmax (default true)"),
                           llvm::cl::init(true)};
  Option<bool> persistent{*this, "persistent",
                          llvm::cl::desc("warp-specialised kernels walk the grid's tiles from "
                                         "one block per multiprocessor (default false)"),
                          llvm::cl::init(false)};
  Option<bool> longKeys{*this, "long-keys",
                        llvm::cl::desc("tile for launches on at least 8192 keys only: "
                                       "192-wide kv tiles for mask-free softmax-like kernels "
                                       "with head dims <= 128 (default false)"),
                        llvm::cl::init(false)};
  Option<bool> stagedOutput{*this, "staged-output",
                            llvm::cl::desc("attention outputs through the query's shared tile "
                                           "as 16-byte row chunks (default false)"),
                            llvm::cl::init(false)};
  Option<bool> axisReads{*this, "axis-reads",
                         llvm::cl::desc("reads of inputs that vary along one axis of an element "
                                        "loop go through row or column vectors (default true)"),
                         llvm::cl::init(true)};
  Option<bool> prefetchReads{*this, "prefetch-reads",
                             llvm::cl::desc("the rows of a matrix input the score loop reads "
                                            "are prefetched into L1 right after the score gemm "
                                            "(default false)"),
                             llvm::cl::init(false)};
  Option<bool> stageReads{*this, "stage-reads",
                          llvm::cl::desc("a window of a matrix input the score loop reads is "
                                         "copied into shared memory while the score gemm runs "
                                         "(default true)"),
                          llvm::cl::init(true)};
  Option<bool> stageAhead{*this, "stage-ahead",
                          llvm::cl::desc("the staged window is copied one kv iteration ahead, "
                                         "right after the tile's last reader (default false)"),
                          llvm::cl::init(false)};
  Option<bool> fuseCombine{*this, "fuse-combine",
                           llvm::cl::desc("an attn.combine runs in the epilogue of the "
                                          "attention right before it (default true)"),
                           llvm::cl::init(true)};
  Option<bool> idBounds{*this, "id-bounds",
                        llvm::cl::desc("tiles classified by the bounds of inputs with a plain "
                                       "q or kv axis, document ids (default true)"),
                        llvm::cl::init(true)};
  Option<bool> keptTiles{*this, "kept-tiles",
                         llvm::cl::desc("a kv loop whose tiles a block-sparse map skips walks "
                                        "only the kept tiles (default true)"),
                         llvm::cl::init(true)};
  Option<bool> kvTileBounds{*this, "kv-tile-bounds",
                            llvm::cl::desc("a pre-pass bounds each kv tile's ids of a document "
                                           "mask once per sequence (default true)"),
                            llvm::cl::init(true)};
  Option<bool> approxTanh{*this, "approx-tanh",
                          llvm::cl::desc("attention kernels compute tanh (a soft cap's) with "
                                         "the special-function unit's tanh.approx.f32 "
                                         "(default true)"),
                          llvm::cl::init(true)};
  Option<bool> prefetchBounds{
      *this, "prefetch-bounds",
      llvm::cl::desc("a kv tile's id bounds are read one iteration "
                     "early, behind the score gemm (default false: slower)"),
      llvm::cl::init(false)};
  Option<bool> skipLoads{*this, "skip-loads",
                         llvm::cl::desc("warp-specialised kernels: the producer copies no kv "
                                        "tile that an input-dependent guard (document ids) "
                                        "skips (default false: slower where nothing is "
                                        "skipped)"),
                         llvm::cl::init(false)};
  Option<bool> groupGuards{*this, "group-guards",
                           llvm::cl::desc("warp-specialised kernels: each consumer warpgroup "
                                          "skips the kv tiles its own rows do not see "
                                          "(default true)"),
                           llvm::cl::init(true)};
  Option<bool> warpSpecialize{*this, "warp-specialize",
                              llvm::cl::desc("sm_90a: TMA producer warpgroup + consumers where "
                                             "the kernel fits (default true)"),
                              llvm::cl::init(true)};
};
} // namespace

void metaattn::registerMetaAttnPipelines() {
  PassPipelineRegistration<LowerPipelineOptions>(
      "metaattn-lower", "attn IR to pipelined tile kernels (tile sizes from the model)",
      [](OpPassManager &pm, const LowerPipelineOptions &cl) {
        PipelineOptions options;
        options.target = cl.target;
        options.blockM = cl.blockM;
        options.blockN = cl.blockN;
        options.warps = cl.warps;
        options.stages = cl.stages;
        options.stateRows = cl.stateRows;
        options.stateWarps = cl.stateWarps;
        options.stagedStateStores = cl.stagedStateStores;
        options.compactVectorOutput = cl.compactVectorOutput;
        options.precomputeGates = cl.precomputeGates;
        options.chunkKernels = cl.fusedChunks ? PipelineOptions::ChunkKernels::fused
                                              : PipelineOptions::ChunkKernels::separate;
        options.foldScoreScale = cl.foldScoreScale;
        options.monotoneMax = cl.monotoneMax;
        options.boundedShift = cl.boundedShift;
        options.lazyRescale = cl.lazyRescale;
        options.splitIndexCasts = cl.splitIndexCasts;
        options.dropRowTerms = cl.dropRowTerms;
        options.exp2Emulation = cl.exp2Emulation;
        options.warpSpecialize = cl.warpSpecialize;
        if (cl.pingpong.hasValue())
          options.pingpong =
              cl.pingpong ? PipelineOptions::Pingpong::all : PipelineOptions::Pingpong::off;
        options.gemmOverlap = cl.gemmOverlap;
        options.persistent = cl.persistent;
        options.longKeys = cl.longKeys;
        options.stagedOutput = cl.stagedOutput;
        options.groupGuards = cl.groupGuards;
        options.axisReads = cl.axisReads;
        options.prefetchReads = cl.prefetchReads;
        options.stageReads = cl.stageReads;
        options.stageAhead = cl.stageAhead;
        options.idBounds = cl.idBounds;
        options.keptTiles = cl.keptTiles;
        options.kvTileBounds = cl.kvTileBounds;
        options.approxTanh = cl.approxTanh;
        options.fuseCombine = cl.fuseCombine;
        options.prefetchBounds = cl.prefetchBounds;
        options.skipLoads = cl.skipLoads;
        buildAttnToTilePipeline(pm, options);
      });
}

/// The kernel's place in its function (set by convert-attn-to-tile). A kernel without these
/// attributes is a function of its own: its inputs are the arguments, its outputs the results.
static LogicalResult readBindings(tile::KernelOp kernel, LoweredKernel &lowered) {
  auto function = kernel->getAttrOfType<StringAttr>(kFunctionAttr);
  auto step = kernel->getAttrOfType<IntegerAttr>(kStepAttr);
  auto bindings = kernel->getAttrOfType<ArrayAttr>(kBindingsAttr);
  if (!function && !step && !bindings) {
    lowered.function = lowered.name;
    unsigned args = 0, results = 0;
    for (const rt::TensorParam &p : lowered.signature.params)
      lowered.bindings.push_back(p.isOutput ? ParamBinding{ParamBinding::Result, results++}
                                            : ParamBinding{ParamBinding::Argument, args++});
    return success();
  }
  if (!function || !step || step.getInt() < 0 || !bindings ||
      bindings.size() != lowered.signature.params.size())
    return failure();
  lowered.function = function.getValue().str();
  lowered.step = step.getInt();
  for (Attribute attr : bindings) {
    auto text = dyn_cast<StringAttr>(attr);
    if (!text)
      return failure();
    auto [kind, number] = text.getValue().split(':');
    ParamBinding binding;
    if (number.getAsInteger(10, binding.index))
      return failure();
    if (kind == "arg")
      binding.kind = ParamBinding::Argument;
    else if (kind == "result")
      binding.kind = ParamBinding::Result;
    else if (kind == "temp")
      binding.kind = ParamBinding::Temporary;
    else
      return failure();
    lowered.bindings.push_back(binding);
  }
  return success();
}

/// `file:line:col` for a location in a source file (as compilers print it), else the location
/// as MLIR prints it.
static void printDiagnosticLocation(llvm::raw_ostream &os, Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>()) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":" << file.getColumn();
    return;
  }
  os << loc;
}

rt::StatusOr<std::vector<LoweredKernel>> metaattn::lowerToCuda(ModuleOp module,
                                                               const PipelineOptions &options) {
  std::string diagnostics;
  llvm::raw_string_ostream diagOs(diagnostics);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error ||
        diag.getSeverity() == DiagnosticSeverity::Warning) {
      printDiagnosticLocation(diagOs, diag.getLocation());
      diagOs << (diag.getSeverity() == DiagnosticSeverity::Error ? ": error: " : ": warning: ")
             << diag << "\n";
      for (Diagnostic &note : diag.getNotes()) {
        printDiagnosticLocation(diagOs, note.getLocation());
        diagOs << ": note: " << note << "\n";
      }
    }
    return success();
  });
  if (!options.tuningFile.empty()) {
    auto table = TuningTable::load(options.tuningFile);
    if (!table.ok())
      return table.status();
    applyTuning(module, *table,
                tuningArch(options.target.empty() ? llvm::StringRef(kDefaultTarget)
                                                  : llvm::StringRef(options.target),
                           options));
  }
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  buildAttnToTilePipeline(pm, options);
  if (failed(pm.run(module)))
    return rt::Status::error("lowering attn IR to tile kernels failed:\n{}", diagnostics);
  std::vector<LoweredKernel> kernels;
  std::string target = options.target.empty() ? std::string(kDefaultTarget) : options.target;
  std::optional<TargetDesc> desc = TargetDesc::get(target);
  for (tile::KernelOp kernel : module.getOps<tile::KernelOp>()) {
    FailureOr<EmittedKernel> emitted = emitCuda(kernel);
    if (failed(emitted))
      return rt::Status::error("printing CUDA for @{} failed:\n{}", kernel.getSymName().str(),
                               diagnostics);
    // Tile sizes from the options or a tuning file can ask for more than the model would.
    int shared = emitted->signature.dynamicSharedBytes;
    bool sizesGiven = options.blockM || options.blockN || options.warps || options.stages ||
                      options.stateRows || options.stateWarps || !options.tuningFile.empty();
    if (desc && shared > desc->sharedBytesPerBlock && sizesGiven)
      return rt::Status::error(
          "kernel @{} needs {} bytes of shared memory, more than {} gives a block ({}): its "
          "tile sizes (block-m, block-n, stages, from the options or a tuning file) are too "
          "large for its head dims; use smaller ones or leave them to the model",
          kernel.getSymName().str(), shared, target, desc->sharedBytesPerBlock);
    if (desc && shared > desc->sharedBytesPerBlock)
      return rt::Status::error(
          "kernel @{} needs {} bytes of shared memory, more than {} gives a block ({}): the "
          "tile model chose sizes that do not fit these head dims on this target (a bug in "
          "the model; smaller --block-n, --block-m or --stages work around it)",
          kernel.getSymName().str(), shared, target, desc->sharedBytesPerBlock);
    LoweredKernel lowered{kernel.getSymName().str(), std::move(emitted->source),
                          std::move(emitted->signature)};
    if (failed(readBindings(kernel, lowered)))
      return rt::Status::error("kernel @{} has malformed {} / {} / {} attributes", lowered.name,
                               kFunctionAttr.str(), kStepAttr.str(), kBindingsAttr.str());
    kernels.push_back(std::move(lowered));
  }
  if (kernels.empty())
    return rt::Status::error("the module holds no attention function to compile");
  return kernels;
}
