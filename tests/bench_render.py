#!/usr/bin/env python3
"""make bench: karte's chart rendering against matplotlib on the same chart.

usage: tests/bench_render.py --build build

The tau-chi isoefficiency chart of 10,000 runs (100 p x 100 n, the data of
tests/bench/bench_chart.c), as SVG:
- render only: karte's report build and Cairo/Pango render (median of
  bench_chart's rounds) against matplotlib's figure and savefig in one
  warm Python process (median of 7 after a warm-up);
- whole process: `karte plot isoefficiency --csv` against a Python process
  that imports matplotlib, reads the same CSV and writes the SVG (median of 5).
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

MPL = os.path.join(ROOT, "tests", "bench", "mpl_isoefficiency.py")
PY = "/usr/bin/python3"  # Debian's, with Debian's matplotlib


def timed(cmd, rounds=5):
    subprocess.run(cmd, check=True, capture_output=True)  # warm-up
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    a = ap.parse_args()
    b = os.path.join(ROOT, a.build)
    out = subprocess.run([os.path.join(b, "bench", "bench_chart")], check=True, capture_output=True, text=True).stdout
    ours = float(re.search(r"render step: ([\d.]+) ms", out).group(1))
    mpl = float(subprocess.run([PY, MPL, "--rounds", "7"], check=True, capture_output=True, text=True).stdout)
    print(f"render only, tau-chi SVG of 10,000 runs: karte {ours:.1f} ms, matplotlib {mpl:.1f} ms: "
          f"karte {mpl / ours:.1f}x faster; goal >= 30x")
    d = temp_dir("karte-bench-render-")
    csv = os.path.join(d, "runs.csv")
    with open(csv, "w") as f:
        f.write("p,n,tau,chi\n")
        for i in range(100):
            for j in range(100):
                p, n = 1 + j, 1e4 * 1.08 ** i
                f.write(f"{p},{n!r},{n * 1e-5 / p + 0.02 * math.sqrt(p)!r},{0.02 * math.sqrt(p)!r}\n")
    tk = timed([os.path.join(b, "karte"), "plot", "isoefficiency", "--csv", csv, "-o", os.path.join(d, "k.svg")])
    tm = timed([PY, MPL, "--csv", csv, "-o", os.path.join(d, "m.svg")])
    print(f"whole process, CSV to SVG: karte {tk * 1000:.0f} ms, matplotlib {tm * 1000:.0f} ms: "
          f"karte {tm / tk:.1f}x faster")


if __name__ == "__main__":
    main()
