#!/usr/bin/env python3
"""Custom variants on the GPU: metaattn against FlexAttention and against metaattn's own softmax.

Each variant is printed with metaattn-variant, timed with metaattn-run --bench --no-check
(median of --iters CUDA-event timings) and, where FlexAttention can express it, FlexAttention
compiled (torch.compile, block mask built once outside the timing) is timed in the same call.
Correctness of every variant against the oracle is checked separately by
tests/gpu/run_variants.sh.

Cases (bf16):
- B4 H16 S4k D128: softmax, softcap, ALiBi, sliding window 1k, document mask, sigmoid, ReLU,
  sinks, softpick, a relative-position bias (an H x S x S f32 matrix input read per score),
  prefix-LM (a 128-token prefix), chunked attention (the library's 8k chunks: at S4k the
  causal mask through chunk arithmetic) (causal). "vs our softmax" = our causal softmax ms at B4
  H16 S4k D128 / the variant's ms.
- RetNet parallel, B4 H16 S4k D128 Dv256 (RetNet's Dv = 2·D; causal, decay γ_h^(q-kv) computed
  in the kernel): "vs our softmax" against our causal softmax at D128 Dv256 (also a row).
- document mask: DOCUMENTS documents per sequence, the same for both: metaattn-run draws the
  ids (--documents=N --seed=1: uniform in [0, N), sorted along the sequence) and this script
  reproduces them (document_ids()) for FlexAttention's mask_mod. TFLOP/s count the causal
  pairs, as for softmax (the kept pairs are about 1/N of them).
- block-sparse, B4 H16 S4k D128 causal, blocks of 128 x 128, 80% sparse: 20% of the causally
  visible blocks kept. metaattn-run draws the map (--block-density=P --seed=1: each block kept
  with probability P, the blocks on the diagonal always); P is chosen so that the expected
  fraction of visible blocks kept is 20%. This script reproduces the same map (SplitMix64, see
  block_map()), checks its count against the runner's, and gives FlexAttention a BlockMask of
  the identical pattern (built from the block map, full and partial blocks separated, checked
  against create_block_mask on a small map first). TFLOP/s count only the kept, causally
  visible (q, kv) pairs, for both; "vs our softmax" is the time ratio to the dense causal
  softmax (it does ~18% of its work).
- differential (Diff Transformer), PERF.md's Diff-Transformer-3B shape: B8 H12 S4k D128 Dv256
  causal. Ours: two attentions with f32 outputs and a combine (three kernels). Flex: two
  flex_attention calls and `o1 - lambda[h] * o2` in one torch.compile'd function, timed
  together. FLOPs: two causal attentions. Reference: our causal softmax at H12 D128 Dv256 B8
  (also a row, with Flex's softmax); "vs our softmax" = softmax ms / differential ms, and
  "vs 2x softmax" = 2 * softmax ms / differential ms (1.0: the differential costs exactly two
  softmax attentions).

A case that fails prints its error and the run goes on; the CSV is rewritten after every case.

  python3 benchmarks/bench_variants.py --bin BIN --csv variants.csv [--only a,b] [--no-flex]
  python3 benchmarks/bench_variants.py --selftest    # the pure helpers, offline
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import (NAN, attn_flops, first_line, fmt, isnum, markdown_table,  # noqa: E402
                          ratio, splitmix_uniform, tflops, time_cuda, today, warn, write_csv)

B, H, S, D = 4, 16, 4096, 128
DIFF_B, DIFF_H, DIFF_D, DIFF_DV = 8, 12, 128, 256    # PERF.md: Diff-Transformer-3B
SPARSE_BLOCK = 128                                  # block-sparse: 128 x 128 blocks
SPARSE_KEEP = 0.2                                   # fraction of visible blocks kept
SEED = 1                                            # metaattn-run --seed
BLOCK_MAP_ARG = 3                                   # block_sparse(q, k, v, block_mask)
DOCUMENTS = 4                                       # document mask: documents per sequence
FIELDS = ["variant", "shape", "causal", "ours_ms", "ours_tflops", "flex_ms", "flex_tflops",
          "ours_vs_flex", "our_softmax_ms", "ours_vs_our_softmax", "ours_vs_2x_our_softmax",
          "note", "error", "date", "gpu"]
LABELS = {"softmax": "softmax", "softcap": "softcap", "alibi": "ALiBi",
          "sliding_window": "sliding window 1024", "document_mask": "document mask",
          "sigmoid": "sigmoid", "relu": "ReLU", "sink": "sinks", "softpick": "softpick",
          "retnet": "RetNet parallel (D 128, Dv 256)", "block_sparse": "block-sparse 128x128",
          "softmax_retnet": "softmax D128 Dv256 (RetNet's shape)",
          "softmax_dv256": "softmax D128 Dv256", "differential": "differential",
          "relative_bias": "relative bias (H x S x S matrix)", "prefix_lm": "prefix-LM 128",
          "chunked": "chunked 8192"}


# --- cases ------------------------------------------------------------------------------------
def case(name, variant, batch, heads, dim, value_dim, causal, reference, flex, extra=()):
    """One row. reference: the case whose time is "our softmax" for this row."""
    return {"name": name, "variant": variant, "B": batch, "H": heads, "D": dim, "Dv": value_dim,
            "causal": causal, "reference": reference, "flex": flex,
            "variant_args": list(extra)}


def cases():
    flexed = ("softmax", "softcap", "alibi", "sliding_window", "document_mask")
    out = [case(v, v, B, H, D, D, True, "softmax", v in flexed)
           for v in ("softmax", "softcap", "alibi", "sliding_window", "document_mask",
                     "sigmoid", "relu", "sink", "softpick", "relative_bias", "prefix_lm",
                     "chunked")]
    out.append(case("softmax_retnet", "softmax", B, H, D, 2 * D, True, "softmax_retnet", False))
    out.append(case("retnet", "retnet", B, H, D, 2 * D, True, "softmax_retnet", False))
    out.append(case("block_sparse", "block_sparse", B, H, D, D, True, "softmax", True,
                    [f"--block-q={SPARSE_BLOCK}", f"--block-kv={SPARSE_BLOCK}"]))
    out.append(case("softmax_dv256", "softmax", DIFF_B, DIFF_H, DIFF_D, DIFF_DV, True,
                    "softmax_dv256", True))
    out.append(case("differential", "differential", DIFF_B, DIFF_H, DIFF_D, DIFF_DV, True,
                    "softmax_dv256", True))
    return out


def shape_label(c):
    dims = f"D{c['D']}" if c["D"] == c["Dv"] else f"D{c['D']} Dv{c['Dv']}"
    return f"B{c['B']} H{c['H']} S{S // 1024}k {dims}"


def variant_cmd(binary_dir, c):
    """metaattn-variant's command line for case c (RetNet parallel's Dv is 2·D by default)."""
    cmd = [os.path.join(binary_dir, "metaattn-variant"), c["variant"], f"--heads={c['H']}",
           f"--dim={c['D']}"]
    if c["Dv"] != c["D"] and c["variant"] != "retnet":
        cmd.append(f"--value-dim={c['Dv']}")
    if c["causal"]:
        cmd.append("--causal")
    return cmd + c["variant_args"]


def runner_cmd(binary_dir, path, c, iters, extra=()):
    return [os.path.join(binary_dir, "metaattn-run"), path, "--device=gpu", f"--batch={c['B']}",
            f"--seq-q={S}", f"--seq-kv={S}", f"--seed={SEED}", "--bench", "--no-check",
            f"--iters={iters}"] + list(extra)


TIME_RE = re.compile(r"time: ([0-9.eE+-]+) ms(?:, ([0-9.eE+-]+) TFLOP/s)?")
KEPT_RE = re.compile(r"block map \(argument #(\d+)\): (\d+) of (\d+) blocks kept")


def parse_time(text):
    """(ms, TFLOP/s) of metaattn-run's `time:` line; NaN for what is absent."""
    m = TIME_RE.search(text)
    if not m:
        return NAN, NAN
    return float(m.group(1)), float(m.group(2)) if m.group(2) else NAN


def parse_kept(text):
    """{argument: (kept, total)} of metaattn-run's `block map` lines (--block-density)."""
    return {int(m.group(1)): (int(m.group(2)), int(m.group(3))) for m in KEPT_RE.finditer(text)}


# --- block-sparse: the map metaattn-run draws, its visible pairs ------------------------------
def block_count(length, block):
    return (length + block - 1) // block


def on_diagonal(i, j, bq, bkv, sq, skv):
    """True when block (i, j) holds the diagonal key kv = q + skv - sq of one of its queries
    (metaattn-run's makeBlockMap always keeps those)."""
    off = skv - sq
    q0, q1 = i * bq, min(i * bq + bq, sq) - 1
    k0, k1 = j * bkv, min(j * bkv + bkv, skv) - 1
    lo, hi = max(q0 + off, 0), min(q1 + off, skv - 1)
    return lo <= hi and lo <= k1 and k0 <= hi


def block_map(batch, heads, sq, skv, bq, bkv, density, seed):
    """metaattn-run's --block-density map of a [B, H, Sq/bq, Skv/bkv] input drawn with `seed`
    (= --seed + 17 * argument): a flat row-major list of 0/1. Block e is kept when density >= 1,
    when the e-th value of HostTensor::random(f32, seed, 0, 1) is below density, or when it is
    on the diagonal."""
    nq, nkv = block_count(sq, bq), block_count(skv, bkv)
    n = batch * heads * nq * nkv
    draws = splitmix_uniform(seed, n, 0.0, 1.0)
    diag = [[on_diagonal(i, j, bq, bkv, sq, skv) for j in range(nkv)] for i in range(nq)]
    out = []
    for e in range(n):
        i, j = (e // nkv) % nq, e % nkv
        out.append(1 if density >= 1 or draws[e] < density or diag[i][j] else 0)
    return out


def block_pairs(bq, bkv, sq, skv, causal):
    """Visible (q, kv) pairs of each block (a list of rows), under the causal mask
    kv <= q + skv - sq when causal."""
    off = skv - sq
    nq, nkv = block_count(sq, bq), block_count(skv, bkv)
    rows = []
    for i in range(nq):
        q0, q1 = i * bq, min(i * bq + bq, sq) - 1
        row = []
        for j in range(nkv):
            k0, k1 = j * bkv, min(j * bkv + bkv, skv) - 1
            if not causal:
                row.append((q1 - q0 + 1) * (k1 - k0 + 1))
                continue
            row.append(sum(max(0, min(k1, q + off) - k0 + 1) for q in range(q0, q1 + 1)))
        rows.append(row)
    return rows


def keep_probability(target, bq, bkv, sq, skv, causal):
    """The --block-density that keeps `target` of the visible blocks in expectation, the
    diagonal ones being kept always (rounded to 6 digits, so that both sides parse the same
    double)."""
    pairs = block_pairs(bq, bkv, sq, skv, causal)
    visible = forced = 0
    for i, row in enumerate(pairs):
        for j, p in enumerate(row):
            if p > 0:
                visible += 1
                forced += on_diagonal(i, j, bq, bkv, sq, skv)
    if visible == forced:
        return 1.0
    return round(min(1.0, max(0.0, (target * visible - forced) / (visible - forced))), 6)


def block_map_stats(flat, batch, heads, pairs):
    """(kept visible blocks, visible blocks, kept visible pairs) of a flat 0/1 map."""
    nq, nkv = len(pairs), len(pairs[0])
    kept = visible = kept_pairs = 0
    for e, keep in enumerate(flat):
        p = pairs[(e // nkv) % nq][e % nkv]
        if p > 0:
            visible += 1
            kept += keep
            kept_pairs += p if keep else 0
    assert len(flat) == batch * heads * nq * nkv
    return kept, visible, kept_pairs


def sparse_plan(batch, heads, sq, bq, bkv, keep, seed, arg):
    """Everything both sides need: the density to ask for, the map, its FLOPs."""
    density = keep_probability(keep, bq, bkv, sq, sq, True)
    flat = block_map(batch, heads, sq, sq, bq, bkv, density, seed + 17 * arg)
    pairs = block_pairs(bq, bkv, sq, sq, True)
    kept, visible, kept_pairs = block_map_stats(flat, batch, heads, pairs)
    return {"density": density, "map": flat, "count": sum(flat), "total": len(flat),
            "kept_visible": kept, "visible": visible,
            "flops": 2.0 * kept_pairs * (D + D)}


# --- ours -------------------------------------------------------------------------------------
def run_ours(binary_dir, c, iters, workdir, extra=(), timeout=600):
    """(ms, runner TFLOP/s, output) of metaattn-run --bench; raises RuntimeError on failure."""
    path = os.path.join(workdir, f"{c['name']}.mlir")
    with open(path, "w") as f:
        p = subprocess.run(variant_cmd(binary_dir, c), stdout=f, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    if p.returncode != 0:
        raise RuntimeError(f"metaattn-variant exit {p.returncode}: {p.stderr.strip()[-300:]}")
    p = subprocess.run(runner_cmd(binary_dir, path, c, iters, extra), capture_output=True,
                       text=True, timeout=timeout)
    out = p.stdout + p.stderr
    ms, tf = parse_time(p.stdout)
    if p.returncode != 0 or not isnum(ms):
        lines = [ln for ln in out.strip().splitlines() if ln.strip()]
        why = lines[-1] if p.returncode != 0 and lines else "no `time:` line"
        raise RuntimeError(f"metaattn-run exit {p.returncode}: {why}")
    return ms, tf, out


# --- FlexAttention (torch imported here only) -------------------------------------------------
def flex_plain(variant, iters):
    """The B4 H16 S4k D128 causal variants FlexAttention expresses with score/mask mods."""
    import torch
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    causal = lambda b, h, qi, ki: ki <= qi  # noqa: E731
    score_mod, mask_mod = None, causal
    if variant == "softcap":
        score_mod = lambda s, b, h, qi, ki: 50.0 * torch.tanh(s / 50.0)  # noqa: E731
    elif variant == "alibi":
        slopes = torch.exp2(-8.0 * torch.arange(1, H + 1, device="cuda") / H)
        score_mod = lambda s, b, h, qi, ki: s - slopes[h] * (qi - ki)  # noqa: E731
    elif variant == "sliding_window":
        mask_mod = lambda b, h, qi, ki: (ki <= qi) & (qi - ki <= 1024)  # noqa: E731
    elif variant == "document_mask":
        docs = torch.tensor(document_ids(B, S, DOCUMENTS, SEED), device="cuda").view(B, S)
        mask_mod = lambda b, h, qi, ki: (ki <= qi) & (docs[b, qi] == docs[b, ki])  # noqa: E731
    elif variant != "softmax":
        return NAN
    block_mask = create_block_mask(mask_mod, B, H, S, S, device="cuda")
    compiled = torch.compile(flex_attention, dynamic=False)
    return time_cuda(lambda: compiled(q, k, v, score_mod=score_mod, block_mask=block_mask), iters)


def document_ids(batch, seq, documents, seed):
    """metaattn-run --documents=N --seed=SEED's ids of a [batch, seq] input (makeDocumentIds):
    HostTensor::random(i32, seed, 0, N) truncated, each row sorted."""
    draws = splitmix_uniform(seed, batch * seq, 0.0, float(documents), as_f32=False)
    return [sorted(int(x) for x in draws[b * seq:(b + 1) * seq]) for b in range(batch)]


def dense_to_ordered(dense):
    """(num_blocks, indices) of a [B, H, Q blocks, KV blocks] 0/1 map, as create_block_mask
    orders them: the kept block indices first, ascending (a stable descending sort)."""
    import torch
    dense = dense.to(torch.int32)
    num = dense.sum(dim=-1).to(torch.int32).contiguous()
    idx = torch.argsort(dense, dim=-1, descending=True, stable=True).to(torch.int32).contiguous()
    return num, idx


def sparse_mask_mod(bmap, bq, bkv):
    """Causal, within the kept blocks of bmap ([B, H, Q blocks, KV blocks] 0/1)."""
    def mask_mod(b, h, qi, ki):
        return (ki <= qi) & (bmap[b, h, qi // bq, ki // bkv] != 0)
    return mask_mod


def sparse_block_mask(bmap, sq, bq, bkv):
    """FlexAttention's BlockMask for causal attention restricted to the blocks of `bmap`
    ([B, H, Q blocks, KV blocks] 0/1 on the GPU), built from the block map without the
    [B, H, Sq, Skv] mask create_block_mask would materialise: a kept block is full when every
    (q, kv) in it is causally visible, partial when some are (mask_mod applies there)."""
    import torch
    from torch.nn.attention.flex_attention import BlockMask
    dev = bmap.device
    nq, nkv = bmap.shape[-2], bmap.shape[-1]
    i = torch.arange(nq, device=dev).view(-1, 1)
    j = torch.arange(nkv, device=dev).view(1, -1)
    q0, q1 = i * bq, torch.clamp((i + 1) * bq, max=sq) - 1
    k0, k1 = j * bkv, torch.clamp((j + 1) * bkv, max=sq) - 1
    full = (k1 <= q0).expand(nq, nkv)
    partial = (k0 <= q1).expand(nq, nkv) & ~full
    kept = bmap != 0
    num, idx = dense_to_ordered(kept & partial)
    full_num, full_idx = dense_to_ordered(kept & full)
    return BlockMask.from_kv_blocks(num, idx, full_num, full_idx, BLOCK_SIZE=(bq, bkv),
                                    mask_mod=sparse_mask_mod(bmap, bq, bkv),
                                    seq_lengths=(sq, sq))


def ordered_to_dense(num, idx):
    """The 0/1 [..., rows, cols] map of (num_blocks, indices), whatever the order of indices."""
    import torch
    cols = idx.shape[-1]
    pos = torch.arange(cols, device=idx.device).expand(idx.shape)
    where = torch.where(pos < num.unsqueeze(-1), idx.long(), cols)
    dense = torch.zeros(*idx.shape[:-1], cols + 1, dtype=torch.int32, device=idx.device)
    dense.scatter_(-1, where, 1)
    return dense[..., :cols]


def check_sparse_block_mask():
    """sparse_block_mask against create_block_mask on a small random map (B2 H3 S1k, blocks
    128): True when both hold the same partial and full blocks (else a warning, and the caller
    falls back to create_block_mask)."""
    import torch
    from torch.nn.attention.flex_attention import create_block_mask
    g = torch.Generator(device="cpu").manual_seed(0)
    sq, bq = 1024, SPARSE_BLOCK
    bmap = (torch.rand(2, 3, sq // bq, sq // bq, generator=g) < 0.3).to(torch.int32).cuda()
    mine = sparse_block_mask(bmap, sq, bq, bq)
    ref = create_block_mask(sparse_mask_mod(bmap, bq, bq), 2, 3, sq, sq, device="cuda",
                            BLOCK_SIZE=bq)
    same = ref.full_kv_num_blocks is not None and all(
        torch.equal(ordered_to_dense(a, b), ordered_to_dense(c, d)) for a, b, c, d in (
            (mine.kv_num_blocks, mine.kv_indices, ref.kv_num_blocks, ref.kv_indices),
            (mine.full_kv_num_blocks, mine.full_kv_indices, ref.full_kv_num_blocks,
             ref.full_kv_indices)))
    if not same:
        warn("block-sparse: the BlockMask built from the block map differs from "
             "create_block_mask's on a small map")
    return same


def flex_block_sparse(flat_map, iters):
    import torch
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    nq = block_count(S, SPARSE_BLOCK)
    bmap = torch.tensor(flat_map, dtype=torch.int32, device="cuda").view(B, H, nq, nq)
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    try:
        block_mask = sparse_block_mask(bmap, S, SPARSE_BLOCK, SPARSE_BLOCK)
        ok = check_sparse_block_mask()
    except Exception as e:  # noqa: BLE001
        warn(f"block-sparse: BlockMask from the block map: {first_line(e)}")
        ok = False
    if not ok:
        warn("block-sparse: using create_block_mask at full size instead")
        block_mask = create_block_mask(sparse_mask_mod(bmap, SPARSE_BLOCK, SPARSE_BLOCK), B, H,
                                       S, S, device="cuda", BLOCK_SIZE=SPARSE_BLOCK)
    compiled = torch.compile(flex_attention, dynamic=False)
    return time_cuda(lambda: compiled(q, k, v, block_mask=block_mask), iters)


def flex_dv256(variant, iters):
    """Causal softmax, or the differential attention, at H12 D128 Dv256 B8 S4k."""
    import torch
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    bf16 = torch.bfloat16
    block_mask = create_block_mask(lambda b, h, qi, ki: ki <= qi, None, None, S, S,
                                   device="cuda")
    if variant == "softmax_dv256":
        q, k = (torch.randn(DIFF_B, DIFF_H, S, DIFF_D, device="cuda", dtype=bf16)
                for _ in range(2))
        v = torch.randn(DIFF_B, DIFF_H, S, DIFF_DV, device="cuda", dtype=bf16)
        compiled = torch.compile(flex_attention, dynamic=False)
        return time_cuda(lambda: compiled(q, k, v, block_mask=block_mask), iters)
    q1, k1, q2, k2 = (torch.randn(DIFF_B, DIFF_H, S, DIFF_D, device="cuda", dtype=bf16)
                      for _ in range(4))
    v = torch.randn(DIFF_B, DIFF_H, S, DIFF_DV, device="cuda", dtype=bf16)
    lam = torch.rand(DIFF_H, device="cuda", dtype=torch.float32)

    def differential(q1, k1, q2, k2, v, lam, block_mask):
        o1 = flex_attention(q1, k1, v, block_mask=block_mask)
        o2 = flex_attention(q2, k2, v, block_mask=block_mask)
        return (o1.float() - lam.view(1, -1, 1, 1) * o2.float()).to(v.dtype)

    compiled = torch.compile(differential, dynamic=False)
    return time_cuda(lambda: compiled(q1, k1, q2, k2, v, lam, block_mask), iters)


# --- one case ---------------------------------------------------------------------------------
def run_case(args, c, workdir, refs, gpu):
    """One row: ours, Flex, FLOPs; errors go to the row's `error` and stderr."""
    row = {"variant": c["name"], "shape": shape_label(c), "causal": c["causal"],
           "ours_ms": NAN, "ours_tflops": NAN, "flex_ms": NAN, "flex_tflops": NAN,
           "note": "", "error": "", "date": today(), "gpu": gpu}
    flops, extra, plan = NAN, [], None
    if c["name"] == "block_sparse":
        plan = sparse_plan(c["B"], c["H"], S, SPARSE_BLOCK, SPARSE_BLOCK, SPARSE_KEEP, SEED,
                           BLOCK_MAP_ARG)
        extra = [f"--block-density={plan['density']}"]
        flops = plan["flops"]
        row["note"] = (f"{plan['kept_visible']} of {plan['visible']} visible blocks kept "
                       f"({100.0 * plan['kept_visible'] / plan['visible']:.1f}%), "
                       f"--block-density={plan['density']}")
    elif c["name"] == "document_mask":
        extra = [f"--documents={DOCUMENTS}"]
        row["note"] = f"{DOCUMENTS} documents per sequence (--documents={DOCUMENTS})"
    elif c["name"] == "differential":
        flops = 2 * attn_flops(c["B"], c["H"], S, S, c["D"], c["Dv"], True)
    elif c["name"] == "softmax_dv256":
        flops = attn_flops(c["B"], c["H"], S, S, c["D"], c["Dv"], True)
    try:
        ms, runner_tflops, out = run_ours(args.bin, c, args.iters, workdir, extra)
        row["ours_ms"] = ms
        if not isnum(flops) and isnum(runner_tflops):
            flops = runner_tflops * 1e12 * ms * 1e-3     # the runner's count (visible pairs)
        row["ours_tflops"] = tflops(flops, ms)
        if plan is not None:
            got = parse_kept(out).get(BLOCK_MAP_ARG)
            if got != (plan["count"], plan["total"]):
                runner = f"{got[0]} of {got[1]}" if got else "an unknown number of"
                warn(f"block-sparse: metaattn-run kept {runner} blocks, this script's copy of "
                     f"its map {plan['count']} of {plan['total']}: Flex gets the same density, "
                     "not the same pattern")
                row["note"] += "; Flex's map is not the runner's (same density)"
    except Exception as e:  # noqa: BLE001 - report and go on
        row["error"] = f"ours: {first_line(e)}"
        warn(f"{c['name']}: {row['error']}")
    if c["flex"] and not args.no_flex:
        try:
            if c["name"] == "block_sparse":
                row["flex_ms"] = flex_block_sparse(plan["map"], args.iters)
            elif c["name"] in ("softmax_dv256", "differential"):
                row["flex_ms"] = flex_dv256(c["name"], args.iters)
            else:
                row["flex_ms"] = flex_plain(c["name"], args.iters)
            row["flex_tflops"] = tflops(flops, row["flex_ms"])
        except Exception as e:  # noqa: BLE001
            row["error"] += ("; " if row["error"] else "") + f"flex: {first_line(e)}"
            warn(f"{c['name']}: flex: {first_line(e)}")
    if c["name"] == c["reference"]:
        refs[c["name"]] = row["ours_ms"]
    ref = refs.get(c["reference"], NAN)
    row["our_softmax_ms"] = ref
    row["ours_vs_flex"] = ratio(row["flex_ms"], row["ours_ms"])
    row["ours_vs_our_softmax"] = ratio(ref, row["ours_ms"])
    row["ours_vs_2x_our_softmax"] = (ratio(2 * ref, row["ours_ms"])
                                     if c["name"] == "differential" and isnum(ref) else NAN)
    return row


def table(rows):
    out = []
    for r in rows:
        vs = fmt(r["ours_vs_our_softmax"])
        if isnum(r.get("ours_vs_2x_our_softmax")):
            vs += f" ({fmt(r['ours_vs_2x_our_softmax'])} vs 2x)"
        label = LABELS.get(r["variant"], r["variant"]) + (" (causal)" if r["causal"] else "")
        out.append([label, r["shape"], fmt(r["ours_ms"], ".3f", "—"),
                    fmt(r["ours_tflops"], ".0f", "—"), fmt(r["flex_ms"], ".3f", "—"),
                    fmt(r["flex_tflops"], ".0f", "—"), fmt(r["ours_vs_flex"], ".2f", "—"),
                    vs if isnum(r["ours_vs_our_softmax"]) else "—"])
    return markdown_table(["variant", "shape (bf16)", "metaattn ms", "TFLOP/s", "Flex ms",
                           "Flex TFLOP/s", "speed vs Flex", "vs our softmax"], out)


def selftest():
    """The pure helpers, offline (no GPU, torch or build): 0 when every check holds."""
    fails = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            fails.append(what)
    # the counts tests/lit/Tools/run-block-density.mlir checks metaattn-run against
    for args, kept in (((2, 2, 77, 130, 32, 32, 0.25, 52), 35),
                       ((2, 2, 77, 130, 32, 32, 0, 52), 24),
                       ((2, 2, 77, 130, 32, 32, 1, 52), 60),
                       ((1, 2, 130, 77, 32, 32, 0, 52), 12),
                       ((1, 2, 130, 77, 32, 32, 0.5, 7 + 51), 21)):
        check(sum(block_map(*args)) == kept, f"block_map{args} keeps {kept} blocks")
    # the lengths tests/lit/Tools/run-documents.mlir checks metaattn-run --documents=3 against
    first = document_ids(2, 200, 3, SEED)[0]
    check([first.count(d) for d in range(3)] == [70, 65, 65],
          "document_ids(2, 200, 3): the first sequence's documents are 70, 65, 65 long")
    for sq, skv in ((77, 130), (130, 77), (256, 256), (300, 300)):
        causal = sum(map(sum, block_pairs(32, 64, sq, skv, True)))
        want = sum(max(0, min(skv, q + skv - sq + 1)) for q in range(sq))
        check(causal == want, f"block_pairs causal {sq}x{skv}: {causal} pairs")
        check(sum(map(sum, block_pairs(32, 64, sq, skv, False))) == sq * skv,
              f"block_pairs full {sq}x{skv}")
    p = keep_probability(SPARSE_KEEP, SPARSE_BLOCK, SPARSE_BLOCK, S, S, True)
    nq = S // SPARSE_BLOCK
    visible, forced = nq * (nq + 1) // 2, nq
    expect = (forced + p * (visible - forced)) / visible
    check(abs(expect - SPARSE_KEEP) < 1e-5, f"--block-density={p} keeps {expect:.4f} of the "
          "visible blocks in expectation")
    plan = sparse_plan(B, H, S, SPARSE_BLOCK, SPARSE_BLOCK, SPARSE_KEEP, SEED, BLOCK_MAP_ARG)
    frac = plan["kept_visible"] / plan["visible"]
    dense = attn_flops(B, H, S, S, D, D, True)
    check(abs(frac - SPARSE_KEEP) < 0.01 and 0.1 < plan["flops"] / dense < 0.3,
          f"block-sparse plan: {frac:.3f} of visible blocks, {plan['flops'] / dense:.3f} of "
          "the causal FLOPs")
    check(parse_time("  jit: lower 1 ms\n  time: 2.5 ms, 101.5 TFLOP/s\nRAN x\n") == (2.5, 101.5)
          and parse_time("  time: 3 ms\n")[0] == 3.0 and not isnum(parse_time("RAN x")[0]),
          "parse_time")
    check(parse_kept("x\n  block map (argument #3): 11 of 64 blocks kept\n") == {3: (11, 64)},
          "parse_kept")
    by_name = {c["name"]: c for c in cases()}
    diff = variant_cmd("bin", by_name["differential"])
    check(diff[1:] == ["differential", "--heads=12", "--dim=128", "--value-dim=256", "--causal"],
          f"differential: {' '.join(diff[1:])}")
    check("--value-dim=256" not in variant_cmd("bin", by_name["retnet"]), "retnet: Dv = 2D")
    bs = variant_cmd("bin", by_name["block_sparse"])
    check(bs[-2:] == ["--block-q=128", "--block-kv=128"] and "--causal" in bs,
          f"block_sparse: {' '.join(bs[1:])}")
    sr = variant_cmd("bin", by_name["softmax_retnet"])
    check(sr[1:] == ["softmax", "--heads=16", "--dim=128", "--value-dim=256", "--causal"]
          and by_name["retnet"]["reference"] == "softmax_retnet", f"retnet: {' '.join(sr[1:])}")
    check(all(by_name[v]["reference"] == "softmax" and v in LABELS
              for v in ("relative_bias", "prefix_lm", "chunked")),
          "relative bias, prefix-LM and chunks are timed against our causal softmax")
    check(by_name["differential"]["reference"] == "softmax_dv256"
          and by_name["block_sparse"]["reference"] == "softmax", "references")
    print(f"{len(fails)} failed" if fails else "all ok")
    return 1 if fails else 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin", help="folder with metaattn-run and metaattn-variant")
    p.add_argument("--csv", default="variants.csv")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--only", default="", help="comma-separated case names (default: all)")
    p.add_argument("--no-flex", action="store_true", help="time ours only")
    p.add_argument("--selftest", action="store_true",
                   help="check the pure helpers offline (no GPU, torch or build) and exit")
    args = p.parse_args(argv)
    if args.selftest:
        return selftest()
    if not args.bin:
        p.error("--bin is required")
    todo = cases()
    if args.only:
        names = args.only.split(",")
        unknown = [n for n in names if n not in {c["name"] for c in todo}]
        if unknown:
            p.error(f"unknown case(s) {unknown}; known: {[c['name'] for c in todo]}")
        # a case's softmax reference runs too, first
        wanted = set(names) | {c["reference"] for c in todo if c["name"] in names}
        todo = [c for c in todo if c["name"] in wanted]
    gpu = "unknown GPU"
    try:
        import torch
        for name in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                     "accumulated_cache_size_limit"):
            if hasattr(torch._dynamo.config, name):
                setattr(torch._dynamo.config, name, 100000)
        gpu = torch.cuda.get_device_name()
    except Exception as e:  # noqa: BLE001
        if not args.no_flex:
            warn(f"no torch/CUDA ({first_line(e)}): FlexAttention is skipped")
            args.no_flex = True
    rows, refs = [], {}
    with tempfile.TemporaryDirectory() as workdir:
        for c in todo:
            try:
                row = run_case(args, c, workdir, refs, gpu)
            except Exception as e:  # noqa: BLE001 - never lose the other cases
                warn(f"{c['name']}: {first_line(e)}")
                row = {"variant": c["name"], "shape": shape_label(c), "causal": c["causal"],
                       "note": "", "error": first_line(e), "date": today(), "gpu": gpu}
                for k in FIELDS:
                    row.setdefault(k, NAN)
            rows.append(row)
            write_csv(args.csv, rows, FIELDS)
            print(f"  {c['name']}: ours {fmt(row['ours_ms'], '.3f')} ms "
                  f"({fmt(row['ours_tflops'], '.0f')} TFLOP/s), flex "
                  f"{fmt(row['flex_ms'], '.3f')} ms{'  ' + row['note'] if row['note'] else ''}",
                  flush=True)
    print("\n" + table(rows))
    failed = [r["variant"] for r in rows if r["error"]]
    print(f"\n{len(rows) - len(failed)} of {len(rows)} cases without error"
          + (f"; errors: {', '.join(failed)}" if failed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
