#!/usr/bin/env python3
"""The gallery: every report of karted for the example data, in one HTML page.

usage: tests/gallery.py --karted build/karted [--out build/gallery]

Starts a karted on a loopback port with a temporary database, posts the
example runs of tests/data/examples.json, fetches each report as SVG, PNG
and PDF at the default size and the SVG again at column width (480 x 360,
as a paper prints it), and writes OUT/index.html showing them side by side
with their API calls. Open it in a browser to look at every chart at once.
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
        s, b, _ = k.request("POST", "/api/v1/runs", ex["runs"], token=k.token("gallery"))
        if s != 201:
            raise SystemExit(f"gallery: posting the example runs -> {s}: {b}")
        rows = []
        for name, method, path, caption in ex["reports"]:
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
<figure><img src="{name}-column.svg" alt="{name} at column width"><figcaption>480 × 360: at a paper's column width</figcaption></figure></div></section>""")
    finally:
        k.stop()
    with open(os.path.join(a.out, "index.html"), "w") as f:
        f.write("""<!doctype html><meta charset="utf-8"><title>karte gallery</title>
<style>body{font:15px/1.4 sans-serif;margin:2em;color:#222}section{margin:2em 0;border-top:1px solid #ddd}
.row{display:flex;gap:2em;flex-wrap:wrap;align-items:flex-start}figure{margin:0}img{border:1px solid #eee}
code{background:#f4f4f4;padding:0 .3em}</style>
<h1>karte gallery</h1><p>Every report karted draws, for the example data of
<code>tests/data/examples.json</code>; made by <code>make gallery</code>.</p>
""" + "\n".join(rows) + "\n")
    print(f"gallery: {len(rows)} reports in {os.path.join(a.out, 'index.html')}")


if __name__ == "__main__":
    main()
