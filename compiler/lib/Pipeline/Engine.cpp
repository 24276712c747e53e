//===- Engine.cpp - compile an attention module and launch it --------------===//
#include "metaattn/Pipeline/Pipeline.h"

#include "metaattn/Runtime/KernelCache.h"
#include "metaattn/Runtime/Launch.h"

using namespace mlir;
using namespace metaattn;

rt::Status AttentionKernel::launch(const rt::TensorList &tensors, CUstream stream) const {
  return rt::launch(loaded, kernel.signature, tensors, stream);
}

rt::StatusOr<std::vector<AttentionKernel>>
metaattn::compileAttention(ModuleOp module, const PipelineOptions &options, rt::Device *device) {
  auto lowered = lowerToCuda(module, options);
  if (!lowered.ok())
    return lowered.status();
  rt::CompileOptions compileOptions;
  compileOptions.arch = rt::detectArch(*device);
  std::vector<AttentionKernel> result;
  for (LoweredKernel &kernel : *lowered) {
    auto compiled = rt::KernelCache::global().getOrCompile(kernel.cudaSource,
                                                           kernel.signature.entry + ".cu",
                                                           compileOptions);
    if (!compiled.ok())
      return compiled.status();
    auto loaded = device->load(**compiled, kernel.signature.entry);
    if (!loaded.ok())
      return loaded.status();
    AttentionKernel k;
    k.kernel = std::move(kernel);
    k.compiled = *compiled;
    k.loaded = *loaded;
    result.push_back(std::move(k));
  }
  return result;
}
