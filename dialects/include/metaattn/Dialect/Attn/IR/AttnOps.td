//===- AttnOps.td - attn dialect operations --------------*- tablegen -*-===//
//
// Operations of the attn dialect: the parallel (softmax-like) family, its derived streaming
// form, and the recurrent (linear attention) family.
//
//===----------------------------------------------------------------------===//

#ifndef METAATTN_DIALECT_ATTN_IR_ATTNOPS_TD
#define METAATTN_DIALECT_ATTN_IR_ATTNOPS_TD

include "metaattn/Dialect/Attn/IR/AttnBase.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"

def Attn_AttentionOp : Attn_Op<"attention", [RecursiveMemoryEffects, IsolatedFromAbove]> {
  let summary = "Parallel-family attention: score function, mask, normaliser, P·V";
  let description = [{
    Per batch `b` and query head `h` (kv head `h / (H / Hkv)`), computes

    ```
    S[q, kv]  = score(Q[b,q,h,:] · K[b,kv,hk,:], b, h, q, kv, sq, skv, inputs...)
    keep      = mask(b, h, q, kv, sq, skv, inputs...)
    (W, Z)    = normalizer over the kept entries of each row
    O[b,q,h,:] = Σ_kv W[q, kv] · V[b,kv,hk,:] / Z[q]
    ```

    Tensors are `[batch, seq, heads, dim]` with dynamic batch and sequence lengths and static
    heads and dims. `D` (of Q and K) may differ from `Dv` (of V and O). O has Q's element type,
    or f32 (an intermediate kept at full precision, e.g. combined by `attn.combine`). The optional second
    result is the row statistic (log-sum-exp: `m + log Z` with a max shift `m` — the row max, or
    `max(row max, c)` when the weights subtract that — else `log Z`), shaped
    `[batch, heads, seq_q]` in f32.

    Regions (all with one block, terminated by `attn.yield` or `attn.normalize`):
    - `score(%s: f32, %b, %h, %q, %kv, %sq, %skv: index, %in...: elt) -> f32`
    - `mask(%b, %h, %q, %kv, %sq, %skv: index, %in...) -> i1` (masked entries take no part in
      the row: weight 0, excluded from every reduction). Rows where every entry is masked
      produce 0 and a log-sum-exp of -inf.
    - `normalizer(%s: f32, %b, %h, %q, %kv, %sq, %skv: index, %in...)` computes a per-element
      weight and a per-row denominator from `attn.row_reduce` results and element-wise ops,
      ending with `attn.normalize %weight, %denominator`.

    Custom inputs are tensors whose dims are a subset of `b, h, q, kv` in that order, declared
    per input in `input_dims` (for example `"h"` for one value per head or `"b,h,q,kv"` for a
    full bias). `q` and `kv` may be block indices: `q/N` indexes the input by `floor(q / N)`
    and that dimension has `ceil(Sq / N)` entries (for example `"b,h,q/64,kv/128"` for a
    block-sparse map). Inside the regions each input appears as the scalar element at the
    current indices.

    `mask_bounds` and `mask_exact` are set by attn-mask-analysis (see attn.online_attention).

    Example (causal softmax):
    ```mlir
    %o = attn.attention %q, %k, %v
      score {
      ^bb0(%s: f32, %b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index):
        %c = arith.constant 0.125 : f32
        %r = arith.mulf %s, %c : f32
        attn.yield %r : f32
      } mask { ... } normalizer { ... }
      : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>)
        -> tensor<?x?x8x64xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$q, AnyRankedTensor:$k, AnyRankedTensor:$v,
                       Variadic<AnyRankedTensor>:$inputs,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$input_dims,
                       OptionalAttr<DenseI64ArrayAttr>:$mask_bounds,
                       UnitAttr:$mask_exact);
  let results = (outs AnyRankedTensor:$output, Optional<AnyRankedTensor>:$lse);
  let regions = (region SizedRegion<1>:$score, SizedRegion<1>:$mask,
                        SizedRegion<1>:$normalizer);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`inputs` `(` $inputs^ `:` type($inputs) `)`)?
    `score` custom<IsolatedRegion>($score) `mask` custom<IsolatedRegion>($mask) `normalizer` custom<IsolatedRegion>($normalizer)
    attr-dict `:` type($q) `,` type($k) `,` type($v) `->` type($output) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Attn_OnlineAttentionOp : Attn_Op<"online_attention",
    [RecursiveMemoryEffects, IsolatedFromAbove]> {
  let summary = "Streaming form of attn.attention, derived by attn-online-normalize";
  let description = [{
    The same computation as `attn.attention`, rewritten to visit the kv positions of a row once,
    in order, with row state carried between them. The normaliser is split into:

    - `shift` (optional): the per-element value whose running row maximum `m` is the shift;
      present when the weights are exponentials shifted by the row max.
    - `shift_init` (optional, with `shift`): `(%b, %h, %q, %kv, %sq, %skv, %in...) -> f32`, the
      per-row value the running maximum starts from instead of -inf (for `max(rowmax, c)`).
    - `elementwise(%s: f32, %m: f32, %b, %h, %q, %kv, %sq, %skv, %in...)` yielding the weight
      and one value per row accumulator. Each yielded value is homogeneous of degree `d` in
      `e^{-m}` (listed in `degrees`, weight first): when `m` grows from `m_old` to `m_new`
      every accumulator of degree `d` (and the output accumulator) is rescaled by
      `exp(d · (m_old - m_new))`.
    - `finalize(%acc...: f32, %m: f32, %b, %h, %q, %kv, %sq, %skv, %in...)` yielding the
      denominator and the row statistic (log-sum-exp), evaluated once per row with the final
      state. It has the same six index arguments as the other regions, but `%kv` and inputs
      that vary over kv must stay unused (the verifier checks this).

    `reductions` gives the kind of each row accumulator (`sum` or `abs_sum`).
    `mask_bounds` (set by attn-mask-analysis) lists affine constraints implied by the mask, five
    integers each: `kind` (0: `kv <= e`, 1: `kv >= e`; 2 and 3: the same, widening the
    constraint before it to `kv <= max(e', e)` or `kv >= min(e', e)`, from a disjunction) and
    the coefficients of `e = c_q·q + c_sq·sq + c_skv·skv + c`. With `mask_exact`, the constraints (and
    `kv < skv`) are the whole mask, so tiles inside every bound need no element-wise mask.
  }];
  let arguments = (ins AnyRankedTensor:$q, AnyRankedTensor:$k, AnyRankedTensor:$v,
                       Variadic<AnyRankedTensor>:$inputs,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$input_dims,
                       DefaultValuedAttr<ArrayAttr, "{}">:$reductions,
                       DenseI64ArrayAttr:$degrees,
                       OptionalAttr<DenseI64ArrayAttr>:$mask_bounds,
                       UnitAttr:$mask_exact);
  let results = (outs AnyRankedTensor:$output, Optional<AnyRankedTensor>:$lse);
  let regions = (region SizedRegion<1>:$score, SizedRegion<1>:$mask, AnyRegion:$shift,
                        AnyRegion:$shift_init, SizedRegion<1>:$elementwise,
                        SizedRegion<1>:$finalize);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`inputs` `(` $inputs^ `:` type($inputs) `)`)?
    `score` custom<IsolatedRegion>($score) `mask` custom<IsolatedRegion>($mask) (`shift` custom<IsolatedRegion>($shift)^)? (`shift_init` custom<IsolatedRegion>($shift_init)^)?
    `elementwise` custom<IsolatedRegion>($elementwise)
    `finalize` custom<IsolatedRegion>($finalize)
    attr-dict `:` type($q) `,` type($k) `,` type($v) `->` type($output) (`,` type($lse)^)?
  }];
  let extraClassDeclaration = [{
    /// True when the weights are shifted by a running row maximum.
    bool hasShift() { return !getShift().empty(); }
    /// Number of row accumulators (besides the output accumulator).
    unsigned getNumAccumulators() { return getReductions().size(); }
  }];
  let hasVerifier = 1;
}

def Attn_CombineOp : Attn_Op<"combine",
    [RecursiveMemoryEffects, AttrSizedOperandSegments, IsolatedFromAbove]> {
  let summary = "Element-wise combination of attention outputs";
  let description = [{
    Combines N attention outputs of one shape `[batch, seq_q, heads, value dim]` element by
    element: `O[b, q, h, d] = combiner(X0[b, q, h, d], ..., X{N-1}[b, q, h, d], b, h, q, d,
    inputs...)`. Variants made of several attentions are several `attn.attention` ops and one
    `attn.combine` of their outputs; differential attention is
    `X0 - λ_h · X1`:

    ```mlir
    %o = attn.combine %x0, %x1 inputs(%lambda : tensor<8xf32>) {
    ^bb0(%a: f32, %c: f32, %b: index, %h: index, %q: index, %d: index, %l: f32):
      %t = arith.mulf %l, %c : f32
      %r = arith.subf %a, %t : f32
      attn.yield %r : f32
    } {input_dims = ["h"]} : tensor<?x?x8x64xf32>, tensor<?x?x8x64xf32> -> tensor<?x?x8x64xbf16>
    ```

    Operands and the result are bf16, f16 or f32 (each operand appears in the region as f32);
    heads and value dim are static. Custom inputs are declared as for `attn.attention`, with
    dims from `b, h, q` (`q/N` a block index). The region is
    `(%x0...: f32, %b, %h, %q, %d: index, %in...: elt) -> f32`.
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values, Variadic<AnyRankedTensor>:$inputs,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$input_dims);
  let results = (outs AnyRankedTensor:$output);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = [{
    $values (`inputs` `(` $inputs^ `:` type($inputs) `)`)? custom<IsolatedRegion>($combiner)
    attr-dict `:` type($values) `->` type($output)
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Attn_RecurrentOp : Attn_Op<"recurrent",
    [RecursiveMemoryEffects, AttrSizedOperandSegments, IsolatedFromAbove]> {
  let summary = "Recurrent-family (linear) attention with a decaying state";
  let description = [{
    Per batch `b` and head `h`, with state `H_t` of shape `Dk × Dv` (f32):

    ```
    H_t = diag(α_t) · H_{t-1} + k_tᵀ v_t        o_t = q_t · H_t
    ```

    `q`, `k` are `[B, S, Hqk, Dk]`, `v` is `[B, S, H, Dv]` with `H % Hqk == 0` (Mamba2's groups
    share q/k across heads); the output is `[B, S, H, Dv]`. The gate gives `log α` (fp32):
    `gate_kind` none (α = 1), `head` (tensor `[H]`, constant per head, RetNet), `token`
    (`[B, S, H]`, gated retention, Mamba2) or `vector` (`[B, S, H, Dk]`, GLA). Optional
    `initial_state` and a `final_state` result are `[B, H, Dk, Dv]` f32.

    Modifier regions (optional, element-wise, fused into the kernels) map an element of q, k,
    v or the gate: `(%x: f32, %b, %h, %t, %d: index, %in...: elt) -> f32`; for example Mamba2's
    `v · dt` and `A · dt`. `input_dims` declares custom inputs as for `attn.attention`, with
    dims from `b, t, h, d`.
  }];
  let arguments = (ins AnyRankedTensor:$q, AnyRankedTensor:$k, AnyRankedTensor:$v,
                       Optional<AnyRankedTensor>:$gate,
                       Optional<AnyRankedTensor>:$initial_state,
                       Variadic<AnyRankedTensor>:$inputs,
                       Attn_GateKindAttr:$gate_kind,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$input_dims);
  let results = (outs AnyRankedTensor:$output, Optional<AnyRankedTensor>:$final_state);
  let regions = (region AnyRegion:$q_mod, AnyRegion:$k_mod, AnyRegion:$v_mod,
                        AnyRegion:$gate_mod);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`gate` `(` $gate^ `:` type($gate) `)`)?
    (`initial_state` `(` $initial_state^ `:` type($initial_state) `)`)?
    (`inputs` `(` $inputs^ `:` type($inputs) `)`)?
    (`q_mod` custom<IsolatedRegion>($q_mod)^)? (`k_mod` custom<IsolatedRegion>($k_mod)^)? (`v_mod` custom<IsolatedRegion>($v_mod)^)? (`gate_mod` custom<IsolatedRegion>($gate_mod)^)?
    attr-dict `:` type($q) `,` type($k) `,` type($v) `->` type($output)
    (`,` type($final_state)^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Attn_RowReduceOp : Attn_Op<"row_reduce", [Pure]> {
  let summary = "Reduction of a per-element value over the kept entries of its row";
  let description = [{
    Only inside a normaliser region. `%r = attn.row_reduce max %x : f32` is the maximum of `%x`
    over the row's unmasked kv positions; `sum` and `abs_sum` sum `%x` and `|%x|`. The result is
    a per-row value.
  }];
  let arguments = (ins Attn_ReductionKindAttr:$kind, F32:$value);
  let results = (outs F32:$result);
  let assemblyFormat = "$kind $value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def Attn_NormalizeOp : Attn_Op<"normalize", [Terminator, Pure,
    ParentOneOf<["AttentionOp"]>]> {
  let summary = "Terminator of a normaliser region: per-element weight and row denominator";
  let arguments = (ins F32:$weight, F32:$denominator);
  let assemblyFormat = "$weight `,` $denominator attr-dict `:` type($weight) `,` type($denominator)";
}

def Attn_YieldOp : Attn_Op<"yield", [Terminator, Pure,
    ParentOneOf<["AttentionOp", "OnlineAttentionOp", "RecurrentOp", "CombineOp"]>]> {
  let summary = "Terminator of attn regions";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // METAATTN_DIALECT_ATTN_IR_ATTNOPS_TD
