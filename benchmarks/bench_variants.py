#!/usr/bin/env python3
"""Custom variants on the GPU: metaattn against FlexAttention and against metaattn's own softmax.

At PERF.md's shape (B4 H16 S4k D128, bf16) each variant is printed with metaattn-variant,
timed with metaattn-run --bench (median of --iters CUDA-event timings) and, where
FlexAttention can express it, FlexAttention compiled (torch.compile, block mask built once
outside the timing) is timed in the same call. Correctness of every variant against the oracle
is checked separately by tests/gpu/run_variants.sh at smaller sizes.

  python3 benchmarks/bench_variants.py --bin BIN --csv variants.csv
"""
import argparse
import csv
import datetime
import math
import os
import re
import subprocess
import sys
import tempfile

import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import time_cuda  # noqa: E402

B, H, S, D = 4, 16, 4096, 128


def ours(binary_dir, variant, causal, iters, workdir):
    path = f"{workdir}/{variant}.mlir"
    args = [f"{binary_dir}/metaattn-variant", variant, f"--heads={H}", f"--dim={D}"]
    if causal:
        args.append("--causal")
    with open(path, "w") as f:
        subprocess.run(args, check=True, stdout=f)
    out = subprocess.run([f"{binary_dir}/metaattn-run", path, "--device=gpu", f"--batch={B}",
                          f"--seq-q={S}", "--bench", "--no-check", f"--iters={iters}"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"metaattn-run failed for {variant}:\n{out.stdout}{out.stderr}")
    m = re.search(r"time: ([0-9.e+-]+) ms, ([0-9.e+-]+) TFLOP/s", out.stdout)
    return float(m.group(1)), float(m.group(2))


def flex_case(variant, iters):
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    causal = lambda b, h, qi, ki: ki <= qi
    score_mod, mask_mod = None, causal
    if variant == "softcap":
        score_mod = lambda s, b, h, qi, ki: 50.0 * torch.tanh(s / 50.0)
    elif variant == "alibi":
        slopes = torch.exp2(-8.0 * torch.arange(1, H + 1, device="cuda") / H)
        score_mod = lambda s, b, h, qi, ki: s - slopes[h] * (qi - ki)
    elif variant == "sliding_window":
        mask_mod = lambda b, h, qi, ki: (ki <= qi) & (qi - ki <= 1024)
    elif variant == "document_mask":
        docs = torch.randint(0, 4, (B, S), device="cuda").sort(dim=1).values
        mask_mod = lambda b, h, qi, ki: (ki <= qi) & (docs[b, qi] == docs[b, ki])
    elif variant != "softmax":
        return float("nan")
    block_mask = create_block_mask(mask_mod, B, H, S, S, device="cuda")
    compiled = torch.compile(flex_attention)
    return time_cuda(lambda: compiled(q, k, v, score_mod=score_mod, block_mask=block_mask), iters)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin", required=True, help="folder with metaattn-run and metaattn-variant")
    p.add_argument("--csv", default="variants.csv")
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args()
    torch._dynamo.config.recompile_limit = 64
    cases = [("softmax", True), ("softcap", True), ("alibi", True), ("sliding_window", True),
             ("document_mask", True), ("sigmoid", True), ("relu", True), ("sink", True),
             ("softpick", True), ("retnet", False)]
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        base_ms = None
        for variant, causal in cases:
            ms, tflops = ours(args.bin, variant, causal, args.iters, workdir)
            if variant == "softmax":
                base_ms = ms
            try:
                flex_ms = flex_case(variant, args.iters)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"  flex failed for {variant}: {str(e).splitlines()[0]}", file=sys.stderr)
                flex_ms = float("nan")
            rows.append({"variant": variant, "shape": f"B{B} H{H} S{S} D{D}", "causal": causal,
                         "ours_ms": ms, "ours_tflops": tflops, "flex_ms": flex_ms,
                         "ours_vs_flex": flex_ms / ms, "ours_vs_our_softmax": base_ms / ms,
                         "date": datetime.date.today().isoformat(),
                         "gpu": torch.cuda.get_device_name()})
            print(f"  {variant}: ours {ms:.3f} ms ({tflops:.0f} TFLOP/s), flex {flex_ms:.3f} ms",
                  flush=True)
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"\n| variant (B{B} H{H} S{S} D{D}, bf16) | metaattn ms | TFLOP/s | FlexAttention ms |"
          " ours/Flex | vs our softmax |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        flex = "—" if math.isnan(r["flex_ms"]) else f"{r['flex_ms']:.3f}"
        ratio = "—" if math.isnan(r["ours_vs_flex"]) else f"{r['ours_vs_flex']:.2f}"
        print(f"| {r['variant']}{' (causal)' if r['causal'] else ''} | {r['ours_ms']:.3f} | "
              f"{r['ours_tflops']:.0f} | {flex} | {ratio} | {r['ours_vs_our_softmax']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
