//===- metaattn-run.cpp - compile an attention .mlir, run it, check it ------===//
//
// metaattn-run file.mlir [--device=auto|cpu|gpu] [--batch=B --seq-q=Sq --seq-kv=Skv]
//   Lowers each attention function of the file (one attn.attention, or several combined by
//   attn.combine: one kernel per op, intermediates allocated here), runs it on random inputs
//   on the GPU (NVRTC) or on the CPU tile executor, and checks every result against the
//   reference evaluator. Block maps are random 0/1, or drawn with a known density with
//   --block-density=F (benchmarks/bench_variants.py reproduces them for FlexAttention).
//   Exit code 0 when every function matches, 1 otherwise.
//
//===----------------------------------------------------------------------===//

#include "AttentionProblem.h"

#include "metaattn/Pipeline/Tuning.h"

#include "metaattn/Runtime/Compiler.h"
#include "metaattn/Runtime/Device.h"

#include "metaattn/Support/CommandLine.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <fstream>
#include <limits>
#include <new>

using namespace mlir;
using namespace metaattn;
namespace cl = llvm::cl;

static cl::OptionCategory runCategory("metaattn-run options");

static cl::opt<std::string> inputFile(cl::cat(runCategory), cl::Positional,
                                      cl::desc("<attention .mlir>"), cl::Required);
static cl::opt<std::string> deviceOpt(cl::cat(runCategory), "device", cl::desc("auto, cpu or gpu"),
                                      cl::init("auto"));
static cl::opt<std::string> functionOpt(cl::cat(runCategory), "function",
                                        cl::desc("run only this function (default: all)"));
static cl::opt<int64_t> batchOpt(cl::cat(runCategory), "batch", cl::desc("batch size"),
                                 cl::init(2));
static cl::opt<int64_t> seqQOpt(cl::cat(runCategory), "seq-q",
                                cl::desc("query length (the sequence length of attn.recurrent)"),
                                cl::init(77));
static cl::opt<int64_t> seqKvOpt(cl::cat(runCategory), "seq-kv",
                                 cl::desc("kv length (default: seq-q)"), cl::init(-1));
static cl::opt<uint64_t> seedOpt(cl::cat(runCategory), "seed", cl::desc("random seed"),
                                 cl::init(1));
static cl::opt<double> atolOpt(cl::cat(runCategory), "atol",
                               cl::desc("absolute tolerance (default: by dtype)"), cl::init(-1));
static cl::opt<double> rtolOpt(cl::cat(runCategory), "rtol",
                               cl::desc("relative tolerance (default: by dtype)"), cl::init(-1));
static cl::opt<bool> benchOpt(cl::cat(runCategory), "bench",
                              cl::desc("time the GPU kernel (median of --iters); a function of "
                                       "several kernels also each kernel alone"));
static cl::opt<int> itersOpt(cl::cat(runCategory), "iters", cl::desc("timed iterations"),
                             cl::init(20));
static cl::opt<bool> noCheckOpt(cl::cat(runCategory), "no-check",
                                cl::desc("skip the oracle (large benchmarks)"));
static cl::opt<double> blockDensityOpt(
    cl::cat(runCategory), "block-density",
    cl::desc("block maps (i32 inputs indexed by q/N or kv/N): keep each block with probability "
             "F in [0, 1] (deterministic for --seed), and every block holding a query's "
             "diagonal key kv = q + Skv - Sq, so causal rows are never empty; prints the number "
             "kept (default: random 0/1)"),
    cl::value_desc("F"), cl::init(-1));
static cl::opt<int64_t> documentsOpt(
    cl::cat(runCategory), "documents",
    cl::desc("id inputs (i32 inputs indexed by a plain q or kv axis, as a document mask's): N "
             "documents, ids in [0, N) sorted along the sequence, the same for query and key "
             "ids of equal lengths (default: unsorted ids in [0, 4))"),
    cl::value_desc("N"), cl::init(0));
static cl::opt<std::string> loadOpt(cl::cat(runCategory), "load-inputs",
                                    cl::desc("read q.bin, k.bin, v.bin from DIR"));
static cl::opt<std::string> saveOpt(cl::cat(runCategory), "save-output",
                                    cl::desc("write o.bin to DIR"));
static cl::opt<std::string>
    dumpOpt(cl::cat(runCategory), "dump-cuda",
            cl::desc("write the generated CUDA to FILE (also with --resource-report)"));
static cl::opt<std::string>
    targetOpt(cl::cat(runCategory), "target",
              cl::desc("tiling target: sm_80, sm_90, sm_90a (wgmma), gfx90a (default: the "
                       "GPU's architecture with --device=gpu, else sm_90a)"),
              cl::init(""));
static cl::opt<bool> resourceReportOpt(
    cl::cat(runCategory), "resource-report",
    cl::desc("compile each kernel with NVRTC and ptxas (no GPU needed) and print its registers, "
             "spills, shared memory and gemm paths, then stop (no run)"));
static cl::opt<std::string> tuningFileOpt(
    cl::cat(runCategory), "tuning-file",
    cl::desc("tuning file whose entries set the tile sizes of the attentions it knows (default: "
             "$METAATTN_TUNING_FILE); --autotune and --record-tuning write to it"),
    cl::init(""));
static cl::opt<bool>
    autotuneOpt(cl::cat(runCategory), "autotune",
                cl::desc("time candidate kv tiles (32/64/128) x stages (2/3), each with and "
                         "without ping-pong where that changes the kernel (unless --pingpong is "
                         "given), compiled in parallel with NVRTC; check the fastest against "
                         "the oracle at a small shape and record it in --tuning-file (without "
                         "a GPU: only compile them)"));
static cl::opt<bool>
    recordTuningOpt(cl::cat(runCategory), "record-tuning",
                    cl::desc("record --block-m/--block-n/--warps/--stages as the tuned sizes of "
                             "every attention in --tuning-file for the target, then stop"));
static cl::opt<int64_t> blockMOpt(cl::cat(runCategory), "block-m", cl::desc("query rows per block"),
                                  cl::init(0));
static cl::opt<int64_t> blockNOpt(cl::cat(runCategory), "block-n",
                                  cl::desc("kv positions per tile"), cl::init(0));
static cl::opt<int64_t> warpsOpt(cl::cat(runCategory), "warps", cl::desc("warps per block"),
                                 cl::init(0));
static cl::opt<int64_t> stagesOpt(cl::cat(runCategory), "stages", cl::desc("pipeline stages"),
                                  cl::init(0));
static cl::opt<int64_t> stateRowsOpt(cl::cat(runCategory), "state-rows",
                                     cl::desc("attn.recurrent: key rows of the state per block "
                                              "of the states kernel"),
                                     cl::init(0));
static cl::opt<int64_t> stateWarpsOpt(cl::cat(runCategory), "state-warps",
                                      cl::desc("attn.recurrent: warps per block of the states "
                                               "kernel"),
                                      cl::init(0));
static cl::opt<bool> stagedStateStoresOpt(
    cl::cat(runCategory), "staged-state-stores",
    cl::desc("attn.recurrent: the states kernel writes each chunk's state through shared "
             "memory in 16-byte row chunks where that keeps its blocks per multiprocessor "
             "(default true)"),
    cl::init(true));
static cl::opt<bool> precomputeGatesOpt(
    cl::cat(runCategory), "precompute-gates",
    cl::desc("attn.recurrent with vector gates (GLA): a gates kernel writes the cumulative "
             "log-gates once, read by the states and output kernels (default true; false: each "
             "of them transforms and scans the raw gates)"),
    cl::init(true));
static cl::opt<bool> fusedChunksOpt(
    cl::cat(runCategory), "fused-chunks",
    cl::desc("attn.recurrent (RetNet, gated retention, Mamba2, plain linear; GLA up to a key "
             "dim of 64): =true, one kernel per op keeps each block's columns of the state on "
             "chip; =false, a states kernel writes every chunk's state for an output kernel. "
             "Absent: on the GPU both, the fused one launched when its grid has 0.4 blocks per "
             "multiprocessor per 64-wide key tile at least; on the CPU and for "
             "--resource-report, the separate kernels. Where the state would not fit, the kernels "
             "stay separate"),
    cl::init(false));
static cl::opt<int64_t> exp2EmulationOpt(
    cl::cat(runCategory), "exp2-emulation",
    cl::desc("softmax-family weights: every K-th element of a fragment loop computes its exp on "
             "the FMA pipe (a cubic for 2^x, relative error 1.1e-4) instead of the "
             "special-function unit; the CPU executor computes every such exp that way "
             "(default 0: none)"),
    cl::init(0));
static cl::opt<bool> dropRowTermsOpt(
    cl::cat(runCategory), "drop-row-terms",
    cl::desc(
        "softmax-family attentions whose score has a term of the query row alone (ALiBi's "
        "-slope*q): the element loop computes every row's scores at the block's first row "
        "and the row statistic adds the difference back (default false: 3% slower for ALiBi on the "
        "H200)"),
    cl::init(false));
static cl::opt<bool> foldScoreScaleOpt(
    cl::cat(runCategory), "fold-score-scale",
    cl::desc("attentions whose score is y * c (c > 0; y the score s, or computed from it as a soft "
             "cap's tanh) and whose shift is the score (softmax): keep y raw and fold c into the "
             "exponent's fma (default true: 4-14% faster "
             "for softmax on the H200 at D 64/128)"),
    cl::init(true));
static cl::opt<bool> compactVectorOutputOpt(
    cl::cat(runCategory), "compact-vector-output",
    cl::desc("attn.recurrent with vector gates (GLA): the output kernel reuses one pair of "
             "sub-chunk operand tiles and one pipeline stage, two blocks per multiprocessor "
             "(default true; =false: one tile pair per sub-chunk and two stages, one block)"),
    cl::init(true));
static cl::opt<bool> warpSpecializeOpt(
    cl::cat(runCategory), "warp-specialize",
    cl::desc("sm_90a: feed the consumer warpgroups from a TMA producer warpgroup where the "
             "kernel fits (default true; =false keeps the cp.async pipeline)"),
    cl::init(true));
static cl::opt<bool> gemmOverlapOpt(
    cl::cat(runCategory), "gemm-overlap",
    cl::desc("warp-specialised kernels with two consumer warpgroups: each warpgroup runs a kv "
             "tile's output gemm while it computes the next tile's softmax (default true)"),
    cl::init(true));
static cl::opt<bool> pingpongOpt(
    cl::cat(runCategory), "pingpong",
    cl::desc("warp-specialised kernels: consumer warpgroups take turns on the tensor cores; "
             "true: in every kernel, false: in none (default: where the tile model picks it, "
             "shifted normalisers under a mask with a causal bound at head dims padded to 128 "
             "without a special function or kv-indexed input per score: 0.99-1.16x there on "
             "the H100 and H200; slower without a mask, for softcap and a bias matrix)"),
    cl::init(false));

namespace {
enum class PersistentMode { always, never, shortGrids };
} // namespace
static cl::opt<PersistentMode> persistentOpt(
    cl::cat(runCategory), "persistent", cl::ValueOptional,
    cl::desc("warp-specialised kernels walk the grid's tiles from one block per "
             "multiprocessor, loading the next tile while finishing one. Absent: the library's "
             "default (PipelineOptions::persistentShortGrids)"),
    cl::values(clEnumValN(PersistentMode::always, "", "always (as =true)"),
               clEnumValN(PersistentMode::always, "true", "always"),
               clEnumValN(PersistentMode::never, "false", "never"),
               clEnumValN(PersistentMode::shortGrids, "short-grids",
                          "on the GPU both forms, the persistent one run on grids of at most "
                          "8 query tiles (short sequences); elsewhere the plain one")));

namespace {
enum class LongKeysMode { always, never, plan };
} // namespace
static cl::opt<LongKeysMode> longKeysOpt(
    cl::cat(runCategory), "long-keys", cl::ValueOptional,
    cl::desc("tile for long key sequences: 192-wide kv tiles for mask-free softmax-like kernels "
             "with head dims <= 128. Absent: the library's default (PipelineOptions::"
             "longKeysPlan, on: both tilings compiled, the long-keys one launched from 8192 "
             "keys)"),
    cl::values(clEnumValN(LongKeysMode::always, "", "always (as =true)"),
               clEnumValN(LongKeysMode::always, "true", "always"),
               clEnumValN(LongKeysMode::never, "false", "never"),
               clEnumValN(LongKeysMode::plan, "plan",
                          "on the GPU both tilings, the long-keys one launched from 8192 keys; "
                          "elsewhere the other")));

static cl::opt<bool> backgroundPlansOpt(
    cl::cat(runCategory), "background-plans",
    cl::desc("on the GPU, a function is ready once its last plan (the one that suits every "
             "call) is loaded, its other plans compiling on a background thread; this tool "
             "waits for them before it picks a plan either way. false: every plan's kernels "
             "compile concurrently before the function is ready (default true, "
             "PipelineOptions::backgroundPlans)"),
    cl::init(true));

static cl::opt<bool> stagedOutputOpt(
    cl::cat(runCategory), "staged-output",
    cl::desc("attention kernels store the output through shared memory as whole 16-byte row "
             "chunks, where D = Dv and the types match: through the query's tile, or in "
             "persistent kernels a tile of their own where shared memory has room (default "
             "false; the short-grid plan's persistent kernels are staged either way)"),
    cl::init(false));

static cl::opt<bool> groupGuardsOpt(
    cl::cat(runCategory), "group-guards",
    cl::desc("warp-specialised kernels: each consumer warpgroup skips the kv tiles its own "
             "rows do not see (default true)"),
    cl::init(true));

static cl::opt<bool> axisReadsOpt(
    cl::cat(runCategory), "axis-reads",
    cl::desc("reads of custom inputs that vary along one axis of an element loop (a document "
             "mask's query or key ids) go through per-row or per-column register vectors, "
             "once per row or column (default true)"),
    cl::init(true));

static cl::opt<bool> prefetchReadsOpt(
    cl::cat(runCategory), "prefetch-reads",
    cl::desc("the rows of a custom input the score loop reads element by element (a bias "
             "matrix) are prefetched into L1 right after the async score gemm is issued "
             "(default false)"),
    cl::init(false));

static cl::opt<bool> stageAheadOpt(
    cl::cat(runCategory), "stage-ahead",
    cl::desc("the staged window (--stage-reads) is copied one kv iteration ahead, right "
             "after the tile's last reader (default false)"),
    cl::init(false));

static cl::opt<bool> stageReadsOpt(
    cl::cat(runCategory), "stage-reads",
    cl::desc("a window of a custom input the score loop of a warp-specialised kernel reads "
             "element by element (a bias matrix) is copied into shared memory while the "
             "score gemm runs (default true)"),
    cl::init(true));

static cl::opt<bool> fuseCombineOpt(
    cl::cat(runCategory), "fuse-combine",
    cl::desc("an attn.combine right after the attention that makes one of its values runs in "
             "that attention kernel's epilogue (a differential attention: two kernels, not "
             "three; default true)"),
    cl::init(true));

static cl::opt<bool> idBoundsOpt(
    cl::cat(runCategory), "id-bounds",
    cl::desc("kv tiles are classified by the bounds of custom integer inputs with a plain q or "
             "kv axis (a document mask's ids): skipped where the query and key ids cannot "
             "meet, unmasked inside one document (default true)"),
    cl::init(true));

static cl::opt<bool> monotoneMaxOpt(
    cl::cat(runCategory), "monotone-max",
    cl::desc("with the score scale folded, a score c * y whose y is nondecreasing in the dot "
             "product s (a soft cap's tanh): the row maximum is taken of s and mapped through "
             "y's function once per row (default true)"),
    cl::init(true));

static cl::opt<bool> boundedShiftOpt(
    cl::cat(runCategory), "bounded-shift",
    cl::desc("softmax-family attentions whose score is bounded whatever the dot product (a "
             "soft cap's c * tanh(s * k) with c up to about 52 in bf16, 10 in f16): the weights "
             "are exp(s - c') "
             "for a constant c' near the bound, with no running row maximum and no rescaling "
             "of the output (default false)"),
    cl::init(false));

static cl::opt<bool> lazyRescaleOpt(
    cl::cat(runCategory), "lazy-rescale",
    cl::desc("softmax-family attentions: the running row maximum moves only where a row's "
             "maximum passes it by more than 8 in base-2 exponent units (weights up to 256), "
             "and threads whose rescale factors are all exactly 1 skip the output's rescale "
             "(default false)"),
    cl::init(false));

static cl::opt<bool> splitIndexCastsOpt(
    cl::cat(runCategory), "split-index-casts",
    cl::desc("element loops convert a position (ALiBi's q - k) to float as its block-wide part "
             "plus the element's offset, each converted separately (default true)"),
    cl::init(true));

static cl::opt<bool> approxTanhOpt(
    cl::cat(runCategory), "approx-tanh",
    cl::desc("attention kernels compute tanh (a soft cap's) with tanh.approx.f32, one "
             "special-function op, relative error about 2^-11; false: CUDA's tanhf "
             "(default true)"),
    cl::init(true));

static cl::opt<bool> keptTilesOpt(
    cl::cat(runCategory), "kept-tiles",
    cl::desc("a kv loop whose tiles a mask skips by a custom input constant over each tile (a "
             "block-sparse map) walks only the kept tiles: each warp tests 32 tiles at once "
             "(default true)"),
    cl::init(true));

static cl::opt<bool> kvTileBoundsOpt(
    cl::cat(runCategory), "kv-tile-bounds",
    cl::desc("a pre-pass kernel bounds each kv tile's key ids of a document mask once per "
             "sequence; the attention reads two values per tile (default true)"),
    cl::init(true));

static cl::opt<bool> skipLoadsOpt(
    cl::cat(runCategory), "skip-loads",
    cl::desc("warp-specialised kernels: the producer evaluates an input-dependent kv tile "
             "guard (document ids) and copies no tile the consumers skip (default false: "
             "slower where nothing is skipped)"),
    cl::init(false));

static cl::opt<bool> prefetchBoundsOpt(
    cl::cat(runCategory), "prefetch-bounds",
    cl::desc("the next kv tile's id bounds are read behind the current tile's score gemm and "
             "carried through the loop (tile-prefetch-bounds; default false: slower on the H200)"),
    cl::init(false));

static int runMain(int argc, char **argv) {
  // --help lists this tool's options, not every option the linked LLVM libraries register.
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(argc, argv, "metaattn attention runner\n");
  run::RunOptions options;
  options.batch = batchOpt;
  options.seqQ = seqQOpt;
  // Only an absent --seq-kv means "the query length": a negative one given is an error below.
  options.seqKv = seqKvOpt.getNumOccurrences() ? seqKvOpt.getValue() : seqQOpt.getValue();
  options.seed = seedOpt;
  options.atol = atolOpt;
  options.rtol = rtolOpt;
  options.bench = benchOpt;
  options.iterations = itersOpt;
  // Autotuning times at the given shape unchecked (the oracle there would take minutes at the
  // lengths worth tuning for) and checks its winner at a small shape of its own.
  options.check = !noCheckOpt && !autotuneOpt;
  options.blockDensity = blockDensityOpt;
  options.documents = documentsOpt;
  options.loadInputs = loadOpt;
  options.saveOutput = saveOpt;
  options.dumpCuda = dumpOpt;
  options.pipeline.target = targetOpt;
  options.pipeline.blockM = blockMOpt;
  options.pipeline.blockN = blockNOpt;
  options.pipeline.warps = warpsOpt;
  options.pipeline.stages = stagesOpt;
  options.pipeline.stateRows = stateRowsOpt;
  options.pipeline.stateWarps = stateWarpsOpt;
  options.pipeline.stagedStateStores = stagedStateStoresOpt;
  options.pipeline.compactVectorOutput = compactVectorOutputOpt;
  options.pipeline.precomputeGates = precomputeGatesOpt;
  if (fusedChunksOpt.getNumOccurrences())
    options.pipeline.chunkKernels = fusedChunksOpt ? PipelineOptions::ChunkKernels::fused
                                                   : PipelineOptions::ChunkKernels::separate;
  options.pipeline.foldScoreScale = foldScoreScaleOpt;
  options.pipeline.dropRowTerms = dropRowTermsOpt;
  options.pipeline.exp2Emulation = exp2EmulationOpt;
  options.pipeline.warpSpecialize = warpSpecializeOpt;
  if (pingpongOpt.getNumOccurrences())
    options.pipeline.pingpong =
        pingpongOpt ? PipelineOptions::Pingpong::all : PipelineOptions::Pingpong::off;
  options.pipeline.gemmOverlap = gemmOverlapOpt;
  if (persistentOpt.getNumOccurrences()) {
    options.pipeline.persistent = persistentOpt == PersistentMode::always;
    options.pipeline.persistentShortGrids = persistentOpt == PersistentMode::shortGrids;
  }
  if (longKeysOpt.getNumOccurrences()) {
    options.pipeline.longKeys = longKeysOpt == LongKeysMode::always;
    options.pipeline.longKeysPlan = longKeysOpt == LongKeysMode::plan;
  }
  options.pipeline.backgroundPlans = backgroundPlansOpt;
  options.pipeline.groupGuards = groupGuardsOpt;
  options.pipeline.axisReads = axisReadsOpt;
  options.pipeline.prefetchReads = prefetchReadsOpt;
  options.pipeline.stageReads = stageReadsOpt;
  options.pipeline.stageAhead = stageAheadOpt;
  options.pipeline.idBounds = idBoundsOpt;
  options.pipeline.keptTiles = keptTilesOpt;
  options.pipeline.kvTileBounds = kvTileBoundsOpt;
  options.pipeline.approxTanh = approxTanhOpt;
  options.pipeline.monotoneMax = monotoneMaxOpt;
  options.pipeline.boundedShift = boundedShiftOpt;
  options.pipeline.lazyRescale = lazyRescaleOpt;
  options.pipeline.splitIndexCasts = splitIndexCastsOpt;
  options.pipeline.fuseCombine = fuseCombineOpt;
  options.pipeline.prefetchBounds = prefetchBoundsOpt;
  options.pipeline.skipLoads = skipLoadsOpt;
  options.pipeline.stagedOutput = stagedOutputOpt;
  options.pipeline.tuningFile = tuningFileOpt.empty() ? defaultTuningFile() : tuningFileOpt;
  if ((autotuneOpt || recordTuningOpt) && options.pipeline.tuningFile.empty()) {
    llvm::errs() << "metaattn-run: --autotune and --record-tuning need --tuning-file (or "
                    "$METAATTN_TUNING_FILE)\n";
    return 1;
  }
  if (options.batch < 1 || options.seqQ < 1 || options.seqKv < 1) {
    llvm::errs() << "metaattn-run: batch and lengths must be at least 1\n";
    return 1;
  }
  if (blockDensityOpt.getNumOccurrences() &&
      !(options.blockDensity >= 0 && options.blockDensity <= 1)) {
    llvm::errs() << "metaattn-run: --block-density must be in [0, 1]\n";
    return 1;
  }

  if (documentsOpt.getNumOccurrences() &&
      (options.documents < 1 || options.documents > std::numeric_limits<int32_t>::max())) {
    llvm::errs() << "metaattn-run: --documents must be in [1, 2^31 - 1] (the ids are i32)\n";
    return 1;
  }

  std::string device = deviceOpt;
  if (device == "auto")
    device = rt::Device::get(0).ok() ? "gpu" : "cpu";
  if (device != "cpu" && device != "gpu") {
    llvm::errs() << "metaattn-run: --device must be auto, cpu or gpu\n";
    return 1;
  }
  if (options.bench && device != "gpu") {
    llvm::errs() << "metaattn-run: --bench needs a GPU\n";
    return 1;
  }

  DialectRegistry registry;
  registerMetaAttnDialects(registry);
  MLIRContext context(registry);
  // A diagnostic names the op by its location in the input file; MLIR's default note that
  // prints the whole op in generic form (a screenful for an attention op) is left out.
  context.printOpOnDiagnostic(false);
  std::string error;
  auto buffer = openInputFile(inputFile, &error);
  if (!buffer) {
    llvm::errs() << "metaattn-run: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    exitAfterFailure(1); // not a return: see exitAfterFailure

  std::vector<func::FuncOp> funcs;
  for (func::FuncOp func : module->getOps<func::FuncOp>())
    if ((!func.getOps<attn::AttentionOp>().empty() || !func.getOps<attn::RecurrentOp>().empty()) &&
        (functionOpt.empty() || func.getSymName() == functionOpt))
      funcs.push_back(func);
  if (funcs.empty()) {
    llvm::errs() << "metaattn-run: " << inputFile
                 << " holds no function with an attn.attention or attn.recurrent"
                 << (functionOpt.empty() ? "" : " named " + functionOpt) << "\n";
    return 1;
  }

  if (recordTuningOpt) {
    std::string target = options.pipeline.target.empty()
                             ? (device == "gpu" ? rt::detectArch(**rt::Device::get(0)) : "sm_90a")
                             : options.pipeline.target;
    if (failed(run::recordTuning(funcs, options.pipeline, target, llvm::outs(), error))) {
      llvm::errs() << "metaattn-run: " << error << "\n";
      return 1;
    }
    return 0;
  }

  if (resourceReportOpt) {
    // The architecture the kernels are compiled for: the target's (an Ampere-style target
    // compiles as such; sm_90 and sm_90a both as sm_90a), else the GPU's, else sm_90a.
    PipelineOptions pipeline = options.pipeline;
    if (pipeline.target.empty())
      pipeline.target = device == "gpu" ? rt::detectArch(**rt::Device::get(0)) : "sm_90a";
    std::string arch = pipeline.target == "sm_90" ? "sm_90a" : pipeline.target;
    if (arch.rfind("sm_", 0) != 0) {
      llvm::errs() << "metaattn-run: --resource-report compiles CUDA; target " << arch
                   << " is not an NVIDIA architecture\n";
      return 1;
    }
    bool dumped = false;
    for (func::FuncOp func : funcs) {
      OwningOpRef<ModuleOp> single = ModuleOp::create(module->getLoc());
      single->push_back(func->clone());
      auto lowered = lowerToCuda(*single, pipeline);
      if (!lowered.ok()) {
        llvm::errs() << "metaattn-run: " << lowered.status().message() << "\n";
        return 1;
      }
      llvm::outs() << func.getSymName() << " (target " << pipeline.target << ")\n";
      if (!options.dumpCuda.empty()) {
        // One file for every kernel of every function reported.
        std::ofstream out(options.dumpCuda, dumped ? std::ios::app : std::ios::trunc);
        for (const LoweredKernel &kernel : *lowered)
          out << kernel.cudaSource;
        dumped = true;
      }
      if (failed(run::printResourceReport(*lowered, arch, llvm::outs(), error))) {
        llvm::errs() << "metaattn-run: " << func.getSymName() << ": " << error << "\n";
        return 1;
      }
    }
    return 0;
  }

  bool allPassed = true;
  for (func::FuncOp func : funcs) {
    run::Problem problem;
    if (func.getOps<attn::AttentionOp>().empty())
      llvm::outs() << func.getSymName() << " (B=" << options.batch << ", S=" << options.seqQ
                   << ", device=" << device << ")\n";
    else
      llvm::outs() << func.getSymName() << " (B=" << options.batch << ", Sq=" << options.seqQ
                   << ", Skv=" << options.seqKv << ", device=" << device << ")\n";
    if (failed(run::makeProblem(func, options, problem, error))) {
      llvm::errs() << "metaattn-run: " << func.getSymName() << ": " << error << "\n";
      return 1;
    }
    for (const std::string &note : problem.notes)
      llvm::outs() << "  " << note << "\n";
    // Lower a module holding only this function.
    OwningOpRef<ModuleOp> single = ModuleOp::create(module->getLoc());
    single->push_back(func->clone());
    if (autotuneOpt) {
      if (failed(run::autotune(*single, options, problem, device == "gpu", llvm::outs(), error))) {
        llvm::errs() << "metaattn-run: " << func.getSymName() << ": " << error << "\n";
        return 1;
      }
      continue;
    }
    std::optional<double> ms;
    LogicalResult ran = failure();
    if (device == "cpu") {
      auto lowered = lowerToCuda(*single, options.pipeline);
      if (!lowered.ok()) {
        llvm::errs() << "metaattn-run: " << lowered.status().message() << "\n";
        return 1;
      }
      ran = run::runOnCpu(*single, std::move(*lowered), func.getSymName(), problem, error);
    } else {
      ran = run::runOnGpu(*single, options, problem, ms, error);
    }
    if (failed(ran)) {
      llvm::errs() << "metaattn-run: " << func.getSymName() << ": " << error << "\n";
      return 1;
    }
    bool passed = true;
    if (options.check)
      passed = run::compareWithOracle(problem, options, llvm::outs());
    allPassed &= passed;
    if (ms) {
      double flops = run::attentionFlops(func, options.batch, options.seqQ, options.seqKv);
      llvm::outs() << "  time: " << *ms << " ms";
      if (flops > 0) // the recurrent family reports time only
        llvm::outs() << ", " << flops / (*ms * 1e-3) / 1e12 << " TFLOP/s";
      llvm::outs() << "\n";
    }
    llvm::outs() << (options.check ? (passed ? "PASS " : "FAIL ") : "RAN ") << func.getSymName()
                 << "\n";
  }
  return allPassed ? 0 : 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Host allocations that fail (shapes past the machine's memory: a head dim of 10^5, a
  // batch of 10^6) throw instead of aborting in LLVM's handler, and end the run with a message.
  std::set_new_handler(nullptr);
  try {
    return runMain(argc, argv);
  } catch (const std::bad_alloc &) {
    llvm::errs() << "metaattn-run: out of host memory: the shapes given need more than this "
                    "machine has (the inputs, the reference, or the CPU executor's buffers)\n";
    exitAfterFailure(1);
  }
}
