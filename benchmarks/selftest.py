#!/usr/bin/env python3
"""Checks of the benchmark scripts that need no GPU, no torch and no metaattn build.

  python3 benchmarks/selftest.py [--keep DIR]

1. variant_ir.py at the shapes of frontend/variants/*.mlir prints those files' functions (up to
   SSA names, whitespace and float spelling).
2. splitmix_uniform reproduces SplitMix64 (the generator of metaattn-run's custom inputs).
3. bench_suite.report on fake rows writes suite.csv, suite.png (both renderers), suite.md and
   the summary; the PNG is decoded back and checked.
4. run_metaattn / parse_jit and bench_jit.main end to end against a fake metaattn-run (a Python
   script printing the runner's lines), with and without the `jit:` line.
"""
import argparse
import csv
import math
import os
import re
import struct
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_common  # noqa: E402
import bench_jit  # noqa: E402
import bench_plot  # noqa: E402
import bench_suite  # noqa: E402
import variant_ir  # noqa: E402

VARIANTS = os.path.join(os.path.dirname(HERE), "frontend", "variants")
NAN = float("nan")
FAILS = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)


# --- 1. IR ------------------------------------------------------------------------------------
def function_text(path, name):
    text = open(path).read()
    start = text.index(f"func.func @{name}(")
    depth, i = 0, text.index("{", text.index(")", start))
    # the function body ends at the brace that closes the one after the signature
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[start:j + 1]
    raise ValueError(name)


def canonical(ir):
    """Comments dropped, whitespace collapsed, float constants normalised to f32, SSA names
    numbered by first appearance (each region numbers its own names after the function's)."""
    ir = re.sub(r"//[^\n]*", "", ir)
    ir = " ".join(ir.split())

    def f32(m):
        x = struct.unpack("f", struct.pack("f", float(m.group(1))))[0]
        return f"arith.constant {x:.8e} : f32"
    ir = re.sub(r"arith\.constant ([-+0-9.eE]+) : f32", f32, ir)
    out, names, outer = [], {}, None
    for tok in re.split(r"(%[A-Za-z0-9_]+|\^bb0)", ir):
        if tok == "^bb0":            # a region: its own names over the function's
            outer = dict(names) if outer is None else outer
            names = dict(outer)
            out.append(tok)
        elif tok.startswith("%"):
            out.append(names.setdefault(tok, f"%v{len(names)}"))
        else:
            out.append(tok)
    return "".join(out)


def test_ir():
    cases = [
        ("relu.mlir", "relu_causal_norm",
         variant_ir.relu_ir("relu_causal_norm", 4, 64, True, length_norm=64, kv_heads=2)),
        ("relu.mlir", "relu_plain",
         variant_ir.relu_ir("relu_plain", 2, 32, False, kv_heads=1, value_dim=48, dtype="f16",
                            with_lse=False)),
        ("sigmoid.mlir", "sigmoid_head_bias",
         variant_ir.sigmoid_ir("sigmoid_head_bias", 4, 64, True, bias=-3.0, kv_heads=2)),
        ("retnet.mlir", "retnet_parallel", variant_ir.retnet_ir("retnet_parallel", 4, 64)),
        ("retnet.mlir", "retnet_parallel_gqa",
         variant_ir.retnet_ir("retnet_parallel_gqa", 4, 32, kv_heads=2, dtype="f16")),
    ]
    for file, name, ours in cases:
        ref = function_text(os.path.join(VARIANTS, file), name)
        a, b = canonical(ours), canonical(ref)
        same = a == b
        if not same:
            k = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            print(f"  generated: ...{a[max(0, k - 80):k + 80]}\n"
                  f"  file:      ...{b[max(0, k - 80):k + 80]}")
        check(same, f"variant_ir matches frontend/variants/{file} @{name}")
    # the benchmark shapes print and name their inputs as expected
    ir = variant_ir.variant_ir("sigmoid", "attention", 32, 128, 128, True)
    check("tensor<32xf32>" in ir and '{input_dims = ["h"]}' in ir, "sigmoid IR at H32 D128")
    ir = variant_ir.variant_ir("retnet", "attention", 32, 256, 512, True)
    check("tensor<?x?x32x512xbf16>" in ir and "inputs(" not in ir, "RetNet IR at H32 D256")
    ir = variant_ir.variant_ir("relu", "attention", 6, 64, 64, False, length_norm=1024)
    check("arith.constant true" in ir and "1.024000000e+03" in ir, "ReLU IR at H6 D64 S1k")


# --- 2. SplitMix64 ----------------------------------------------------------------------------
def test_splitmix():
    # SplitMix64 from state 0: first output 0xe220a8397b1dcdaf (reference test vector).
    u = bench_common.splitmix_uniform(0, 1, 0.0, 1.0)[0]
    expect = (0xE220A8397B1DCDAF >> 11) * 2.0 ** -53
    check(abs(u - expect) < 1e-7, "splitmix_uniform matches the SplitMix64 test vector")
    vals = bench_common.splitmix_uniform(52, 32)
    check(all(-1 <= x < 1 for x in vals) and len(set(vals)) == 32, "per-head bias values")


# --- 3. suite report on fake rows -------------------------------------------------------------
def fake_rows():
    rows, gpu = [], "NVIDIA H200 (fake)"
    for d in (64, 128, 256):
        for s in (512, 1024, 2048, 4096, 8192, 16384):
            for causal in (0, 1):
                b, h = 16384 // s, 2048 // d
                fl = bench_common.attn_flops(b, h, s, s, d, d, causal)
                base = 300 + d + 20 * math.log2(s / 512) - 60 * causal
                ms = {"ours": fl / (base * 0.9e12) * 1e3, "cudnn": fl / (base * 1e12) * 1e3,
                      "flash2": fl / (base * 0.6e12) * 1e3,
                      "flex": NAN if d == 256 else fl / (base * 0.7e12) * 1e3}
                r = {"family": "softmax-grid", "variant": "softmax", "B": b, "H": h, "Sq": s,
                     "Skv": s, "D": d, "Dv": d, "causal": causal, "dtype": "bf16",
                     "gflop": fl / 1e9, "ours_ms": ms["ours"],
                     "ours_tflops": bench_common.tflops(fl, ms["ours"]),
                     "check": "FAIL" if (d, s, causal) == (64, 512, 1) else "PASS",
                     "check_method": "vs SDPA flash2 (full shape)", "max_err": 0.004,
                     "note": "", "date": bench_common.today(), "gpu": gpu,
                     "_peers": ("cudnn", "flash2", "flex"),
                     "our_softmax_ms": NAN, "our_softmax_tflops": NAN,
                     "ours_vs_our_softmax": NAN}
                for p in bench_suite.PEERS:
                    m = ms.get(p, NAN)
                    r[f"{p}_ms"], r[f"{p}_tflops"] = m, bench_common.tflops(fl, m)
                    r[f"ours_vs_{p}"] = bench_common.ratio(m, ms["ours"])
                rows.append(r)
    for c in bench_suite.family_cases(quick=False):
        b, h, s, d, dv, causal = c["B"], c["H"], c["S"], c["D"], c["Dv"], c["causal"]
        fl = bench_common.attn_flops(b, h, s, s, d, dv, causal)
        ours = fl / 250e12 * 1e3
        r = {"family": c["family"], "variant": c["variant"], "B": b, "H": h, "Sq": s, "Skv": s,
             "D": d, "Dv": dv, "causal": int(causal), "dtype": "bf16", "gflop": fl / 1e9,
             "ours_ms": ours, "ours_tflops": bench_common.tflops(fl, ours), "check": "PASS",
             "check_method": "fake", "max_err": 0.001, "note": "", "date": "2026-12-02",
             "gpu": gpu, "_peers": c["peers"]}
        soft = ours * 0.95 if c["softmax_cmp"] else NAN
        r["our_softmax_ms"], r["our_softmax_tflops"] = soft, bench_common.tflops(fl, soft)
        r["ours_vs_our_softmax"] = bench_common.ratio(soft, ours)
        for p in bench_suite.PEERS:
            m = ours * 1.1 if p in c["peers"] and p not in ("fla",) else NAN
            if c["family"] == "deepseek-v2-lite" and p == "flex":
                m = NAN                                   # an attempted peer that failed
            r[f"{p}_ms"], r[f"{p}_tflops"] = m, bench_common.tflops(fl, m)
            r[f"ours_vs_{p}"] = bench_common.ratio(m, ours)
        rows.append(r)
    rows.append(bench_suite.failed_row(bench_suite.family_cases(True)[0], gpu,
                                       RuntimeError("CUDA out of memory\nmore")))
    return rows


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF, tag
        if tag == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    w, h = ihdr[:2]
    raw = zlib.decompress(idat) if idat else b""
    return w, h, ihdr, raw


def test_report(keep):
    out = keep or tempfile.mkdtemp(prefix="bench-selftest-")
    os.makedirs(out, exist_ok=True)
    rows = fake_rows()
    rc = bench_suite.report(rows, out, 12.0)
    check(rc == 1, "report returns 1 when a row is not PASS")
    with open(os.path.join(out, "suite.csv")) as f:
        got = list(csv.DictReader(f))
    check(len(got) == len(rows) and list(got[0].keys()) == bench_suite.FIELDS,
          f"suite.csv has {len(rows)} rows and the documented columns")
    check(got[0]["flex_tflops"] != "" and "nan" in {r["flex_tflops"] for r in got},
          "suite.csv writes NaN peers as nan")
    md = open(os.path.join(out, "suite.md")).read()
    check("| D | S | causal | metaattn | cuDNN | FA2 | Flex |" in md, "suite.md grid table")
    check("ERROR" in md and "n/a" in md and "err" in md, "suite.md marks n/a / err / ERROR")
    short, vals = bench_suite.summary(rows)
    check(abs(vals["grid_geomean_vs_cudnn"] - 0.9) < 1e-6, "geomean ours/cuDNN = 0.90 on fake rows")
    check(abs(vals["grid_min_vs_cudnn"] - 0.9) < 1e-6, "min cell ratio on fake rows")
    check(abs(vals["grid_geomean_vs_flex"] - 0.9 / 0.7) < 1e-6, "geomean ours/Flex skips NaN")
    check(abs(vals["custom_min_vs_our_softmax"] - 0.95) < 1e-6, "variants vs our softmax")
    n = len(rows)
    check(f"{n - 2} PASS, 1 FAIL, 1 ERROR" in short, "summary counts checks: " +
          short.splitlines()[-1])
    # The same tables from the CSV strings (what a later re-plot would read).
    for r in got:
        r["_peers"] = None
    check(abs(bench_suite.summary(got)[1]["grid_geomean_vs_cudnn"] - 0.9) < 1e-4,
          "summary from CSV rows")
    # both renderers
    for name, fn in (("builtin", lambda p: bench_plot._builtin_plot(
            bench_plot.grid_series(rows), p, "fake")), ("default", lambda p:
                                                        bench_plot.plot_softmax_grid(got, p))):
        path = os.path.join(out, f"suite_{name}.png")
        used = fn(path)
        w, h, ihdr, raw = read_png(path)
        ok = w > 100 and h > 100
        if name == "builtin":
            ok = ok and ihdr[2:4] == (8, 2) and len(raw) == h * (1 + 3 * w)
            # some pixels carry each implementation's colour
            for _, _, color in bench_plot.IMPLS:
                ok = ok and bytes(color) in raw
        check(ok, f"suite PNG ({name}{', ' + used if used else ''}) decodes: {w}x{h}")
    w, h, _, _ = read_png(os.path.join(out, "suite.png"))
    check(w > 100, f"suite.png written by report ({w}x{h})")
    return out


# --- 4. fake runner ---------------------------------------------------------------------------
FAKE_RUNNER = r'''#!/usr/bin/env python3
import os, sys, time
args = sys.argv[1:]
cache = os.environ.get("METAATTN_CACHE_DIR", "/tmp")
mark = os.path.join(cache, "compiled")
print("attention (B=1, Sq=64, Skv=64, device=gpu)")
if os.environ.get("FAKE_NO_JIT") != "1":
    if os.path.exists(mark):
        print("jit: lower 41.5 ms, compile 0.8 ms (disk-cache), load 1.2 ms")
    else:
        time.sleep(0.05)
        open(mark, "w").close()
        # Two plans: the last one ready first, the other compiled after it in the background.
        print("jit: lower 40.25 ms, compile 812 ms (nvrtc), load 3.5 ms")
        print("jit: lower 40.25 ms, compile 790 ms (nvrtc), load 3 ms")
        if "--background-plans=false" in args:
            print("jit: ready in 1650 ms (2 kernels, wall)")
        else:
            print("jit: ready in 861.5 ms (1 kernel, wall)")
            print("jit: every plan in 1680.5 ms (2 kernels, wall)")
if "--bench" in args:
    print("  time: 1.25 ms, 123.4 TFLOP/s")
if "--no-check" in args:
    print("RAN attention")
else:
    print("PASS attention")
'''


def test_runner(out):
    path = os.path.join(out, "fake-metaattn-run")
    with open(path, "w") as f:
        f.write(FAKE_RUNNER)
    os.chmod(path, 0o755)
    res = bench_common.run_metaattn(path, "x.mlir", 2, 100, iters=20, check=False)
    check(res["error"] is None and res["ms"] == 1.25 and res["passed"] is None,
          "run_metaattn parses the time line")
    res = bench_common.run_metaattn(path, "x.mlir", 2, 100, check=True, bench=False)
    check(res["passed"] is True and math.isnan(res["ms"]), "run_metaattn parses PASS")
    res = bench_common.run_metaattn(os.path.join(out, "missing-runner"), "x.mlir", 1, 1)
    check(res["error"] is not None and res["rc"] == -1, "a missing runner is an error, no raise")
    j = bench_common.parse_jit("x\njit: lower 1.5 ms, compile 2e+02 ms (nvrtc), load 0.25 ms\n"
                               "jit: lower 1 ms, compile 0.5 ms (memory-cache), load 0 ms\n")
    check(len(j) == 2 and j[0]["compile_ms"] == 200 and j[1]["source"] == "memory-cache",
          "parse_jit")
    jit_out = os.path.join(out, "jit")
    rc = bench_jit.main(["--runner", path, "--out", jit_out])
    with open(os.path.join(jit_out, "jit.csv")) as f:
        rows = list(csv.DictReader(f))
    srcs = [(r["phase"], r["source"]) for r in rows]
    check(rc == 0 and len(rows) == 16 and srcs[0] == ("cold", "nvrtc")
          and srcs[1] == ("cached", "disk-cache")
          and srcs[2] == ("recompile, background plans", "nvrtc")
          and srcs[3] == ("recompile, every plan at once", "nvrtc")
          and rows[6]["phase"] == "recompile, every plan at once",
          f"bench_jit end to end, the recompiles in turns: {srcs[:4]}, {rows[6]['phase']}")
    cold = rows[0]
    check(float(cold["ready_ms"]) == 861.5 and float(cold["lower_ms"]) == 40.25
          and float(cold["compile_ms"]) == 1602 and math.isnan(float(rows[1]["ready_ms"]))
          and float(cold["all_plans_ms"]) == 1680.5
          and math.isnan(float(rows[1]["all_plans_ms"])),
          f"bench_jit: the wall from 'ready', lowering once, NVRTC summed: {cold}")
    md = open(os.path.join(jit_out, "jit.md")).read()
    check("| 862 ✓ (2 kernels: 40 lower, 1602 nvrtc summed" in md and "; every plan 1680" in md
          and "| 862 / 1650 (1.92x) |" in md,
          "bench_jit checks the cold target against the wall")
    os.environ["FAKE_NO_JIT"] = "1"
    try:
        rc = bench_jit.main(["--runner", path, "--out", jit_out + "_nojit"])
    finally:
        del os.environ["FAKE_NO_JIT"]
    md = open(os.path.join(jit_out + "_nojit", "jit.md")).read()
    check("no jit line" in md, "bench_jit without the jit line says 'no jit line'")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--keep", help="write the outputs here (default: a temporary folder)")
    args = p.parse_args()
    test_ir()
    test_splitmix()
    out = test_report(args.keep)
    test_runner(out)
    print(f"\noutputs in {out}")
    print(f"{len(FAILS)} failed" if FAILS else "all passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
