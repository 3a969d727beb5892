#!/usr/bin/env python3
"""Effective bandwidth against matrix rows, from the CSV that `make bench` writes.

One line per product (spmv, circles) and per CG iteration (cg, squares) series of the CSV, 2D
(solid) and 3D (dashed) problems apart, the GB/s each moved (linear) against its rows (logarithmic), and a dashed line at the
device copy bandwidth B measured in the same run. Runs on the development machine: needs
matplotlib (Debian's python3-matplotlib, or matplotlib from PyPI); `make plot` calls it.

Usage: python3 bench/plot.py results.csv bandwidth.png [device]
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(csv_path, png_path, device=None):
    series, copy = defaultdict(list), None
    for r in csv.DictReader(open(csv_path, newline="")):
        if r["section"] == "device" and not device:
            device = r["what"]
        elif r["section"] == "copy":
            copy = float(r["gbs"])
        elif r["section"] in ("spmv", "cg") and r["gbs"]:
            dim = r["problem"].split("-")[0]
            series[(r["section"], r["what"], dim)].append((int(r["rows"]), float(r["gbs"])))
    fig, ax = plt.subplots(figsize=(11, 6.5))
    whats = list(dict.fromkeys(what for _, what, _ in series))  # a colour per series name, 2D and 3D alike
    colours = plt.get_cmap("tab20").colors
    for (section, what, dim), pts in series.items():
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "-" if dim == "2d" else "--", marker="o" if section == "spmv" else "s", markersize=3, color=colours[whats.index(what) % len(colours)], label=f"{section} {what} {dim}")
    if copy:
        ax.axhline(copy, color="0.3", linestyle=":", label=f"device copy B = {copy:.0f} GB/s")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("matrix rows")
    ax.set_ylabel("effective bandwidth (GB/s)")
    ax.set_title("Products and CG iterations against the copy bandwidth" + (f", {device}" if device else ""))
    ax.grid(True, which="both", color="0.9")
    ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(png_path, dpi=100, metadata={"Software": None})


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.split("\n\n")[-1])
    main(*sys.argv[1:])
