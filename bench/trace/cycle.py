#!/usr/bin/env python3
"""Each kernel of a V-cycle from a gktrace.c trace of `bench -mode vcycle -vcycle_runs 3d-gamg` (one
cycle's runs: as applied, then replayed from a graph, then its levels' products): the cycles as applied
are the last CYCLES x LAUNCHES kernels outside a graph before the first kernel of a graph, the replayed
ones the last CYCLES x LAUNCHES kernels of graphs. A kernel's cost is the time from the end of the
kernel before it to its own end (launched overlapped, a kernel starts before the one before it ends,
so its start says little), the mean over the cycles.

usage: cycle.py TRACE LAUNCHES [CYCLES]   (LAUNCHES: the bench's launches= for the cycle; CYCLES: 20)
"""
import subprocess
import sys


def main():
    path, per = sys.argv[1], int(sys.argv[2])
    ncyc = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    rows = []
    for line in open(path):
        p = line.rstrip("\n").split(",", 7)
        if p[0] in ("K", "C", "S"):
            rows.append((int(p[1]), int(p[2]), int(p[4]), int(p[6]), p[7]))
    rows.sort()
    graph = [r for r in rows if r[3]]
    if len(graph) < per * ncyc:
        sys.exit("cycle.py: %d kernels in graphs, fewer than %d cycles of %d" % (len(graph), ncyc, per))
    applied = [r for r in rows if not r[3] and r[0] < graph[0][0]][-per * ncyc:]
    graph = graph[-per * ncyc:]
    names = sorted({r[4] for r in rows})
    try:
        dem = subprocess.run(["c++filt", "-p"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
        dem = dict(zip(names, dem))
    except OSError:
        dem = {n: n for n in names}

    def costs(ks):
        cyc = [ks[c * per:(c + 1) * per] for c in range(ncyc)]
        tot = [0.0] * per
        for c in range(1, ncyc):
            prev = cyc[c - 1][-1][1]
            for i, k in enumerate(cyc[c]):
                tot[i] += k[1] - prev
                prev = k[1]
        span = sum(c[-1][1] - c[0][0] for c in cyc) / ncyc / 1e3
        return [t / (ncyc - 1) / 1e3 for t in tot], span

    ca, sa = costs(applied)
    cg, sg = costs(graph)
    print("cycle span (us, mean of %d): as applied %.1f, replayed %.1f" % (ncyc, sa, sg))
    print("%3s %-48s %6s %9s %9s" % ("#", "kernel", "grid", "applied", "replayed"))
    for i in range(per):
        k = applied[i]
        print("%3d %-48s %6d %9.2f %9.2f" % (i, dem[k[4]][:48], k[2], ca[i], cg[i]))


if __name__ == "__main__":
    main()
