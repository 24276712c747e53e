#!/usr/bin/env python3
"""Per-kernel times of FLA's chunked linear attention (the peer in bench_linear.py).

Runs on the GPU machine with a copy of FLA's `fla` package (never committed). For each
linear-family shape of bench_linear.py (first length only) it runs FLA's chunked forward a
few times under torch.profiler and prints the mean CUDA time per call of every kernel it
launches, so that metaattn's two kernels (tests/gpu/profile_linear.sh) can be compared with
FLA's one by one.

  python3 benchmarks/profile_fla.py --fla-path DIR [--iters N]
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_linear import SHAPES, fla_call  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fla-path", required=True)
    parser.add_argument("--iters", type=int, default=10)
    args = parser.parse_args()
    sys.path.insert(0, args.fla_path)
    import torch
    from torch.profiler import ProfilerActivity, profile
    print(f"{'shape':<44s} {'kernel':<44s} {'us':>9s}")
    for label, _variant, op, b, h, _hqk, dk, dv, lengths in SHAPES:
        t = lengths[0]
        try:
            fn = fla_call(op, b, h, dk, dv, t)
            for _ in range(3):  # compile and autotune outside the profile
                fn()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                for _ in range(args.iters):
                    fn()
                torch.cuda.synchronize()
        except Exception as e:  # report and go on with the next shape
            print(f"{label + ' T' + str(t):<44s} error: {type(e).__name__}: {e}"[:200])
            continue
        totals = collections.OrderedDict()
        for event in prof.events():
            # Kernel launches appear as events on the CUDA device, their span the kernel's.
            if str(event.device_type).split(".")[-1] != "CUDA":
                continue
            totals[event.name] = totals.get(event.name, 0.0) + event.time_range.elapsed_us()
        whole = 0.0
        for name, us in totals.items():
            whole += us / args.iters
            print(f"{label + ' T' + str(t):<44s} {name[:44]:<44s} {us / args.iters:9.1f}")
        print(f"{label + ' T' + str(t):<44s} {'(all kernels)':<44s} {whole:9.1f}")


if __name__ == "__main__":
    main()
