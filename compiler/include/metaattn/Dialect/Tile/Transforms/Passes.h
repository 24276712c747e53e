//===- Passes.h - tile dialect passes ----------------------------*- C++ -*-===//
#ifndef METAATTN_DIALECT_TILE_TRANSFORMS_PASSES_H
#define METAATTN_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "metaattn/Dialect/Tile/IR/TileOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"

#include <optional>

namespace metaattn::tile {

#define GEN_PASS_DECL
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "metaattn/Dialect/Tile/Transforms/Passes.h.inc"

/// Attribute names used by the pipelining passes.
constexpr llvm::StringLiteral kPipelineStageAttr = "tile.pipeline_stage";
constexpr llvm::StringLiteral kPipelinePlannedAttr = "tile.pipeline_planned";
/// Whether `target` (e.g. "sm_90a") has the warpgroup wgmma instructions.
inline bool targetHasWgmma(llvm::StringRef target) { return target == "sm_90a"; }

/// Makes `gemms` (wgmma gemms, in issue order) async and waits for them with one
/// `tile.gemm_wait` placed right after `after`: for all of them, or with `pending` > 0 for all
/// but the last `pending` (which the caller must wait for later); returns the wait.
GemmWaitOp issueAsyncThenWait(llvm::ArrayRef<GemmOp> gemms, mlir::Operation *after,
                              unsigned pending = 0);

/// The induction variables of `par` that `value` depends on (bit i: variable i), 0 for a value
/// the same for every element (defined above the loop, or computed inside it by pure ops from
/// such values); nullopt when it depends on something that cannot be recomputed outside the
/// loop (an op with effects or regions, a block argument of a nested region, a fragment load).
std::optional<unsigned> parallelAxes(mlir::Value value, ParallelOp par,
                                     llvm::DenseMap<mlir::Value, unsigned> &memo);

/// Clones the computation of `value` (pure ops inside `par`) at the builder's insertion point,
/// with `map` giving `par`'s induction variables their new values; a value defined above
/// `par` is returned as it is.
mlir::Value cloneParallelChain(mlir::Value value, ParallelOp par, mlir::IRMapping &map,
                               mlir::OpBuilder &b);

/// Clones the computation of `value` (pure ops inside `scope`) at the builder's insertion
/// point, with `map` giving the block arguments inside `scope` it depends on their new values;
/// a value defined above `scope` is returned as it is (cloneParallelChain with any op).
mlir::Value cloneChainInside(mlir::Value value, mlir::Operation *scope, mlir::IRMapping &map,
                             mlir::OpBuilder &b);

/// Whether `a` computed in loop `pa` and `b` computed in loop `pb` are the same function of the
/// values defined above both loops and of the loops' induction variables, where variable i of
/// `pa` may stand for variable j of `pb` when `sameArg(i, j)`.
bool sameParallelValue(mlir::Value a, ParallelOp pa, mlir::Value b, ParallelOp pb,
                       llvm::function_ref<bool(unsigned, unsigned)> sameArg);

/// The async gemm that writes `scores` and comes before `par` in the same iteration: in
/// `par`'s block or in a block of an enclosing `scf.if` (not across a loop's iterations);
/// null when there is none.
GemmOp asyncScoreGemmBefore(ParallelOp par, mlir::Value scores);

/// A score loop: a 2-D tile.parallel anchored on an `mma` fragment (`scores`) that an async
/// gemm earlier in the same iteration writes (asyncScoreGemmBefore).
struct ScoreLoop {
  ParallelOp loop;
  mlir::Value scores;
  GemmOp gemm;
};

/// The score loops in `region`, in program order (the passes that move a score loop's
/// element reads behind its gemm start from them).
llvm::SmallVector<ScoreLoop> getScoreLoops(mlir::Region &region);

/// Whether `read` in loop `par` reads `tensor` at `indices` as computed in loop `loop`: the
/// same element for the same loop indices (an earlier read, kept by its tensor and indices).
bool sameElementRead(mlir::Value tensor, mlir::ValueRange indices, ParallelOp loop, ReadOp read,
                     ParallelOp par);

/// Whether every value `read`'s indices take from above `par` is available right after
/// `gemm` (the values computed inside `par` are recomputed from them).
bool readAvailableAfter(ReadOp read, ParallelOp par, GemmOp gemm, mlir::DominanceInfo &dominance);

/// Whether `index` is `par`'s induction variable `axis` plus or minus values that do not
/// depend on it: neighbouring elements along that axis read neighbouring positions.
bool axisPlus(mlir::Value index, ParallelOp par, unsigned axis,
              llvm::DenseMap<mlir::Value, unsigned> &memo);

} // namespace metaattn::tile

#endif // METAATTN_DIALECT_TILE_TRANSFORMS_PASSES_H
