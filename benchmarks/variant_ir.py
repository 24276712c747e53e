#!/usr/bin/env python3
"""Attn IR (.mlir) of the custom variants at any shape, for the benchmarks.

The files in frontend/variants/ are printed by the C++ factories at small fixed shapes (H4 D64
...). The benchmarks need the PERF.md shapes (H32 D128, H6 D64, H32 D256 Dv512), so this module
writes the same IR as those factories with the shape as a parameter: `relu_ir` is
reluAttention (file relu.mlir), `sigmoid_ir` sigmoidAttention with a per-head bias input
(sigmoid.mlir, @sigmoid_head_bias), `retnet_ir` retnetParallel (retnet.mlir). softmax comes
from softmax_ir.py. `python3 benchmarks/selftest.py` checks that each generator, at the shape
of the file, prints the file's function up to SSA names and float spelling.

  variant_ir.py relu|sigmoid|retnet|softmax NAME H D DV CAUSAL   > out.mlir
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from softmax_ir import softmax_ir  # noqa: E402

_IDX = "%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index"


def _f(x):
    return f"{x:.9e}"


def attention_ir(name, heads, kv_heads, dim, value_dim, causal, score, normalizer,
                 dtype="bf16", inputs=(), with_lse=True):
    """One func.func holding one attn.attention.

    score / normalizer: region bodies (lines, without the ^bb0 header) that may use %s (the
    logit, f32), the indices %b %h %qi %ki %sq %skv and %x0, %x1, ... (the custom inputs'
    values at the current indices, f32). inputs: (tensor type, input_dims string) pairs.
    """
    def t(h, d):
        return f"tensor<?x?x{h}x{d}x{dtype}>"

    q, k, v, o = t(heads, dim), t(kv_heads, dim), t(kv_heads, value_dim), t(heads, value_dim)
    lse = f"tensor<?x{heads}x?xf32>"
    xargs = "".join(f", %x{i}: f32" for i in range(len(inputs)))
    fargs = "".join(f", %in{i}: {ty}" for i, (ty, _) in enumerate(inputs))
    results = f"({o}, {lse})" if with_lse else o
    names = "%o, %l" if with_lse else "%o"
    ins = ""
    attrs = ""
    if inputs:
        ins = " inputs(" + ", ".join(f"%in{i}" for i in range(len(inputs))) + " : " + \
              ", ".join(ty for ty, _ in inputs) + ")"
        attrs = " {input_dims = [" + ", ".join(f'"{d}"' for _, d in inputs) + "]}"
    if causal:
        mask = ("      %off = arith.subi %skv, %sq : index\n"
                "      %lim = arith.addi %qi, %off : index\n"
                "      %m = arith.cmpi sle, %ki, %lim : index\n"
                "      attn.yield %m : i1\n")
    else:
        mask = ("      %m = arith.constant true\n"
                "      attn.yield %m : i1\n")
    ret = f"{o}, {lse}" if with_lse else o
    return (f"func.func @{name}(%q: {q}, %k: {k}, %v: {v}{fargs}) -> {results} {{\n"
            f"  {names} = attn.attention %q, %k, %v{ins}\n"
            f"    score {{\n    ^bb0(%s: f32, {_IDX}{xargs}):\n{score}"
            f"    }} mask {{\n    ^bb0({_IDX}{xargs}):\n{mask}"
            f"    }} normalizer {{\n    ^bb0(%s: f32, {_IDX}{xargs}):\n{normalizer}"
            f"    }}{attrs} : {q}, {k}, {v} -> {ret}\n"
            f"  return {names} : {ret}\n}}\n")


_IDENTITY = ("      %one = arith.constant 1.000000000e+00 : f32\n"
             "      attn.normalize %s, %one : f32, f32\n")


def relu_ir(name, heads, dim, causal, length_norm=None, kv_heads=None, value_dim=None,
            dtype="bf16", with_lse=True):
    """ReLU attention: O = sum_kv max(s*scale, 0) / L * V (L = length_norm, or none)."""
    score = (f"      %c = arith.constant {_f(1 / math.sqrt(dim))} : f32\n"
             "      %r = arith.mulf %s, %c : f32\n"
             "      %z = arith.constant 0.000000000e+00 : f32\n"
             "      %p = arith.maximumf %r, %z : f32\n")
    if length_norm:
        score += (f"      %n = arith.constant {_f(float(length_norm))} : f32\n"
                  "      %w = arith.divf %p, %n : f32\n"
                  "      attn.yield %w : f32\n")
    else:
        score += "      attn.yield %p : f32\n"
    return attention_ir(name, heads, kv_heads or heads, dim, value_dim or dim, causal, score,
                        _IDENTITY, dtype, (), with_lse)


def sigmoid_ir(name, heads, dim, causal, bias=-3.0, kv_heads=None, dtype="bf16", with_lse=True):
    """Sigmoid attention with a constant bias plus a per-head bias input tensor<H x f32>:
    O = sum_kv sigmoid(s*scale + bias + b[h]) * V (identity normaliser)."""
    score = (f"      %c = arith.constant {_f(1 / math.sqrt(dim))} : f32\n"
             "      %r = arith.mulf %s, %c : f32\n"
             f"      %cb = arith.constant {_f(bias)} : f32\n"
             "      %t = arith.addf %r, %cb : f32\n"
             "      %u = arith.addf %t, %x0 : f32\n"
             "      %ng = arith.negf %u : f32\n"
             "      %e = math.exp %ng : f32\n"
             "      %one = arith.constant 1.000000000e+00 : f32\n"
             "      %den = arith.addf %one, %e : f32\n"
             "      %one2 = arith.constant 1.000000000e+00 : f32\n"
             "      %sg = arith.divf %one2, %den : f32\n"
             "      attn.yield %sg : f32\n")
    return attention_ir(name, heads, kv_heads or heads, dim, dim, causal, score, _IDENTITY,
                        dtype, ((f"tensor<{heads}xf32>", "h"),), with_lse)


def retnet_ir(name, heads, dim, value_dim=None, kv_heads=None, dtype="bf16", with_lse=True):
    """RetNet parallel retention: S = s*scale*gamma_h^(q-kv) with gamma_h = 1 - 2^(-5-h)
    (computed from the indices, the distance clamped at 0), causal,
    O = sum S*V / max(sum |S|, 1)."""
    score = ("      %hi = arith.index_cast %h : index to i64\n"
             "      %hf = arith.sitofp %hi : i64 to f32\n"
             f"      %c5 = arith.constant {_f(-5.0)} : f32\n"
             "      %e0 = arith.subf %c5, %hf : f32\n"
             "      %p = math.exp2 %e0 : f32\n"
             f"      %one = arith.constant {_f(1.0)} : f32\n"
             "      %g = arith.subf %one, %p : f32\n"
             "      %lg = math.log %g : f32\n"
             f"      %l2e = arith.constant {_f(1 / math.log(2.0))} : f32\n"
             "      %l2g = arith.mulf %lg, %l2e : f32\n"
             "      %off = arith.subi %skv, %sq : index\n"
             "      %pos = arith.addi %qi, %off : index\n"
             "      %dist = arith.subi %pos, %ki : index\n"
             "      %zero = arith.constant 0 : index\n"
             "      %dc = arith.maxsi %dist, %zero : index\n"
             "      %di = arith.index_cast %dc : index to i64\n"
             "      %df = arith.sitofp %di : i64 to f32\n"
             "      %x = arith.mulf %df, %l2g : f32\n"
             "      %decay = math.exp2 %x : f32\n"
             f"      %c = arith.constant {_f(1 / math.sqrt(dim))} : f32\n"
             "      %r = arith.mulf %s, %c : f32\n"
             "      %d = arith.mulf %r, %decay : f32\n"
             "      attn.yield %d : f32\n")
    norm = ("      %a = attn.row_reduce abs_sum %s : f32\n"
            "      %one = arith.constant 1.000000000e+00 : f32\n"
            "      %z = arith.maximumf %a, %one : f32\n"
            "      attn.normalize %s, %z : f32, f32\n")
    return attention_ir(name, heads, kv_heads or heads, dim, value_dim or 2 * dim, True, score,
                        norm, dtype, (), with_lse)


def variant_ir(variant, name, heads, dim, value_dim, causal, **kw):
    """Dispatch by variant name: softmax, relu, sigmoid, retnet."""
    if variant == "softmax":
        return softmax_ir(name, heads, heads, dim, value_dim, causal)
    if variant == "relu":
        return relu_ir(name, heads, dim, causal, value_dim=value_dim, **kw)
    if variant == "sigmoid":
        return sigmoid_ir(name, heads, dim, causal, **kw)
    if variant == "retnet":
        return retnet_ir(name, heads, dim, value_dim)
    raise ValueError(f"unknown variant {variant}")


def main(argv):
    if len(argv) != 7:
        print(__doc__, file=sys.stderr)
        return 1
    variant, name, h, d, dv, causal = argv[1:]
    print(variant_ir(variant, name, int(h), int(d), int(dv), causal == "1"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
