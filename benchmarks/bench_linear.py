#!/usr/bin/env python3
"""Linear attention forward on the GPU: metaattn's chunked kernels against FLA's.

Runs on the GPU machine. For each PERF.md shape of the linear family it prints the IR of the
library variant with metaattn-variant, times metaattn-run --bench on it (CUDA events, median),
and times FLA's chunked Triton kernel on tensors of the same shape when FLA is importable
(pass --fla-path to a copy of the `fla` package; it is not on the machine's image and is
never committed). Correctness of the same kernels against the token-by-token oracle is
checked separately (tests/gpu/run_h200.sh runs frontend/variants/linear.mlir on the GPU).

  python3 benchmarks/bench_linear.py --bin BIN --csv linear.csv [--fla-path DIR] [--quick]
      [--only REGEX] [--opts "|--state-rows=64|..."]
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# (label, metaattn variant, FLA op, B, H (v heads), q/k heads, Dk, Dv, T values)
SHAPES = [
    ("gated retention RFA-Big", "gated_retention", "simple_gla", 64, 16, 16, 64, 64, [1024, 2048, 4096]),
    ("gated retention YOCO-13B", "gated_retention", "simple_gla", 8, 40, 40, 256, 256, [1024, 2048, 4096]),
    ("RetNet 6.7B B1", "retnet_recurrent", "retention", 1, 32, 32, 256, 512, [2048, 4096]),
    ("RetNet 6.7B B8", "retnet_recurrent", "retention", 8, 32, 32, 256, 512, [2048, 4096]),
    ("Mamba2 SSD 2.7B B1", "mamba2_ssd", "simple_gla", 1, 80, 1, 128, 64, [2048, 4096, 8192]),
    ("Mamba2 SSD 2.7B B8", "mamba2_ssd", "simple_gla", 8, 80, 1, 128, 64, [2048, 4096, 8192]),
    ("GLA vector gates", "gla", "gla", 8, 16, 16, 128, 128, [2048, 4096]),
]


def fla_call(op, b, h, dk, dv, t):
    """FLA's chunked forward on random tensors of this shape, as a function of no arguments
    (Mamba2 as simple GLA with B/C expanded)."""
    import torch
    dev = "cuda"
    q = torch.randn(b, t, h, dk, device=dev, dtype=torch.bfloat16)
    k = torch.randn(b, t, h, dk, device=dev, dtype=torch.bfloat16)
    v = torch.randn(b, t, h, dv, device=dev, dtype=torch.bfloat16)
    if op == "simple_gla":
        from fla.ops.simple_gla import chunk_simple_gla
        g = -torch.rand(b, t, h, device=dev, dtype=torch.float32) * 0.1
        return lambda: chunk_simple_gla(q, k, v, g=g)
    if op == "retention":
        from fla.ops.retention import chunk_retention
        return lambda: chunk_retention(q, k, v)
    from fla.ops.gla import chunk_gla
    g = torch.nn.functional.logsigmoid(torch.randn(b, t, h, dk, device=dev)) / 16
    return lambda: chunk_gla(q, k, v, g=g)


def fla_timer(op, b, h, dk, dv, t, iters):
    """Milliseconds of FLA's chunked kernel (Mamba2 as simple GLA with B/C expanded)."""
    from bench_common import time_cuda
    return time_cuda(fla_call(op, b, h, dk, dv, t), iters)


def write_rows(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin", required=True, help="directory with metaattn-run and metaattn-variant")
    p.add_argument("--csv", default="linear.csv")
    p.add_argument("--fla-path", default="")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--quick", action="store_true", help="the first length of each shape only")
    p.add_argument("--only", default="",
                   help="the shapes whose label matches this regular expression (default: all)")
    p.add_argument("--opts", default="",
                   help="metaattn-run options to time ours under, configurations separated by "
                        "'|' (an empty one: the defaults), e.g. '|--block-n=64'; FLA once per shape")
    args = p.parse_args()
    fla_ok, fla_msg = False, "FLA path not given"
    if args.fla_path:
        sys.path.insert(0, args.fla_path)
    try:
        import fla.ops.simple_gla  # noqa: F401
        fla_ok, fla_msg = True, "FLA imported from " + os.path.dirname(sys.modules["fla"].__file__)
    except Exception as e:  # not installed, or a dependency missing
        fla_msg = f"FLA not importable ({type(e).__name__}: {e})"
    print(fla_msg, flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for label, variant, op, b, h, hqk, dk, dv, lengths in SHAPES:
            if args.only and not re.search(args.only, label):
                continue
            ir = os.path.join(work, variant + f"_{h}_{dk}_{dv}.mlir")
            with open(ir, "w") as f:
                subprocess.run([os.path.join(args.bin, "metaattn-variant"), variant,
                                f"--heads={h}", f"--kv-heads={hqk}", f"--dim={dk}",
                                f"--value-dim={dv}"], stdout=f, check=True)
            for t in lengths[:1] if args.quick else lengths:
                peer = float("nan")
                if fla_ok:
                    try:
                        peer = fla_timer(op, b, h, dk, dv, t, args.iters)
                    except Exception as e:
                        print(f"  FLA {op} failed: {type(e).__name__}: {e}", file=sys.stderr)
                for opts in args.opts.split("|"):
                    proc = subprocess.run([os.path.join(args.bin, "metaattn-run"), ir,
                                           "--device=gpu", f"--batch={b}", f"--seq-q={t}",
                                           "--bench", "--no-check", f"--iters={args.iters}"] +
                                          opts.split(), capture_output=True, text=True)
                    m = re.search(r"time: ([0-9.e+-]+) ms", proc.stdout)
                    ours = float(m.group(1)) if m else float("nan")
                    # Which of a function's plans ran (the fused or the separate chunk kernels).
                    plan = re.search(r"plan: ([a-z ]+) \(", proc.stdout)
                    if not m:
                        print(proc.stdout[-2000:] + proc.stderr[-2000:], file=sys.stderr)
                    row = {"shape": label, "variant": variant, "B": b, "H": h, "Hqk": hqk,
                           "Dk": dk, "Dv": dv, "T": t, "opts": opts,
                           "plan": plan.group(1) if plan else "", "ours_ms": ours,
                           "fla_ms": peer,
                           "ratio_vs_fla": peer / ours if ours == ours and peer == peer
                           else float("nan"),
                           "date": datetime.date.today().isoformat()}
                    rows.append(row)
                    write_rows(args.csv, rows)  # so far: a run cut short keeps its rows
                    print(f"  {label} T={t} {opts or '(defaults)'}: ours {ours:.3f} ms, "
                          f"FLA {peer:.3f} ms", flush=True)
    configs = len(args.opts.split("|"))
    print("\n| shape | T |" + (" options |" if configs > 1 else "") +
          " kernels | metaattn ms | FLA ms | FLA/ours |")
    print("|---|---|" + ("---|" if configs > 1 else "") + "---|---|---|---|")
    for r in rows:
        opts = f" {r['opts'] or 'defaults'} |" if configs > 1 else ""
        print(f"| {r['shape']} | {r['T']} |{opts} {r['plan'] or '-'} | {r['ours_ms']:.3f} | "
              f"{r['fla_ms']:.3f} | {r['ratio_vs_fla']:.2f} |")
    for opts in args.opts.split("|"):
        ratios = [r["ratio_vs_fla"] for r in rows
                  if r["opts"] == opts and r["ratio_vs_fla"] == r["ratio_vs_fla"]]
        if ratios:
            print(f"geometric mean FLA/ours ({opts or 'defaults'}): "
                  f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f} over {len(ratios)} "
                  f"cells, {sum(x >= 1.0 for x in ratios)} at or above 1.0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
