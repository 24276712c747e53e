//===- Variants.h - ready-made attention variants --------------*- C++ -*-===//
//
// Factories returning a configured AttentionBuilder for common attention variants; call
// `build(ctx, name, error)` on the result, or adjust it further first (add a score function,
// inputs, ...).
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_FRONTEND_VARIANTS_H
#define METAATTN_FRONTEND_VARIANTS_H

#include "metaattn/Frontend/AttentionBuilder.h"

#include <optional>

namespace metaattn::frontend {

/// Options of standard (multi-head, grouped-query or multi-query) softmax attention.
struct SoftmaxOptions {
  /// Query heads H and key/value heads Hkv (GQA when Hkv < H; H % Hkv == 0).
  int64_t numHeads = 1;
  int64_t numKvHeads = 1;
  /// Query/key head dim D and value head dim Dv.
  int64_t headDim = 64;
  int64_t valueDim = 64;
  /// Element type of q, k, v and the output.
  DType dtype = DType::BF16;
  /// Causal, aligned to the bottom-right corner: query `q` sees kv positions
  /// `kv <= q + (skv - sq)`, so with a kv cache longer than the queries the last query sees
  /// every key (decode and chunked prefill), and with `sq == skv` it is the usual triangle.
  bool causal = false;
  /// Multiplier of `q·k`; default `1/sqrt(D)`.
  std::optional<double> scale;
  /// Also return the row log-sum-exp, [batch, H, seq_q] f32.
  bool withLse = false;
};

/// Softmax attention `softmax(scale · Q·Kᵀ [masked]) · V`. Validation happens in build().
AttentionBuilder softmaxAttention(const SoftmaxOptions &options);

} // namespace metaattn::frontend

#endif // METAATTN_FRONTEND_VARIANTS_H
