//===- Pipeline.h - attn -> tile -> CUDA compilation ---------------*- C++ -*-===//
//
// The pass pipeline from attn IR to tile kernels, and the end-to-end compile and launch entry
// point that applications (and metaattn-run) call.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_PIPELINE_PIPELINE_H
#define METAATTN_PIPELINE_PIPELINE_H

#include "metaattn/Runtime/Compiler.h"
#include "metaattn/Runtime/Device.h"
#include "metaattn/Runtime/KernelSignature.h"
#include "metaattn/Runtime/Status.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace metaattn {

/// Options of the attn-to-tile pipeline. Zero tile sizes mean "from the model".
struct PipelineOptions {
  /// GPU architecture the kernels are tiled for (sm_80, sm_90, sm_90a, gfx90a). Empty: the
  /// device's when compiling for one (compileAttention*), else sm_90a.
  std::string target;
  int64_t blockM = 0, blockN = 0, warps = 0, stages = 0;
  /// attn.recurrent's states kernel: key rows of the state per block and warps per block
  /// (0: from the model).
  int64_t stateRows = 0, stateWarps = 0;
  /// attn.recurrent's states kernel: write each chunk's state through shared memory (16-byte
  /// row chunks) where that keeps its blocks per multiprocessor; false: pair by pair.
  bool stagedStateStores = true;
  /// attn.recurrent with vector gates (GLA): the output kernel reuses one pair of sub-chunk
  /// operand tiles and one pipeline stage, for two blocks per multiprocessor (on by default:
  /// 20% faster on the H200 at Dk = Dv = 128, benchmarks/RESULTS.md).
  bool compactVectorOutput = true;
  /// attn.recurrent with vector gates: a gates kernel writes the cumulative log-gates once,
  /// read by the states and output kernels (on by default: 7-8% faster for GLA on the H200).
  bool precomputeGates = true;
  /// How attn.recurrent's chunked algorithm is split into kernels.
  enum class ChunkKernels {
    /// A states kernel writes every chunk's state to global memory for an output kernel
    /// (with a gates kernel before them for precomputed vector gates).
    separate,
    /// One kernel per op where the state fits (vector gates: a key dim of one key tile,
    /// 16·warps), each block walking the chunks of one value tile of one head with that part
    /// of the state in registers (RecurrentTileConfig::fused); `separate` where it does not.
    fused,
    /// Both forms, the fused one launched when its grid has 0.4 blocks per multiprocessor per
    /// 64-wide key tile of the state at least, else the separate kernels, which spread the
    /// chunks and the state's key tiles over more blocks: on the H200 the fused kernel is 1.2-1.6x
    /// faster for RetNet, YOCO and RFA-Big
    /// at their PERF.md shapes but 0.77x for Mamba2 at batch 1 (80 blocks for 132
    /// multiprocessors), and the batch is known only at launch (benchmarks/RESULTS.md).
    /// compileAttentionFunctions compiles both; lowering alone
    /// (lowerToCuda, metaattn-opt) gives `separate`.
    byGrid,
  };
  ChunkKernels chunkKernels = ChunkKernels::byGrid;
  /// Softmax-family attentions with a score y * c (c > 0; y the score s, or computed from it
  /// as a soft cap's tanh(s·k)): keep y raw and fold c into
  /// the exponent's fma (convert-attn-to-tile fold-score-scale; on by default: 4-14% faster
  /// for softmax on the H200 at D 64/128, even at D 256).
  bool foldScoreScale = true;
  /// With the score scale folded, a kept score y computed from the dot product s by a
  /// function g nondecreasing in it (a soft cap's tanh(s·k)): the row maximum is taken of s
  /// and mapped through g once per row (max g(s) = g(max s)), so the element loop computes g
  /// beside the maximum instead of before it (convert-attn-to-tile monotone-max).
  bool monotoneMax = true;
  /// Element loops convert a position (ALiBi's q - k) to float as its block-wide part plus
  /// the element's offset, each converted separately (tile-split-index-casts): one conversion
  /// per tile instead of an integer add and a conversion per element.
  bool splitIndexCasts = true;
  /// Softmax-family attentions whose score has a term of the query row alone (ALiBi's
  /// −slope·q): the element loop computes every row's scores at the block's first row, the
  /// row statistic adds the difference back (convert-attn-to-tile drop-row-terms). Off: ALiBi
  /// ran 3% slower with it on the H200 (B4 S4k and B1 S16k, benchmarks/RESULTS.md, thirtieth
  /// session), fewer instructions notwithstanding.
  bool dropRowTerms = false;
  /// K > 0: every K-th softmax weight of a fragment loop computes its exponential on the FMA
  /// pipe (exp2Poly, runtime/device/metaattn/math.cuh) instead of the special-function unit
  /// (convert-attn-to-tile exp2-emulation); 0: none (the default; an experiment, not timed).
  int64_t exp2Emulation = 0;
  /// A softmax-family attention whose score is bounded whatever the dot product (a soft
  /// cap's c·tanh(s·k), c <= 52 in bf16, c <= 10 in f16): the shift is a constant near the bound
  /// instead of the running row maximum, so the kernel takes no row maximum and rescales neither
  /// the output nor the row sums (convert-attn-to-tile bounded-shift). Off by default until timed.
  bool boundedShift = false;
  /// Softmax-family attentions with a running maximum: it moves only where a row's maximum
  /// passes it by more than 8 in base-2 exponent units (weights up to 2^8), so that most kv
  /// tiles rescale nothing, and threads whose rescale factors are all 1 skip the output's
  /// rescale (convert-attn-to-tile lazy-rescale). Off by default until timed.
  bool lazyRescale = false;
  /// A tuning file (metaattn/Pipeline/Tuning.h) whose entries for the target set the tile
  /// sizes of the attentions it knows (lowerToCuda applies it); empty: none. The sizes above,
  /// when set, still win.
  std::string tuningFile;
  /// On sm_90a, run the kv loop as a TMA producer warpgroup feeding consumer warpgroups
  /// (tile-warp-specialize) where it fits; false keeps the cp.async pipeline everywhere.
  bool warpSpecialize = true;
  /// In warp-specialised kernels, consumer warpgroups take turns on the tensor cores
  /// (tile-warpgroup-pingpong): in every such kernel (all), in none (off), or where the tile
  /// model picks it (model, the default: a shifted normaliser under a mask with a causal bound,
  /// head dims padded to 128, no special function or kv-indexed input per score: causal
  /// softmax, ALiBi, sinks, softpick, the differential, sliding windows, document masks, block
  /// maps, D72-D128; see TileConfig::pingpong). Causal softmax D128 ran 1.00-1.09x the default
  /// schedule on an H100 and 0.99-1.16x on the H200, the others 0.99-1.11x (H100); mask-free
  /// D128 0.94-1.04x, softcap 0.92x, a bias matrix 0.95x (benchmarks/RESULTS.md, thirty-eighth
  /// to fortieth sessions).
  enum class Pingpong { off, model, all };
  Pingpong pingpong = Pingpong::model;
  /// In warp-specialised kernels with two consumer warpgroups, each warpgroup runs one kv
  /// tile's output gemm while it computes the next tile's softmax (tile-gemm-overlap). On
  /// by default since the probabilities are held packed (two bf16 per register): D128
  /// 1.08-1.24x, causal D128 1.01-1.09x, D256 1.07-1.08x on the H200 (benchmarks/RESULTS.md).
  bool gemmOverlap = true;
  /// Warp-specialised kernels walk the grid's tiles from one block per multiprocessor, the
  /// producer loading the next tile while the consumers finish one (tile-warp-specialize
  /// persistent).
  bool persistent = false;
  /// compileAttentionFunctions also compiles the persistent form of each warp-specialised
  /// kernel (with its output staged, see stagedOutput) and runs it where the runtime launches
  /// it one block per multiprocessor (grids of at most rt::kPersistentRowBlocks query tiles:
  /// short sequences), the one-block-per-tile kernel elsewhere. On by default: on the H100
  /// at S = 512 and 1k it ran 1.10-1.19x the plain kernel at D64/D128 and 1.07x at D256
  /// (causal or not), while at 16k the persistent kernel loses 6-8% (benchmarks/RESULTS.md).
  bool persistentShortGrids = true;
  /// Lower for launches on long key sequences only (KernelSchedule::longKeys): mask-free
  /// softmax-like kernels with head dims <= 128 take 192-wide kv tiles.
  bool longKeys = false;
  /// compileAttentionFunctions also lowers the module with `longKeys` and, for the functions
  /// whose kernels that changes, launches those kernels when every attention kernel of the
  /// call has at least kLongKeys keys (Skv), the others below: 192-wide kv tiles win at long
  /// kv loops (D128, H200: 1.04x at 8k, 1.13x at 16k) and lose at short ones (0.88x at 512
  /// and 1k), where a kv length that is not a multiple of 192 also wastes part of a tile.
  bool longKeysPlan = true;
  /// compileAttentionFunctions returns once each function's last plan (the one that suits every
  /// call) is compiled and loaded; the function's other plans (persistentShortGrids,
  /// longKeysPlan, the fused chunk kernels) compile and load afterwards on a background thread,
  /// and calls run the last plan until the one that suits them is loaded
  /// (AttentionFunction::waitForPlans waits for them all). Off: every plan is loaded before
  /// compileAttentionFunctions returns, and a plan that fails to compile fails it.
  bool backgroundPlans = true;
  /// In warp-specialised kernels, each consumer warpgroup decides over its own rows whether
  /// a kv tile is skipped or runs without the mask (tile-group-guards).
  bool groupGuards = true;
  /// Attention kernels store their output through shared memory as whole 16-byte row chunks
  /// instead of one element pair per store: through the query's tile where D = Dv and the
  /// types match; persistent kernels, whose producer reloads that tile, through a tile of
  /// their own where shared memory has room. Off until timed on the GPU.
  bool stagedOutput = false;
  /// Reads of kernel inputs that vary along one axis of an element loop (a document mask's
  /// query or key ids) are read once per row or column of the thread's elements into a
  /// register vector (tile-hoist-axis-reads).
  bool axisReads = true;
  /// A window of a custom input the score loop of a warp-specialised kernel reads element by
  /// element (a bias matrix `[H, Sq, Skv]`) is copied into shared memory while the score gemm
  /// runs, each consumer warpgroup its own rows (tile-stage-element-reads), where shared
  /// memory has room.
  bool stageReads = true;
  /// The staged window is copied one iteration ahead (tile-stage-element-reads' `ahead`):
  /// the first before the kv loop, each next one right after the tile's last reader. Off:
  /// on an H100 it was slower for the relative bias (0.583x our softmax against 0.642x at
  /// B4 H16 S4k D128 causal, equal at B1 S16k; forty-seventh session): the copies' issue
  /// then sits in the softmax's path instead of in the wait for the score gemm.
  bool stageAhead = false;
  /// The rows of a custom input the score loop reads element by element are prefetched into
  /// L1 right after the async score gemm is issued (tile-prefetch-element-reads). Off: on an
  /// H100 it gained nothing for the relative bias (0.470x our softmax without it, 0.466x
  /// with, forty-sixth session) and costs ptxas 36 B of spills at D128.
  bool prefetchReads = false;
  /// Tiles are classified by the bounds of custom inputs with a plain q or kv axis (a document
  /// mask's ids): skipped where the query and key ids cannot meet, unmasked where they are
  /// one document (tile.read_bounds).
  bool idBounds = true;
  /// A kv loop whose tiles a mask skips by reading a custom input that is constant over a
  /// tile (a block-sparse map) walks only the kept tiles (tile.kept_tiles): each warp tests
  /// 32 tiles with one read per lane and a ballot, instead of one read and a branch per tile
  /// on the loop's path. On: 1.3x (B4 S4k) to 3x (B1 S16k) faster at 5-20% of the blocks
  /// kept on the H200, 2-5% slower with every block kept (benchmarks/RESULTS.md).
  bool keptTiles = true;
  /// A pre-pass kernel bounds each kv tile's key ids of a document mask once per sequence
  /// (convert-attn-to-tile kv-tile-bounds); the attention kernel reads two values per tile
  /// instead of every block bounding the tile's ids.
  bool kvTileBounds = true;
  /// Attention kernels compute tanh (a soft cap's) with `tanh.approx.f32`, one special-function
  /// op, instead of CUDA's tanhf (an ex2, a reciprocal and a polynomial under the runtime's
  /// flags): relative error about 2^-11, what FlashAttention-3's soft cap uses
  /// (convert-attn-to-tile approx-tanh; benchmarks/RESULTS.md).
  bool approxTanh = true;
  /// An attn.combine right after the attention that makes one of its values runs in that
  /// kernel's epilogue (convert-attn-to-tile fuse-combine): one kernel and one f32
  /// intermediate fewer (a differential attention's second output).
  bool fuseCombine = true;
  /// A kv tile's id bounds are read one iteration early, behind the previous tile's score
  /// gemm (tile-prefetch-bounds). Off: 4-13% slower on the H200 (benchmarks/RESULTS.md).
  bool prefetchBounds = false;
  /// In warp-specialised kernels, the producer evaluates the kv loop's tile guard where it
  /// reads kernel inputs (document ids) and copies no tile the consumers skip. Off: on the
  /// H100 it runs 1.22-1.30x faster with 16-64 documents at S16k but 13-30% slower where
  /// nothing is skipped (one document, unsorted ids); see benchmarks/RESULTS.md.
  bool skipLoads = false;
};

/// The key length from which compileAttentionFunctions launches a function's long-keys plan
/// (PipelineOptions::longKeysPlan).
constexpr int64_t kLongKeys = 8192;

/// The target of a pipeline without one and no device: Hopper with wgmma.
constexpr llvm::StringLiteral kDefaultTarget = "sm_90a";

/// attn-mask-analysis, attn-online-normalize, convert-attn-to-tile, tile-unswitch-parallel,
/// tile-infer-layout, tile-use-wgmma, canonicalize, tile-pipeline-plan, tile-warp-specialize,
/// tile-gemm-overlap, tile-warpgroup-pingpong, tile-group-guards, tile-pipeline-expand,
/// tile-hoist-invariant-reads, tile-hoist-axis-reads, canonicalize, cse (the warp-specialised
/// ones and tile-hoist-axis-reads as the options say).
void buildAttnToTilePipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

/// The architecture field a tuning is recorded and looked up under (metaattn/Pipeline/Tuning.h)
/// for `target` and the options' kernel schedule: the target alone for the default schedule,
/// else the target with the schedule's departures from it, `sm_90a+no-ws`, `sm_90a+pingpong`
/// (every kernel; `+no-pingpong` for none),
/// `sm_90a+no-gemm-overlap`: tile sizes timed under one schedule are not taken for another.
std::string tuningArch(llvm::StringRef target, const PipelineOptions &options);

/// Registers the pipeline as `metaattn-lower` for metaattn-opt.
void registerMetaAttnPipelines();

/// Registers every dialect the pipeline and the tools parse.
void registerMetaAttnDialects(mlir::DialectRegistry &registry);

/// Where a kernel parameter's tensor lives in the function the kernel came from.
struct ParamBinding {
  enum Kind { Argument, Result, Temporary };
  Kind kind = Argument;
  unsigned index = 0;
};

/// One lowered kernel: its CUDA source and launch description, and its place in its function
/// (one kernel per attention or combine op, launched in `step` order).
struct LoweredKernel {
  std::string name;
  std::string cudaSource;
  rt::KernelSignature signature;
  std::string function;
  unsigned step = 0;
  /// One per signature parameter.
  std::vector<ParamBinding> bindings;
};

/// The kernels of one function in launch order, with its tensors: arguments, results and
/// intermediates (temporaries) that the caller allocates between kernels.
struct LoweredFunction {
  std::string name;
  std::vector<LoweredKernel> kernels;
  unsigned numArguments = 0, numResults = 0, numTemporaries = 0;
  /// As one of several plans of a function (choosePlan): what it is, for messages
  /// ("separate kernels", "fused chunk kernel", "persistent kernel", "one block per tile",
  /// "long-keys tiles", "tiles for any length"),
  /// and what each of its kernels' grids (those computable from the arguments and results)
  /// must be for it to run, else the next plan is tried: at least `minBlocksPerSM` blocks per
  /// multiprocessor, and for persistent kernels at most `maxRowBlocks` blocks along x (0: no
  /// bound; a function's other kernels, such as a combine, are not bounded); and at least
  /// `minKeys` keys (the size of dimension symbol Skv) for each kernel that has them.
  std::string planName;
  double minBlocksPerSM = 0;
  int64_t maxRowBlocks = 0;
  int64_t minKeys = 0;

  /// The shape and dtype of every temporary, from the shapes of the arguments and results
  /// (given in order) through the kernels' dimension symbols.
  rt::StatusOr<std::vector<std::pair<std::vector<int64_t>, DLDataType>>>
  temporaries(const std::vector<std::vector<int64_t>> &argumentShapes,
              const std::vector<std::vector<int64_t>> &resultShapes) const;
  /// The tensors of `kernel`'s parameters, picked from the function's tensors.
  template <typename T>
  std::vector<T> select(const LoweredKernel &kernel, const std::vector<T> &arguments,
                        const std::vector<T> &results, const std::vector<T> &temps) const {
    std::vector<T> picked;
    for (const ParamBinding &b : kernel.bindings)
      picked.push_back(b.kind == ParamBinding::Argument ? arguments[b.index]
                       : b.kind == ParamBinding::Result ? results[b.index]
                                                        : temps[b.index]);
    return picked;
  }
};

/// Lowers every attention function of `module` (in place) to tile kernels and prints them as
/// CUDA. Diagnostics are collected into the returned status's message.
rt::StatusOr<std::vector<LoweredKernel>> lowerToCuda(mlir::ModuleOp module,
                                                     const PipelineOptions &options);

/// Groups lowered kernels by function, each in launch order (functions in order of their
/// first kernel); checks that every function's bindings are complete.
rt::StatusOr<std::vector<LoweredFunction>> groupByFunction(std::vector<LoweredKernel> kernels);

/// The index of the first of `plans` (lowerings of one function, the last one unconditional)
/// that suits a call on `tensors` (the function's arguments, then its results; only their
/// shapes are read) on a device with `smCount` multiprocessors. Fails on a wrong tensor count
/// or a null tensor.
rt::StatusOr<size_t> choosePlan(llvm::ArrayRef<const LoweredFunction *> plans,
                                const rt::TensorList &tensors, int smCount);

/// Where the time of one kernel's just-in-time compilation went (milliseconds). The MLIR
/// lowering and CUDA printing of a module is shared by its kernels; each reports all of it.
struct JitTimings {
  double lowerMs = 0, compileMs = 0, loadMs = 0;
  /// "nvrtc" (compiled now), "disk-cache" or "memory-cache".
  std::string compiledBy;
};

/// Compiles and loads the plans of attention functions (Engine.cpp), in the background where
/// PipelineOptions::backgroundPlans says so.
class PlanLoader;

/// A compiled attention, ready to launch on a device.
class AttentionKernel {
public:
  const JitTimings &jitTimings() const { return timings; }
  /// Checks shapes, dtypes and strides against the signature, then launches.
  rt::Status launch(const rt::TensorList &tensors, CUstream stream = nullptr) const;
  const rt::KernelSignature &signature() const { return kernel.signature; }
  const std::string &cudaSource() const { return kernel.cudaSource; }
  const rt::CompiledKernel &binary() const { return *compiled; }
  /// Its name, signature and place in its function.
  const LoweredKernel &lowered() const { return kernel; }

private:
  friend rt::StatusOr<std::vector<AttentionKernel>>
  compileAttention(mlir::ModuleOp, const PipelineOptions &, rt::Device *);
  friend class AttentionFunction;
  friend class PlanLoader;
  friend rt::StatusOr<std::vector<class AttentionFunction>>
  compileAttentionFunctions(mlir::ModuleOp, const PipelineOptions &, rt::Device *);
  LoweredKernel kernel;
  std::shared_ptr<const rt::CompiledKernel> compiled;
  rt::LoadedKernel loaded;
  JitTimings timings;
};

/// Lowers `module`, compiles each kernel with NVRTC for `device`'s architecture (through the
/// memory and disk kernel cache) and loads it.
rt::StatusOr<std::vector<AttentionKernel>>
compileAttention(mlir::ModuleOp module, const PipelineOptions &options, rt::Device *device);

/// A compiled attention function: its kernels, launched in order on the function's tensors.
/// A function of one attention op is one kernel, or two where a pre-pass bounds a document
/// mask's key ids per kv tile first (an intermediate); differential attention is two
/// attentions and a combine, with the attention outputs as intermediates. A function may have
/// several plans, each a complete set of kernels (attn.recurrent's fused and separate chunk
/// kernels, PipelineOptions::ChunkKernels::byGrid; the persistent kernels for short grids; the
/// long-keys tiles); each call runs the first loaded plan that suits its shapes. The last plan
/// suits every call and is loaded when compileAttentionFunctions returns; with
/// PipelineOptions::backgroundPlans the others may still be compiling then. Copies share the
/// plans; of the functions one compileAttentionFunctions call returned, the last to go (with
/// its copies) waits for their background compile.
class AttentionFunction {
public:
  /// One way to run the function: its kernels in launch order and the tensors between them.
  struct Plan {
    LoweredFunction lowered;
    std::vector<AttentionKernel> kernels;
  };

  const std::string &name() const { return state->choices.front().lowered.name; }
  /// The plans in the order they are tried; the last one always suits. Waits for the plans
  /// still compiling; a plan that failed to compile or load has no kernels.
  const std::vector<Plan> &plans() const;
  /// Waits until no plan is compiling; the first error of a plan that failed (never chosen).
  rt::Status waitForPlans() const;
  /// Whether plan `index` (in plans() order) is loaded, without waiting.
  bool isLoaded(size_t index) const;

  /// The plan a call on `tensors` (the function's arguments, then its results) runs: the first
  /// loaded plan that suits them; fails on a wrong tensor count or a null tensor.
  rt::StatusOr<const Plan *> choose(const rt::TensorList &tensors) const;
  /// Launches the kernels of the plan `choose` picks for `tensors` (the function's arguments,
  /// then its results) on `tensors` and `temporaries` (the intermediates of that plan, shaped
  /// by its LoweredFunction::temporaries), in order on `stream`; every tensor is checked
  /// before its kernel launches. Where a background plan may load between `choose` and this
  /// call, launch the chosen plan with launchPlan instead.
  rt::Status launch(const rt::TensorList &tensors, const rt::TensorList &temporaries,
                    CUstream stream = nullptr) const;
  /// Launches `plan` (one of this function's loaded plans, from `choose`) as `launch` does.
  rt::Status launchPlan(const Plan &plan, const rt::TensorList &tensors,
                        const rt::TensorList &temporaries, CUstream stream = nullptr) const;
  /// As `launch`, with the intermediates allocated on `device` for this call; waits for the
  /// device before freeing them.
  rt::Status run(const rt::TensorList &tensors, rt::Device *device,
                 CUstream stream = nullptr) const;

private:
  friend class PlanLoader;
  friend rt::StatusOr<std::vector<AttentionFunction>>
  compileAttentionFunctions(mlir::ModuleOp, const PipelineOptions &, rt::Device *);
  /// The plans and which of them are loaded, shared by the copies of a function and the
  /// thread that loads its background plans. A plan's kernels are set once, under `mutex`,
  /// before it is marked loaded, and not changed after.
  struct PlanSet {
    std::vector<Plan> choices;
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<char> loaded;
    /// Plans neither loaded nor failed yet.
    size_t pending = 0;
    rt::Status failure = rt::Status::success();
  };
  std::shared_ptr<PlanSet> state = std::make_shared<PlanSet>();
  /// The background compile of the compileAttentionFunctions call that made this function;
  /// the last function of that call to go waits for it.
  std::shared_ptr<PlanLoader> loader;
};

/// Lowers and compiles `module` like compileAttention, grouped by function.
rt::StatusOr<std::vector<AttentionFunction>>
compileAttentionFunctions(mlir::ModuleOp module, const PipelineOptions &options,
                          rt::Device *device);

} // namespace metaattn

#endif // METAATTN_PIPELINE_PIPELINE_H
