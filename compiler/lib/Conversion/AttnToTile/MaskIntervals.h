//===- MaskIntervals.h - classify tiles by interval arithmetic ---*- C++ -*-===//
//
// Evaluates a mask region over a box of indices (q in [q0, q1], kv in [k0, k1]) with interval
// arithmetic, emitting the scalar IR that decides at run time whether the mask is true on the
// whole box (the tile needs no mask), false on the whole box (the tile is skipped), or neither.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_LIB_CONVERSION_ATTNTOTILE_MASKINTERVALS_H
#define METAATTN_LIB_CONVERSION_ATTNTOTILE_MASKINTERVALS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Region.h"

namespace metaattn {

/// An integer interval [lo, hi] of index values; both null when unknown.
struct IndexInterval {
  mlir::Value lo, hi;
  bool known() const { return lo && hi; }
};

/// What is known of a boolean on a whole box: `mustTrue` / `mustFalse` (i1 values).
struct BoolInterval {
  mlir::Value mustTrue, mustFalse;
};

/// Classifies the mask region (arguments b, h, q, kv, sq, skv, custom inputs...) over the box
/// given by `indexArgs` (one interval per index argument; custom inputs are unknown). Ops the
/// analysis does not model make their results unknown, which can only make the answer
/// "neither", never wrong.
BoolInterval classifyMaskOverBox(mlir::OpBuilder &b, mlir::Location loc, mlir::Region &mask,
                                 llvm::ArrayRef<IndexInterval> indexArgs);

} // namespace metaattn

#endif // METAATTN_LIB_CONVERSION_ATTNTOTILE_MASKINTERVALS_H
