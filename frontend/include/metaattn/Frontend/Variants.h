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
#include "metaattn/Frontend/CombinedAttentionBuilder.h"

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

//===----------------------------------------------------------------------===//
// Other parallel-family variants
//
// Notation: `s = q·k` is the raw score of query position `q` and kv position `kv` (head `h`),
// `sq`/`skv` the query/kv lengths of the batch entry, `off = skv - sq`. "Causal" is always
// aligned to the bottom-right corner as in SoftmaxOptions::causal: `kv <= q + off`, written
// with signed index comparisons. Every factory checks its options; a bad option makes
// `build()` fail with a message naming the variant and the option (and nothing asserts).
// Custom float inputs are f32 tensors; the function takes them after q, k and v, in the order
// listed for each variant.
//===----------------------------------------------------------------------===//

/// Options every variant below shares.
struct VariantOptions {
  /// Query heads H and key/value heads Hkv (GQA when Hkv < H; H % Hkv == 0).
  int64_t numHeads = 1;
  int64_t numKvHeads = 1;
  /// Query/key head dim D.
  int64_t headDim = 64;
  /// Value head dim Dv; default D (retnetParallel: 2·D).
  std::optional<int64_t> valueDim;
  /// Element type of q, k, v and the output.
  DType dtype = DType::BF16;
  /// Multiplier of `q·k`; default `1/sqrt(D)`.
  std::optional<double> scale;
  /// Also return the row statistic ([batch, H, seq_q] f32): the log-sum-exp `m + log Z` for
  /// the shifted normalisers, `log Z` for the others.
  bool withLse = false;
};

/// Which learned bias sigmoidAttention reads.
enum class SigmoidBias {
  /// None: only the constant `SigmoidOptions::bias`.
  None,
  /// One f32 value per query head: input "bias", dims {H}, tensor<Hxf32>.
  PerHead,
  /// A full f32 bias: input "bias", dims {B, H, Q, KV}, tensor<?xHx?x?xf32>.
  Full,
};

struct SigmoidOptions : VariantOptions {
  bool causal = false;
  /// Constant added to every logit, e.g. `-log(n)` for sequence length n (Ramapuram et al.).
  double bias = 0.0;
  /// Learned bias input, added on top of the constant.
  SigmoidBias biasInput = SigmoidBias::None;
};

/// Sigmoid attention: `O = Σ_kv sigmoid(s·scale + bias + B) · V` where `B` is the learned bias
/// input at the current indices (0 without one); identity normaliser (weight, denominator 1),
/// so rows are not normalised and the row statistic is `log 1 = 0`.
AttentionBuilder sigmoidAttention(const SigmoidOptions &options);

struct ReluOptions : VariantOptions {
  bool causal = false;
  /// When set, every weight is divided by this constant (length normalisation, e.g. the
  /// expected sequence length); must be positive.
  std::optional<double> lengthNorm;
};

/// ReLU attention: `O = Σ_kv max(s·scale, 0) / L · V` with `L = lengthNorm` (1 when unset);
/// identity normaliser.
AttentionBuilder reluAttention(const ReluOptions &options);

struct SoftcapOptions : VariantOptions {
  bool causal = false;
  /// The cap c (> 0): logits are squashed into (-c, c). Gemma 2 uses 50.
  double cap = 50.0;
};

/// Logit soft-capping (Gemma 2, Grok): `softmax(c · tanh(s·scale / c)) · V`.
AttentionBuilder softcapAttention(const SoftcapOptions &options);

struct AlibiOptions : VariantOptions {
  /// Causal (the default, as ALiBi was trained); without it the distance is `|dist|`.
  bool causal = true;
  /// The largest slope exponent (8 in the ALiBi paper): slopes are `2^(-maxBias·(h+1)/H)`.
  double maxBias = 8.0;
};

/// ALiBi: `softmax(s·scale - slope_h · dist) · V` with `dist = q + (skv - sq) - kv`, the
/// distance of the key to the query aligned bottom-right (`q - kv` when sq == skv; `|dist|`
/// when not causal, as FlashAttention does), and `slope_h = 2^(-maxBias·(h+1)/H)` computed in
/// the score region from the head index (exp2 of a toFloat(h) expression): no input needed.
/// This is the paper's geometric sequence for H a power of two; for other H the paper
/// interleaves a second sequence, which this factory does not do (declare the slopes as a
/// per-head input with AttentionBuilder::addInput for that).
AttentionBuilder alibiAttention(const AlibiOptions &options);

struct RelativeBiasOptions : VariantOptions {
  bool causal = false;
  /// The bias matrix's element type: F32, BF16 or F16 (a 16-bit bias is widened to f32 where
  /// the score reads it, and moves half the bytes).
  DType biasType = DType::F32;
};

/// Learned relative-position (T5-style, materialised) bias: `softmax(s·scale + bias[h, q, kv])
/// · V` with input "bias", dims {H, Q, KV}, `tensor<Hx?x?xf32>` (or the biasType).
AttentionBuilder relativeBiasAttention(const RelativeBiasOptions &options);

struct SlidingWindowOptions : VariantOptions {
  /// Keys up to `left` positions before and `right` after the (bottom-right aligned) query
  /// position are seen; both >= 0. `right = 0` is a causal window (Mistral, Gemma local).
  int64_t left = 256;
  int64_t right = 0;
};

/// Sliding-window softmax attention: mask `q + off - left <= kv <= q + off + right`.
AttentionBuilder slidingWindowAttention(const SlidingWindowOptions &options);

struct ChunkedOptions : VariantOptions {
  /// Chunk size C >= 1 (Llama 4 uses 8192).
  int64_t chunkSize = 8192;
};

/// Chunked (local, block-diagonal) causal softmax attention: q and kv attend only within the
/// same chunk of size C: mask `(q + off) / C == kv / C && kv <= q + off`. The division is
/// floor division of non-negative values wherever it matters: where `q + off < 0` the causal
/// term already masks every key.
AttentionBuilder chunkedAttention(const ChunkedOptions &options);

struct PrefixLMOptions : VariantOptions {
  /// Number of leading kv positions every query sees (bidirectional prefix), >= 0.
  int64_t prefix = 128;
};

/// Prefix-LM softmax attention: causal plus a fully visible prefix: mask
/// `kv <= q + off || kv < prefix`.
AttentionBuilder prefixLMAttention(const PrefixLMOptions &options);

struct SinkOptions : VariantOptions {
  bool causal = true;
};

/// Softmax with a learned per-head sink logit (GPT-OSS): input "sink", dims {H}, f32. The sink
/// takes part in the denominator only: with `m = rowMax(s·scale)`, `w = exp(s·scale - m)`,
/// `O = Σ w·V / (Σ w + exp(sink_h - m))`.
AttentionBuilder sinkAttention(const SinkOptions &options);

struct SoftpickOptions : VariantOptions {
  bool causal = true;
};

/// Softpick (rectified softmax): `O = Σ relu(e^x - 1)·V / Σ |e^x - 1|` with `x = s·scale`,
/// written shifted by `m = rowMax(x)` so nothing overflows: weight
/// `relu(exp(x - m) - exp(-m))`, denominator `rowAbsSum(exp(x - m) - exp(-m))`.
AttentionBuilder softpickAttention(const SoftpickOptions &options);

struct RetNetOptions : VariantOptions {};

/// RetNet's parallel retention: `S = s·scale·γ_h^(q-kv)` with RetNet's decay per head
/// `γ_h = 1 - 2^(-5-h)` (computed in the kernel, no input), causal, and the normaliser
/// `O = Σ S·V / max(Σ|S|, 1)` (the sum over the row). Dv defaults to 2·D.
AttentionBuilder retnetParallel(const RetNetOptions &options);

struct DocumentMaskOptions : VariantOptions {
  bool causal = true;
};

/// Document masking (packed sequences): softmax where a query sees only keys of its own
/// document. Inputs "doc_q" (dims {B, Q}, i32 `tensor<?x?xi32>`, the document id of each
/// query) and "doc_kv" (dims {B, KV}, i32, of each key); mask
/// `doc_q == doc_kv && kv <= q + off` (the second term only when causal). A row whose keys all
/// belong to other documents yields 0 and a log-sum-exp of -inf.
AttentionBuilder documentMaskAttention(const DocumentMaskOptions &options);

/// Block-sparse softmax attention: the (q, kv) plane is cut into blocks of `blockQ` queries by
/// `blockKv` keys, and input "block_mask" (i32, dims {B, H, Q/blockQ, KV/blockKv}:
/// `tensor<?xHx?x?xi32>` of shape [B, H, ceil(Sq/blockQ), ceil(Skv/blockKv)]) says which
/// blocks take part: mask `block_mask[b, h, q / blockQ, kv / blockKv] != 0`, and
/// `kv <= q + off` too when `causal`. Block sizes must be >= 1; the kernel reads the map once
/// per tile (skipping or unmasking whole tiles) when a tile lies in one block, which holds
/// always when the block sizes are multiples of the tile sizes.
AttentionBuilder blockSparseAttention(const VariantOptions &options, int64_t blockQ,
                                      int64_t blockKv, bool causal);

/// Differential attention (Diff Transformer): `O = softmax(s·Q1K1ᵀ)·V − λ_h ·
/// softmax(s·Q2K2ᵀ)·V`, both causal when `causal`, `s` the scale. A function of two
/// attn.attention ops (f32 outputs) and an attn.combine, with arguments q1, k1, q2, k2 (each
/// `[B, S, H|Hkv, D]`), v (`[B, Skv, Hkv, Dv]`) and "lambda" (f32 `[H]`). The paper's
/// per-head normalisation and `(1 − λ_init)` factor that follow are not part of it.
/// `withLse` is rejected: the result is not one softmax.
CombinedAttentionBuilder differentialAttention(const VariantOptions &options, bool causal);

} // namespace metaattn::frontend

#endif // METAATTN_FRONTEND_VARIANTS_H
