//===- Engine.cpp - compile an attention module and launch it --------------===//
#include "metaattn/Pipeline/Pipeline.h"

#include "metaattn/Conversion/AttnToTile/AttnToTile.h"
#include "metaattn/Dialect/Attn/IR/AttnOps.h"

#include "metaattn/Runtime/KernelCache.h"
#include "metaattn/Runtime/Launch.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

#include <chrono>
#include <functional>
#include <optional>
#include <thread>

using namespace mlir;
using namespace metaattn;

rt::Status AttentionKernel::launch(const rt::TensorList &tensors, CUstream stream) const {
  return rt::launch(loaded, kernel.signature, tensors, stream);
}

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The binaries of `kernels` from the process-wide kernel cache, in order; a module's kernels
/// (the two or three of the chunked linear attention, several functions) compile concurrently.
std::vector<rt::KernelCache::Fetched> fetchAll(const std::vector<const LoweredKernel *> &kernels,
                                               const rt::CompileOptions &options) {
  std::vector<rt::KernelCache::Request> requests;
  for (const LoweredKernel *kernel : kernels)
    requests.push_back({kernel->cudaSource, kernel->signature.entry + ".cu"});
  return rt::KernelCache::global().getOrCompileAll(requests, options);
}

/// Loads a fetched binary on `device`, recording where the time went (`lowerMs`: the module's
/// lowering, measured by the caller).
rt::Status loadOne(const LoweredKernel &kernel, rt::KernelCache::Fetched &fetched,
                   rt::Device *device, std::shared_ptr<const rt::CompiledKernel> &compiled,
                   rt::LoadedKernel &loaded, JitTimings &timings, double lowerMs) {
  if (!fetched.kernel.ok())
    return fetched.kernel.status();
  timings.compileMs = fetched.ms;
  timings.compiledBy = fetched.from == rt::CacheSource::compiler ? "nvrtc"
                       : fetched.from == rt::CacheSource::disk   ? "disk-cache"
                                                                 : "memory-cache";
  Clock::time_point start = Clock::now();
  auto module = device->load(**fetched.kernel, kernel.signature.entry);
  if (!module.ok())
    return module.status();
  timings.loadMs = msSince(start);
  timings.lowerMs = lowerMs;
  compiled = *fetched.kernel;
  loaded = *module;
  return rt::Status::success();
}

} // namespace

namespace metaattn {
/// Compiles and loads plans of attention functions; an instance does so on a thread of its own
/// and waits for it on destruction.
class PlanLoader {
public:
  /// Plan `index` of a function's plans.
  struct Ref {
    std::shared_ptr<AttentionFunction::PlanSet> set;
    size_t index;
  };
  /// Compiles the kernels of `plans` concurrently (through the kernel cache) and loads them on
  /// `device`, marking each plan loaded in its set, or failed with its error; the first error.
  static rt::Status load(const std::vector<Ref> &plans, rt::Device *device,
                         const rt::CompileOptions &options, double lowerMs);
  /// Starts `load` of `plans` on a thread.
  PlanLoader(std::vector<Ref> plans, rt::Device *device, rt::CompileOptions options,
             double lowerMs);
  PlanLoader(const PlanLoader &) = delete;
  PlanLoader &operator=(const PlanLoader &) = delete;
  ~PlanLoader();

private:
  std::thread thread;
};
} // namespace metaattn

/// The options with the device's architecture as the target when none is set (and the
/// tiler knows it; else sm_90, the Ampere-style path).
static PipelineOptions forDevice(PipelineOptions options, rt::Device &device) {
  if (options.target.empty()) {
    std::string arch = rt::detectArch(device);
    options.target = TargetDesc::get(arch) ? arch : "sm_90";
  }
  return options;
}

rt::StatusOr<std::vector<AttentionKernel>>
metaattn::compileAttention(ModuleOp module, const PipelineOptions &options, rt::Device *device) {
  Clock::time_point start = Clock::now();
  auto lowered = lowerToCuda(module, forDevice(options, *device));
  if (!lowered.ok())
    return lowered.status();
  double lowerMs = msSince(start);
  rt::CompileOptions compileOptions;
  compileOptions.arch = rt::detectArch(*device);
  std::vector<const LoweredKernel *> all;
  for (const LoweredKernel &kernel : *lowered)
    all.push_back(&kernel);
  std::vector<rt::KernelCache::Fetched> fetched = fetchAll(all, compileOptions);
  std::vector<AttentionKernel> result;
  for (auto [i, kernel] : llvm::enumerate(*lowered)) {
    AttentionKernel k;
    METAATTN_RETURN_IF_ERROR(
        loadOne(kernel, fetched[i], device, k.compiled, k.loaded, k.timings, lowerMs));
    k.kernel = std::move(kernel);
    result.push_back(std::move(k));
  }
  return result;
}

/// The blocks per multiprocessor from which a function's fused chunk kernels run, else the
/// separate kernels: 0.4 per 64-wide key tile of its widest state. The separate states kernel
/// spreads the state's key tiles over blocks, so the fused one, which holds them all, needs
/// more blocks to win the wider the key dim. On the H200 (132 multiprocessors,
/// tests/gpu/fused_crossover.sh, benchmarks/RESULTS.md): RFA-Big (one key tile) fused 1.05x
/// faster at 0.61 and even at 0.48; Mamba2 (two) 1.31x slower at 0.61; YOCO (four) 1.16x slower
/// at 1.21, RetNet (four) 1.39x faster at 1.94. One entry per function of `module` with an
/// attn.recurrent (read before lowering).
static llvm::StringMap<double> fusedMinBlocksPerSM(ModuleOp module) {
  llvm::StringMap<double> result;
  module.walk([&](attn::RecurrentOp op) {
    auto func = op->getParentOfType<func::FuncOp>();
    auto q = cast<RankedTensorType>(op.getQ().getType());
    if (!func)
      return;
    int64_t keyTiles = q.isDynamicDim(q.getRank() - 1) ? 1 : (q.getShape().back() + 63) / 64;
    double perSM = 0.4 * static_cast<double>(keyTiles);
    double &entry = result[func.getSymName()];
    entry = std::max(entry, perSM);
  });
  return result;
}

/// `module`'s functions lowered with `options` and grouped (the module is lowered in place).
static rt::StatusOr<std::vector<LoweredFunction>> lowerFunctions(ModuleOp module,
                                                                 const PipelineOptions &options) {
  auto lowered = lowerToCuda(module, options);
  if (!lowered.ok())
    return lowered.status();
  return groupByFunction(std::move(*lowered));
}

/// Whether two lowerings of a function are the same kernels.
static bool sameKernels(const LoweredFunction &a, const LoweredFunction &b) {
  if (a.kernels.size() != b.kernels.size())
    return false;
  for (auto [x, y] : llvm::zip(a.kernels, b.kernels))
    if (x.cudaSource != y.cudaSource)
      return false;
  return true;
}

rt::StatusOr<std::vector<AttentionFunction>>
metaattn::compileAttentionFunctions(ModuleOp module, const PipelineOptions &options,
                                    rt::Device *device) {
  using ChunkKernels = PipelineOptions::ChunkKernels;
  Clock::time_point start = Clock::now();
  PipelineOptions chosen = forDevice(options, *device);
  // Alternative plans, each lowered from a copy of the module (lowering rewrites it) and
  // tried before the default lowering for the functions where its kernels differ:
  // - by grid, the fused chunk kernels, where the grid has enough blocks;
  // - for short sequences, the persistent warp-specialised kernels, which the runtime launches
  //   one block per multiprocessor at most kPersistentRowBlocks query tiles long;
  // - for long key sequences (at least kLongKeys), kernels tiled for them.
  llvm::StringMap<double> fusedMinBlocks = fusedMinBlocksPerSM(module);
  struct Alternative {
    std::vector<LoweredFunction> functions;
    /// The plan's name and the default lowering's beside it.
    const char *name, *defaultName;
    /// Sets a function's plan's bounds (LoweredFunction::minBlocksPerSM, maxRowBlocks).
    std::function<void(LoweredFunction &)> bound;
  };
  std::vector<Alternative> alternatives;
  auto lowerAlternative = [&](const PipelineOptions &altOptions, Alternative alternative) {
    OwningOpRef<ModuleOp> copy = module.clone();
    auto grouped = lowerFunctions(*copy, altOptions);
    if (!grouped.ok())
      return grouped.status();
    alternative.functions = std::move(*grouped);
    alternatives.push_back(std::move(alternative));
    return rt::Status::success();
  };
  bool byGrid = chosen.chunkKernels == ChunkKernels::byGrid;
  if (byGrid)
    chosen.chunkKernels = ChunkKernels::separate;
  if (byGrid && !fusedMinBlocks.empty()) {
    PipelineOptions fusedOptions = chosen;
    fusedOptions.chunkKernels = ChunkKernels::fused;
    METAATTN_RETURN_IF_ERROR(lowerAlternative(
        fusedOptions, {{}, "fused chunk kernel", "separate kernels", [&](LoweredFunction &f) {
                         f.minBlocksPerSM = fusedMinBlocks.lookup(f.name);
                       }}));
  }
  if (chosen.persistentShortGrids && !chosen.persistent) {
    PipelineOptions persistentOptions = chosen;
    persistentOptions.persistent = true;
    // With its output staged in a tile of its own: on the H100 (B·S = 16k, H·D = 2048,
    // S = 512 / 1k) the persistent kernels ran 1.03-1.10x the plain ones, and staged
    // 1.10-1.19x at D64/D128 (benchmarks/RESULTS.md, twenty-third session).
    persistentOptions.stagedOutput = true;
    METAATTN_RETURN_IF_ERROR(lowerAlternative(
        persistentOptions, {{}, "persistent kernel", "one block per tile", [](LoweredFunction &f) {
                              f.maxRowBlocks = rt::kPersistentRowBlocks;
                            }}));
  }
  if (chosen.longKeysPlan && !chosen.longKeys) {
    PipelineOptions longOptions = chosen;
    longOptions.longKeys = true;
    METAATTN_RETURN_IF_ERROR(lowerAlternative(
        longOptions, {{}, "long-keys tiles", "tiles for any length", [](LoweredFunction &f) {
                        f.minKeys = kLongKeys;
                      }}));
  }
  auto grouped = lowerFunctions(module, chosen);
  if (!grouped.ok())
    return grouped.status();
  double lowerMs = msSince(start);

  std::vector<AttentionFunction> result;
  for (LoweredFunction &function : *grouped) {
    AttentionFunction f;
    for (Alternative &alternative : alternatives)
      for (LoweredFunction &other : alternative.functions) {
        if (other.name != function.name || sameKernels(other, function))
          continue;
        other.planName = alternative.name;
        alternative.bound(other);
        // Named after the first alternative it stands beside.
        if (function.planName.empty())
          function.planName = alternative.defaultName;
        f.state->choices.push_back({std::move(other), {}});
      }
    f.state->choices.push_back({std::move(function), {}});
    result.push_back(std::move(f));
  }
  // Each function's last plan, which suits every call, now; with backgroundPlans its others
  // after, on a thread. Every kernel of a batch compiles concurrently.
  rt::CompileOptions compileOptions;
  compileOptions.arch = rt::detectArch(*device);
  std::vector<PlanLoader::Ref> now, later;
  for (AttentionFunction &f : result) {
    AttentionFunction::PlanSet &set = *f.state;
    set.loaded.assign(set.choices.size(), 0);
    set.pending = set.choices.size();
    for (size_t i = 0; i < set.choices.size(); ++i)
      (i + 1 == set.choices.size() || !chosen.backgroundPlans ? now : later)
          .push_back({f.state, i});
  }
  METAATTN_RETURN_IF_ERROR(PlanLoader::load(now, device, compileOptions, lowerMs));
  if (!later.empty()) {
    auto loader = std::make_shared<PlanLoader>(std::move(later), device, compileOptions, lowerMs);
    for (AttentionFunction &f : result)
      f.loader = loader;
  }
  return result;
}

rt::Status PlanLoader::load(const std::vector<Ref> &plans, rt::Device *device,
                            const rt::CompileOptions &options, double lowerMs) {
  std::vector<const LoweredKernel *> all;
  for (const Ref &ref : plans)
    for (const LoweredKernel &kernel : ref.set->choices[ref.index].lowered.kernels)
      all.push_back(&kernel);
  std::vector<rt::KernelCache::Fetched> fetched = fetchAll(all, options);
  rt::Status first = rt::Status::success();
  size_t next = 0;
  for (const Ref &ref : plans) {
    AttentionFunction::PlanSet &set = *ref.set;
    const LoweredFunction &lowered = set.choices[ref.index].lowered;
    std::vector<AttentionKernel> kernels;
    rt::Status status = rt::Status::success();
    for (const LoweredKernel &kernel : lowered.kernels) {
      AttentionKernel k;
      rt::KernelCache::Fetched &one = fetched[next++];
      if (status.ok())
        status = loadOne(kernel, one, device, k.compiled, k.loaded, k.timings, lowerMs);
      k.kernel = kernel;
      kernels.push_back(std::move(k));
    }
    if (!status.ok() && !lowered.planName.empty())
      status = status.withContext(fmt::format("{} of '{}'", lowered.planName, lowered.name));
    {
      std::lock_guard<std::mutex> lock(set.mutex);
      if (status.ok()) {
        set.choices[ref.index].kernels = std::move(kernels);
        set.loaded[ref.index] = 1;
      } else if (set.failure.ok()) {
        set.failure = status;
      }
      --set.pending;
    }
    set.changed.notify_all();
    if (first.ok())
      first = status;
  }
  return first;
}

PlanLoader::PlanLoader(std::vector<Ref> plans, rt::Device *device, rt::CompileOptions options,
                       double lowerMs)
    : thread([plans = std::move(plans), device, options = std::move(options), lowerMs] {
        (void)load(plans, device, options, lowerMs);
      }) {}

PlanLoader::~PlanLoader() { thread.join(); }

const std::vector<AttentionFunction::Plan> &AttentionFunction::plans() const {
  (void)waitForPlans();
  return state->choices;
}

rt::Status AttentionFunction::waitForPlans() const {
  std::unique_lock<std::mutex> lock(state->mutex);
  state->changed.wait(lock, [&] { return state->pending == 0; });
  return state->failure;
}

bool AttentionFunction::isLoaded(size_t index) const {
  std::lock_guard<std::mutex> lock(state->mutex);
  return index < state->loaded.size() && state->loaded[index];
}

/// The size of dimension symbol `symbol` in a call of `kernel` on `tensors` (its parameters'
/// tensors, null where not known), if some known tensor has it.
static std::optional<int64_t> symbolSize(const LoweredKernel &kernel, const rt::TensorList &tensors,
                                         llvm::StringRef symbol) {
  for (auto [param, tensor] : llvm::zip(kernel.signature.params, tensors)) {
    if (!tensor)
      continue;
    for (auto [dim, name] : llvm::enumerate(param.symbols))
      if (name == symbol && static_cast<int64_t>(dim) < tensor->ndim)
        return tensor->shape[dim];
  }
  return std::nullopt;
}

rt::StatusOr<size_t> metaattn::choosePlan(llvm::ArrayRef<const LoweredFunction *> plans,
                                          const rt::TensorList &tensors, int smCount) {
  const LoweredFunction &first = *plans.front();
  if (tensors.size() != first.numArguments + first.numResults)
    return rt::Status::error("function '{}' takes {} arguments and {} results, got {} tensors",
                             first.name, first.numArguments, first.numResults, tensors.size());
  for (auto [i, tensor] : llvm::enumerate(tensors))
    if (!tensor)
      return rt::Status::error("function '{}': tensor #{} is null", first.name, i);
  rt::TensorList arguments(tensors.begin(), tensors.begin() + first.numArguments);
  rt::TensorList results(tensors.begin() + first.numArguments, tensors.end());
  for (auto [index, plan] : llvm::enumerate(llvm::drop_end(plans))) {
    bool suits = true;
    // A grid taken from an intermediate (null here) is not counted.
    rt::TensorList none(plan->numTemporaries, nullptr);
    for (const LoweredKernel &kernel : plan->kernels) {
      auto grid = rt::computeGrid(kernel.signature, plan->select(kernel, arguments, results, none));
      if (grid.ok() && (*grid)[0] * (*grid)[1] * (*grid)[2] < plan->minBlocksPerSM * smCount)
        suits = false;
      if (grid.ok() && plan->maxRowBlocks > 0 && kernel.signature.persistent &&
          (*grid)[0] > plan->maxRowBlocks)
        suits = false;
      if (plan->minKeys > 0) {
        std::optional<int64_t> keys =
            symbolSize(kernel, plan->select(kernel, arguments, results, none), "Skv");
        if (keys && *keys < plan->minKeys)
          suits = false;
      }
    }
    if (suits)
      return index;
  }
  return plans.size() - 1;
}

rt::StatusOr<const AttentionFunction::Plan *>
AttentionFunction::choose(const rt::TensorList &tensors) const {
  std::vector<const Plan *> loaded;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    for (auto [i, plan] : llvm::enumerate(state->choices))
      if (state->loaded[i])
        loaded.push_back(&plan);
  }
  // The last plan is loaded before the function is returned.
  std::vector<const LoweredFunction *> lowered;
  for (const Plan *plan : loaded)
    lowered.push_back(&plan->lowered);
  int smCount = loaded.back()->kernels.front().loaded.device->properties().smCount;
  METAATTN_ASSIGN_OR_RETURN(size_t index, choosePlan(lowered, tensors, smCount));
  return loaded[index];
}

rt::Status AttentionFunction::launch(const rt::TensorList &tensors,
                                     const rt::TensorList &temporaries, CUstream stream) const {
  METAATTN_ASSIGN_OR_RETURN(const Plan *plan, choose(tensors));
  return launchPlan(*plan, tensors, temporaries, stream);
}

rt::Status AttentionFunction::launchPlan(const Plan &plan, const rt::TensorList &tensors,
                                         const rt::TensorList &temporaries, CUstream stream) const {
  const LoweredFunction &lowered = plan.lowered;
  if (temporaries.size() != lowered.numTemporaries)
    return rt::Status::error("function '{}' takes {} intermediates, got {}", lowered.name,
                             lowered.numTemporaries, temporaries.size());
  rt::TensorList arguments(tensors.begin(), tensors.begin() + lowered.numArguments);
  rt::TensorList results(tensors.begin() + lowered.numArguments, tensors.end());
  for (const AttentionKernel &kernel : plan.kernels)
    METAATTN_RETURN_IF_ERROR(
        kernel.launch(lowered.select(kernel.kernel, arguments, results, temporaries), stream));
  return rt::Status::success();
}

rt::Status AttentionFunction::run(const rt::TensorList &tensors, rt::Device *device,
                                  CUstream stream) const {
  METAATTN_ASSIGN_OR_RETURN(const Plan *plan, choose(tensors));
  const LoweredFunction &lowered = plan->lowered;
  if (lowered.numTemporaries == 0)
    return launchPlan(*plan, tensors, {}, stream);
  std::vector<std::vector<int64_t>> argShapes, resultShapes;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::vector<int64_t> shape(tensors[i]->shape, tensors[i]->shape + tensors[i]->ndim);
    (i < lowered.numArguments ? argShapes : resultShapes).push_back(std::move(shape));
  }
  auto temps = lowered.temporaries(argShapes, resultShapes);
  if (!temps.ok())
    return temps.status();
  std::vector<rt::DeviceBuffer> buffers;
  std::vector<DLTensor> described(temps->size());
  rt::TensorList list;
  for (auto [i, temp] : llvm::enumerate(*temps)) {
    int64_t elements = 1;
    for (int64_t size : temp.first)
      elements *= size;
    auto buffer = device->allocate(std::max<int64_t>(elements * ((temp.second.bits + 7) / 8), 16));
    if (!buffer.ok())
      return buffer.status();
    DLTensor &d = described[i];
    d.data = buffer->data();
    d.device = {kDLCUDA, device->ordinal()};
    d.ndim = static_cast<int32_t>(temp.first.size());
    d.dtype = temp.second;
    d.shape = temp.first.data();
    d.strides = nullptr;
    d.byte_offset = 0;
    buffers.push_back(std::move(*buffer));
    list.push_back(&d);
  }
  rt::Status status = launchPlan(*plan, tensors, list, stream);
  // The intermediates are freed on return: wait for the kernels that use them.
  rt::Status synced = device->synchronize();
  return status.ok() ? synced : status;
}
