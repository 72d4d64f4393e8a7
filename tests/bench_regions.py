#!/usr/bin/env python3
"""make bench: every call path of an experiment modelled and ranked over HTTP
(GET /api/v1/analysis/regions) from a real karted on 127.0.0.1.

Series, each path a model of its own (p = 1..32, 5 repetitions at +-1 %):
  10^3 paths, 6 p x 5 repetitions (30 runs of 1000 regions);
  10^4 paths, 6 p x 5 repetitions (a run holds at most 4096 regions, so
       each repetition is 5 runs of 2000 paths: 150 runs);
  10^3 paths over (p, n): 5 p x 5 n x 2 repetitions, parameters=p,n.
For each: the median of ROUNDS requests, the CPU karted spent beside it
(user + system over wall: above 1 means both cores worked), and the ratio
to the baseline measured in this script: one GET /api/v1/analysis/model
per path (metric=region:PATH, what a user did before), timed over a sample
and scaled to every path. Beside them, as measured outside the repository
on the same kind of 2-core machine: Extra-P 4.2.5 took 3.3 s for 100 paths
and 26 s for 1000 (23 ms a path). Goals: 10^3 paths in 1 s, 10^4 in 10 s."""
import argparse
import json
import math
import os
import random
import statistics
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import Karted  # noqa: E402
import openapi_check  # noqa: E402

openapi_check.ENABLED = False  # a benchmark's clock counts karted, not the suites' schema check

PS = (1, 2, 4, 8, 16, 32)
SHAPES = (lambda p: 8 / p, lambda p: 0.02 + 0.02 * math.log2(p), lambda p: 0.01 * p ** 0.5, lambda p: 0.5,
          lambda p: 0.001 * p, lambda p: 2 / p + 0.01 * math.log2(p) ** 2)


def path_of(k):
    """A call path of depth 1 to 4 for path k."""
    depth = 1 + k % 4
    return [f"m{k % 7}", f"s{(k >> 3) % 5}", f"t{(k >> 5) % 3}"][:depth - 1] + [f"f{k}"]


def runs_for(app, npaths, per_run, ns=(1000.0,), reps=5):
    rnd = random.Random(npaths)
    out = []
    groups = [range(g, min(g + per_run, npaths)) for g in range(0, npaths, per_run)]
    for n in ns:
        for p in PS if len(ns) == 1 else PS[1:]:
            for _ in range(reps):
                for grp in groups:
                    regs = []
                    for k in grp:
                        f = 1 + rnd.uniform(-0.01, 0.01)
                        v = SHAPES[k % len(SHAPES)](p) * (n / 1000) ** (0.5 * (k % 3)) * (1 + k % 11) * 1e-3 * f
                        path = path_of(k)
                        regs.append({"name": path[-1], "time_s": v, **({"path": path} if len(path) > 1 else {})})
                    tau = (10 / p + 1) * n / 1000 * (1 + rnd.uniform(-0.01, 0.01))
                    out.append({"system": "bench", "application": app, "p": p, "n": n, "tau": tau, "regions": regs})
    return out


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(k, path, rounds):
    walls, cpus, body = [], [], None
    for _ in range(rounds):
        c0, t0 = cpu_s(k.proc.pid), time.perf_counter()
        s, body, _ = k.request("GET", path, timeout=300)
        walls.append(time.perf_counter() - t0)
        cpus.append(cpu_s(k.proc.pid) - c0)
        assert s == 200, (s, str(body)[:300])
    return statistics.median(walls), statistics.median(cpus), body


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sample", type=int, default=40, help="single-path models timed for the baseline")
    a = ap.parse_args()
    k = Karted(os.path.join(a.build, "karted")).start()
    cases = [("1e3 paths, 6 p x 5 reps", "p1000", 1000, 1000, (1000.0,), 5, "", 1.0),
             ("1e4 paths, 6 p x 5 reps", "p10000", 10000, 2000, (1000.0,), 5, "", 10.0),
             ("1e3 paths over (p, n), 5 p x 5 n x 2 reps", "pn1000", 1000, 1000,
              (1000.0, 2000.0, 4000.0, 8000.0, 16000.0), 2, "&parameters=p,n", None)]
    try:
        for label, app, npaths, per_run, ns, reps, extra, goal in cases:
            runs = runs_for(app, npaths, per_run, ns, reps)
            for i in range(0, len(runs), 20):
                s, b, _ = k.request("POST", "/api/v1/runs", runs[i:i + 20], token=k.first_token, timeout=300)
                assert s == 201, (s, str(b)[:300])
            q = f"system=bench&application={app}{extra}"
            wall, cpu, body = timed(k, f"/api/v1/analysis/regions?{q}", a.rounds)
            assert body["count"] == npaths, body["count"]
            rnd = random.Random(1)
            sample = rnd.sample(body["paths"], min(a.sample, len(body["paths"])))
            t0 = time.perf_counter()
            for x in sample:
                metric = urllib.parse.quote("region:" + "->".join(x["path"]))
                s, _, _ = k.request("GET", f"/api/v1/analysis/model?{q}&metric={metric}", timeout=300)
                assert s == 200
            one = (time.perf_counter() - t0) / len(sample)
            verdict = "" if goal is None else f"; goal {goal:g} s: {'met' if wall <= goal else 'MISSED'}"
            print(f"regions, {label}: {wall:.2f} s over HTTP ({wall / npaths * 1e3:.2f} ms a path), "
                  f"{body['threads']} threads, karted CPU {cpu:.2f} s = {cpu / wall:.2f} cores; "
                  f"one GET model a path: {one * 1e3:.1f} ms, {one * npaths:.1f} s for all, "
                  f"ratio {one * npaths / wall:.1f}x{verdict}")
        print("Extra-P 4.2.5 (measured outside the repository, 2-core machine): 100 paths 3.3 s, "
              "1000 paths 26 s (23 ms a path)")
    finally:
        k.stop()


if __name__ == "__main__":
    main()
