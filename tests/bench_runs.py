#!/usr/bin/env python3
"""make bench, part 1: how fast karted takes runs, against bare baselines
measured in the same run on the same machine.

  single-run POST   wrk on 127.0.0.1 posting one run per request to karted,
                    beside a bare libmicrohttpd handler (same event mode, no
                    parsing, no storage) under the same wrk load
  bulk NDJSON       bodies of RUNS_PER_BODY runs posted one after another,
                    beside bare prepared inserts of the same rows into the
                    same indexed table (tests/bench/bare_sqlite.c)

Every load is bounded in time (wrk -d) or count, and goes to loopback only.
Each pair is measured ROUNDS times, alternating; a round's ratio compares
karted with the baseline measured right before it (this VM's speed drifts by
2x within a minute: short runs keep a pair close in time), and the median of
the rounds' ratios is reported (nine rounds: one slow phase of the host
moves a median of five by several points).
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
from karted_proc import Karted, ROOT  # noqa: E402

LUA = os.path.join(ROOT, "tests", "bench", "post_run.lua")
RUN = {"system": "bench", "application": "md", "variant": "v1", "p": 16, "n": 80000, "tau": 12.5,
       "chi": 5.6, "frequency_mhz": 3000, "energy_j": 1234.5,
       "regions": [{"name": "resid", "time_s": 1.2, "energy_j": 150.3}], "labels": {"class": "C"}}


def wrk(url, token, seconds, conns):
    out = subprocess.run(["wrk", "-t1", f"-c{conns}", f"-d{seconds}s", "-s", LUA, url],
                         capture_output=True, text=True, env=dict(os.environ, KARTE_TOKEN=token), timeout=seconds + 30)
    m = re.search(r"Requests/sec:\s+([\d.]+)", out.stdout)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out.stdout)
    if not m:
        raise RuntimeError("wrk: " + out.stdout + out.stderr)
    if bad:
        raise RuntimeError(f"wrk saw {bad.group(1)} failed requests: {out.stdout}")
    return float(m.group(1))


def bare_mhd(binary, seconds, conns):
    # port 0 is not offered by the bare handler: pick one free port first
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    p = subprocess.Popen([binary, str(port), "1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        p.stdout.readline()
        return wrk(f"http://127.0.0.1:{port}/api/v1/runs", "none", seconds, conns)
    finally:
        p.terminate()
        p.wait()


def karted_single(binary, seconds, conns):
    k = Karted(binary).start()
    try:
        rps = wrk(k.url + "/api/v1/runs", k.first_token, seconds, conns)
        s, b, _ = k.request("GET", "/api/v1/health")
        batch = b["write_requests"] / max(b["write_commits"], 1)
        return rps, batch
    finally:
        k.stop()


def karted_bulk(binary, bodies, per_body):
    k = Karted(binary).start()
    lines = []
    for i in range(per_body):
        r = dict(RUN, p=1 + i % 64, n=1000.0 + i)
        lines.append(json.dumps(r))
    body = ("\n".join(lines) + "\n").encode()
    host, port = k.host_port
    conn = http.client.HTTPConnection(host, port, timeout=120)
    try:
        t0 = time.perf_counter()
        for _ in range(bodies):
            conn.request("POST", "/api/v1/runs", body=body,
                         headers={"Content-Type": "application/x-ndjson", "Authorization": "Bearer " + k.first_token})
            resp = conn.getresponse()
            data = resp.read()
            if resp.status != 201:
                raise RuntimeError(f"bulk POST -> {resp.status} {data[:200]}")
        dt = time.perf_counter() - t0
        return bodies * per_body / dt, len(body)
    finally:
        conn.close()
        k.stop()


def bare_sqlite(binary, rows, batch):
    d = tempfile.mkdtemp(prefix="karte-bench-")
    out = subprocess.run([binary, os.path.join(d, "bare.db"), str(rows), str(batch)],
                         capture_output=True, text=True, check=True)
    subprocess.run(["rm", "-rf", d])
    return float(out.stdout.split()[1])


def paired(rounds, what, base_name, unit, base_unit, base_fn, ours_fn, line, extra):
    """ROUNDS rounds of the baseline then karted; each round's ratio is
    karted over the baseline measured just before it. Prints every round and
    the medians (rates and ratio)."""
    bare, ours, ratios = [], [], []
    for r in range(rounds):
        bare.append(base_fn())
        rate, info = ours_fn()
        ours.append(rate)
        ratios.append(rate / bare[-1])
        print(f"  round {r + 1}: {line(bare[-1], rate, info)} = {100 * ratios[-1]:5.1f}%   {extra(info)}",
              flush=True)
    print(f"  karted {what} {statistics.median(ours):.0f} {unit}, {base_name} "
          f"{statistics.median(bare):.0f} {base_unit} (medians); median ratio {100 * statistics.median(ratios):.1f}%;"
          f" target >= 50%")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=int, default=4, help="length of each wrk run")
    ap.add_argument("--conns", type=int, default=64, help="wrk connections")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--bodies", type=int, default=10)
    ap.add_argument("--runs-per-body", type=int, default=10000)
    a = ap.parse_args()
    karted = os.path.join(a.build, "karted")
    mhd = os.path.join(a.build, "bench", "bare_mhd")
    sq = os.path.join(a.build, "bench", "bare_sqlite")

    print(f"single-run POST: wrk -t1 -c{a.conns} -d{a.seconds}s on 127.0.0.1, {a.rounds} rounds")
    paired(a.rounds, "single-run POST", "bare handler", "req/s", "req/s",
           lambda: bare_mhd(mhd, a.seconds, a.conns),
           lambda: karted_single(karted, a.seconds, a.conns),
           lambda b, o, batch: f"bare libmicrohttpd {b:9.0f} req/s   karted {o:9.0f} req/s",
           lambda batch: f"(mean group commit {batch:.1f} requests)")
    print(f"bulk NDJSON: {a.bodies} bodies of {a.runs_per_body} runs; bare prepared inserts in "
          f"transactions of {a.runs_per_body}")
    paired(a.rounds, "bulk NDJSON", "bare prepared inserts", "runs/s", "rows/s",
           lambda: bare_sqlite(sq, a.bodies * a.runs_per_body, a.runs_per_body),
           lambda: karted_bulk(karted, a.bodies, a.runs_per_body),
           lambda b, o, size: f"bare SQLite inserts {b:9.0f} rows/s   karted NDJSON {o:9.0f} runs/s",
           lambda size: f"({size / 1e6:.1f} MB per body)")

if __name__ == "__main__":
    main()
