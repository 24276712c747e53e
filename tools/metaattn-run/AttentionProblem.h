//===- AttentionProblem.h - one attention instance to run and check -*- C++ -*-===//
#ifndef METAATTN_TOOLS_METAATTN_RUN_ATTENTIONPROBLEM_H
#define METAATTN_TOOLS_METAATTN_RUN_ATTENTIONPROBLEM_H

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Support/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace metaattn::run {

struct RunOptions {
  int64_t batch = 2, seqQ = 77, seqKv = 130;
  uint64_t seed = 1;
  std::string device = "auto"; // auto, cpu, gpu
  double atol = -1, rtol = -1;  // <0: from the dtype
  bool bench = false;
  int iterations = 20;
  bool check = true;
  std::string loadInputs, saveOutput, dumpCuda;
  PipelineOptions pipeline;
};

/// Inputs, the oracle's answer and the result of one run.
struct Problem {
  attn::AttentionOp op;             ///< in the original module (for the oracle), or
  attn::RecurrentOp recurrent;      ///< the linear-attention op
  std::vector<HostTensor> operands; ///< the op's operands in order
  HostTensor output, lse;           ///< results of the run (lse: or the final state)
  HostTensor refOutput, refLse;     ///< the oracle
  bool hasLse = false;              ///< a second result: lse, or the recurrent final state

  /// The kernel's result parameters in order.
  std::vector<HostTensor *> results() {
    std::vector<HostTensor *> r = {&output};
    if (hasLse)
      r.push_back(&lse);
    return r;
  }
};

/// Creates random operands (or loads them) with the sizes in `options`.
mlir::LogicalResult makeProblem(attn::AttentionOp op, const RunOptions &options,
                                Problem &problem, std::string &error);

/// Runs the lowered kernel of `lowered` (a copy of the module, lowered in place) on the CPU
/// tile executor.
/// Random operands of an attn.recurrent of length `options.seqQ` and the oracle's results.
mlir::LogicalResult makeRecurrentProblem(attn::RecurrentOp op, const RunOptions &options,
                                         Problem &problem, std::string &error);

mlir::LogicalResult runOnCpu(mlir::ModuleOp lowered, llvm::StringRef name, Problem &problem,
                             std::string &error);

/// Compiles with NVRTC, runs on the GPU, optionally times it; returns the median milliseconds
/// in `milliseconds` when benchmarking.
mlir::LogicalResult runOnGpu(mlir::ModuleOp lowered, const RunOptions &options,
                             Problem &problem, std::optional<double> &milliseconds,
                             std::string &error);

/// Compares results with the oracle; prints one line per tensor and returns success when
/// every element is within atol + rtol·|ref| (and -inf/NaN match).
bool compareWithOracle(const Problem &problem, const RunOptions &options, llvm::raw_ostream &os);

/// Number of (q, kv) pairs the mask keeps (exact for affine masks; all pairs otherwise),
/// summed over batch and heads: the FLOP count is 2·pairs·(D + Dv).
double visiblePairs(attn::AttentionOp op, int64_t batch, int64_t seqQ, int64_t seqKv);

} // namespace metaattn::run

#endif // METAATTN_TOOLS_METAATTN_RUN_ATTENTIONPROBLEM_H
