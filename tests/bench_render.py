#!/usr/bin/env python3
"""make bench: karte's chart rendering against matplotlib on the same chart.

usage: tests/bench_render.py --build build

The tau-chi isoefficiency chart of 10,000 runs (100 p x 100 n, the data of
tests/bench/bench_chart.c), as SVG:
- render only: karte's report build and Cairo/Pango render against
  matplotlib's figure and savefig, each side in its own warm process
  (bench_chart --serve, mpl_isoefficiency.py --serve), asked for one render
  at a time and alternated pair by pair (who goes first swaps each round);
  matplotlib both with bbox_inches="tight" (which draws the figure twice)
  and without; the ratio of each pair, then their median;
- whole process: `karte plot isoefficiency --csv` against a Python process
  that imports matplotlib, reads the same CSV and writes the SVG, in pairs
  alternated as above; each side's SVG checked after each run.
matplotlib is Debian's python3-matplotlib, run by /usr/bin/python3.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import ROOT, temp_dir  # noqa: E402
import openapi_check  # noqa: E402

openapi_check.ENABLED = False  # a benchmark's clock counts karted, not the suites' schema check

MPL = os.path.join(ROOT, "tests", "bench", "mpl_isoefficiency.py")
PY = "/usr/bin/python3"  # Debian's, with Debian's matplotlib
ROUNDS = 7


def run_once(cmd, out):
    """Run cmd, check that it wrote a non-empty SVG to out: its wall time."""
    if os.path.exists(out):
        os.remove(out)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    dt = time.perf_counter() - t0
    with open(out, "rb") as f:
        if b"<svg" not in f.read(4096):
            raise RuntimeError(f"{cmd[0]} wrote no SVG to {out}")
    return dt


def paired(a, b, rounds=7):
    """Whole processes a and b ((cmd, out) each), in pairs, who goes first
    swapping each round: (median of a, median of b, ratios b / a)."""
    for cmd, out in (a, b):
        run_once(cmd, out)  # warm-up: the page cache, fonts
    ta, tb = [], []
    for rnd in range(rounds):
        if rnd % 2:
            tb.append(run_once(*b))
            ta.append(run_once(*a))
        else:
            ta.append(run_once(*a))
            tb.append(run_once(*b))
    return statistics.median(ta), statistics.median(tb), [y / x for x, y in zip(ta, tb)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    a = ap.parse_args()
    b = os.path.join(ROOT, a.build)
    karte = subprocess.Popen([os.path.join(b, "bench", "bench_chart"), "--serve"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    mpl = subprocess.Popen([PY, MPL, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(proc, line):
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        return float(proc.stdout.readline())
    ratios = {"tight": [], "plain": []}
    times = {"karte": [], "tight": [], "plain": []}
    try:
        for rnd in range(ROUNDS):
            for mode in ("tight", "plain"):
                if rnd % 2:  # who goes first swaps each round
                    m = ask(mpl, mode)
                    k = ask(karte, "render")
                else:
                    k = ask(karte, "render")
                    m = ask(mpl, mode)
                ratios[mode].append(m / k)
                times[mode].append(m)
                times["karte"].append(k)
    finally:
        for proc in (karte, mpl):
            proc.stdin.close()
            proc.wait()
    for mode, how in (("tight", 'bbox_inches="tight"'), ("plain", "without bbox_inches")):
        print(f"render only, tau-chi SVG of 10,000 runs, {ROUNDS} pairs alternated: karte "
              f"{statistics.median(times['karte']):.1f} ms, matplotlib ({how}) "
              f"{statistics.median(times[mode]):.1f} ms; ratio per pair "
              f"{min(ratios[mode]):.1f}x..{max(ratios[mode]):.1f}x, median {statistics.median(ratios[mode]):.1f}x; "
              f"goal >= 30x")
    d = temp_dir("karte-bench-render-")
    csv = os.path.join(d, "runs.csv")
    with open(csv, "w") as f:
        f.write("p,n,tau,chi\n")
        for i in range(100):
            for j in range(100):
                p, n = 1 + j, 1e4 * 1.08 ** i
                f.write(f"{p},{n!r},{n * 1e-5 / p + 0.02 * math.sqrt(p)!r},{0.02 * math.sqrt(p)!r}\n")
    ks, ms = os.path.join(d, "k.svg"), os.path.join(d, "m.svg")
    for flag, how in (([], 'bbox_inches="tight"'), (["--plain"], "without bbox_inches")):
        tk, tm, r = paired(([os.path.join(b, "karte"), "plot", "isoefficiency", "--csv", csv, "-o", ks], ks),
                           ([PY, MPL, "--csv", csv, "-o", ms] + flag, ms))
        print(f"whole process, CSV to SVG, {len(r)} pairs alternated: karte {tk * 1000:.0f} ms, matplotlib "
              f"({how}) {tm * 1000:.0f} ms (medians); ratio per pair {min(r):.1f}x..{max(r):.1f}x, median "
              f"{statistics.median(r):.1f}x")


if __name__ == "__main__":
    main()
