//===- AttentionProblem.h - one attention instance to run and check -*- C++ -*-===//
//
// An attention function (one attn.attention, or several combined with attn.combine) with
// random operands, run on the CPU tile executor or the GPU and compared with the oracle.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_TOOLS_METAATTN_RUN_ATTENTIONPROBLEM_H
#define METAATTN_TOOLS_METAATTN_RUN_ATTENTIONPROBLEM_H

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "metaattn/Pipeline/Pipeline.h"
#include "metaattn/Support/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace metaattn::run {

struct RunOptions {
  int64_t batch = 2, seqQ = 77, seqKv = 130;
  uint64_t seed = 1;
  std::string device = "auto"; // auto, cpu, gpu
  double atol = -1, rtol = -1; // <0: from the dtype
  bool bench = false;
  int iterations = 20;
  bool check = true;
  /// < 0: block maps are random 0/1 (about half the blocks kept). Otherwise each block is kept
  /// with this probability, and every block holding a query's diagonal key as well.
  double blockDensity = -1;
  /// > 0: id inputs (i32 with a plain q or kv axis) hold this many documents: values in
  /// [0, documents) in nondecreasing order along that axis (makeDocumentIds).
  int64_t documents = 0;
  std::string loadInputs, saveOutput, dumpCuda;
  PipelineOptions pipeline;
};

/// Inputs, the oracle's answer and the result of one run.
struct Problem {
  mlir::func::FuncOp func;            ///< in the original module (for the oracle)
  std::vector<HostTensor> operands;   ///< the function's arguments
  std::vector<HostTensor> results;    ///< the function's results, from the run
  std::vector<HostTensor> refResults; ///< the oracle's
  std::vector<bool> isRowStatistic;   ///< per result: an attention's log-sum-exp
  std::vector<std::string> notes;     ///< lines about the operands (block maps drawn)
};

/// Creates random operands (or loads q, k, v) with the sizes in `options`, from the way each
/// argument is used: q (batch, seq-q), k and v (batch, seq-kv), custom inputs by their dims;
/// i32 inputs take values in [0, 4), or 0/1 when indexed by a block index (block maps; see
/// RunOptions::blockDensity and makeBlockMap), or are document ids (RunOptions::documents).
mlir::LogicalResult makeProblem(mlir::func::FuncOp func, const RunOptions &options,
                                Problem &problem, std::string &error);

/// Document ids (i32) of `shape` for `documents` documents: values drawn from [0, documents)
/// with `seed`, sorted along the last plain q or kv axis of `axes` (unsorted when there is
/// none). Inputs of one shape drawn with one seed get the same ids, so the query and key ids
/// of equal lengths describe the same documents. `lengths` gets the lengths of the non-empty
/// documents of the first sequence (the first run along that axis), in order.
HostTensor makeDocumentIds(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<attn::InputAxis> axes,
                           int64_t documents, uint64_t seed, std::vector<int64_t> &lengths);

/// A block map (i32 0/1, one dimension per entry of `axes`) for lengths `seqQ` x `seqKv`:
/// block `e` (row-major) is kept when `density >= 1` or the e-th value of
/// `HostTensor::random(shape, f32, seed, 0, 1)` is below `density`, and always when the map
/// has a q and a kv axis and the block holds the diagonal key `kv = q + seqKv - seqQ` of one
/// of its queries (so a causal row never loses its last key). `kept` counts the ones.
HostTensor makeBlockMap(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<attn::InputAxis> axes,
                        int64_t seqQ, int64_t seqKv, double density, uint64_t seed, int64_t &kept);

/// Runs the kernels of `kernels` (from lowerToCuda of `lowered`, lowered in place) for the
/// function `name` on the CPU tile executor, in order, with host intermediates.
mlir::LogicalResult runOnCpu(mlir::ModuleOp lowered, std::vector<LoweredKernel> kernels,
                             llvm::StringRef name, Problem &problem, std::string &error);

/// Compiles with NVRTC, runs on the GPU, optionally times it; returns the median milliseconds
/// in `milliseconds` when benchmarking.
mlir::LogicalResult runOnGpu(mlir::ModuleOp module, const RunOptions &options, Problem &problem,
                             std::optional<double> &milliseconds, std::string &error);

/// Compiles each kernel with NVRTC + ptxas for `arch` (no GPU needed) and prints its
/// registers per thread, spills, dynamic shared memory, threads and gemm paths to `os`.
mlir::LogicalResult printResourceReport(const std::vector<LoweredKernel> &kernels,
                                        const std::string &arch, llvm::raw_ostream &os,
                                        std::string &error);

/// Records `pipeline`'s tile sizes as the tuned ones of every attn.attention of `funcs` for
/// `target` in pipeline.tuningFile, printing one line per op (its signature).
mlir::LogicalResult recordTuning(llvm::ArrayRef<mlir::func::FuncOp> funcs,
                                 const PipelineOptions &pipeline, const std::string &target,
                                 llvm::raw_ostream &os, std::string &error);

/// GPU: times the function of `module` (a module holding only it) at candidate tile sizes
/// (kv tile 32/64/128 x stages 2/3, each with and without ping-pong where that changes the
/// kernels; the rest from the model; the model's own choice among them or beside them),
/// compiled in parallel first, checks the fastest against the oracle at a small shape, records
/// it for each of its attentions in options.pipeline.tuningFile and prints its speed-up over
/// the model's choice.
/// Without a GPU (`onGpu` false) it compiles the candidates for the target and stops.
mlir::LogicalResult autotune(mlir::ModuleOp module, const RunOptions &options, Problem &problem,
                             bool onGpu, llvm::raw_ostream &os, std::string &error);

/// Compares results with the oracle; prints one line per result and returns success when
/// every element is within atol + rtol·|ref| (and -inf/NaN match).
bool compareWithOracle(const Problem &problem, const RunOptions &options, llvm::raw_ostream &os);

/// FLOPs of the function's attentions: 2·pairs·(D + Dv) each, where pairs counts the (q, kv)
/// pairs the mask keeps (exact for affine masks; all pairs otherwise) over batch and heads.
double attentionFlops(mlir::func::FuncOp func, int64_t batch, int64_t seqQ, int64_t seqKv);

/// The DType of a DLPack dtype the runner allocates (f32, f16, bf16, i32).
std::optional<DType> dtypeOf(DLDataType dtype);

} // namespace metaattn::run

#endif // METAATTN_TOOLS_METAATTN_RUN_ATTENTIONPROBLEM_H
