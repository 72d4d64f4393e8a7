#!/usr/bin/env python3
"""karted's HTTP API as data: every tests/http/*.http file is a list of
requests and the answers they must get, run in order against a karted of
its own (a fresh SQLite file, or PostgreSQL with --backend postgresql).
The format is in tests/http/README.md.

usage: tests/http_cases.py --karted build/karted [-k WORD] [FILE ...]
prints 'ok'/'FAIL' per case and 'http: N passed, M failed' last.
"""
import argparse
import glob
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import openapi_check  # noqa: E402
from karted_proc import Karted, Suite, add_backend_option, use_backend  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "http")
REL = 1e-9      # numbers match to this relative difference (or 1e-12 absolute)


class Case:
    def __init__(self, file, line, title):
        self.file, self.line, self.title = file, line, title
        self.method = self.path = None
        self.headers = {}
        self.body = []
        self.status = None
        self.expect_headers = {}
        self.expect = []


def parse(path):
    """The cases of one file, in order."""
    cases, c, part = [], None, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for no, line in enumerate(lines, 1):
        if line.startswith("### "):
            c = Case(path, no, line[4:].strip())
            cases.append(c)
            part = "request"
            continue
        if c is None:
            continue    # the file's own words before its first case
        if part == "request":
            if not line.strip():
                continue
            m = re.fullmatch(r"(GET|POST|PUT|DELETE|PATCH|HEAD) (\S+)", line)
            if not m:
                raise SyntaxError(f"{path}:{no}: a case starts with METHOD /path, got {line!r}")
            c.method, c.path = m.groups()
            part = "headers"
        elif part == "headers":
            m = re.fullmatch(r"([A-Za-z][A-Za-z0-9-]*): (.*)", line)
            if m and not line.startswith("{"):
                c.headers[m.group(1)] = m.group(2)
                continue
            part = "body"
        if part == "body":
            m = re.fullmatch(r"=> (\d{3})", line)
            if m:
                c.status = int(m.group(1))
                part = "expect_headers"
            else:
                c.body.append(line)
        elif part == "expect_headers":
            m = re.fullmatch(r"([A-Za-z][A-Za-z0-9-]*): (.*)", line)
            if m:
                c.expect_headers[m.group(1)] = m.group(2)
            else:
                c.expect.append(line)
                part = "expect"
        elif part == "expect":
            c.expect.append(line)
    for c in cases:
        if c.status is None:
            raise SyntaxError(f"{path}:{c.line}: case '{c.title}' has no '=> STATUS' line")
    return cases


def substitute(text, env):
    """$NAME of a value captured before (or $TOKEN), in a request."""
    return re.sub(r"\$([A-Za-z_][A-Za-z0-9_]*)", lambda m: str(env[m.group(1)]) if m.group(1) in env
                  else m.group(0), text)


def match(want, got, where, env):
    """Whether got holds what want says: objects by their keys (others may
    be there too), arrays item by item and of the same length, numbers to
    REL, "~REGEX" a string that matches, "*" anything present, "=>NAME"
    anything, kept as $NAME; an array ending in "..." holds the items given
    among others, in any order. Returns the first difference, or None."""
    if isinstance(want, str) and want.startswith("=>"):
        env[want[2:]] = got
        return None
    if want == "*":
        return None
    if isinstance(want, str) and want.startswith("~"):
        if isinstance(got, str) and re.search(want[1:], got):
            return None
        return f"{where}: {got!r} does not match /{want[1:]}/"
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f"{where}: want an object, got {json.dumps(got)[:200]}"
        for k, v in want.items():
            if k.startswith("!"):
                if k[1:] in got:
                    return f"{where}.{k[1:]}: should be absent, is {json.dumps(got[k[1:]])[:100]}"
                continue
            if k not in got:
                return f"{where}.{k}: missing (have {sorted(got)})"
            d = match(v, got[k], f"{where}.{k}", env)
            if d:
                return d
        return None
    if isinstance(want, list) and want and want[-1] == "...":
        if not isinstance(got, list):
            return f"{where}: want an array, got {json.dumps(got)[:200]}"
        for i, w in enumerate(want[:-1]):
            if not any(match(w, g, where, dict(env)) is None for g in got):
                return f"{where}: no item holds {json.dumps(w)[:200]}"
            next(match(w, g, where, env) for g in got if match(w, g, where, dict(env)) is None)
        return None
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return f"{where}: want {len(want)} items, got {json.dumps(got)[:200]}"
        for i, (w, g) in enumerate(zip(want, got)):
            d = match(w, g, f"{where}[{i}]", env)
            if d:
                return d
        return None
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        if isinstance(got, (int, float)) and not isinstance(got, bool) and \
                math.isclose(got, want, rel_tol=REL, abs_tol=1e-12):
            return None
        return f"{where}: want {want!r}, got {got!r}"
    if want != got:
        return f"{where}: want {want!r}, got {json.dumps(got)[:200]}"
    return None


def run_case(k, c, env):
    headers = {n: substitute(v, env) for n, v in c.headers.items()}
    body = substitute("\n".join(c.body).strip("\n"), env)
    if body:
        body = body + ("\n" if "ndjson" in headers.get("Content-Type", "") else "")
        headers.setdefault("Content-Type", "application/json")
    headers = {n: v for n, v in headers.items() if v != "(none)"}
    status, got, got_headers = k.request(c.method, substitute(c.path, env), body.encode() if body else None,
                                         ctype=None, headers=headers)
    if status != c.status:
        raise AssertionError(f"status {status}, want {c.status}: {json.dumps(got)[:300] if not isinstance(got, bytes) else got[:100]}")
    for n, v in c.expect_headers.items():
        v = substitute(v, env)
        have = next((x for h, x in got_headers.items() if h.lower() == n.lower()), None)
        if have is None or (not re.search(v[1:], have) if v.startswith("~") else have != v):
            raise AssertionError(f"header {n}: {have!r}, want {v!r}")
    want_text = substitute("\n".join(c.expect).strip(), env)
    if want_text:
        want = json.loads(want_text)
        d = match(want, got, "answer", env)
        if d:
            raise AssertionError(d)


def run_file(binary, path, cases):
    """Every case of one file against a karted of its own: (passed, failed)."""
    name = os.path.basename(path)
    k = Karted(binary).start()
    env = {"TOKEN": k.token("http-cases")}
    passed = failed = 0
    try:
        for c in cases:
            try:
                openapi_check.take_problems()
                run_case(k, c, env)
                off = openapi_check.take_problems()
                if off:
                    raise AssertionError(f"the answer differs from docs/openapi.json: {'; '.join(off[:5])}")
                passed += 1
                print(f"ok   {name}:{c.line} {c.title}", flush=True)
            except AssertionError as e:
                failed += 1
                print(f"FAIL {name}:{c.line} {c.title}: {e}", flush=True)
    finally:
        rc = k.stop()
    if rc != 0:
        failed += 1
        print(f"FAIL {name}: karted exited with {rc}: {k.stderr[-2000:]}")
    return passed, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--karted", required=True, help="the karted binary to test")
    ap.add_argument("-k", dest="only", help="run only the files whose name contains this")
    ap.add_argument("files", nargs="*", help="case files (default: every tests/http/*.http)")
    add_backend_option(ap)
    args = ap.parse_args()
    suite = Suite("http")
    use_backend(args, suite)
    passed = failed = 0
    for path in args.files or sorted(glob.glob(os.path.join(HERE, "*.http"))):
        if args.only and args.only not in os.path.basename(path):
            continue
        p, f = run_file(os.path.abspath(args.karted), path, parse(path))
        passed += p
        failed += f
    if not args.files and not args.only:
        # every operation of the description answered 2xx in some case and was
        # held to its schema
        missing = sorted({(m.upper(), p) for p, item in openapi_check.spec()["paths"].items() for m in item}
                         - openapi_check.COVERED)
        if missing:
            failed += 1
            print(f"FAIL every operation of docs/openapi.json answered 2xx in a case: not {missing}")
        else:
            passed += 1
            print(f"ok   every operation of docs/openapi.json answered 2xx in a case ({len(openapi_check.COVERED)})")
    print(f"{suite.name}: {passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
