#!/usr/bin/env python3
"""The documents against the code: every route karted serves (the route
tables in server/api/api_*.c) has its row in docs/api.md and its operation in
docs/openapi.json (and the description has nothing more), each operation's
summary is its row's text and each query parameter it declares is named in
docs/api.md; every relative link
of README.md and docs/*.md resolves (file and #anchor), and no tracked file
sends a reader to the folder beside the checkout that a user's clone lacks. Prints 'docs: N passed, M failed' last."""
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failed = passed = 0


def check(cond, what):
    global failed, passed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}")


def slug(heading):
    """The anchor a Markdown renderer (GitHub's rule) gives a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    with open(path) as f:
        return {slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", f.read(), re.M)}


routes = set()
for src in glob.glob(os.path.join(ROOT, "server", "api", "api_*.c")):
    with open(src) as f:
        routes |= set(re.findall(r'\{"(GET|POST|PUT|DELETE)", "(/api/[^"]*|/metrics)"', f.read()))
check(len(routes) >= 20, f"route tables found ({len(routes)})")
with open(os.path.join(ROOT, "docs", "api.md")) as f:
    api = f.read()
for method, path in sorted(routes):
    check(f"| `{method}` | `{path}` |" in api, f"docs/api.md lists {method} {path}")

# docs/openapi.json: the same routes (a route's "{}" is "{id}" there), each
# summary the text of the route's row above, each query parameter named
with open(os.path.join(ROOT, "docs", "openapi.json")) as f:
    spec = json.load(f)
check(spec.get("openapi", "").startswith("3.1."), "docs/openapi.json is OpenAPI 3.1")
described = {(m.upper(), re.sub(r"\{[a-z_]+\}", "{}", p)): op for p, item in spec["paths"].items()
             for m, op in item.items()}
check(set(described) == routes, "docs/openapi.json describes exactly the routes karted serves "
      f"(not described: {sorted(routes - set(described))}; not served: {sorted(set(described) - routes)})")
rows = dict(((m, p), what) for m, p, what in
            re.findall(r"^\| `(GET|POST|PUT|DELETE)` \| `([^`]+)` \| [^|]*\| (.*?) \| \[", api, re.M))


def param(p):
    if "$ref" in p:
        node = spec
        for part in p["$ref"].lstrip("#/").split("/"):
            node = node[part]
        return node
    return p


for (method, path), op in sorted(described.items()):
    check(op.get("summary") == rows.get((method, path)),
          f"docs/openapi.json's summary of {method} {path} is its row in docs/api.md "
          f"({op.get('summary')!r} vs {rows.get((method, path))!r})")
    check(bool(op.get("responses")) and bool(op.get("operationId")), f"{method} {path} has an operationId and answers")
    for p in map(param, op.get("parameters", [])):
        if p["in"] != "query":
            continue
        name = p["name"]
        stem = re.sub(r"\.(KEY|FIELD)$", ".", name)
        check(any(f"{c}{stem}" in api for c in "`&?"), f"docs/api.md names {name}, a parameter of {method} {path}")

docs = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
for doc in docs:
    with open(doc) as f:
        text = f.read()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        file, _, frag = target.partition("#")
        path = os.path.normpath(os.path.join(os.path.dirname(doc), file)) if file else doc
        rel = os.path.relpath(doc, ROOT)
        check(os.path.exists(path), f"{rel}: link {target} resolves")
        if frag and os.path.exists(path):
            check(frag in anchors(path), f"{rel}: anchor #{frag} exists in {os.path.relpath(path, ROOT)}")

beside = "../" + "shared"  # spelt in two parts, so this file does not name it
# the one exception: .ci/run sets KARTE_EXTERNAL_DATA from it when it is there
lines = subprocess.run(["git", "grep", "-n", "-F", "-e", beside, "--", "."], cwd=ROOT, capture_output=True,
                       text=True).stdout.splitlines()
tracked = sorted({x.split(":", 1)[0] for x in lines
                  if not (x.startswith(".ci/run:") and "KARTE_EXTERNAL_DATA" in x)})
check(tracked == [], f"no tracked file refers to the folder beside the checkout ({tracked})")

# No tracked file sends a reader to a file the repository does not hold: a
# path of the tree named in a comment or a document exists (patterns such
# as schema/NNNN_name.sql, and globs, are not paths), and nothing names the
# design notes or the papers' files that lie outside it.
files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
path_re = re.compile(r"(?<![\w/.-])((?:server|analysis|collectors|tests|docs|deploy|schema|static)/"
                     r"[A-Za-z0-9_./-]+\.[a-z0-9]{1,7})")
outside_re = re.compile(r"DESIGN\.md|\bseeds?\s+00\d", re.I)
missing, outside = set(), set()
for f in files:
    if not re.search(r"\.(c|h|cc|py|md|js|mjs|sh|sql|in|service|conf|http)$|Makefile$", f) or \
            f == "tests/docs_check.py":
        continue
    try:
        with open(os.path.join(ROOT, f)) as fh:
            text = fh.read()
    except (UnicodeDecodeError, OSError):
        continue
    for m in path_re.finditer(text):
        path = m.group(1).rstrip(".")
        if "NNNN" not in path and not os.path.exists(os.path.join(ROOT, path)):
            missing.add(f"{f}: {path}")
    if outside_re.search(text):
        outside.add(f)
check(not missing, f"every file of the tree a comment or a document names exists ({sorted(missing)[:8]})")
check(not outside, f"no file names the design notes or the papers' files outside the tree ({sorted(outside)[:8]})")
print(f"docs: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
