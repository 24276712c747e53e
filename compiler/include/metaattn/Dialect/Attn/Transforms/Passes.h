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
/// e = cq·q + csq·sq + cskv·skv + c.
struct KvBound {
  bool upper;
  int64_t cq, csq, cskv, c;
};

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
/// Decodes a mask_bounds attribute.
llvm::SmallVector<KvBound> decodeMaskBounds(llvm::ArrayRef<int64_t> encoded);

} // namespace metaattn::attn

#endif // METAATTN_DIALECT_ATTN_TRANSFORMS_PASSES_H
