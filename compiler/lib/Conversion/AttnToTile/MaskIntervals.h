//===- MaskIntervals.h - classify tiles by interval arithmetic ---*- C++ -*-===//
//
// Evaluates a mask region over a box of indices (q in [q0, q1], kv in [k0, k1]) with interval
// arithmetic, emitting the scalar IR that decides at run time whether the mask is true on the
// whole box (the tile needs no mask), false on the whole box (the tile is skipped), or neither.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_LIB_CONVERSION_ATTNTOTILE_MASKINTERVALS_H
#define METAATTN_LIB_CONVERSION_ATTNTOTILE_MASKINTERVALS_H

#include "metaattn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Region.h"

#include <optional>

namespace metaattn {

/// An integer interval [lo, hi] of index values; both null when unknown. When `valid` (an
/// i1) is set, the bounds hold only where it is true: conclusions drawn from them are
/// conjoined with it (a value read once per box is exact only when the box lies in one block).
struct IndexInterval {
  mlir::Value lo, hi;
  mlir::Value valid;
  bool known() const { return lo && hi; }
};

/// A custom input of the mask, as a kernel parameter: `tensor` is read with one index per
/// axis of `axes` (see attn::InputAxis).
struct BoxInput {
  mlir::Value tensor;
  mlir::Type elementType;
  llvm::SmallVector<attn::InputAxis> axes;
  /// Where set, the input's bounds per aligned kv tile of `boundsTile` keys (a pre-pass's
  /// output, buildTileBoundsKernel: the input's shape with its kv axis in tiles, then min
  /// and max), read for a box whose kv range lies in one such tile instead of bounding the
  /// input over the range.
  mlir::Value tileBounds;
  int64_t boundsTile = 0;
};

/// How the box's q and kv ranges sit: each lies inside one aligned tile of `qTile` (`kvTile`)
/// positions (its lower bound a multiple of it); 0 when nothing is known.
struct BoxTiling {
  int64_t qTile = 0, kvTile = 0;
};

/// What is known of a boolean on a whole box: `mustTrue` / `mustFalse` (i1 values).
struct BoolInterval {
  mlir::Value mustTrue, mustFalse;
};

/// Classifies the mask region (arguments b, h, q, kv, sq, skv, custom inputs...) over the box
/// given by `indexArgs` (one interval per index argument). Ops the analysis does not model
/// make their results unknown, which can only make the answer "neither", never wrong.
///
/// A custom integer input whose indices are constant over the box (every axis is b, h, or a
/// block index q/N or kv/N that meets one block of the box) is read once, with a tile.read at
/// the box's lower corner, and its value is an exact interval — so a block-sparse map skips
/// or unmasks whole tiles. Whether the box meets one block is known at compile time when N is
/// a multiple of the aligned tile in `tiling`, else checked at run time (the value is then
/// valid only when it holds). A 32- or 64-bit integer input with one plain q or kv axis (a
/// document's ids, "b,q" / "b,kv") is bounded by a tile.read_bounds over the box's range
/// along that axis: tiles whose query and key ids cannot meet are skipped, those whose ids
/// are all one document unmasked. Inputs with two plain axes, float inputs, or an empty
/// `inputs` stay unknown.
/// `boundPlainAxes` false leaves inputs with a plain q or kv axis unknown (no bounds read).
BoolInterval classifyMaskOverBox(mlir::OpBuilder &b, mlir::Location loc, mlir::Region &mask,
                                 llvm::ArrayRef<IndexInterval> indexArgs,
                                 llvm::ArrayRef<BoxInput> inputs = {}, BoxTiling tiling = {},
                                 bool boundPlainAxes = true);

/// Whether every value the attention's elementwise region (arguments: score, shift, then the
/// region arguments of the score) yields is 0 when the score is -inf and the shift finite, for
/// any values of the other arguments: softmax's exp(s - m) is. A kernel that stores masked
/// scores as -inf then gets its weights right without testing the mask again.
bool weightsVanishOnMaskedScores(mlir::Region &elementwise);

/// A closed interval of real numbers.
struct FloatRange {
  double lo, hi;
};

/// The interval every value the score region `score` yields lies in, whatever the dot
/// product, the custom inputs and the indices are (ScoreRange.cpp: interval arithmetic through
/// tanh, erf, exp, sums, products, quotients, minima, maxima and selects), widened by a margin
/// for the device's f32 rounding; nullopt when it is unbounded. A soft cap's c·tanh(s·k) gives
/// about [−c, c].
std::optional<FloatRange> scoreRange(mlir::Region &score);

} // namespace metaattn

#endif // METAATTN_LIB_CONVERSION_ATTNTOTILE_MASKINTERVALS_H
