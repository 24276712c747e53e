"""Shared helpers of the GPU benchmarks.

Importable without torch (the CSV/table/plot path is tested on the development machine): every
function that needs torch imports it inside.
"""
import csv
import datetime
import math
import os
import re
import subprocess
import sys

NAN = float("nan")


# --- timing -----------------------------------------------------------------------------------
def time_cuda(fn, iters):
    """Median milliseconds of `iters` CUDA-event timings of fn(), after three warm-up calls."""
    import torch
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


def warn(msg):
    """One line on stderr (a peer that cannot run a shape, a skipped check...)."""
    print("  " + " ".join(str(msg).split())[:300], file=sys.stderr, flush=True)


def first_line(exc):
    s = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {s[0] if s else ''}"


# --- arithmetic -------------------------------------------------------------------------------
def isnum(x):
    return isinstance(x, (int, float)) and not (isinstance(x, float) and math.isnan(x))


def attn_flops(batch, heads, seq_q, seq_kv, dim, value_dim, causal):
    """FlashAttention convention: 2·B·H·Sq·Skv·(D + Dv), halved for causal."""
    f = 2.0 * batch * heads * seq_q * seq_kv * (dim + value_dim)
    return f / 2 if causal else f


def tflops(flops, ms):
    return flops / (ms * 1e-3) / 1e12 if isnum(ms) and ms > 0 else NAN


def ratio(peer_ms, ours_ms):
    """Speed of ours relative to a peer (peer time / our time; > 1: ours is faster)."""
    if isnum(peer_ms) and isnum(ours_ms) and ours_ms > 0:
        return peer_ms / ours_ms
    return NAN


def geomean(values):
    vals = [v for v in values if isnum(v) and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else NAN


def fmt(x, spec=".2f", missing="n/a"):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return missing
    if isinstance(x, float):
        return format(x, spec)
    return str(x)


def seq_label(s):
    return f"{s // 1024}k" if s >= 1024 and s % 1024 == 0 else str(s)


# --- the runner -------------------------------------------------------------------------------
TIME_RE = re.compile(r"time: ([0-9.eE+-]+) ms")
JIT_RE = re.compile(r"jit: lower ([0-9.eE+-]+) ms, compile ([0-9.eE+-]+) ms \(([A-Za-z-]+)\), "
                    r"load ([0-9.eE+-]+) ms")
READY_RE = re.compile(r"jit: ready in ([0-9.eE+-]+) ms")
ALL_PLANS_RE = re.compile(r"jit: every plan in ([0-9.eE+-]+) ms")


def parse_jit(text):
    """Every `jit: lower X ms, compile Y ms (SOURCE), load Z ms` line of metaattn-run's output."""
    return [{"lower_ms": float(m.group(1)), "compile_ms": float(m.group(2)),
             "source": m.group(3), "load_ms": float(m.group(4))} for m in JIT_RE.finditer(text)]


def run_metaattn(runner, ir_path, batch, seq_q, seq_kv=None, iters=20, function=None,
                 load_dir=None, save_dir=None, check=False, bench=True, env=None, timeout=900,
                 extra=()):
    """Runs metaattn-run on the GPU (`extra`: more of its options). Returns a dict: rc, ms
    (NaN when absent), passed (the oracle's verdict when check, else None), jit (parsed lines),
    ready_ms (the `jit: ready in X ms` wall time of lowering every plan and compiling and loading
    each function's last plan, the one that suits every call; NaN when absent), all_plans_ms (the
    `jit: every plan in X ms` wall time until the plans compiled in the background are loaded
    too; NaN where there are none), out (stdout + stderr), error (one line, or None)."""
    cmd = [runner, ir_path, "--device=gpu", f"--batch={batch}", f"--seq-q={seq_q}",
           f"--seq-kv={seq_kv or seq_q}"]
    if function:
        cmd.append(f"--function={function}")
    if bench:
        cmd += ["--bench", f"--iters={iters}"]
    if not check:
        cmd.append("--no-check")
    if load_dir:
        cmd.append(f"--load-inputs={load_dir}")
    if save_dir:
        cmd.append(f"--save-output={save_dir}")
    cmd += list(extra)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"rc": -1, "ms": NAN, "passed": False, "jit": [], "ready_ms": NAN,
                "all_plans_ms": NAN, "out": "",
                "error": first_line(e), "cmd": cmd}
    out = proc.stdout + proc.stderr
    m = TIME_RE.search(proc.stdout)
    ready = READY_RE.search(out)
    all_plans = ALL_PLANS_RE.search(out)
    res = {"rc": proc.returncode, "ms": float(m.group(1)) if m else NAN, "jit": parse_jit(out),
           "ready_ms": float(ready.group(1)) if ready else NAN,
           "all_plans_ms": float(all_plans.group(1)) if all_plans else NAN,
           "out": out, "cmd": cmd, "error": None,
           "passed": (re.search(r"^PASS ", proc.stdout, re.M) is not None
                      and proc.returncode == 0) if check else None}
    if proc.returncode != 0 and not (check and re.search(r"^FAIL ", proc.stdout, re.M)):
        lines = [ln for ln in out.strip().splitlines() if ln.strip()]
        res["error"] = f"metaattn-run exit {proc.returncode}: " + (lines[-1] if lines else "")
    return res


# --- tensors on disk (metaattn-run's --load-inputs / --save-output) ---------------------------
def save_tensor(path, t):
    """Writes a CUDA/CPU 16-bit tensor as raw contiguous bytes."""
    import torch
    t.detach().contiguous().cpu().view(torch.int16).numpy().tofile(path)


def load_tensor(path, shape, dtype):
    import numpy as np
    import torch
    raw = torch.from_numpy(np.fromfile(path, dtype=np.int16))
    return raw.view(dtype).reshape(shape)


def splitmix_uniform(seed, n, lo=-1.0, hi=1.0, as_f32=True):
    """The values of HostTensor::random(shape, f32, seed, lo, hi) (SplitMix64), for the small
    custom inputs metaattn-run draws itself (operand i gets seed --seed + 17·i); with
    as_f32=False the doubles before rounding (an i32 tensor truncates them)."""
    import struct
    mask = (1 << 64) - 1
    state, out = seed, []
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        u = (z >> 11) * 2.0 ** -53
        x = lo + (hi - lo) * u
        out.append(struct.unpack("f", struct.pack("f", x))[0] if as_f32 else x)
    return out


def compare(got, ref):
    """(ok, max |err|): ok when max |got - ref| <= 2e-2 + 2e-2·max |ref| (bf16 outputs) and
    no NaN/inf where the reference is finite."""
    import torch
    got, ref = got.float(), ref.float()
    if got.shape != ref.shape:
        return False, NAN
    finite = torch.isfinite(ref)
    if not bool(torch.isfinite(got)[finite].all()):
        return False, NAN
    err = (got - ref).abs()[finite].max().item() if bool(finite.any()) else 0.0
    scale = ref.abs()[finite].max().item() if bool(finite.any()) else 0.0
    return err <= 2e-2 + 2e-2 * scale, err


# --- peers (PyTorch) --------------------------------------------------------------------------
def sdpa_fn(q, k, v, causal, backend):
    """SDPA through one backend on [B, H, S, D] tensors (views are fine)."""
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel

    def call():
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return call


def time_sdpa(label, q, k, v, causal, iters):
    """Milliseconds of SDPA with backend label in {cudnn, flash2, efficient}; NaN with one
    line on stderr when the backend cannot run the shape."""
    from torch.nn.attention import SDPBackend
    backend = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash2": SDPBackend.FLASH_ATTENTION,
               "efficient": SDPBackend.EFFICIENT_ATTENTION}[label]
    try:
        return time_cuda(sdpa_fn(q, k, v, causal, backend), iters)
    except Exception as e:  # noqa: BLE001 - a peer never aborts the suite
        warn(f"{label} cannot run B{q.shape[0]} H{q.shape[1]} S{q.shape[2]} D{q.shape[3]}"
             f" Dv{v.shape[3]} causal={int(causal)}: {first_line(e)}")
        return NAN


def sdpa_reference(q, k, v, causal):
    """Output of the first SDPA backend (flash, cuDNN, memory-efficient) that runs the shape,
    as [B, H, S, Dv], with the backend's name; (None, None) when none does."""
    from torch.nn.attention import SDPBackend
    for label, backend in (("flash2", SDPBackend.FLASH_ATTENTION),
                           ("cudnn", SDPBackend.CUDNN_ATTENTION),
                           ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
        try:
            return sdpa_fn(q, k, v, causal, backend)(), label
        except Exception:  # noqa: BLE001
            continue
    return None, None


_FLEX = {}


def flex_compiled():
    """torch.compile(flex_attention) with static shapes and a recompile limit high enough for
    one compile per shape (the default limit of 8 stops it mid-grid)."""
    if "fn" not in _FLEX:
        import torch
        from torch.nn.attention.flex_attention import flex_attention
        for name in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                     "accumulated_cache_size_limit"):
            if hasattr(torch._dynamo.config, name):
                setattr(torch._dynamo.config, name, 100000)
        _FLEX["fn"] = torch.compile(flex_attention, dynamic=False)
    return _FLEX["fn"]


def time_flex(q, k, v, causal, iters, score_mod=None):
    """Milliseconds of compiled FlexAttention on contiguous [B, H, S, D] tensors; the causal
    block mask is built once, outside the timing. NaN with one line on stderr on failure."""
    try:
        from torch.nn.attention.flex_attention import create_block_mask
        fn = flex_compiled()
        block_mask = None
        if causal:
            sq, skv = q.shape[2], k.shape[2]
            off = skv - sq
            block_mask = create_block_mask(lambda b, h, qi, ki: ki <= qi + off, None, None,
                                           sq, skv, device=q.device)
        return time_cuda(lambda: fn(q, k, v, score_mod=score_mod, block_mask=block_mask), iters)
    except Exception as e:  # noqa: BLE001
        warn(f"flex cannot run B{q.shape[0]} H{q.shape[1]} S{q.shape[2]} D{q.shape[3]}"
             f" Dv{v.shape[3]} causal={int(causal)}: {first_line(e)}")
        return NAN


# --- output -----------------------------------------------------------------------------------
def today():
    return datetime.date.today().isoformat()


def write_csv(path, rows, fields=None):
    """Rows (dicts) as CSV; the columns are `fields` or the union of the keys in order; floats
    with 6 significant digits, NaN as 'nan'."""
    if fields is None:
        fields = []
        for r in rows:
            fields += [k for k in r if k not in fields]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    return fields


def markdown_table(headers, rows):
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_text(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")
