#!/usr/bin/env python3
"""A PostgreSQL that stalls must not stall karted (the contract's "Nothing
stalls karted"): its own throwaway cluster (tests/pg_cluster.py), a karted
on it, and two stalls, each bounded in time:

- the cluster's processes stopped (SIGSTOP: the kernel still accepts, the
  server never answers);
- a proxy between karted and the cluster that black-holes (accepts, reads,
  forwards nothing), then passes traffic again.

Meanwhile health says 503 within 3 s, and 200 within 5 s of the end;
static files, the OpenAPI description and /metrics answer within 1 s
throughout; a write with a token not seen before (its lookup on the event
loop) is a 503 within 2 s, never a hang, and works again after.

usage: tests/pg_stall.py --karted build/karted
Prints one line per test and 'pg_stall: N passed, M failed' last.
"""
import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import Karted, Suite, expect  # noqa: E402
from pg_cluster import PgCluster  # noqa: E402

SUITE = Suite("pg_stall")
test = SUITE.test


class S:
    binary = None
    pg = None


def timed(k, method, path, body=None, token=None, timeout=15):
    t0 = time.time()
    try:
        s, b, _ = k.request(method, path, body, token=token, timeout=timeout)
    except (OSError, TimeoutError) as e:
        s, b = None, str(e)
    return s, b, time.time() - t0


def until(k, path, want, limit):
    """Ask path until it answers want: the seconds it took, or None past limit."""
    t0 = time.time()
    while time.time() - t0 < limit:
        s, _, _ = timed(k, "GET", path, timeout=limit)
        if s == want:
            return time.time() - t0
        time.sleep(0.1)
    return None


def postgres_pids(pg):
    with open(os.path.join(pg.dir, "data", "postmaster.pid")) as f:
        main = int(f.readline())
    kids = subprocess.run(["pgrep", "-P", str(main)], capture_output=True, text=True).stdout.split()
    return [main] + [int(x) for x in kids]


def cheap_ones_answer(k, what):
    for path in ("/", "/api/v1/openapi.json", "/metrics", "/style.css"):
        s, _, dt = timed(k, "GET", path, timeout=5)
        expect(s == 200 and dt < 1.0, f"{what}: {path} answered in {dt:.2f} s ({s})")


def stalled_checks(k, fresh, what, system):
    """While the database stalls: health 503 within 3 s; the cheap routes
    within 1 s; a write whose token was not looked up yet a 503 within the
    deadline, never a hang; the cheap routes again."""
    down = until(k, "/api/v1/health", 503, 5)
    print(f"    {what}: health 503 after {down if down is None else round(down, 2)} s")
    expect(down is not None and down < 3, f"health 503 within 3 s ({down})")
    cheap_ones_answer(k, what)
    s, b, dt = timed(k, "POST", "/api/v1/runs", {"system": system, "application": "a", "p": 1, "n": 1,
                                                  "tau": 1.0}, token=fresh, timeout=10)
    print(f"    {what}: a write with a token not looked up yet: {s} in {dt:.2f} s")
    expect(s == 503 and dt < 2.5, f"a 503 within the deadline, never a hang ({s} {b} {dt:.2f} s)")
    cheap_ones_answer(k, f"{what}, after the write")


@test
def a_stopped_cluster_stalls_nothing():
    k = Karted(S.binary, db=S.pg.new_db(), args=["--no-first-token"]).start()
    try:
        expect(timed(k, "GET", "/api/v1/health")[0] == 200, "healthy first")
        fresh = k.token("made-before-the-stall")	# made now, looked up first during the stall
        pids = postgres_pids(S.pg)
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        stalled = time.time()
        try:
            stalled_checks(k, fresh, "SIGSTOP", "st")
        finally:
            for pid in pids:
                os.kill(pid, signal.SIGCONT)
        woke = time.time()
        up = until(k, "/api/v1/health", 200, 8)
        print(f"    SIGCONT after {woke - stalled:.1f} s stopped: health 200 after {up if up is None else round(up, 2)} s")
        expect(up is not None and up < 5, f"health 200 within 5 s of the end ({up})")
        t0 = time.time()
        while True:
            s, b, _ = timed(k, "POST", "/api/v1/runs", {"system": "st", "application": "a", "p": 1, "n": 1,
                                                         "tau": 1.0}, token=fresh, timeout=10)
            if s == 201 or time.time() - t0 > 10:
                break
            time.sleep(0.2)
        expect(s == 201, f"writes work again by themselves ({s} {b} after {time.time() - t0:.1f} s)")
    finally:
        expect(k.stop() == 0, "karted stops cleanly")


class BlackHole:
    """A TCP proxy on loopback to the cluster that forwards while open and,
    when closed, accepts and reads but forwards nothing (and keeps what it
    holds unanswered)."""

    def __init__(self, port):
        self.target = ("127.0.0.1", port)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.open = True
        self.stop = False
        self.held = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        self.sock.settimeout(0.2)
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            if not self.open:
                self.held.append(c)	# accepted, never answered
                continue
            try:
                s = socket.create_connection(self.target, timeout=5)
            except OSError:
                c.close()
                continue
            for a, b in ((c, s), (s, c)):
                threading.Thread(target=self.pipe, args=(a, b), daemon=True).start()

    def pipe(self, a, b):
        a.settimeout(0.2)
        while not self.stop:
            try:
                data = a.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                break
            if not data:
                break
            while not self.open and not self.stop:	# black-holed: held, not forwarded
                time.sleep(0.05)
            if not self.open or self.stop:
                break
            try:
                b.sendall(data)
            except OSError:
                break
        for x in (a, b):
            try:
                x.close()
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.sock.close()
        for c in self.held:
            c.close()


@test
def a_proxy_that_black_holes_stalls_nothing():
    proxy = BlackHole(S.pg.port)
    db = S.pg.new_db().replace(f":{S.pg.port}/", f":{proxy.port}/")
    k = Karted(S.binary, db=db, args=["--no-first-token"]).start()
    try:
        expect(timed(k, "GET", "/api/v1/health")[0] == 200, "healthy through the proxy")
        fresh = k.token("through-the-proxy")
        proxy.open = False
        stalled_checks(k, fresh, "black hole", "bh")
        time.sleep(1.0)
        proxy.open = True
        up = until(k, "/api/v1/health", 200, 8)
        print(f"    traffic back: health 200 after {up if up is None else round(up, 2)} s")
        expect(up is not None and up < 5, f"health 200 within 5 s of the end ({up})")
        cheap_ones_answer(k, "after")
    finally:
        expect(k.stop() == 0, "karted stops cleanly")
        proxy.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--karted", required=True)
    ap.add_argument("-k", dest="only")
    a = ap.parse_args()
    S.binary = a.karted
    with PgCluster() as pg:
        S.pg = pg
        sys.exit(1 if SUITE.run(a.only) else 0)


if __name__ == "__main__":
    main()
