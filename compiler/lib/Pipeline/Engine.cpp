//===- Engine.cpp - compile an attention module and launch it --------------===//
#include "metaattn/Pipeline/Pipeline.h"

#include "metaattn/Runtime/KernelCache.h"
#include "metaattn/Runtime/Launch.h"

#include <chrono>

using namespace mlir;
using namespace metaattn;

rt::Status AttentionKernel::launch(const rt::TensorList &tensors, CUstream stream) const {
  return rt::launch(loaded, kernel.signature, tensors, stream);
}

rt::StatusOr<std::vector<AttentionKernel>>
metaattn::compileAttention(ModuleOp module, const PipelineOptions &options, rt::Device *device) {
  using Clock = std::chrono::steady_clock;
  auto msSince = [](Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  Clock::time_point start = Clock::now();
  auto lowered = lowerToCuda(module, options);
  if (!lowered.ok())
    return lowered.status();
  double lowerMs = msSince(start);
  rt::CompileOptions compileOptions;
  compileOptions.arch = rt::detectArch(*device);
  std::vector<AttentionKernel> result;
  rt::KernelCache &cache = rt::KernelCache::global();
  for (LoweredKernel &kernel : *lowered) {
    rt::KernelCache::Counters before = cache.counters();
    start = Clock::now();
    auto compiled =
        cache.getOrCompile(kernel.cudaSource, kernel.signature.entry + ".cu", compileOptions);
    if (!compiled.ok())
      return compiled.status();
    double compileMs = msSince(start);
    rt::KernelCache::Counters after = cache.counters();
    start = Clock::now();
    auto loaded = device->load(**compiled, kernel.signature.entry);
    if (!loaded.ok())
      return loaded.status();
    AttentionKernel k;
    k.timings.lowerMs = lowerMs;
    k.timings.compileMs = compileMs;
    k.timings.loadMs = msSince(start);
    k.timings.compiledBy = after.compiles > before.compiles   ? "nvrtc"
                           : after.diskHits > before.diskHits ? "disk-cache"
                                                              : "memory-cache";
    k.kernel = std::move(kernel);
    k.compiled = *compiled;
    k.loaded = *loaded;
    result.push_back(std::move(k));
  }
  return result;
}
