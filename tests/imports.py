#!/usr/bin/env python3
"""Import tests: other tools' files through a real karted on a loopback port.

usage: tests/imports.py --karted build/karted [-k NAME]

Every reader of POST /api/v1/import on karte's own files in every format
(tests/data/import, written by its generate.py with values a test can work
out: Extra-P text, JSON lines, saved experiments, Caliper, Thicket, Score-P
Cube sets written by tests/cubex.py; tests/data/geopm) and on hand-made edge
cases (BOM, CRLF, comments, NaN, huge numbers, truncated and non-UTF-8
files), the mapping's choices and its 400s, idempotent repeats, and the
export (GET /api/v1/runs?format=csv|ndjson) imported back into a second
server to the same runs. Other tools' real files are read by
tests/realfiles.py when KARTE_EXTERNAL_DATA names them.
"""
import argparse
import csv
import http.client
import io
import json
import os
import signal
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import Karted, ROOT, Suite, add_backend_option, expect, use_backend  # noqa: E402

SUITE = Suite("imports")
test = SUITE.test
DATA = os.path.join(ROOT, "tests", "data")
OWN = os.path.join(DATA, "import")
import cubex  # noqa: E402


class S:
    k = None
    token = None
    binary = None


def imp(body, token=True, **query):
    """POST a file to /api/v1/import: (status, answer)."""
    if isinstance(body, str) and os.path.exists(body):
        with open(body, "rb") as f:
            body = f.read()
    if isinstance(body, str):
        body = body.encode()
    q = urllib.parse.urlencode(query)
    s, b, _ = S.k.request("POST", "/api/v1/import?" + q, body, ctype="application/x-www-form-urlencoded",
                          token=S.token if token else None, timeout=120)
    return s, b


def raw_get(k, path):
    """GET without parsing: (status, bytes, headers)."""
    host, port = k.host_port
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read(), dict(r.getheaders())
    finally:
        conn.close()


def runs_of(system, application=None, k=None):
    k = k or S.k
    q = {"system": system, "limit": 1000}
    if application:
        q["application"] = application
    s, b, _ = k.request("GET", "/api/v1/runs?" + urllib.parse.urlencode(q))
    expect(s == 200, f"listing ({s})")
    return b["runs"]


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


# ---- Extra-P text ----------------------------------------------------------

STENCIL = os.path.join(OWN, "stencil.txt")


@test
def stencil_needs_a_region_and_says_which():
    s, b = imp(STENCIL, system="rl", application="stencil")
    expect(s == 400 and b["field"] == "region", f"several roots: 400 naming region ({s} {b})")
    expect(b["available"]["roots"] == ["main()", "Setup", "Iterations"],
           f"the roots, by indentation ({b['available']['roots']})")
    expect("'main()'" in b["error"] and "'Iterations'" in b["error"], "listed in the sentence")
    expect(b["available"]["metrics"] == ["time"] and b["available"]["parameters"] == ["p", "n"],
           "metrics and parameters listed")
    expect(runs_of("rl") == [], "nothing stored")


@test
def stencil_main_is_50_runs_and_a_repeat_stores_nothing():
    s, b = imp(STENCIL, system="rl", application="stencil", region="main()")
    expect(s == 201 and b["runs"] == 50 and b["points"] == 25 and b["format"] == "extrap-text",
           f"25 points x 2 repetitions ({s} {b if s != 201 else b['runs']})")
    expect(len(b["ids"]) == 50 and b["regions"] == [], "main() has no region under it")
    got = runs_of("rl", "stencil")
    # p = 32, n = 5000: sweep 1e-6 n^2 / p = 0.78125 (x 1.01 in repetition 2), halo
    # 0.02 log2(p) n / 1000 = 0.5, allreduce 0.001 log2(p)^2 = 0.025, setup 1.0,
    # main() = setup + iterations + 0.05 = 2.35625 and 2.3640625
    first = sorted(x["tau"] for x in got if x["p"] == 32 and x["n"] == 5000)
    expect(first == [2.35625, 2.3640625], f"the first point's two DATA values ({first})")
    # p = 512, n = 9000: sweep 0.158203125, halo 1.62, allreduce 0.081, setup 1.4
    last = sorted(x["tau"] for x in got if x["p"] == 512 and x["n"] == 9000)
    expect(last == [3.309203125, 3.310785156], f"the last point, as written (9 decimals) ({last})")
    expect(all("chi" not in x for x in got), "tau alone")
    s2, b2 = imp(STENCIL, system="rl", application="stencil", region="main()")
    expect(s2 == 200 and b2["ids"] == b["ids"] and b2["stored"] == 0, f"repeat: 200, first ids ({s2})")
    expect(len(runs_of("rl", "stencil")) == 50, "nothing new")
    s3, b3 = imp(STENCIL, system="rl", application="stencil", region="Setup")
    expect(s3 == 201 and not set(b3["ids"]) & set(b["ids"]), "another mapping is another import")


@test
def chi_regions_take_a_leaf_under_every_call_path():
    """chi_regions=MPI_Allreduce takes every call path whose leaf it is,
    MPI_* every MPI call; a path nested under another chosen one counts
    once; the warnings say how many paths a name took when it took several
    (one is what was asked: no warning); an unknown name
    is refused with the region's names listed whole, never cut short."""
    lines = []
    for p in (2, 4, 8):
        for path, v in (("main", 10.0), ("main->solve", 6.0), ("main->solve->MPI_Allreduce", 1.0),
                        ("main->solve->MPI_Irecv", 0.5), ("main->io", 2.0), ("main->io->MPI_Allreduce", 0.25),
                        ("main->io->MPI_File_write", 1.0), ("main->io->MPI_File_write->MPI_Allreduce", 0.125),
                        ("main->" + "a_routine_with_a_long_name_" * 4, 0.1)):
            lines.append(json.dumps({"params": {"p": p}, "callpath": path, "metric": "time", "value": v}))
    body = "\n".join(lines) + "\n"
    s, b = imp(body, system="chi", application="leaf", format="extrap-jsonl", region="main", n_value=1,
               chi_regions="MPI_Allreduce")
    x = runs_of("chi", "leaf")[0] if s == 201 else {}
    # main->solve->MPI_Allreduce 1 + main->io->MPI_Allreduce 0.25; the one under MPI_File_write too (0.125)
    expect(s == 201 and x.get("chi") == 1.375 and "chi_regions: 'MPI_Allreduce' took 3 call paths" in b["warnings"],
           f"every MPI_Allreduce, said ({x.get('chi')} {b.get('warnings')})")
    s, b = imp(body, system="chi", application="prefix", format="extrap-jsonl", region="main", n_value=1,
               chi_regions="MPI_*")
    x = runs_of("chi", "prefix")[0] if s == 201 else {}
    # MPI_Allreduce 1 + MPI_Irecv 0.5 + io's MPI_Allreduce 0.25 + MPI_File_write 1 (its nested
    # MPI_Allreduce counted once, inside it)
    expect(s == 201 and x.get("chi") == 2.75 and "chi_regions: 'MPI_*' took 5 call paths" in b["warnings"],
           f"MPI_*: every MPI call, nested ones once ({x.get('chi')} {b.get('warnings')})")
    s, b = imp(body, system="chi", application="whole", format="extrap-jsonl", region="main", n_value=1,
               gamma_regions="main->solve")
    x = runs_of("chi", "whole")[0] if s == 201 else {}
    expect(s == 201 and x.get("chi") == 4.0 and not any("gamma_regions" in w for w in b.get("warnings", [])),
           f"a whole path as before: gamma 6, chi 4, no warning ({x.get('chi')} {b})")
    s, b = imp(body, system="chi", application="one", format="extrap-jsonl", region="main", n_value=1,
               chi_regions="MPI_Irecv")
    x = runs_of("chi", "one")[0] if s == 201 else {}
    expect(s == 201 and x.get("chi") == 0.5 and not any("chi_regions" in w for w in b.get("warnings", [])),
           f"a leaf with one call path: nothing to warn of ({x.get('chi')} {b.get('warnings')})")
    s, b = imp(body, system="chi", application="none", format="extrap-jsonl", region="main", n_value=1,
               chi_regions="MPI_Waitall")
    long_name = "a_routine_with_a_long_name_" * 4
    expect(s == 400 and b["field"] == "chi_regions" and f"'{long_name}'" in b["error"]
           and "'MPI_File_write'" in b["error"], f"unknown: the names listed whole ({b})")


@test
def stencil_children_become_regions_by_leaf_name():
    s, b = imp(STENCIL, system="rl", application="loop", region="Iterations",
               chi_regions="Halo exchange (MPI_Sendrecv),Residual (MPI_Allreduce)")
    expect(s == 201 and b["regions"] == ["Halo exchange (MPI_Sendrecv)", "Stencil sweep",
                                         "Residual (MPI_Allreduce)", "Stencil sweep->Boundary"],
           f"every call path under the region, level by level ({b})")
    x = next(v for v in runs_of("rl", "loop") if v["p"] == 512 and v["n"] == 9000 and v["tau"] < 1.86)
    reg = {r["name"]: r["time_s"] for r in x["regions"]}
    nested = [r for r in x["regions"] if "path" in r]
    expect([r["path"] for r in nested] == [["Stencil sweep", "Boundary"]] and nested[0]["name"] == "Boundary"
           and 0 < nested[0]["time_s"] <= reg["Stencil sweep"], f"Boundary under Stencil sweep ({nested})")
    # Iterations at (512, 9000), repetition 1: 0.158203125 + 1.62 + 0.081
    expect(x["tau"] == 1.859203125 and reg["Stencil sweep"] == 0.158203125, f"values of the point ({x})")
    expect(close(x["chi"], 1.62 + 0.081), f"chi_regions summed into chi ({x['chi']})")
    s, b = imp(STENCIL, system="rl", application="loop2", region="Boundary")
    expect(s == 201 and b["runs"] == 50, "a nested region by its leaf name")
    s, b = imp(STENCIL, system="rl", application="x", region="nope")
    expect(s == 400 and b["field"] == "region" and "'Iterations->Stencil sweep'" in b["error"],
           f"unknown region: the file's regions listed ({b})")


@test
def the_whole_call_tree_within_a_run_s_limits():
    """Every call path under the region becomes a run region with its path,
    level by level: a chain 40 deep keeps 32 levels; 5000 leaves under one
    node keep the shallowest 4096 paths a run may hold; the warnings count
    what was left out, with what is under it."""
    def tree(wide):
        lines = []
        for p in (2, 4, 8):
            def add(path, v):
                lines.append(json.dumps({"params": {"p": p}, "callpath": path, "metric": "time", "value": v}))
            add("main", 100.0)
            add("main->solve", 50.0)
            add("main->solve->MPI_Allreduce", 1.0 * p)
            add("main->io", 2.0)
            add("main->io->MPI_Allreduce", 0.5)
            chain = "main->deep"
            for d in range(40):
                add(chain, 1.0)
                chain += f"->d{d}"
            add("main->wide", 5.0)
            for i in range(wide):
                add(f"main->wide->w{i}", 0.001)
        return "\n".join(lines) + "\n"
    s, b = imp(tree(3000), system="tree", application="deep", format="extrap-jsonl", region="main", n_value=1)
    expect(s == 201 and b["runs"] == 3, f"imported ({s} {str(b)[:300]})")
    x = next(r for r in runs_of("tree", "deep") if r["p"] == 4)
    regs = {tuple(r.get("path", [r["name"]])): r for r in x["regions"]}
    expect(regs[("solve", "MPI_Allreduce")]["time_s"] == 4.0 and regs[("io", "MPI_Allreduce")]["time_s"] == 0.5
           and regs[("solve", "MPI_Allreduce")]["name"] == "MPI_Allreduce",
           "the same leaf under two parents: two regions, each its own value")
    deep = max((k for k in regs if k[0] == "deep"), key=len)
    expect(len(x["regions"]) == 4 + 2 + 32 + 3000 - 1 and len(deep) == 32 and deep[-1] == "d30",
           f"a chain keeps 32 levels under the region ({len(x['regions'])} {len(deep)} {deep[-2:]})")
    expect(any("more than 32 levels under 'main'" in w for w in b["warnings"]), f"said ({b['warnings']})")
    s, b = imp(tree(5000), system="tree", application="wide", format="extrap-jsonl", region="main", n_value=1)
    x = next(r for r in runs_of("tree", "wide") if r["p"] == 4) if s == 201 else {"regions": []}
    regs = {tuple(r.get("path", [r["name"]])): r for r in x["regions"]}
    expect(len(x["regions"]) == 4096 and ("wide",) in regs and ("solve", "MPI_Allreduce") in regs
           and ("deep", "d0") in regs and ("deep", "d0", "d1") not in regs,
           f"4096 a run, the shallowest first ({len(x['regions'])})")
    expect(any("left out (with what is under them): a run holds at most 4096 regions" in w for w in b["warnings"]),
           f"the cap said ({b['warnings']})")


@test
def extrap_text_grammar_hand_made():
    # BOM, CRLF, comments, blank lines; PARAMETER names on one line; several
    # points on one POINTS line; METRIC before REGION; '->' call paths
    text = ("\ufeff# a comment\r\nPARAMETER p n\r\n\r\nPOINTS ( 2 100 ) ( 4 100 )\r\n"
            "POINTS (8 100)\r\n# between\r\nMETRIC time\r\nREGION main\r\n"
            "DATA 10 11\r\nDATA 6 6.5\r\nDATA 4\r\nREGION main->solve\r\nDATA 7 8\r\nDATA 4 4\r\n"
            "DATA 2\r\nMETRIC energy\r\nREGION main\r\nDATA 1000 1100\r\nDATA 1200 1300\r\nDATA 1500\r\n"
            "REGION main->solve\r\nDATA 700 800\r\nDATA 900 900\r\nDATA 1000\r\n")
    s, b = imp(text, system="hm", application="grammar")
    expect(s == 201 and b["runs"] == 5 and b["points"] == 3 and b["regions"] == ["solve"],
           f"5 runs from 3 points ({s} {b})")
    got = sorted(runs_of("hm", "grammar"), key=lambda x: (x["p"], x["tau"]))
    expect([(x["p"], x["n"], x["tau"]) for x in got] == [(2, 100, 10), (2, 100, 11), (4, 100, 6),
                                                            (4, 100, 6.5), (8, 100, 4)], f"{got}")
    expect(got[1]["regions"] == [{"name": "solve", "time_s": 8, "energy_j": 800}],
           f"the second repetition's region, energy from the energy metric ({got[1]})")
    expect(got[1]["energy_j"] == 1100, "the run's energy from its region's energy metric")


@test
def extrap_text_one_parameter_bare_points():
    text = "PARAMETER p\nPOINTS 1 2 4 8\nREGION r\nMETRIC runtime\nDATA 8\nDATA 4.1\nDATA 2.2\nDATA 1.3\n"
    # p alone: imported at n = 1, and the warning says so and how to give n
    s, b = imp(text, system="hm", application="one-n1")
    expect(s == 201 and b["runs"] == 4 and all(x["n"] == 1 for x in runs_of("hm", "one-n1"))
           and any("gets n = 1" in w and "n_value" in w for w in b["warnings"]),
           f"p alone: n = 1 with a warning ({s} {b.get('warnings')})")
    s, b = imp(text, system="hm", application="one", n_value="1e6")
    expect(s == 201 and b["runs"] == 4, f"n_value: 4 runs ({b})")
    got = sorted((x["p"], x["n"], x["tau"]) for x in runs_of("hm", "one"))
    expect(got == [(1, 1e6, 8), (2, 1e6, 4.1), (4, 1e6, 2.2), (8, 1e6, 1.3)], f"{got}")
    s, b = imp(text.replace("POINTS 1 2 4 8", "POINTS 1 2.5 4 8"), system="hm", application="one2",
               n_value=1000)
    expect(s == 400 and b["field"] == "p" and "2.5" in b["error"], f"p must be whole: 400 ({b})")
    s, b = imp("PARAMETER x y\nPOINTS (1 2)\nREGION r\nDATA 1\n", system="hm", application="o3",
               p="y", n="x")
    expect(s == 201 and runs_of("hm", "o3")[0]["p"] == 2, "p=NAME and n=NAME pick the parameters")
    s, b = imp("PARAMETER x y z\nPOINTS (1 2 3)\nREGION r\nDATA 1\n", system="hm", application="o4",
               p="x", n="y")
    expect(s == 201 and any("'z'" in w for w in b["warnings"]), f"a third parameter: a warning ({b})")


@test
def extrap_text_broken_files_name_the_line():
    base = "PARAMETER p\nPOINTS 1 2\nREGION r\n"
    cases = [
        (base + "DATA 1\nDATA 2\nDATA 3\n", "line 6", "more DATA lines"),
        (base + "DATA 1\nDTA 2\n", "line 5", "not a line"),
        ("PARAMETER p n\nPOINTS ( 1 2\n", "line 2", "has no ')'"),
        (base + "DATA 1 x\n", "line 4", "'x' is not a number"),
        ("PARAMETER p\nREGION r\nDATA 1\n", "line 3", "more DATA lines"),
        (b"PARAMETER p\nPOINTS 1\nREGION caf\xe9\nDATA 1\n", "line 3", "UTF-8"),
        ("", "", "empty"),
    ]
    for text, where, what in cases:
        s, b = imp(text, system="hm", application="broken", format="extrap-text", n_value=1)
        expect(s == 400 and where in b["error"] and what in b["error"], f"{text[:30]!r}: {s} {b}")
    s, b = imp(base + "DATA nan 2\nDATA 1e400 3\n", system="hm", application="nan", n_value=1)
    expect(s == 201 and b["runs"] == 2 and any("NaN, inf" in w for w in b["warnings"]),
           f"NaN and an overflowing value left out, said ({b})")
    s, b = imp(base + "DATA 1e-300\nDATA 1.7976931348623157e308\n", system="hm", application="huge",
               n_value=1)
    taus = sorted(x["tau"] for x in runs_of("hm", "huge"))
    expect(s == 201 and taus == [1e-300, 1.7976931348623157e308], f"extreme finite values kept ({taus})")
    expect(runs_of("hm", "broken") == [], "nothing half-stored")


# ---- Extra-P JSON lines, JSON, Talpas ---------------------------------------

@test
def extrap_jsonl_one_parameter():
    path = os.path.join(OWN, "strong.jsonl")
    s, b = imp(path, system="jl", application="metr", n_value=64)
    expect(s == 201 and b["format"] == "extrap-jsonl" and b["runs"] == 25 and b["points"] == 5,
           f"5 points x 5 repetitions ({b})")
    with open(path) as f:
        lines = [json.loads(x) for x in f if x.strip()]
    want = sorted((int(x["params"]["x"]), x["value"]) for x in lines)
    got = sorted((x["p"], x["tau"]) for x in runs_of("jl", "metr"))
    expect(got == want and got[0] == (1, 102.0), "every line is a run with its value (100 / x + 2)")


@test
def extrap_json_current_and_legacy_and_talpas():
    cur = {"parameters": ["p", "n"], "measurements": {
        "main": {"time": [{"point": [2, 10], "values": [5.0, 5.5]}, {"point": [4, 10], "values": [3.0]}]},
        "main->a": {"time": [{"point": [2, 10], "values": [1.0, 1.5]}, {"point": [4, 10], "values": [0.5]}]}}}
    s, b = imp(json.dumps(cur), system="ej", application="cur")
    expect(s == 201 and b["format"] == "extrap-json" and b["runs"] == 3 and b["regions"] == ["a"], f"{b}")
    leg = {"parameters": [{"id": 1, "name": "p"}, {"id": 2, "name": "n"}],
           "callpaths": [{"id": 1, "name": "main"}], "metrics": [{"id": 1, "name": "time"}],
           "coordinates": [{"id": 1, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 8},
                                                               {"parameter_id": 2, "parameter_value": 50}]}],
           "measurements": [{"coordinate_id": 1, "callpath_id": 1, "metric_id": 1, "value": 2.5},
                            {"coordinate_id": 1, "callpath_id": 1, "metric_id": 1, "value": 2.75}]}
    s, b = imp(json.dumps(leg), format="extrap-json", system="ej", application="leg")
    got = sorted((x["p"], x["n"], x["tau"]) for x in runs_of("ej", "leg"))
    expect(s == 201 and got == [(8, 50, 2.5), (8, 50, 2.75)], f"legacy ids ({s} {b} {got})")
    tal = ('{"parameters": {"p": 16; "n": 3}; "metric": "time"; "callpath": "main"; "value": 9.5}\n'
           '{"parameters": {"p": 32; "n": 3}; "metric": "time"; "callpath": "main"; "value": 5.25}\n')
    s, b = imp(tal, system="ej", application="tal")
    got = sorted((x["p"], x["tau"]) for x in runs_of("ej", "tal"))
    expect(s == 201 and b["format"] == "talpas" and got == [(16, 9.5), (32, 5.25)], f"talpas ({b})")
    s, b = imp('{"params": {"p": 2}, "value": 1, "unit": "s"}\n{"params": {"p": 4}, "value": 2, "unit": "s"}\n',
               system="ej", application="unk", n_value=1)
    expect(s == 201 and any("'unit' (on 2 lines)" in w for w in b["warnings"]), f"an unknown field said ({b})")
    s, b = imp('{"params": {"p": 2}, "value": 1}\n{"params": {"p": 4}\n', system="ej", application="t",
               n_value=1, format="extrap-jsonl")
    expect(s == 400 and "line 2" in b["error"], f"a truncated line named ({b})")
    s, b = imp('{"params":{"p":2,"n":1},"metric":"time","value":1}\n'
               '{"params":{"p":2,"n":1},"metric":"flops","value":7}\n', system="ej", application="m")
    expect(s == 201, f"time picked among several metrics ({b})")
    s, b = imp('{"params":{"p":2,"n":1},"metric":"a","value":1}\n'
               '{"params":{"p":2,"n":1},"metric":"b","value":7}\n', system="ej", application="m2")
    expect(s == 400 and b["field"] == "metric" and "'a', 'b'" in b["error"], f"metrics listed ({b})")
    s, b = imp('{"params":{"p":2,"n":1},"metric":"a","value":1}\n'
               '{"params":{"p":2,"n":1},"metric":"b","value":7}\n', system="ej", application="m2", metric="b")
    expect(s == 201 and runs_of("ej", "m2")[0]["tau"] == 7, "metric=NAME")


# ---- Caliper -----------------------------------------------------------------

@test
def cali_nested_regions_and_globals():
    s, b = imp(os.path.join(OWN, "stencil.cali"), system="quartz", application="stencil")
    expect(s == 201 and b["format"] == "cali" and b["runs"] == 1, f"one run per file ({b})")
    expect(b["regions"] == ["init", "solve", "solve->halo"], f"the whole tree ({b['regions']})")
    x = runs_of("quartz", "stencil")[0]
    # exclusive sum#time.duration summed over the subtree: main 0.5 + 1.25 + 3.5 + 0.75;
    # the globals mpi.world.size = 16 and problem_size = 4096
    expect(x["n"] == 4096 and x["p"] == 16 and x["tau"] == 6.0, f"{x}")
    reg = {tuple(r.get("path", [r["name"]])): r["time_s"] for r in x["regions"]}
    expect(reg == {("init",): 1.25, ("solve",): 4.25, ("solve", "halo"): 0.75},
           f"solve holds halo, kept as its child ({reg})")
    # the file's own names for p, n and the metric, beside karte's
    s, b = imp(os.path.join(OWN, "stencil.cali"), system="quartz", application="names",
               p="mpi.world.size", n="problem_size", metric="sum#time.duration")
    x = runs_of("quartz", "names")[0] if s == 201 else b
    expect(s == 201 and x["p"] == 16 and x["n"] == 4096 and x["tau"] == 6.0, f"the file's names ({x})")
    s, b = imp(os.path.join(OWN, "stencil.cali"), system="quartz", application="x", p="ranks")
    expect(s == 400 and b["field"] == "p", f"an unknown global named ({b})")


@test
def cali_flat_attribute_names_the_regions():
    s, b = imp(os.path.join(OWN, "flat.cali"), system="flat", application="f")
    expect(s == 400 and b["field"] == "region" and b["available"]["roots"] == ["compute", "exchange"] and
           any("flat attribute 'function'" in w for w in b["warnings"]), f"the flat values are the roots ({b})")
    s, b = imp(os.path.join(OWN, "flat.cali"), system="flat", application="f", region="compute")
    x = runs_of("flat", "f")[0] if s == 201 else b
    expect(s == 201 and x["tau"] == 3.0, f"compute's two records summed: 2.5 + 0.5 ({x})")


@test
def caliper_json_split_ranks_and_units():
    s, b = imp(os.path.join(OWN, "ranks.json"), system="cab", application="ranks", n_value=30, time_unit="us")
    expect(s == 201 and b["format"] == "caliper-json" and b["regions"] == ["solve", "io"], f"{b}")
    x = runs_of("cab", "ranks")[0]
    # main's inclusive time is largest on rank 1: 4.5e6 us; 3 ranks; each region its own
    # largest over the ranks: solve 3.5e6 (rank 1), io 5e5 (rank 0)
    reg = {r["name"]: r["time_s"] for r in x["regions"]}
    expect(x["p"] == 3 and x["tau"] == 4.5 and reg == {"solve": 3.5, "io": 0.5}, f"the slowest rank ({x})")
    recs = [{"path": "main", "mpi.rank": 0, "sum#time.duration": 1.0},
            {"path": "main/solve", "mpi.rank": 0, "sum#time.duration": 3.0},
            {"path": "main", "mpi.rank": 1, "sum#time.duration": 0.5},
            {"path": "main/solve", "mpi.rank": 1, "sum#time.duration": 4.0}]
    s, b = imp(json.dumps(recs), system="cab", application="records", n_value=2)
    x = runs_of("cab", "records")[0]
    expect(s == 201 and x["p"] == 2 and x["tau"] == 4.5 and x["regions"][0]["time_s"] == 4.0,
           f"cali-query records: inclusive per rank, the largest ({b} {x})")


# ---- Thicket, saved Extra-P experiments, Score-P Cube ------------------------------

@test
def thicket_ensemble_one_run_per_profile():
    path = os.path.join(OWN, "ensemble.json")
    s, b = imp(path, system="th", application="lulesh")
    expect(s == 400 and b["field"] == "region" and b["available"]["roots"] == ["MPI_Init", "main"],
           f"two roots: say which ({b})")
    s, b = imp(path, system="th", application="lulesh", region="main")
    expect(s == 201 and b["format"] == "thicket-json" and b["runs"] == 6 and
           b["regions"] == ["cycle", "MPI_Barrier"], f"six profiles ({b})")
    got = {(x["p"], x["n"]): x for x in runs_of("th", "lulesh")}
    # main = 10 n / p + p; the first profile has jobsize in place of mpi.world.size
    expect(sorted(got) == [(1, 10), (1, 20), (2, 10), (2, 20), (4, 10), (4, 20)], f"{sorted(got)}")
    x = got[(4, 20)]
    reg = {r["name"]: r["time_s"] for r in x["regions"]}
    expect(x["tau"] == 54 and reg == {"cycle": 40, "MPI_Barrier": 2}, f"max#inclusive: 10*20/4 + 4 ({x})")
    s, b = imp(path, system="th", application="avg", region="main", metric="avg#inclusive#sum#time.duration",
               p="mpi.world.size", n="problem_size")
    x = {(r["p"], r["n"]): r for r in runs_of("th", "avg")}.get((4, 20)) if s == 201 else b
    expect(s == 201 and b["runs"] == 5 and x["tau"] == 27, f"p= names a column: the jobsize profile left out, "
           f"the avg column ({b}, {x})")
    s, b = imp(path, system="th", application="x", region="main", p="ranks")
    expect(s == 400 and b["field"] == "p" and "problem_size" in b["error"], f"the columns listed ({b})")


@test
def extrap_experiment_saved_with_and_without_values():
    s, b = imp(os.path.join(OWN, "values.extra-p"), system="xp", application="values", p="x", n="y",
               region="main")
    expect(s == 201 and b["format"] == "extrap-experiment" and b["runs"] == 16 and b["regions"] == ["solve"],
           f"8 points x 2 values ({b})")
    got = sorted(x["tau"] for x in runs_of("xp", "values") if x["p"] == 8 and x["n"] == 20)
    expect(got == [10.0, 10.5], f"x + y / 10 and + 0.5 ({got})")
    s, b = imp(os.path.join(OWN, "means.extra-p"), system="xp", application="means", p="x", n="y",
               region="main")
    expect(s == 201 and b["runs"] == 8 and any("without their values" in w for w in b["warnings"]),
           f"one run per point, said ({b})")
    x = next(r for r in runs_of("xp", "means") if r["p"] == 8 and r["n"] == 20)
    expect(x["tau"] == 10.25 and x["regions"][0]["time_s"] == 5.125, f"the saved mean ({x})")
    s, b = imp(b"PK\x03\x04 not a zip", system="xp", application="bad", format="extrap-experiment")
    expect(s == 400 and b["field"] == "body", f"a broken ZIP named ({b})")


def cube_tar(files):
    return cubex.tar(files)


@test
def cube_sets_in_every_spelling():
    body = cube_tar(cubex.mm_set())
    s, b = imp(body, system="cube", application="mm")
    expect(s == 201 and b["format"] == "cube" and b["runs"] == 12 and b["points"] == 6 and
           b["regions"] == ["init", "solve", "io", "solve->halo"], f"3 p x 2 n x 2 repetitions ({b})")
    got = {(x["p"], x["n"], round(x["tau"], 9)): x for x in runs_of("cube", "mm")}
    # tests/cubex.py: the first location (of 4 at p = 2) init 0.5, halo 0.05 log2 p, solve n / (100 p)
    # + halo, io 0, main their sum + 0.1 (0.3 in r2); the others solve in half the time. tau and each
    # region's time are the slowest location's (the parallel time), not the sum over locations.
    x = got.get((2, 1000, 5.65))
    reg = {tuple(r.get("path", [r["name"]])): r["time_s"] for r in x["regions"]} if x else {}
    expect(x and reg == {("init",): 0.5, ("solve",): 5.05, ("io",): 0, ("solve", "halo"): 0.05},
           f"p = 2, n = 1000: 0.5 + 5.05 + 0.1, halo inside solve ({reg} {sorted(got)})")
    expect((8, 2000, 3.45) in got, "p = 8, n = 2000, repetition 2: 0.5 + 2.5 + 0.15 + 0.3")
    at1000 = sorted((p, t) for (p, n, t) in got if n == 1000)
    expect(at1000 == [(2, 5.65), (2, 5.85), (4, 3.2), (4, 3.4), (8, 2.0), (8, 2.2)],
           f"tau falls with p as each process's time does ({at1000})")
    # the exclusive visits made inclusive: main 1 + init 1 + solve 10 + halo 10 per location
    s, b = imp(body, system="cube", application="visits", metric="visits")
    expect(s == 201 and {x["tau"] for x in runs_of("cube", "visits") if x["p"] == 2} == {88},
           f"visits: 22 per location x 4 ({b})")
    # Extra-P's spellings: decimal commas, separators, no prefix, several profiles in one folder
    spellings = {2: "mm.p2,0.n1000.r1", 4: "x.p4.0.n1000,0.r1", 8: "p8n1000"}
    files = {f"{spellings[p]}/profile.cubex": c for p in (2, 4, 8)
             for c in [cubex.profile(cubex.TREE, p, 1, cubex.mm_values(p, 1000, 1, 1))]}
    files["p8n1000/profile2.cubex"] = cubex.profile(cubex.TREE, 8, 1, cubex.mm_values(8, 1000, 2, 1))
    files["p8n1000/scorep.cfg"] = b"SCOREP_ENABLE_PROFILING=true\n"
    s, b = imp(cube_tar(files), system="cube", application="spell")
    got = sorted((x["p"], x["n"], round(x["tau"], 9)) for x in runs_of("cube", "spell"))
    # one thread per process: the slowest location's main = 0.5 + n / (100 p) + 0.05 log2 p + 0.1 (0.3)
    expect(s == 201 and got == [(2, 1000, 5.65), (4, 1000, 3.2), (8, 1000, 2.0), (8, 1000, 2.2)],
           f"every spelling, two profiles in one folder, other files ignored ({b} {got})")


@test
def cube_time_is_the_slowest_location_energy_the_sum():
    """A time metric's value is the largest over the locations of each
    location's inclusive time (made inclusive location by location when it
    is stored exclusive); energy and counters are summed."""
    tree = ("main", [("a", []), ("b", [])])
    # two ranks: rank 0 spends 3 s in a, rank 1 3 s in b, each 1 s in main itself
    vals = {"xtime": {"main": [1.0, 1.0], "main->a": [3.0, 0.0], "main->b": [0.0, 3.0]},
            "time": {"main": [4.0, 4.5], "main->a": [3.0, 0.0], "main->b": [0.0, 3.5]},
            "energy": {"main": [100.0, 120.0], "main->a": [60.0, 0.0], "main->b": [0.0, 80.0]}}
    files = {f"mm.p{p}/profile.cubex": cubex.profile(tree, 2, 1, vals) for p in (2,)}
    for metric, tau, regs in (("xtime", 4.0, {"a": 3.0, "b": 3.0}), ("time", 4.5, {"a": 3.0, "b": 3.5}),
                              ("energy", 220.0, {"a": 60.0, "b": 80.0})):
        s, b = imp(cube_tar(files), system="cube-max", application=metric, metric=metric, n_value=1)
        x = runs_of("cube-max", metric)[0] if s == 201 else b
        reg = {r["name"]: r["time_s"] for r in x.get("regions", [])}
        expect(s == 201 and x["tau"] == tau and reg == regs,
               f"{metric}: tau {tau} (not the sum {sum(vals[metric]['main'])}), regions {regs} ({x.get('tau')} {reg})")


@test
def duplicate_keys_are_refused_by_every_importer():
    """A JSON key given twice is a 400 naming the body, as the runs API
    answers it: an importer never takes the last of two silently."""
    cases = {
        "thicket-json": '{"graph": [{}], "dataframe": [], "metadata": [], "metadata": []}',
        "caliper-json": '{"data": [], "columns": [], "columns": [], "nodes": []}',
        "extrap-json": '{"parameters": ["p"], "parameters": ["q"], "measurements": {}}',
        "extrap-jsonl": '{"params": {"p": 1}, "params": {"p": 2}, "callpath": "main", "metric": "time", "value": 1}\n',
        "ndjson": '{"system": "s", "application": "a", "p": 1, "p": 2, "n": 1, "tau": 1}\n',
    }
    for fmt, body in cases.items():
        s, b = imp(body, system="dup", application=fmt, format=fmt, region="main", n_value=1)
        expect(s == 400 and ("duplicate" in b.get("error", "") or "twice" in b.get("error", "")),
               f"{fmt}: a key given twice refused ({s} {b})")
    expect(runs_of("dup") == [], "nothing stored")


@test
def metadata_become_labels():
    """Thicket's per-profile metadata, Caliper's globals (at the top level of
    a json-split file too) and a Cube set's directory parameters that are
    neither p nor n become run labels: scalars up to 128 bytes; lists,
    paths and long text are left out; the answer lists the labels set."""
    graph = {"0": {"data": {"name": "main"}, "children": [], "parents": []}}
    frame, meta = [], []
    for k, (p, cc) in enumerate((p, cc) for p in (1, 2, 4) for cc in ("intel", "gnu")):
        meta.append({"profile": k, "mpi.world.size": p, "problem_size": 10, "compiler": cc, "mpi": "openmpi",
                     "optimized": k % 2 == 0, "libraries": "libmpi.so,libm.so", "executable": "/usr/bin/lulesh",
                     "note": "x" * 200})
        frame.append({"node": 0, "profile": k, "name": "main",
                      "max#inclusive#sum#time.duration": (8.0 if cc == "intel" else 10.0) / p})
    doc = json.dumps({"graph": [graph], "dataframe": frame, "metadata": meta})
    s, b = imp(doc, system="meta", application="thicket", format="thicket-json")
    got = sorted((x["p"], x["labels"].get("compiler"), x["tau"]) for x in runs_of("meta", "thicket"))
    expect(s == 201 and sorted(b["labels"]) == ["compiler", "mpi", "optimized"] and b["points"] == 6,
           f"scalar metadata are labels, lists, paths and long text not ({b.get('labels')} {b.get('points')})")
    expect(got == [(1, "gnu", 10.0), (1, "intel", 8.0), (2, "gnu", 5.0), (2, "intel", 4.0), (4, "gnu", 2.5),
                   (4, "intel", 2.0)], f"two builds at each p stay apart ({got})")
    one = runs_of("meta", "thicket")[0]["labels"]
    expect(one["mpi"] == "openmpi" and one["optimized"] in ("true", "false") and "note" not in one,
           f"the labels of a run ({one})")
    split = {"data": [[4e6, 0, 0], [4.5e6, 1, 0]], "columns": ["inclusive#sum#time.duration", "mpi.rank", "path"],
             "column_metadata": [{"is_value": True}, {"is_value": True}, {"is_value": False}],
             "nodes": [{"column": "path", "label": "main"}], "mpi.world.size": 2, "problem_size": 64,
             "compiler": "clang-17", "launchdate": 1700000000}
    s, b = imp(json.dumps(split), system="meta", application="split", format="caliper-json", time_unit="us",
               p="mpi.world.size")
    x = runs_of("meta", "split")[0] if s == 201 else b
    expect(s == 201 and x["p"] == 2 and x["n"] == 64 and x["tau"] == 4.5
           and x["labels"] == {"compiler": "clang-17", "launchdate": "1700000000"},
           f"json-split's globals at the top level are the file's globals ({x})")
    files = {f"mm.p{p}.n1000.t{t}.r1/profile.cubex": cubex.profile(cubex.TREE, p, 1, cubex.mm_values(p, 1000, 1, 1))
             for p in (2, 4) for t in (1, 8)}
    s, b = imp(cube_tar(files), system="meta", application="cube")
    got = sorted((x["p"], x["labels"].get("t")) for x in runs_of("meta", "cube"))
    expect(s == 201 and b["labels"] == ["t"] and got == [(2, "1"), (2, "8"), (4, "1"), (4, "8")],
           f"the directories' t is a label ({b.get('labels')} {got})")


@test
def cube_p_from_processes_and_refusals():
    files = {f"mm.x{x}/profile.cubex": cubex.profile(cubex.TREE, procs, 2, cubex.mm_values(procs, 1000, 1))
             for x, procs in ((1, 2), (2, 4))}
    s, b = imp(cube_tar(files), system="cube", application="procs", n="x")
    got = sorted((x["p"], x["n"]) for x in runs_of("cube", "procs"))
    expect(s == 201 and got == [(2, 1), (4, 2)], f"no parameter p: the processes of each profile ({b} {got})")
    one = cubex.profile(cubex.TREE, 4, 1, cubex.mm_values(4, 1000, 1, 1))
    s, b = imp(one, system="cube", application="one", format="cube", n_value=1000)
    x = runs_of("cube", "one")[0] if s == 201 else b
    expect(s == 201 and x["p"] == 4 and x["tau"] == 3.2 and any("without an experiment directory" in w
                                                                for w in b["warnings"]), f"one .cubex ({b})")
    bad = {"mm.p2n1/profile.cubex": one, "mm.n1p2/profile.cubex": one}
    s, b = imp(cube_tar(bad), system="cube", application="order")
    expect(s == 400 and b["field"] == "body" and "same parameters in the same order" in b["error"],
           f"names in another order refused, as Extra-P does ({b})")
    bad = {"mm.p2n1/profile.cubex": one, "mm.p2wrong1/profile.cubex": one}
    s, b = imp(cube_tar(bad), system="cube", application="wrong")
    expect(s == 400 and "'mm.p2wrong1'" in b["error"], f"another name refused ({b})")
    s, b = imp(cube_tar({"mm.p2n1/profile.cubex": b"not a tar at all" * 40}), system="cube", application="junk")
    expect(s == 400 and b["field"] == "body", f"a .cubex that is not a tar ({b})")
    s, b = imp(cube_tar({"mm.p2n1/notes.txt": b"x"}), system="cube", application="none")
    expect(s == 400 and "no .cubex" in b["error"], f"no profile in the upload ({b})")
    s, b = imp(cube_tar({"mm.p2n1/profile.cubex": cubex.tar({"0.index": b"CUBEX.INDEX"})}), system="cube",
               application="noanchor")
    expect(s == 400 and "anchor.xml" in b["error"], f"no anchor.xml ({b})")
    expect(runs_of("cube", "order") == [] and runs_of("cube", "junk") == [], "nothing half-stored")


# ---- GEOPM --------------------------------------------------------------------

@test
def geopm_reports_text_and_yaml():
    for name in ("dgemm-2hosts.report", "dgemm-2hosts-yaml.report"):
        s, b = imp(os.path.join(DATA, "geopm", name), system="geo", application=name, n_value=4096)
        expect(s == 201 and b["format"] == "geopm-report", f"{name}: {s} {b}")
        x = runs_of("geo", name)[0]
        reg = {r["name"]: (r["time_s"], r["energy_j"]) for r in x["regions"]}
        # hand-computed in tests/data/geopm/SOURCE.md
        expect(x["p"] == 2 and x["tau"] == 96.25 and x["energy_j"] == 38450, f"{name}: {x}")
        expect(reg == {"dgemm": (81.75, 34350), "halo-exchange": (12.25, 3140),
                       "unmarked-region": (2, 270)}, f"{name}: {reg}")
    s, b = imp(os.path.join(DATA, "geopm", "dgemm-2hosts.report"), system="geo", application="x")
    expect(s == 201 and runs_of("geo", "x")[0]["n"] == 1 and any("n = 1" in w for w in b["warnings"]),
           f"no problem size: n = 1 with a warning ({b})")


# ---- CSV ----------------------------------------------------------------------

@test
def csv_with_column_mapping():
    text = "nodes,size,seconds,compiler,extra\n4,1000,12.5,gcc,x\n8,1000,6.5,gcc,y\n"
    s, b = imp(text, system="c", application="csv", **{"col.p": "nodes", "col.n": "size",
                                                      "col.tau": "seconds", "col.label.cc": "compiler"})
    expect(s == 201 and b["runs"] == 2, f"{s} {b}")
    expect(any("'extra'" in w for w in b["warnings"]), f"the unmapped column said ({b['warnings']})")
    got = sorted((x["p"], x["tau"], x["labels"]["cc"]) for x in runs_of("c", "csv"))
    expect(got == [(4, 12.5, "gcc"), (8, 6.5, "gcc")], f"{got}")
    s, b = imp(text, system="c", application="csv2", **{"col.p": "cores"})
    expect(s == 400 and b["field"] == "col.p" and "cores" in b["error"], f"a missing column named ({b})")
    s, b = imp("p,n,tau\n4,1000,1\n4,1000,fast\n", system="c", application="csv3")
    expect(s == 400 and b["field"] == "tau" and b["index"] == 2 and b["error"].startswith("line 3:"),
           f"the file's line and the field named ({b})")
    # n_value gives the n of rows without one
    s, b = imp("p,tau\n4,2.5\n8,1.5\n", system="c", application="csv-nv", n_value=5000)
    got = sorted((x["p"], x["n"]) for x in runs_of("c", "csv-nv"))
    expect(s == 201 and got == [(4, 5000), (8, 5000)], f"CSV honours n_value ({s} {b} {got})")
    s, b = imp("p,n,tau\n4,1000,1\n4,1000", system="c", application="csv4")
    expect(s == 400 and "cells" in b["error"], f"a truncated row ({b})")
    expect(runs_of("c", "csv4") == [], "nothing half-stored")


# ---- export and back ---------------------------------------------------------

@test
def export_csv_and_ndjson_import_back_to_the_same_runs():
    runs = [dict(system="ex", application="app", variant="v,1 \"q\"", p=4, n=1e3, tau=2.5, chi=0.5,
                 frequency_mhz=2400, power_cap_w=120, energy_j=3e3, measured_at="2026-11-21T10:00:00Z",
                 labels={"compiler": "gcc 12, -O3", "quoted": "say \"hi\", twice"},
                 regions=[{"name": "solve", "time_s": 1.25, "energy_j": 9.5, "power_w": 7.6,
                           "frequency_mhz": 2000, "counters": {"instructions": 1.2e9}}],
                 idempotency_key="job-1"),
            dict(system="ex", application="app", p=8, n=1e3, tau=1.5),
            dict(system="ex", application="app", p=16, n=2.5e3, tau=0.1 + 0.2, gamma=0.2),
            # cells a spreadsheet would run: written with an apostrophe, read back without
            dict(system="ex", application="@SUM(A1)", variant="=cmd|' /C calc'!A0", p=2, n=1e3, tau=4.0,
                 idempotency_key="+job-4"),
            dict(system="ex", application="-app", variant="'=already", p=2, n=1e3, tau=4.5)]
    s, b, _ = S.k.request("POST", "/api/v1/runs", runs, token=S.token)
    expect(s == 201, f"posted ({b})")
    want = runs_of("ex")
    # the store gives id and created_at; an import gives a run without a key
    # one of its own ("import:<hash>:<index>"), which is what makes a repeat a no-op
    strip = lambda xs: sorted((json.dumps({k: v for k, v in x.items() if k not in ("id", "created_at") and
                                           not str(v).startswith("import:")}, sort_keys=True) for x in xs))
    other = Karted(S.binary).start()
    try:
        tok = other.token("imports")
        for fmt, ctype in (("csv", "text/csv"), ("ndjson", "application/x-ndjson")):
            s, body, h = raw_get(S.k, "/api/v1/runs?system=ex&format=" + fmt)
            expect(s == 200 and h.get("Content-Type", "").startswith(ctype), f"{fmt}: {s} {h}")
            if fmt == "csv":
                rows = list(csv.DictReader(io.StringIO(body.decode())))
                expect(len(rows) == 5 and rows[-1]["labels"].startswith("{"), f"csv rows ({rows[-1]})")
                cells = {(r["application"], r["variant"], r["idempotency_key"], r["n"]) for r in rows}
                expect(("'@SUM(A1)", "'=cmd|' /C calc'!A0", "'+job-4", "1000") in cells and
                       ("'-app", "''=already", "", "1000") in cells,
                       f"would-be formulas get an apostrophe, numbers do not ({cells})")
            s, b, _ = other.request("POST", f"/api/v1/import?format={fmt}", body, ctype=ctype, token=tok)
            expect(s == 201 and b["runs"] == 5, f"{fmt} imported ({s} {b})")
            got = [x for x in runs_of("ex", k=other)]
            expect(strip(got) == strip(want), f"{fmt}: the same runs\n{strip(got)}\n{strip(want)}")
            s, b, _ = other.request("POST", f"/api/v1/import?format={fmt}", body, ctype=ctype, token=tok)
            expect(s == 200 and len(runs_of("ex", k=other)) == 5, f"{fmt}: again, nothing new ({s})")
            for x in runs_of("ex", k=other):
                other.request("DELETE", f"/api/v1/runs/{x['id']}", token=tok)
        s, body, h = raw_get(S.k, "/api/v1/runs?system=ex&format=ndjson&limit=2")
        expect(s == 200 and body.count(b"\n") == 2 and "X-Karte-Next" in h, f"a page and its cursor ({h})")
        s, body, h = raw_get(S.k, f"/api/v1/runs?system=ex&format=ndjson&limit=3&after={h['X-Karte-Next']}")
        expect(s == 200 and body.count(b"\n") == 3 and "X-Karte-Next" not in h, "the last page")
        s, b, _ = S.k.request("GET", "/api/v1/runs?format=xml")
        expect(s == 400 and b["field"] == "format", f"an unknown format named ({b})")
    finally:
        rc = other.stop()
        expect(rc == 0, f"the second karted stopped cleanly ({rc})")


# ---- the request itself ----------------------------------------------------------

@test
def format_guess_and_request_errors():
    files = {"import/stencil.txt": "extrap-text", "import/strong.jsonl": "extrap-jsonl",
             "import/stencil.cali": "cali", "import/ranks.json": "caliper-json",
             "import/ensemble.json": "thicket-json", "import/means.extra-p": "extrap-experiment",
             "import/stencil-cubes.tar": "cube",
             "geopm/dgemm-2hosts.report": "geopm-report", "geopm/dgemm-2hosts-yaml.report": "geopm-report"}
    for path, fmt in files.items():
        s, b = imp(os.path.join(DATA, path), system="g", application="guess", n_value=1, region="nope")
        expect(b.get("format") == fmt, f"{path} read as {fmt} ({b.get('format')} {b})")
    s, b = imp("hello world\n", system="g", application="x")
    expect(s == 400 and b["field"] == "format" and "extrap-text" in b["error"], f"unknown content ({b})")
    s, b = imp("x", system="g", application="x", format="excel")
    expect(s == 400 and b["field"] == "format", f"unknown format ({b})")
    s, b = imp("x", system="g", application="x", regoin="main")
    expect(s == 400 and b["field"] == "regoin", f"a misspelt parameter named ({b})")
    s, b = imp(STENCIL, token=False, system="g", application="x")
    expect(s == 401, f"a token is needed ({s})")
    s, b = imp(STENCIL, application="x", region="main()")
    expect(s == 400 and b["field"] == "system", f"system needed ({b})")
    s, b = imp(STENCIL, system="g", application="x", region="main()", n_value="-1")
    expect(s == 400 and b["field"] == "n_value", f"bad n_value ({b})")


@test
def files_over_the_import_limit_get_413():
    small = Karted(S.binary, args=["--max-import-body", "4096"]).start()
    try:
        tok = small.token("t")
        with open(STENCIL, "rb") as f:
            body = f.read()
        s, b, _ = small.request("POST", "/api/v1/import?system=a&application=b&region=main()", body,
                                ctype="text/plain", token=tok)
        expect(s == 413 and b["field"] == "body", f"413 naming body ({s} {b})")
        s, b, _ = small.request("POST", "/api/v1/import?system=a&application=b&region=main()",
                                body[:4000].rsplit(b"\n", 30)[0], ctype="text/plain", token=tok)
        expect(s in (201, 400), f"a file under the limit is read ({s})")
    finally:
        expect(small.stop() == 0, "stopped cleanly")


@test
def sigterm_during_an_import_stops_cleanly():
    # 300,000 lines (23 MB): seconds of reading, longer under the sanitizers
    lines = "".join('{"params":{"p":%d,"n":%d},"value":%g}\n' % (1 + i % 64, 1000 + i // 64, 1 + i % 7)
                    for i in range(300000)).encode()
    k = Karted(S.binary).start()
    tok = k.token("t")
    got = {}

    def post():
        try:
            got["status"], got["body"], _ = k.request("POST", "/api/v1/import?system=st&application=a",
                                                      lines, ctype="text/plain", token=tok, timeout=120)
        except OSError as e:
            got["error"] = e

    t = threading.Thread(target=post)
    t.start()
    time.sleep(1.0)
    k.signal(signal.SIGTERM)
    rc = k.wait(timeout=90)
    t.join(30)
    expect(rc == 0, f"karted stopped cleanly while an import was read ({rc}: {k.stderr[-500:]})")
    expect(not t.is_alive(), "the client got an answer or a closed connection")
    expect(got.get("status") in (201, 503, None), f"an answer or none ({got.get('status')})")
    k2 = Karted(S.binary, db=k.db).start()
    try:
        n = len(runs_of("st", k=k2)) if got.get("status") != 201 else 300000
        s, b, _ = k2.request("GET", "/api/v1/series")
        stored = sum(x["runs"] for x in b["series"] if x["system"] == "st")
        expect(stored in (0, 300000) and (got.get("status") != 201 or stored == 300000),
               f"the import is stored whole or not at all ({stored}, answer {got.get('status')}, {n})")
    finally:
        expect(k2.stop() == 0, "the second start stopped cleanly")


def big_csv(n, tag=0):
    return ("p,n,tau\n" + "".join(f"{1 << (i % 6)},{1000 * (1 + i % 7)},{10 + i % 13 + tag + i * 1e-9}\n"
                                  for i in range(n))).encode()


def series_count(k, system):
    s, b, _ = k.request("GET", "/api/v1/series")
    return sum(x["runs"] for x in b["series"] if x["system"] == system)


@test
def a_large_import_is_stored_in_parts_and_shown_whole():
    """An import of over 20,000 runs is stored in parts between other
    writes: single-run POSTs meanwhile are answered (none waits for the
    whole import), and a reader sees none of its runs or all of them, in
    the listing and in the counts, never some. The same file again stores
    nothing and answers the same ids."""
    n = 60000
    body = big_csv(n)
    seen, lat, stop = set(), [], threading.Event()

    def reader():
        while not stop.is_set():
            seen.add(("count", series_count(S.k, "parts")))
            s, b, _ = S.k.request("GET", "/api/v1/runs?system=parts&application=a&variant=&p=1&limit=1000")
            seen.add(("p=1 listed", len(b["runs"])))

    def poster():
        while not stop.is_set():
            t0 = time.time()
            s, _, _ = S.k.request("POST", "/api/v1/runs", {"system": "beside", "application": "x", "p": 1,
                                                           "n": 1, "tau": 1.0}, token=S.token)
            lat.append(time.time() - t0)
            expect(s == 201, f"a POST beside the import ({s})")
    ts = [threading.Thread(target=reader), threading.Thread(target=poster)]
    for t in ts:
        t.start()
    try:
        s, b = imp(body, format="csv", system="parts", application="a")
    finally:
        stop.set()
        for t in ts:
            t.join(60)
    expect(s == 201 and b["runs"] == n and b["stored"] == n, f"stored ({s} {str(b)[:200]})")
    expect(b["ids"] == list(range(b["ids"][0], b["ids"][0] + n)), "its ids are consecutive")
    whole = {("count", 0), ("count", n), ("p=1 listed", 0), ("p=1 listed", 1000)}
    expect(seen <= whole, f"a reader saw none or all, never a part ({sorted(seen - whole)})")
    expect(series_count(S.k, "parts") == n, "all of it counted")
    s, b2 = imp(body, format="csv", system="parts", application="a")
    expect(s == 200 and b2["stored"] == 0 and b2["ids"] == b["ids"], f"again: nothing new ({s} {b2.get('stored')})")
    print(f"    {n} runs in parts; {len(lat)} POSTs beside it, the slowest {max(lat) * 1000:.0f} ms; "
          f"a reader saw {sorted(seen)}")


@test
def kill_9_in_the_middle_of_a_large_import_leaves_none_of_it():
    """karted killed while the parts of a 300,000-run import are stored:
    none of the import can be read after, and on SQLite the next start
    deletes what its parts had stored (the log says how many)."""
    k = Karted(S.binary).start()
    tok = k.token("t")
    got = {}

    def post():
        try:
            got["status"], got["body"], _ = k.request("POST", "/api/v1/import?format=csv&system=killed&application=a",
                                                      big_csv(300000), ctype="text/csv", token=tok, timeout=120)
        except OSError as e:
            got["error"] = e
    t = threading.Thread(target=post)
    t.start()
    t0 = time.time()
    while time.time() - t0 < 60 and k.sql("SELECT count(*) FROM import_pending") != "1":
        time.sleep(0.02)
    while time.time() - t0 < 60 and int(k.sql("SELECT count(*) FROM runs") or 0) < 10000:
        time.sleep(0.02)
    parts = int(k.sql("SELECT count(*) FROM runs"))
    expect(k.sql("SELECT count(*) FROM import_pending") == "1" and 0 < parts < 300000,
           f"killed between parts ({parts} runs stored)")
    expect(series_count(k, "killed") == 0 and
           k.request("GET", "/api/v1/runs?system=killed&application=a&variant=&limit=5")[1]["runs"] == [],
           "the parts stored are not seen")
    k.kill9()
    t.join(60)
    k2 = Karted(S.binary, db=k.db).start()
    try:
        expect(series_count(k2, "killed") == 0 and
               k2.request("GET", "/api/v1/runs?system=killed&application=a&variant=&limit=5")[1]["runs"] == [],
               "after the restart none of it is seen")
        if not k2.on_pg:
            left = k2.sql("SELECT count(*) FROM runs")
            expect(left == "0" and k2.sql("SELECT count(*) FROM import_pending") == "0",
                   f"the next start deleted what the parts stored ({left} runs left)")
            expect(f"deleted the {parts}" in k2.stderr or "deleted the" in k2.stderr,
                   f"the log says so ({k2.stderr[-300:]})")
        s, b = None, None
        print(f"    killed with {parts} of 300,000 runs in parts; none seen after the restart")
    finally:
        expect(k2.stop() == 0, "the second start stopped cleanly")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--karted", required=True)
    ap.add_argument("-k", dest="only", help="run only tests whose name contains this")
    add_backend_option(ap)
    args = ap.parse_args()
    use_backend(args, SUITE)
    S.binary = os.path.abspath(args.karted)
    S.k = Karted(S.binary).start()
    S.token = S.k.token("imports")
    sys.exit(1 if SUITE.run(args.only, lambda: S.k.stop_checked("the imports karted")) else 0)


if __name__ == "__main__":
    main()
