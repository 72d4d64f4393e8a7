#!/usr/bin/env python3
"""make bench, part 3: ingest as the record grows (issue #40).

Runs/s of karted storing into a database that already holds SIZE runs
spread over 10^4 series, beside the same into a database that holds only
the 10^4 series (one run each: the series exist on both sides, so neither
side's figure includes creating them), with the regression check on (the
default), on SQLite (and PostgreSQL with --backend postgresql):

  bulk          BODIES NDJSON bodies of 10^4 runs (4), one run to each
                series a body, back to back: long enough that SQLite's
                moves of staged runs (a second's work at 10^6, every
                65,536 runs) are in the figure as often as they come;
  single-run    wrk posting one run per request, each to the next of the
                10^4 series (tests/bench/post_spread.lua), SECONDS a side
                (5): SQLite moves staged runs every 65,536 or so, about
                every 2 s at this rate, and a move at 10^6 holds the
                writer 0.3-0.9 s, so a 2 s window held a move or none and
                its ratio swung between rounds (68-118 % over three runs);
                5 s hold two or three, as a site's steady stream does.

The large database is filled through karted's own bulk path before the
rounds (bodies of 10^4 runs, one per series, the points of each series
p = 1..64 by n = 1000..4000; the fill's time is printed); the small one is
made fresh every round. Who goes first swaps each round; the table shows
the medians of both sides and of the rounds' ratios (large / small) with
their spread. The large side grows by what the rounds write (BODIES
bodies and SECONDS of wrk, about 2*10^5 runs a round on SQLite here);
the table gives its size at the start and at the end.
10^7 is left out by default: its fill takes about 4 minutes here, and
its 2.8*10^5 points of 36 runs want --karted-arg=--check-memory=1024
(--sizes 10000000 asks for it).

On SQLite new runs are staged in a small table and moved into the large
one in the background, 65,536 at a time (schema 11): a body's or wrk's
own window may or may not hold a move. So each round also reports
karted's CPU per run stored over the whole round (both kinds of ingest
and MERGE_TAIL_S after them, time enough for a move they set off): the
figure that counts the moves.

Loopback only; every load bounded by wrk -d or a count.
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_runs import post_ndjson, wrk  # noqa: E402
from karted_proc import Karted, ROOT  # noqa: E402
import openapi_check  # noqa: E402

openapi_check.ENABLED = False  # a benchmark's clock counts karted, not the suites' schema check

SERIES = 10000
MERGE_TAIL_S = 2.5
SPREAD = os.path.join(ROOT, "tests", "bench", "post_spread.lua")


def body(rnd):
    """10^4 runs, one per series, at the round's point of each series."""
    out = []
    for i in range(SERIES):
        out.append(json.dumps({"system": "grow", "application": f"a{i}", "p": 1 << (rnd % 7),
                               "n": 1000.0 * (1 + rnd // 7 % 4), "tau": 10.0 + (i % 97) / 100, "chi": 1.0,
                               "energy_j": 120.0, "regions": [{"name": "main", "time_s": 9.0, "energy_j": 100.0}],
                               "labels": {"rep": str(rnd)}}))
    return ("\n".join(out) + "\n").encode()


def post(k, data):
    post_ndjson(k, data)


def cpu_s(k):
    """karted's CPU time so far (user + system, every thread), seconds."""
    with open(f"/proc/{k.proc.pid}/stat") as f:
        x = f.read().rsplit(")", 1)[1].split()
    return (int(x[11]) + int(x[12])) / os.sysconf("SC_CLK_TCK")


def bulk_rate(k, bodies):
    """(runs/s, karted's CPU µs per run) of bulk bodies posted back to back."""
    c0, t0 = cpu_s(k), time.perf_counter()
    for data in bodies:
        post(k, data)
    n = SERIES * len(bodies)
    return n / (time.perf_counter() - t0), 1e6 * (cpu_s(k) - c0) / n


def single_rate(k, seconds, conns):
    """(req/s, karted's CPU µs per stored run) of wrk's spread POSTs; the
    runs stored are counted, so a request that stored nothing cannot pass
    for one that did."""
    n0, c0 = stored(k), cpu_s(k)
    rate = wrk(k.url + "/api/v1/runs", k.first_token, seconds, conns, script=SPREAD,
               env={"KARTE_SERIES": str(SERIES)})
    c1, n1 = cpu_s(k), stored(k)
    if n1 - n0 < 0.9 * rate * seconds:
        raise RuntimeError(f"wrk reported {rate:.0f} req/s but {n1 - n0} runs were stored in {seconds} s")
    return rate, 1e6 * (c1 - c0) / (n1 - n0)


def window_reads(k):
    """Points whose earlier runs karted's check has read from the store
    (karte_check_window_reads_total): a point whose window is kept in
    memory is judged without a read."""
    s, b, _ = k.request("GET", "/metrics")
    text = b.decode() if isinstance(b, (bytes, bytearray)) else str(b)
    for line in text.splitlines():
        if line.startswith("karte_check_window_reads_total "):
            return int(float(line.split()[1]))
    raise RuntimeError("/metrics has no karte_check_window_reads_total")


def stored(k):
    s, b, _ = k.request("GET", "/api/v1/systems")
    if s != 200:
        raise RuntimeError(f"/api/v1/systems -> {s}")
    return sum(x.get("runs", 0) for x in (b if isinstance(b, list) else b.get("systems", [])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--sizes", default="0,100000,1000000", help="stored runs to measure at (0: the small side alone)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=5, help="wrk's window a side and round")
    ap.add_argument("--bodies", type=int, default=4, help="bulk bodies of 10^4 runs a side and round")
    ap.add_argument("--conns", type=int, default=16)
    ap.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    ap.add_argument("--karted-arg", action="append", default=[], metavar="ARG",
                    help="an option for both sides' karted (repeatable), e.g. --karted-arg=--check-memory=1024 "
                         "for 10^7 runs, whose windows take about 850 MiB")
    a = ap.parse_args()
    karted = os.path.join(ROOT, a.build, "karted")
    pg = None
    if a.backend == "postgresql":
        from pg_cluster import PgCluster
        pg = PgCluster(timeout=3600, durable=True).__enter__()

    def fresh():
        k = Karted(karted, db=pg.new_db() if pg else None, args=a.karted_arg).start()
        post(k, body(10 ** 6))  # the 10^4 series, one run each
        return k

    rows = []
    try:
        for size in (int(x) for x in a.sizes.split(",")):
            big = None
            if size:
                big = fresh()
                t0 = time.perf_counter()
                for rnd in range(max(0, size - SERIES) // SERIES):
                    post(big, body(rnd))
                fill_s = time.perf_counter() - t0
                at = stored(big)
            res = {"bulk": {"small": [], "big": []}, "single": {"small": [], "big": []},
                   "round": {"small": [], "big": []}}
            try:
                for rnd in range(a.rounds):
                    small = fresh()
                    try:
                        sides = {"small": small, "big": big} if big else {"small": small}
                        order = sorted(sides, reverse=bool(rnd % 2))
                        data = [body(10 ** 6 + 1 + rnd * a.bodies + j) for j in range(a.bodies)]
                        before = {side: (cpu_s(sides[side]), stored(sides[side])) for side in order}
                        reads0 = {side: window_reads(sides[side]) for side in order}
                        for side in order:
                            res["bulk"][side].append(bulk_rate(sides[side], data))
                        for side in order:
                            res["single"][side].append(single_rate(sides[side], a.seconds, a.conns))
                        # SQLite moves staged runs into the large table in the
                        # background (a second's tick, about a second's work):
                        # the round's CPU per run counts what the round set off
                        time.sleep(MERGE_TAIL_S)
                        reads = {side: window_reads(sides[side]) - reads0[side] for side in order}
                        for side in order:
                            c0, n0 = before[side]
                            res["round"][side].append((0.0, 1e6 * (cpu_s(sides[side]) - c0) /
                                                       (stored(sides[side]) - n0)))
                    finally:
                        small.stop()
                    print(f"  size {size:,}, round {rnd + 1}: " + "; ".join(
                        f"{kind} " + ", ".join(f"{side} {v[side][-1][0]:.0f}/s {v[side][-1][1]:.1f} µs"
                                               if kind != "round" else f"{side} {v[side][-1][1]:.1f} µs"
                                               for side in v if v[side]) for kind, v in res.items()) +
                          "; windows read " + ", ".join(f"{side} {n}" for side, n in reads.items()), flush=True)
                end = stored(big) if big else 0
                if big and end < at + a.rounds * a.bodies * SERIES:
                    raise RuntimeError("the large database did not store every run the rounds sent")
            finally:
                if big:
                    big.stop()
            med = statistics.median
            cells = []
            for kind in ("bulk", "single", "round"):
                sm, bg = res[kind]["small"], res[kind]["big"]
                if kind == "round":
                    cost = [s_[1] / b[1] for s_, b in zip(sm, bg)]
                    cells.append(f"{med(x[1] for x in (bg or sm)):.1f} µs" + (
                        f" | {100 * med(cost):.0f} % ({100 * min(cost):.0f}..{100 * max(cost):.0f})"
                        if bg else " | "))
                    continue
                if not bg:
                    cells.append(f"{med(x[0] for x in sm):.0f}/s, {med(x[1] for x in sm):.1f} µs | ")
                    continue
                rate = [b[0] / s_[0] for s_, b in zip(sm, bg)]
                cost = [s_[1] / b[1] for s_, b in zip(sm, bg)]
                cells.append(f"{med(x[0] for x in bg):.0f}/s, {med(x[1] for x in bg):.1f} µs | "
                             f"{100 * med(rate):.0f} % ({100 * min(rate):.0f}..{100 * max(rate):.0f}); "
                             f"CPU {100 * med(cost):.0f} % ({100 * min(cost):.0f}..{100 * max(cost):.0f})")
            what = (f"{at:,} (filled in {fill_s:.0f} s; {end:,} at the end)" if big
                    else f"{SERIES:,} (the series alone)")
            rows.append(f"| {what} | " + " | ".join(cells) + " |")
    finally:
        if pg:
            pg.__exit__(None, None, None)
    print(f"ingest as the record grows ({a.backend}, regression check on, {a.rounds} rounds alternated; "
          f"10^4 series; against a database of the 10^4 series alone, measured in the same round; goal >= 80 %):")
    print("(rate: runs/s against the small database's in the same round; CPU: the small database's CPU per run "
          "over this one's, so 100 % costs the same)")
    print("(the round: karted's CPU per run stored over the whole round, bulk and single, and "
          f"{MERGE_TAIL_S} s after it: SQLite's moves of staged runs into the large table included)")
    print("| stored runs | bulk: runs/s, karted CPU per run | of the small database | "
          "single-run POST: req/s, CPU per run | of the small database | the round: CPU per run | "
          "of the small database |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(r)


if __name__ == "__main__":
    main()
