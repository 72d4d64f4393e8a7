#!/usr/bin/env python3
"""make bench: single-run POSTs at saturation, karted beside two baselines
built by make bench, each on a fresh database every round:

  bare       tests/bench/bare_mhd: a libmicrohttpd handler that reads the
             body and answers 201 (no parsing, no storage);
  minimal    tests/bench/min_ingest: libmicrohttpd, jansson, one SQLite
             insert per run, group commit, the 201 after the commit, WAL
             and synchronous=NORMAL: the least a server that stores a run
             does;
  karted     at its defaults (SQLite, the regression check on).

wrk -t2 -c64 posts one run per request (tests/bench/post_run.lua's body)
for SECONDS, the three in turn (the order rotated each round), ROUNDS
rounds. Reported per server: requests/s, CPU a request (the server's user
+ system time over the requests it answered), and the latency's p50, p99,
p99.9 and max as wrk measured it: medians over the rounds, with the
spread (lowest-highest). Then karted against the minimal server: the
throughput ratio, CPU ratio, p99 ratio and p99.9 (goals: >= 100 %, <= 100 %,
<= 2x, < 50 ms). Loopback only; every load bounded by wrk -d.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import Karted, ROOT, free_port  # noqa: E402

LUA = os.path.join(ROOT, "tests", "bench", "post_run.lua")
REPORT = """
done = function(summary, latency, requests)
  io.write(string.format("KARTE-LAT %d %d %d %d %d %d\\n", latency:percentile(50), latency:percentile(99),
    latency:percentile(99.9), latency.max, summary.requests, summary.errors.status))
end
"""


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Plain:
    """A baseline program on a free loopback port and a fresh database."""

    def __init__(self, argv):
        self.port = free_port()
        self.proc = subprocess.Popen([a.replace("PORT", str(self.port)) for a in argv], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.proc.stdout.readline()
        self.url = f"http://127.0.0.1:{self.port}/api/v1/runs"
        self.pid = self.proc.pid

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


class KartedServer:
    def __init__(self, binary):
        self.k = Karted(binary).start()
        self.url = self.k.url + "/api/v1/runs"
        self.pid = self.k.proc.pid
        self.token = self.k.first_token

    def stop(self):
        self.k.stop()


def load(url, token, seconds, script):
    out = subprocess.run(["wrk", "-t2", "-c64", f"-d{seconds}s", "-s", script, url], capture_output=True,
                         text=True, env=dict(os.environ, KARTE_TOKEN=token or ""), timeout=seconds + 60)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out.stdout)
    lat = re.search(r"KARTE-LAT (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)", out.stdout)
    if not rps or not lat:
        raise RuntimeError("wrk: " + out.stdout + out.stderr)
    p50, p99, p999, mx, requests, bad = map(int, lat.groups())
    if bad:
        raise RuntimeError(f"{bad} requests failed: {out.stdout}")
    return {"rps": float(rps.group(1)), "p50": p50 / 1e3, "p99": p99 / 1e3, "p999": p999 / 1e3, "max": mx / 1e3,
            "requests": requests}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=10)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="karte-bench-ingest-")
    script = os.path.join(tmp, "post.lua")
    with open(LUA) as f, open(script, "w") as g:
        g.write(f.read() + REPORT)
    makers = {
        "bare": lambda r: Plain([os.path.join(a.build, "bench", "bare_mhd"), "PORT", "1"]),
        "minimal": lambda r: Plain([os.path.join(a.build, "bench", "min_ingest"), "PORT",
                                    os.path.join(tmp, f"min{r}.db")]),
        "karted": lambda r: KartedServer(os.path.join(a.build, "karted")),
    }
    names = list(makers)
    got = {n: [] for n in names}
    for r in range(a.rounds):
        order = names[r % 3:] + names[:r % 3]
        for name in order:
            srv = makers[name](r)
            try:
                load(srv.url, getattr(srv, "token", None), 2, script)  # warm: connections, pages, the series
                c0 = cpu_s(srv.pid)
                m = load(srv.url, getattr(srv, "token", None), a.seconds, script)
                m["cpu_us"] = (cpu_s(srv.pid) - c0) / m["requests"] * 1e6
                got[name].append(m)
            finally:
                srv.stop()
            time.sleep(1)
        print(f"round {r + 1}: " + ", ".join(f"{n} {got[n][-1]['rps']:.0f}/s p99 {got[n][-1]['p99']:.1f} ms"
                                            for n in names), flush=True)

    def med(n, k):
        v = [m[k] for m in got[n]]
        return statistics.median(v), min(v), max(v)

    for n in names:
        parts = []
        for k, unit, fmt in (("rps", "req/s", "{:.0f}"), ("cpu_us", "µs CPU a request", "{:.1f}"),
                             ("p50", "ms p50", "{:.2f}"), ("p99", "ms p99", "{:.2f}"),
                             ("p999", "ms p99.9", "{:.2f}"), ("max", "ms max", "{:.1f}")):
            m, lo, hi = med(n, k)
            parts.append(f"{fmt.format(m)} {unit} ({fmt.format(lo)}-{fmt.format(hi)})")
        print(f"ingest, {n}: " + ", ".join(parts))
    ratios = [k["rps"] / m["rps"] for k, m in zip(got["karted"], got["minimal"])]
    cpu = [k["cpu_us"] / m["cpu_us"] for k, m in zip(got["karted"], got["minimal"])]
    p99 = [k["p99"] / m["p99"] for k, m in zip(got["karted"], got["minimal"])]
    print(f"ingest, karted against the minimal server (each round's pair): throughput "
          f"{100 * statistics.median(ratios):.0f} % (rounds {100 * min(ratios):.0f}-{100 * max(ratios):.0f} %; "
          f"goal >= 100 %), CPU a request {100 * statistics.median(cpu):.0f} % (goal <= 100 %), p99 "
          f"{statistics.median(p99):.2f}x (goal <= 2x), p99.9 {med('karted', 'p999')[0]:.1f} ms (goal < 50 ms); "
          f"against the bare handler {100 * statistics.median([k['rps'] / b['rps'] for k, b in zip(got['karted'], got['bare'])]):.0f} %")


if __name__ == "__main__":
    main()
