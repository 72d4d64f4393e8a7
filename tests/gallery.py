#!/usr/bin/env python3
"""The gallery: every report of karted for the example data, in one HTML page.

usage: tests/gallery.py --karted build/karted [--out build/gallery]

Starts a karted on a loopback port with a temporary database, posts the
example runs of tests/data/examples.json and a crowded case made here
(three series of 6 p x 6 n: 18 lines on one chart), fetches each report as
SVG, PNG and PDF at the default size and the SVG again at column width
(480 x 360, as a paper prints it), and writes OUT/index.html showing them
side by side with their API calls, each also in greyscale (as a printer
without colour shows it). Open it in a browser to look at every chart at
once.
"""
import argparse
import html
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import Karted, ROOT  # noqa: E402


def fetch(k, method, path, body):
    s, b, _ = k.request(method, path, json.dumps(body) if body is not None else None, timeout=60)
    if s != 200:
        raise SystemExit(f"gallery: {method} {path} -> {s}: {b}")
    return b


# The crowded case: three machines, 6 p x 6 n each. tau = gamma + chi with
# gamma = n / (100 p) (the work shared) and chi = c sqrt(p) log2(n) / 10 (the
# overhead), c per machine: every (series, n) a line of its own.
GRID_P = [4, 8, 16, 32, 64, 128]
GRID_N = [1000, 2000, 4000, 8000, 16000, 32000]
GRID = {"A": 1.0, "B": 1.6, "C": 2.5}


def grid_runs():
    out = []
    for system, c in GRID.items():
        for p in GRID_P:
            for n in GRID_N:
                gamma = n / (100 * p)
                chi = c * p ** 0.5 * (n.bit_length() - 1) / 10
                out.append({"system": system, "application": "stencil", "p": p, "n": n,
                            "tau": round(gamma + chi, 6), "chi": round(chi, 6)})
    return out


def tree_runs():
    """A call tree over p = 1..64, 3 repetitions at +-1 %: solve 40/p, its
    MPI_Allreduce 0.05 log2(p), its halo exchange 0.01 sqrt(p), io 0.5 s."""
    import math
    out = []
    for p in (1, 2, 4, 8, 16, 32, 64):
        paths = {("solve",): 40 / p + 0.05 * math.log2(p) + 0.01 * p ** 0.5,
                 ("solve", "MPI_Allreduce"): 0.05 * math.log2(p) + 0.001,
                 ("solve", "halo"): 0.01 * p ** 0.5, ("io",): 0.5, ("init",): 2 / p}
        for f in (0.99, 1.0, 1.01):
            regs = [dict(name=k[-1], time_s=round(v * f, 9), **({"path": list(k)} if len(k) > 1 else {}))
                    for k, v in paths.items()]
            tau = round((paths[("solve",)] + 0.5 + 2 / p + 0.01) * f, 9)
            out.append({"system": "T", "application": "tree", "p": p, "n": 1000, "tau": tau, "regions": regs})
    return out


GRID_SERIES = "series=A:stencil&series=B:stencil&series=C:stencil"
MORE_REPORTS = [
    ["scaling", "GET", "/api/v1/reports/scaling.{fmt}?system=SP2&application=md",
     "τ and speedup against p from τ alone, one line per n"],
    ["model", "GET", "/api/v1/reports/model.{fmt}?system=SP2&application=md&n=39200",
     "Extra-P's model of τ at n = 39 200 with its 95 % band; the title names the fixed n"],
    ["model-resource", "GET", "/api/v1/reports/model.{fmt}?system=SP2&application=md&n=39200&resource=true",
     "the same modelled as p × τ: the reading named in the title"],
    ["isoefficiency-many-n", "GET", "/api/v1/reports/isoefficiency.{fmt}?system=A&application=stencil",
     "one series of 6 p x 6 n: colour by p, shape by n, each named"],
    ["isoefficiency-function", "GET", "/api/v1/reports/isoefficiency-function.{fmt}?system=A&application=stencil",
     "the isoefficiency function from the models of W and To"],
    ["isoefficiency-crowded", "GET", "/api/v1/reports/isoefficiency.{fmt}?" + GRID_SERIES,
     "three series of 6 p x 6 n: colour and dash by series, shape by n, every (series, n) named"],
    ["efficiency-crowded", "GET", "/api/v1/reports/efficiency.{fmt}?" + GRID_SERIES,
     "18 lines: colour and dash by series, shape by n, every (series, n) named"],
    ["scaling-crowded", "GET", "/api/v1/reports/scaling.{fmt}?" + GRID_SERIES + "&second=efficiency",
     "τ and the efficiency relative to the smallest p, 18 lines"],
    ["model-compare", "GET", "/api/v1/reports/model.{fmt}?" + GRID_SERIES + "&metric=chi&n=8000",
     "the models of χ of three series at n = 8000"],
    ["regions", "GET", "/api/v1/reports/regions.{fmt}?system=T&application=tree",
     "which part does not scale: the top call paths' time with their models, dashed to 8 × the largest p, "
     "and their shares of τ there"],
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--karted", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "gallery"))
    a = ap.parse_args()
    with open(os.path.join(ROOT, "tests", "data", "examples.json")) as f:
        ex = json.load(f)
    os.makedirs(a.out, exist_ok=True)
    k = Karted(a.karted, args=["--no-first-token"]).start()
    try:
        token = k.token("gallery")
        for runs in (ex["runs"], grid_runs(), tree_runs()):
            s, b, _ = k.request("POST", "/api/v1/runs", runs, token=token)
            if s != 201:
                raise SystemExit(f"gallery: posting the example runs -> {s}: {b}")
        rows = []
        for name, method, path, caption in ex["reports"] + MORE_REPORTS:
            body = ex.get(name) if method == "POST" else None
            for fmt in ("svg", "png", "pdf"):
                with open(os.path.join(a.out, f"{name}.{fmt}"), "wb") as f:
                    f.write(fetch(k, method, path.replace("{fmt}", fmt), body))
            small = path.replace("{fmt}", "svg") + ("&" if "?" in path else "?") + "width=480&height=360"
            with open(os.path.join(a.out, f"{name}-column.svg"), "wb") as f:
                f.write(fetch(k, method, small, body))
            call = f"{method} {path.replace('{fmt}', 'svg')}"
            rows.append(f"""<section><h2>{html.escape(name)}</h2><p>{html.escape(caption)}<br><code>{html.escape(call)}</code>
{'(body: the <code>' + name + '</code> object of tests/data/examples.json)' if body is not None else ''}</p>
<div class="row"><figure><img src="{name}.svg" alt="{name} as SVG"><figcaption>SVG in the browser (<a href="{name}.png">PNG</a>, <a href="{name}.pdf">PDF</a>)</figcaption></figure>
<figure><img src="{name}-column.svg" alt="{name} at column width"><figcaption>480 × 360: at a paper's column width</figcaption></figure>
<figure><img class="grey" src="{name}.svg" alt="{name} in greyscale"><figcaption>in greyscale: every line still told apart</figcaption></figure></div></section>""")
    finally:
        k.stop()
    with open(os.path.join(a.out, "index.html"), "w") as f:
        f.write("""<!doctype html><meta charset="utf-8"><title>karte gallery</title>
<style>body{font:15px/1.4 sans-serif;margin:2em;color:#222}section{margin:2em 0;border-top:1px solid #ddd}
.row{display:flex;gap:2em;flex-wrap:wrap;align-items:flex-start}figure{margin:0}img{border:1px solid #eee}
code{background:#f4f4f4;padding:0 .3em}img.grey{filter:grayscale(1)}</style>
<h1>karte gallery</h1><p>Every report karted draws, for the example data of
<code>tests/data/examples.json</code> and a crowded case of three series of 6 p × 6 n
(tests/gallery.py); made by <code>make gallery</code>.</p>
""" + "\n".join(rows) + "\n")
    print(f"gallery: {len(rows)} reports in {os.path.join(a.out, 'index.html')}")


if __name__ == "__main__":
    main()
