#!/usr/bin/env python3
"""Softmax attention forward on the GPU: metaattn against cuDNN SDPA, FlashAttention-2 and
FlexAttention over a (D, S, causal) grid with B·S = 16k tokens and H·D = 2048.

A thin wrapper kept for its old command line: it runs the softmax-grid half of
bench_suite.py (which has the code) and copies the CSV to --csv.

  python3 benchmarks/bench_softmax.py --runner BIN/metaattn-run --csv out.csv \
      [--dims 64,128] [--seqs 1024,4096] [--iters 20]
"""
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_suite  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--runner", required=True)
    p.add_argument("--csv", default="softmax.csv")
    p.add_argument("--dims", default="64,128")
    p.add_argument("--seqs", default="1024,4096")
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args()
    out = tempfile.mkdtemp(prefix="bench-softmax-")
    try:
        rc = bench_suite.main(["--runner", args.runner, "--out", out, "--only", "grid",
                               "--dims", args.dims, "--seqs", args.seqs,
                               "--iters", str(args.iters)])
        if not os.path.exists(os.path.join(out, "suite.csv")):
            return rc
        shutil.copy(os.path.join(out, "suite.csv"), args.csv)
        png = os.path.splitext(args.csv)[0] + ".png"
        shutil.copy(os.path.join(out, "suite.png"), png)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
