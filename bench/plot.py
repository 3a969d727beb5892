#!/usr/bin/env python3
"""Plot effective bandwidth against problem size from bench/results.csv.

Draws, for every spmv and cg series in the CSV, a coloured polyline of the
effective bandwidth (GB/s, linear y axis) against the number of matrix rows
(logarithmic x axis), plus a dashed horizontal line at the measured device
copy bandwidth B, a legend, a title and axis labels, and writes the result
as an RGB PNG.

It uses only the Python 3 standard library on purpose (no matplotlib, numpy
or PIL): the machines that run the benchmarks have nothing else installed.
Text comes from a small built-in 5x8 bitmap font, the PNG is written with
zlib + struct.  Output is deterministic for a given CSV.

Usage: python3 bench/plot.py bench/results.csv bench/bandwidth.png "NVIDIA H200"
"""

import csv
import math
import struct
import sys
import zlib

WIDTH, HEIGHT = 1000, 650
SCALE = 2                      # text scale factor (font pixels -> image pixels)
SECTIONS = ("spmv", "cg")      # sections that are plotted, in legend order

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
GRID = (225, 225, 225)
COPY_LINE = (90, 90, 90)

# Distinct series colours (one per benchmark "what"; 2d/3d share a colour).
PALETTE = [
    (31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40),
    (148, 103, 189), (140, 86, 75), (227, 119, 194), (127, 127, 127),
    (188, 189, 34), (23, 190, 207), (20, 20, 120), (200, 150, 0),
    (0, 100, 80), (190, 0, 120),
]

# ---------------------------------------------------------------------------
# Bitmap font: printable ASCII 32..126, 5 columns x 8 rows per glyph (row 7
# is the descender row).  Each glyph is 10 hex digits = 40 bits, row-major,
# most significant bit = top-left pixel.
FONT_W, FONT_H = 5, 8
FONT_HEX = (
    "00000000002108420080529400000052beafa94023e8e2f880c644444c6064a88ac9a0"
    "211000000011108410404104211100012aea90000109f2100000000030880001f00000"
    "0000003180004444400074675cc5c023084211c074422223e0f88820c5c011952f8840"
    "fc3c10c5c03221e8c5c0f8444421007462e8c5c07462f0898003180630000318061100"
    "1111041040003e0f8000410411110074422200807442dad5c07463f8c620f463e8c7c0"
    "74610845c0e4a318cb80fc21e843e0fc21e84200746178c5e08c63f8c62071084211c0"
    "38842149808ca98a4a2084210843e08eeb58c6208c7359c620746318c5c0f463e84200"
    "74631ac9a0f463ea4a207c20e087c0f9084210808c6318c5c08c6318a8808c635ad540"
    "8c544546208c62a21080f8444443e072108421c0041041040070842109c022a2000000"
    "000000001f4100000000001c17c5e0842d98c7c0001d0845c0085b38c5e0001d1fc1c0"
    "3251c42100001f18bc2e842d98c62020184211c0100c210a4c84254c524061084211c0"
    "00355ac620002d98c620001d18c5c0003d18fa10001f18bc21002d984200001f0707c0"
    "42388424c0002318cda0002318a88000231ad5400022a22a20002318bc2e003e2223e0"
    "1108821040210842108041082211000011510000"
)


def glyph_rows(ch):
    """Return the 8 row bitmasks (5 bits each) of character ch."""
    code = ord(ch)
    if not 32 <= code <= 126:
        code = ord("?")
    bits = int(FONT_HEX[(code - 32) * 10:(code - 31) * 10], 16)
    return [(bits >> (5 * (7 - r))) & 0x1F for r in range(FONT_H)]


class Canvas:
    """A minimal RGB raster with pixel, rectangle, line and text drawing."""

    def __init__(self, width, height, bg=WHITE):
        self.w, self.h = width, height
        self.px = bytearray(bytes(bg) * (width * height))

    def set(self, x, y, c):
        if 0 <= x < self.w and 0 <= y < self.h:
            i = 3 * (y * self.w + x)
            self.px[i:i + 3] = bytes(c)

    def rect(self, x0, y0, x1, y1, c):
        """Fill the rectangle [x0, x1] x [y0, y1] (inclusive, clipped)."""
        x0, x1 = max(0, min(x0, x1)), min(self.w - 1, max(x0, x1))
        y0, y1 = max(0, min(y0, y1)), min(self.h - 1, max(y0, y1))
        if x0 > x1 or y0 > y1:
            return
        row = bytes(c) * (x1 - x0 + 1)
        for y in range(y0, y1 + 1):
            i = 3 * (y * self.w + x0)
            self.px[i:i + len(row)] = row

    def line(self, x0, y0, x1, y1, c, width=1, dash=None):
        """Bresenham line stamped with a width x width square brush.

        dash=(on, off) draws a dashed line with on/off lengths in pixels."""
        x0, y0, x1, y1 = int(round(x0)), int(round(y0)), int(round(x1)), int(round(y1))
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err, step = dx + dy, 0
        lo = (width - 1) // 2
        hi = width - 1 - lo
        while True:
            if dash is None or step % (dash[0] + dash[1]) < dash[0]:
                self.rect(x0 - lo, y0 - lo, x0 + hi, y0 + hi, c)
            if x0 == x1 and y0 == y1:
                break
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy
            step += 1

    def diamond(self, cx, cy, r, c):
        for y in range(-r, r + 1):
            half = r - abs(y)
            self.rect(cx - half, cy + y, cx + half, cy + y, c)

    def text(self, x, y, s, c, scale=SCALE):
        """Draw s with its top-left corner at (x, y)."""
        for ch in s:
            for r, bits in enumerate(glyph_rows(ch)):
                for col in range(FONT_W):
                    if bits & (1 << (FONT_W - 1 - col)):
                        self.rect(x + col * scale, y + r * scale,
                                  x + (col + 1) * scale - 1, y + (r + 1) * scale - 1, c)
            x += (FONT_W + 1) * scale

    def write_png(self, path):
        def chunk(kind, data):
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
        stride = 3 * self.w
        raw = b"".join(b"\x00" + bytes(self.px[y * stride:(y + 1) * stride])
                       for y in range(self.h))
        ihdr = struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
                    + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def text_width(s, scale=SCALE):
    return len(s) * (FONT_W + 1) * scale - scale if s else 0


TEXT_H = FONT_H * SCALE        # height of one text line incl. descender


# ---------------------------------------------------------------------------
# Data

def parse_float(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def read_results(path):
    """Return (B or None, list of series dicts) from the results CSV.

    A series is keyed by section, `what` and the 2d/3d prefix of `problem`;
    several points at the same row count are averaged."""
    copy_b = None
    series = {}                # key -> {"what", "dim", "section", "pts": {rows: [gbs]}}
    try:
        with open(path, newline="") as f:
            records = list(csv.DictReader(f))
    except (OSError, csv.Error) as e:
        print("plot.py: cannot read %s: %s" % (path, e), file=sys.stderr)
        records = []
    for rec in records:
        section = (rec.get("section") or "").strip()
        gbs = parse_float(rec.get("gbs"))
        if section == "copy":
            if copy_b is None and gbs is not None and gbs > 0:
                copy_b = gbs
            continue
        if section not in SECTIONS or gbs is None or gbs <= 0:
            continue
        rows = parse_float(rec.get("rows"))
        if rows is None or rows <= 0:
            continue
        what = (rec.get("what") or "").strip() or "?"
        prefix = (rec.get("problem") or "").strip().split("-")[0].lower()
        dim = prefix if prefix in ("2d", "3d") else ""
        s = series.setdefault((section, what, dim),
                              {"section": section, "what": what, "dim": dim, "pts": {}})
        s["pts"].setdefault(int(rows), []).append(gbs)
    out = []
    for s in series.values():         # dicts keep CSV first-appearance order
        s["pts"] = sorted((r, sum(v) / len(v)) for r, v in s["pts"].items())
        out.append(s)
    # Legend order: by section (spmv first), then by first appearance of the
    # `what` in the CSV, 2d before 3d (so the two variants sit together).
    first = {}
    for s in out:
        first.setdefault(s["what"], len(first))
    out.sort(key=lambda s: (SECTIONS.index(s["section"]), first[s["what"]], s["dim"]))
    # Label "what dim"; prefix the section only if a `what` occurs in both.
    sections_of = {}
    for s in out:
        sections_of.setdefault(s["what"], set()).add(s["section"])
    for s in out:
        label = s["what"] + (" " + s["dim"] if s["dim"] else "")
        if len(sections_of[s["what"]]) > 1:
            label = s["section"] + ": " + label
        s["label"] = label
    return copy_b, out


def colour_for(index):
    if index < len(PALETTE):
        return PALETTE[index]
    # Beyond the palette: spread hues deterministically (golden-ratio steps).
    h = (index * 0.618034) % 1.0
    i, f = int(h * 6), (h * 6) % 1.0
    v, p, q, t = 200, 40, int(200 - 160 * f), int(40 + 160 * f)
    return [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i % 6]


# ---------------------------------------------------------------------------
# Axes helpers

def size_label(n):
    """65536 -> '64K', 1048576 -> '1M'."""
    for unit, suffix in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if n >= unit and n % unit == 0:
            return "%d%s" % (n // unit, suffix)
    return str(n)


def y_ticks(top):
    """Pick a 'nice' step (1, 2, 2.5, 5 x 10^k) giving about 5-8 ticks."""
    best = None
    for k in range(int(math.floor(math.log10(top))) - 2, int(math.floor(math.log10(top))) + 2):
        for m in (1, 2, 2.5, 5):
            step = m * 10.0 ** k
            n = int(top / step + 1e-9) + 1          # labelled ticks incl. 0
            score = abs(n - 6) if 5 <= n <= 8 else 10 + abs(n - 6)
            if best is None or score < best[0]:
                best = (score, step)
    step = best[1]
    ticks, i = [], 0
    while i * step <= top * (1 + 1e-9):
        ticks.append(i * step)
        i += 1
    return step, ticks


def fmt_tick(v, step):
    """Format v with as many decimals as the tick step needs (2.5 -> 1)."""
    d = 0
    while d < 6 and abs(round(step, d) - step) > 1e-9 * step:
        d += 1
    return "%.*f" % (d, v)


# ---------------------------------------------------------------------------
# Drawing

def draw_marker(cv, x, y, colour, dim):
    """2d (and unknown): filled square; 3d: hollow diamond."""
    if dim == "3d":
        cv.diamond(x, y, 6, colour)
        cv.diamond(x, y, 3, WHITE)
    else:
        cv.rect(x - 4, y - 4, x + 4, y + 4, colour)


def plot(csv_path, png_path, device):
    copy_b, series = read_results(csv_path)

    # Colours: one per `what`, in legend order.
    colours = {}
    for s in series:
        if s["what"] not in colours:
            colours[s["what"]] = colour_for(len(colours))

    # Legend layout (below the plot), computed first to size the plot area.
    swatch = 44                                   # line sample + marker
    col_w = swatch + 8 + max([text_width(s["label"]) for s in series] or [0]) + 24
    ncols = max(1, min(len(series), (WIDTH - 40) // col_w)) if series else 1
    nrows = (len(series) + ncols - 1) // ncols
    row_h = TEXT_H + 8
    legend_h = nrows * row_h
    # Grow the image downwards if a long legend would squash the plot area.
    # (about 154 px go to title, labels and margins; keep >= 340 px of plot).
    height = max(HEIGHT, 154 + 340 + legend_h)
    cv = Canvas(WIDTH, height)

    # Title (falls back to scale 1 if it would not fit).
    title = "Effective bandwidth against problem size, %s" % device
    tscale = SCALE if text_width(title) <= WIDTH - 20 else 1
    cv.text((WIDTH - text_width(title, tscale)) // 2, 12, title, BLACK, tscale)

    # Value ranges.
    all_pts = [p for s in series for p in s["pts"]]
    ymax = max([g for _, g in all_pts] + ([copy_b] if copy_b else []) or [1.0])
    top = ymax * 1.1
    step, yt = y_ticks(top)
    if all_pts:
        lo = math.log2(min(r for r, _ in all_pts))
        hi = math.log2(max(r for r, _ in all_pts))
    else:
        lo, hi = 16.0, 24.0
    if hi - lo < 2:
        mid = (lo + hi) / 2
        lo, hi = mid - 1, mid + 1
    lo, hi = lo - 0.4, hi + 0.4
    base = 4 if hi - lo > 7 else 2                # tick every octave or every 2 octaves
    first = int(math.ceil(lo / math.log2(base) - 1e-9))
    xt = [base ** k for k in range(first, int(math.floor(hi / math.log2(base) + 1e-9)) + 1)]

    # Plot area.
    ylabels = [fmt_tick(v, step) for v in yt]
    left = 24 + max(text_width(l) for l in ylabels) + 12
    right = WIDTH - 30
    ptop = 12 + TEXT_H + 16 + TEXT_H + 12          # title, "GB/s" label
    pbottom = height - 16 - legend_h - 14 - TEXT_H - 10 - TEXT_H - 10

    def xpix(rows):
        return left + (math.log2(rows) - lo) / (hi - lo) * (right - left)

    def ypix(v):
        return pbottom - v / top * (pbottom - ptop)

    # Grid, ticks and tick labels.
    for v, lab in zip(yt, ylabels):
        y = int(round(ypix(v)))
        cv.rect(left + 1, y, right, y, GRID)
        cv.rect(left - 6, y, left - 1, y, BLACK)
        cv.text(left - 10 - text_width(lab), y - TEXT_H // 2 + SCALE, lab, BLACK)
    for n in xt:
        x = int(round(xpix(n)))
        cv.rect(x, ptop, x, pbottom - 1, GRID)
        cv.rect(x, pbottom + 1, x, pbottom + 6, BLACK)
        lab = size_label(n)
        cv.text(x - text_width(lab) // 2, pbottom + 10, lab, BLACK)
    # Axes box and labels.
    cv.rect(left, ptop, left, pbottom, BLACK)
    cv.rect(left, pbottom, right, pbottom, BLACK)
    cv.rect(right, ptop, right, pbottom, GRID)
    cv.rect(left, ptop, right, ptop, GRID)
    cv.text(max(4, left - text_width("GB/s") // 2), ptop - TEXT_H - 10, "GB/s", BLACK)
    xl = "rows"
    cv.text((left + right - text_width(xl)) // 2, pbottom + 10 + TEXT_H + 10, xl, BLACK)

    # Copy bandwidth reference line.
    if copy_b:
        y = int(round(ypix(copy_b)))
        cv.line(left + 1, y, right - 1, y, COPY_LINE, width=2, dash=(10, 6))
        lab = "copy B = %.0f GB/s" % copy_b
        cv.rect(right - 8 - text_width(lab) - 4, y - TEXT_H - 8,
                right - 8 + 3, y - 4, WHITE)
        cv.text(right - 8 - text_width(lab), y - TEXT_H - 6, lab, COPY_LINE)

    # Series: lines first, then markers on top.
    for s in series:
        c, dash = colours[s["what"]], ((9, 5) if s["dim"] == "3d" else None)
        pts = [(xpix(r), ypix(g)) for r, g in s["pts"]]
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            cv.line(x0, y0, x1, y1, c, width=3, dash=dash)
    for s in series:
        for r, g in s["pts"]:
            draw_marker(cv, int(round(xpix(r))), int(round(ypix(g))), colours[s["what"]], s["dim"])

    if not series:
        msg = "no data"
        cv.text((left + right - text_width(msg)) // 2, (ptop + pbottom - TEXT_H) // 2, msg, BLACK)

    # Legend.
    ly0 = height - 16 - legend_h
    lx0 = (WIDTH - ncols * col_w) // 2 + 12
    for i, s in enumerate(series):
        x = lx0 + (i % ncols) * col_w
        y = ly0 + (i // ncols) * row_h
        c, ym = colours[s["what"]], y + TEXT_H // 2 - 1
        cv.line(x, ym, x + swatch - 4, ym, c, width=3,
                dash=(9, 5) if s["dim"] == "3d" else None)
        draw_marker(cv, x + (swatch - 4) // 2, ym, c, s["dim"])
        cv.text(x + swatch + 8, y, s["label"], BLACK)

    cv.write_png(png_path)


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    plot(argv[1], argv[2], argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
