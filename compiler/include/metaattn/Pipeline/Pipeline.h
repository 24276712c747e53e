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

#include <memory>
#include <string>
#include <vector>

namespace metaattn {

/// Options of the attn-to-tile pipeline. Zero tile sizes mean "from the model".
struct PipelineOptions {
  std::string target = "sm_90";
  int64_t blockM = 0, blockN = 0, warps = 0, stages = 0;
};

/// attn-mask-analysis, attn-online-normalize, convert-attn-to-tile, tile-infer-layout,
/// tile-pipeline-plan, tile-pipeline-expand, canonicalize, cse.
void buildAttnToTilePipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

/// Registers the pipeline as `metaattn-lower` for metaattn-opt.
void registerMetaAttnPipelines();

/// Registers every dialect the pipeline and the tools parse.
void registerMetaAttnDialects(mlir::DialectRegistry &registry);

/// One lowered kernel: its CUDA source and launch description.
struct LoweredKernel {
  std::string name;
  std::string cudaSource;
  rt::KernelSignature signature;
};

/// Lowers every attention function of `module` (in place) to tile kernels and prints them as
/// CUDA. Diagnostics are collected into the returned status's message.
rt::StatusOr<std::vector<LoweredKernel>> lowerToCuda(mlir::ModuleOp module,
                                                     const PipelineOptions &options);

/// Where the time of one kernel's just-in-time compilation went (milliseconds). The MLIR
/// lowering and CUDA printing of a module is shared by its kernels; each reports all of it.
struct JitTimings {
  double lowerMs = 0, compileMs = 0, loadMs = 0;
  /// "nvrtc" (compiled now), "disk-cache" or "memory-cache".
  std::string compiledBy;
};

/// A compiled attention, ready to launch on a device.
class AttentionKernel {
public:
  const JitTimings &jitTimings() const { return timings; }
  /// Checks shapes, dtypes and strides against the signature, then launches.
  rt::Status launch(const rt::TensorList &tensors, CUstream stream = nullptr) const;
  const rt::KernelSignature &signature() const { return kernel.signature; }
  const std::string &cudaSource() const { return kernel.cudaSource; }
  const rt::CompiledKernel &binary() const { return *compiled; }

private:
  friend rt::StatusOr<std::vector<AttentionKernel>>
  compileAttention(mlir::ModuleOp, const PipelineOptions &, rt::Device *);
  LoweredKernel kernel;
  std::shared_ptr<const rt::CompiledKernel> compiled;
  rt::LoadedKernel loaded;
  JitTimings timings;
};

/// Lowers `module`, compiles each kernel with NVRTC for `device`'s architecture (through the
/// memory and disk kernel cache) and loads it.
rt::StatusOr<std::vector<AttentionKernel>>
compileAttention(mlir::ModuleOp module, const PipelineOptions &options, rt::Device *device);

} // namespace metaattn

#endif // METAATTN_PIPELINE_PIPELINE_H
