//===- Variants.cpp - ready-made attention variants -----------------------===//
//
// Each factory configures an AttentionBuilder; the formulas are documented in Variants.h.
// Invalid options give a builder whose score function reports the error, so build() fails
// with that message like any other description error.
//
//===----------------------------------------------------------------------===//

#include "metaattn/Frontend/Variants.h"
#include "RegionEmitter.h"

#include <cmath>
#include <sstream>

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

namespace {

/// A builder with the shared options applied; Dv defaults to `defaultDvFactor · D`.
AttentionBuilder configure(const VariantOptions &o, int64_t defaultDvFactor = 1) {
  AttentionBuilder builder;
  builder.heads(o.numHeads, o.numKvHeads)
      .headDims(o.headDim, o.valueDim.value_or(defaultDvFactor * o.headDim))
      .dtype(o.dtype)
      .withLse(o.withLse);
  return builder;
}

/// The multiplier of q·k: the option, else 1/sqrt(D). (An invalid D is reported by build()
/// before any region is emitted, so the value is never used then.)
double scaleOf(const VariantOptions &o) {
  return o.scale ? *o.scale : 1.0 / std::sqrt(static_cast<double>(o.headDim));
}

/// Bottom-right aligned causal mask, exactly as softmaxAttention writes it.
Sym causal(const Indices &i) { return i.kv <= i.q + (i.skv - i.sq); }

/// A builder whose build() fails with `variant: message`: the score function reports it
/// (size errors found by the builder itself still come first).
AttentionBuilder invalid(const VariantOptions &o, const std::string &variant,
                         const std::string &message) {
  AttentionBuilder builder = configure(o);
  std::string full = variant + ": " + message;
  builder.scoreFn([full](Sym, const Indices &) {
    if (detail::RegionEmitter *emitter = detail::RegionEmitter::current())
      emitter->report(full);
    return Sym();
  });
  return builder;
}

std::string str(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

/// The check every variant makes on the shared options; "" when they are fine.
std::string checkShared(const VariantOptions &o) {
  if (o.scale && !std::isfinite(*o.scale))
    return "scale must be finite, got " + str(*o.scale);
  return "";
}

} // namespace

AttentionBuilder metaattn::frontend::sigmoidAttention(const SigmoidOptions &o) {
  const char *name = "sigmoid attention";
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, name, msg);
  if (!std::isfinite(o.bias))
    return invalid(o, name, "bias must be finite, got " + str(o.bias));
  AttentionBuilder builder = configure(o);
  std::optional<Input> biasInput;
  if (o.biasInput == SigmoidBias::PerHead)
    biasInput = builder.addInput("bias", DType::F32, {Dim::H});
  else if (o.biasInput == SigmoidBias::Full)
    biasInput = builder.addInput("bias", DType::F32, {Dim::B, Dim::H, Dim::Q, Dim::KV});
  double scale = scaleOf(o), bias = o.bias;
  builder.scoreFn([scale, bias, biasInput](Sym s, const Indices &i) {
    Sym x = s * scale;
    if (bias != 0.0)
      x = x + bias;
    if (biasInput)
      x = x + i.inputs[*biasInput];
    return sigmoid(x);
  });
  if (o.causal)
    builder.mask(causal);
  builder.normalizer(Normalizer::identity());
  return builder;
}

AttentionBuilder metaattn::frontend::reluAttention(const ReluOptions &o) {
  const char *name = "ReLU attention";
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, name, msg);
  if (o.lengthNorm && !(*o.lengthNorm > 0 && std::isfinite(*o.lengthNorm)))
    return invalid(o, name, "lengthNorm must be positive and finite, got " + str(*o.lengthNorm));
  AttentionBuilder builder = configure(o);
  double scale = scaleOf(o);
  std::optional<double> norm = o.lengthNorm;
  builder.scoreFn([scale, norm](Sym s, const Indices &) {
    Sym r = max(s * scale, 0.0);
    return norm ? r / *norm : r;
  });
  if (o.causal)
    builder.mask(causal);
  builder.normalizer(Normalizer::identity());
  return builder;
}

AttentionBuilder metaattn::frontend::softcapAttention(const SoftcapOptions &o) {
  const char *name = "softcap attention";
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, name, msg);
  if (!(o.cap > 0 && std::isfinite(o.cap)))
    return invalid(o, name, "cap must be positive and finite, got " + str(o.cap));
  AttentionBuilder builder = configure(o);
  double scale = scaleOf(o), cap = o.cap;
  builder.scoreFn([scale, cap](Sym s, const Indices &) { return cap * tanh(s * (scale / cap)); });
  if (o.causal)
    builder.mask(causal);
  builder.normalizer(Normalizer::softmax());
  return builder;
}

AttentionBuilder metaattn::frontend::alibiAttention(const AlibiOptions &o) {
  const char *name = "ALiBi attention";
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, name, msg);
  if (!(o.maxBias > 0 && std::isfinite(o.maxBias)))
    return invalid(o, name, "maxBias must be positive and finite, got " + str(o.maxBias));
  AttentionBuilder builder = configure(o);
  double scale = scaleOf(o);
  // slope_h = 2^(-maxBias (h + 1) / H); H > 0 is checked by build() before this runs.
  double step = -o.maxBias / static_cast<double>(o.numHeads > 0 ? o.numHeads : 1);
  bool isCausal = o.causal;
  builder.scoreFn([scale, step, isCausal](Sym s, const Indices &i) {
    Sym slope = exp2(toFloat(i.h + 1) * step);
    Sym dist = i.q + (i.skv - i.sq) - i.kv;
    if (!isCausal)
      dist = abs(dist);
    Sym x = s * scale;
    return x - slope * toFloat(dist);
  });
  if (o.causal)
    builder.mask(causal);
  builder.normalizer(Normalizer::softmax());
  return builder;
}

AttentionBuilder metaattn::frontend::relativeBiasAttention(const RelativeBiasOptions &o) {
  const char *name = "relative-bias attention";
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, name, msg);
  if (o.biasType != DType::F32 && o.biasType != DType::BF16 && o.biasType != DType::F16)
    return invalid(o, name,
                   std::string("biasType must be f32, bf16 or f16, got ") + toString(o.biasType));
  AttentionBuilder builder = configure(o);
  Input bias = builder.addInput("bias", o.biasType, {Dim::H, Dim::Q, Dim::KV});
  double scale = scaleOf(o);
  builder.scoreFn([scale, bias](Sym s, const Indices &i) { return s * scale + i.inputs[bias]; });
  if (o.causal)
    builder.mask(causal);
  builder.normalizer(Normalizer::softmax());
  return builder;
}

AttentionBuilder metaattn::frontend::slidingWindowAttention(const SlidingWindowOptions &o) {
  const char *name = "sliding-window attention";
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, name, msg);
  if (o.left < 0)
    return invalid(o, name, "left must be >= 0, got " + std::to_string(o.left));
  if (o.right < 0)
    return invalid(o, name, "right must be >= 0, got " + std::to_string(o.right));
  AttentionBuilder builder = configure(o);
  double scale = scaleOf(o);
  builder.scoreFn([scale](Sym s, const Indices &) { return s * scale; });
  int64_t left = o.left, right = o.right;
  builder.mask([left, right](const Indices &i) {
    Sym pos = i.q + (i.skv - i.sq);
    Sym lo = left == 0 ? i.kv >= pos : i.kv >= pos - left;
    Sym hi = right == 0 ? i.kv <= pos : i.kv <= pos + right;
    return lo && hi;
  });
  builder.normalizer(Normalizer::softmax());
  return builder;
}

AttentionBuilder metaattn::frontend::chunkedAttention(const ChunkedOptions &o) {
  const char *name = "chunked attention";
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, name, msg);
  if (o.chunkSize < 1)
    return invalid(o, name, "chunkSize must be >= 1, got " + std::to_string(o.chunkSize));
  AttentionBuilder builder = configure(o);
  double scale = scaleOf(o);
  builder.scoreFn([scale](Sym s, const Indices &) { return s * scale; });
  int64_t chunk = o.chunkSize;
  builder.mask([chunk](const Indices &i) {
    Sym pos = i.q + (i.skv - i.sq);
    Sym sameChunk = pos / chunk == i.kv / chunk;
    return sameChunk && i.kv <= pos;
  });
  builder.normalizer(Normalizer::softmax());
  return builder;
}

AttentionBuilder metaattn::frontend::prefixLMAttention(const PrefixLMOptions &o) {
  const char *name = "prefix-LM attention";
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, name, msg);
  if (o.prefix < 0)
    return invalid(o, name, "prefix must be >= 0, got " + std::to_string(o.prefix));
  AttentionBuilder builder = configure(o);
  double scale = scaleOf(o);
  builder.scoreFn([scale](Sym s, const Indices &) { return s * scale; });
  int64_t prefix = o.prefix;
  builder.mask([prefix](const Indices &i) {
    Sym isCausal = causal(i);
    Sym inPrefix = i.kv < prefix;
    return isCausal || inPrefix;
  });
  builder.normalizer(Normalizer::softmax());
  return builder;
}

AttentionBuilder metaattn::frontend::sinkAttention(const SinkOptions &o) {
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, "sink attention", msg);
  AttentionBuilder builder = configure(o);
  Input sink = builder.addInput("sink", DType::F32, {Dim::H});
  double scale = scaleOf(o);
  builder.scoreFn([scale](Sym s, const Indices &) { return s * scale; });
  if (o.causal)
    builder.mask(causal);
  builder.normalizer(Normalizer::custom(
      [sink](Sym s, RowOps &rows) -> std::pair<Sym, Sym> {
        Sym m = rows.rowMax(s);
        Sym w = exp(s - m);
        Sym sum = rows.rowSum(w);
        Sym extra = exp(rows.indices().inputs[sink] - m);
        return {w, sum + extra};
      },
      "sink"));
  return builder;
}

AttentionBuilder metaattn::frontend::softpickAttention(const SoftpickOptions &o) {
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, "softpick attention", msg);
  AttentionBuilder builder = configure(o);
  double scale = scaleOf(o);
  builder.scoreFn([scale](Sym s, const Indices &) { return s * scale; });
  if (o.causal)
    builder.mask(causal);
  builder.normalizer(Normalizer::custom(
      [](Sym s, RowOps &rows) -> std::pair<Sym, Sym> {
        Sym m = rows.rowMax(s);
        Sym e = exp(s - m);
        Sym e0 = exp(-m);
        Sym x = e - e0;
        Sym w = max(x, 0.0);
        Sym z = rows.rowAbsSum(x);
        return {w, z};
      },
      "softpick"));
  return builder;
}

AttentionBuilder metaattn::frontend::retnetParallel(const RetNetOptions &o) {
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, "RetNet parallel retention", msg);
  AttentionBuilder builder = configure(o, /*defaultDvFactor=*/2);
  double scale = scaleOf(o);
  builder.scoreFn([scale](Sym s, const Indices &i) {
    // γ_h^n = 2^(n·log2 γ_h) with γ_h = 1 - 2^(-5-h); the distance is clamped at 0 so that the
    // keys the causal mask drops evaluate to a finite value before they are dropped.
    Sym log2Gamma = log(1.0 - exp2(-5.0 - toFloat(i.h))) * (1.0 / std::log(2.0));
    Sym dist = max(i.q + (i.skv - i.sq) - i.kv, 0);
    return s * scale * exp2(toFloat(dist) * log2Gamma);
  });
  builder.mask(causal);
  builder.normalizer(Normalizer::custom(
      [](Sym s, RowOps &rows) -> std::pair<Sym, Sym> {
        Sym a = rows.rowAbsSum(s);
        return {s, max(a, 1.0)};
      },
      "retnet"));
  return builder;
}

AttentionBuilder metaattn::frontend::documentMaskAttention(const DocumentMaskOptions &o) {
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, "document-mask attention", msg);
  AttentionBuilder builder = configure(o);
  Input docQ = builder.addInput("doc_q", DType::I32, {Dim::B, Dim::Q});
  Input docKv = builder.addInput("doc_kv", DType::I32, {Dim::B, Dim::KV});
  double scale = scaleOf(o);
  builder.scoreFn([scale](Sym s, const Indices &) { return s * scale; });
  bool isCausal = o.causal;
  builder.mask([docQ, docKv, isCausal](const Indices &i) {
    Sym same = i.inputs[docQ] == i.inputs[docKv];
    if (!isCausal)
      return same;
    Sym c = causal(i);
    return same && c;
  });
  builder.normalizer(Normalizer::softmax());
  return builder;
}

AttentionBuilder metaattn::frontend::blockSparseAttention(const VariantOptions &o, int64_t blockQ,
                                                          int64_t blockKv, bool isCausal) {
  const char *name = "block-sparse attention";
  if (std::string msg = checkShared(o); !msg.empty())
    return invalid(o, name, msg);
  if (blockQ < 1)
    return invalid(o, name, "blockQ must be >= 1, got " + std::to_string(blockQ));
  if (blockKv < 1)
    return invalid(o, name, "blockKv must be >= 1, got " + std::to_string(blockKv));
  AttentionBuilder builder = configure(o);
  Input blocks =
      builder.addInput("block_mask", DType::I32,
                       {Dim::B, Dim::H, blocksOf(Dim::Q, blockQ), blocksOf(Dim::KV, blockKv)});
  double scale = scaleOf(o);
  builder.scoreFn([scale](Sym s, const Indices &) { return s * scale; });
  builder.mask([blocks, isCausal](const Indices &i) {
    Sym kept = i.inputs[blocks] != 0;
    if (!isCausal)
      return kept;
    Sym c = causal(i);
    return kept && c;
  });
  builder.normalizer(Normalizer::softmax());
  return builder;
}

CombinedAttentionBuilder metaattn::frontend::differentialAttention(const VariantOptions &o,
                                                                   bool isCausal) {
  const char *name = "differential attention";
  CombinedAttentionBuilder combined;
  std::string msg = checkShared(o);
  if (msg.empty() && o.withLse)
    msg = "withLse is not supported (the result is a difference of two softmaxes)";
  if (!msg.empty()) {
    VariantOptions plain = o;
    plain.withLse = false;
    combined.attention(invalid(plain, name, msg), {0, 1, 2});
    return combined.combine([](const std::vector<Sym> &x, const CombineIndices &) { return x[0]; });
  }
  double scale = scaleOf(o);
  auto half = [&]() {
    AttentionBuilder builder = configure(o);
    builder.scoreFn([scale](Sym s, const Indices &) { return s * scale; });
    if (isCausal)
      builder.mask(causal);
    builder.normalizer(Normalizer::softmax());
    return builder;
  };
  // Arguments: q1, k1, q2, k2, v (shared), then lambda.
  combined.attention(half(), {0, 1, 4}).attention(half(), {2, 3, 4});
  unsigned lambda = combined.addInput("lambda", DType::F32, {Dim::H});
  combined.combine([lambda](const std::vector<Sym> &x, const CombineIndices &i) {
    return x[0] - i.inputs[lambda] * x[1];
  });
  return combined;
}
