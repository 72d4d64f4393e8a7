#!/usr/bin/env python3
"""The documents against the code: every route karted serves (the route
tables in server/api/api_*.c) has its row in docs/api.md, every relative link
of README.md and docs/*.md resolves (file and #anchor), and no tracked file
sends a reader to the folder beside the checkout that a user's clone lacks. Prints 'docs: N passed, M failed' last."""
import glob
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
        routes |= set(re.findall(r'\{"(GET|POST|PUT|DELETE)", "(/api/[^"]*)"', f.read()))
check(len(routes) >= 20, f"route tables found ({len(routes)})")
with open(os.path.join(ROOT, "docs", "api.md")) as f:
    api = f.read()
for method, path in sorted(routes):
    check(f"| `{method}` | `{path}` |" in api, f"docs/api.md lists {method} {path}")

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
tracked = subprocess.run(["git", "grep", "-l", "-F", "-e", beside, "--", "."], cwd=ROOT, capture_output=True,
                         text=True).stdout.split()
check(tracked == [], f"no tracked file refers to the folder beside the checkout ({tracked})")
print(f"docs: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
