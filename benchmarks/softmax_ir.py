#!/usr/bin/env python3
"""Writes softmax attention functions as attn IR (.mlir) for the GPU tests and benchmarks.

  softmax_ir.py NAME:H:HKV:D:DV:CAUSAL[:DTYPE] ...   > out.mlir

CAUSAL is 0 or 1 (bottom-right aligned: keep kv <= q + skv - sq); DTYPE is bf16 (default) or
f16. The scale is 1/sqrt(D). Every function also returns the log-sum-exp.
"""
import math
import sys


def softmax_ir(name, heads, kv_heads, dim, value_dim, causal, dtype="bf16"):
    def t(h, d):
        return f"tensor<?x?x{h}x{d}x{dtype}>"

    q, k, v, o = t(heads, dim), t(kv_heads, dim), t(kv_heads, value_dim), t(heads, value_dim)
    lse = f"tensor<?x{heads}x?xf32>"
    idx = "%b: index, %h: index, %qi: index, %ki: index, %sq: index, %skv: index"
    if causal:
        mask = ("      %off = arith.subi %skv, %sq : index\n"
                "      %lim = arith.addi %qi, %off : index\n"
                "      %m = arith.cmpi sle, %ki, %lim : index\n")
    else:
        mask = "      %m = arith.constant true\n"
    return f"""func.func @{name}(%q: {q}, %k: {k}, %v: {v}) -> ({o}, {lse}) {{
  %o, %l = attn.attention %q, %k, %v
    score {{
    ^bb0(%s: f32, {idx}):
      %c = arith.constant {1 / math.sqrt(dim):.9e} : f32
      %r = arith.mulf %s, %c : f32
      attn.yield %r : f32
    }} mask {{
    ^bb0({idx}):
{mask}      attn.yield %m : i1
    }} normalizer {{
    ^bb0(%s: f32, {idx}):
      %mx = attn.row_reduce max %s : f32
      %d = arith.subf %s, %mx : f32
      %w = math.exp %d : f32
      %z = attn.row_reduce sum %w : f32
      attn.normalize %w, %z : f32, f32
    }} : {q}, {k}, {v} -> {o}, {lse}
  return %o, %l : {o}, {lse}
}}
"""


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    for spec in argv[1:]:
        parts = spec.split(":")
        name, h, hkv, d, dv, causal = parts[:6]
        dtype = parts[6] if len(parts) > 6 else "bf16"
        print(softmax_ir(name, int(h), int(hkv), int(d), int(dv), causal == "1", dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
