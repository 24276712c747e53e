//===- Variants.cpp - ready-made attention variants -----------------------===//

#include "metaattn/Frontend/Variants.h"

#include <cmath>

using namespace metaattn::frontend;

AttentionBuilder metaattn::frontend::softmaxAttention(const SoftmaxOptions &options) {
  AttentionBuilder builder;
  builder.heads(options.numHeads, options.numKvHeads)
      .headDims(options.headDim, options.valueDim)
      .dtype(options.dtype)
      .normalizer(Normalizer::softmax())
      .withLse(options.withLse);
  // An explicit scale replaces the default 1/sqrt(D) (computed at build time from D).
  if (options.scale) {
    double scale = *options.scale;
    builder.scoreFn([scale](Sym s, const Indices &) { return s * scale; });
  }
  if (options.causal)
    builder.mask([](const Indices &i) { return i.kv <= i.q + (i.skv - i.sq); });
  return builder;
}
