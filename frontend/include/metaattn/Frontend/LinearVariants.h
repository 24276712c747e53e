//===- LinearVariants.h - ready-made linear-attention variants -*- C++ -*-===//
//
// Factories returning a configured RecurrentBuilder for the linear (recurrent) family; call
// `build(ctx, name, error)` on the result, or adjust it first. All run through the chunked
// kernel of attn.recurrent (see the convert-attn-to-tile pass).
//
// Notation: per (batch, head) the state follows H_t = diag(α_t)·H_{t-1} + k_tᵀ v_t and
// o_t = q_t·H_t; the gate tensors hold log α in f32.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_FRONTEND_LINEARVARIANTS_H
#define METAATTN_FRONTEND_LINEARVARIANTS_H

#include "metaattn/Frontend/RecurrentBuilder.h"

#include <optional>

namespace metaattn::frontend {

/// Options every linear variant shares.
struct LinearOptions {
  /// Heads of v and the output; heads of q/k (0: the same). Mamba2's groups share q/k (its C
  /// and B) across `numHeads / numQkHeads` heads.
  int64_t numHeads = 1, numQkHeads = 0;
  /// Key dim Dk (q, k; Mamba2's state size) and value dim Dv (Mamba2's head dim).
  int64_t keyDim = 64, valueDim = 64;
  DType dtype = DType::BF16;
  /// Multiplier of q; default 1/sqrt(Dk) (1 for Mamba2).
  std::optional<double> scale;
  /// An initial-state operand and a final-state result ([B, H, Dk, Dv] f32).
  bool initialState = false, finalState = false;
};

/// Plain (ungated) linear attention: α = 1. Function `(q, k, v) -> o`.
RecurrentBuilder linearAttention(const LinearOptions &options);

/// RetNet's retention, recurrent/chunked form: a constant decay γ_h per head. Function
/// `(q, k, v, gate[H]) -> o` with gate = log γ_h (RetNet: γ_h = 1 - 2^(-5-h)).
RecurrentBuilder retnet(const LinearOptions &options);

/// Gated retention / simple GLA: a scalar decay per token and head. Function
/// `(q, k, v, gate[B, S, H]) -> o` with gate = log α_t (≤ 0).
RecurrentBuilder gatedRetention(const LinearOptions &options);

/// GLA with vector gates: a decay per token, head and key dim from gate logits,
/// `log α = logsigmoid(x) / normalizer` (GLA's gate_logit_normalizer, 16). Function
/// `(q, k, v, gate[B, S, H, Dk]) -> o` with gate = the logits x.
RecurrentBuilder gla(const LinearOptions &options, double normalizer = 16.0);

/// Mamba2's SSD: q = C, k = B ([B, S, groups, N]), v = x ([B, S, H, P]), a step size dt per
/// token and head (already positive, after softplus) and A < 0 per head:
/// `log α_t = A_h·dt_t`, `v ← x·dt_t`. Function `(q, k, v, dt[B, S, H], dt[B, S, H], A[H]) -> o`:
/// dt is passed twice, once as the gate and once as the input the v modifier reads. Groups:
/// numQkHeads (1 for one group).
RecurrentBuilder mamba2Ssd(const LinearOptions &options);

} // namespace metaattn::frontend

#endif // METAATTN_FRONTEND_LINEARVARIANTS_H
