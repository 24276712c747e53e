//===- Passes.td - attn dialect passes -------------------*- tablegen -*-===//
#ifndef METAATTN_DIALECT_ATTN_TRANSFORMS_PASSES_TD
#define METAATTN_DIALECT_ATTN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AttnMaskAnalysis : Pass<"attn-mask-analysis"> {
  let summary = "Derive affine kv bounds from mask regions so empty tiles are skipped";
  let description = [{
    Reads the `mask` region of every `attn.attention` / `attn.online_attention` and records in
    `mask_bounds` the affine constraints it implies, `kv <= e` or `kv >= e` with
    `e = c_q·q + c_sq·sq + c_skv·skv + c`. The mask is split at `arith.andi`; each conjunct that
    is a signed `arith.cmpi` between affine index expressions whose kv coefficient is ±1 gives
    one constraint. `mask_exact` is set when the conjuncts are all such comparisons (or the
    mask is `true`): then a tile inside every bound needs no element-wise mask. Anything else
    (masks that read custom inputs, `or`, unsigned or non-unit kv comparisons) stays exact only
    per element: its conjunct gives no bound and the mask is evaluated on every visited tile.

    Before (causal, bottom-right aligned):
    ```mlir
    mask {
    ^bb0(%b: index, %h: index, %q: index, %kv: index, %sq: index, %skv: index):
      %0 = arith.subi %skv, %sq : index
      %1 = arith.addi %q, %0 : index
      %2 = arith.cmpi sle, %kv, %1 : index
      attn.yield %2 : i1
    }
    ```
    After: the same op with `{mask_bounds = array<i64: 0, 1, -1, 1, 0>, mask_exact}`
    (`kv <= q - sq + skv`).
  }];
}

def AttnOnlineNormalize : Pass<"attn-online-normalize"> {
  let summary = "Derive the streaming (online) form of each attention's normaliser";
  let description = [{
    Rewrites `attn.attention` into `attn.online_attention`. The normaliser region is
    classified value by value: per-element values carry a degree `d` meaning they scale as
    `e^{-d·m}` under the running row maximum `m` (the one `attn.row_reduce max`); `exp(x - m)`
    has degree 1, products add degrees, sums need equal degrees, `|x|`, `-x`, `max(x, 0)`
    keep them. Row sums of per-element values become accumulators rescaled by
    `exp(d·(m_old - m_new))` when `m` moves; the denominator becomes a `finalize` region
    evaluated once per row. A normaliser outside this class (a degree mix, a per-element value
    that uses a row sum, a second row maximum, ...) is rejected with an error on the op that
    breaks it.

    Before (softmax):
    ```mlir
    normalizer {
    ^bb0(%s: f32, ...):
      %m = attn.row_reduce max %s : f32
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    }
    ```
    After:
    ```mlir
    shift { ^bb0(%s: f32, ...): attn.yield %s : f32 }
    elementwise {
    ^bb0(%s: f32, %m: f32, ...):
      %d = arith.subf %s, %m : f32
      %w = math.exp %d : f32
      attn.yield %w, %w : f32, f32
    }
    finalize {
    ^bb0(%acc: f32, %m: f32, ...):
      %l = math.log %acc : f32
      %lse = arith.addf %m, %l : f32
      attn.yield %acc, %lse : f32, f32
    } {degrees = array<i64: 1, 1>, reductions = [#attn.reduction<sum>]}
    ```
  }];
  let dependentDialects = ["::mlir::math::MathDialect", "::mlir::arith::ArithDialect"];
}

#endif // METAATTN_DIALECT_ATTN_TRANSFORMS_PASSES_TD
