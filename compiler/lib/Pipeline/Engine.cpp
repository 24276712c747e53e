//===- Engine.cpp - compile an attention module and launch it --------------===//
#include "metaattn/Pipeline/Pipeline.h"

#include "metaattn/Conversion/AttnToTile/AttnToTile.h"

#include "metaattn/Runtime/KernelCache.h"
#include "metaattn/Runtime/Launch.h"

#include <chrono>

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

rt::StatusOr<std::vector<AttentionFunction>>
metaattn::compileAttentionFunctions(ModuleOp module, const PipelineOptions &options,
                                    rt::Device *device) {
  Clock::time_point start = Clock::now();
  auto lowered = lowerToCuda(module, forDevice(options, *device));
  if (!lowered.ok())
    return lowered.status();
  double lowerMs = msSince(start);
  auto grouped = groupByFunction(std::move(*lowered));
  if (!grouped.ok())
    return grouped.status();
  rt::CompileOptions compileOptions;
  compileOptions.arch = rt::detectArch(*device);
  std::vector<const LoweredKernel *> all;
  for (const LoweredFunction &function : *grouped)
    for (const LoweredKernel &kernel : function.kernels)
      all.push_back(&kernel);
  std::vector<rt::KernelCache::Fetched> fetched = fetchAll(all, compileOptions);
  std::vector<AttentionFunction> result;
  size_t next = 0;
  for (LoweredFunction &function : *grouped) {
    AttentionFunction f;
    for (LoweredKernel &kernel : function.kernels) {
      AttentionKernel k;
      METAATTN_RETURN_IF_ERROR(
          loadOne(kernel, fetched[next++], device, k.compiled, k.loaded, k.timings, lowerMs));
      k.kernel = kernel;
      f.compiledKernels.push_back(std::move(k));
    }
    f.lowered = std::move(function);
    result.push_back(std::move(f));
  }
  return result;
}

rt::Status AttentionFunction::launch(const rt::TensorList &tensors,
                                     const rt::TensorList &temporaries, CUstream stream) const {
  size_t expected = lowered.numArguments + lowered.numResults;
  if (tensors.size() != expected || temporaries.size() != lowered.numTemporaries)
    return rt::Status::error("function '{}' takes {} arguments, {} results and {} "
                             "intermediates, got {} tensors and {} intermediates",
                             lowered.name, lowered.numArguments, lowered.numResults,
                             lowered.numTemporaries, tensors.size(), temporaries.size());
  rt::TensorList arguments(tensors.begin(), tensors.begin() + lowered.numArguments);
  rt::TensorList results(tensors.begin() + lowered.numArguments, tensors.end());
  for (const AttentionKernel &kernel : compiledKernels)
    METAATTN_RETURN_IF_ERROR(
        kernel.launch(lowered.select(kernel.kernel, arguments, results, temporaries), stream));
  return rt::Status::success();
}

rt::Status AttentionFunction::run(const rt::TensorList &tensors, rt::Device *device,
                                  CUstream stream) const {
  if (lowered.numTemporaries == 0)
    return launch(tensors, {}, stream);
  if (tensors.size() != lowered.numArguments + lowered.numResults)
    return launch(tensors, {}, stream); // reports the count
  std::vector<std::vector<int64_t>> argShapes, resultShapes;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i])
      return rt::Status::error("function '{}': tensor #{} is null", lowered.name, i);
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
  rt::Status status = launch(tensors, list, stream);
  // The intermediates are freed on return: wait for the kernels that use them.
  rt::Status synced = device->synchronize();
  return status.ok() ? synced : status;
}
