#!/usr/bin/env python3
"""make bench, part 2: karted on PostgreSQL beside karted on SQLite, in one
run on one machine (issue #20). Every figure is a ratio to a baseline
measured in the same round:

  single-run POST   wrk on 127.0.0.1 posting one run per request, to a karted
                    on SQLite and to one on PostgreSQL, in turn, ROUNDS times;
                    ratio PostgreSQL / SQLite (goal >= 50 %).
  bulk NDJSON       BODIES bodies of RUNS_PER_BODY runs to each, in turn;
                    ratio PostgreSQL / SQLite (goal >= 50 %).
                    For both: every round starts the two karted on fresh
                    databases (equal sizes: both empty, then what the round
                    writes), and who goes first swaps each round; each
                    round's ratio is printed as a spread and a median.
  reads, 2 vs 1     wrk GET of a page of a series' runs against one
                    PostgreSQL-backed karted, then against two on the same
                    database (two wrk, half the connections each); ratio.
  isoefficiency at size
                    one series of SERIES_RUNS runs among 10^5, 10^6, 10^7
                    stored runs (the rest in 1,000 other series, written
                    straight into each database), the analysis' median
                    latency on both backends: it must not grow with the
                    total.

Bulk NDJSON runs with --regression-check off on both: every run of its
bodies is at a point of its own, which the check reads 100 earlier runs
for (bench_runs.py measures that worst case); here the stores' ingest is
compared.

PostgreSQL runs as in production: fsync on, synchronous_commit on (the
cluster of the tests turns them off), so an acknowledged run survives a
power loss. The writes are compared with SQLite twice: with karted's
default --sync normal (a run survives a crash of karted, not a power loss:
no fsync per commit) and with --sync full (an fsync per commit, the same
durability as PostgreSQL's), and PostgreSQL once more with
synchronous_commit off for its database (no fsync per commit, as SQLite's
--sync normal). Loopback only; every load is bounded by wrk -d or a count.
"""
import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_runs import post_bulk, wrk  # noqa: E402
from karted_proc import Karted  # noqa: E402
import openapi_check  # noqa: E402

openapi_check.ENABLED = False  # a benchmark's clock counts karted, not the suites' schema check
from pg_cluster import PgCluster  # noqa: E402



def bulk(k, bodies, per_body):
    return post_bulk(k, bodies, per_body)[0]


def wrk_get(url, seconds, conns):
    out = subprocess.run(["wrk", "-t1", f"-c{conns}", f"-d{seconds}s", url], capture_output=True, text=True,
                         timeout=seconds + 30)
    m = re.search(r"Requests/sec:\s+([\d.]+)", out.stdout)
    if not m or "Non-2xx" in out.stdout:
        raise RuntimeError("wrk: " + out.stdout + out.stderr)
    return float(m.group(1))


def rounds_of(n, base_fn, ours_fn):
    """n rounds of the pair, who goes first swapping each round: the medians
    of both sides and of the rounds' ratios ours / base."""
    base, ours, ratios = [], [], []
    for rnd in range(n):
        if rnd % 2:
            o = ours_fn()
            b = base_fn()
        else:
            b = base_fn()
            o = ours_fn()
        base.append(b)
        ours.append(o)
        ratios.append(o / b)
    return statistics.median(base), statistics.median(ours), statistics.median(ratios)


def fresh_rounds(karted, n, base_kw, ours_kw, extra, measure, warm=None):
    """n rounds of measure() on two karted started for the round on fresh
    databases (base_kw() and ours_kw() give their Karted arguments), who
    goes first swapping each round; both are up while either is measured.
    (median base, median ours, the rounds' ratios ours / base)."""
    base, ours, ratios = [], [], []
    for rnd in range(n):
        kws = [base_kw(), ours_kw()]
        ks = [Karted(karted, db=kw.get("db"), args=kw.get("args", []) + extra).start() for kw in kws]
        try:
            if warm:
                for k in ks:
                    warm(k)
            order = (1, 0) if rnd % 2 else (0, 1)
            got = {}
            for side in order:
                got[side] = measure(ks[side])
        finally:
            for k in ks:
                k.stop()
        base.append(got[0])
        ours.append(got[1])
        ratios.append(got[1] / got[0])
    return statistics.median(base), statistics.median(ours), ratios


def series_body(n_runs):
    out = []
    ps = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    for i in range(n_runs):
        p = ps[i % len(ps)]
        n = 1000.0 * (1 + (i // len(ps)) % 100)
        chi = 0.01 * p + 1e-5 * n
        gamma = n / (1000.0 * p)
        out.append(json.dumps({"system": "iso", "application": "app", "p": p, "n": n, "tau": chi + gamma,
                               "chi": chi, "labels": {"rep": str(i // 1000)}}))
    return "\n".join(out).encode()


FILL_SERIES = 1000


def fill_sqlite(path, first_id, count):
    db = sqlite3.connect(path, timeout=60)
    db.execute("INSERT OR IGNORE INTO series (id, system, application, variant) "
               "WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x + 1 < ?) "
               "SELECT 1000 + x, 'fill', 'app' || x, '' FROM c", (FILL_SERIES,))
    db.execute("INSERT INTO runs (id, series_id, p, n, tau, chi, gamma, created_at) "
               "WITH RECURSIVE c(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM c WHERE x + 1 < ?) "
               "SELECT x, 1000 + x % ?, 1 + x % 64, x, 1.0, 0.5, 0.5, '2026-01-01T00:00:00.000Z' FROM c",
               (first_id, first_id + count, FILL_SERIES))
    db.commit()
    db.close()


def fill_pg(pg, uri, first_id, count):
    pg.sql_uri(uri, f"INSERT INTO series (id, system, application, variant) "
                    f"SELECT 1000 + x, 'fill', 'app' || x, '' FROM generate_series(0, {FILL_SERIES - 1}) x "
                    f"ON CONFLICT DO NOTHING; "
                    f"SELECT setval(pg_get_serial_sequence('series', 'id'), (SELECT max(id) FROM series)); "
                    f"INSERT INTO runs (id, series_id, p, n, tau, chi, gamma, created_at) "
                    f"SELECT x, 1000 + x % {FILL_SERIES}, 1 + x % 64, x, 1.0, 0.5, 0.5, '2026-01-01T00:00:00.000Z' "
                    f"FROM generate_series({first_id}, {first_id + count - 1}) x; ANALYZE runs; ANALYZE series")


def latency(k, path, times):
    out = []
    for _ in range(times):
        t0 = time.perf_counter()
        s, b, _ = k.request("GET", path, timeout=300)
        if s != 200:
            raise RuntimeError(f"{path} -> {s} {str(b)[:200]}")
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=int, default=2)
    ap.add_argument("--conns", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--bodies", type=int, default=5)
    ap.add_argument("--runs-per-body", type=int, default=10000)
    ap.add_argument("--series-runs", type=int, default=1000)
    ap.add_argument("--sizes", default="100000,1000000,10000000", help="total stored runs to measure at")
    ap.add_argument("--writes-only", action="store_true", help="single-run POST and bulk only (quicker)")
    a = ap.parse_args()
    karted = os.path.join(a.build, "karted")
    with PgCluster(timeout=1800, durable=True) as pg:
        def lazy_db():
            uri = pg.new_db()
            pg.sql_uri(uri, f"ALTER DATABASE {uri.rsplit('/', 1)[1]} SET synchronous_commit = off")
            return uri
        # (baseline, PostgreSQL, what they promise alike): each a recipe for
        # a fresh karted's arguments, so that every round starts both sides
        # on empty databases of their own
        pairs = (("SQLite --sync normal", lambda: {}, "PostgreSQL", lambda: {"db": pg.new_db()},
                  "the defaults: a crash of karted loses nothing; PostgreSQL also keeps them through a power loss"),
                 ("SQLite --sync full", lambda: {"args": ["--sync", "full"]}, "PostgreSQL",
                  lambda: {"db": pg.new_db()},
                  "the same durability: an fsync per commit, a power loss loses nothing"),
                 ("SQLite --sync normal", lambda: {}, "PostgreSQL, synchronous_commit off", lambda: {"db": lazy_db()},
                  "the same durability: no fsync per commit, a crash of karted loses nothing"))
        post = "/api/v1/runs"

        def single(k):
            return wrk(k.url + post, k.first_token, a.seconds, a.conns)

        def warm_single(k):
            wrk(k.url + post, k.first_token, 1, a.conns)

        def bulk_of(k):
            return bulk(k, a.bodies, a.runs_per_body)

        # bulk: the stores' ingest; every run of the body is at a point of
        # its own, which the regression check (the same on both, measured by
        # bench_runs.py) would read 100 runs for: it is off here
        for kind, measure, warm, extra in (("single", single, warm_single, []),
                                           ("bulk", bulk_of, None, ["--regression-check", "off"])):
            for bname, bmake, oname, omake, why in pairs:
                b, o, rs = fresh_rounds(karted, a.rounds, bmake, omake, extra, measure, warm)
                if kind == "single":
                    what = f"single-run POST (wrk -c{a.conns}, {a.seconds} s a side"
                    unit = "req/s"
                else:
                    what = f"bulk NDJSON ({a.bodies} bodies of {a.runs_per_body}, --regression-check off"
                    unit = "runs/s"
                print(f"{what}, {a.rounds} rounds alternated, both sides on fresh databases each round; {why}): "
                      f"{bname} {b:.0f} {unit}, {oname} {o:.0f} {unit} (medians); ratio per round "
                      f"{100 * min(rs):.1f}%..{100 * max(rs):.1f}%, median {100 * statistics.median(rs):.1f}%; "
                      f"goal >= 50%", flush=True)
        if a.writes_only:
            return

        # the isoefficiency series, then filler up to each size
        uri = pg.new_db()
        lite = Karted(karted).start()
        pgk = Karted(karted, db=uri).start()
        pgk2 = None
        try:
            body = series_body(a.series_runs)
            for k in (lite, pgk):
                s, r, _ = k.request("POST", "/api/v1/runs", body, ctype="application/x-ndjson", token=k.first_token)
                if s != 201:
                    raise RuntimeError(f"series -> {s} {r}")
            path = "/api/v1/analysis/isoefficiency?system=iso&application=app"
            page = "/api/v1/runs?system=iso&application=app&limit=100"
            pgk2 = Karted(karted, db=uri).start()
            read = pgk.url + page
            wrk_get(read, 1, 8)
            one = lambda: wrk_get(read, a.seconds, 8)  # noqa: E731

            def two():
                rates = []
                ts = [threading.Thread(target=lambda u=u: rates.append(wrk_get(u + page, a.seconds, 4)))
                      for u in (pgk.url, pgk2.url)]
                for t in ts:
                    t.start()
                for t in ts:
                    t.join()
                return sum(rates)
            b, o, r = rounds_of(a.rounds, one, two)
            print(f"reads (a page of 100 runs, 8 connections): one PostgreSQL-backed karted "
                  f"{b:.0f} req/s, two {o:.0f} req/s (medians); median ratio {100 * r:.1f}% "
                  f"({os.cpu_count()} cores for wrk, karted and PostgreSQL together)", flush=True)
            print(f"isoefficiency of one series ({a.series_runs} runs) by total runs stored, median of 5:")
            print("  | stored runs | SQLite | PostgreSQL |")
            print("  |---:|---:|---:|")
            have = a.series_runs
            for size in (int(x) for x in a.sizes.split(",")):
                t0 = time.perf_counter()
                fill_sqlite(lite.db, have + 1, size - have)
                t1 = time.perf_counter()
                fill_pg(pg, uri, have + 1, size - have)
                t2 = time.perf_counter()
                have = size
                ls = latency(lite, path, 5)
                lp = latency(pgk, path, 5)
                print(f"  | {size:,} | {1000 * ls:.1f} ms | {1000 * lp:.1f} ms |   "
                      f"(filled in {t1 - t0:.0f} s and {t2 - t1:.0f} s)", flush=True)
        finally:
            lite.stop(), pgk.stop()
            if pgk2:
                pgk2.stop()


if __name__ == "__main__":
    main()
