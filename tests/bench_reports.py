#!/usr/bin/env python3
"""make bench, part 4: the tau-chi isoefficiency SVG of a 10,000-run series,
end to end over HTTP from a real karted on 127.0.0.1 (load the runs, pool,
analyse, draw, send): p50 and p90 of ROUNDS requests; target p50 < 100 ms."""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import Karted  # noqa: E402
import openapi_check  # noqa: E402

openapi_check.ENABLED = False  # a benchmark's clock counts karted, not the suites' schema check


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=21)
    a = ap.parse_args()
    k = Karted(os.path.join(a.build, "karted")).start()
    try:
        nd = "".join(json.dumps({"system": "bench", "application": "md", "p": p, "n": 1e4 * 1.08 ** i,
                                 "tau": 1e4 * 1.08 ** i * 1e-5 / p + 0.02 * p ** 0.5, "chi": 0.02 * p ** 0.5}) + "\n"
                     for i in range(100) for p in range(1, 101))
        s, b, _ = k.request("POST", "/api/v1/runs", nd, ctype="application/x-ndjson", token=k.first_token)
        assert s == 201 and len(b["ids"]) == 10000, (s, b)
        times, size = [], 0
        for _ in range(a.rounds):
            t0 = time.perf_counter()
            s, body, _ = k.request("GET", "/api/v1/reports/isoefficiency.svg?system=bench&application=md")
            times.append(time.perf_counter() - t0)
            assert s == 200
            size = len(body)
        times.sort()
        p50, p90 = statistics.median(times), times[int(0.9 * (len(times) - 1))]
        print(f"isoefficiency SVG of 10,000 runs over HTTP: p50 {p50 * 1e3:.1f} ms, p90 {p90 * 1e3:.1f} ms "
              f"({a.rounds} requests, {size} bytes); target p50 < 100 ms")
    finally:
        k.stop()


if __name__ == "__main__":
    main()
