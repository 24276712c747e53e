//===- NormalizerEval.h - Row-wise evaluation of a normaliser ------*- C++ -*-===//
//
// Interprets the normaliser region of attn.attention for one row: values are per-element
// (a vector over the row's kv positions) or per-row scalars.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_LIB_REFERENCE_NORMALIZEREVAL_H
#define METAATTN_LIB_REFERENCE_NORMALIZEREVAL_H

#include "metaattn/Support/ScalarEval.h"

#include <functional>
#include <vector>

namespace metaattn::reference {

/// What the normaliser of one row sees.
struct RowInput {
  /// Score-region results, one per kv position (meaningful where kept).
  llvm::ArrayRef<double> scores;
  /// Whether each kv position is kept by the mask.
  llvm::ArrayRef<char> keep;
  /// b, h, q, sq, skv.
  int64_t b, h, q, sq, skv;
  /// Custom input `i` at kv position `kv` (kv is ignored by inputs that do not vary over kv).
  std::function<Scalar(unsigned, int64_t)> input;
  /// Whether custom input `i` varies over kv.
  llvm::ArrayRef<bool> inputVariesOverKv;
};

/// What the normaliser yields for one row.
struct RowOutput {
  /// Weight per kv position (0 where masked).
  std::vector<double> weight;
  /// Denominator per kv position (a per-row denominator is repeated).
  std::vector<double> denominator;
  /// The row statistic: m + log z, or log z without a row max of the score.
  double rowStatistic = 0;
};

/// Interprets `block` (a normaliser region) for one row.
mlir::LogicalResult evaluateNormalizerRow(mlir::Block &block, const RowInput &row,
                                          RowOutput &result, std::string &error);

} // namespace metaattn::reference

#endif // METAATTN_LIB_REFERENCE_NORMALIZEREVAL_H
