//===- Passes.h - attn dialect passes ----------------------------*- C++ -*-===//
#ifndef METAATTN_DIALECT_ATTN_TRANSFORMS_PASSES_H
#define METAATTN_DIALECT_ATTN_TRANSFORMS_PASSES_H

#include "metaattn/Dialect/Attn/IR/AttnOps.h"
#include "mlir/Pass/Pass.h"

namespace metaattn::attn {

#define GEN_PASS_DECL
#include "metaattn/Dialect/Attn/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "metaattn/Dialect/Attn/Transforms/Passes.h.inc"

/// One affine constraint on kv implied by a mask: kv <= e (upper) or kv >= e (lower), with
/// e = cq·q + csq·sq + cskv·skv + c. A bound with `orPrevious` widens the one before it (of
/// the same direction) instead of adding a constraint: kv <= max(e_previous, e), or
/// kv >= min(...), as a disjunction of masks gives (a prefix-LM mask's kv <= max(q, p - 1)).
struct KvBound {
  bool upper;
  int64_t cq, csq, cskv, c;
  bool orPrevious = false;
};

/// Consecutive bounds joined by `orPrevious`: one constraint each, kv <= max (upper) or
/// kv >= min (lower) of their forms.
llvm::SmallVector<llvm::SmallVector<KvBound, 2>> groupMaskBounds(llvm::ArrayRef<KvBound> bounds);

/// The result of mask analysis for one mask region.
struct MaskInfo {
  llvm::SmallVector<KvBound> bounds;
  /// The bounds (and kv < skv) are the whole mask.
  bool exact = false;
};

/// Checks that the normaliser of `op` can be streamed over kv tiles (the class that
/// attn-online-normalize derives); otherwise emits an error on the op that breaks it.
mlir::LogicalResult checkStreamable(AttentionOp op);

/// Analyses a parallel-family mask region (see attn-mask-analysis).
MaskInfo analyzeMask(mlir::Region &mask);
/// Decodes a mask_bounds attribute (kinds 0 and 1, and 2 and 3 for the same widening the
/// bound before them: KvBound::orPrevious).
llvm::SmallVector<KvBound> decodeMaskBounds(llvm::ArrayRef<int64_t> encoded);

} // namespace metaattn::attn

#endif // METAATTN_DIALECT_ATTN_TRANSFORMS_PASSES_H
