//===- RowTerms.h - a score's additive term of the query row alone -*- C++ -*-===//
//
// The weights of a softmax, exp(x − max x) over a row, do not change when every score of the
// row moves by the same amount. A score that splits as F(s, kv, ...) + G(q), G a term of the
// query row alone, can therefore be computed in the element loop with q fixed to one row q0 of
// the block: each element's score moves by G(q0) − G(q), the same for the whole row, and only
// the row's maximum (for the row statistic, max + log sum) needs G(q) − G(q0) added back. ALiBi's
// c·s − slope·(q + Skv − Sq − kv) is such a score: with q fixed, the bias is a term of the
// column alone, which the compiled loop computes once per column instead of per element.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_LIB_CONVERSION_ATTNTOTILE_ROWTERMS_H
#define METAATTN_LIB_CONVERSION_ATTNTOTILE_ROWTERMS_H

#include "metaattn/Dialect/Attn/IR/AttnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Region.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace metaattn {

/// The split F + G of a score region's value, G a term of the query row alone.
class RowTermSplit {
public:
  /// The split of `score` (a score region: (s, b, h, q, kv, sq, skv, inputs...), custom input i
  /// over `inputAxes[i]`) when the value it yields is F + G with G depending on q, F not on q,
  /// and G built from q, the batch, head and lengths, custom inputs over b and h, and constants
  /// with +, −, negation, products and quotients by values free of s, q and kv, and integer
  /// casts and integer-to-float conversions (exact below 2^24 in f32), so that G is finite
  /// wherever its coefficients are; else nullopt.
  static std::optional<RowTermSplit>
  analyse(mlir::Region &score, llvm::ArrayRef<llvm::SmallVector<attn::InputAxis>> inputAxes);

  /// Emits G at `b`'s insertion point; `arg(i)` gives the value of the score region's
  /// argument i where G reads it (the query row, batch, head, lengths, inputs over b and h;
  /// never the score or kv).
  mlir::Value emitRowTerm(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::function_ref<mlir::Value(unsigned)> arg) const;

private:
  explicit RowTermSplit(mlir::Region &score) : score(&score) {}
  bool separable(mlir::Value v);
  mlir::Value emit(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                   llvm::function_ref<mlir::Value(unsigned)> arg, mlir::IRMapping &mapping) const;
  mlir::Value cloneInvariant(mlir::OpBuilder &b, mlir::Value v,
                             llvm::function_ref<mlir::Value(unsigned)> arg,
                             mlir::IRMapping &mapping) const;

  mlir::Region *score;
  /// For each value of the region: which of the score, q and kv it depends on (kS, kQ, kKv),
  /// and kIn for a custom input other than one over b and h.
  llvm::DenseMap<mlir::Value, unsigned> deps;
  llvm::DenseMap<mlir::Value, bool> memo;
};

} // namespace metaattn

#endif // METAATTN_LIB_CONVERSION_ATTNTOTILE_ROWTERMS_H
