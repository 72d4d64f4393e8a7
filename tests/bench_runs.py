#!/usr/bin/env python3
"""make bench, part 1: how fast karted takes runs, against bare baselines
measured in the same run on the same machine.

  single-run POST   wrk on 127.0.0.1 posting one run per request to karted,
                    beside a bare libmicrohttpd handler (same event mode, no
                    parsing, no storage) under the same wrk load. Both
                    servers stay up for the whole comparison and wrk loads
                    them in turn, SECONDS each, ROUNDS times.
  bulk NDJSON       bodies of RUNS_PER_BODY runs posted one after another,
                    beside bare prepared inserts of the same rows into the
                    same indexed table (tests/bench/bare_sqlite.c), ROUNDS
                    times in turn.
  spread over 10^4 series
                    the same two comparisons with every run to the next of
                    SERIES series (tests/bench/post_spread.lua; bodies of
                    one run per series), as a site's many job scripts send
                    them: the series exist on both sides before the clock
                    starts (karted: one run each, posted first; bare
                    inserts: the series rows), the regression check on.
  regression check  single-run POST to karted holding each run against its
                    point's baseline (the default) beside the same karted
                    with --regression-check off, both up and loaded in turn
                    by wrk as above: the check's cost (target: >= 95 %).
                    Then its worst case: bodies of WORST_POINTS runs, each at
                    a point of its own that holds 100 earlier runs (a sweep
                    posted again), into one database, with and without the
                    check in turn (no target: it reads 100 runs per run).
  POSTs beside an import
                    four clients post single runs, one after another each,
                    for IMPORT_BESIDE_S seconds alone (the baseline), then
                    while a CSV of IMPORT_LINES runs is imported: the
                    latency of each POST, p50 / p99 / max of both phases
                    (target: p99 < 250 ms beside the import; it is stored
                    in parts between the POSTs).
  JSON-lines import an Extra-P JSON-lines file of IMPORT_LINES lines (a run
                    each) through POST /api/v1/import, beside bulk NDJSON of
                    as many runs (bodies of RUNS_PER_BODY) into a fresh karted,
                    IMPORT_ROUNDS times in turn: lines/s against runs/s.

Every load is bounded in time (wrk -d) or count, and goes to loopback only.
A round's ratio compares karted with the baseline measured just before it,
and the median of the rounds' ratios is reported: this VM's speed drifts by
2x within a minute, so a pair is kept seconds apart and one slow phase of
the host moves only a few of many rounds.
"""
import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import Karted, ROOT, temp_dir  # noqa: E402
import openapi_check  # noqa: E402

openapi_check.ENABLED = False  # a benchmark's clock counts karted, not the suites' schema check

LUA = os.path.join(ROOT, "tests", "bench", "post_run.lua")
RUN = {"system": "bench", "application": "md", "variant": "v1", "p": 16, "n": 80000, "tau": 12.5,
       "chi": 5.6, "frequency_mhz": 3000, "energy_j": 1234.5,
       "regions": [{"name": "resid", "time_s": 1.2, "energy_j": 150.3}], "labels": {"class": "C"}}


def settle(url, tries=50):
    """Wait until the server at url takes a new connection again. Just
    after wrk, until it has seen wrk's connections close, a new one from
    127.0.0.1 is over karted's per-address limit (64, as many as wrk opens
    here) and is refused: the next request of a bench would fail at random.
    Up to `tries` times 0.1 s."""
    host, port = re.match(r"http://([^/:]+):(\d+)", url).groups()
    for i in range(tries):
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        try:
            conn.request("GET", "/api/v1/health")
            conn.getresponse().read()
            return
        except (ConnectionResetError, ConnectionRefusedError, BrokenPipeError):
            if i == tries - 1:
                raise
            time.sleep(0.1)
        finally:
            conn.close()


def wrk(url, token, seconds, conns, script=LUA, env=None):
    out = subprocess.run(["wrk", "-t1", f"-c{conns}", f"-d{seconds}s", "-s", script, url],
                         capture_output=True, text=True, env=dict(os.environ, KARTE_TOKEN=token, **(env or {})),
                         timeout=seconds + 30)
    m = re.search(r"Requests/sec:\s+([\d.]+)", out.stdout)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out.stdout)
    if not m:
        raise RuntimeError("wrk: " + out.stdout + out.stderr)
    if bad:
        raise RuntimeError(f"wrk saw {bad.group(1)} failed requests: {out.stdout}")
    settle(url)
    return float(m.group(1))


class BareMhd:
    """tests/bench/bare_mhd on a free loopback port."""

    def __init__(self, binary):
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))  # the bare handler takes no port 0: pick a free one
        self.port = s.getsockname()[1]
        s.close()
        self.proc = subprocess.Popen([binary, str(self.port), "1"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.proc.stdout.readline()
        self.url = f"http://127.0.0.1:{self.port}/api/v1/runs"

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def post_bulk(k, bodies, per_body):
    """BODIES NDJSON bodies of PER_BODY runs to karted k, one after another:
    (runs/s, bytes per body)."""
    lines = []
    for i in range(per_body):
        r = dict(RUN, p=1 + i % 64, n=1000.0 + i)
        lines.append(json.dumps(r))
    body = ("\n".join(lines) + "\n").encode()
    t0 = time.perf_counter()
    post_ndjson(k, body, bodies)
    return bodies * per_body / (time.perf_counter() - t0), len(body)


def post_ndjson(k, body, times=1):
    """POST the NDJSON body to karted k times times on one connection; each
    must be answered 201."""
    host, port = k.host_port
    conn = http.client.HTTPConnection(host, port, timeout=600)
    try:
        for _ in range(times):
            conn.request("POST", "/api/v1/runs", body=body,
                         headers={"Content-Type": "application/x-ndjson", "Authorization": "Bearer " + k.first_token})
            resp = conn.getresponse()
            data = resp.read()
            if resp.status != 201:
                raise RuntimeError(f"bulk POST -> {resp.status} {data[:200]}")
    finally:
        conn.close()


def karted_bulk(binary, bodies, per_body, args=()):
    k = Karted(binary, args=args).start()
    try:
        return post_bulk(k, bodies, per_body)
    finally:
        k.stop()


def jsonl_file(lines):
    """An Extra-P JSON-lines file: every line a point and repetition of its own."""
    out = []
    for i in range(lines):
        out.append('{"params":{"p":%d,"n":%d},"callpath":"main","metric":"time","value":%.6g}'
                   % (1 + i % 64, 1000 + i // 64, 1.0 + (i % 977) / 1000))
    return ("\n".join(out) + "\n").encode()


def karted_import(binary, body, lines):
    k = Karted(binary, args=["--max-import-body", str(len(body) + 1)]).start()
    host, port = k.host_port
    conn = http.client.HTTPConnection(host, port, timeout=600)
    try:
        t0 = time.perf_counter()
        conn.request("POST", "/api/v1/import?format=extrap-jsonl&system=bench&application=md&variant=v1",
                     body=body, headers={"Authorization": "Bearer " + k.first_token})
        resp = conn.getresponse()
        data = resp.read()
        dt = time.perf_counter() - t0
        if resp.status != 201:
            raise RuntimeError(f"import -> {resp.status} {data[:300]}")
        runs = json.loads(data)["runs"]
        if runs != lines:
            raise RuntimeError(f"import made {runs} runs of {lines} lines")
        return lines / dt, len(body)
    finally:
        conn.close()
        k.stop()


def bare_sqlite(binary, rows, batch, series=1):
    d = temp_dir("karte-bench-")
    out = subprocess.run([binary, os.path.join(d, "bare.db"), str(rows), str(batch), str(series)],
                         capture_output=True, text=True, check=True)
    subprocess.run(["rm", "-rf", d])
    return float(out.stdout.split()[1])


def paired(rounds, what, base_name, unit, base_unit, base_fn, ours_fn, line, extra, target=50, alternate=False):
    """ROUNDS rounds of the baseline then karted (alternate: karted first in
    every other round, so a drift over the run, such as a growing WAL, does
    not favour either); each round's ratio is karted over the baseline
    measured beside it. Prints every round and the medians (rates and ratio)."""
    bare, ours, ratios = [], [], []
    for r in range(rounds):
        if alternate and r % 2:
            rate, info = ours_fn()
            bare.append(base_fn())
        else:
            bare.append(base_fn())
            rate, info = ours_fn()
        ours.append(rate)
        ratios.append(rate / bare[-1])
        print(f"  round {r + 1}: {line(bare[-1], rate, info)} = {100 * ratios[-1]:5.1f}%   {extra(info)}".rstrip(),
              flush=True)
    print(f"  karted {what} {statistics.median(ours):.0f} {unit}, {base_name} "
          f"{statistics.median(bare):.0f} {base_unit} (medians); median ratio {100 * statistics.median(ratios):.1f}%;"
          + (f" target >= {target}%" if target is not None else " no target"))


def single_run(a, karted, mhd):
    """Both servers up; wrk loads the bare handler, then karted, per round."""
    bare = BareMhd(mhd)
    k = Karted(karted).start()
    try:
        wrk(bare.url, "none", 1, a.conns)  # warm-up: connections, caches, the first pages
        wrk(k.url + "/api/v1/runs", k.first_token, 1, a.conns)
        _, h0, _ = k.request("GET", "/api/v1/health")
        paired(a.rounds, "single-run POST", "bare handler", "req/s", "req/s",
               lambda: wrk(bare.url, "none", a.seconds, a.conns),
               lambda: (wrk(k.url + "/api/v1/runs", k.first_token, a.seconds, a.conns), None),
               lambda b, o, _: f"bare libmicrohttpd {b:9.0f} req/s   karted {o:9.0f} req/s",
               lambda _: "", target=70)
        _, h1, _ = k.request("GET", "/api/v1/health")
    finally:
        k.stop()
        bare.stop()
    commits = max(h1["write_commits"] - h0["write_commits"], 1)
    print(f"  mean group commit: {(h1['write_requests'] - h0['write_requests']) / commits:.1f} requests")


def cpu_seconds(pid):
    """User and system CPU time of a process so far (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def check_cost(a, karted):
    """The ingest check's cost: karted with it against karted without, as
    throughput (disk-bound here, so noisy) and as karted's CPU time per
    request (what the check adds, steadier)."""
    off = Karted(karted, args=["--regression-check", "off"]).start()
    on = Karted(karted).start()
    cpu = {"off": [], "on": []}

    def loaded(k, name):
        c0 = cpu_seconds(k.proc.pid)
        rate = wrk(k.url + "/api/v1/runs", k.first_token, a.seconds, a.conns)
        cpu[name].append(1e6 * (cpu_seconds(k.proc.pid) - c0) / (rate * a.seconds))
        return rate
    try:
        for k in (off, on):  # warm-up; the point has its baseline from here on
            wrk(k.url + "/api/v1/runs", k.first_token, 1, a.conns)
        _, b, _ = on.request("POST", "/api/v1/runs", RUN, token=on.first_token)
        if b.get("verdicts") != ["ok"]:
            raise RuntimeError(f"the check did not run: {b}")
        paired(a.rounds, "single-run POST with the check", "without", "req/s", "req/s",
               lambda: loaded(off, "off"),
               lambda: (loaded(on, "on"), None),
               lambda b, o, _: f"check off {b:9.0f} req/s   check on {o:9.0f} req/s",
               lambda _: f"CPU {cpu['off'][-1]:5.1f} / {cpu['on'][-1]:5.1f} us per request",
               target=95, alternate=True)
        ratios = [x / y for x, y in zip(cpu["on"], cpu["off"])]
        print(f"  karted CPU per request: {statistics.median(cpu['on']):.1f} us with the check, "
              f"{statistics.median(cpu['off']):.1f} us without (medians); median ratio "
              f"{100 * statistics.median(ratios):.1f}% (the check's share: the excess over 100 %)")
    finally:
        on.stop()
        off.stop()
    check_worst(a, karted)


def check_worst(a, karted, points=1000, history=100, rounds=5):
    """The check's worst case: every run of a body at a point of its own
    whose window is not cached and holds `history` earlier runs."""
    db = os.path.join(temp_dir("karte-bench-"), "worst.db")
    lines = [json.dumps(dict(RUN, p=1 + i % 64, n=1000.0 + i)) for i in range(points)]
    body = ("\n".join(lines) + "\n").encode()

    def post(args, bodies):
        k = Karted(karted, db=db, args=args).start()
        token[0] = token[0] or k.first_token
        try:
            host, port = k.host_port
            conn = http.client.HTTPConnection(host, port, timeout=600)
            t0 = time.perf_counter()
            for _ in range(bodies):
                conn.request("POST", "/api/v1/runs", body=body, headers={
                    "Content-Type": "application/x-ndjson", "Authorization": "Bearer " + token[0]})
                resp = conn.getresponse()
                data = resp.read()
                if resp.status != 201:
                    raise RuntimeError(f"bulk POST -> {resp.status} {data[:200]}")
            return bodies * points / (time.perf_counter() - t0)
        finally:
            k.stop()
    token = [None]
    post(["--regression-check", "off"], history)  # the history, unchecked
    print(f"regression check, worst case: bodies of {points} runs, each at a point of its own with "
          f"{history} earlier runs, {rounds} rounds")
    paired(rounds, "bulk NDJSON with the check", "without", "runs/s", "runs/s",
           lambda: post(["--regression-check", "off"], 1), lambda: (post([], 1), None),
           lambda b, o, _: f"check off {b:9.0f} runs/s   check on {o:9.0f} runs/s", lambda _: "",
           target=None, alternate=True)


SERIES = 10000
SPREAD = os.path.join(ROOT, "tests", "bench", "post_spread.lua")


def spread_body(tag, n_runs=SERIES):
    """n_runs runs, one to each of SERIES series (application a0, a1, ...),
    all at point p = 1 + tag % 64, n = 1000 + tag // 64."""
    return ("\n".join(json.dumps(dict(RUN, system="grow", application=f"a{i % SERIES}", p=1 + tag % 64,
                                      n=1000.0 + tag // 64)) for i in range(n_runs)) + "\n").encode()


def with_series(karted, args=()):
    """A fresh karted holding the SERIES series, one run each."""
    k = Karted(karted, args=args).start()
    post_ndjson(k, spread_body(10 ** 6))
    return k


def spread(a, karted, mhd, sq):
    """Single-run POSTs and bulk bodies spread over SERIES series, against
    the same baselines as to one series."""
    print(f"single-run POST spread over {SERIES} series: wrk -t1 -c{a.conns} -d{a.seconds}s "
          f"(tests/bench/post_spread.lua), {a.rounds} rounds (both servers up, loaded in turn)")
    bare = BareMhd(mhd)
    k = with_series(karted)
    env = {"KARTE_SERIES": str(SERIES)}
    try:
        wrk(bare.url, "none", 1, a.conns, script=SPREAD, env=env)
        wrk(k.url + "/api/v1/runs", k.first_token, 1, a.conns, script=SPREAD, env=env)
        paired(a.rounds, "single-run POST, spread", "bare handler", "req/s", "req/s",
               lambda: wrk(bare.url, "none", a.seconds, a.conns, script=SPREAD, env=env),
               lambda: (wrk(k.url + "/api/v1/runs", k.first_token, a.seconds, a.conns, script=SPREAD, env=env),
                        None),
               lambda b, o, _: f"bare libmicrohttpd {b:9.0f} req/s   karted {o:9.0f} req/s",
               lambda _: "", target=70)
    finally:
        k.stop()
        bare.stop()
    rounds = max(3, a.rounds // 3)
    print(f"bulk NDJSON spread over {SERIES} series: {a.bodies} bodies of {SERIES} runs (one per series), "
          f"the check on; bare prepared inserts of as many rows over as many series in transactions of "
          f"{SERIES}; {rounds} rounds, fresh databases")

    def ours():
        k = with_series(karted)
        try:
            bodies = [spread_body(b) for b in range(a.bodies)]
            t0 = time.perf_counter()
            for body in bodies:
                post_ndjson(k, body)
            return a.bodies * SERIES / (time.perf_counter() - t0), len(bodies[0])
        finally:
            k.stop()
    paired(rounds, "bulk NDJSON, spread", "bare prepared inserts", "runs/s", "rows/s",
           lambda: bare_sqlite(sq, a.bodies * SERIES, SERIES, SERIES), ours,
           lambda b, o, size: f"bare SQLite inserts {b:9.0f} rows/s   karted NDJSON {o:9.0f} runs/s",
           lambda size: f"({size / 1e6:.1f} MB per body)", target=80, alternate=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=int, default=2, help="length of each wrk run")
    ap.add_argument("--conns", type=int, default=64, help="wrk connections")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--bodies", type=int, default=10)
    ap.add_argument("--runs-per-body", type=int, default=10000)
    ap.add_argument("--import-lines", type=int, default=1000000)
    ap.add_argument("--import-rounds", type=int, default=3)
    ap.add_argument("--only", choices=["import", "check", "beside", "spread"], help="only the import "
                    "comparison, the regression check's cost, the POSTs beside an import, or the runs spread "
                    "over many series")
    a = ap.parse_args()
    karted = os.path.join(a.build, "karted")

    if a.only == "import":
        return import_only(a, karted)
    if a.only == "check":
        return check_cost(a, karted)
    if a.only == "beside":
        return import_beside(a, karted)
    if a.only == "spread":
        return spread(a, karted, os.path.join(a.build, "bench", "bare_mhd"),
                      os.path.join(a.build, "bench", "bare_sqlite"))
    print(f"single-run POST: wrk -t1 -c{a.conns} -d{a.seconds}s on 127.0.0.1, {a.rounds} rounds "
          f"(both servers up, loaded in turn)")
    single_run(a, karted, os.path.join(a.build, "bench", "bare_mhd"))
    print(f"regression check: wrk -t1 -c{a.conns} -d{a.seconds}s, {a.rounds} rounds, karted with and "
          f"without --regression-check")
    check_cost(a, karted)
    sq = os.path.join(a.build, "bench", "bare_sqlite")
    # every run of a body at a point of its own: the regression check reads
    # each point's earlier runs (up to 9 here), so the ingest is shown
    # without it (what the target is about: storing) and with it
    for what, args, rounds in (("--regression-check off", ["--regression-check", "off"], a.rounds),
                               ("the check on (the default)", [], max(3, a.rounds // 3))):
        print(f"bulk NDJSON, {what}: {a.bodies} bodies of {a.runs_per_body} runs, each at a point of its "
              f"own; bare prepared inserts in transactions of {a.runs_per_body}; {rounds} rounds")
        paired(rounds, "bulk NDJSON", "bare prepared inserts", "runs/s", "rows/s",
               lambda: bare_sqlite(sq, a.bodies * a.runs_per_body, a.runs_per_body),
               lambda: karted_bulk(karted, a.bodies, a.runs_per_body, args),
               lambda b, o, size: f"bare SQLite inserts {b:9.0f} rows/s   karted NDJSON {o:9.0f} runs/s",
               lambda size: f"({size / 1e6:.1f} MB per body)", target=50 if args else 80)
    spread(a, karted, os.path.join(a.build, "bench", "bare_mhd"), sq)
    import_only(a, karted)
    import_beside(a, karted)


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def import_beside(a, karted, clients=4, alone_s=5):
    """Single-run POSTs alone, then beside a large import: their latency."""
    import threading
    n = a.import_lines
    body = ("p,n,tau\n" + "".join(f"{1 << (i % 6)},{1000 * (1 + i % 7)},{10 + i % 13 + i * 1e-9}\n"
                                  for i in range(n))).encode()
    k = Karted(karted, args=["--max-import-body", str(len(body) + 1)]).start()
    try:
        phase, lat, stop = ["alone"], {"alone": [], "import": []}, threading.Event()

        def client(c):
            host, port = k.host_port
            conn = http.client.HTTPConnection(host, port, timeout=120)
            run = json.dumps(dict(RUN, system=f"beside{c}")).encode()
            while not stop.is_set():
                t0 = time.perf_counter()
                conn.request("POST", "/api/v1/runs", body=run, headers={
                    "Content-Type": "application/json", "Authorization": "Bearer " + k.first_token})
                resp = conn.getresponse()
                resp.read()
                if resp.status != 201:
                    raise RuntimeError(f"POST beside the import -> {resp.status}")
                lat[phase[0]].append(time.perf_counter() - t0)
            conn.close()
        ts = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
        for t in ts:
            t.start()
        time.sleep(alone_s)
        phase[0] = "import"
        t0 = time.perf_counter()
        host, port = k.host_port
        conn = http.client.HTTPConnection(host, port, timeout=900)
        conn.request("POST", "/api/v1/import?format=csv&system=bench-import&application=md", body=body,
                     headers={"Authorization": "Bearer " + k.first_token})
        resp = conn.getresponse()
        data = resp.read()
        took = time.perf_counter() - t0
        stop.set()
        for t in ts:
            t.join()
        if resp.status != 201 or json.loads(data)["stored"] != n:
            raise RuntimeError(f"import -> {resp.status} {data[:300]}")
        print(f"single-run POSTs ({clients} clients) beside an import of {n} runs ({len(body) / 1e6:.0f} MB CSV, "
              f"{took:.1f} s):")
        for ph in ("alone", "import"):
            xs = lat[ph]
            print(f"  {ph:>6}: {len(xs):6d} POSTs, p50 {1e3 * percentile(xs, 0.5):7.1f} ms, p99 "
                  f"{1e3 * percentile(xs, 0.99):7.1f} ms, max {1e3 * max(xs):7.1f} ms")
        print(f"  p99 beside the import {1e3 * percentile(lat['import'], 0.99):.1f} ms, "
              f"{percentile(lat['import'], 0.99) / percentile(lat['alone'], 0.99):.1f}x alone; target < 250 ms")
    finally:
        k.stop()


def import_only(a, karted):
    lines = a.import_lines
    body = jsonl_file(lines)
    # an import does not run the regression check, so neither does the
    # NDJSON it is held to (with the check, 10^6 runs each at a point of
    # its own measure the check reading ever more earlier runs)
    print(f"JSON-lines import: a {len(body) / 1e6:.0f} MB Extra-P JSON-lines file of {lines} lines through "
          f"/api/v1/import; bulk NDJSON of {lines} runs in bodies of {a.runs_per_body}, --regression-check off "
          f"as an import; {a.import_rounds} rounds")
    paired(a.import_rounds, "JSON-lines import", "bulk NDJSON", "lines/s", "runs/s",
           lambda: karted_bulk(karted, lines // a.runs_per_body, a.runs_per_body, ["--regression-check", "off"])[0],
           lambda: karted_import(karted, body, lines),
           lambda b, o, size: f"karted NDJSON {b:9.0f} runs/s   karted import {o:9.0f} lines/s",
           lambda size: "")


if __name__ == "__main__":
    main()
