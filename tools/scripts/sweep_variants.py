#!/usr/bin/env python3
"""A random sweep of library variants, head dims, lengths and pipeline options on the CPU tile
executor or the GPU, each run checked against the reference evaluator: shapes and combinations
that no issue names (odd head dims, value dims unlike the key dims, GQA, fp16, lengths 1 and
just past a tile, persistent / long-keys / sm_80 / gfx90a tilings, options turned off).

Each case prints a variant with `metaattn-variant` and runs it with `metaattn-run
--device=cpu` (or `--device=gpu` with --device gpu: the kernels NVRTC compiles for the GPU,
gfx90a tilings left out (AMD tilings), and lengths up to 1025 drawn as well, past several kv tiles and the
long-keys plans' bound); a FAIL, a crash, a timeout or a missing PASS line is reported with
its command and its module kept in --out. A variant the builder rejects (a differential
attention with the row statistic) is counted, not failed. fp16 recurrences run at most 128
tokens (see draw). Deterministic for a --seed and --device.

  python3 tools/scripts/sweep_variants.py --bin build/bin --seed 1 --count 200 --out /tmp/sweep
  python3 tools/scripts/sweep_variants.py --bin .carry/bin --device gpu --jobs 8 --seed 44
"""
import argparse
import concurrent.futures
import os
import random
import subprocess
import sys

PARALLEL = ["softmax", "sigmoid", "relu", "softcap", "alibi", "relative_bias", "sliding_window",
            "chunked", "prefix_lm", "sink", "softpick", "retnet", "document_mask", "block_sparse",
            "differential"]
RECURRENT = ["linear", "retnet_recurrent", "gated_retention", "gla", "mamba2_ssd"]
DIMS = [8, 16, 24, 32, 40, 48, 64, 72, 80, 96, 100, 128, 136, 160, 192, 256]
LENGTHS = [1, 2, 15, 16, 17, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 257, 300, 383, 385]
# Drawn as well on the GPU, where a case's time is the oracle's (on the host, in double).
GPU_LENGTHS = [511, 513, 640, 767, 1000, 1025]
OPTIONS = ["--persistent", "--persistent=false", "--long-keys", "--staged-output",
           "--skip-loads", "--pingpong", "--gemm-overlap=false", "--group-guards=false",
           "--warp-specialize=false", "--target=sm_80", "--target=sm_90", "--target=gfx90a",
           "--fuse-combine=false", "--prefetch-bounds", "--axis-reads=false",
           "--id-bounds=false", "--fold-score-scale=false", "--drop-row-terms=true",
           "--documents=3", "--block-density=0.5", "--kept-tiles=false", "--block-density=0.1",
           "--block-n=32", "--block-n=64", "--stages=3", "--stage-ahead",
           "--stage-reads=false", "--bounded-shift", "--lazy-rescale"]


def draw(rng, device="cpu"):
    """One case: (variant options, run options), both lists of arguments."""
    variant = rng.choice(PARALLEL + PARALLEL + RECURRENT)
    kv_heads = rng.choice([1, 2, 3, 4])
    group = rng.choice([1, kv_heads])
    args = [variant, f"--heads={kv_heads * group}", f"--kv-heads={kv_heads}",
            f"--dim={rng.choice(DIMS)}", "--name=f"]
    if rng.random() < 0.5:
        args.append("--causal")
    if rng.random() < 0.4:
        args.append("--lse")
    if rng.random() < 0.3:
        args.append("--f16")
    if rng.random() < 0.3:
        args.append(f"--value-dim={rng.choice(DIMS)}")
    if variant == "relative_bias" and rng.random() < 0.5:
        args.append(f"--bias-type={rng.choice(['bf16', 'f16'])}")
    lengths = LENGTHS + GPU_LENGTHS if device == "gpu" else LENGTHS
    seq_q = rng.choice(lengths)
    seq_kv = rng.choice(lengths) if rng.random() < 0.5 else seq_q
    # metaattn-run draws gates that pass through a modifier (Mamba2's step times A, GLA's
    # logit) with either sign, so a long fp16 recurrence can grow past fp16's range in its
    # intermediates (the oracle, in double, does not): fp16 recurrences stay within 128 tokens.
    if variant in RECURRENT and "--f16" in args:
        seq_q = min(seq_q, 128)
    run = [f"--batch={rng.choice([1, 2])}", f"--seq-q={seq_q}", f"--seq-kv={seq_kv}"]
    run += rng.sample(OPTIONS, rng.choice([0, 1, 2]))
    if device == "gpu":
        # An AMD tiling (gfx90a) is for the CPU tile executor here, not an NVIDIA GPU.
        run = [o for o in run if o != "--target=gfx90a"]
    return args, run


def run_case(index, case, bin_dir, out, timeout, device="cpu"):
    args, run = case
    variant = subprocess.run([os.path.join(bin_dir, "metaattn-variant")] + args,
                             capture_output=True, text=True)
    if variant.returncode != 0:
        return index, "rejected", " ".join(args), variant.stderr.strip()
    path = os.path.join(out, f"case_{index}.mlir")
    with open(path, "w") as f:
        f.write(variant.stdout)
    cmd = [os.path.join(bin_dir, "metaattn-run"), path, f"--device={device}"] + run
    label = " ".join(args) + " :: " + " ".join(cmd[2:])
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return index, "timeout", label, ""
    text = (proc.stdout + proc.stderr).strip()
    last = text.splitlines()[-1] if text else ""
    if proc.returncode == 0 and last.startswith("PASS"):
        os.remove(path)
        return index, "pass", label, ""
    # Tile sizes the target cannot hold (the options' --block-n/--stages at a large head dim)
    # are refused with a diagnostic, as they should be.
    if proc.returncode == 1 and "are too large for its head dims" in text:
        os.remove(path)
        return index, "rejected", label, ""
    status = "crash" if proc.returncode < 0 or proc.returncode > 128 else "fail"
    return index, status, label, text[-800:]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin", required=True, help="folder with metaattn-variant and metaattn-run")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--timeout", type=int, default=300, help="seconds per run")
    p.add_argument("--out", default="/tmp/metaattn-sweep", help="modules of failing cases")
    p.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                   help="run on the CPU tile executor (default) or the GPU")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    cases = [draw(rng, a.device) for _ in range(a.count)]
    counts = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = [pool.submit(run_case, i, c, a.bin, a.out, a.timeout, a.device)
                   for i, c in enumerate(cases)]
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            index, status, label, detail = future.result()
            counts[status] = counts.get(status, 0) + 1
            if status not in ("pass", "rejected"):
                print(f"{status.upper()} #{index}: {label}\n    " +
                      detail.replace("\n", "\n    "), flush=True)
            if done % 25 == 0 or done == len(cases):
                print(f"[{done}/{len(cases)}] " +
                      ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), flush=True)
    bad = sum(v for k, v in counts.items() if k not in ("pass", "rejected"))
    print(f"sweep seed {a.seed} on the {a.device}: {counts.get('pass', 0)} passed, {counts.get('rejected', 0)} "
          f"rejected (by the builder, or tile sizes too large), {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
