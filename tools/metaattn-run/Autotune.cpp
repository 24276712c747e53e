//===- Autotune.cpp - metaattn-run --autotune / --record-tuning ----------------===//
//
// Autotuning times one function at candidate tile sizes on the GPU, each with and without the
// ping-pong schedule where that changes its kernels (every candidate's kernels compiled by
// NVRTC in parallel first, through the process-wide kernel cache that the timed runs then
// hit), and records the fastest in the tuning file, keyed by the target and each attention's
// signature (metaattn/Pipeline/Tuning.h), never by a length.
//
//===----------------------------------------------------------------------===//

#include "AttentionProblem.h"

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "metaattn/Pipeline/Tuning.h"
#include "metaattn/Runtime/Compiler.h"
#include "metaattn/Runtime/Device.h"
#include "metaattn/Runtime/KernelCache.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace metaattn;

namespace {

/// The attn.attention ops of `func` with their signatures.
std::vector<std::string> signaturesOf(func::FuncOp func) {
  std::vector<std::string> signatures;
  func.walk([&](attn::AttentionOp op) { signatures.push_back(attentionSignature(op)); });
  return signatures;
}

OwningOpRef<ModuleOp> cloneModule(ModuleOp module) {
  return OwningOpRef<ModuleOp>(cast<ModuleOp>(module->clone()));
}

/// One autotuning candidate: kv tile size, stages and the ping-pong schedule (-1: the model's);
/// block_n = 0 is the model's whole choice (the run without --autotune).
struct Candidate {
  int64_t blockN, stages, pingpong;
  std::optional<double> ms;

  std::string describe() const {
    if (blockN == 0)
      return "the model's choice";
    std::string text = "block_n=" + std::to_string(blockN) + " stages=" + std::to_string(stages);
    if (pingpong >= 0)
      text += " pingpong=" + std::to_string(pingpong);
    return text;
  }
};

/// The pipeline options that lower `candidate` (its tile sizes as options, its ping-pong
/// choice as --pingpong / --no-pingpong; a tuning entry with the same fields lowers the same).
PipelineOptions candidatePipeline(PipelineOptions pipeline, const std::string &target,
                                  const Candidate &candidate) {
  pipeline.target = target;
  pipeline.tuningFile.clear();
  if (candidate.blockN == 0)
    return pipeline;
  pipeline.blockN = candidate.blockN;
  pipeline.stages = candidate.stages;
  if (candidate.pingpong >= 0)
    pipeline.pingpong =
        candidate.pingpong ? PipelineOptions::Pingpong::all : PipelineOptions::Pingpong::off;
  return pipeline;
}

bool sameKernels(const std::vector<LoweredKernel> &a, const std::vector<LoweredKernel> &b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](auto &x, auto &y) {
           return x.cudaSource == y.cudaSource;
         });
}

} // namespace

LogicalResult run::recordTuning(llvm::ArrayRef<func::FuncOp> funcs, const PipelineOptions &pipeline,
                                const std::string &target, llvm::raw_ostream &os,
                                std::string &error) {
  auto table = TuningTable::load(pipeline.tuningFile);
  if (!table.ok()) {
    error = table.status().message();
    return failure();
  }
  for (func::FuncOp func : funcs)
    for (const std::string &signature : signaturesOf(func)) {
      TunedConfig config{pipeline.blockM, pipeline.blockN, pipeline.warps, pipeline.stages};
      config.note = ("recorded for @" + func.getSymName()).str();
      table->set(tuningArch(target, pipeline), signature, config);
      os << "recorded " << tuningArch(target, pipeline) << " " << signature << " (@"
         << func.getSymName() << "): block_m=" << config.blockM << " block_n=" << config.blockN
         << " warps=" << config.warps << " stages=" << config.stages << "\n";
    }
  rt::Status saved = table->save(pipeline.tuningFile);
  if (!saved.ok()) {
    error = saved.message();
    return failure();
  }
  return success();
}

LogicalResult run::autotune(ModuleOp module, const RunOptions &options, Problem &problem,
                            bool onGpu, llvm::raw_ostream &os, std::string &error) {
  // The architecture to compile for: the GPU's; without one, the target's (sm_90 and the
  // default both compile as sm_90a).
  std::string arch;
  if (onGpu) {
    auto device = rt::Device::get(0);
    if (!device.ok()) {
      error = device.status().message();
      return failure();
    }
    arch = rt::detectArch(**device);
  } else {
    arch = options.pipeline.target.empty() || options.pipeline.target == "sm_90"
               ? "sm_90a"
               : options.pipeline.target;
  }
  std::string target = options.pipeline.target.empty() ? arch : options.pipeline.target;
  auto table = TuningTable::load(options.pipeline.tuningFile);
  if (!table.ok()) {
    error = table.status().message();
    return failure();
  }
  func::FuncOp func = *module.getOps<func::FuncOp>().begin();
  std::vector<std::string> signatures = signaturesOf(func);
  if (signatures.empty()) {
    error = "--autotune tunes attn.attention ops; @" + func.getSymName().str() + " has none";
    return failure();
  }

  // Candidates: kv tile sizes and stages; under the model's ping-pong choice (no --pingpong
  // given) each with and without the ping-pong schedule, where the two lower differently.
  bool pingpongChoice = options.pipeline.pingpong == PipelineOptions::Pingpong::model &&
                        options.pipeline.warpSpecialize && options.pipeline.gemmOverlap;
  std::vector<Candidate> candidates;
  for (int64_t blockN : {32, 64, 128})
    for (int64_t stages : {2, 3}) {
      if (!pingpongChoice) {
        candidates.push_back({blockN, stages, -1, std::nullopt});
        continue;
      }
      candidates.push_back({blockN, stages, 0, std::nullopt});
      candidates.push_back({blockN, stages, 1, std::nullopt});
    }

  // Lower every candidate, then compile all their kernels concurrently (NVRTC is the slow
  // part); the timed runs below find them in the process-wide kernel cache. A ping-pong
  // candidate that lowers to the same kernels as its plain twin (a kernel the schedule does
  // not apply to), or fails as it does, is dropped, and the twin left to the model.
  rt::CompileOptions compileOptions;
  compileOptions.arch = arch;
  std::vector<std::vector<LoweredKernel>> kernels;
  std::vector<std::string> lowerErrors;
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < candidates.size();) {
    OwningOpRef<ModuleOp> copy = cloneModule(module);
    auto lowered = lowerToCuda(*copy, candidatePipeline(options.pipeline, target, candidates[i]));
    std::string why = lowered.ok() ? "" : lowered.status().message();
    bool twin = candidates[i].pingpong == 1 && why == lowerErrors.back() &&
                (!lowered.ok() || sameKernels(*lowered, kernels.back()));
    if (twin) {
      candidates[i - 1].pingpong = -1;
      candidates.erase(candidates.begin() + i);
      continue;
    }
    lowerErrors.push_back(why);
    kernels.push_back(lowered.ok() ? std::move(*lowered) : std::vector<LoweredKernel>{});
    ++i;
  }
  // The model's own choice, to compare the winner with: one of the candidates where it lowers
  // the same (their tile sizes include the model's), else a candidate of its own.
  Candidate modelChoice{0, 0, -1, std::nullopt};
  std::optional<size_t> model;
  {
    OwningOpRef<ModuleOp> copy = cloneModule(module);
    auto lowered = lowerToCuda(*copy, candidatePipeline(options.pipeline, target, modelChoice));
    if (!lowered.ok()) {
      error = lowered.status().message();
      return failure();
    }
    for (size_t i = 0; i < candidates.size() && !model; ++i)
      if (lowerErrors[i].empty() && sameKernels(*lowered, kernels[i]))
        model = i;
    if (!model) {
      model = candidates.size();
      candidates.push_back(modelChoice);
      lowerErrors.push_back("");
      kernels.push_back(std::move(*lowered));
    }
  }
  std::vector<rt::KernelCache::Request> requests;
  for (const std::vector<LoweredKernel> &candidate : kernels)
    for (const LoweredKernel &kernel : candidate)
      requests.push_back({kernel.cudaSource, kernel.signature.entry + ".cu"});
  std::vector<rt::KernelCache::Fetched> fetched =
      rt::KernelCache::global().getOrCompileAll(requests, compileOptions);
  size_t next = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    std::string status =
        lowerErrors[i].empty() ? "" : "lowering failed: " + lowerErrors[i].substr(0, 200);
    for (size_t k = 0; k < kernels[i].size(); ++k, ++next)
      if (!fetched[next].kernel.ok() && status.empty())
        status = "compile failed: " + fetched[next].kernel.message().substr(0, 200);
    os << "  candidate " << candidates[i].describe()
       << (i == *model && candidates[i].blockN ? " (the model's choice)" : "") << " (" << arch
       << "): "
       << (status.empty() ? std::to_string(kernels[i].size()) + " kernel(s) compiled" : status)
       << "\n";
  }
  os << "  autotune: " << candidates.size() << " candidates compiled in parallel in "
     << llvm::format("%.0f", std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - start)
                                 .count())
     << " ms\n";
  if (!onGpu) {
    os << "  autotune: no GPU here; nothing timed or recorded\n";
    return success();
  }

  double flops = attentionFlops(func, options.batch, options.seqQ, options.seqKv);
  const Candidate *best = nullptr;
  for (Candidate &c : candidates) {
    RunOptions run = options;
    run.bench = true;
    run.check = false;
    run.dumpCuda.clear();
    run.pipeline = candidatePipeline(options.pipeline, target, c);
    OwningOpRef<ModuleOp> copy = cloneModule(module);
    std::string why;
    if (failed(runOnGpu(*copy, run, problem, c.ms, why)) || !c.ms) {
      os << "  autotune " << c.describe() << ": skipped (" << why << ")\n";
      c.ms.reset();
      continue;
    }
    os << "  autotune " << c.describe() << ": " << *c.ms << " ms";
    if (flops > 0)
      os << ", " << flops / (*c.ms * 1e-3) / 1e12 << " TFLOP/s";
    os << "\n";
    if (!best || *c.ms < *best->ms)
      best = &c;
  }
  if (!best) {
    error = "no candidate ran";
    return failure();
  }
  // The winner is checked against the oracle at a small shape (lengths past a tile, ending
  // mid-tile) before it is recorded: a tuning file never holds a kernel that was not checked.
  RunOptions small = options;
  small.batch = 1;
  small.seqQ = std::min<int64_t>(options.seqQ, 191);
  small.seqKv = std::min<int64_t>(options.seqKv, 257);
  small.bench = false;
  small.check = true;
  small.dumpCuda.clear();
  small.pipeline = candidatePipeline(options.pipeline, target, *best);
  Problem check;
  std::optional<double> unused;
  std::string checkOutput;
  llvm::raw_string_ostream checkOs(checkOutput);
  OwningOpRef<ModuleOp> copy = cloneModule(module);
  if (failed(makeProblem(func, small, check, error)) ||
      failed(runOnGpu(*copy, small, check, unused, error)))
    return failure();
  if (!compareWithOracle(check, small, checkOs)) {
    os << checkOutput;
    error = "the fastest candidate (" + best->describe() +
            ") does not match the oracle at B=1 Sq=" + std::to_string(small.seqQ) +
            " Skv=" + std::to_string(small.seqKv) + "; nothing recorded";
    return failure();
  }
  os << "  autotune: " << best->describe() << " checked against the oracle at B=1 Sq=" << small.seqQ
     << " Skv=" << small.seqKv << "\n";
  for (const std::string &signature : signatures) {
    TunedConfig config;
    config.blockN = best->blockN;
    config.stages = best->stages;
    config.pingpong = best->pingpong;
    config.tflops = flops > 0 ? flops / (*best->ms * 1e-3) / 1e12 : 0;
    config.note = ("@" + func.getSymName() + " B=" + std::to_string(options.batch) +
                   " Sq=" + std::to_string(options.seqQ) + " Skv=" + std::to_string(options.seqKv))
                      .str();
    table->set(tuningArch(target, options.pipeline), signature, config);
  }
  rt::Status saved = table->save(options.pipeline.tuningFile);
  if (!saved.ok()) {
    error = saved.message();
    return failure();
  }
  os << "  autotune: best " << best->describe() << " (" << *best->ms << " ms), recorded for "
     << tuningArch(target, options.pipeline) << " in " << options.pipeline.tuningFile << "\n";
  if (const Candidate &m = candidates[*model]; m.ms)
    os << "  autotune: the model's choice" << (m.blockN ? " (" + m.describe() + ")" : "") << " ran "
       << *m.ms << " ms: the best is " << llvm::format("%.3f", *m.ms / *best->ms) << "x as fast\n";
  return success();
}
