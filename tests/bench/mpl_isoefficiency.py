#!/usr/bin/python3
"""The tau-chi isoefficiency chart of make bench's 10,000 runs, drawn with
matplotlib as a plotting script would: markers coloured by p, log-log axes,
the isoefficiency lines eps = 0 ... 0.9 labelled, a legend, SVG out. The
baseline karte's render is measured against (tests/bench_render.py).

usage: mpl_isoefficiency.py --rounds N        render-only: median ms of N after a warm-up
       mpl_isoefficiency.py --serve           after a warm-up, one render per line of standard
                                              input ("tight" or "plain"), its ms on a line out
       mpl_isoefficiency.py --csv F -o OUT    one chart from a CSV (p, n, tau, chi), whole process

"tight" saves with bbox_inches="tight" (a plotting script's habit: matplotlib
then draws the figure twice, once to measure it); "plain" without.
"""
import argparse
import io
import math
import statistics
import sys
import time

import matplotlib
matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402


def series():
    """The runs of tests/bench/bench_chart.c: 100 p x 100 n."""
    out = []
    for i in range(100):
        for j in range(100):
            p, n = 1 + j, 1e4 * 1.08 ** i
            out.append((p, n, n * 1e-5 / p + 0.02 * math.sqrt(p), 0.02 * math.sqrt(p)))
    return out


def draw(runs, out, tight=True):
    fig, ax = plt.subplots(figsize=(8, 6), dpi=100)
    ps = [r[0] for r in runs]
    ax.scatter([r[2] for r in runs], [r[3] for r in runs], c=[math.log(p) for p in ps], cmap="viridis",
               s=12, edgecolors="black", linewidths=0.3, zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    lo, hi = min(r[2] for r in runs), max(r[2] for r in runs)
    for k in range(10):
        eps = k / 10
        ax.plot([lo, hi], [(1 - eps) * lo, (1 - eps) * hi], color="black" if k == 0 else "grey",
                lw=1.6 if k == 0 else 0.7, ls="-" if k == 0 else "--", zorder=1)
        ax.text(hi, (1 - eps) * hi, f"ε={eps:.1f}", fontsize=7, color="grey", ha="right", va="bottom")
    ax.set_xlabel("τ, parallel time (s)")
    ax.set_ylabel("χ, overhead time (s)")
    ax.set_title("τ–χ isoefficiency: bench:md")
    ax.grid(True, which="major", color="#e0e0e0")
    cmap = matplotlib.colormaps["viridis"]
    for p in (1, 20, 40, 60, 80, 100):
        ax.plot([], [], "o", color=cmap(math.log(p) / math.log(100)), label=f"p = {p}")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    fig.savefig(out, format="svg", bbox_inches="tight" if tight else None)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--serve", action="store_true")
    ap.add_argument("--csv")
    ap.add_argument("-o", dest="out")
    ap.add_argument("--plain", action="store_true", help='save without bbox_inches="tight"')
    a = ap.parse_args()
    if a.serve:
        runs = series()
        draw(runs, io.BytesIO(), True)  # warm-up: fonts, caches
        draw(runs, io.BytesIO(), False)
        for line in sys.stdin:
            t0 = time.perf_counter()
            draw(runs, io.BytesIO(), line.strip() != "plain")
            print(f"{(time.perf_counter() - t0) * 1000:.3f}", flush=True)
        return
    if a.rounds:
        runs = series()
        draw(runs, io.BytesIO())  # warm-up: fonts, caches
        times = []
        for _ in range(a.rounds):
            t0 = time.perf_counter()
            draw(runs, io.BytesIO())
            times.append(time.perf_counter() - t0)
        print(f"{statistics.median(times) * 1000:.1f}")
        return
    with open(a.csv) as f:
        next(f)
        runs = [tuple(float(x) for x in line.split(",")[:4]) for line in f if line.strip()]
    draw(runs, a.out, not a.plain)


if __name__ == "__main__":
    sys.exit(main())
