"""The suite's plot: TFLOP/s of each implementation per softmax cell, one panel per (causal, D).

plot_softmax_grid(rows, path) uses matplotlib when it imports and otherwise draws the same
panels with the small PNG writer below (zlib + struct, lines, markers, a 3x5 pixel font), so a
PNG is always written. No torch, no numpy.
"""
import math
import struct
import zlib

IMPLS = (("ours_tflops", "metaattn", (220, 40, 40)),
         ("cudnn_tflops", "cuDNN", (40, 90, 220)),
         ("flash2_tflops", "FA2", (30, 160, 60)),
         ("flex_tflops", "Flex", (240, 150, 20)))


def _num(x):
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) or math.isinf(x) else x


def _truthy(x):
    return str(x).lower() in ("1", "true", "yes")


def grid_series(rows):
    """{(causal, D): {key: [(S, tflops), ...]}} from the softmax-grid rows (CSV strings ok)."""
    panels = {}
    for r in rows:
        if r.get("family", "softmax-grid") != "softmax-grid":
            continue
        key = (_truthy(r["causal"]), int(r["D"]))
        series = panels.setdefault(key, {k: [] for k, _, _ in IMPLS})
        for k, _, _ in IMPLS:
            v = _num(r.get(k))
            if v is not None:
                series[k].append((int(r["Sq"]), v))
    for series in panels.values():
        for pts in series.values():
            pts.sort()
    return panels


def plot_softmax_grid(rows, path, title="softmax forward, bf16, B*S = 16k, H*D = 2048"):
    """Writes the PNG; returns 'matplotlib' or 'builtin' (the renderer used)."""
    panels = grid_series(rows)
    try:
        _matplotlib_plot(panels, path, title)
        return "matplotlib"
    except Exception:  # noqa: BLE001 - not installed, or it failed: the built-in renderer
        _builtin_plot(panels, path, title)
        return "builtin"


def _matplotlib_plot(panels, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    dims = sorted({d for _, d in panels}) or [64]
    fig, axes = plt.subplots(2, len(dims), figsize=(4.2 * len(dims), 7), squeeze=False,
                             sharey=True)
    for ci, causal in enumerate((False, True)):
        for di, d in enumerate(dims):
            ax = axes[ci][di]
            series = panels.get((causal, d), {})
            for k, label, color in IMPLS:
                pts = series.get(k, [])
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=label,
                            color=tuple(c / 255 for c in color))
            ax.set_xscale("log", base=2)
            ax.minorticks_off()
            ax.set_title(f"D = {d}, {'causal' if causal else 'not causal'}")
            ax.set_xlabel("S")
            if di == 0:
                ax.set_ylabel("TFLOP/s")
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
            xs = sorted({p[0] for pts in series.values() for p in pts})
            if xs:
                ax.set_xticks(xs)
                ax.set_xticklabels([f"{x // 1024}k" if x >= 1024 else str(x) for x in xs])
    axes[0][0].legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- built-in renderer ------------------------------------------------------------------------
_FONT = {  # 3x5 glyphs: five rows of three pixels, top to bottom
    "0": "### #.# #.# #.# ###", "1": ".#. ##. .#. .#. ###", "2": "### ..# ### #.. ###",
    "3": "### ..# ### ..# ###", "4": "#.# #.# ### ..# ..#", "5": "### #.. ### ..# ###",
    "6": "### #.. ### #.# ###", "7": "### ..# ..# .#. .#.", "8": "### #.# ### #.# ###",
    "9": "### #.# ### ..# ###", "A": ".#. #.# ### #.# #.#", "B": "##. #.# ##. #.# ##.",
    "C": ".## #.. #.. #.. .##", "D": "##. #.# #.# #.# ##.", "E": "### #.. ##. #.. ###",
    "F": "### #.. ##. #.. #..", "G": ".## #.. #.# #.# .##", "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###", "J": "..# ..# ..# #.# .#.", "K": "#.# #.# ##. #.# #.#",
    "L": "#.. #.. #.. #.. ###", "M": "#.# ### ### #.# #.#", "N": "##. #.# #.# #.# #.#",
    "O": ".#. #.# #.# #.# .#.", "P": "##. #.# ##. #.. #..", "Q": ".#. #.# #.# ##. .##",
    "R": "##. #.# ##. #.# #.#", "S": ".## #.. .#. ..# ##.", "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###", "V": "#.# #.# #.# #.# .#.", "W": "#.# #.# ### ### #.#",
    "X": "#.# #.# .#. #.# #.#", "Y": "#.# #.# .#. .#. .#.", "Z": "### ..# .#. #.. ###",
    "/": "..# ..# .#. #.. #..", "-": "... ... ### ... ...", ".": "... ... ... ... .#.",
    ":": "... .#. ... .#. ...", "=": "... ### ... ### ...", "*": "... #.# .#. #.# ...",
    "(": ".#. #.. #.. #.. .#.", ")": ".#. ..# ..# ..# .#.", ",": "... ... ... .#. #..",
    "+": "... .#. ### .#. ...", "<": "..# .#. #.. .#. ..#", ">": "#.. .#. ..# .#. #..",
    " ": "... ... ... ... ...",
}
_FONT = {k: v.replace(" ", "") for k, v in _FONT.items()}


class Canvas:
    def __init__(self, width, height, bg=(255, 255, 255)):
        self.w, self.h = width, height
        self.px = bytearray(bytes(bg) * (width * height))

    def set(self, x, y, c):
        x, y = int(x), int(y)
        if 0 <= x < self.w and 0 <= y < self.h:
            i = 3 * (y * self.w + x)
            self.px[i:i + 3] = bytes(c)

    def rect(self, x0, y0, x1, y1, c):
        for y in range(int(y0), int(y1) + 1):
            for x in range(int(x0), int(x1) + 1):
                self.set(x, y, c)

    def line(self, x0, y0, x1, y1, c, width=1):
        n = int(max(abs(x1 - x0), abs(y1 - y0), 1))
        r = width // 2
        for i in range(n + 1):
            x = x0 + (x1 - x0) * i / n
            y = y0 + (y1 - y0) * i / n
            if r:
                self.rect(x - r, y - r, x + r, y + r, c)
            else:
                self.set(x, y, c)

    def text(self, x, y, s, c=(0, 0, 0), scale=2):
        """3x5 pixel font, upper case; returns the width drawn."""
        cx = x
        for ch in str(s).upper():
            g = _FONT.get(ch, _FONT[" "])
            for row in range(5):
                for col in range(3):
                    if g[row * 3 + col] == "#":
                        self.rect(cx + col * scale, y + row * scale,
                                  cx + col * scale + scale - 1, y + row * scale + scale - 1, c)
            cx += 4 * scale
        return cx - x

    def png(self):
        raw = b"".join(b"\x00" + bytes(self.px[3 * y * self.w:3 * (y + 1) * self.w])
                       for y in range(self.h))

        def chunk(tag, data):
            return (struct.pack(">I", len(data)) + tag + data +
                    struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))
        return (b"\x89PNG\r\n\x1a\n" +
                chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _nice_step(vmax):
    for step in (50, 100, 200, 250, 500, 1000, 2000):
        if vmax / step <= 8:
            return step
    return 10 ** math.ceil(math.log10(vmax))


def _builtin_plot(panels, path, title):
    dims = sorted({d for _, d in panels}) or [64]
    pw, ph = 380, 280                     # panel size
    ml, mr, mt, mb = 70, 20, 40, 45       # margins inside a panel
    top = 70
    cv = Canvas(pw * len(dims), top + 2 * ph)
    cv.text(10, 10, title, scale=2)
    lx = 10                                # legend
    for _, label, color in IMPLS:
        cv.rect(lx, 40, lx + 24, 44, color)
        lx += 30 + cv.text(lx + 30, 36, label, scale=2) + 20
    vmax = max([v for s in panels.values() for pts in s.values() for _, v in pts] or [100])
    step = _nice_step(vmax)
    ytop = step * math.ceil(vmax * 1.05 / step)
    grey, axis = (225, 225, 225), (0, 0, 0)
    for ci, causal in enumerate((False, True)):
        for di, d in enumerate(dims):
            ox, oy = di * pw, top + ci * ph
            x0, x1, y0, y1 = ox + ml, ox + pw - mr, oy + ph - mb, oy + mt   # plot box
            series = panels.get((causal, d), {})
            xs = sorted({p[0] for pts in series.values() for p in pts}) or [512, 16384]
            lo, hi = math.log2(min(xs)), math.log2(max(xs))
            span = hi - lo or 1.0

            def px(s, lo=lo, span=span, x0=x0, x1=x1):
                return x0 + 10 + (x1 - x0 - 20) * (math.log2(s) - lo) / span

            def py(v, y0=y0, y1=y1):
                return y0 - (y0 - y1) * v / ytop
            cv.text(ox + ml, oy + 12, f"D{d} {'CAUSAL' if causal else 'NOT CAUSAL'}", scale=2)
            v = 0
            while v <= ytop:                     # y grid, ticks, labels
                y = py(v)
                cv.line(x0, y, x1, y, grey)
                cv.line(x0 - 5, y, x0, y, axis)
                label = str(int(v))
                cv.text(x0 - 8 - 8 * len(label), y - 5, label, scale=2)
                v += step
            for s in xs:                          # x ticks and labels
                x = px(s)
                cv.line(x, y0, x, y0 + 5, axis)
                label = f"{s // 1024}K" if s >= 1024 else str(s)
                cv.text(x - 4 * len(label), y0 + 10, label, scale=2)
            cv.line(x0, y0, x1, y0, axis)
            cv.line(x0, y0, x0, y1, axis)
            if di == 0:
                cv.text(ox + 4, y1 - 24, "TFLOP/S", scale=2)
            for k, _, color in IMPLS:
                pts = series.get(k, [])
                for (sa, va), (sb, vb) in zip(pts, pts[1:]):
                    cv.line(px(sa), py(va), px(sb), py(vb), color, width=3)
                for s, val in pts:
                    cv.rect(px(s) - 3, py(val) - 3, px(s) + 3, py(val) + 3, color)
    with open(path, "wb") as f:
        f.write(cv.png())
