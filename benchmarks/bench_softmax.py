#!/usr/bin/env python3
"""Softmax attention forward on the GPU: metaattn against cuDNN SDPA and FlashAttention-2.

Runs on the GPU machine (PyTorch there). For each (D, S, causal) of the grid, with B·S = 16k
tokens and H·D = 2048, it generates q, k, v ([B, S, H, D], bf16) with torch, times PyTorch SDPA
with the cuDNN and the flash backends (CUDA events, median of --iters after warm-up), runs
metaattn-run on the same inputs (--load-inputs, --save-output, --bench), checks metaattn's
output against SDPA's (flash backend) before reporting its time, and writes a CSV.

  python3 benchmarks/bench_softmax.py --runner BIN/metaattn-run --csv out.csv
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
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import time_cuda  # noqa: E402
from softmax_ir import softmax_ir  # noqa: E402


def flops(batch, heads, seq, dim, causal):
    f = 4.0 * batch * heads * seq * seq * dim
    return f / 2 if causal else f


def run_case(args, dim, seq, causal, workdir):
    batch, heads = max(1, args.tokens // seq), max(1, args.width // dim)
    torch.manual_seed(seq * 7 + dim)
    shape = (batch, seq, heads, dim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    for name, t in (("q", q), ("k", k), ("v", v)):
        t.cpu().view(torch.int16).numpy().tofile(os.path.join(workdir, f"{name}.bin"))
    qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))  # SDPA takes [B, H, S, D] views

    def sdpa(backend):
        def call():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
        return call

    peers = {}
    for label, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                           ("flash2", SDPBackend.FLASH_ATTENTION)):
        try:
            peers[label] = time_cuda(sdpa(backend), args.iters)
        except RuntimeError as e:  # backend cannot run this shape
            print(f"  {label} unavailable: {str(e).splitlines()[0]}", file=sys.stderr)
            peers[label] = float("nan")
    expected = sdpa(SDPBackend.FLASH_ATTENTION)().transpose(1, 2).float()

    ir_path = os.path.join(workdir, "attention.mlir")
    with open(ir_path, "w") as f:
        f.write(softmax_ir("attention", heads, heads, dim, dim, causal))
    cmd = [args.runner, ir_path, "--device=gpu", f"--batch={batch}", f"--seq-q={seq}",
           "--bench", "--no-check", f"--iters={args.iters}", f"--load-inputs={workdir}",
           f"--save-output={workdir}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr, file=sys.stderr)
        raise SystemExit(f"metaattn-run failed for D={dim} S={seq} causal={causal}")
    ours_ms = float(re.search(r"time: ([0-9.e+-]+) ms", proc.stdout).group(1))
    import numpy as np
    got = torch.from_numpy(np.fromfile(os.path.join(workdir, "o.bin"), dtype=np.int16))
    got = got.view(torch.bfloat16).reshape(shape).cuda().float()
    err = (got - expected).abs().max().item()
    ok = err <= 2e-2 + 2e-2 * expected.abs().max().item()
    fl = flops(batch, heads, seq, dim, causal)
    tf = lambda ms: fl / (ms * 1e-3) / 1e12 if ms == ms else float("nan")
    return {
        "variant": "softmax" + ("-causal" if causal else ""), "D": dim, "S": seq, "B": batch,
        "H": heads, "dtype": "bf16", "ours_ms": ours_ms, "ours_tflops": tf(ours_ms),
        "cudnn_tflops": tf(peers["cudnn"]), "flash2_tflops": tf(peers["flash2"]),
        "ratio_vs_cudnn": peers["cudnn"] / ours_ms, "ratio_vs_flash2": peers["flash2"] / ours_ms,
        "max_abs_err_vs_sdpa": err, "checked": "PASS" if ok else "FAIL",
        "date": datetime.date.today().isoformat(), "gpu": torch.cuda.get_device_name(),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--runner", required=True)
    p.add_argument("--csv", default="softmax.csv")
    p.add_argument("--dims", default="64,128")
    p.add_argument("--seqs", default="1024,4096")
    p.add_argument("--tokens", type=int, default=16384)
    p.add_argument("--width", type=int, default=2048)
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for dim in map(int, args.dims.split(",")):
            for seq in map(int, args.seqs.split(",")):
                for causal in (False, True):
                    row = run_case(args, dim, seq, causal, workdir)
                    rows.append(row)
                    print(f"  D={dim} S={seq} causal={int(causal)}: ours {row['ours_tflops']:.0f} "
                          f"TFLOP/s, cuDNN {row['cudnn_tflops']:.0f}, FA2 {row['flash2_tflops']:.0f}"
                          f", check {row['checked']} (max err {row['max_abs_err_vs_sdpa']:.3g})",
                          flush=True)
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print("\n| D | S | causal | metaattn | cuDNN | FA2 | ours/cuDNN | ours/FA2 | check |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['D']} | {r['S']} | {'yes' if 'causal' in r['variant'] else 'no'} | "
              f"{r['ours_tflops']:.0f} | {r['cudnn_tflops']:.0f} | {r['flash2_tflops']:.0f} | "
              f"{r['ratio_vs_cudnn']:.2f} | {r['ratio_vs_flash2']:.2f} | {r['checked']} |")
    gm = math.exp(sum(math.log(r["ratio_vs_cudnn"]) for r in rows) / len(rows))
    print(f"geometric mean ours/cuDNN: {gm:.2f}")
    return 0 if all(r["checked"] == "PASS" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
