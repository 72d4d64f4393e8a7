#!/usr/bin/env python3
"""The real-file suite: other tools' own files through a real karted.

usage: KARTE_EXTERNAL_DATA=DIR tests/realfiles.py --karted build/karted [-k NAME]

DIR is laid out as the project's reference folder (extrap/, caliper/,
scorep-cube/, thicket/): files of Extra-P, Caliper, Hatchet, Thicket and
Score-P that karte never keeps in its repository. Without KARTE_EXTERNAL_DATA
(or with a folder that is not there) the suite says it skipped and passes.
Each test counts the runs a file holds by reading it here, independently of
karted, and checks karted stored as many, with values read off the file.
"""
import argparse
import glob
import io
import json
import os
import re
import sys
import tarfile
import urllib.parse
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import Karted, Suite, expect  # noqa: E402

SUITE = Suite("realfiles")
test = SUITE.test
EXT = os.environ.get("KARTE_EXTERNAL_DATA", "")
COUNTS = []	# (format, file, runs by our count, runs stored)


class S:
    k = None
    token = None


def path(*parts):
    return os.path.join(EXT, *parts)


def imp(body, **query):
    if isinstance(body, str):
        with open(body, "rb") as f:
            body = f.read()
    s, b, _ = S.k.request("POST", "/api/v1/import?" + urllib.parse.urlencode(query), body,
                          ctype="application/octet-stream", token=S.token, timeout=300)
    return s, b


def runs_of(system, application):
    out, after = [], None
    while True:
        q = {"system": system, "application": application, "limit": 1000}
        if after:
            q["after"] = after
        s, b, _ = S.k.request("GET", "/api/v1/runs?" + urllib.parse.urlencode(q))
        out += b["runs"]
        after = b.get("next")
        if not after:
            return out


def count(fmt, name, ours, stored):
    COUNTS.append((fmt, name, ours, stored))
    expect(ours == stored, f"{name}: {ours} runs in the file by our count, {stored} stored")


def tar_of(folder):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for f in sorted(glob.glob(os.path.join(folder, "**", "*"), recursive=True)):
            t.add(f, arcname=os.path.relpath(f, folder), recursive=False)
    return buf.getvalue()


# ---- Extra-P ----------------------------------------------------------------------

def data_values(text):
    """Repetitions in an Extra-P text file: the numbers on its DATA lines."""
    return sum(len(line.split()) - 1 for line in text.splitlines() if line.startswith("DATA"))


@test
def extrap_relearn():
    f = path("extrap", "relearn_data.txt")
    s, b = imp(f, system="rl", application="relearn")
    expect(s == 400 and b["available"]["roots"] == ["main()", "Initialization", "Simulation loop"],
           f"three roots by indentation ({b})")
    s, b = imp(f, system="rl", application="relearn", region="main()")
    with open(f) as fh:
        text = fh.read()
    regions = text.count("\nREGION")
    count("extrap-text", "relearn_data.txt", data_values(text) // regions, b.get("runs"))
    got = runs_of("rl", "relearn")
    first = sorted(x["tau"] for x in got if x["p"] == 32 and x["n"] == 5000)
    expect(first == [405.58, 406.498], f"the first point's two DATA values ({first})")
    s, b = imp(f, system="rl", application="loop", region="Simulation loop", chi_regions="Connectivity update")
    x = next(v for v in runs_of("rl", "loop") if v["p"] == 512 and v["n"] == 9000)
    reg = {r["name"]: r["time_s"] for r in x["regions"]}
    # the last DATA line of "Connectivity update" is 2535.05 2535.05, as is Simulation loop's
    expect(x["tau"] == 2535.05 and reg["Connectivity update"] == 2535.05, f"as written ({x})")


@test
def extrap_two_parameter_and_jsonl():
    f = path("extrap", "two_parameter_1.txt")
    s, b = imp(f, system="tp", application="a", p="x", n="y")
    with open(f) as fh:
        count("extrap-text", "two_parameter_1.txt", data_values(fh.read()), b.get("runs"))
    f = path("extrap", "json_test_input.jsonl")
    s, b = imp(f, system="jl", application="a", n_value=64)
    with open(f) as fh:
        lines = [json.loads(x) for x in fh if x.strip()]
    count("extrap-jsonl", "json_test_input.jsonl", len(lines), b.get("runs"))
    want = sorted((int(x["params"]["x"]), x["value"]) for x in lines)
    expect(sorted((x["p"], x["tau"]) for x in runs_of("jl", "a")) == want, "every line with its value")


@test
def extrap_saved_experiment():
    f = path("scorep-cube", "extra-p", "exp_only_mean_median.extra-p")
    s, b = imp(f, system="xp", application="a")
    expect(s == 400 and b["format"] == "extrap-experiment" and b["available"]["roots"] == ["merge", "sort"],
           f"read as a saved experiment; two roots ({b})")
    s, b = imp(f, system="xp", application="a", p="x", n="y", region="merge")
    with zipfile.ZipFile(f) as z:
        exp = json.loads(z.read("experiment.json"))
    points = exp["measurements"]["merge"]["time"]
    count("extrap-experiment", "exp_only_mean_median.extra-p", len(points), b.get("runs"))
    want = {(int(m["coordinate"][0]), m["coordinate"][1]): m["mean"] for m in points}
    got = {(x["p"], x["n"]): x["tau"] for x in runs_of("xp", "a")}
    expect(got == want, "each point its saved mean")


# ---- Score-P Cube sets -------------------------------------------------------------

@test
def cube_sets():
    base = path("scorep-cube", "cubeset")
    for name, query, runs in (("single_parameter", {"n": "x"}, None), ("allowed_formats", {"n": "x"}, None),
                              ("simple_threaded", {"n": "f"}, None)):
        s, b = imp(tar_of(os.path.join(base, name)), system="cube", application=name, **query)
        ours = len(glob.glob(os.path.join(base, name, "*", "[!.]*.cubex")))
        count("cube", f"cubeset/{name}", ours, b.get("runs"))
    got = sorted((x["n"], x["tau"], x["p"]) for x in runs_of("cube", "simple_threaded"))
    # example.f1: main's inclusive time on its 4 locations (2 processes x 2 threads) is 14.0, 3.2, 13.9
    # and 3.1 s: tau is the slowest, 14.0 (the sum, 34.2, is the resource, never tau)
    expect(got[0] == (1, 14.0, 2), f"f = 1: 14.0 s on 2 processes ({got[0]})")
    names = sorted(x["n"] for x in runs_of("cube", "allowed_formats"))
    # mm.x1y1z1 and mm.x1.1y1.1z1.1 hold two profiles each; x10y1z1 and mm.x10y1z1.r1 are both 10
    expect(names == [1, 1, 1.1, 1.1, 10, 10, 20.5, 21.5, 22.5, 25], f"every spelling's x ({names})")
    for bad in ("negative_example", "negative_example2"):
        s, b = imp(tar_of(os.path.join(base, bad)), system="cube", application=bad)
        expect(s == 400 and "same parameters in the same order" in b.get("error", ""), f"{bad}: refused ({b})")


# ---- Caliper, Thicket --------------------------------------------------------------

@test
def caliper_files():
    c = path("caliper")
    s, b = imp(os.path.join(c, "rajaperf_quartz_1048576_Base_Seq.cali"), system="quartz", application="raja")
    count("cali", "rajaperf_quartz_1048576_Base_Seq.cali", 1, b.get("runs"))
    x = runs_of("quartz", "raja")[0]
    reg = {r["name"]: r["time_s"] for r in x["regions"]}
    expect(x["n"] == 1048576 and x["tau"] == 103.47638 and reg["Basic"] == 11.313521, f"{x}")
    s, b = imp(os.path.join(c, "lulesh-annotation-profile.cali"), system="cab", application="lulesh", n_value=30)
    count("cali", "lulesh-annotation-profile.cali", 1, b.get("runs"))
    x = runs_of("cab", "lulesh")[0]
    expect(abs(x["tau"] - 0.492491) < 1e-9, f"main's exclusive times summed by hand: 0.492491 ({x})")
    s, b = imp(os.path.join(c, "lulesh-annotation-profile.json"), system="cab", application="lj", n_value=30,
               time_unit="us")
    count("caliper-json", "lulesh-annotation-profile.json", 1, b.get("runs"))
    x = runs_of("cab", "lj")[0]
    expect(x["p"] == 8 and abs(x["tau"] - 5.905595) < 1e-12, f"rank 4's 5905595 us, 8 ranks ({x})")
    s, b = imp(os.path.join(c, "cpi-callpath-profile.json"), system="cab", application="cpi", n_value=1,
               region="main", time_unit="us")
    count("caliper-json", "cpi-callpath-profile.json", 1, b.get("runs"))
    expect(runs_of("cab", "cpi")[0]["p"] == 4, "4 ranks")


@test
def thicket_ensemble():
    f = path("thicket", "user_ensemble.json")
    s, b = imp(f, system="th", application="lulesh", region="main",
               p="mpi.world.size", n="problem_size", metric="max#inclusive#sum#time.duration")
    with open(f) as fh:
        doc = json.load(fh)
    with_main = {r["profile"] for r in doc["dataframe"] if r["name"] == "main"}
    # mpi.world.size is null in all but one profile's metadata: p= naming it takes that one
    sized = {m["profile"] for m in doc["metadata"] if m.get("mpi.world.size") is not None}
    count("thicket-json", "user_ensemble.json (p=mpi.world.size)", len(with_main & sized), b.get("runs"))
    s, b = imp(f, system="th", application="all", region="main")
    count("thicket-json", "user_ensemble.json (default p)", len(with_main), b.get("runs"))
    # one profile by hand: its main row
    row = next(r for r in doc["dataframe"] if r["name"] == "main")
    meta = next(m for m in doc["metadata"] if m["profile"] == row["profile"])
    p = int(meta.get("mpi.world.size") or meta["jobsize"])
    got = [x for x in runs_of("th", "all") if x["p"] == p and x["n"] == float(meta["problem_size"]) and
           x["tau"] == row["max#inclusive#sum#time.duration"]]
    expect(got, f"profile {row['profile']}: p = {p}, tau = {row['max#inclusive#sum#time.duration']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--karted", required=True)
    ap.add_argument("-k", dest="only")
    a = ap.parse_args()
    if not EXT or not os.path.isdir(os.path.join(EXT, "extrap")):
        print("realfiles: skipped: KARTE_EXTERNAL_DATA does not name a folder of other tools' files "
              "(extrap/, caliper/, scorep-cube/, thicket/)")
        return 0
    S.k = Karted(a.karted).start()
    S.token = S.k.first_token
    try:
        rc = SUITE.run(a.only)
    finally:
        S.k.stop()
    print("realfiles: format, file, runs in the file by our count, runs stored:")
    for fmt, name, ours, stored in COUNTS:
        print(f"  {fmt:18} {name:45} {ours:>5} {stored!s:>5}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
