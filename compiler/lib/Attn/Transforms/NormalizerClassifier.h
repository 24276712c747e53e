//===- NormalizerClassifier.h - streaming analysis of normalisers -*- C++ -*-===//
//
// Classifies every value of an attn.attention normaliser region by how it behaves when the
// running row maximum moves: the basis of attn-online-normalize.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_LIB_ATTN_TRANSFORMS_NORMALIZERCLASSIFIER_H
#define METAATTN_LIB_ATTN_TRANSFORMS_NORMALIZERCLASSIFIER_H

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "llvm/ADT/DenseMap.h"

namespace metaattn::attn {

/// What a normaliser value is, relative to the shift m (the row maximum).
struct ValueClass {
  /// Varies along the row (depends on the score, kv, or a custom input over kv).
  bool perElement = false;
  /// Is the shift m itself.
  bool isShift = false;
  /// A log-domain value `y - degree·m` (to be exponentiated).
  bool isExponent = false;
  /// Depends on a row accumulator or is otherwise only computable once the row is complete.
  bool isRow = false;
  /// Homogeneous degree in e^{-m}: the value scales by e^{-degree·Δ} when m grows by Δ.
  int64_t degree = 0;
};

/// The streaming plan of one normaliser region.
struct NormalizerPlan {
  llvm::DenseMap<mlir::Value, ValueClass> classes;
  /// The `attn.row_reduce max` defining the shift, if any.
  RowReduceOp shift;
  /// When the shift used is `max(rowmax, c)` with c per row (a sink logit, say): that op and c.
  /// The running maximum then starts at c instead of -inf.
  mlir::Operation *shiftWithInit = nullptr;
  mlir::Value shiftInit;
  /// The value every later op uses as the shift (the row max, or shiftWithInit's result).
  mlir::Value shiftValue() {
    if (shiftWithInit)
      return shiftWithInit->getResult(0);
    return shift.getResult();
  }
  /// The sum / abs_sum reductions, in region order.
  llvm::SmallVector<RowReduceOp> accumulators;
  mlir::Value weight, denominator;
};

/// Classifies the normaliser of `op`. On failure, an error naming the op that prevents
/// streaming has been emitted.
mlir::FailureOr<NormalizerPlan> classifyNormalizer(AttentionOp op);

} // namespace metaattn::attn

#endif // METAATTN_LIB_ATTN_TRANSFORMS_NORMALIZERCLASSIFIER_H
