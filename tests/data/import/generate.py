#!/usr/bin/env python3
"""Writes the files of tests/data/import: karte's own data in every format it
imports, made up so that a test can work out by hand what karte must store.
Run it from anywhere; it writes beside itself (the files are committed, so
tests need not run it): python3 tests/data/import/generate.py

The formulas are in README.md beside this script.
"""
import io
import json
import math
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import cubex  # noqa: E402

PS = [32, 64, 128, 256, 512]
NS = [5000, 6000, 7000, 8000, 9000]


def stencil(p, n, rep):
    """The stencil's regions in seconds at (p, n), repetition 1 or 2."""
    sweep = 1e-6 * n * n / p * (1.0 if rep == 1 else 1.01)
    halo = 0.02 * math.log2(p) * n / 1000
    allreduce = 0.001 * math.log2(p) ** 2
    iterations = sweep + halo + allreduce
    setup = 0.5 + n / 10000
    return {"main()": setup + iterations + 0.05, "Setup": setup, "Iterations": iterations,
            "Halo exchange (MPI_Sendrecv)": halo, "Stencil sweep": sweep, "Boundary": sweep / 10,
            "Residual (MPI_Allreduce)": allreduce}


def num(v):
    return repr(round(v, 9))


def write_text():
    """Extra-P text, the call tree by indentation (main(), Setup and
    Iterations are roots, as RELeARN's file has them)."""
    tree = [("main()", 3), ("Setup", 3), ("Iterations", 3), ("Halo exchange (MPI_Sendrecv)", 5),
            ("Stencil sweep", 5), ("Boundary", 7), ("Residual (MPI_Allreduce)", 5)]
    out = ["# a stencil code on 32 to 512 processes, problem sizes 5000 to 9000 (karte's own data)",
           "PARAMETER p", "PARAMETER n", ""]
    out += [f"POINTS ( {p} {n} )" for p in PS for n in NS]
    out += ["", "METRIC time"]
    for name, indent in tree:
        out.append("REGION" + " " * indent + name)
        for p in PS:
            for n in NS:
                out.append("DATA " + " ".join(num(stencil(p, n, r)[name]) for r in (1, 2)))
    with open(os.path.join(HERE, "stencil.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


def write_two_param():
    """Extra-P text of two parameters x and y, 5 x 5 points x 5 repetitions:
    f = 1 + 0.5 x + 0.25 y, repetition r adds r / 1000."""
    out = ["PARAMETER x", "PARAMETER y", ""]
    pts = [(x, y) for x in (1, 2, 4, 8, 16) for y in (1, 2, 4, 8, 16)]
    out += ["POINTS " + " ".join(f"( {x} {y} )" for x, y in pts), "REGION main", "METRIC time"]
    for x, y in pts:
        out.append("DATA " + " ".join(num(1 + 0.5 * x + 0.25 * y + r / 1000) for r in range(5)))
    with open(os.path.join(HERE, "two-param.txt"), "w") as f:
        f.write("\n".join(out) + "\n")


def write_jsonl():
    """Extra-P JSON lines of one parameter x (strong scaling at one size):
    time = 100 / x + 2, repetition r adds r / 100."""
    with open(os.path.join(HERE, "strong.jsonl"), "w") as f:
        for x in (1, 2, 4, 8, 16):
            for r in range(5):
                f.write(json.dumps({"params": {"x": x}, "callpath": "main", "metric": "time",
                                    "value": 100 / x + 2 + r / 100}) + "\n")


CALI_NESTED = """__rec=node,id=12,attr=10,data=268,parent=3
__rec=node,id=13,attr=8,data=region,parent=12
__rec=node,id=14,attr=10,data=21,parent=5
__rec=node,id=15,attr=8,data=sum#time.duration,parent=14
__rec=node,id=16,attr=10,data=12,parent=3
__rec=node,id=17,attr=8,data=mpi.world.size,parent=16
__rec=node,id=18,attr=8,data=problem_size,parent=16
__rec=node,id=20,attr=13,data=main
__rec=ctx,ref=20,attr=15,data=0.5
__rec=node,id=21,attr=13,data=init,parent=20
__rec=ctx,ref=21,attr=15,data=1.25
__rec=node,id=22,attr=13,data=solve,parent=20
__rec=ctx,ref=22,attr=15,data=3.5
__rec=node,id=23,attr=13,data=halo,parent=22
__rec=ctx,ref=23,attr=15,data=0.75
__rec=globals,attr=17=18,data=16=4096
"""

CALI_FLAT = """__rec=node,id=12,attr=10,data=12,parent=3
__rec=node,id=13,attr=8,data=function,parent=12
__rec=node,id=14,attr=10,data=21,parent=5
__rec=node,id=15,attr=8,data=sum#time.duration,parent=14
__rec=node,id=20,attr=13,data=compute
__rec=ctx,ref=20,attr=15,data=2.5
__rec=node,id=21,attr=13,data=exchange
__rec=ctx,ref=21,attr=15,data=1.5
__rec=ctx,ref=20,attr=15,data=0.5
"""


def write_caliper():
    with open(os.path.join(HERE, "stencil.cali"), "w") as f:
        f.write(CALI_NESTED)
    with open(os.path.join(HERE, "flat.cali"), "w") as f:
        f.write(CALI_FLAT)
    # cali-query's json-split: inclusive microseconds per rank (Caliper before 2.0)
    nodes = [{"column": "path", "label": "main"}, {"column": "path", "label": "solve", "parent": 0},
             {"column": "path", "label": "io", "parent": 0}]
    data = []
    for rank, (main, solve, io_) in enumerate([(4e6, 3e6, 5e5), (4.5e6, 3.5e6, 2.5e5), (3.9e6, 2.9e6, 0)]):
        data += [[main, rank, 0], [solve, rank, 1], [io_, rank, 2]]
    with open(os.path.join(HERE, "ranks.json"), "w") as f:
        json.dump({"data": data, "columns": ["inclusive#sum#time.duration", "mpi.rank", "path"],
                   "column_metadata": [{"is_value": True}, {"is_value": True}, {"is_value": False}],
                   "nodes": nodes}, f, indent=1)


def write_thicket():
    """Thicket.to_json() of six profiles: p = 1, 2, 4 (mpi.world.size; the
    first profile says jobsize only) x problem_size 10, 20; main's
    max#inclusive#sum#time.duration = 10 n / p + p, its child cycle 8 n / p,
    MPI_Barrier 0.5 p; MPI_Init a root of its own."""
    graph = {"0": {"data": {"type": "function", "name": "MPI_Init"}, "children": [], "parents": []},
             "1": {"data": {"type": "function", "name": "main"}, "children": [2, 3], "parents": []},
             "2": {"data": {"type": "function", "name": "cycle"}, "children": [], "parents": [1]},
             "3": {"data": {"type": "function", "name": "MPI_Barrier"}, "children": [], "parents": [1]}}
    frame, meta, profiles = [], [], []
    for k, (p, n) in enumerate((p, n) for p in (1, 2, 4) for n in (10, 20)):
        prof = 1000 + k
        profiles.append(prof)
        row = {"profile": prof, "problem_size": str(n), "cluster": "quartz", "user": "karte"}
        row["jobsize" if k == 0 else "mpi.world.size"] = str(p)
        meta.append(row)
        for node, name, t in ((0, "MPI_Init", 0.25), (1, "main", 10 * n / p + p), (2, "cycle", 8 * n / p),
                              (3, "MPI_Barrier", 0.5 * p)):
            frame.append({"node": node, "profile": prof, "nid": node, "name": name,
                          "max#inclusive#sum#time.duration": t, "avg#inclusive#sum#time.duration": t / 2})
    doc = {"graph": [graph], "dataframe_indices": ["node", "profile"], "dataframe": frame, "metadata": meta,
           "stats": [{"node": i} for i in range(4)],
           "inclusive_metrics": ["max#inclusive#sum#time.duration", "avg#inclusive#sum#time.duration"],
           "exclusive_metrics": [], "profile": profiles,
           "profile_mapping": {str(p): f"run-{p}.cali" for p in profiles}}
    with open(os.path.join(HERE, "ensemble.json"), "w") as f:
        json.dump(doc, f, indent=1)


def experiment_zip(with_values):
    """An experiment as Extra-P 4 saves it (--save-experiment): x = 1, 2, 4,
    8 and y = 10, 20; call paths main and main->solve; time = x + y / 10 at
    main (repetitions x + y / 10 and + 0.5 when saved with values), solve
    half of main. Saved with its mean, median and spread only, or with the
    values too."""
    meas = {"main": {"time": []}, "main->solve": {"time": []}}
    for x in (1, 2, 4, 8):
        for y in (10, 20):
            for cp, f in (("main", 1.0), ("main->solve", 0.5)):
                v = [f * (x + y / 10), f * (x + y / 10 + 0.5)]
                m = {"coordinate": [float(x), float(y)], "median": sum(v) / 2, "mean": sum(v) / 2,
                     "minimum": min(v), "maximum": max(v), "std": 0.25 * f * math.sqrt(2)}
                if with_values:
                    m["values"] = v
                meas[cp]["time"].append(m)
    exp = {"Extra-P": "4.0.3", "scaling": None, "parameters": ["x", "y"], "measurements": meas,
           "modelers": []}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo("experiment.json", date_time=(2026, 1, 1, 0, 0, 0))
        z.writestr(info, json.dumps(exp))
    return buf.getvalue()


def write_experiment():
    with open(os.path.join(HERE, "means.extra-p"), "wb") as f:
        f.write(experiment_zip(False))
    with open(os.path.join(HERE, "values.extra-p"), "wb") as f:
        f.write(experiment_zip(True))


def write_cubes():
    """Score-P experiment directories mm.p{p}.n{n}.r{rep} (tests/cubex.py: mm_set)."""
    with open(os.path.join(HERE, "stencil-cubes.tar"), "wb") as f:
        f.write(cubex.tar(cubex.mm_set()))


if __name__ == "__main__":
    write_text()
    write_two_param()
    write_jsonl()
    write_caliper()
    write_thicket()
    write_experiment()
    write_cubes()
    print(f"generate: wrote {', '.join(sorted(f for f in os.listdir(HERE) if f not in ('generate.py', 'README.md')))}")
