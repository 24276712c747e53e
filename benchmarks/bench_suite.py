#!/usr/bin/env python3
"""The benchmark suite: metaattn against its peers on the H200, one command.

  python3 benchmarks/bench_suite.py --runner BIN/metaattn-run --out DIR [--quick] [--iters N]

1. Softmax grid: D in {64, 128, 256} x S in {512, 1k, 2k, 4k, 8k, 16k} x causal no/yes, with
   B*S = 16k tokens and H*D = 2048, bf16. Peers: cuDNN SDPA, FlashAttention-2 (SDPA flash
   backend), FlexAttention compiled (causal block mask built once per shape, outside the timing).
2. The PERF.md shapes of the parallel family: DeepSeek-V2-Lite softmax (H16 D192 Dv128 causal),
   LLaMA-3.1-8B softmax (H32 D128 causal), ReLU ViT-S (H6 D64, not causal), Diff-Transformer as
   softmax (H12 D128 Dv256 causal), sigmoid with a per-head bias at the LLaMA shape, RetNet
   parallel (H32 D256 Dv512); each custom variant also against our own softmax at its shape.

metaattn's output is checked before its time is reported: against SDPA (softmax shapes), against
an fp32 PyTorch evaluation on the same inputs (ReLU, sigmoid: the per-head bias metaattn-run
draws is reproduced here), or, for RetNet (no SDPA form; the decay gamma_h^(q-kv) is computed
in the kernel), by metaattn-run's own double-precision oracle at B1 S130 with the same IR. A failed check marks
the row FAIL and leaves it out of the summary. A peer that cannot run a shape gets NaN and one
line on stderr. Ours is metaattn-run's `time:` (CUDA events, median of --iters after warm-up);
peers use bench_common.time_cuda (the same). TFLOP/s: 2*B*H*Sq*Skv*(D+Dv), halved for causal.

Writes DIR/suite.csv, DIR/suite.png (matplotlib, or the built-in renderer), DIR/suite.md and
prints the tables, the short summary last. --quick: D in {64, 128}, S in {1k, 4k} and one shape
per family. --only grid|families limits the run to one half; --families a,b (with --only
families) to some of deepseek-v2-lite, llama-3.1-8b, diff-transformer, vit-s-relu,
sigmoid-llama, retnet-6.7b, so that the families (over 330 s in all) can be split over calls.
"""
import argparse
import math
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import (NAN, attn_flops, compare, first_line, fmt, geomean,  # noqa: E402
                          isnum, load_tensor, markdown_table, ratio, run_metaattn, save_tensor,
                          sdpa_reference, seq_label, splitmix_uniform, tflops, time_cuda,
                          time_flex, time_sdpa, today, warn, write_csv, write_text)
from bench_plot import plot_softmax_grid  # noqa: E402
from variant_ir import variant_ir  # noqa: E402

GRID_DIMS, GRID_SEQS = (64, 128, 256), (512, 1024, 2048, 4096, 8192, 16384)
QUICK_DIMS, QUICK_SEQS = (64, 128), (1024, 4096)
LLM_BS = [(b, s) for b in (1, 8) for s in (2048, 4096, 8192)]
SIGMOID_BIAS = -3.0        # the sigmoid variant's constant bias (frontend/variants/sigmoid.mlir)
RUNNER_SEED = 1            # metaattn-run's --seed default: operand i is drawn with seed + 17*i
PEERS = ("cudnn", "flash2", "flex", "fla")
PEER_NAMES = {"cudnn": "cuDNN", "flash2": "FA2", "flex": "Flex", "fla": "FLA"}

FIELDS = ["family", "variant", "B", "H", "Sq", "Skv", "D", "Dv", "causal", "dtype", "gflop",
          "ours_ms", "ours_tflops"] + \
         [f"{p}_{x}" for p in PEERS for x in ("ms", "tflops")] + \
         ["our_softmax_ms", "our_softmax_tflops"] + [f"ours_vs_{p}" for p in PEERS] + \
         ["ours_vs_our_softmax", "check", "check_method", "max_err", "note", "date", "gpu"]


def case(family, variant, b, h, s, d, dv, causal, peers, reference, softmax_cmp=False):
    return {"family": family, "variant": variant, "B": b, "H": h, "S": s, "D": d, "Dv": dv,
            "causal": causal, "peers": peers, "reference": reference,
            "softmax_cmp": softmax_cmp}


def grid_cases(dims, seqs, tokens=16384, width=2048):
    return [case("softmax-grid", "softmax", max(1, tokens // s), max(1, width // d), s, d, d, c,
                 ("cudnn", "flash2", "flex"), "sdpa")
            for d in dims for s in seqs for c in (False, True)]


def family_cases(quick):
    llm = [(8, 4096)] if quick else LLM_BS
    vit = [(32, 1024)] if quick else [(b, s) for b in (32, 64) for s in (512, 1024, 2048)]
    ret = [(1, 2048)] if quick else [(b, s) for b in (1, 8) for s in (2048, 4096)]
    same, dne = ("cudnn", "flash2", "flex"), ("cudnn", "flex")   # FA2 cannot run D != Dv: n/a
    cases = [case("deepseek-v2-lite", "softmax", b, 16, s, 192, 128, True, dne, "sdpa")
             for b, s in llm]
    cases += [case("llama-3.1-8b", "softmax", b, 32, s, 128, 128, True, same, "sdpa")
              for b, s in llm]
    cases += [case("diff-transformer", "softmax", b, 12, s, 128, 256, True, dne, "sdpa")
              for b, s in llm]
    cases += [case("vit-s-relu", "relu", b, 6, s, 64, 64, False, (), "torch", True)
              for b, s in vit]
    cases += [case("sigmoid-llama", "sigmoid", b, 32, s, 128, 128, True, (), "torch", True)
              for b, s in llm]
    cases += [case("retnet-6.7b", "retnet", b, 32, s, 256, 512, True, ("fla",), "oracle", True)
              for b, s in ret]
    return cases


# --- references -------------------------------------------------------------------------------
def torch_reference(variant, qt, kt, vt, causal, scale, head_bias=None, length_norm=None):
    """fp32 evaluation of relu/sigmoid attention on [B, H, S, D] tensors, in head chunks so the
    score matrix stays below ~3 GB; returns [B, S, H, Dv] fp32."""
    import torch
    b, h, sq, _ = qt.shape
    skv = kt.shape[2]
    out = torch.empty(b, h, sq, vt.shape[3], device=qt.device, dtype=torch.float32)
    chunk = max(1, min(h, int(3e9 // (12 * sq * skv))))
    keep = None
    if causal:
        qi = torch.arange(sq, device=qt.device)[:, None]
        ki = torch.arange(skv, device=qt.device)[None, :]
        keep = ki <= qi + (skv - sq)
    for bi in range(b):
        for h0 in range(0, h, chunk):
            hs = slice(h0, min(h, h0 + chunk))
            s = torch.matmul(qt[bi, hs].float(), kt[bi, hs].float().transpose(-1, -2)) * scale
            if variant == "relu":
                p = torch.relu(s)
                if length_norm:
                    p = p / length_norm
            elif variant == "sigmoid":
                p = torch.sigmoid(s + SIGMOID_BIAS + head_bias[hs].view(-1, 1, 1))
            else:
                raise ValueError(variant)
            if keep is not None:
                p = p.masked_fill(~keep, 0.0)
            out[bi, hs] = torch.matmul(p, vt[bi, hs].float())
            del s, p
    return out.transpose(1, 2)


_FLA_WARNED = []


def time_fla_retention(q, k, v, iters):
    """FLA's chunk_retention on [B, T, H, D] tensors when fla imports; NaN otherwise."""
    try:
        from fla.ops.retention import chunk_retention
    except Exception as e:  # noqa: BLE001
        if not _FLA_WARNED:
            warn(f"FLA not importable ({first_line(e)}): RetNet FLA peer skipped")
            _FLA_WARNED.append(True)
        return NAN
    try:
        return time_cuda(lambda: chunk_retention(q, k, v), iters)
    except Exception as e:  # noqa: BLE001
        warn(f"FLA chunk_retention failed: {first_line(e)}")
        return NAN


# --- one case ---------------------------------------------------------------------------------
def work_dir(args):
    """A scratch folder for q/k/v/o files: /dev/shm when it has room (the files reach 2 GB)."""
    base = args.workdir
    if base is None and os.path.isdir("/dev/shm"):
        try:
            if shutil.disk_usage("/dev/shm").free > 12 << 30:
                base = "/dev/shm"
        except OSError:
            pass
    return tempfile.mkdtemp(prefix="metaattn-bench-", dir=base)


def run_ours(args, ir_text, name, b, s, load, save, check=False, bench=True):
    path = os.path.join(args.work, f"{name}.mlir")
    with open(path, "w") as f:
        f.write(ir_text)
    return run_metaattn(args.runner, path, b, s, iters=args.iters,
                        load_dir=args.work if load else None,
                        save_dir=args.work if save else None, check=check, bench=bench,
                        extra=args.runner_opts.split())


def run_case(args, c, our_softmax, gpu):
    import torch
    b, h, s, d, dv, causal = c["B"], c["H"], c["S"], c["D"], c["Dv"], c["causal"]
    fl = attn_flops(b, h, s, s, d, dv, causal)
    row = {"family": c["family"], "variant": c["variant"], "B": b, "H": h, "Sq": s, "Skv": s,
           "D": d, "Dv": dv, "causal": int(causal), "dtype": "bf16", "gflop": fl / 1e9,
           "date": today(), "gpu": gpu, "note": ""}
    notes = []
    torch.manual_seed(1000003 * d + 1009 * s + 17 * h + b + int(causal))
    q = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, s, h, dv, device="cuda", dtype=torch.bfloat16)
    qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))     # [B, H, S, D] views

    ms = {p: NAN for p in PEERS}
    for p in ("cudnn", "flash2"):
        if p in c["peers"]:
            ms[p] = time_sdpa(p, qt, kt, vt, causal, args.iters)
    if "flex" in c["peers"]:
        qc, kc, vc = (t.contiguous() for t in (qt, kt, vt))
        ms["flex"] = time_flex(qc, kc, vc, causal, args.iters)
        del qc, kc, vc
    if "fla" in c["peers"]:
        ms["fla"] = time_fla_retention(q, k, v, args.iters)
    torch.cuda.empty_cache()

    # The reference, computed before our run; then our output is checked against it.
    ref, method = None, None
    if c["reference"] == "sdpa":
        out, label = sdpa_reference(qt, kt, vt, causal)
        if out is not None:
            ref, method = out.transpose(1, 2), f"vs SDPA {label} (full shape)"
    elif c["reference"] == "torch":
        head_bias = None
        if c["variant"] == "sigmoid":   # operand 3 of metaattn-run, tensor<H x f32>
            head_bias = torch.tensor(splitmix_uniform(RUNNER_SEED + 17 * 3, h), device="cuda")
        ref = torch_reference(c["variant"], qt, kt, vt, causal, 1 / math.sqrt(d), head_bias,
                              s if c["variant"] == "relu" else None)
        method = "vs fp32 PyTorch (full shape)"
    kw = {"length_norm": s} if c["variant"] == "relu" else {}
    ir = variant_ir(c["variant"], "attention", h, d, dv, causal, **kw)

    check, err = "ERROR", NAN
    for name, t in (("q", q), ("k", k), ("v", v)):
        save_tensor(os.path.join(args.work, f"{name}.bin"), t)
    if ref is None:   # RetNet, or no SDPA backend ran the shape
        if c["reference"] != "oracle":
            warn(f"{c['family']} B{b} S{s}: no reference ran; checking with the oracle")
        small = run_ours(args, ir, "attention_check", 1, 130, load=False, save=False,
                         check=True, bench=False)
        method = "metaattn-run oracle at B1 S130 (same IR)"
        if small["error"]:
            notes.append(small["error"])
            warn(f"{c['family']} oracle check: {small['error']}")
        else:
            check = "PASS" if small["passed"] else "FAIL"
    res = run_ours(args, ir, "attention", b, s, load=True, save=ref is not None)
    if res["error"]:
        notes.append(res["error"])
        warn(f"{c['family']} B{b} S{s}: {res['error']}")
        check = "ERROR"
    elif ref is not None:
        got = load_tensor(os.path.join(args.work, "o.bin"), (b, s, h, dv),
                          torch.bfloat16).cuda()
        ok, err = compare(got, ref)
        check = "PASS" if ok else "FAIL"
        del got
    ours_ms = res["ms"]
    del ref
    torch.cuda.empty_cache()

    # Our own softmax at the same shape (variants only; reuse a measured one when there is).
    soft_ms = NAN
    if c["variant"] == "softmax":
        if check == "PASS":
            our_softmax[(h, d, dv, causal, b, s)] = ours_ms
    elif c["softmax_cmp"]:
        soft_ms = our_softmax.get((h, d, dv, causal, b, s), NAN)
        if not isnum(soft_ms):
            sm = run_ours(args, variant_ir("softmax", "softmax", h, d, dv, causal),
                          "softmax", b, s, load=True, save=False)   # same q/k/v files
            if sm["error"]:
                warn(f"our softmax at the {c['family']} shape: {sm['error']}")
            soft_ms = sm["ms"]
            our_softmax[(h, d, dv, causal, b, s)] = soft_ms
    for name in ("q.bin", "k.bin", "v.bin", "o.bin"):
        p = os.path.join(args.work, name)
        if os.path.exists(p):
            os.remove(p)
    del q, k, v, qt, kt, vt

    row.update({"ours_ms": ours_ms, "ours_tflops": tflops(fl, ours_ms),
                "our_softmax_ms": soft_ms, "our_softmax_tflops": tflops(fl, soft_ms),
                "ours_vs_our_softmax": ratio(soft_ms, ours_ms), "check": check,
                "check_method": method or "", "max_err": err})
    for p in PEERS:
        row[f"{p}_ms"] = ms[p]
        row[f"{p}_tflops"] = tflops(fl, ms[p])
        row[f"ours_vs_{p}"] = ratio(ms[p], ours_ms)
    for p in PEERS:
        if p not in c["peers"]:
            continue
        if not isnum(ms[p]):
            notes.append(f"{PEER_NAMES[p]} could not run")
    row["note"] = "; ".join(notes)
    row["_peers"] = c["peers"]
    return row


def failed_row(c, gpu, exc):
    row = {"family": c["family"], "variant": c["variant"], "B": c["B"], "H": c["H"],
           "Sq": c["S"], "Skv": c["S"], "D": c["D"], "Dv": c["Dv"], "causal": int(c["causal"]),
           "dtype": "bf16", "check": "ERROR", "note": first_line(exc), "date": today(),
           "gpu": gpu, "_peers": c["peers"]}
    for f in FIELDS:
        row.setdefault(f, NAN)
    return row


# --- tables -----------------------------------------------------------------------------------
def _peer_cell(r, p, what="tflops"):
    v = r.get(f"{p}_{what}")
    if isnum(v):
        return f"{v:.0f}" if what == "tflops" else f"{v:.2f}"
    peers = r.get("_peers")
    attempted = (p in peers) if peers is not None else False
    return "err" if attempted else "n/a"


def _ratio_cell(r, p):
    v = r.get(f"ours_vs_{p}")
    return fmt(v) if isnum(v) else _peer_cell(r, p)


def _as_float(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return NAN


def grid_table(rows):
    out = []
    for r in rows:
        if r["family"] != "softmax-grid":
            continue
        out.append([r["D"], seq_label(int(r["Sq"])), "yes" if int(r["causal"]) else "no",
                    fmt(_as_float(r["ours_tflops"]), ".0f"), _peer_cell(r, "cudnn"),
                    _peer_cell(r, "flash2"), _peer_cell(r, "flex"), _ratio_cell(r, "cudnn"),
                    _ratio_cell(r, "flash2"), _ratio_cell(r, "flex"), r["check"]])
    return markdown_table(["D", "S", "causal", "metaattn", "cuDNN", "FA2", "Flex",
                           "ours/cuDNN", "ours/FA2", "ours/Flex", "check"], out)


def family_table(rows):
    out = []
    for r in rows:
        if r["family"] == "softmax-grid":
            continue
        shape = (f"B{r['B']} H{r['H']} S{seq_label(int(r['Sq']))} D{r['D']}"
                 + (f" Dv{r['Dv']}" if r["Dv"] != r["D"] else "")
                 + (" causal" if int(r["causal"]) else ""))
        out.append([r["family"], r["variant"], shape, fmt(_as_float(r["ours_ms"]), ".3f"),
                    fmt(_as_float(r["ours_tflops"]), ".0f"), _peer_cell(r, "cudnn"),
                    _peer_cell(r, "flash2"), _peer_cell(r, "flex"), _peer_cell(r, "fla"),
                    _ratio_cell(r, "cudnn"), _ratio_cell(r, "flex"),
                    fmt(_as_float(r.get("ours_vs_our_softmax")), missing="—"), r["check"]])
    return markdown_table(["family", "variant", "shape", "ours ms", "ours TFLOP/s", "cuDNN",
                           "FA2", "Flex", "FLA", "ours/cuDNN", "ours/Flex", "vs our softmax",
                           "check"], out)


def summary(rows):
    """(markdown, dict) of the headline numbers; FAIL/ERROR rows are left out of every mean."""
    grid = [r for r in rows if r["family"] == "softmax-grid"]
    fam = [r for r in rows if r["family"] != "softmax-grid"]
    ok = [r for r in rows if r["check"] == "PASS"]
    grid_ok = [r for r in grid if r["check"] == "PASS"]
    fam_ok = [r for r in fam if r["check"] == "PASS"]

    def g(rs, key):
        return geomean(_as_float(r.get(key)) for r in rs)

    def count(rs, key):
        return sum(isnum(_as_float(r.get(key))) for r in rs)

    cud = [(_as_float(r["ours_vs_cudnn"]), r) for r in grid_ok
           if isnum(_as_float(r["ours_vs_cudnn"]))]
    worst = min(cud, key=lambda x: x[0]) if cud else (NAN, None)
    worst_cell = (f" (D{worst[1]['D']} S{seq_label(int(worst[1]['Sq']))}"
                  f"{' causal' if int(worst[1]['causal']) else ''})") if worst[1] else ""
    dne = [r for r in fam_ok if r["variant"] == "softmax" and int(r["D"]) != int(r["Dv"])]
    custom = [r for r in fam_ok if r["variant"] != "softmax"]
    soft_ratios = [(_as_float(r["ours_vs_our_softmax"]), r) for r in custom
                   if isnum(_as_float(r["ours_vs_our_softmax"]))]
    worst_soft = min(soft_ratios, key=lambda x: x[0]) if soft_ratios else (NAN, None)
    vals = {
        "grid_geomean_vs_cudnn": g(grid_ok, "ours_vs_cudnn"),
        "grid_min_vs_cudnn": worst[0],
        "grid_geomean_vs_flex": g(grid_ok, "ours_vs_flex"),
        "grid_geomean_vs_flash2": g(grid_ok, "ours_vs_flash2"),
        "dne_geomean_vs_cudnn": g(dne, "ours_vs_cudnn"),
        "llama_geomean_vs_cudnn": g([r for r in fam_ok if r["family"] == "llama-3.1-8b"],
                                    "ours_vs_cudnn"),
        "custom_min_vs_our_softmax": worst_soft[0],
    }
    n_pass = len(ok)
    n_fail = sum(r["check"] == "FAIL" for r in rows)
    n_err = sum(r["check"] not in ("PASS", "FAIL") for r in rows)
    soft_cell = (f" ({worst_soft[1]['family']} B{worst_soft[1]['B']}"
                 f" S{seq_label(int(worst_soft[1]['Sq']))})") if worst_soft[1] else ""
    table = [
        [f"softmax grid: geomean ours/cuDNN ({count(grid_ok, 'ours_vs_cudnn')} cells)",
         fmt(vals["grid_geomean_vs_cudnn"]), "≥ 1.0"],
        ["softmax grid: min cell ours/cuDNN", fmt(vals["grid_min_vs_cudnn"]) + worst_cell,
         "≥ 0.9"],
        [f"softmax grid: geomean ours/Flex ({count(grid_ok, 'ours_vs_flex')} cells)",
         fmt(vals["grid_geomean_vs_flex"]), "≥ 1.5"],
        [f"softmax grid: geomean ours/FA2 ({count(grid_ok, 'ours_vs_flash2')} cells)",
         fmt(vals["grid_geomean_vs_flash2"]), "—"],
        [f"D≠Dv softmax (DeepSeek, Diff): geomean ours/cuDNN ({count(dne, 'ours_vs_cudnn')})",
         fmt(vals["dne_geomean_vs_cudnn"]), "≥ 1.0"],
        ["LLaMA-3.1-8B shapes: geomean ours/cuDNN", fmt(vals["llama_geomean_vs_cudnn"]), "—"],
        ["custom variants: min speed vs our softmax", fmt(vals["custom_min_vs_our_softmax"])
         + soft_cell, "≥ 0.9"],
        ["checks", f"{n_pass} PASS, {n_fail} FAIL, {n_err} ERROR", "all PASS"],
    ]
    return markdown_table(["metric", "value", "target"], table), vals


# --- main -------------------------------------------------------------------------------------
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--runner", required=True, help="metaattn-run (static build)")
    p.add_argument("--out", required=True, help="folder for suite.csv, suite.png, suite.md")
    p.add_argument("--runner-opts", default="",
                   help="more metaattn-run options for ours, given with '=' since they start "
                        "with dashes: --runner-opts=--persistent=short-grids")
    p.add_argument("--quick", action="store_true", help="a small subset (< 3 minutes)")
    p.add_argument("--iters", type=int, default=20, help="timed runs per measurement (median)")
    p.add_argument("--only", choices=("all", "grid", "families"), default="all")
    p.add_argument("--dims", help="softmax grid head dims, e.g. 64,128 (overrides the default)")
    p.add_argument("--seqs", help="softmax grid lengths, e.g. 1024,4096")
    p.add_argument("--workdir", help="scratch folder for q/k/v files (default /dev/shm or /tmp)")
    p.add_argument("--families", help="only these families, e.g. sigmoid-llama,retnet-6.7b "
                                      "(a long families run split over several calls)")
    args = p.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print("bench_suite: no CUDA device", file=sys.stderr)
        return 2
    args.iters = max(args.iters, 20)
    if args.runner_opts:
        print(f"ours run with: {args.runner_opts}", flush=True)
    os.makedirs(args.out, exist_ok=True)
    gpu = torch.cuda.get_device_name()
    dims = tuple(map(int, args.dims.split(","))) if args.dims else (
        QUICK_DIMS if args.quick else GRID_DIMS)
    seqs = tuple(map(int, args.seqs.split(","))) if args.seqs else (
        QUICK_SEQS if args.quick else GRID_SEQS)
    cases = []
    if args.only in ("all", "grid"):
        cases += grid_cases(dims, seqs)
    if args.only in ("all", "families"):
        families = family_cases(args.quick)
        if args.families:
            wanted = set(args.families.split(","))
            unknown = wanted - {c["family"] for c in families}
            if unknown:
                known = sorted({c["family"] for c in families})
                print(f"bench_suite: unknown families {sorted(unknown)}; known: {known}",
                      file=sys.stderr)
                return 2
            families = [c for c in families if c["family"] in wanted]
        cases += families
    args.work = work_dir(args)
    print(f"bench_suite: {len(cases)} cases on {gpu}, iters {args.iters}, scratch {args.work}",
          flush=True)
    rows, our_softmax, t0 = [], {}, time.time()
    try:
        for i, c in enumerate(cases):
            t = time.time()
            try:
                r = run_case(args, c, our_softmax, gpu)
            except Exception as e:  # noqa: BLE001 - one broken case never aborts the suite
                warn(f"{c['family']} B{c['B']} S{c['S']} D{c['D']}: {first_line(e)}")
                r = failed_row(c, gpu, e)
                torch.cuda.empty_cache()
            rows.append(r)
            # The CSV so far, so that a run cut short by a time limit keeps its rows.
            write_csv(os.path.join(args.out, "suite.csv"), rows, FIELDS)
            print(f"[{i + 1}/{len(cases)}] {r['family']} {r['variant']} B{r['B']} H{r['H']} "
                  f"S{r['Sq']} D{r['D']}/{r['Dv']} causal={r['causal']}: check {r['check']}; "
                  f"ours {fmt(r['ours_tflops'], '.0f')} TFLOP/s, "
                  + ", ".join(f"{PEER_NAMES[q]} {fmt(r[q + '_tflops'], '.0f')}"
                              for q in PEERS if q in c["peers"])
                  + (f", our softmax {fmt(r['our_softmax_tflops'], '.0f')}"
                     if c["softmax_cmp"] else "")
                  + f" ({time.time() - t:.1f} s)", flush=True)
    finally:
        shutil.rmtree(args.work, ignore_errors=True)
    return report(rows, args.out, time.time() - t0)


def report(rows, out, seconds=NAN):
    """Writes suite.csv, suite.png, suite.md in `out` and prints the tables (summary last).
    Returns 0 when every row checked PASS. Needs no torch (tested on fake rows)."""
    write_csv(os.path.join(out, "suite.csv"), rows, FIELDS)
    renderer = plot_softmax_grid(rows, os.path.join(out, "suite.png"))
    short, _ = summary(rows)
    parts = []
    if any(r["family"] == "softmax-grid" for r in rows):
        parts.append("### Softmax forward, bf16, B·S = 16k, H·D = 2048 (TFLOP/s)\n\n"
                     + grid_table(rows))
    if any(r["family"] != "softmax-grid" for r in rows):
        parts.append("### PERF.md shapes, bf16 (TFLOP/s; ratios are speed-ups of ours)\n\n"
                     + family_table(rows))
    gpu = next((r.get("gpu") for r in rows if r.get("gpu")), "?")
    parts.append(f"### Summary ({gpu}, {today()})\n\n" + short)
    text = "\n\n".join(parts)
    write_text(os.path.join(out, "suite.md"), text)
    write_text(os.path.join(out, "suite_summary.md"), short)
    print(f"\nwrote {out}/suite.csv, suite.png ({renderer}), suite.md"
          + (f" in {seconds:.0f} s" if isnum(seconds) else "") + "\n")
    print(text, flush=True)
    return 0 if rows and all(r["check"] == "PASS" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
