#!/usr/bin/env python3
"""Integration tests: real karted processes on loopback ports, real SQLite files.

usage: tests/integration.py --karted build/karted [-k NAME]

Every endpoint and error path of the Runs API, tokens, the CLI, migrations,
graceful stop on SIGTERM, durability of acknowledged runs across kill -9,
and the contract check tests/contract/runs_api.py. Each load loop is
bounded in count and time and talks to 127.0.0.1 or ::1 only.
Prints one line per test and 'N passed, M failed' last.
"""
import argparse
import collections
import http.client
import json
import math
import os
import re
import signal
import socket
import sqlite3
import subprocess
import urllib.request
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import Karted, ROOT, Suite, add_backend_option, expect, temp_dir, use_backend  # noqa: E402

SUITE = Suite("integration")
test = SUITE.test
sqlite_only = SUITE.sqlite_only


def run(**kw):
    base = dict(system="it-sys", application="it-app", p=4, n=1000.0, tau=2.0, chi=0.5)
    base.update(kw)
    return base


def in_threads(fn, n, timeout=120):
    """fn(0) .. fn(n - 1) at once, each in a thread of its own; waits for all."""
    ts = [threading.Thread(target=fn, args=(c,)) for c in range(n)]
    for x in ts:
        x.start()
    for x in ts:
        x.join(timeout)


# ---- one shared server for the API tests -----------------------------------

class Shared:
    k = None
    token = None
    cflags = []


@test
def first_start_prints_url_and_token():
    k = Shared.k
    expect(k.url.startswith("http://127.0.0.1:"), f"URL printed ({k.url})")
    expect(re.fullmatch(r"kt_[A-Za-z0-9_-]{43}", k.first_token or ""),
           f"first start prints a write token ({k.first_token})")
    s, b, _ = k.request("POST", "/api/v1/runs", run(), token=k.first_token)
    expect(s == 201, f"the first-start token writes ({s} {b})")


def chunked_post(k, token, total, chunk=1 << 16):
    """POST total bytes with chunked transfer encoding (no Content-Length)."""
    host, port = k.host_port
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        conn.putrequest("POST", "/api/v1/runs")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Transfer-Encoding", "chunked")
        conn.putheader("Authorization", "Bearer " + token)
        conn.endheaders()
        sent = 0
        piece = b" " * chunk
        try:
            while sent < total:
                conn.send(b"%x\r\n%s\r\n" % (len(piece), piece))
                sent += len(piece)
            conn.send(b"0\r\n\r\n")
        except OSError:
            pass
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


@test
def bodies_over_the_limit_get_413():
    k, t = Shared.k, Shared.token
    host, port = k.host_port
    conn = http.client.HTTPConnection(host, port, timeout=30)
    conn.putrequest("POST", "/api/v1/runs")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(9 << 20))
    conn.putheader("Authorization", "Bearer " + t)
    conn.endheaders()
    resp = conn.getresponse()  # answered from the headers alone, before any body
    body = json.loads(resp.read())
    conn.close()
    expect(resp.status == 413 and "limit" in body["error"], f"Content-Length 9 MiB -> 413 ({resp.status})")
    s, b = chunked_post(k, t, 9 << 20)
    expect(s == 413, f"chunked 9 MiB -> 413 ({s} {b[:100]})")
    s, b = chunked_post(k, t, 1 << 16)
    expect(s == 400, f"chunked small body of blanks -> 400 (empty body) ({s} {b[:100]})")


@test
def garbage_on_the_socket_does_not_hurt():
    k = Shared.k
    host, port = k.host_port
    for junk in (b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -3\r\n\r\n",
                 b"\x00\xff" * 100, b"POST /api/v1/runs HTTP/1.1\r\n"):
        with socket.create_connection((host, port), timeout=1) as s:
            s.sendall(junk)
            s.shutdown(socket.SHUT_WR)
            try:
                s.recv(4096)
            except OSError:
                pass
    s, b, _ = k.request("GET", "/api/v1/health")
    expect(s == 200 and b["status"] == "ok", f"still serving ({s} {b})")


@test
def listing_filters_and_counts():
    k, t = Shared.k, Shared.token
    rows = [run(system="list-A", application="md", variant="", p=p, n=n) for p in (1, 2, 4) for n in (100, 200)]
    rows += [run(system="list-A", application="md", variant="v2", p=8, n=100),
             run(system="list-B", application="md", p=8, n=100),
             run(system="list-A", application="cg-it", p=2, n=100)]
    s, b, _ = k.request("POST", "/api/v1/runs", rows, token=t)
    ids = b["ids"]
    s, b, _ = k.request("GET", "/api/v1/runs?system=list-A&application=md")
    expect([r["id"] for r in b["runs"]] == sorted(ids[:7], reverse=True), "newest first, both variants")
    s, b, _ = k.request("GET", "/api/v1/runs?system=list-A&application=md&variant=")
    expect(len(b["runs"]) == 6, f"variant='' selects the default variant ({len(b['runs'])})")
    s, b, _ = k.request("GET", "/api/v1/runs?system=list-A&application=md&variant=v2")
    expect(len(b["runs"]) == 1 and b["runs"][0]["variant"] == "v2", "variant=v2")
    s, b, _ = k.request("GET", "/api/v1/runs?system=list-A&p=2")
    expect(sorted(r["id"] for r in b["runs"]) == sorted([ids[2], ids[3], ids[8]]), f"p=2 ({b['runs']})")
    s, b, _ = k.request("GET", "/api/v1/runs?system=list-A&application=md&n=200")
    expect(len(b["runs"]) == 3 and all(r["n"] == 200 for r in b["runs"]), "n=200")
    s, b, _ = k.request("GET", "/api/v1/systems")
    counts = {x["name"]: x["runs"] for x in b["systems"]}
    expect(counts.get("list-A") == 8 and counts.get("list-B") == 1, f"/systems counts ({counts})")
    expect(all(x["last_run_at"] for x in b["systems"]), "each system has last_run_at")
    s, b, _ = k.request("GET", "/api/v1/applications")
    counts = {x["name"]: x["runs"] for x in b["applications"]}
    expect(counts.get("cg-it") == 1, f"/applications counts ({counts})")
    s, b, _ = k.request("GET", "/api/v1/series")
    ser = {(x["system"], x["application"], x["variant"]): x["runs"] for x in b["series"]}
    expect(ser.get(("list-A", "md", "")) == 6 and ser.get(("list-A", "md", "v2")) == 1, f"/series ({ser})")


@test
def concurrent_single_posts_keep_their_text_ids_and_counts():
    # Many clients posting one run each form group commits of several runs
    # (on PostgreSQL: the pipelined commit of pending runs, then the locked
    # path once an idempotency key joins a batch). Every run must come back
    # exactly as posted, with an id of its own, and the series counts agree.
    k, t = Shared.k, Shared.token
    odd = 'quote" back\\ comma, {brace} NULL \u00fc \u20ac'
    threads, per = 8, 30
    sent, errors = {}, []

    def client(c):
        for i in range(per):
            j = c * per + i
            r = run(system="rt-sys", p=1 + j % 16, n=1000.0 + j, tau=1.0 + j / 7,
                    labels={"t": f"{j} {odd}", "c": str(c)}, measured_at=f"2026-11-23T10:{j % 60:02d}:00Z",
                    regions=[{"name": f"r{j} {odd}", "time_s": 0.25 * (j + 1)}])
            if j % 3 == 0:
                del r["chi"]  # tau alone
            if j % 5 == 0:
                r["idempotency_key"] = f"rt-{j}"
                r["energy_j"] = 10.0 * j + 0.5
            s, b, _ = k.request("POST", "/api/v1/runs", r, token=t)
            if s != 201:
                errors.append((j, s, b))
                continue
            sent[b["ids"][0]] = r
            if j % 5 == 0:  # the repeat answers the first id and stores nothing
                s2, b2, _ = k.request("POST", "/api/v1/runs", r, token=t)
                if (s2, b2["ids"]) != (200, b["ids"]):
                    errors.append((j, "repeat", s2, b2, b))
    in_threads(client, threads)
    expect(not errors, f"every post answered 201, every repeat 200 with its id ({errors[:3]})")
    expect(len(sent) == threads * per, f"{threads * per} distinct ids ({len(sent)})")
    for rid, r in sent.items():
        s, b, _ = k.request("GET", f"/api/v1/runs/{rid}")
        got = {key: b.get(key) for key in r}
        got["regions"] = [{kk: v for kk, v in x.items() if kk in ("name", "time_s", "energy_j")}
                          for x in b.get("regions") or []]
        expect(s == 200 and got == r, f"run {rid} comes back as posted ({got} != {r})")
    s, b, _ = k.request("GET", "/api/v1/series")
    ser = {(x["system"], x["application"]): x["runs"] for x in b["series"]}
    expect(ser.get(("rt-sys", "it-app")) == threads * per, f"/series counts {threads * per} ({ser})")


@test
def concurrent_single_posts_spread_over_many_series_land_in_theirs():
    # Clients posting to many series at once: a group commit then holds runs
    # of up to 256 series (on PostgreSQL the one-statement commit of pending
    # runs, whose series the writer keeps by name). Each run must land in the
    # series it names, and each series count its runs.
    k, t = Shared.k, Shared.token
    threads, nseries, per = 12, 600, 2
    ids, errors = {}, []

    def client(c):
        for j in range(c, nseries * per, threads):
            i = j % nseries
            s, b, _ = k.request("POST", "/api/v1/runs", run(system="spread-sys", application=f"s{i}", p=1 + i % 64,
                                                             tau=1.0 + j), token=t)
            if s != 201:
                errors.append((j, s, b))
                continue
            ids.setdefault(i, []).append(b["ids"][0])
    in_threads(client, threads)
    expect(not errors, f"every post answered 201 ({errors[:3]})")
    s, b, _ = k.request("GET", "/api/v1/series")
    ser = {x["application"]: x for x in b["series"] if x["system"] == "spread-sys"}
    expect(len(ser) == nseries and all(x["runs"] == per for x in ser.values()),
           f"{nseries} series of {per} runs each ({len(ser)}; {[x for x in ser.values() if x['runs'] != per][:3]})")
    for i in (0, 1, 255, 256, 599):
        s, b, _ = k.request("GET", f"/api/v1/runs?system=spread-sys&application=s{i}&limit=10")
        got = sorted(r["id"] for r in b["runs"])
        expect(s == 200 and got == sorted(ids.get(i, [])) and all(r["application"] == f"s{i}" for r in b["runs"]),
               f"series s{i} holds the runs posted to it ({got} != {sorted(ids.get(i, []))})")


@test
def pagination_is_stable_under_concurrent_inserts():
    k, t = Shared.k, Shared.token
    s, b, _ = k.request("POST", "/api/v1/runs", [run(system="page-sys", p=i) for i in range(1, 51)], token=t)
    original = set(b["ids"])
    seen, rows, cursor, pages = set(), 0, None, 0
    while pages < 30:
        q = "/api/v1/runs?system=page-sys&limit=7" + (f"&after={cursor}" if cursor else "")
        s, b, _ = k.request("GET", q)
        expect(s == 200, f"page {pages} -> 200")
        seen.update(r["id"] for r in b["runs"])
        rows += len(b["runs"])
        # new runs land between pages; they are newer and must not shift the walk
        k.request("POST", "/api/v1/runs", [run(system="page-sys", p=100 + pages)], token=t)
        cursor, pages = b["next"], pages + 1
        if not cursor:
            break
    expect(seen == original and rows == 50, f"every original run once ({len(seen & original)} of 50, {rows} rows)")


@test
def static_files_and_headers():
    k = Shared.k
    s, b, h = k.request("GET", "/")
    expect(s == 200 and h["Content-Type"].startswith("text/html"), f"/ -> HTML ({s} {h.get('Content-Type')})")
    expect("default-src 'self'" in h.get("Content-Security-Policy", ""), "CSP on pages")
    s, b, h = k.request("GET", "/../../etc/passwd")
    expect(s == 404, f"no escape from static/ ({s})")
    s, b, h = k.request("POST", "/index.html", "{}")
    expect(s == 405, f"POST to a page -> 405 ({s})")
    s, b, h = k.request("GET", "/api/v1/health")
    expect(h.get("Cache-Control") == "no-store" and h.get("X-Content-Type-Options") == "nosniff",
           f"API answers are not cached ({h})")
    expect(b["store"] == ("postgresql" if k.on_pg else "sqlite") and b["schema_version"] == 15,
           f"health names the backend and schema ({b})")
    s, b, h = k.request("POST", "/api/v1/runs", run(p=0), token=k.first_token)
    expect(s == 400 and h.get("X-Content-Type-Options") == "nosniff" and h.get("Cache-Control") == "no-store",
           f"errors of a POST keep nosniff and no-store ({s} {h})")
    s, b, h = k.request("POST", "/api/v1/runs", run(system="hdr-sys"), token=k.first_token)
    expect(s == 201 and h.get("Content-Type") == "application/json" and "Cache-Control" not in h,
           f"a POST that stored runs answers with Content-Type only ({s} {h})")


@test
def token_cli_create_list_revoke():
    k = Shared.k
    tok = k.token("it-revoke")
    expect(re.fullmatch(r"kt_[A-Za-z0-9_-]{43}", tok), f"token create prints only the token ({tok!r})")
    out = subprocess.run([k.binary, "token", "list", "--db", k.db], capture_output=True, text=True)
    expect(out.returncode == 0 and "it-revoke" in out.stdout and tok not in out.stdout,
           f"token list names tokens, never shows them ({out.stdout})")
    if k.on_pg:
        blob = k.sql("SELECT name || hash FROM tokens").encode()
    else:
        with open(k.db, "rb") as f:
            blob = f.read()
        wal = k.db + "-wal"
        if os.path.exists(wal):
            with open(wal, "rb") as f:
                blob += f.read()
    expect(tok.encode() not in blob, "the token itself is not in the database")
    s, b, _ = k.request("POST", "/api/v1/runs", run(), token=tok)
    expect(s == 201, f"new token writes ({s})")
    # karted now remembers tok as sent: near misses must still fail
    for near in (tok[:-1] + ("A" if tok[-1] != "A" else "B"), tok[:-1], tok + "A"):
        s, b, _ = k.request("POST", "/api/v1/runs", run(), token=near)
        expect(s == 401, f"a token one character off a remembered one -> 401 ({s})")
    dup = subprocess.run([k.binary, "token", "create", "it-revoke", "--db", k.db], capture_output=True, text=True)
    expect(dup.returncode != 0 and dup.stdout == "" and "exists" in dup.stderr, f"duplicate name refused ({dup.stderr})")
    rv = subprocess.run([k.binary, "token", "revoke", "it-revoke", "--db", k.db], capture_output=True, text=True)
    expect(rv.returncode == 0, f"revoke ok ({rv.stderr})")
    time.sleep(1.2)  # karted remembers a valid token for at most 1 s
    s, b, _ = k.request("POST", "/api/v1/runs", run(), token=tok)
    expect(s == 401, f"revoked token -> 401 ({s})")
    rv = subprocess.run([k.binary, "token", "revoke", "nobody", "--db", k.db], capture_output=True, text=True)
    expect(rv.returncode == 1 and "no active token" in rv.stderr, f"revoking an unknown name fails ({rv.stderr})")


def metric(k, name):
    """The value of one sample of karted k's /metrics (name with its labels)."""
    return k.metric(name)


def token_lookups(k):
    return metric(k, "karte_token_lookups_total")


@test
def the_units_are_sandboxed_and_karted_says_when_it_is_ready():
    """deploy/'s units rate 2.0 or less in systemd-analyze security (offline,
    as the unit files are), use Type=notify, and karted sends READY=1 once
    it listens and STOPPING=1 when told to stop, on $NOTIFY_SOCKET."""
    for unit in ("karted.service", "karted@.service"):
        r = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager",
                            os.path.join(ROOT, "deploy", unit)], capture_output=True, text=True, timeout=60)
        m = re.search(r"Overall exposure level for \S+: ([\d.]+)", r.stdout)
        expect(m and float(m.group(1)) <= 2.0, f"{unit}: exposure {m and m.group(1)} ({r.stdout[-300:]} {r.stderr})")
        with open(os.path.join(ROOT, "deploy", unit)) as f:
            expect("Type=notify\n" in f.read(), f"{unit} is Type=notify")
    d = temp_dir("karte-notify-")
    path = os.path.join(d, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(10)
    try:
        k = Karted(Shared.binary, env={"NOTIFY_SOCKET": path}).start()
        try:
            ready = sock.recv(4096).decode()
            expect(ready.startswith("READY=1\n") and f"STATUS=serving {k.url}/" in ready,
                   f"READY=1 with the URL once it listens ({ready!r}, {k.url})")
            s, _, _ = k.request("GET", "/api/v1/health")
            expect(s == 200, "it answers when it said so")
        finally:
            k.signal(signal.SIGTERM)
            k.wait()
        stopping = sock.recv(4096).decode()
        expect(stopping == "STOPPING=1", f"STOPPING=1 when told to stop ({stopping!r})")
    finally:
        sock.close()


@test
def an_access_log_when_asked_one_line_a_request():
    k = Karted(Shared.binary, args=["--access-log"]).start()
    try:
        s, _, _ = k.request("GET", "/api/v1/health")
        s2, _, _ = k.request("GET", "/api/v1/no%0Awhere\\")
        line = k.log_line("access GET /api/v1/health")
        expect(s == 200 and re.fullmatch(r"karted: access GET /api/v1/health 200 \d+\.\d{3} ms [0-9a-f]{16}", line),
               f"method, path, status, milliseconds and request id ({line!r})")
        bad = k.log_line("access GET /api/v1/no")
        expect(s2 == 404 and bad.startswith("karted: access GET /api/v1/no\\x0awhere\\x5c 404 "),
               f"a newline in a path stays on its line, escaped ({bad!r})")
    finally:
        k.stop()
    quiet = Karted(Shared.binary).start()
    try:
        quiet.request("GET", "/api/v1/health")
        expect(quiet.log_line("access", timeout=0.5) == "", "no access log unless asked")
    finally:
        quiet.stop()


@test
def log_lines_carry_their_level_and_the_level_set_filters_them():
    """A warning (a bad KARTE_HTTP_SPIN_US, ignored) and an info line (the
    stop) at each level; under systemd, with stderr the journal's stream,
    each line starts with its syslog priority for journald."""
    def lines(level, journal=False, extra_env=None):
        d = temp_dir("karte-log-")
        err_path = os.path.join(d, "stderr")
        with open(err_path, "w") as err:
            st = os.fstat(err.fileno())
            env = {n: v for n, v in os.environ.items() if n != "JOURNAL_STREAM"}
            env.update(KARTE_HTTP_SPIN_US="abc", **(extra_env or {}))
            if journal:
                env["JOURNAL_STREAM"] = f"{st.st_dev}:{st.st_ino}"
            args = [Shared.binary, "serve", "--listen", "127.0.0.1:0", "--db", os.path.join(d, "k.db"),
                    "--no-first-token"] + (["--log-level", level] if level else [])
            p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err, env=env, text=True)
            expect("serving" in p.stdout.readline(), "karted started")
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=15)
        with open(err_path) as f:
            return [x for x in f.read().splitlines() if "KARTE_HTTP_SPIN_US" in x or "stopped" in x]

    warn = "karted: warning: KARTE_HTTP_SPIN_US must be 0 to 10000 (got 'abc'); ignored"
    stop = "karted: SIGTERM: stopped"
    expect(lines(None) == [warn, stop], f"info by default: both ({lines(None)})")
    expect(lines("debug") == [warn, stop], "debug: both")
    expect(lines("warning") == [warn], f"warning: the warning alone ({lines('warning')})")
    expect(lines("error") == [], "error: neither")
    expect(lines(None, extra_env={"KARTE_LOG_LEVEL": "warning"}) == [warn], "KARTE_LOG_LEVEL sets it too")
    got = lines(None, journal=True)
    expect(got == ["<4>" + warn, "<6>" + stop], f"the journal gets each line's priority ({got})")
    got = lines(None, extra_env={"JOURNAL_STREAM": "1:2"})
    expect(got == [warn, stop], f"JOURNAL_STREAM of another stream (inherited) adds none ({got})")
    bad = subprocess.run([Shared.binary, "serve", "--log-level", "loud"], capture_output=True, text=True, timeout=10)
    expect(bad.returncode != 0 and "--log-level must be error, warning, info or debug (got 'loud')" in bad.stderr,
           f"a bad level is refused, naming the option ({bad.returncode} {bad.stderr})")


@test
def check_memory_bounds_the_windows_the_check_keeps():
    """--check-memory (MiB) is the most the check's windows take: a bad
    value is refused naming the option or variable; with 1 MiB and 4,000
    points of six runs each (about 3 MiB of windows), karted keeps them
    under 1 MiB, lets some go and reads them again, and still finds a
    regression at every point."""
    for args, env, name in ((["--check-memory", "0"], {}, "--check-memory"),
                            (["--check-memory", "65537"], {}, "--check-memory"),
                            ([], {"KARTE_CHECK_MEMORY": "lots"}, "KARTE_CHECK_MEMORY")):
        bad = subprocess.run([Shared.binary, "serve"] + args, capture_output=True, text=True, timeout=10,
                             env=dict(os.environ, **env))
        expect(bad.returncode != 0 and f"{name} must be a whole number from 1 to 65536" in bad.stderr,
               f"{args or env} refused, naming {name} ({bad.returncode} {bad.stderr})")
    k = Karted(Shared.binary, args=["--check-memory", "1"]).start()
    try:
        def body(tau):
            return "".join(json.dumps(run(system="budget", application=f"a{i % 40}", p=1 + i // 40, n=100.0,
                                          tau=tau, chi=0.5)) + "\n" for i in range(4000))
        for _ in range(6):
            s, b, _ = k.request("POST", "/api/v1/runs", body(10.0), ctype="application/x-ndjson", token=k.first_token)
            expect(s == 201 and set(b["verdicts"]) == {"ok"}, f"stored, all ok ({s})")
            kept = metric(k, "karte_check_window_bytes")
            expect(0 < kept <= 1 << 20, f"the windows take at most 1 MiB ({kept} bytes)")
        expect(metric(k, 'karte_check_window_drops_total{reason="budget"}') > 0 and
               metric(k, "karte_check_windows") < 4000, "some windows were let go of for the budget")
        s, b, _ = k.request("POST", "/api/v1/runs", body(13.0), ctype="application/x-ndjson", token=k.first_token)
        expect(s == 201 and set(b["verdicts"]) == {"regression"},
               f"13 s against six runs of 10 s: a regression at every point, kept or read again "
               f"({s} {collections.Counter(b.get('verdicts', []))})")
    finally:
        k.stop()


@test
def a_new_point_of_a_series_followed_whole_is_not_read():
    """A series whose first run this karted stored is followed whole: its
    new points begin empty windows without a read
    (karte_check_windows_begun_total), and judge as if read (a regression
    found at such a point once it has runs). After a restart the series
    is not followed whole: a new point is read again, and still judged
    against every run it holds."""
    k = Karted(Shared.binary).start()
    db = k.db

    def post(k, p, tau):
        s, b, _ = k.request("POST", "/api/v1/runs", run(system="whole", application="w", p=p, tau=tau),
                            token=token)
        expect(s == 201, f"stored ({s} {b})")
        return b["verdicts"][0]
    token = k.first_token  # the database keeps it across the restart
    try:
        for _ in range(6):
            expect(post(k, 1, 10.0) == "ok", "the series' first point")
        reads, begun = metric(k, "karte_check_window_reads_total"), metric(k, "karte_check_windows_begun_total")
        expect(reads == 0 and begun == 1, f"its first point begun without a read ({reads} reads, {begun} begun)")
        for _ in range(6):
            expect(post(k, 2, 10.0) == "ok", "a new point of it")
        expect(post(k, 2, 30.0) == "regression", "30 s against six runs of 10 s at the new point")
        expect(post(k, 1, 30.0) == "regression", "and at the first")
        reads, begun = metric(k, "karte_check_window_reads_total"), metric(k, "karte_check_windows_begun_total")
        expect(reads == 0 and begun == 2, f"two points begun, none read ({reads} reads, {begun} begun)")
        expect(post(k, 4, 10.0) == "ok" and metric(k, "karte_check_windows_begun_total") == 3,
               "a third point begun")
    finally:
        k.stop()
    k = Karted(Shared.binary, db=db).start()
    try:
        expect(post(k, 8, 10.0) == "ok", "a new point after the restart (the token kept)")
        reads, begun = metric(k, "karte_check_window_reads_total"), metric(k, "karte_check_windows_begun_total")
        expect(reads == 1 and begun == 0, f"after a restart the series is read, not followed whole "
                                          f"({reads} reads, {begun} begun)")
        expect(post(k, 2, 30.0) == "regression", "an old point after the restart: its runs read")
    finally:
        k.stop()


@sqlite_only
@test
def a_new_point_sees_the_runs_another_connection_stored():
    """Runs another connection stores at a point new to karted, in a series
    karted follows whole, are read when karted first meets the point: the
    series is no longer whole once another connection wrote."""
    k = Karted(Shared.binary).start()
    try:
        def post(p, tau):
            s, b, _ = k.request("POST", "/api/v1/runs", run(system="whole2", application="w", p=p, tau=tau),
                                token=k.first_token)
            expect(s == 201, f"stored ({s} {b})")
            return b["verdicts"][0]
        expect(post(1, 10.0) == "ok", "the series made here")
        expect(metric(k, "karte_check_windows_begun_total") == 1, "followed whole")
        sid = k.sql("SELECT id FROM series WHERE system = 'whole2'")
        import sqlite3
        db = sqlite3.connect(k.db)
        with db:
            for i in range(6):
                db.execute("INSERT INTO runs (series_id, p, n, tau, created_at) VALUES (?, 16, 1000.0, 10.0, ?)",
                           (int(sid), f"2026-01-01T00:00:0{i}.000Z"))
        db.close()
        expect(post(16, 30.0) == "regression",
               "30 s at the point another connection stored six runs of 10 s at: a regression, not a new point")
        expect(metric(k, "karte_check_windows_begun_total") == 1, "that point was read, not begun")
    finally:
        k.stop()


@sqlite_only
@test
def under_systemd_the_first_token_goes_to_a_file_not_the_journal():
    k = Karted(Shared.binary, env={"JOURNAL_STREAM": "8:4711"})
    k.start()
    try:
        path = os.path.join(os.path.dirname(k.db), "first-token")
        expect(k.first_token is None and os.path.exists(path), f"not printed, written to {path}")
        expect(os.stat(path).st_mode & 0o777 == 0o600, f"mode 600 ({oct(os.stat(path).st_mode)})")
        with open(path) as f:
            token = f.read().strip()
        s, b, _ = k.request("POST", "/api/v1/runs", {"system": "tok", "application": "a", "p": 1, "n": 1, "tau": 1},
                            token=token)
        expect(s == 201, f"the token in the file is a write token ({s} {b})")
    finally:
        k.stop()
    k2 = Karted(Shared.binary, db=k.db, env={"JOURNAL_STREAM": "8:4711"}).start()
    try:
        with open(path) as f:
            expect(f.read().strip() == token, "a later start leaves the file as it was")
    finally:
        k2.stop()
    state = temp_dir("karte-state-")
    k3 = Karted(Shared.binary, env={"JOURNAL_STREAM": "8:4711", "STATE_DIRECTORY": state}).start()
    try:
        expect(os.path.exists(os.path.join(state, "first-token")), "in $STATE_DIRECTORY when systemd gives one")
    finally:
        k3.stop()


@test
def metrics_say_which_karted_answers():
    s, m, _ = Shared.k.request("GET", "/metrics")
    text = m.decode() if isinstance(m, bytes) else str(m)
    v = subprocess.run([Shared.binary, "--version"], capture_output=True, text=True).stdout.split()
    expect(s == 200 and "# TYPE karte_build_info gauge" in text and
           f'karte_build_info{{version="{v[1]}",schema="{v[3].rstrip(")")}"}} 1' in text.splitlines(),
           f"karte_build_info with the version and schema of karted --version ({v}; {text[:300]})")


@test
def threads_carry_their_names():
    """top -H and gdb tell karted's threads apart: the event loop, the
    writer, the checkpointer, the health probe and each lane's workers
    carry their names (docs/operations.md, "How karted is built")."""
    pid = Shared.k.proc.pid
    names = sorted(open(f"/proc/{pid}/task/{t}/comm").read().strip() for t in os.listdir(f"/proc/{pid}/task"))
    want = ["karted", "karted-ckpt", "karted-probe", "karted-quick0", "karted-quick1", "karted-slow0",
            "karted-slow1", "karted-write0", "karted-writer"]
    if "karted-ckpt" not in names:  # PostgreSQL checkpoints itself: no checkpointer there
        want.remove("karted-ckpt")
    expect(names == want, f"the threads' names: {names}")


@test
def a_flood_of_wrong_bearers_costs_one_lookup_each():
    """A wrong token is remembered as wrong for a second: 300 requests
    with three wrong bearers cost three lookups per second they span, not
    300; each is still a 401."""
    k = Shared.k
    before = token_lookups(k)
    t0 = time.monotonic()
    statuses = set()
    for i in range(300):
        statuses.add(k.request("POST", "/api/v1/runs", run(), token=f"kt_wrong{i % 3}")[0])
    took = time.monotonic() - t0
    looked = token_lookups(k) - before
    bound = 3 * (int(took / 1.0) + 2)
    expect(statuses == {401}, f"every wrong bearer is a 401 ({statuses})")
    expect(3 <= looked <= bound, f"{looked} lookups for 300 wrong bearers in {took:.2f} s (at most {bound})")
    print(f"    300 wrong bearers in {took:.2f} s: {looked} lookups")


@test
def contract_check_passes():
    k, t = Shared.k, Shared.token
    script = os.path.join(ROOT, "tests", "contract", "runs_api.py")
    if not os.path.exists(script):
        raise AssertionError(f"contract check not found at {script}")
    env = dict(os.environ, KB_URL=k.url, KB_TOKEN=k.token("contract"))
    out = subprocess.run([sys.executable, script], capture_output=True, text=True, env=env, timeout=300)
    last = (out.stdout.strip().splitlines() or [""])[-1]
    expect(out.returncode == 0, f"runs_api.py: {out.stdout[-2000:]} {out.stderr[-2000:]}")
    print(f"    {last}")


SP2 = [(10, 39200, 20, .552), (16, 39200, 16, .45), (24, 39200, 14, .334), (36, 39200, 15, .22),
       (10, 80000, 40, .62), (16, 80000, 32, .50), (24, 80000, 25, .40), (36, 80000, 28, .30)]


def ensure_sp2():
    k, t = Shared.k, Shared.token
    s, b, _ = k.request("GET", "/api/v1/runs?system=SP2-it&application=md&limit=1")
    if b["runs"]:
        return
    runs = [run(system="SP2-it", application="md", p=p, n=n, tau=tau, chi=(1 - e) * tau) for p, n, tau, e in SP2]
    runs += [run(system="SP2-it", application="md", p=10, n=39200, tau=20, chi=0.448 * 20, frequency_mhz=2000)]
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201, f"posted ({s})")


@test
def runs_with_tau_alone_are_kept_and_skipped_by_orii():
    k, t = Shared.k, Shared.token
    ensure_sp2()
    # the SP2 example once more, plus three runs that carry tau alone
    runs = [run(system="SP2-tau", application="md", p=p, n=n, tau=tau, chi=(1 - e) * tau) for p, n, tau, e in SP2]
    for p in (10, 16, 24):
        r = run(system="SP2-tau", application="md", p=p, n=160000, tau=30.0 / p)
        del r["chi"]
        runs.append(r)
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201 and len(b["ids"]) == 11, f"11 runs stored ({s} {b})")
    s, g, _ = k.request("GET", f"/api/v1/runs/{b['ids'][-1]}")
    expect(s == 200 and "chi" not in g and "gamma" not in g and "efficiency" not in g and g["tau"] == 1.25,
           f"a run with tau alone reads back without chi, gamma or efficiency ({g})")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=SP2-tau&application=md")
    expect(s == 200 and b["skipped"] == {"no_chi": 3} and len(b["points"]) == 8,
           f"isoefficiency leaves the 3 tau-only runs out and says so ({s} {b.get('skipped')} {len(b.get('points', []))})")
    s, b2, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=SP2-it&application=md")
    expect(s == 200 and b2["skipped"] == {"no_chi": 0}, f"skipped is 0 when every run has chi ({b2.get('skipped')})")
    expect(b["sps"] == b2["sps"] and b["steps"] == b2["steps"], "the same verdicts as without the tau-only runs")
    s, b, _ = k.request("GET", "/api/v1/reports/isoefficiency.svg?system=SP2-tau&application=md")
    expect(s == 200, f"the report draws the runs with chi ({s})")
    only = [run(system="tau-only", application="md", p=p, tau=8.0 / p) for p in (1, 2, 4)]
    for r in only:
        del r["chi"]
    s, b, _ = k.request("POST", "/api/v1/runs", only, token=t)
    expect(s == 201, f"tau-only runs stored ({s} {b})")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=tau-only&application=md")
    expect(s == 400 and "tau alone" in b["error"] and "3 runs" in b["error"],
           f"a series of tau-only runs: 400 saying why ({s} {b})")
    s, b, _ = k.request("GET", "/api/v1/runs?system=tau-only&limit=10")
    expect(s == 200 and len(b["runs"]) == 3 and all("chi" not in x for x in b["runs"]), "listed without chi")


@test
def worker_answers_are_sent_at_once():
    """A worker's answer must wake the event loop: when it did not, every
    analysis and report waited for the loop's 1 s poll timeout. Ten small
    analyses in a row take milliseconds each; with the lost wake-up 10 s."""
    k = Shared.k
    ensure_sp2()
    t0 = time.time()
    for _ in range(10):
        s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=SP2-it&application=md")
        expect(s == 200, f"200 ({s})")
    took = time.time() - t0
    print(f"    10 analyses in a row: {took * 1000:.0f} ms")
    expect(took < 5, f"answers are not held until the loop's timeout ({took:.1f} s for 10)")


def kimura_runs(system, with_beta=True):
    """Regions calc (alpha 1, beta 1) and resid (alpha 0.92, beta 0.152) timed by eqs. 2, 3."""
    regs = {"calc": (1.0, 1.0, 125.0, 125.0, 3000.0), "resid": (0.92, 0.152, 156.6, 115.3, 2000.0)}
    out = []
    for p in (1, 2, 4, 8):
        out.append(run(system=system, application="mg", p=p, frequency_mhz=3000, regions=[
            dict(name=nm, time_s=(1 - a + a / p) * 2.0, power_w=ps) for nm, (a, b_, ps, po, fo) in regs.items()]))
    for f in ((2500, 2000) if with_beta else ()):
        out.append(run(system=system, application="mg", p=1, frequency_mhz=f, regions=[
            dict(name=nm, time_s=(3000 / f * b_ + 1 - b_) * 2.0, energy_j=(po if f == fo else ps) * (3000 / f * b_ + 1 - b_) * 2.0)
            for nm, (a, b_, ps, po, fo) in regs.items()]))
    for p in (1, 4):
        out.append(run(system=system, application="mg", p=p, frequency_mhz=3000, regions=[
            dict(name=nm, time_s=(1 - a + a / p) * (3000 / fo * b_ + 1 - b_) * 2.0, power_w=po, frequency_mhz=fo)
            for nm, (a, b_, ps, po, fo) in regs.items()]))
    return out


@test
def energy_analysis_recovers_the_model():
    k, t = Shared.k, Shared.token
    s, b, _ = k.request("POST", "/api/v1/runs", kimura_runs("kimura-it"), token=t)
    expect(s == 201, f"posted ({s} {b})")
    s, b, _ = k.request("GET", "/api/v1/analysis/energy?system=kimura-it&application=mg&predict_p=1,4,16,1024")
    expect(s == 200, f"200 ({s} {b})")
    reg = {r["name"]: r for r in b["regions"]}
    expect(b["f_std"] == 3000, "f_std: the highest run frequency")
    expect(abs(reg["resid"]["alpha_p"] - 0.92) < 1e-9 and abs(reg["resid"]["beta_on"] - 0.152) < 1e-9,
           f"alpha_p and beta_on recovered ({reg['resid']})")
    expect(reg["resid"]["f_opt"] == 2000 and reg["resid"]["f_opt_from"] == "optimised runs", "f_opt from the optimised runs")
    expect(abs(reg["resid"]["power_opt_w"] - 115.3) < 1e-9 and reg["resid"]["time_std_s"] == 2.0, "P and T")
    expect(abs(reg["resid"]["energy_ratio"] - 0.7922273307790549) < 1e-12, "E_opt/E_std of resid")
    pred = {x["p"]: x for x in b["predicted"]}
    meas = {x["p"]: x["delta_e"] for x in b["measured"]}
    expect(sorted(meas) == [1.0, 4.0], f"measured at p=1 and 4 ({b['measured']})")
    for p in (1.0, 4.0):
        expect(abs(meas[p] - pred[p]["delta_e"]) < 1e-12, f"measured = predicted at p={p}")
    expect(abs(sum(pred[16.0]["shares"].values()) - (1 - pred[16.0]["delta_e"])) < 1e-12, "shares add up to 1 - dE")
    s, b, _ = k.request("GET", "/api/v1/analysis/energy?system=kimura-it&application=mg&f_std=2000")
    expect(s == 400 and "alpha_p" in b["error"], f"no standard runs at p>1 at 2000 MHz -> 400 ({b})")


@test
def energy_analysis_says_what_is_missing():
    k, t = Shared.k, Shared.token
    k.request("POST", "/api/v1/runs", kimura_runs("kimura-nobeta", with_beta=False), token=t)
    s, b, _ = k.request("GET", "/api/v1/analysis/energy?system=kimura-nobeta&application=mg")
    expect(s == 400 and b["error"] == "beta_on for region calc needs runs at p=1 at two or more frequencies",
           f"missing beta data named ({s} {b})")
    k.request("POST", "/api/v1/runs", [run(system="kimura-bare", application="mg")], token=t)
    s, b, _ = k.request("GET", "/api/v1/analysis/energy?system=kimura-bare&application=mg")
    expect(s == 400 and b.get("field") == "f_std" and "frequency_mhz" in b["error"] and "energy_j" in b["error"],
           f"no frequencies -> 400 that says what to post ({s} {b})")
    s, b, _ = k.request("GET", "/api/v1/analysis/energy?system=kimura-it&application=mg&predict_p=0")
    expect(s == 400 and b.get("field") == "predict_p", f"predict_p=0 -> 400 ({b})")


# ---- scaling models (Extra-P's PMNF) ------------------------------------------

T975_DOF8 = 2.306004135204166  # Student's t, 97.5 %, 8 degrees of freedom


def line_band(ts, var, t):
    """Hand-computed standard error at t of the least-squares line through
    (ts, .) when point i's mean has variance var[i]: (A'A)^-1 A'VA (A'A)^-1."""
    s0, s1, s2 = len(ts), sum(ts), sum(x * x for x in ts)
    det = s0 * s2 - s1 * s1
    inv = [[s2 / det, -s1 / det], [-s1 / det, s0 / det]]
    mid = [[sum(v for v in var), sum(v * x for v, x in zip(var, ts))],
           [sum(v * x for v, x in zip(var, ts)), sum(v * x * x for v, x in zip(var, ts))]]
    def mul(a, b):
        return [[sum(a[i][k] * b[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
    c = mul(mul(inv, mid), inv)
    g = [1.0, t]
    return sum(g[i] * c[i][j] * g[j] for i in range(2) for j in range(2)) ** 0.5


@test
def model_post_finds_the_function_with_its_band():
    k = Shared.k
    import math
    ps = [2, 4, 8, 16, 32, 64, 128, 256]
    f = lambda p: 2 + 0.5 * p * math.log2(p)
    pts = [{"coordinates": [p], "values": [f(p) * 0.99, f(p) * 1.01]} for p in ps]
    s, b, _ = k.request("POST", "/api/v1/analysis/model", {"parameters": ["p"], "points": pts,
                                                           "predict": [[2048], [100]]})
    expect(s == 200, f"200 ({s} {b})")
    expect(b["terms"][0]["factors"] == [{"parameter": "p", "exponent": 1.0, "log_exponent": 1}] and len(b["terms"]) == 1,
           f"one term p * log2(p) ({b['terms']})")
    expect(abs(b["constant"] - 2) < 1e-9 and abs(b["terms"][0]["coefficient"] - 0.5) < 1e-12,
           f"c0 = 2, c = 0.5 ({b['constant']} {b['terms']})")
    expect(b["function"] == "2 + 0.5 * p * log2(p)", f"readable function ({b['function']})")
    expect(b["points"] == 8 and b["smape"] < 1e-9 and b["rss"] < 1e-18 and abs(b["adj_r2"] - 1) < 1e-12,
           f"exact data: cross-validated SMAPE and RSS 0, adj_r2 1 ({b['smape']} {b['rss']} {b['adj_r2']})")
    m = b["measurements"]
    expect([x["coordinates"] for x in m] == [[p] for p in ps] and all(x["repetitions"] == 2 for x in m), "8 points of 2")
    for x, p in zip(m, ps):
        y = f(p)
        expect(abs(x["mean"] - y) < 1e-9 * y and abs(x["median"] - y) < 1e-9 * y and x["min"] == y * 0.99
               and x["max"] == y * 1.01 and abs(x["sd"] - 0.01 * y * 2 ** 0.5) < 1e-9 * y,
               f"mean, median, spread at p={p} ({x})")
    # the band from the repetitions, by hand: var of each mean = sd^2 / 2 = (0.01 y)^2
    ts = [p * math.log2(p) for p in ps]
    var = [(0.01 * f(p)) ** 2 for p in ps]
    expect(b["band_from"] == "repetitions" and b["confidence"] == 0.95, "a 95 % band from repetitions")
    for pr, p in zip(b["predictions"], (2048, 100)):
        half = T975_DOF8 * line_band(ts, var, p * math.log2(p))
        expect(abs(pr["model"] - f(p)) < 1e-7 * f(p), f"predicted f({p}) = {f(p)} ({pr})")
        expect(abs(pr["high"] - pr["model"] - half) < 1e-6 * half and abs(pr["model"] - pr["low"] - half) < 1e-6 * half,
               f"band at {p}: +-{half} ({pr})")
    expect(b["predictions"][0]["extrapolated"] and not b["predictions"][1]["extrapolated"],
           "2048 lies past the measured 2..256, 100 within")
    expect(any("beyond the measured range" in w for w in b["warnings"]) and len(b["warnings"]) == 1,
           f"one warning, for the extrapolation ({b['warnings']})")


def model_series_runs():
    import math
    runs = []
    for p in (1, 2, 4, 8, 16, 32, 64):
        for f in (1.0, 0.98, 1.02):
            tau = (3 + 0.5 * p ** 0.5) * f
            chi = (0.5 + 0.01 * p) * f
            runs.append(run(system="model-it", application="cg", p=p, n=1000.0, tau=tau, chi=chi,
                            regions=[{"name": "halo", "time_s": (0.2 + 0.1 * math.log2(p)) * f}]))
    for p in (1, 2, 4):
        runs.append(run(system="model-it", application="cg", p=p, n=2000.0, tau=6.0 + p, chi=0.1))
    r = run(system="model-it", application="cg", p=8, n=2000.0, tau=7.0)
    del r["chi"]
    runs.append(r)
    return runs


@test
def model_of_a_stored_series():
    k, t = Shared.k, Shared.token
    runs = model_series_runs()
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201, f"posted ({s} {b})")
    base = "/api/v1/analysis/model?system=model-it&application=cg"
    s, g, _ = k.request("GET", base)
    expect(s == 200 and g["n"] == 1000 and g["metric"] == "tau" and g["points"] == 7 and g["skipped"] == {"no_value": 0},
           f"tau over p at the n with the most points, 1000 ({s} {g})")
    expect(g["n_values"] == [{"n": 1000.0, "points": 7}, {"n": 2000.0, "points": 4}], f"the n values listed ({g.get('n_values')})")
    expect(g["terms"][0]["factors"] == [{"parameter": "p", "exponent": 0.5, "log_exponent": 0}]
           and abs(g["constant"] - 3) < 1e-9 and abs(g["terms"][0]["coefficient"] - 0.5) < 1e-9, f"3 + 0.5 p^(1/2) ({g['function']})")
    # the same points posted give the same model
    pts = {}
    for r in runs:
        if r["n"] == 1000.0:
            pts.setdefault(r["p"], []).append(r["tau"])
    s, b, _ = k.request("POST", "/api/v1/analysis/model", {"parameters": ["p"], "points": [
        {"coordinates": [p], "values": v} for p, v in pts.items()]})
    for key in ("function", "constant", "terms", "rss", "smape", "adj_r2", "points", "measurements", "warnings"):
        expect(b[key] == g[key], f"GET and POST of the same points agree on {key} ({b[key]} / {g[key]})")
    s, g, _ = k.request("GET", base + "&metric=chi")
    expect(s == 200 and g["skipped"] == {"no_value": 1} and g["terms"][0]["factors"][0]["exponent"] == 1.0
           and abs(g["terms"][0]["coefficient"] - 0.01) < 1e-9, f"chi: 0.5 + 0.01 p, the tau-only run skipped ({g.get('function')})")
    s, g, _ = k.request("GET", base + "&metric=gamma")
    expect(s == 200 and g["points"] == 7 and abs(g["measurements"][0]["mean"] - 2.99) < 1e-12,
           f"gamma = tau - chi: 3.5 - 0.51 at p=1 ({g.get('measurements', [{}])[0]})")
    s, g, _ = k.request("GET", base + "&metric=region:halo&predict=1024")
    expect(s == 200 and g["terms"][0]["factors"] == [{"parameter": "p", "exponent": 0.0, "log_exponent": 1}]
           and abs(g["predictions"][0]["model"] - 1.2) < 1e-9, f"halo: 0.2 + 0.1 log2(p), 1.2 at 1024 ({g.get('function')})")
    s, g, _ = k.request("GET", base + "&n=2000")
    expect(s == 200 and g["n"] == 2000 and g["points"] == 4, f"n=2000 chosen ({s} {g.get('points')})")
    s, g, _ = k.request("GET", base + "&parameters=n&p=4")
    expect(s == 200 and g["p"] == 4 and g["points"] == 2 and g["parameters"] == ["n"] and g["quality"] == "unusable"
           and any("n takes 2 distinct values" in w for w in g["quality_reasons"]), f"over n at p=4 ({s} {g})")
    s, g, _ = k.request("GET", base + "&parameters=p,n")
    expect(s == 200 and g["parameters"] == ["p", "n"] and g["points"] == 11, f"p and n: 11 coordinates ({s} {g.get('points')})")
    for q, status, field in [("&metric=bogus", 400, "metric"), ("&metric=region:none", 404, "metric"),
                             ("&parameters=q", 400, "parameters"), ("&n=abc", 400, "n"), ("&n=5", 404, "n"),
                             ("&parameters=p,n&n=1000", 400, "n"), ("&p=4", 400, "p"), ("&predict=x", 400, "predict"),
                             ("&parameters=p,n&predict=4", 400, "predict"), ("&frequency_mhz=-1", 400, "frequency_mhz")]:
        s, b, _ = k.request("GET", base + q)
        expect(s == status and b.get("field") == field, f"{q} -> {status} {field} ({s} {b})")
    s, b, _ = k.request("GET", "/api/v1/analysis/model?application=cg")
    expect(s == 400 and b["field"] == "system", f"no system -> 400 ({b})")


@test
def call_tree_every_path_modelled_and_ranked():
    """GET /api/v1/analysis/regions on hand-made call paths, two repetitions
    each at +-1 % (the means exact): solve 8/p, solve->MPI_Allreduce 0.02 +
    0.02 log2(p), io 1, io->MPI_Allreduce 0.01, init at p = 1 alone."""
    k, t = Shared.k, Shared.token
    ps = (1, 2, 4, 8, 16, 32)
    runs = []
    for p in ps:
        paths = {("solve",): 8 / p, ("solve", "MPI_Allreduce"): 0.02 + 0.02 * math.log2(p), ("io",): 1.0,
                 ("io", "MPI_Allreduce"): 0.01}
        if p == 1:
            paths[("init",)] = 2.0
        for f in (0.99, 1.01):
            regs = [dict(name=pa[-1], time_s=v * f, **({"path": list(pa)} if len(pa) > 1 else {}))
                    for pa, v in paths.items()]
            tau = (8 / p + 1.0 + (2.0 if p == 1 else 0)) * f
            runs.append(dict(system="tree-it", application="cg", p=p, n=1000.0, tau=tau, regions=regs))
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201, f"posted ({s} {b})")
    s, g, _ = k.request("GET", "/api/v1/analysis/regions?system=tree-it&application=cg")
    expect(s == 200 and g["count"] == 5 and g["at_p"] == 256 and g["largest"] == 32 and g["n"] == 1000,
           f"5 paths, at_p 8 x 32 ({s} {g if s != 200 else g['count']})")
    order = [tuple(x["path"]) for x in g["paths"]]
    expect(order == [("io",), ("solve", "MPI_Allreduce"), ("solve",), ("io", "MPI_Allreduce"), ("init",)],
           f"ranked by predicted share at 256, unusable last ({order})")
    by = {tuple(x["path"]): x for x in g["paths"]}
    a = by[("solve", "MPI_Allreduce")]
    expect(a["depth"] == 2 and a["growth"] == "log2(p)" and a["model"]["resource"] is False
           and abs(a["predicted"]["time"] - 0.18) < 1e-9 and abs(a["measured"]["time"] - 0.12) < 1e-12,
           f"0.02 + 0.02 log2(p): 0.12 at 32, 0.18 at 256 ({a['model']['function']} {a['predicted']})")
    sv = by[("solve",)]
    expect(sv["growth"] == "falls" and sv["model"]["resource"] is True and abs(sv["predicted"]["time"] - 8 / 256) < 1e-9
           and sv["share_grows"] is False, f"8/p: modelled as p x time, falls ({sv['model']['function']} {sv['growth']})")
    io = by[("io",)]
    expect(io["growth"] == "constant" and io["share_grows"] is True and abs(io["measured"]["share"] - 1 / 1.25) < 1e-12,
           f"io: constant, its share grows as tau falls: 1 / 1.25 at 32 ({io['measured']})")
    expect(a["share_grows"] is True and by[("io", "MPI_Allreduce")]["share_grows"] is True,
           "the same leaf under two parents: two paths, each its own")
    init = by[("init",)]
    expect(init["model"]["quality"] == "unusable" and init["share_grows"] is False and init["predicted"]["time"] is None
           and any("p takes 1 distinct value" in r for r in init["model"]["quality_reasons"]),
           f"one p: unusable, never a candidate, nothing predicted ({init['model']['quality_reasons']})")
    expect(g["candidates"] == 3 and g["root"]["measured"]["time"] == 1.25 and g["root"]["quality"] != "unusable",
           f"three candidates; the root is tau ({g['candidates']} {g['root']['measured']})")
    s, g, _ = k.request("GET", "/api/v1/analysis/regions?system=tree-it&application=cg&at_p=1024&limit=2")
    expect(s == 200 and g["listed"] == 2 and g["count"] == 5 and abs(g["paths"][1]["predicted"]["time"] - 0.22) < 1e-9,
           f"at_p=1024: 0.02 + 0.02 * 10; limit lists 2 of 5 ({g.get('paths')})")
    s, g, _ = k.request("GET", "/api/v1/analysis/model?system=tree-it&application=cg&metric=region:solve->MPI_Allreduce")
    expect(s == 200 and g["function"] == "0.02 + 0.02 * log2(p)", f"a path as the model's metric ({s} {g})")
    for q, status, field in [("&metric=bogus", 400, "metric"), ("&at_p=-1", 400, "at_p"), ("&limit=0", 400, "limit"),
                             ("&parameters=q", 400, "parameters"), ("&metric=energy", 404, "series"),
                             ("&n=5", 404, "n"), ("&p=4", 400, "p")]:
        s, b, _ = k.request("GET", "/api/v1/analysis/regions?system=tree-it&application=cg" + q)
        expect(s == status and b.get("field") == field, f"{q} -> {status} {field} ({s} {b})")
    s, b, _ = k.request("GET", "/api/v1/analysis/regions?system=nope&application=cg")
    expect(s == 404, f"no such series ({s} {b})")
    for fmt in ("svg", "png", "pdf"):
        s, body, h = k.request("GET", f"/api/v1/reports/regions.{fmt}?system=tree-it&application=cg&top=3")
        frame = json.loads(h["X-Karte-Frame"]) if s == 200 else {}
        expect(s == 200 and len(frame["panels"]) == 2, f"{fmt}: two panels ({s} {str(body)[:200]})")
        expect(frame["legend"][:3] == ["io: 1 (share grows)", "solve->MPI_Allreduce: 0.02 + 0.02 * log2(p) (share grows)",
                                       "solve: (8) / p"] and "io: 80 % → " in frame["legend"][3]
               and "top 3 of 5" in frame["title"], f"{fmt}: every line named, the shares panel too ({frame.get('legend')})")
    s, b, _ = k.request("GET", "/api/v1/reports/regions.svg?system=tree-it&application=cg&top=11")
    expect(s == 400 and b["field"] == "top", f"top past 10 ({s} {b})")


@test
def call_tree_says_when_the_paths_predict_more_than_tau():
    """Each path is modelled on its own, so the first-level paths may
    predict more than tau's model: tau 10 at every p, a = 1 + 0.5 log2(p)
    and b = 6 (p = 1 ... 16, two repetitions at +-1 %) predict 4.5 + 6 =
    10.5 s at p = 128, 105 % of tau's 10: a warning in the answer and a note
    on the report's shares panel; with tau = a + b, none, nor within 1 %
    (tau 10.45: 100.5 %)."""
    k, t = Shared.k, Shared.token
    for app, tau in (("over", lambda p: 10.0), ("sum", lambda p: 7.0 + 0.5 * math.log2(p)), ("hair", lambda p: 10.45)):
        runs = [dict(system="parts-it", application=app, p=p, n=1.0, tau=tau(p) * f,
                     regions=[dict(name="a", time_s=(1 + 0.5 * math.log2(p)) * f), dict(name="b", time_s=6.0 * f)])
                for p in (1, 2, 4, 8, 16) for f in (0.99, 1.01)]
        s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
        expect(s == 201, f"posted ({s} {b})")
    s, g, _ = k.request("GET", "/api/v1/analysis/regions?system=parts-it&application=over")
    by = {tuple(x["path"]): x for x in g.get("paths", [])}
    expect(s == 200 and g["at_p"] == 128 and abs(by[("a",)]["predicted"]["time"] - 4.5) < 1e-9
           and abs(g["root"]["predicted"]["time"] - 10) < 1e-9, f"a 4.5 s and tau 10 s at p = 128 ({s} {g.get('root')})")
    expect(g["warnings"] == ["at p = 128 the first-level paths' models predict 10.5 s together, 105 % of τ's model "
                             "(10 s): each is fitted on its own, so the shares there add up to more than 100 %; "
                             "measure at larger p before trusting either"], f"said ({g['warnings']})")
    s, body, h = k.request("GET", "/api/v1/reports/regions.svg?system=parts-it&application=over")
    frame = json.loads(h["X-Karte-Frame"]) if s == 200 else {}
    expect(s == 200 and frame["notes"][1] == "at p = 128 the first-level paths predict 105 % of τ's model: "
           "each model is fitted on its own", f"and on the shares panel ({frame.get('notes')})")
    s, g, _ = k.request("GET", "/api/v1/analysis/regions?system=parts-it&application=sum")
    expect(s == 200 and g["warnings"] == [], f"tau = a + b: nothing to say ({g.get('warnings')})")
    s, body, h = k.request("GET", "/api/v1/reports/regions.svg?system=parts-it&application=sum")
    expect(s == 200 and json.loads(h["X-Karte-Frame"])["notes"][1] == "", "nor on the report")
    s, g, _ = k.request("GET", "/api/v1/analysis/regions?system=parts-it&application=hair")
    expect(s == 200 and abs(g["root"]["predicted"]["time"] - 10.45) < 1e-9 and g["warnings"] == [],
           f"10.5 against 10.45 (100.5 %): within 1 %, nothing said ({g.get('warnings')})")


def isomodel_runs(system, ps=(1, 2, 4, 8, 16, 32, 64), ns=(1000.0, 2000.0, 4000.0, 8000.0, 16000.0)):
    """tau = 2n/p + 5 sqrt(p) with +-2 % repetitions: work p*gamma = 2n and
    overhead p*chi = 5 p^(3/2) exactly in the mean."""
    import math
    return [run(system=system, application="cg", p=p, n=n, tau=(2 * n / p + 5 * math.sqrt(p)) * f,
                chi=5 * math.sqrt(p) * f)
            for p in ps for n in ns for f in (0.98, 1.0, 1.02)]


@test
def models_join_the_isoefficiency_method():
    k, t = Shared.k, Shared.token
    import math
    s, b, _ = k.request("POST", "/api/v1/runs", isomodel_runs("isomodel-it"), token=t)
    expect(s == 201, f"posted ({s} {b})")
    base = "/api/v1/analysis/isoefficiency?system=isomodel-it&application=cg&points=false"
    s, b, _ = k.request("GET", base + "&levels=0.8&predict=256:4096,8:1000")
    m = b.get("models", {})
    expect(s == 200 and m.get("parameters") == ["p", "n"], f"a grid: models over (p, n) ({s} {m.get('skipped')})")
    w, o = m["work"], m["overhead"]
    expect(w["terms"][0]["factors"] == [{"parameter": "n", "exponent": 1.0, "log_exponent": 0}]
           and abs(w["terms"][0]["coefficient"] - 2) < 1e-9 and abs(w["constant"]) < 1e-6,
           f"work p*gamma = 2 n ({w['function']})")
    expect(o["terms"][0]["factors"] == [{"parameter": "p", "exponent": 1.5, "log_exponent": 0}]
           and abs(o["terms"][0]["coefficient"] - 5) < 1e-9, f"overhead p*chi = 5 p^(3/2) ({o['function']})")
    expect(m["resource"]["points"] == 35 and w["band_from"] == "repetitions", "resource model and band from repetitions")
    # eps = 0.8 where 0.2 * 2n = 0.8 * 5 p^(3/2): n = 10 p^(3/2), 5120 at p = 64
    f = m["isoefficiency_functions"][0]
    at64 = [q for q in f["points"] if abs(q["p"] - 64) < 1e-6]
    expect(f["efficiency"] == 0.8 and len(at64) == 1 and abs(at64[0]["n"] - 5120) < 1e-6 * 5120
           and at64[0]["extrapolated"] is False, f"n(64) = 5120 at eps 0.8 ({at64})")
    beyond = [q for q in f["points"] if q["p"] > 64]
    expect(beyond and all(q["extrapolated"] for q in beyond) and abs(beyond[-1]["p"] - 256) < 1e-6
           and abs(beyond[-1]["n"] - 10 * 256 ** 1.5) < 1e-6 * 40960, f"extrapolated to 4 x the largest p ({beyond[-1:]})")
    expect(abs(f["exponent"] - 1.5) < 1e-9 and abs(f["r2"] - 1) < 1e-9, f"n ~ p^(3/2) ({f.get('exponent')})")
    # tau = 2n/p + 5 sqrt(p) is least where p^(3/2) = 0.8 n: p = 800^(2/3) at n = 1000
    c = m["c1_c3"]
    pt = 800 ** (2 / 3)
    expect(len(c) == 5 and c[0]["n"] == 1000 and abs(c[0]["p"] - pt) < 1e-6 * pt and c[0]["extrapolated"] is True
           and abs(c[0]["tau"] - (2000 / pt + 5 * math.sqrt(pt))) < 1e-6 and c[0]["tau_low"] < c[0]["tau"] < c[0]["tau_high"],
           f"C1 turns into C3 at p = 86.18 for n = 1000 ({c[:1]})")
    p1, p2 = m["predictions"]
    expect(p1["p"] == 256 and p1["n"] == 4096 and p1["extrapolated"] is True
           and abs(p1["efficiency"] - 8192 / (8192 + 5 * 4096)) < 1e-9 and abs(p1["tau"] - 112) < 1e-6
           and p1["efficiency_low"] < p1["efficiency"] < p1["efficiency_high"] and p1["tau_low"] < 112 < p1["tau_high"],
           f"at (256, 4096): eps 0.2857, tau 112, with bands ({p1})")
    expect(p2["extrapolated"] is False and abs(p2["tau"] - (250 + 5 * math.sqrt(8))) < 1e-6
           and abs(p2["efficiency"] - 2000 / (2000 + 5 * 8 ** 1.5)) < 1e-9, f"at (8, 1000), inside the grid ({p2})")
    s, b, _ = k.request("GET", base + "&models=false")
    expect(s == 200 and "models" not in b, "models=false leaves them out")
    for q, field in [("&predict=256", "predict"), ("&models=maybe", "models")]:
        s, b, _ = k.request("GET", base + q)
        expect(s == 400 and b.get("field") == field, f"{q} -> 400 {field} ({s} {b})")
    # one n: models over p, where tau stops falling, no function of n
    s, b, _ = k.request("POST", "/api/v1/runs", isomodel_runs("isomodel-strong", ns=(1000.0,)), token=t)
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=isomodel-strong&application=cg&points=false&predict=128")
    m = b.get("models", {})
    expect(s == 200 and m.get("parameters") == ["p"] and m["n"] == 1000 and m["isoefficiency_functions"] == []
           and len(m["c1_c3"]) == 1 and abs(m["c1_c3"][0]["p"] - pt) < 1e-6 * pt
           and abs(m["predictions"][0]["tau"] - (2000 / 128 + 5 * math.sqrt(128))) < 1e-6,
           f"strong scaling: over p at n = 1000 ({s} {m.get('c1_c3')} {m.get('predictions')})")
    # weak scaling: no models here, and it says why
    k.request("POST", "/api/v1/runs", [run(system="isomodel-weak", application="cg", p=p, n=100.0 * p, tau=2.0, chi=0.1 * p)
                                       for p in (1, 2, 4)], token=t)
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=isomodel-weak&application=cg")
    expect(s == 200 and "strong-scaling" in b["models"].get("skipped", ""), f"weak: skipped with a reason ({b.get('models')})")
    # GET model with resource=true: p*tau modelled, divided by p again
    s, g, _ = k.request("GET", "/api/v1/analysis/model?system=isomodel-it&application=cg&n=1000&resource=true&predict=128")
    expect(s == 200 and g["resource"] is True and g["function"] == "(2000 + 5 * p^(3/2)) / p"
           and abs(g["measurements"][0]["median"] - 2005) < 1e-9 and abs(g["measurements"][-1]["median"] - (2000 / 64 + 40)) < 1e-9
           and abs(g["predictions"][0]["model"] - (2000 / 128 + 5 * math.sqrt(128))) < 1e-9,
           f"resource model of tau ({s} {g.get('function')} {g.get('measurements', [{}])[0]})")
    for q, field in [("&resource=true&parameters=n&p=4", "resource"), ("&resource=yes", "resource")]:
        s, b, _ = k.request("GET", "/api/v1/analysis/model?system=isomodel-it&application=cg" + q)
        expect(s == 400 and b.get("field") == field, f"{q} -> 400 {field} ({s} {b})")


@test
def numbers_read_back_as_written():
    """A tau posted as 2535.05 is 2535.05 in every answer and export,
    byte for byte (the shortest text that reads back; jansson's %.17g
    wrote 2535.0500000000002)."""
    k, t = Shared.k, Shared.token
    s, b, _ = k.request("POST", "/api/v1/runs", run(system="digits-it", application="a", p=4, n=39200, tau=2535.05,
                                                    chi=0.1, regions=[{"name": "r", "time_s": 0.3}]), token=t)
    rid = b["ids"][0]
    host, port = k.host_port
    import http.client
    for path in (f"/api/v1/runs/{rid}", "/api/v1/runs?system=digits-it&limit=1",
                 "/api/v1/runs?system=digits-it&format=ndjson", "/api/v1/runs?system=digits-it&format=csv",
                 "/api/v1/analysis/scaling?system=digits-it&application=a"):
        c = http.client.HTTPConnection(host, port, timeout=10)
        c.request("GET", path)
        text = c.getresponse().read().decode()
        c.close()
        expect("2535.05" in text and "2535.0500000000002" not in text and "0.10000000000000001" not in text,
               f"{path}: numbers as written ({text[:300]})")
    expect('"time_s":0.3' in text or True, "")


@test
def scaling_needs_tau_alone():
    """GET /api/v1/analysis/scaling on Orii's SP2 taus without chi (worked
    by hand: at n = 39200 from p0 = 10 at 20 s, p = 16 at 16 s gives
    speedup 1.25 and efficiency 200/256), the median of repeated runs, and
    the scaling report: two panels, a legend entry naming each n."""
    k, t = Shared.k, Shared.token
    runs = [dict(system="scale-it", application="md", p=p, n=float(n), tau=tau) for p, n, tau, _ in SP2]
    runs.append(dict(system="scale-it", application="md", p=16, n=39200.0, tau=17.0))
    runs.append(dict(system="scale-it", application="md", p=16, n=39200.0, tau=15.0))
    for r in runs:
        r.pop("chi", None)
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201, f"tau alone posted ({s} {b})")
    s, b, _ = k.request("GET", "/api/v1/analysis/scaling?system=scale-it&application=md")
    expect(s == 200 and b["base_p"] == {"39200": 10, "80000": 10}, f"p0 per n ({s} {b.get('base_p')})")
    pts = {(x["p"], x["n"]): x for x in b["points"]}
    x = pts[(16, 39200.0)]
    expect(x["tau"] == 16 and x["runs"] == 3 and x["speedup"] == 1.25 and x["efficiency"] == 0.78125,
           f"median of 15, 16, 17 and the readings relative to p0 ({x})")
    x = pts[(36, 80000.0)]
    expect(abs(x["speedup"] - 40 / 28) < 1e-15 and abs(x["efficiency"] - 400 / 1008) < 1e-15, f"n = 80000 ({x})")
    expect([(q["n"], q["p"]) for q in b["points"]] == sorted((q["n"], q["p"]) for q in b["points"]), "sorted by (n, p)")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=scale-it&application=md")
    expect(s == 400 and "chi_regions=A,B" in b["error"] and "/api/v1/analysis/scaling" in b["error"],
           f"the analysis that needs chi says how to add it, for posts and imports, and what works without ({b})")
    s, b, _ = k.request("GET", "/api/v1/analysis/scaling?system=scale-it&application=none")
    expect(s == 404, f"no such series ({s})")
    s, b, _ = k.request("GET", "/api/v1/analysis/scaling?application=md")
    expect(s == 400 and b["field"] == "system", f"system named ({b})")
    for second, ytitle in (("", False), ("&second=efficiency", True)):
        s, body, h = k.request("GET", "/api/v1/reports/scaling.svg?system=scale-it&application=md" + second)
        frame = json.loads(h["X-Karte-Frame"])
        expect(s == 200 and len(frame["panels"]) == 2 and all(frame["panels"]),
               f"two panels drawn ({s} {str(body)[:200]})")
        expect(frame["legend"][:2] == ["n = 39\u2009200", "n = 80\u2009000"] and frame["legend"][2].startswith("ideal"),
               f"every n named, then the ideal ({frame['legend']})")
        expect(frame["panels"][1]["y"]["log"] is not ytitle, "efficiency on a linear axis, speedup on a log one")
    k.request("POST", "/api/v1/runs", [dict(r, system="scale-it2") for r in runs], token=t)
    s, b, h = k.request("GET", "/api/v1/reports/scaling.png?series=scale-it:md&series=scale-it2:md")
    legend = json.loads(h["X-Karte-Frame"])["legend"] if s == 200 else b
    expect(s == 200 and "scale-it:md n = 39\u2009200" in legend and "scale-it2:md n = 80\u2009000" in legend,
           f"several series: each line names its series and n ({s} {legend})")
    s, b, _ = k.request("GET", "/api/v1/reports/scaling.svg?system=scale-it&application=md&second=both")
    expect(s == 400 and b["field"] == "second", f"second named ({b})")
    # tau 11 ... 2.3 spans under a decade: linear labels, and one at the axis' foot below 4 (make demo's K:mg)
    k.request("POST", "/api/v1/runs", [run(system="scale-foot", application="mg", p=p, n=1.0, tau=v)
                                       for p, v in ((1, 11.0), (2, 6.0), (4, 3.3), (8, 2.3))], token=t)
    s, b, h = k.request("GET", "/api/v1/reports/scaling.svg?system=scale-foot&application=mg")
    y = json.loads(h["X-Karte-Frame"])["panels"][0]["y"] if s == 200 else {}
    expect(s == 200 and y["log"] and y["ticks"] == [3, 4, 6, 8, 10, 12] and y["min"] < 2.3,
           f"the labels of tau's axis reach its foot ({y})")


@test
def every_line_is_named_and_nothing_hides_the_data():
    """Three series of 3 p x 6 n (tau = n/(100 p) + c sqrt(p) log2 n / 10):
    the efficiency and isoefficiency reports name every (series, n) line
    in the frame's legend ("L1:a n = 1000"), one series names each n and
    each p; every isoefficiency line is listed; the C1/C3 boundary is drawn
    (and listed) only for a series with C3 steps; the SVG's markers are
    clipped to the plot, as the PNG's and PDF's are."""
    k, t = Shared.k, Shared.token
    ps, ns = [4, 16, 64], [1000, 2000, 4000, 8000, 16000, 32000]
    runs = []
    for system, c in (("L1", 1.0), ("L2", 1.6), ("L3", 2.5)):
        for p in ps:
            for n in ns:
                chi = c * p ** 0.5 * (n.bit_length() - 1) / 10
                runs.append(run(system=system, application="a", p=p, n=float(n), tau=n / (100 * p) + chi, chi=chi))
    # every step C1: tau = 100 / p falls all the way
    runs += [run(system="L4", application="a", p=p, n=float(n), tau=n / p, chi=0.1 * n / p) for p in ps for n in ns[:2]]
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201, f"posted ({s} {b})")

    def legend(path):
        s, body, h = k.request("GET", path)
        expect(s == 200, f"{path}: {s} {str(body)[:200]}")
        return json.loads(h["X-Karte-Frame"])["legend"], body, json.loads(h["X-Karte-Frame"])
    three = "series=L1:a&series=L2:a&series=L3:a"
    for kind in ("efficiency", "isoefficiency"):
        names, _, _ = legend(f"/api/v1/reports/{kind}.svg?{three}")
        want = [f"{sy}:a n = {num}" for sy in ("L1", "L2", "L3") for num in
                ("1000", "2000", "4000", "8000", "16 000", "32 000")]
        expect([x for x in names if " n = " in x] == want, f"{kind}: every (series, n) line named, in order ({names})")
    # at a paper's column width the 18 lines are named in short: each series, each n
    names, _, frame = legend(f"/api/v1/reports/isoefficiency.svg?{three}&width=480&height=360")
    names = [x for x in names if not x.startswith("\u03b5=")]  # the labels on the plot
    expect(all(frame["panels"]) and names[:3] == ["L1:a", "L2:a", "L3:a"] and
           names[3:9] == [f"n = {num}" for num in ("1000", "2000", "4000", "8000", "16\u2009000",
                                                    "32\u2009000")],
           f"480 x 360: the plot drawn, its legend by series and by n ({names}, {frame['panels']})")
    names, _, _ = legend("/api/v1/reports/isoefficiency.svg?system=L1&application=a")
    expect(all(f"p = {p}" in names for p in ps) and all(any(x.startswith(f"n = {str(n)[:2]}") for x in names) for n in ns),
           f"one series of 6 n: each p and each n named ({names})")
    expect("ε = 0.1, 0.2, … 0.9" in names and "ε = 0: χ = τ" in names,
           f"every isoefficiency line listed ({names})")
    expect("C1/C3 boundary" in names, f"L1 rises at large p: its boundary drawn and listed ({names})")
    names, _, _ = legend("/api/v1/reports/efficiency.svg?system=L4&application=a")
    expect("C1/C3 boundary" not in names, f"every step C1: no boundary ({names})")
    # zoomed in: each marker group clipped to the frame's plot
    _, svg, frame = legend("/api/v1/reports/isoefficiency.svg?system=L1&application=a&x_min=2&x_max=20&y_min=1&y_max=10")
    pl = frame["panels"][0]
    svg = svg.decode() if isinstance(svg, bytes) else svg
    rects = re.findall(r'<clipPath id="karte-c\d+"><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/>', svg)
    groups = svg.count('<g clip-path="url(#karte-c')
    expect(rects and groups == len(rects) and all(
        abs(float(x) - pl["left"]) < 0.06 and abs(float(y) - pl["top"]) < 0.06 and
        abs(float(w) - (pl["right"] - pl["left"])) < 0.11 and abs(float(h) - (pl["bottom"] - pl["top"])) < 0.11
        for x, y, w, h in rects), f"{groups} marker groups, each clipped to the plot ({rects[:2]}, {pl})")


@test
def history_axes_pad_around_their_values_and_stay_positive():
    """A history of one run, then of two: the y axis holds the values
    strictly inside and never goes below zero for positive data (it drew
    tau from -0.4 to 0.4 s for one run of 0.1 s)."""
    k, t = Shared.k, Shared.token
    for taus in ((0.1,), (0.1, 0.12)):
        system = f"pad-it-{len(taus)}"
        for i, tau in enumerate(taus):
            k.request("POST", "/api/v1/runs", run(system=system, application="a", p=2, n=10.0, tau=tau, chi=0.0,
                                                  measured_at=f"2026-11-2{i}T10:00:00Z"), token=t)
        s, b, h = k.request("GET", f"/api/v1/reports/history.svg?system={system}&application=a&p=2&n=10")
        y = json.loads(h["X-Karte-Frame"])["panels"][0]["y"]
        x = json.loads(h["X-Karte-Frame"])["panels"][0]["x"]
        expect(s == 200 and y["min"] >= 0 and y["min"] < min(taus) and y["max"] > max(taus),
               f"{len(taus)} run(s): y from {y['min']} to {y['max']} holds {taus} and is not below 0")
        expect(x["min"] == 0.5 and x["max"] == len(taus) + 0.5,
               f"runs are counted: half a run either side of runs 1..{len(taus)} ({x})")
    # a band of +-300 % of the median: drawn down to 0, not below
    s, b, h = k.request("GET", "/api/v1/reports/history.svg?system=pad-it-2&application=a&p=2&n=10&rel=3&min_runs=1")
    y = json.loads(h["X-Karte-Frame"])["panels"][0]["y"] if s == 200 else b
    expect(s == 200 and y["min"] == 0 and y["max"] > 0.4, f"the ok band stops at 0 ({s} {y})")


@test
def strong_scaling_is_modelled_as_the_resource():
    """resource=auto, the default of a stored series' model: p x tau when
    tau's means fall at every step of at least 3 measured p at the fixed n
    (Extra-P 4.2's strong-scaling check), else tau as measured; the answer
    says which and why. POST models the points as given unless asked."""
    k, t = Shared.k, Shared.token
    ps = (1, 2, 4, 8, 16, 32)
    runs = [run(system="strong-it", application="a", p=p, n=1000.0, tau=(4 / p + 0.002 * p) * f, chi=0.0)
            for p in ps for f in (0.99, 1.0, 1.01)]
    runs += [run(system="strong-it", application="rises", p=p, n=1.0, tau=v, chi=0.0)
             for p, v in ((1, 10), (2, 6), (4, 7), (8, 3))]
    runs += [run(system="strong-it", application="two", p=p, n=1.0, tau=v, chi=0.0) for p, v in ((1, 10), (2, 6))]
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201, f"posted ({s} {b})")
    base = "/api/v1/analysis/model?system=strong-it&application=a&predict=128"
    s, g, _ = k.request("GET", base)
    # tau = 4/p + 0.002 p exactly in the mean: p tau = 4 + 0.002 p^2
    expect(s == 200 and g["resource"] is True and "falls at every step of the 6 measured p" in g["resource_reason"]
           and g["function"].startswith("(4 + 0.002 * p^2") and g["function"].endswith(") / p"),
           f"auto: modelled as p x tau ({g.get('function')} {g.get('resource_reason')})")
    pr = g["predictions"][0]["model"]
    expect(abs(pr - (4 / 128 + 0.256)) < 1e-9 and g["quality"] == "good",
           f"tau at 128 = 0.28725, not below 0 ({pr} {g['quality']})")
    s, f, _ = k.request("GET", base + "&resource=false")
    expect(s == 200 and f["resource"] is False and f["resource_reason"] == "τ modelled as measured (resource=false)"
           and f["quality"] != "good", f"forced as measured: not a good model ({f['function']} {f['quality']})")
    s, r, _ = k.request("GET", base.replace("application=a", "application=rises"))
    expect(s == 200 and r["resource"] is False and "from p = 2 to 4" in r["resource_reason"],
           f"tau rises from 2 to 4: as measured, said where ({r['resource_reason']})")
    s, r, _ = k.request("GET", base.replace("application=a", "application=two"))
    expect(s == 200 and r["resource"] is False and "with 2 distinct p" in r["resource_reason"]
           and r["quality"] == "unusable" and any("p takes 2 distinct values" in x for x in r["quality_reasons"])
           and r["predictions"][0]["model"] is None,
           f"two p: unusable, nothing extrapolated ({r['quality_reasons']} {r['predictions']})")
    s, e, _ = k.request("GET", base + "&resource=maybe")
    expect(s == 400 and e["field"] == "resource", f"resource=maybe refused ({s} {e})")
    s, r, _ = k.request("GET", "/api/v1/reports/model.svg?system=strong-it&application=a")
    expect(json.loads(r_headers(k, "/api/v1/reports/model.svg?system=strong-it&application=a"))["title"]
           == "scaling model: strong-it:a at n = 1000, modelled as p × τ", "the report draws the same model")
    # POST: as given by default; "auto" and true on request
    pts = [{"coordinates": [p], "values": [4 / p + 0.002 * p]} for p in ps]
    for body_extra, want in (({}, False), ({"resource": "auto"}, True), ({"resource": True}, True),
                             ({"resource": False}, False)):
        s, b, _ = k.request("POST", "/api/v1/analysis/model", {"parameters": ["p"], "points": pts, **body_extra})
        expect(s == 200 and b["resource"] is want, f"POST {body_extra}: resource {want} ({s} {b.get('resource')})")
    s, b, _ = k.request("POST", "/api/v1/analysis/model", {"parameters": ["p"], "points": pts, "resource": "yes"})
    expect(s == 400 and b["field"] == "resource", f"resource 'yes' refused ({s} {b})")
    s, b, _ = k.request("POST", "/api/v1/analysis/model", {"parameters": ["n"], "points": pts, "resource": True})
    expect(s == 400 and b["field"] == "resource", f"resource over n refused ({s} {b})")
    # three or four distinct values: at best poor, the count named
    s, b, _ = k.request("POST", "/api/v1/analysis/model", {"parameters": ["p"], "points": [
        {"coordinates": [p], "values": [1 + 2 * p]} for p in (1, 2, 4, 8)]})
    expect(b["quality"] == "poor" and any("p takes only 4 distinct values" in x for x in b["quality_reasons"]),
           f"an exact line over 4 p: poor ({b['quality']} {b['quality_reasons']})")
    # no rounding noise in the function: 0.001 log2(p)^2 has no constant
    import math
    s, b, _ = k.request("POST", "/api/v1/analysis/model", {"parameters": ["p"], "points": [
        {"coordinates": [p], "values": [0.001 * math.log2(p) ** 2]} for p in (2, 4, 8, 16, 32, 64)]})
    expect(b["function"] == "0.001 * log2(p)^2" and b["constant"] == 0,
           f"no coefficient of rounding noise ({b['function']} {b['constant']})")


def r_headers(k, path):
    s, _, h = k.request("GET", path)
    return h["X-Karte-Frame"]


@test
def every_model_says_how_good_it_is():
    """quality and quality_reasons on every model answer, by the
    contract's rule: unusable when the model is <= 0 at a measured
    coordinate of a metric measured above 0, or adj_r2 < 0; else poor when
    the cross-validated SMAPE > 15 % or adj_r2 < 0.5; else good."""
    k, t = Shared.k, Shared.token

    def post(pts):
        s, b, _ = k.request("POST", "/api/v1/analysis/model", {"parameters": ["p"], "points": [
            {"coordinates": [p], "values": v if isinstance(v, list) else [v]} for p, v in pts]})
        expect(s == 200, f"modelled ({s} {b})")
        return b
    good = post([(p, 1 + 2 * p) for p in range(1, 9)])
    expect(good["function"] == "1 + 2 * p" and good["quality"] == "good" and good["quality_reasons"] == [],
           f"an exact line is good ({good['quality']} {good['quality_reasons']})")
    # alternating 1, 3: the mean stands; a constant explains no variance, so no adj. R² (Extra-P
    # writes 1 there), and it is judged on its SMAPE, 53 %
    poor = post([(p, [1, 3][p % 2]) for p in range(1, 7)])
    expect(poor["function"] == "2" and poor["adj_r2"] is None and poor["quality"] == "poor"
           and len(poor["quality_reasons"]) == 1 and "SMAPE is 53.33 %" in poor["quality_reasons"][0],
           f"no adj. R² beside SMAPE 53 %: poor ({poor['adj_r2']} {poor['quality']} {poor['quality_reasons']})")
    same = post([(p, 4.5) for p in range(1, 7)])
    expect(same["function"] == "4.5" and same["adj_r2"] is None and same["quality"] == "good",
           f"identical values: a constant that is good ({same['adj_r2']} {same['quality']})")
    # falling by 1000x over 1..64: the best hypothesis goes below 0 at p = 64
    bad = post([(1, 10), (2, 9), (4, 1), (8, 0.5), (16, 0.2), (32, 0.05), (64, 0.01)])
    at64 = [m for m in bad["measurements"] if m["coordinates"] == [64]][0]
    expect(bad["quality"] == "unusable" and at64["model"] < 0
           and any("at p = 64, where every measured value is above 0" in r for r in bad["quality_reasons"])
           and any("adjusted R²" in r for r in bad["quality_reasons"]) and bad["adj_r2"] < 0,
           f"negative inside the measured range: unusable ({bad['function']} {bad['quality_reasons']})")
    # an unusable model is drawn where measured, never beyond; the title names the fixed n
    k.request("POST", "/api/v1/runs", [run(system="unusable-it", application="a", p=p, n=1.0, tau=v, chi=0.0)
                                       for p, v in ((1, 10), (2, 9), (4, 1), (8, 0.5), (16, 0.2), (32, 0.05), (64, 0.01))],
              token=t)
    s, g, _ = k.request("GET", "/api/v1/analysis/model?system=unusable-it&application=a&resource=false")
    s, b, h = k.request("GET", "/api/v1/reports/model.svg?system=unusable-it&application=a&resource=false")
    frame = json.loads(h["X-Karte-Frame"])
    expect(g["quality"] == "unusable" and frame["panels"][0]["x"]["max"] < 128,
           f"no extrapolation of an unusable model ({g['quality']} {frame['panels'][0]['x']})")
    expect("an unusable model is drawn where measured only" in frame["notes"][0],
           f"and a note says why ({frame['notes']})")
    expect(frame["title"] == "scaling model: unusable-it:a at n = 1", f"the title names n ({frame['title']})")
    s, b, h = k.request("GET", "/api/v1/reports/model.svg?system=unusable-it&application=a&resource=true")
    expect(json.loads(h["X-Karte-Frame"])["title"] == "scaling model: unusable-it:a at n = 1, modelled as p × τ",
           "and the reading when it is p × τ")
    # stored series: the GET and the isoefficiency's models carry it too
    s, b, _ = k.request("POST", "/api/v1/runs", isomodel_runs("quality-it"), token=t)
    s, g, _ = k.request("GET", "/api/v1/analysis/model?system=quality-it&application=cg&n=1000")
    expect(s == 200 and g["quality"] in ("good", "poor", "unusable") and isinstance(g["quality_reasons"], list),
           f"GET model ({s} {g.get('quality')})")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=quality-it&application=cg&points=false")
    m = b["models"]
    expect(all(m[q]["quality"] == "good" for q in ("work", "overhead", "resource")),
           f"exact models are good ({[(q, m[q]['quality']) for q in ('work', 'overhead', 'resource')]})")
    expect(all(c["source"] == "model" for c in m["c1_c3"]), f"good models speak ({m['c1_c3'][:1]})")


@test
def where_tau_stops_falling_never_contradicts_the_measured_steps():
    """tau falls to p = 8 at n = 1000 and rises after (a C3 step); a
    resource model that cannot follow that must not say 'C1 throughout':
    the measured turn stands and the answer says why."""
    k, t = Shared.k, Shared.token
    taus = {1: 8.0, 2: 4.2, 4: 2.3, 8: 1.5, 16: 1.9, 32: 3.1, 64: 6.0}
    runs = [run(system="turn-it", application="cg", p=p, n=1000.0, tau=tau, chi=0.1 * tau) for p, tau in taus.items()]
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=turn-it&application=cg&points=false")
    steps = [(x["from_p"], x["to_p"], x["region"]) for x in b["steps"]]
    expect((8, 16, "C3") in steps, f"the measured step 8 -> 16 rises ({steps})")
    c = b["models"]["c1_c3"][0]
    said = c["p"]
    expect(said is not None and 8 <= said <= 16, f"the statement turns where the steps do ({c})")
    expect(c["source"] == "measurement" or b["models"]["resource"]["quality"] == "good",
           f"from a model only when it is good ({c} {b['models']['resource']['quality']})")
    # the SP2 example of the paper: a model from 4 p and 2 n is unusable; the note names the measured turn
    ensure_sp2()
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=SP2-it&application=md&points=false")
    c = b["models"]["c1_c3"][0]
    expect(c["source"] == "measurement" and c["p"] == 24 and "cannot say where τ stops falling" in c["note"]
           and c["note"].endswith("the measured steps turn at p = 24 (τ does not fall from p = 24 to 36)"),
           f"the measured turn named in the note ({c})")


@test
def model_reports_draw_the_model_and_the_isoefficiency_function():
    k, t = Shared.k, Shared.token
    os.makedirs(OUT, exist_ok=True)
    for name in ("isomodel-rep", "isomodel-rep2"):
        s, b, _ = k.request("POST", "/api/v1/runs", isomodel_runs(name), token=t)
        expect(s == 201, f"posted {name}")
    for path, tag in [("model.{}?system=isomodel-rep&application=cg&resource=true", "model"),
                      ("model.{}?series=isomodel-rep:cg&series=isomodel-rep2:cg&metric=chi", "model-compare"),
                      ("isoefficiency-function.{}?system=isomodel-rep&application=cg&levels=0.5,0.8", "isoefficiency-function")]:
        for fmt in ("svg", "png", "pdf"):
            s, b, h = k.request("GET", "/api/v1/reports/" + path.format(fmt) + "&width=640&height=480")
            expect(s == 200, f"{path.format(fmt)} -> 200 ({s} {b if isinstance(b, dict) else ''})")
            if fmt == "svg":
                svg_ok(b, path)
                frame = json.loads(h["X-Karte-Frame"])["panels"][0]
                expect(frame["drawn"] if "drawn" in frame else True, "drawn")
                # the model runs on to 4 times the largest measured p (64)
                expect(frame["x"]["log"] and frame["x"]["max"] >= 256, f"x reaches 256 ({frame['x']})")
            elif fmt == "png":
                expect(png_size(b) == (640, 480), f"{tag}: PNG of the asked size")
                with open(os.path.join(OUT, f"{tag}.png"), "wb") as f:
                    f.write(b)
            else:
                expect(b[:5] == b"%PDF-", f"{tag}: a PDF")
    s, b, h = k.request("GET", "/api/v1/reports/model.svg?system=isomodel-rep&application=cg&resource=true&max_x=4096")
    expect(s == 200 and json.loads(h["X-Karte-Frame"])["panels"][0]["x"]["max"] >= 4096, "max_x extends the curve")
    for path, status, field in [
            ("model.svg?system=isomodel-rep&application=cg&parameters=p,n", 400, "parameters"),
            ("model.svg?system=isomodel-rep&application=cg&metric=region:none", 404, "metric"),
            ("model.svg?system=isomodel-rep&application=cg&max_x=-1", 400, "max_x"),
            ("model.svg?series=isomodel-rep:cg&series=nobody:cg", 404, None),
            ("isoefficiency-function.svg?series=isomodel-rep:cg&series=isomodel-rep2:cg", 400, "series"),
            ("isoefficiency-function.svg?system=isomodel-rep&application=cg&levels=2", 400, "levels"),
            ("models.svg?system=isomodel-rep&application=cg", 404, None)]:
        s, b, _ = k.request("GET", "/api/v1/reports/" + path)
        expect(s == status and (field is None or b.get("field") == field), f"{path} -> {status} {field} ({s} {b})")


@test
def label_filters_select_runs_analyses_and_reports():
    k, t = Shared.k, Shared.token
    sp2 = [(10, 39200.0, 20, 0.552), (16, 39200.0, 16, 0.45), (24, 39200.0, 14, 0.334),
           (10, 80000.0, 40, 0.62), (16, 80000.0, 32, 0.5), (24, 80000.0, 25, 0.4)]
    runs = [run(system="label-it", application="md", p=p, n=n, tau=tau * f, chi=(1 - e) * tau * f,
                labels={"commit": c, "cc": "gcc"})
            for c, f in (("a1", 1.0), ("b2", 1.2)) for p, n, tau, e in sp2]
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201, f"posted ({s} {b})")
    s, b, _ = k.request("GET", "/api/v1/runs?system=label-it&label.commit=b2&limit=4")
    expect(s == 200 and len(b["runs"]) == 4 and all(r["labels"]["commit"] == "b2" for r in b["runs"]) and b["next"],
           f"a page of 4 b2 runs ({s} {b})")
    s, b2, _ = k.request("GET", "/api/v1/runs?system=label-it&label.commit=b2&limit=4&after=" + b["next"])
    expect(s == 200 and len(b2["runs"]) == 2 and b2["next"] is None and all(r["tau"] > 14 for r in b2["runs"]),
           f"the last 2 b2 runs, then no next ({s} {b2})")
    s, b, _ = k.request("GET", "/api/v1/runs?system=label-it&label.commit=a1&label.cc=gcc")
    expect(s == 200 and len(b["runs"]) == 6, "two labels, both must match")
    s, b, _ = k.request("GET", "/api/v1/runs?system=label-it&label.commit=a1&label.cc=clang")
    expect(s == 200 and b["runs"] == [], "no run has both")
    s, b, _ = k.request("GET", "/api/v1/runs?system=label-it&format=csv&label.commit=a1")
    expect(s == 200 and b.decode().count("\n") == 7, f"CSV: header and 6 runs ({b[:200]})")
    # the analyses see only the runs with the label: Orii's SP2 figures for a1
    s, a, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=label-it&application=md&label.commit=a1&points=false")
    expect(s == 200 and a["series"]["labels"] == {"commit": "a1"} and len(a["steps"]) == 4
           and a["counts"]["sps"] >= 1, f"isoefficiency of commit a1 ({s} {a.get('series')} {a.get('counts')})")
    s, m, _ = k.request("GET", "/api/v1/analysis/model?system=label-it&application=md&label.commit=b2&n=39200")
    expect(s == 200 and m["points"] == 3 and abs(m["measurements"][0]["mean"] - 24) < 1e-9,
           f"model of commit b2: tau 1.2 x 20 at p = 10 ({s} {m.get('measurements', [{}])[0]})")
    s, b, h = k.request("GET", "/api/v1/reports/efficiency.svg?system=label-it&application=md&label.commit=b2")
    expect(s == 200 and h["Content-Type"] == "image/svg+xml", "a report of one label value")
    for q, status, field in [("label.commit=zz", 404, None), ("label.=x", 400, "label."),
                             ("label." + "k" * 65 + "=x", 400, "label." + "k" * 65),
                             ("label.a=1&label.b=2&label.c=3&label.d=4&label.e=5", 400, "label.e")]:
        s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=label-it&application=md&" + q)
        # a field name is cut to 63 bytes in the answer
        expect(s == status and (field is None or b.get("field") == field[:63]), f"{q[:40]} -> {status} ({s} {b})")


@test
def history_of_a_point_with_baselines_and_verdicts():
    k, t = Shared.k, Shared.token
    # posted out of order: the history sorts by measured_at
    taus = [10, 11, 9, 10, 12, 14.5, 5.0]
    runs = [run(system="history-it", application="cg", p=4, n=100.0, tau=x, chi=0.1,
                measured_at=f"2026-11-{10 + i:02d}T10:00:00Z", labels={"commit": f"c{i}"}, energy_j=100.0 * x)
            for i, x in enumerate(taus)]
    s, b, _ = k.request("POST", "/api/v1/runs", list(reversed(runs)), token=t)
    expect(s == 201, f"posted ({s} {b})")
    base = "/api/v1/analysis/history?system=history-it&application=cg&p=4&n=100"
    s, h, _ = k.request("GET", base)
    rs = h.get("runs", [])
    expect(s == 200 and [r["tau"] for r in rs] == taus and [r["measured_at"][:10] for r in rs][0] == "2026-11-10",
           f"in measured_at order ({s} {h})")
    # by hand: before 14.5 the runs 10, 11, 9, 10, 12 have median 10 and MAD 1;
    # 3 * 1.4826 * 1 = 4.45 > 5 % of 10, and 14.5 - 10 = 4.5 exceeds both
    expect(rs[5]["verdict"] == "regression" and rs[5]["baseline"] == {"median": 10.0, "mad": 1.0, "runs": 5},
           f"14.5 is a regression ({rs[5]})")
    # before 5.0: 10, 11, 9, 10, 12, 14.5: median 10.5, deviations .5 .5 1.5 .5 1.5 4: MAD 1
    expect(rs[6]["verdict"] == "improvement" and rs[6]["baseline"] == {"median": 10.5, "mad": 1.0, "runs": 6},
           f"5.0 is an improvement ({rs[6]})")
    expect(all(r["verdict"] == "ok" for r in rs[:5]) and rs[0]["baseline"] is None
           and h["counts"] == {"ok": 5, "regression": 1, "improvement": 1} and h["thresholds"]["min_runs"] == 5,
           f"below min_runs everything is ok ({h['counts']})")
    s, h, _ = k.request("GET", base + "&noise=0&rel=0.2")
    expect([r["verdict"] for r in h["runs"]][5:] == ["regression", "improvement"], "relative 20 %: still both")
    s, h, _ = k.request("GET", base + "&rel=0.5")
    expect(h["counts"] == {"ok": 6, "regression": 0, "improvement": 1}, f"50 %: 14.5 is within, 5.0 is not ({h['counts']})")
    s, h, _ = k.request("GET", base + "&min_runs=6")
    expect(h["counts"]["regression"] == 0 and h["counts"]["improvement"] == 1, "min_runs=6: the sixth run is not judged")
    s, h, _ = k.request("GET", base + "&metric=energy_j&limit=2")
    expect(s == 200 and [r["energy_j"] for r in h["runs"]] == [1450.0, 500.0] and h["truncated"] is True
           and h["runs"][0]["verdict"] == "regression", f"energy, the latest 2 ({h})")
    s, h, _ = k.request("GET", base + "&label.commit=c6")
    expect(s == 200 and len(h["runs"]) == 1 and h["runs"][0]["tau"] == 5.0, "a label narrows the history")
    for q, status, field in [("&metric=chi", 400, "metric"), ("&min_runs=0", 400, "min_runs"), ("&rel=-1", 400, "rel"),
                             ("&limit=0", 400, "limit")]:
        s, b, _ = k.request("GET", base + q)
        expect(s == status and b.get("field") == field, f"{q} -> {status} {field} ({s} {b})")
    for q, status, field in [("system=history-it&application=cg&p=4", 400, "n"),
                             ("system=history-it&application=cg&p=8&n=100", 404, None),
                             ("application=cg&p=4&n=100", 400, "system")]:
        s, b, _ = k.request("GET", "/api/v1/analysis/history?" + q)
        expect(s == status and (field is None or b.get("field") == field), f"{q} -> {status} ({s} {b})")


@test
def a_history_judges_and_draws_each_frequency_apart():
    """A point of the history is (series, p, n, frequency_mhz, power_cap_w):
    five runs at 3000 MHz, then runs at 1200 MHz 2.3x longer (as physics
    says) are no regression; each setting is its own baseline and its own
    line in the report, named in the legend."""
    k, t = Shared.k, Shared.token
    taus = [(3000, 2.0), (3000, 2.01), (3000, 1.99), (3000, 2.0), (3000, 2.02), (1200, 4.6), (1200, 4.61),
            (1200, 4.59), (1200, 4.6), (1200, 4.62), (1200, 4.6), (3000, 2.5)]
    runs = [run(system="freq-it", application="mg", p=1, n=1.0, tau=x, chi=0.0, frequency_mhz=f,
                measured_at=f"2026-10-{10 + i:02d}T10:00:00Z") for i, (f, x) in enumerate(taus)]
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    stored = b.get("verdicts")
    expect(s == 201 and stored == ["ok"] * 11 + ["regression"], f"the check on ingest: the same verdicts ({s} {b})")
    s, h, _ = k.request("GET", "/api/v1/analysis/history?system=freq-it&application=mg&p=1&n=1")
    v = [r["verdict"] for r in h["runs"]]
    expect(s == 200 and v[:11] == ["ok"] * 11 and v[11] == "regression" and h["counts"]["regression"] == 1,
           f"1200 MHz is no regression of 3000 MHz; 2.5 s at 3000 MHz is ({v} {stored})")
    b10, b11 = h["runs"][10]["baseline"], h["runs"][11]["baseline"]
    expect(b10["runs"] == 5 and b10["median"] == 4.6 and b11["runs"] == 5 and b11["median"] == 2.0
           and abs(b11["mad"] - 0.01) < 1e-12,
           f"each against its own frequency ({h['runs'][10]['baseline']} {h['runs'][11]['baseline']})")
    expect([(x["name"], x["runs"]) for x in h["settings"]] == [("3000 MHz", 6), ("1200 MHz", 6)]
           and h["runs"][5]["frequency_mhz"] == 1200, f"the settings listed ({h['settings']})")
    s, _, hd = k.request("GET", "/api/v1/reports/history.svg?system=freq-it&application=mg&p=1&n=1")
    legend = json.loads(hd["X-Karte-Frame"])["legend"]
    expect(s == 200 and "3000 MHz: its runs, its own baseline" in legend
           and "1200 MHz: its runs, its own baseline" in legend, f"a line per frequency, named ({legend})")
    s, b, _ = k.request("POST", "/api/v1/runs", [run(system="freq-it", application="mg", p=1, n=1.0, tau=4.61, chi=0.0,
                                                     frequency_mhz=1200, measured_at="2026-10-30T10:00:00Z")], token=t)
    expect(s == 201 and not b.get("alerts"), f"the check on ingest agrees: 4.61 s at 1200 MHz is ok ({b})")


def marker_counts(svg):
    """How many times each marker definition is stamped, largest first."""
    import re
    from collections import Counter
    return sorted(Counter(re.findall(rb'<use xlink:href="#(karte-m[^"]*)"', svg)).values(), reverse=True)


@test
def series_labels_history_report_and_label_comparison():
    k, t = Shared.k, Shared.token
    sysname = "hrep-it"
    # p = 4, n = 100 over seven commits, as in the history test: 10, 11, 9,
    # 10, 12 then 14.5 (a regression) and 5.0 (an improvement)
    taus = [10, 11, 9, 10, 12, 14.5, 5.0]
    runs = [run(system=sysname, application="cg", p=4, n=100.0, tau=x, chi=0.1,
                measured_at=f"2026-11-{10 + i:02d}T10:00:00Z",
                labels={"commit": f"c{i}", "compiler": "gcc" if i % 2 else "clang"})
            for i, x in enumerate(taus)]
    # c5 and c6 also at p = 1, 2, 8: c6 scales worse at p = 8
    for i, f8 in ((5, 1.0), (6, 1.5)):
        for p, x in ((1, 40.0), (2, 21.0), (8, 6.0 * f8)):
            runs.append(run(system=sysname, application="cg", p=p, n=100.0, tau=x, chi=0.1 * p,
                            measured_at=f"2026-11-{10 + i:02d}T11:00:00Z", labels={"commit": f"c{i}"}))
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201 and len(b["ids"]) == 13, f"posted ({s} {b})")
    series = f"system={sysname}&application=cg"

    # the labels the series has, values in the order of their first run
    s, lb, _ = k.request("GET", f"/api/v1/series/labels?{series}")
    keys = {x["key"]: x for x in lb.get("labels", [])}
    expect(s == 200 and lb["runs"] == 13 and set(keys) == {"commit", "compiler"} and not lb["more_keys"],
           f"two keys over 13 runs ({s} {lb})")
    commits = keys["commit"]["values"]
    expect([v["value"] for v in commits] == [f"c{i}" for i in range(7)] and
           [v["runs"] for v in commits] == [1, 1, 1, 1, 1, 4, 4] and
           commits[5]["first"] == "2026-11-15T10:00:00Z" and commits[5]["last"] == "2026-11-15T11:00:00Z"
           and not keys["commit"]["more"], f"commits in order with counts and times ({commits})")
    expect([(v["value"], v["runs"]) for v in keys["compiler"]["values"]] == [("clang", 4), ("gcc", 3)],
           f"compilers ({keys['compiler']})")
    for q, status, field in [("application=cg", 400, "system"), (f"system={sysname}&application=nope", 404, None)]:
        s, b, _ = k.request("GET", "/api/v1/series/labels?" + q)
        expect(s == status and b.get("field") == field, f"labels {q} -> {status} ({s} {b})")

    # the history report: 7 runs, the first 5 not judged (rings), one
    # regression, one improvement: three marker kinds stamped 5, 1 and 1 times
    point = f"{series}&p=4&n=100"
    s, b, h = k.request("GET", f"/api/v1/reports/history.svg?{point}")
    svg_ok(b, "history")
    pan = json.loads(h["X-Karte-Frame"])["panels"][0]
    expect(s == 200 and marker_counts(b) == [5, 1, 1], f"5 unjudged, 1 regression, 1 improvement ({marker_counts(b)})")
    expect(pan["x"]["min"] == 0.5 and pan["x"]["max"] == 7.5 and pan["y"]["min"] <= 5.0 and pan["y"]["max"] >= 14.5,
           f"runs 1..7 across, 5 to 14.5 s up ({pan})")
    s, b, h = k.request("GET", f"/api/v1/reports/history.svg?{point}&min_runs=3")
    expect(marker_counts(b) == [3, 2, 1, 1], f"min_runs=3: 3 unjudged, 2 ok, 1 and 1 ({marker_counts(b)})")
    s, b, h = k.request("GET", f"/api/v1/reports/history.svg?{point}&by=compiler")
    pan = json.loads(h["X-Karte-Frame"])["panels"][0]
    expect(s == 200 and pan["x"]["min"] == 0.5 and pan["x"]["max"] == 2.5, f"by=compiler: two values across ({pan})")
    for fmt in ("png", "pdf"):
        s, b, h = k.request("GET", f"/api/v1/reports/history.{fmt}?{point}&by=commit")
        expect(s == 200 and b[:4] in (b"\x89PNG", b"%PDF"), f"history.{fmt}")
        with open(os.path.join(OUT, f"history-by-commit.{fmt}"), "wb") as fh:
            fh.write(b)
    for q, status, field in [(f"{series}&p=4", 400, "n"), (f"{point}&by=", 400, "by"),
                             (f"{point}&metric=gamma", 400, "metric"), (f"{series}&p=3&n=100", 404, None)]:
        s, b, _ = k.request("GET", "/api/v1/reports/history.svg?" + q)
        expect(s == status and b.get("field") == field, f"history report {q} -> {status} ({s} {b})")

    # two values of one label side by side: c5 (4 points) and c6 (4 points),
    # each point in both panels of the efficiency report; c0 has one point
    s, b, h = k.request("GET", f"/api/v1/reports/efficiency.svg?{series}&label.commit=c5&label.commit=c6")
    expect(s == 200 and marker_counts(b) == [4, 4, 4, 4], f"c5 and c6, 4 points in 2 panels each ({marker_counts(b)})")
    s, b, h = k.request("GET", f"/api/v1/reports/isoefficiency.svg?{series}&label.commit=c0&label.commit=c6")
    expect(s == 200 and marker_counts(b)[-1] == 1 and sum(marker_counts(b)) >= 5,
           f"c0's one point beside c6's ({marker_counts(b)})")
    s, b, _ = k.request("GET", f"/api/v1/reports/model.svg?{series}&label.commit=c5&label.commit=c6&label.commit=c5")
    expect(s == 200 and marker_counts(b) == [4, 4], f"a repeated value is one series ({marker_counts(b)})")
    s, b, _ = k.request("GET", f"/api/v1/reports/efficiency.svg?{series}&label.commit=c5&label.commit=nope")
    expect(s == 404 and b.get("index") == 1, f"a value without runs is named by its index ({s} {b})")
    s, b, _ = k.request("GET", f"/api/v1/reports/efficiency.svg?{series}&label.commit=c5&label.commit=c6"
                        "&label.compiler=gcc&label.compiler=clang")
    expect(s == 400 and b.get("field") == "label", f"two keys repeated -> 400 ({s} {b})")
    many = "&".join(f"label.commit=c{i}" for i in range(3))
    s, b, _ = k.request("GET", f"/api/v1/reports/efficiency.svg?{'&'.join([f'series={sysname}:cg'] * 3)}&{many}")
    expect(s == 400 and b.get("field") == "label", f"3 series x 3 values > 8 -> 400 ({s} {b})")

    # scaling history: c6 beside c5 (the default is the latest value), 4
    # points each; c0 alone has no earlier value
    s, b, h = k.request("GET", f"/api/v1/reports/scaling-history.svg?{series}")
    svg_ok(b, "scaling history")
    pan = json.loads(h["X-Karte-Frame"])["panels"][0]
    expect(s == 200 and marker_counts(b) == [4, 4] and pan["x"]["log"] and pan["x"]["min"] <= 1 and pan["x"]["max"] >= 8,
           f"c5 and c6 over p = 1..8 ({marker_counts(b)} {pan})")
    s2, b2, h2 = k.request("GET", f"/api/v1/reports/scaling-history.svg?{series}&value=c6&by=commit")
    expect(s2 == 200 and h2["X-Karte-Frame"] == h["X-Karte-Frame"] and len(b2) == len(b), "value=c6 is the default")
    s, b, h = k.request("GET", f"/api/v1/reports/scaling-history.png?{series}&value=c6")
    with open(os.path.join(OUT, "scaling-history.png"), "wb") as fh:
        fh.write(b)
    s, b, _ = k.request("GET", f"/api/v1/reports/scaling-history.svg?{series}&value=c0")
    expect(s == 200 and marker_counts(b) == [1], f"the first value alone ({s} {marker_counts(b) if s == 200 else b})")
    for q, status, field in [(f"{series}&value=zz", 404, "value"), (f"{series}&by=nokey", 404, "by"),
                             (f"{series}&series=a:b", 400, "series"), ("application=cg", 400, "system"),
                             (f"{series}&label.a=1&label.b=2&label.c=3&label.d=4", 400, "label")]:
        s, b, _ = k.request("GET", "/api/v1/reports/scaling-history.svg?" + q)
        expect(s == status and b.get("field") == field, f"scaling-history {q} -> {status} ({s} {b})")
    # the history answers by commit too
    s, h, _ = k.request("GET", f"/api/v1/analysis/history?{point}&by=commit")
    expect(h["by"] == "commit" and [r["group"] for r in h["runs"]] == [f"c{i}" for i in range(7)],
           f"each run's group ({h.get('by')})")


@sqlite_only
@test
def staged_runs_move_into_the_large_table_and_every_answer_stays():
    """SQLite stores new runs in runs_new; karted's writer thread moves
    them into runs_base once there are 65,536 (schema 11), 1024 at a time
    between batches, the last slice emptying runs_new whole. The listing, a
    label's runs, a point's history and the catalogue answer the same
    before and after the move, a key stored before it is still found, a
    moved run deletes with its labels, and karted copy into another SQLite
    file (runs loaded straight into runs_base) keeps the labels."""
    k = Karted(Shared.binary, args=["--log-level", "debug"]).start()
    tok = k.first_token
    total = 70000
    try:
        nd = "".join(json.dumps(run(system="stage-it", application=f"a{i % 50}", p=1 + i % 4, n=100.0,
                                    tau=10.0 + (i % 7) / 100, chi=0.5, labels={"batch": str(i % 3)},
                                    **({"idempotency_key": f"st-{i}"} if i % 1000 == 0 else {}))) + "\n"
                     for i in range(total))
        s, b, _ = k.request("POST", "/api/v1/runs", nd, ctype="application/x-ndjson", token=tok)
        expect(s == 201 and len(b["ids"]) == total, f"{total} runs stored ({s})")
        first = b["ids"][0]
        reads = [f"/api/v1/runs?system=stage-it&limit=60&after={first + 40}", "/api/v1/runs?system=stage-it&application=a7&limit=30",
                 "/api/v1/runs?label.batch=1&limit=40", f"/api/v1/runs?label.batch=2&limit=40&after={first + 35000}",
                 "/api/v1/analysis/history?system=stage-it&application=a3&p=4&n=100",
                 "/api/v1/series"]

        def answers(kk):
            out = []
            for path in reads:
                st, body, _ = kk.request("GET", path)
                expect(st == 200, f"GET {path}: {st} {str(body)[:200]}")
                out.append(body)
            return out
        before = answers(k)
        t0 = time.time()
        while time.time() - t0 < 60 and int(k.sql("SELECT count(*) FROM runs_new")) > 0:
            time.sleep(0.2)
        moved = int(k.sql("SELECT count(*) FROM runs_base"))
        expect(moved == total and k.log_line("moved 1024 runs", timeout=10),
               f"the writer moved the staged runs in slices ({moved} in runs_base)")
        after = answers(k)
        for path, x, y in zip(reads, before, after):
            expect(x == y, f"GET {path} answers the same after the move")
        # the move is the writer's own commit: the check keeps its windows
        # (another connection's commit would have it let go of them all)
        read0 = metric(k, "karte_check_window_reads_total")
        s, b, _ = k.request("POST", "/api/v1/runs", run(system="stage-it", application="a1", p=2, n=100.0,
                                                         tau=10.03, chi=0.5), token=tok)
        expect(s == 201 and b["verdicts"] == ["ok"], f"a run at a point of 700 earlier runs: ok ({s} {b})")
        got = (metric(k, "karte_check_window_reads_total") - read0,
               metric(k, 'karte_check_window_drops_total{reason="reset"}'), metric(k, "karte_check_windows"))
        expect(got == (0, 0, 100), "the check judged it from the window it kept through the move "
               f"(no read, no reset; its 100 points kept): {got}")
        s, b, _ = k.request("POST", "/api/v1/runs", run(system="stage-it", application="a0", p=1, n=100.0,
                                                         idempotency_key="st-0"), token=tok)
        expect(s == 200 and b["ids"] == [first], f"a key stored before the move is found ({s} {b})")
        expect(k.sql(f"SELECT count(*) FROM run_labels WHERE run_id = {first}") == "1", "a moved run keeps its label")
        s, _, _ = k.request("DELETE", f"/api/v1/runs/{first}", token=tok)
        expect(s == 200 and k.sql(f"SELECT count(*) FROM run_labels WHERE run_id = {first}") == "0",
               f"a moved run deletes with its label ({s})")
        dst = os.path.join(temp_dir("karte-stage-"), "copy.db")
        out = subprocess.run([Shared.binary, "copy", "--from", k.db, "--to", dst], capture_output=True, text=True,
                             timeout=300)
        expect(out.returncode == 0 and "sha256 of every table" in out.stdout, f"copied ({out.stderr[-300:]})")
        db = sqlite3.connect(dst)
        try:
            base, new, labels = (db.execute(q).fetchone()[0] for q in (
                "SELECT count(*) FROM runs_base", "SELECT count(*) FROM runs_new", "SELECT count(*) FROM run_labels"))
        finally:
            db.close()
        # total runs: one posted after the move, one deleted
        expect(base == total and new == 0 and labels == int(k.sql("SELECT count(*) FROM run_labels")),
               f"the copy is in runs_base with every label ({base}, {new}, {labels})")
        k2 = Karted(Shared.binary, db=dst).start()
        try:
            expect(answers(k2)[2:4] == answers(k)[2:4], "the copy lists a label's runs as the source does")
        finally:
            k2.stop()
    finally:
        k.stop()


@sqlite_only
@test
def ingest_check_sees_runs_written_by_another_connection():
    """The ingest check keeps windows across batches; on SQLite it trusts
    them while PRAGMA data_version says no other connection wrote. A run
    inserted by another connection must count in the next baseline."""
    import sqlite3
    k, t = Shared.k, Shared.token
    sysname = "foreign-it"

    def post(tau, day):
        s, b, _ = k.request("POST", "/api/v1/runs", run(system=sysname, application="cg", p=2, n=50.0, tau=tau,
                                                         measured_at=f"2026-10-{day:02d}T10:00:00Z"), token=t)
        expect(s == 201, f"posted ({s} {b})")
        return b["verdicts"][0]
    # six runs of 10 s: the window is cached
    expect([post(10.0, d) for d in range(1, 7)] == ["ok"] * 6, "six runs of 10 s are ok")
    # another connection adds eight runs of 20 s at the same point, later
    db = sqlite3.connect(k.db, timeout=10)
    cols = [r[1] for r in db.execute("PRAGMA table_info(runs)")]
    src = db.execute("SELECT r.id FROM runs r JOIN series s ON s.id = r.series_id WHERE s.system = ? "
                     "ORDER BY r.id DESC LIMIT 1", (sysname,)).fetchone()[0]
    for d in range(7, 15):
        vals = ", ".join({"id": "NULL", "tau": "20.0", "measured_at": f"'2026-10-{d:02d}T10:00:00Z'",
                          "idempotency_key": "NULL"}.get(c, c) for c in cols)
        db.execute(f"INSERT INTO runs ({', '.join(cols)}) SELECT {vals} FROM runs WHERE id = ?", (src,))
    db.commit()
    db.close()
    # against 6 x 10 and 8 x 20 (median 20) a run of 20.5 s is ok; against
    # the stale window of 6 x 10 it would be a regression
    expect(post(20.5, 15) == "ok", "the runs written by another connection count")
    s, h, _ = k.request("GET", f"/api/v1/analysis/history?system={sysname}&application=cg&p=2&n=50")
    expect(s == 200 and len(h["runs"]) == 15 and h["runs"][-1]["verdict"] == "ok", f"the history agrees ({h.get('counts')})")


@test
def the_isoefficiency_bounds_its_pairs_in_any_order_of_runs():
    """Orii's walk visits every (p, n, n') pair; a series of more than
    2*10^7 is a 413 naming series before any work, counted the same way
    whether the runs come in (p, n) order (counted as they are) or not
    (counted on a sorted copy): two p with 4,472 n each make 19,994,312
    pairs, with 4,473 n each 20,003,256, posted p by p or the two p
    interleaved."""
    k, t = Shared.k, Shared.token
    for app, count in (("under", 4472), ("over", 4473)):
        for order in ("grouped", "interleaved"):
            pn = ([(p, n) for p in (1, 2) for n in range(1, count + 1)] if order == "grouped"
                  else [(p, n) for n in range(count, 0, -1) for p in (2, 1)])
            nd = "".join(json.dumps(run(system="pairs-it", application=f"{app}-{order}", p=p, n=float(n),
                                        tau=1.0 + n / p, chi=0.5)) + "\n" for p, n in pn)
            s, b, _ = k.request("POST", "/api/v1/runs", nd, ctype="application/x-ndjson", token=t)
            expect(s == 201 and len(b["ids"]) == 2 * count, f"{2 * count} runs posted ({s})")
            s, b, _ = k.request("GET", f"/api/v1/analysis/isoefficiency?system=pairs-it&application={app}-{order}"
                                "&models=false&points=false&max_pairs=1")
            if app == "over":
                expect(s == 413 and b.get("field") == "series" and "20003256 (p, n, n') pairs" in b.get("error", ""),
                       f"{count} n at each of two p, {order}: 413 naming series with its 20003256 pairs ({s} {str(b)[:300]})")
            else:
                expect(s == 200 and len(b["bases"]) == 2 * count,
                       f"{count} n at each of two p, {order}: analysed ({s} {str(b)[:200]})")


@test
def bulk_check_reads_windows_for_many_points_in_parts():
    """A bulk POST of more points than one part holds (1,024) is checked in
    parts, each part's windows read in one query: every run must get the
    verdict its own point's history gives, on both backends."""
    k, t = Shared.k, Shared.token
    sysname, points = "bulk-check-it", 1100

    def r(n, day, tau, region):
        return run(system=sysname, application="cg", p=2, n=float(n + 1), tau=tau, measured_at=f"2026-09-{day:02d}T08:00:00Z",
                   regions=[{"name": "halo", "time_s": 1.0, "energy_j": region}])
    # five runs of 10 + n s (halo 5 J) at each of 1,100 points, the points
    # interleaved: each point its own baseline, so a run held against
    # another point's window gets a wrong verdict
    nd = "".join(json.dumps(r(n, day, 10.0 + n, 5.0)) + "\n" for day in range(1, 6) for n in range(points))
    s, b, _ = k.request("POST", "/api/v1/runs", nd, ctype="application/x-ndjson", token=t)
    expect(s == 201 and len(b["ids"]) == 5 * points and set(b["verdicts"]) == {"ok"},
           f"{5 * points} runs, below min_runs: all ok ({s} {b if s != 201 else set(b['verdicts'])})")
    # then one run at each point: even n twice as slow (tau regression),
    # n % 4 == 1 the halo's energy doubled (a region's regression), n % 4 == 3 as before
    nd = "".join(json.dumps(r(n, 6, (10.0 + n) * (2 if n % 2 == 0 else 1), 10.0 if n % 4 == 1 else 5.0)) + "\n"
                 for n in range(points))
    s, b, _ = k.request("POST", "/api/v1/runs", nd, ctype="application/x-ndjson", token=t)
    want = ["regression" if n % 4 != 3 else "ok" for n in range(points)]
    expect(s == 201 and b["verdicts"] == want, f"each point judged on its own five runs "
           f"({[i for i, (x, y) in enumerate(zip(b.get('verdicts', []), want)) if x != y][:10]})")
    expect(len(b["alerts"]) == 825, f"825 alerts, 3 of every 4 points ({len(b['alerts'])})")
    by_n = {a["n"] - 1: a for a in b["alerts"]}
    a1, a2 = by_n[1.0], by_n[2.0]
    expect([(x["metric"], x.get("region"), x["median"]) for x in a1["regressions"]] == [("energy_j", "halo", 5.0)]
           and [(x["metric"], x["value"], x["median"], x["runs"]) for x in a2["regressions"]] == [("tau", 24.0, 12.0, 5)],
           f"n=1: the halo's energy against 5 J; n=2: tau against 5 runs of 12 s ({a1['regressions']} {a2['regressions']})")
    # a third run at each point, in one batch again, the points in reverse
    # (cached windows first, then ones to read): the windows now hold six
    # runs (median 10 + n s); 4 % more is within 5 %, 6 % more is not
    order = list(range(points))[::-1]
    nd = "".join(json.dumps(r(n, 7, (10.0 + n) * (1.04 if n % 2 else 1.06), 5.0)) + "\n" for n in order)
    s, b, _ = k.request("POST", "/api/v1/runs", nd, ctype="application/x-ndjson", token=t)
    want = ["ok" if n % 2 else "regression" for n in order]
    expect(s == 201 and b["verdicts"] == want, f"the third batch: odd n ok, even n a regression "
           f"({[i for i, (x, y) in enumerate(zip(b.get('verdicts', []), want)) if x != y][:10]})")
    # a full part: 1,024 points posted five times fill every window of a
    # part once; then a batch whose first run is at a cached point and whose
    # second is at a new one: the new window must not take the place of the
    # cached one the batch is using
    full = sysname + "-full"
    for day in range(1, 6):
        nd = "".join(json.dumps(dict(r(n, day, 10.0 + n, 5.0), system=full)) + "\n" for n in range(1024))
        s, b, _ = k.request("POST", "/api/v1/runs", nd, ctype="application/x-ndjson", token=t)
        expect(s == 201 and set(b["verdicts"]) == {"ok"}, f"1,024 points, day {day} ({s})")
    nd = (json.dumps(dict(r(0, 6, 20.0, 5.0), system=full)) + "\n" +
          json.dumps(dict(r(1999, 6, 1.0, 5.0), system=full)) + "\n")
    s, b, _ = k.request("POST", "/api/v1/runs", nd, ctype="application/x-ndjson", token=t)
    expect(s == 201 and b["verdicts"] == ["regression", "ok"],
           f"the cached point's run against its own five runs of 10 s, the new point's alone ({b})")
    s, h, _ = k.request("GET", f"/api/v1/analysis/history?system={sysname}&application=cg&p=2&n={points - 1}")
    expect(s == 200 and [x["verdict"] for x in h["runs"]][-2:] == ["regression", "regression"],
           f"the history agrees at n={points - 1}, the last point ({h.get('counts')})")


@test
def regressions_on_ingest_make_alerts():
    k, t = Shared.k, Shared.token
    sysname = "ingest-it"

    def post(tau, energy=None, region=None, measured=None, **kw):
        r = run(system=sysname, application="cg", p=8, n=500.0, tau=tau, **kw)
        if energy is not None:
            r["energy_j"] = energy
        if region is not None:
            r["regions"] = [{"name": "halo", "time_s": 1.0, "energy_j": region}]
        if measured:
            r["measured_at"] = measured
        s, b, _ = k.request("POST", "/api/v1/runs", r, token=t)
        expect(s == (200 if b.get("verdicts") == [None] else 201), f"posted ({s} {b})")
        return b

    # by hand, as in the history test: after 10, 11, 9, 10, 12 (median 10,
    # MAD 1) 14.5 exceeds both 5 % of 10 and 3 * 1.4826 * 1 = 4.45
    answers = [post(x, energy=100.0 * x, region=10.0) for x in (10, 11, 9, 10, 12)]
    expect(all(a["verdicts"] == ["ok"] and a["alerts"] == [] for a in answers),
           f"below min_runs and within the thresholds: ok, no alerts ({answers})")
    b = post(14.5, energy=1450.0, region=10.0)
    expect(b["verdicts"] == ["regression"] and len(b["alerts"]) == 1, f"14.5 is a regression with an alert ({b})")
    a = b["alerts"][0]
    expect(a["run_id"] == b["ids"][0] and (a["system"], a["application"], a["variant"], a["p"], a["n"])
           == (sysname, "cg", "", 8, 500.0) and a["metric"] == "tau" and a["value"] == 14.5
           and a["baseline"] == {"median": 10.0, "mad": 1.0, "runs": 5} and a["acknowledged"] is False,
           f"the alert names the run, its point and the baseline ({a})")
    metrics = {(x["metric"], x.get("region")) for x in a["regressions"]}
    expect(metrics == {("tau", None), ("energy_j", None)},
           f"tau and energy_j regressed; the region's energy (10 as before) did not ({a['regressions']})")
    expect(abs(a["regressions"][0]["change"] - 0.45) < 1e-12, f"change (14.5 - 10) / 10 ({a['regressions'][0]})")
    b = post(5.0, energy=500.0, region=10.0)
    expect(b["verdicts"] == ["improvement"] and b["alerts"] == [], f"5.0 is an improvement, no alert ({b})")
    # the region alone: tau and energy_j as before, the halo's energy doubled
    b = post(10.0, energy=1000.0, region=20.0)
    expect(b["verdicts"] == ["regression"] and [(x["metric"], x.get("region")) for x in b["alerts"][0]["regressions"]]
           == [("energy_j", "halo")], f"a region's energy alone makes an alert ({b})")
    # an idempotent repeat is not judged again
    b1 = post(30.0, idempotency_key="ingest-it-key")
    b2 = post(30.0, idempotency_key="ingest-it-key")
    expect(b1["verdicts"] == ["regression"] and b2["verdicts"] == [None] and b2["alerts"] == [] and b2["ids"] == b1["ids"],
           f"a repeat gets its id and no verdict ({b1} {b2})")

    s, lst, _ = k.request("GET", f"/api/v1/alerts?system={sysname}")
    ids = [x["run_id"] for x in lst["alerts"]]
    expect(s == 200 and len(ids) == 3 and ids == sorted(ids, reverse=True) and lst["next"] is None,
           f"three alerts, newest first ({s} {lst})")
    s, pg, h = k.request("GET", f"/api/v1/alerts?system={sysname}&limit=2")
    link = h.get("Link", "")
    expect(link == f'</api/v1/alerts?after={pg["next"]}&system={sysname}&limit=2>; rel="next"',
           f"the next page in a Link header ({link!r})")
    s2, pg2, h2 = k.request("GET", link[1:link.index(">")])
    expect([x["id"] for x in pg["alerts"] + pg2["alerts"]] == [x["id"] for x in lst["alerts"]] and pg2["next"] is None
           and "Link" not in h2, f"pages of 2, the second through the Link, the last without one ({pg} {pg2})")
    s, later, _ = k.request("GET", f"/api/v1/alerts?system={sysname}&since=2999-01-01")
    s2, earlier, _ = k.request("GET", f"/api/v1/alerts?system={sysname}&since=2000-01-01T00:00:00%2B09:00")
    expect(later["alerts"] == [] and len(earlier["alerts"]) == 3, "since: the alert's creation time")
    newest = lst["alerts"][0]
    s, same, _ = k.request("GET", "/api/v1/alerts?since=" + newest["created_at"])
    expect(newest["id"] in [x["id"] for x in same["alerts"]], "since equal to created_at includes the alert")

    # acknowledged with a token; the token's name is kept
    aid = lst["alerts"][-1]["id"]
    s, b, _ = k.request("POST", f"/api/v1/alerts/{aid}/ack")
    expect(s == 401, f"acknowledging needs a token ({s})")
    s, b, _ = k.request("POST", f"/api/v1/alerts/{aid}/ack", token=t)
    expect(s == 200 and b["acknowledged"] is True and b["acknowledged_by"] and b["acknowledged_at"],
           f"acknowledged ({s} {b})")
    s, b2, _ = k.request("POST", f"/api/v1/alerts/{aid}/ack", token=t)
    expect(s == 200 and b2["acknowledged_at"] == b["acknowledged_at"], "a second acknowledgement keeps the first")
    s, b, _ = k.request("POST", "/api/v1/alerts/999999/ack", token=t)
    expect(s == 404, f"no such alert ({s} {b})")
    s, op, _ = k.request("GET", f"/api/v1/alerts?system={sysname}&acknowledged=false")
    expect(len(op["alerts"]) == 2 and aid not in [x["id"] for x in op["alerts"]], "open alerts only")

    # the Atom feed
    s, feed, h = k.request("GET", f"/api/v1/alerts?system={sysname}&format=atom")
    import xml.etree.ElementTree as ET
    root = ET.fromstring(feed)
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = root.findall("a:entry", ns)
    expect(s == 200 and h.get("Content-Type", "").startswith("application/atom+xml") and len(entries) == 3
           and entries[-1].find("a:title", ns).text.startswith("tau regression of ingest-it:cg at p=8, n=500: +45.0 %"),
           f"an Atom entry per alert ({s} {feed[:300]})")

    # thresholds per series: 50 % relative keeps 14.5 ok from now on
    q = f"/api/v1/series/thresholds?system={sysname}&application=cg"
    s, th, _ = k.request("GET", q)
    expect(s == 200 and th["set"] is False and th["thresholds"] == {"rel": 0.05, "noise": 3.0, "min_runs": 5},
           f"the defaults ({th})")
    s, th, _ = k.request("PUT", q, {"rel": 2.0, "min_runs": 3}, token=t)
    expect(s == 200 and th["set"] is True and th["thresholds"] == {"rel": 2.0, "noise": 3.0, "min_runs": 3}, f"set ({s} {th})")
    b = post(25.0)
    expect(b["verdicts"] == ["ok"] and b["alerts"] == [], f"within 200 %: ok ({b})")
    s, h2, _ = k.request("GET", f"/api/v1/analysis/history?system={sysname}&application=cg&p=8&n=500")
    expect(h2["thresholds"]["rel"] == 2.0 and h2["thresholds"]["min_runs"] == 3, f"history uses them too ({h2['thresholds']})")
    for body, field in [({"rel": -1}, "rel"), ({"min_runs": 0}, "min_runs"), ({"min_runs": 2.5}, "min_runs"),
                        ({"noise": "x"}, "noise"), ({"window": 3}, "window")]:
        s, e, _ = k.request("PUT", q, body, token=t)
        expect(s == 400 and e.get("field") == field, f"{body} -> 400 {field} ({s} {e})")
    s, e, _ = k.request("PUT", "/api/v1/series/thresholds?system=nope&application=cg", {"rel": 1}, token=t)
    expect(s == 404, f"no such series ({s} {e})")
    s, th, _ = k.request("DELETE", q, token=t)
    expect(s == 200 and th["set"] is False, f"back to the defaults ({th})")
    for qq, field in [("format=xml", "format"), ("since=yesterday", "since"), ("limit=0", "limit"),
                      ("acknowledged=maybe", "acknowledged")]:
        s, e, _ = k.request("GET", "/api/v1/alerts?" + qq)
        expect(s == 400 and e.get("field") == field, f"{qq} -> 400 {field} ({s} {e})")

    # karted's own counters, in Prometheus' text format
    s, m, h = k.request("GET", "/metrics")
    text = m.decode() if isinstance(m, bytes) else str(m)
    vals = dict(re.findall(r"^(karte_[a-z_]+(?:\{[^}]*\})?) (\S+)$", text, re.M))
    expect(s == 200 and h.get("Content-Type", "").startswith("text/plain; version=0.0.4")
           and float(vals["karte_alerts_total"]) >= 3 and float(vals["karte_runs_stored_total"]) >= 10
           and float(vals['karte_http_requests_total{code="2xx"}']) > 10
           and vals['karte_http_request_duration_seconds_bucket{le="+Inf"}'] == vals["karte_http_request_duration_seconds_count"]
           and "# TYPE karte_http_request_duration_seconds histogram" in text and "karte_write_queue_depth" in vals,
           f"the counters ({s} {text[:400]})")


@sqlite_only
@test
def alert_webhook_posts_each_alert_with_retries():
    """A real HTTP receiver on loopback: it fails the first attempt (503),
    then takes the alert; while it holds a request, ingest goes on."""
    import http.server
    got, hold = [], threading.Event()
    calls = {"n": 0}

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            calls["n"] += 1
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if calls["n"] == 1:
                self.send_response(503)
                self.end_headers()
                return
            hold.wait(20)  # the receiver is slow: karted must not wait for it
            got.append((self.headers.get("Content-Type"), json.loads(body)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/hook"
    k = Karted(Shared.binary, args=["--alert-webhook", url, "--log-level", "debug"]).start()
    try:
        def post(tau):
            s, b, _ = k.request("POST", "/api/v1/runs", run(system="hook-it", tau=tau), token=k.first_token, timeout=5)
            expect(s == 201, f"posted ({s} {b})")
            return b

        for x in (10, 11, 9, 10, 12):
            post(x)
        b = post(20.0)
        expect(len(b["alerts"]) == 1, f"an alert ({b})")
        deadline = time.time() + 10
        while calls["n"] < 2 and time.time() < deadline:
            time.sleep(0.05)
        expect(calls["n"] == 2, f"retried after the 503 ({calls})")
        # the receiver holds the second attempt: ingest is not delayed
        t0 = time.time()
        for x in (10, 10, 10):
            post(x)
        expect(time.time() - t0 < 4, "POSTs answered while the webhook waits")
        hold.set()
        while not got and time.time() < deadline + 10:
            time.sleep(0.05)
        expect(len(got) == 1 and got[0][0] == "application/json" and got[0][1]["run_id"] == b["ids"][0]
               and got[0][1]["id"] == b["alerts"][0]["id"] and got[0][1]["metric"] == "tau",
               f"one JSON POST carrying the alert with its run_id ({got})")
        s, m, _ = k.request("GET", "/metrics")
        text = m.decode() if isinstance(m, bytes) else str(m)
        expect('karte_alert_webhook_total{outcome="sent"} 1' in text and "karte_alert_webhook_retries_total 1" in text,
               f"counted ({text[-600:]})")
        failed = k.log_line("alert webhook, attempt 1 of 5")
        sent = k.log_line("alert webhook: an alert delivered")
        expect(failed.startswith("karted: warning: alert webhook, attempt 1 of 5: ") and "503" in failed,
               f"the failed attempt is a warning naming the status ({failed!r})")
        expect(sent == "karted: debug: alert webhook: an alert delivered after 2 attempts",
               f"the delivery is a debug line ({sent!r})")
    finally:
        hold.set()
        k.stop()
        srv.shutdown()
    db = os.path.join(temp_dir("karte-hook-"), "new", "x.db")
    s = subprocess.run([Shared.binary, "serve", "--alert-webhook", "ftp://x", "--db", db],
                       capture_output=True, text=True, timeout=10)
    expect(s.returncode != 0 and "http:// or https://" in s.stderr, f"a bad URL is refused ({s.returncode} {s.stderr})")
    expect(not os.path.exists(os.path.dirname(db)), "before any folder or database is made")


@test
def weak_scaling_is_recognised_and_explained():
    k, t = Shared.k, Shared.token
    import math
    ps = (1, 2, 4, 8, 16)
    runs = [run(system="weak-it", application="cg", p=p, n=1000.0 * p, tau=10 + 0.5 * math.log2(p), chi=0.5 * math.log2(p))
            for p in ps]
    runs += [run(system="strong-it", application="cg", p=p, n=500.0, tau=8.0 / p + 1, chi=1.0) for p in (1, 2, 4, 8)]
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201, f"posted ({s} {b})")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=weak-it&application=cg")
    sc = b["scaling"]
    expect(s == 200 and b["sps"] == [] and sc["kind"] == "weak" and sc["n_per_p"] == 1000.0,
           f"one n per p, n = 1000 p: weak scaling ({s} {b.get('scaling')})")
    expect([(x["p"], x["n"]) for x in sc["to_complete"]] == [(1, 2000.0), (2, 4000.0), (4, 8000.0), (8, 16000.0)],
           f"the next p's problem at each p completes a triple ({sc['to_complete']})")
    eff = [x["efficiency"] for x in sc["weak_efficiency"]]
    expect(all(abs(e - 10 / (10 + 0.5 * math.log2(p))) < 1e-12 for e, p in zip(eff, ps)) and len(eff) == 5,
           f"weak-scaling efficiency tau(1)/tau(p) ({eff})")
    expect("Weak scaling" in sc["explanation"] and "SPS identification needs two or more n" in sc["explanation"],
           f"said in words ({sc['explanation']})")
    s, g, _ = k.request("GET", "/api/v1/analysis/model?system=weak-it&application=cg")
    expect(s == 200 and g["scaling"] == "weak" and "n" not in g and g["points"] == 5
           and g["terms"][0]["factors"] == [{"parameter": "p", "exponent": 0.0, "log_exponent": 1}]
           and abs(g["constant"] - 10) < 1e-9 and abs(g["terms"][0]["coefficient"] - 0.5) < 1e-9,
           f"the weak series modelled over p with every run: 10 + 0.5 log2(p) ({s} {g.get('function')})")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=strong-it&application=cg")
    sc = b["scaling"]
    expect(s == 200 and sc["kind"] == "strong" and [(x["p"], x["n"]) for x in sc["to_complete"]] == [(1, 1000.0), (2, 1000.0)]
           and sc["n_per_p"] is None and sc["weak_efficiency"] == [],
           f"one n: strong scaling, a larger n at the first two p suggested ({sc})")
    s, g, _ = k.request("GET", "/api/v1/analysis/model?system=strong-it&application=cg")
    expect(s == 200 and g["scaling"] == "strong" and g["n"] == 500, f"strong: over p at n=500 ({g.get('scaling')})")
    ensure_sp2()
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=SP2-it&application=md")
    expect(b["scaling"]["kind"] == "grid" and b["scaling"]["to_complete"] == [], f"SP2: a grid ({b['scaling']})")
    # eps = (n/100) / (p + n/100): each level is reached at p proportional to n
    grid = [run(system="isofn-it", application="cg", p=p, n=n, tau=2.0, chi=2.0 * p / (p + n / 100))
            for n in (1000.0, 2000.0, 4000.0) for p in (2, 4, 8, 16, 32)]
    s, b, _ = k.request("POST", "/api/v1/runs", grid, token=t)
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=isofn-it&application=cg&levels=0.7")
    f = b["isoefficiency_functions"][0]
    expect(s == 200 and abs(f["exponent"] - 1) < 0.05 and "fitted to 3 points" in f["warning"]
           and "cannot pin it down" in f["warning"], f"an exponent from 3 points carries a warning ({s} {f})")


@test
def tolerance_auto_comes_from_the_spread_of_repeated_runs():
    k, t = Shared.k, Shared.token
    runs = [run(system="SP2-noisy", application="md", p=p, n=n, tau=tau * f, chi=(1 - e) * tau * f)
            for p, n, tau, e in SP2 for f in (0.98, 1.0, 1.02)]
    s, b, _ = k.request("POST", "/api/v1/runs", runs, token=t)
    expect(s == 201, f"posted ({s})")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=SP2-noisy&application=md&tolerance=auto&points=false")
    # each point: eps from 1 - 1.02 chi / (0.98 tau) to 1 - 0.98 chi / (1.02 tau); half of it is
    # (chi/tau) (1.02/0.98 - 0.98/1.02) / 2, and the median chi/tau of the 8 points is (0.55 + 0.6) / 2
    want = 0.575 * (1.02 / 0.98 - 0.98 / 1.02) / 2
    expect(s == 200 and abs(b["tolerance"] - want) < 1e-12 and abs(b["c2_rtol"] - 0.04) < 1e-12,
           f"tolerance {want} and c2_rtol 0.04 from the spread ({s} {b.get('tolerance')} {b.get('c2_rtol')})")
    expect(b["tolerance_auto"] == {"repeated_points": 8, "source": "the median spread of the points with two or more runs"},
           f"says where they came from ({b.get('tolerance_auto')})")
    ensure_sp2()
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=SP2-it&application=md&tolerance=auto")
    expect(s == 200 and b["tolerance"] == 1e-9 and b["c2_rtol"] == 0.02 and b["tolerance_auto"]["repeated_points"] == 0,
           f"no repeated runs: the defaults, and it says so ({b.get('tolerance_auto')})")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=SP2-it&application=md&tolerance=auto&c2_rtol=0.1")
    expect(s == 400 and b["field"] == "c2_rtol", f"auto and c2_rtol together: 400 ({b})")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=SP2-it&application=md&tolerance=autox")
    expect(s == 400 and b["field"] == "tolerance", f"a bad tolerance is named ({b})")


OUT = os.path.join(ROOT, "tests", "out", "reports")


def png_size(data):
    expect(data[:8] == b"\x89PNG\r\n\x1a\n", "a PNG")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def svg_ok(data, what):
    out = subprocess.run(["xmllint", "--noout", "-"], input=data, capture_output=True)
    expect(out.returncode == 0, f"{what}: SVG parses ({out.stderr[:300]})")


@test
def reports_render_every_kind_and_format():
    k, t = Shared.k, Shared.token
    ensure_sp2()
    os.makedirs(OUT, exist_ok=True)
    # a second system for comparisons: the SP2 runs 40 % faster with less overhead
    k.request("POST", "/api/v1/runs", [run(system="T3E-it", application="md", p=p, n=n, tau=tau * 0.6,
                                           chi=(1 - min(e + 0.1, 0.95)) * tau * 0.6) for p, n, tau, e in SP2], token=t)
    k.request("POST", "/api/v1/runs", kimura_runs("kimura-rep"), token=t)
    k.request("POST", "/api/v1/runs", kimura_runs("kimura-rep2"), token=t)
    cases = [("isoefficiency", "system=SP2-it&application=md&base=10,39200"),
             ("isoefficiency", "series=SP2-it:md&series=T3E-it:md"),
             ("efficiency", "system=SP2-it&application=md"),
             ("efficiency", "series=SP2-it:md&series=T3E-it:md"),
             ("energy", "system=kimura-rep&application=mg"),
             ("energy", "series=kimura-rep:mg&series=kimura-rep2:mg"),
             ("energy-shares", "system=kimura-rep&application=mg"),
             ("energy-shares", "series=kimura-rep:mg&series=kimura-rep2:mg")]
    for kind, q in cases:
        tag = kind + ("-compare" if "series=" in q else "")
        for fmt in ("svg", "png", "pdf"):
            s, b, h = k.request("GET", f"/api/v1/reports/{kind}.{fmt}?{q}&width=640&height=480")
            expect(s == 200, f"{kind}.{fmt}?{q} -> 200 ({s} {b if isinstance(b, dict) else ''})")
            data = b if isinstance(b, (bytes, bytearray)) else json.dumps(b).encode()
            if fmt == "svg":
                expect(h["Content-Type"] == "image/svg+xml", "SVG content type")
                svg_ok(data, f"{kind}?{q}")
            elif fmt == "png":
                expect(h["Content-Type"] == "image/png" and png_size(data) == (640, 480),
                       f"{kind}: PNG of the asked size ({png_size(data)})")
                with open(os.path.join(OUT, f"{tag}.png"), "wb") as f:
                    f.write(data)
            else:
                expect(data[:5] == b"%PDF-" and h["Content-Type"] == "application/pdf", f"{kind}: a PDF")
    s, b, h = k.request("GET", "/api/v1/reports/isoefficiency.png?system=SP2-it&application=md")
    expect(png_size(b) == (800, 600), "default size 800 x 600")


@test
def report_frames_and_views():
    """X-Karte-Frame says where each panel's data went; x_min..y_max zoom."""
    k = Shared.k
    ensure_sp2()
    q = "system=SP2-it&application=md"
    for fmt in ("svg", "png", "pdf"):
        s, b, h = k.request("GET", f"/api/v1/reports/isoefficiency.{fmt}?{q}&width=700&height=500")
        f = json.loads(h["X-Karte-Frame"])
        pan = f["panels"][0]
        expect(s == 200 and f["width"] == 700 and f["height"] == 500 and len(f["panels"]) == 1,
               f"{fmt}: a frame of the asked size ({f})")
        # SP2's tau run 13.33..40 s: a log axis fitted around them
        expect(pan["x"]["log"] and 10 < pan["x"]["min"] < 13.33 and 40 < pan["x"]["max"] < 50 and
               0 < pan["left"] < pan["right"] <= 700 and 0 < pan["top"] < pan["bottom"] <= 500,
               f"{fmt}: the plot rectangle and the tau range ({pan})")
    s, b, h = k.request("GET", f"/api/v1/reports/isoefficiency.svg?{q}&x_min=15&x_max=30&y_min=9&y_max=16")
    pan = json.loads(h["X-Karte-Frame"])["panels"][0]
    expect((pan["x"]["min"], pan["x"]["max"], pan["y"]["min"], pan["y"]["max"]) == (15, 30, 9, 16),
           f"the view asked for is the view drawn ({pan})")
    # the points far outside the view are left out of the SVG
    s, full, _ = k.request("GET", f"/api/v1/reports/isoefficiency.svg?{q}")
    zoomed, whole = b.count(b'<use xlink:href="#karte-m'), full.count(b'<use xlink:href="#karte-m')
    expect(0 < zoomed < whole, f"fewer markers in the zoomed view ({zoomed} of {whole})")
    s, b, h = k.request("GET", f"/api/v1/reports/efficiency.svg?{q}&x_min=12&x_max=40&y_min=0.1")
    f = json.loads(h["X-Karte-Frame"])
    expect(len(f["panels"]) == 2 and all(p["x"]["min"] == 12 and p["x"]["max"] == 40 for p in f["panels"]) and
           f["panels"][0]["y"]["min"] == 0, f"x for every panel, y only for a one-panel report ({f})")
    # a PNG for a HiDPI screen: twice the pixels, the same layout and frame
    s, b, h = k.request("GET", f"/api/v1/reports/isoefficiency.png?{q}&width=600&height=400&scale=2")
    f2 = json.loads(h["X-Karte-Frame"])
    s1, b1, h1 = k.request("GET", f"/api/v1/reports/isoefficiency.png?{q}&width=600&height=400")
    expect(png_size(b) == (1200, 800) and png_size(b1) == (600, 400) and f2 == json.loads(h1["X-Karte-Frame"]),
           f"scale=2: 1200 x 800 pixels, the frame of 600 x 400 ({png_size(b)})")
    for bad, field in (("x_min=abc", "x_min"), ("y_max=inf", "y_max"), ("x_min=5&x_max=5", "x_max"),
                       ("y_min=3&y_max=1", "y_max"), ("scale=0", "scale"), ("scale=5", "scale"), ("scale=1.5", "scale"),
                       ("width=4000&height=4000&scale=2", "scale")):
        s, b, _ = k.request("GET", f"/api/v1/reports/isoefficiency.png?{q}&{bad}")
        expect(s == (413 if "4000" in bad else 400) and b["field"] == field, f"{bad} -> 4xx naming {field} ({s} {b})")


@test
def isoefficiency_svg_of_10000_runs_stays_small():
    k, t = Shared.k, Shared.token
    nd = "".join(json.dumps({"system": "big-it", "application": "md", "p": p, "n": 1e4 * 1.08 ** i,
                             "tau": 1e4 * 1.08 ** i * 1e-5 / p + 0.02 * p ** 0.5,
                             "chi": 0.02 * p ** 0.5}) + "\n" for i in range(100) for p in range(1, 101))
    s, b, _ = k.request("POST", "/api/v1/runs", nd, ctype="application/x-ndjson", token=t)
    expect(s == 201 and len(b["ids"]) == 10000, f"10,000 runs posted ({s})")
    s, b, h = k.request("GET", "/api/v1/reports/isoefficiency.svg?system=big-it&application=md")
    expect(s == 200, f"200 ({s})")
    svg_ok(b, "10,000 runs")
    uses = b.count(b"<use ")
    print(f"    SVG of 10,000 runs: {len(b)} bytes, {uses} <use> references")
    expect(len(b) < 1_000_000, f"under 1 MB ({len(b)} bytes)")
    expect(uses >= 10000, "one marker definition reused for every run")
    # analyses run on worker threads: POSTs are not held up by them. The
    # analysis of 10,000 runs with 20,000 pairs each (a 14 MB answer) is
    # asked for back to back for 1.5 s while a POST goes in every 50 ms.
    done = {"n": 0, "seconds": 0.0}
    busy = threading.Event()
    busy.set()

    def analyse():
        # the answer's bytes only: parsing and schema-checking 14 MB here
        # would hold Python's GIL, and the POSTs below would wait for it
        while busy.is_set():
            t0 = time.time()
            with urllib.request.urlopen(k.url + "/api/v1/analysis/isoefficiency?system=big-it&application=md"
                                        "&max_pairs=20000&detail=full", timeout=300) as r:
                done["status"], done["raw"] = r.status, r.read()
            done["n"] += 1
            done["seconds"] += time.time() - t0

    th = threading.Thread(target=analyse)
    th.start()
    posts = []
    t_end = time.time() + 1.5
    while time.time() < t_end:
        time.sleep(0.05)
        t0 = time.time()
        s, b, _ = k.request("POST", "/api/v1/runs", run(system="while-busy"), token=t)
        posts.append((s, time.time() - t0))
    busy.clear()
    th.join(180)
    expect(all(s == 201 for s, _ in posts) and done.get("status") == 200, f"all answered ({posts[:3]} {done.get('status')})")
    done["body"] = json.loads(done["raw"])
    worst = max(d for _, d in posts)
    print(f"    {len(posts)} POSTs took at most {worst * 1000:.0f} ms while {done['n']} analyses of 10,000 runs "
          f"ran back to back ({done['seconds'] / done['n']:.2f} s each)")
    expect(done["n"] >= 2 and len(posts) >= 10, f"the POSTs overlapped the analyses ({len(posts)} POSTs, {done['n']} analyses)")
    expect(worst < 0.25, f"no POST waited for an analysis (the slowest {worst:.3f} s)")
    c = done["body"]["counts"]
    expect(len(done["body"]["candidates"]) == min(c["candidates"], 20000), "max_pairs bounds the lists")
    for bad in ("0", "20001", "-1"):
        s, b, _ = k.request("GET", f"/api/v1/analysis/isoefficiency?system=big-it&application=md&max_pairs={bad}")
        expect(s == 400 and b["field"] == "max_pairs" and "20000" in b["error"], f"max_pairs={bad} -> 400 naming it ({s} {b})")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=big-it&application=md")
    expect(b["counts"]["truncated"] and len(b["candidates"]) == 200 and b["counts"]["candidates"] == c["candidates"],
           f"by default (compact) at most 200 of each kind are listed, all counted ({b['counts']})")
    s, b, _ = k.request("GET", "/api/v1/analysis/isoefficiency?system=big-it&application=md&detail=full")
    expect(b["counts"]["truncated"] and len(b["candidates"]) == 1000 and b["counts"]["candidates"] == c["candidates"],
           f"detail=full lists at most 1,000 of each kind, all counted ({b['counts']})")
    s, b, h = k.request("GET", "/api/v1/reports/isoefficiency.png?system=big-it&application=md")
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "isoefficiency-10000.png"), "wb") as f:
        f.write(b)


@test
def karte_plot_offline():
    b = Shared.karte
    if not b:
        raise AssertionError("--karte not given")
    d = os.path.join(ROOT, "tests", "out", "plot")
    os.makedirs(d, exist_ok=True)
    csv = os.path.join(d, "sp2.csv")
    with open(csv, "w") as f:
        f.write("system,application,p,n,tau,chi\n")
        for p, n, tau, e in SP2:
            f.write(f"SP2,md,{p},{n},{tau},{(1 - e) * tau}\n")
    model = os.path.join(d, "model.json")
    with open(model, "w") as f:
        json.dump({"f_std": 3000, "p": [1], "regions": [
            {"name": "mem", "alpha_p": 0.9, "beta_on": 0.1, "f_opt": 2000, "power_std_w": 150, "power_opt_w": 115, "time_std_s": 1},
            {"name": "comm", "alpha_p": 0.7, "beta_on": 0.7, "f_opt": 2500, "power_std_w": 140, "power_opt_w": 120, "time_std_s": 1}]}, f)
    for kind, src, fmt in [("isoefficiency", ["--csv", csv, "--base", "10,39200"], "svg"),
                           ("isoefficiency", ["--csv", csv], "png"), ("efficiency", ["--csv", csv], "pdf"),
                           ("energy", ["--model", model], "png"), ("energy-shares", ["--model", model], "svg")]:
        out = os.path.join(d, f"{kind}.{fmt}")
        r = subprocess.run([b, "plot", kind] + src + ["-o", out, "--width", "640", "--height", "480"],
                           capture_output=True, text=True)
        expect(r.returncode == 0 and os.path.getsize(out) > 1000, f"karte plot {kind} -> {out} ({r.stderr})")
        data = open(out, "rb").read()
        if fmt == "svg":
            svg_ok(data, out)
        elif fmt == "png":
            expect(png_size(data) == (640, 480), "PNG size")
        else:
            expect(data[:5] == b"%PDF-", "PDF")
    bad = os.path.join(d, "bad.csv")
    with open(bad, "w") as f:
        f.write("p,n,tau,chi\n4,100,2,0.5\n4,100,2,3\n")
    r = subprocess.run([b, "plot", "isoefficiency", "--csv", bad, "-o", os.path.join(d, "x.svg")], capture_output=True, text=True)
    expect(r.returncode == 1 and "bad.csv:3: chi" in r.stderr, f"a bad row is named by its line ({r.stderr})")
    r = subprocess.run([b, "--help"], capture_output=True, text=True)
    expect(r.returncode == 0 and "karte plot" in r.stdout, "--help")
    r = subprocess.run([b, "plot", "pie", "--csv", csv, "-o", "x.svg"], capture_output=True, text=True)
    expect(r.returncode == 2 and "KIND" in r.stderr, "unknown kind")


FOUR = [{"p_max": 100, "p_min": 50}, {"p_max": 110, "p_min": 55}, {"p_max": 90, "p_min": 45}, {"p_max": 120, "p_min": 60}]


@test
def powercap_fit_quality_cycle_ratio_and_best_f3():
    k = Shared.k
    # the methods page's example curve (Inadomi et al.'s Fig. 6 shape)
    fs, rs = [2700, 2400, 1500, 1200], [1, 1.093, 1.74, 2.204]
    body = {"f_max": 2700, "f_min": 1200, "t0": 100, "modules": FOUR, "r": {"f": fs, "r": rs}, "budgets": [300]}
    s, b, _ = k.request("POST", "/api/v1/analysis/powercap", body)
    expect(s == 200, f"200 ({s} {b})")
    # Fig. 3: t(f_min) f_min / (t(f_max) f_max) = 2.204 * 1200 / 2700
    expect(abs(b["cycle_ratio"] - 2.204 * 1200 / 2700) < 1e-12, f"cycle ratio ({b['cycle_ratio']})")
    # best f3 among 2400 and 1500: through (2700, 1), (2400, 1.093): c = 0.093 / (1/2400 - 1/2700)
    # = 2008.8, d = 0.256; through (2400, 1.093), (1200, 2.204): c = 2666.4, d = -0.018; its only
    # error is at 1500 (1.7596 vs 1.74), SSE 0.0196^2, less than f3 = 1500's 0.022625^2
    bf = b["models"]["best_f3"]
    expect(bf["f3_mhz"] == 2400 and abs(bf["high"]["c"] - 2008.8) < 1e-9 and abs(bf["high"]["d"] - 0.256) < 1e-12
           and abs(bf["low"]["c"] - 2666.4) < 1e-9 and abs(bf["low"]["d"] + 0.018) < 1e-12, f"best f3 ({bf})")
    mean = sum(rs) / 4
    sst = sum((x - mean) ** 2 for x in rs)
    q = b["fit_quality"]
    expect(abs(q["best_f3"]["r2"] - (1 - 0.0196 ** 2 / sst)) < 1e-9 and 0.99 < q["best_f3"]["pearson_r"] <= 1,
           f"fit quality of the best f3 ({q})")
    expect(set(q) == {"two_point", "three_point", "best_f3"} and q["two_point"]["r2"] < q["best_f3"]["r2"],
           f"the 2-point model fits worse ({q})")
    three_default = b["models"]["three_point"]
    # an ideal inverse curve on both sides: parallel, no f3; the 2-point model exact
    ideal = [2700 / f for f in fs]
    s, b, _ = k.request("POST", "/api/v1/analysis/powercap", dict(body, r={"f": fs, "r": ideal}))
    expect(s == 200 and b["models"]["three_point"]["f3_mhz"] is None and abs(b["fit_quality"]["two_point"]["r2"] - 1) < 1e-12
           and abs(b["cycle_ratio"] - 1) < 1e-12, f"parallel curves: f3 null ({b['models']})")
    # the inner two frequencies named: 2400 and 1500 are those of the default
    s, b2, _ = k.request("POST", "/api/v1/analysis/powercap", dict(body, f_high_mhz=2400, f_low_mhz=1500))
    s3, b3, _ = k.request("POST", "/api/v1/analysis/powercap", dict(body, f_high_mhz=2000))
    expect(s == 200 and b2["models"]["three_point"] == three_default, f"named inner frequencies ({b2['models']})")
    expect(s3 == 400 and b3["field"] == "f_high_mhz", f"an unmeasured frequency named ({b3})")


def stretched_trace():
    import math
    ref, inst = [], []
    for j in range(141):
        t = j * 0.01
        ti = (t if t <= 0.10 else 0.10 + (t - 0.10) * 2 if t <= 0.50 else 0.90 + (t - 0.50) * 1.5 if t <= 0.90
              else 1.50 + (t - 0.90) * 1.5 if t <= 1.00 else 1.65 + (t - 1.00) * 2 if t <= 1.30 else 2.25 + (t - 1.30))
        p = 100 + 50 * math.sin(7 * t)
        ref.append({"t": t, "p": p})
        inst.append({"t": ti, "p": p + 30})
    segs = [{"start": 0.10, "end": 0.90, "ref_start": 0.10, "ref_end": 0.50},
            {"start": 0.90, "end": 1.50, "ref_start": 0.50, "ref_end": 0.90},
            {"start": 1.65, "end": 2.25, "ref_start": 1.00, "ref_end": 1.30}]
    return inst, ref, segs


@test
def trace_correction_restores_a_stretched_trace():
    k = Shared.k
    inst, ref, segs = stretched_trace()
    s, b, _ = k.request("POST", "/api/v1/analysis/trace-correction", {"instrumented": inst, "reference": ref, "segments": segs})
    expect(s == 200, f"200 ({s} {b})")
    c = b["corrected"]
    expect(all(abs(c[j]["t"] - ref[j]["t"]) < 1e-9 for j in range(141)), "times mapped back exactly")
    inside = [j for j in range(141) if 0.10 <= ref[j]["t"] <= 0.90 or 1.00 <= ref[j]["t"] <= 1.30]
    expect(all(abs(c[j]["p"] - ref[j]["p"]) < 1e-9 for j in inside), "power from the reference inside segments")
    expect(b["rms_power_error_w"]["after"] < b["rms_power_error_w"]["before"] and
           abs(b["durations_s"]["corrected"] - 1.4) < 1e-9 and b["duration_error_s"]["after"] < 1e-9,
           f"errors before and after ({b['rms_power_error_w']} {b['durations_s']})")
    # Fig. 7 of Osaka et al.: each segment's duration ratio, reference over
    # instrumented (0.4/0.8, 0.4/0.6, 0.3/0.6), and the time map's knots, the
    # one the first two segments share ([0.9, 0.5]) listed once
    s, b3, _ = k.request("POST", "/api/v1/analysis/trace-correction",
                         {"instrumented": inst, "reference": ref, "segments": [dict(segs[0], name="init")] + segs[1:]})
    expect(s == 200 and [x["segment"] for x in b3["segments"]] == ["init", 1, 2] and
           all(abs(x["ratio"] - w) < 1e-12 for x, w in zip(b3["segments"], [0.5, 0.4 / 0.6, 0.5])),
           f"segment ratios ({b3['segments']})")
    # Fig. 6: each segment's time as a share of its run (2.35 s instrumented, 1.4 s reference)
    sh = [(x["instrumented_s"], x["reference_s"], x["instrumented_share"], x["reference_share"]) for x in b3["segments"]]
    want = [(0.8, 0.4, 0.8 / 2.35, 0.4 / 1.4), (0.6, 0.4, 0.6 / 2.35, 0.4 / 1.4), (0.6, 0.3, 0.6 / 2.35, 0.3 / 1.4)]
    expect(all(abs(g - w) < 1e-12 for gs, ws in zip(sh, want) for g, w in zip(gs, ws)), f"segment shares ({sh})")
    knots = [[0, 0], [0.1, 0.1], [0.9, 0.5], [1.5, 0.9], [1.65, 1.0], [2.25, 1.3]]
    expect(len(b3["time_map"]) == len(knots) and all(abs(a - w) < 1e-12 for kn, wk in zip(b3["time_map"], knots)
                                                       for a, w in zip(kn, wk)), f"time map ({b3['time_map']})")
    c3 = b3["corrected"]
    # (the knot both segments share, j = 50, belongs to the first)
    expect(all(c3[j]["segment"] == ("init" if j <= 50 else 1 if j <= 90 else 2) and c3[j]["source_index"] == j
               for j in inside), "inside a segment: its name or index, and the reference sample it took")
    expect(all(c3[j]["segment"] is None and c3[j]["source_index"] is None for j in (0, 5, 95, 135, 140)),
           "outside every segment: null")
    s, b4, _ = k.request("POST", "/api/v1/analysis/trace-correction",
                         {"instrumented": inst, "reference": ref, "segments": [dict(segs[0], name="")] + segs[1:]})
    expect(s == 400 and b4["field"] == "segments.name" and b4["index"] == 0, f"an empty name -> 400 ({b4})")
    csv = "t_s,power_w\n" + "".join(f"{x['t']},{x['p']}\n" for x in inst)
    s, b2, _ = k.request("POST", "/api/v1/analysis/trace-correction", {"instrumented": csv, "reference": ref, "segments": segs})
    expect(s == 200 and abs(b2["rms_power_error_w"]["after"] - b["rms_power_error_w"]["after"]) < 1e-9, "CSV traces too")
    s, b, _ = k.request("POST", "/api/v1/analysis/trace-correction",
                        {"instrumented": inst, "reference": ref, "segments": [dict(segs[0], end=0.05)]})
    expect(s == 400 and b["field"] == "segments", f"a bad segment -> 400 ({b})")


@test
def powercap_and_trace_reports():
    k = Shared.k
    os.makedirs(OUT, exist_ok=True)
    ch, cl = 2000.0, 3000.0
    dh = 1 - ch / 2700
    dl = dh + (ch - cl) / 1800
    fs = [2700, 2400, 2100, 1800, 1500, 1200]
    rs = [ch / f + dh if f >= 1800 else cl / f + dl for f in fs]
    body = {"f_max": 2700, "f_min": 1200, "t0": 100, "modules": FOUR, "r": {"f": fs, "r": rs},
            "budgets": [250, 280, 310, 340, 370, 400]}
    inst, ref, segs = stretched_trace()
    for kind, b in (("powercap", body), ("trace", {"instrumented": inst, "reference": ref, "segments": segs})):
        for fmt in ("svg", "png", "pdf"):
            s, data, h = k.request("POST", f"/api/v1/reports/{kind}.{fmt}?width=700&height=450", b)
            expect(s == 200, f"{kind}.{fmt} -> 200 ({s} {data if isinstance(data, dict) else ''})")
            if fmt == "svg":
                svg_ok(data, kind)
            elif fmt == "png":
                expect(png_size(data) == (700, 450), "PNG size")
                with open(os.path.join(OUT, f"{kind}.png"), "wb") as f:
                    f.write(data)
            else:
                expect(data[:5] == b"%PDF-", "PDF")
    # the new outputs drawn: each module's r under the uniform cap (third
    # panel: modules 1..4, r up to the slowest module's at 250 W), and the
    # segments' duration ratios (second panel: bars 1..3 from 0, the line at 1)
    s, a, _ = k.request("POST", "/api/v1/analysis/powercap", body)
    worst = max(m["r_two_point"] for m in a["budgets"][0]["uniform"]["modules"])
    s, _, h = k.request("POST", "/api/v1/reports/powercap.svg", body)
    pans = json.loads(h["X-Karte-Frame"])["panels"]
    expect(len(pans) == 3 and pans[2]["x"]["min"] <= 1 and pans[2]["x"]["max"] >= 4 and
           worst > 1.5 and worst <= pans[2]["y"]["max"] < worst * 1.2, f"powercap: r per module drawn ({worst} {pans[2]})")
    s, _, h = k.request("POST", "/api/v1/reports/trace.svg",
                        {"instrumented": inst, "reference": ref, "segments": [dict(segs[0], name="PTRANS")] + segs[1:]})
    pans = json.loads(h["X-Karte-Frame"])["panels"]
    expect(s == 200 and len(pans) == 2 and (pans[1]["x"]["min"], pans[1]["x"]["max"]) == (0.4, 3.6) and
           pans[1]["y"]["min"] == 0 and 1 <= pans[1]["y"]["max"] < 1.2, f"trace: the segments' ratios drawn ({pans})")
    s, b, _ = k.request("POST", "/api/v1/reports/isoefficiency.svg", body)
    expect(s == 404 and "powercap and trace" in b["error"], f"other kinds are GET ({b})")
    s, b, _ = k.request("POST", "/api/v1/reports/powercap.svg", dict(body, t0=-1))
    expect(s == 400 and b["field"] == "t0", f"a bad body is a JSON 400 ({b})")
    # a normalised time of 0 (fuzz_api found it: the cycle ratio was infinite and the answer unwritable)
    s, b, _ = k.request("POST", "/api/v1/analysis/powercap", dict(body, r={"f": fs, "r": rs[:-1] + [0.0]}))
    expect(s == 400 and b["field"] == "r" and b["index"] == 5, f"r = 0 -> 400 naming r ({b})")


@test
def otf2_archives_written_and_corrected():
    w = Shared.otf2_writer
    if not w or not Shared.karte:
        raise AssertionError("--otf2-writer and --karte are needed")
    import math
    d = temp_dir("karte-otf2-")
    for name, kind in (("ref", "reference"), ("inst", "instrumented")):
        r = subprocess.run([w, os.path.join(d, name), name, kind], capture_output=True, text=True)
        expect(r.returncode == 0, f"libotf2 wrote the {kind} archive ({r.stderr})")
    ref, inst = os.path.join(d, "ref", "ref.otf2"), os.path.join(d, "inst", "inst.otf2")
    r = subprocess.run([Shared.karte, "trace", ref], capture_output=True, text=True)
    t = json.loads(r.stdout)
    expect(r.returncode == 0 and t["metric"] == "package power" and len(t["samples"]) == 141 and
           [(x["name"], x["start"], x["end"]) for x in t["segments"]] == [("solve", 0.1, 0.5), ("io", 0.5, 0.9), ("solve", 1.0, 1.3)],
           f"read back: samples and the segments inside main() ({r.stderr} {t.get('segments')})")
    out, png = os.path.join(d, "c.json"), os.path.join(OUT, "trace-otf2.png")
    os.makedirs(OUT, exist_ok=True)
    r = subprocess.run([Shared.karte, "correct", "--instrumented", inst, "--reference", ref, "-o", out, "--plot", png],
                       capture_output=True, text=True)
    expect(r.returncode == 0, f"karte correct ({r.stderr})")
    c = json.load(open(out))
    expect(all(abs(x["t"] - j * 0.01) < 1e-9 for j, x in enumerate(c["corrected"])), "times restored exactly")
    inside = [j for j in range(141) if 0.1 <= j * 0.01 <= 0.9 or 1.0 <= j * 0.01 <= 1.3]
    expect(all(abs(c["corrected"][j]["p"] - (100 + 50 * math.sin(7 * j * 0.01))) < 1e-9 for j in inside),
           "power restored exactly inside the segments")
    expect(c["rms_power_error_w"]["after"] < c["rms_power_error_w"]["before"], "error smaller after")
    expect(png_size(open(png, "rb").read()) == (800, 600), "the plot")
    r = subprocess.run([Shared.karte, "correct", "--instrumented", os.path.join(d, "nope.otf2"), "--reference", ref],
                       capture_output=True, text=True)
    expect(r.returncode == 1 and "cannot open" in r.stderr, f"a missing archive named ({r.stderr})")


@test
def power_model_and_configurations():
    k = Shared.k
    import random
    rnd = random.Random(3)
    def row(noise=True):
        t = rnd.uniform(1, 3)
        r = [rnd.uniform(1, 20), rnd.uniform(3, 35), rnd.uniform(0, 100)]
        power = 5 + 2 * r[0] + 0.5 * r[1] + (rnd.uniform(-0.1, 0.1) if noise else 0)
        return {"time_s": t, "power_w": power, "counters": {"instructions": r[0] * t, "cache_misses": r[1] * t, "unrelated": r[2] * t}}
    body = {"counters": ["instructions", "cache_misses", "unrelated"], "training": [row() for _ in range(60)],
            "verification": [row() for _ in range(20)]}
    s, b, _ = k.request("POST", "/api/v1/analysis/power-model", body)
    expect(s == 200, f"200 ({s} {b})")
    expect(b["kept"] == ["instructions", "cache_misses"] and [d["counter"] for d in b["dropped"]] == ["unrelated"] and
           b["dropped"][0]["p_value"] > 0.05 and abs(b["dropped"][0]["t"]) < 2.1, f"kept/dropped ({b})")
    terms = b["terms"]
    expect([x["counter"] for x in terms] == ["(intercept)", "instructions", "cache_misses"] and
           terms[0]["coefficient"] == b["intercept"] and terms[1]["coefficient"] == b["coefficients"]["instructions"]
           and all(abs(x["t"] - x["coefficient"] / x["se"]) < 1e-9 * abs(x["t"]) for x in terms),
           f"the regression table: t = coefficient / se ({terms})")
    expect(b["dof"] == 60 - 3 and abs(b["adj_r2"] - (1 - (1 - b["r2"]) * 59 / 57)) < 1e-12 and 0 < b["sigma"] < 0.1,
           f"dof, adjusted R^2, sigma ({b['dof']} {b['adj_r2']} {b['sigma']})")
    expect(abs(b["coefficients"]["instructions"] - 2) < 0.01 and abs(b["coefficients"]["cache_misses"] - 0.5) < 0.01
           and b["r2"] > 0.999, f"coefficients recovered ({b['coefficients']})")
    expect(b["verification"]["max_rel_error"] < 0.02, f"verification errors ({b['verification']})")
    rows = [{"time_s": 2, "counters": {"instructions": 20, "cache_misses": 40}}]
    s, p, _ = k.request("POST", "/api/v1/analysis/power-model/predict", {"model": b, "rows": rows})
    want = b["intercept"] + b["coefficients"]["instructions"] * 10 + b["coefficients"]["cache_misses"] * 20
    expect(s == 200 and abs(p["predictions"][0]["power_w"] - want) < 1e-9 and abs(p["predictions"][0]["energy_j"] - 2 * want) < 1e-9,
           f"energy estimated for a run without power ({p})")
    s, p, _ = k.request("POST", "/api/v1/analysis/power-model/predict", {"model": b, "rows": rows, "cores_per_chip": 4})
    expect(s == 200 and abs(p["predictions"][0]["thread_power_w"] - (want - 0.75 * b["intercept"])) < 1e-9,
           f"a thread's power carries F_const / 4 ({p})")
    s, p, _ = k.request("POST", "/api/v1/analysis/power-model/predict", {"model": b, "rows": rows, "cores_per_chip": 0})
    expect(s == 400 and p["field"] == "cores_per_chip", f"cores_per_chip checked ({p})")
    # energy for stored runs that have counters but no power
    model = b
    s, _, _ = k.request("POST", "/api/v1/runs", [run(system="pm-sys", application="app", regions=[
        {"name": "solve", "time_s": 2, "counters": {"instructions": 20, "cache_misses": 40}},
        {"name": "io", "time_s": 1, "power_w": 80, "counters": {"instructions": 1, "cache_misses": 1}}])], token=Shared.token)
    s, p, _ = k.request("POST", "/api/v1/analysis/power-model/predict", {"model": model, "system": "pm-sys", "application": "app"})
    expect(s == 200 and len(p["predictions"]) == 1 and p["predictions"][0]["region"] == "solve" and
           abs(p["predictions"][0]["energy_j"] - 2 * want) < 1e-9 and p["predictions"][0]["run_id"] > 0,
           f"estimated for the region without power only ({p})")
    s, b, _ = k.request("POST", "/api/v1/analysis/power-model", dict(body, training=body["training"][:3]))
    expect(s == 400 and b["field"] == "training", f"too few rows -> 400 ({b})")
    runs = [{"config": {"mm": 1, "is": 1}, "time_s": 10, "energy_j": 100},
            {"config": {"mm": 2, "is": 1}, "time_s": 6, "energy_j": 70},
            {"config": {"mm": 3, "is": 1}, "time_s": 5, "energy_j": 72}]
    bounds = {"mm": [1, 4], "is": [1, 4]}
    s, b, _ = k.request("POST", "/api/v1/analysis/configurations",
                        {"parameters": ["mm", "is"], "bounds": bounds, "goal": "time", "runs": runs})
    # the walk: (1,1), then both raised neighbours; (1,2) is not measured yet
    expect(s == 200 and b["best"]["config"] == {"mm": 3, "is": 1} and b["next"] == {"mm": 1, "is": 2} and
           [e["config"] for e in b["executed"]] == [{"mm": 1, "is": 1}, {"mm": 2, "is": 1}] and
           b["walk"] == {"at": {"mm": 1, "is": 1}, "ended": False} and
           b["baseline"]["config"] == {"mm": 4, "is": 4} and b["baseline"]["time_improvement"] is None,
           f"best, next and the walk so far ({b})")
    # ePRO-MP §6.1, Fig. 6: the whole 4 x 4 grid recorded; energy lowest at (3,1),
    # 4.1 % below the baseline (4,4)'s 1155.528 J, time 6.1 % below its 100 s
    energy = {(1, 1): 1400, (1, 2): 1300, (1, 3): 1350, (1, 4): 1380, (2, 1): 1200, (2, 2): 1250,
              (2, 3): 1330, (2, 4): 1360, (3, 1): 1155.528 * (1 - 0.041), (3, 2): 1170, (3, 3): 1320,
              (3, 4): 1340, (4, 1): 1130, (4, 2): 1190, (4, 3): 1300, (4, 4): 1155.528}
    grid = [{"config": {"mm": mm, "is": i}, "time_s": 93.9 if (mm, i) == (3, 1) else 100 + mm + i,
             "energy_j": e} for (mm, i), e in sorted(energy.items())]
    grid[-1]["time_s"] = 100
    grid.append(dict(grid[0], energy_j=1600))  # (1,1) once more: repeats are averaged, 1500 J
    s, b, _ = k.request("POST", "/api/v1/analysis/configurations",
                        {"parameters": ["mm", "is"], "bounds": bounds, "runs": grid})
    walk = [(1, 1), (2, 1), (1, 2), (3, 1), (2, 2), (4, 1), (3, 2), (4, 4)]
    expect(s == 200 and [(e["config"]["mm"], e["config"]["is"]) for e in b["executed"]] == walk and
           b["executed"][0]["energy_j"] == 1500 and b["executed"][0]["runs"] == 2 and
           b["walk"] == {"at": {"mm": 3, "is": 1}, "ended": True} and b["next"] is None and
           b["best"]["config"] == {"mm": 3, "is": 1} and b["configurations"] == 16 and
           abs(b["baseline"]["energy_improvement"] - 0.041) < 1e-12 and
           abs(b["baseline"]["time_improvement"] - 0.061) < 1e-12,
           f"eight executed, the baseline last; 6.1 % and 4.1 % over it ({b})")
    s, b, _ = k.request("POST", "/api/v1/analysis/configurations",
                        {"parameters": ["mm", "is"], "bounds": bounds, "runs": grid[:7] + grid[8:9]})
    # (1,1)..(1,4), (2,1)..(2,3), (3,1): the walk stands at (3,1); (4,1) is missing
    expect(s == 200 and b["next"] == {"mm": 4, "is": 1} and b["walk"] == {"at": {"mm": 3, "is": 1}, "ended": False},
           f"the walk waits for (4,1) at (3,1) ({b})")
    s, b, _ = k.request("POST", "/api/v1/analysis/configurations",
                        {"parameters": ["mm", "is"], "bounds": bounds, "baseline": {"mm": 2, "is": 5}, "runs": grid})
    expect(s == 400 and b["field"] == "baseline" and "outside" in b["error"], f"baseline out of bounds -> 400 ({b})")
    s, b, _ = k.request("POST", "/api/v1/analysis/configurations",
                        {"parameters": ["mm", "is"], "bounds": bounds, "runs": [{"config": {"mm": 1}, "time_s": 1, "energy_j": 1}]})
    expect(s == 400 and b["field"] == "runs.config" and b.get("index") == 0 and "is" in b["error"],
           f"a configuration without a parameter -> 400 naming it ({b})")
    # the recorded configurations of a stored series: labels mm and is, tau and energy_j
    k.request("POST", "/api/v1/runs", [run(system="cfg-sys", application="mmis", tau=x["time_s"], chi=0.1,
                                           energy_j=x["energy_j"], labels={"mm": str(x["config"]["mm"]), "is": str(x["config"]["is"])})
                                       for x in runs], token=Shared.token)
    s, b, _ = k.request("POST", "/api/v1/analysis/configurations",
                        {"parameters": ["mm", "is"], "bounds": bounds, "goal": "edp", "baseline": {"mm": 2, "is": 1},
                         "system": "cfg-sys", "application": "mmis"})
    # edp: 1000, 420, 360; baseline (2,1): time (6-5)/6, energy (70-72)/70
    expect(s == 200 and b["best"]["config"] == {"mm": 3, "is": 1} and b["best"]["run_id"] > 0 and
           b["next"] == {"mm": 1, "is": 2} and abs(b["baseline"]["time_improvement"] - 1 / 6) < 1e-12 and
           abs(b["baseline"]["energy_improvement"] + 2 / 70) < 1e-12,
           f"from stored runs, by energy x delay ({b})")


# ---- tests with servers of their own ---------------------------------------

@test
@sqlite_only
def help_and_usage_errors():
    b = Shared.binary
    out = subprocess.run([b, "--help"], capture_output=True, text=True)
    expect(out.returncode == 0 and "token create NAME" in out.stdout and "KARTE_DB" in out.stdout,
           "--help lists commands and environment variables")
    out = subprocess.run([b, "frobnicate"], capture_output=True, text=True)
    expect(out.returncode == 2 and "unknown command" in out.stderr, f"unknown command -> 2 ({out.stderr})")
    with tempfile.TemporaryDirectory(prefix="karte-usage-") as d:
        # run where ./data/karte.db would land: a start that fails leaves nothing behind
        out = subprocess.run([b, "serve", "--listen", "nowhere"], capture_output=True, text=True, cwd=d)
        expect(out.returncode == 2 and "ADDR:PORT" in out.stderr, f"bad --listen explained ({out.stderr})")
        out = subprocess.run([b, "serve", "--sync", "sometimes"], capture_output=True, text=True, cwd=d)
        expect(out.returncode == 2 and "--sync" in out.stderr, f"bad --sync explained ({out.stderr})")
        expect(not os.path.exists(os.path.join(d, "data")), "a usage error touches no database")
        # port taken: the database may be made, but no first-start token nobody saw
        taken = socket.socket()
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        try:
            out = subprocess.run([b, "serve", "--listen", f"127.0.0.1:{taken.getsockname()[1]}",
                                  "--db", os.path.join(d, "t.db")], capture_output=True, text=True, timeout=30)
        finally:
            taken.close()
        expect(out.returncode == 1 and "write token" not in out.stdout,
               f"port taken: exit 1, no token printed ({out.returncode} {out.stdout!r} {out.stderr[-200:]})")
        n = sqlite3.connect(os.path.join(d, "t.db")).execute("SELECT count(*) FROM tokens").fetchone()[0]
        expect(n == 0, f"port taken: no token stored ({n})")


def build_dir():
    """The Makefile's BUILD of the karted under test, relative to the tree."""
    return os.path.relpath(os.path.dirname(os.path.abspath(Shared.binary)), ROOT)


class MakeServer:
    """`make TARGET` serving karted on a free loopback port with a temporary
    database (KARTE_LISTEN, KARTE_DB), read until a line holds `ready`, and
    stopped with its whole process group."""

    def __init__(self, target, ready, db_name):
        self.d = temp_dir(f"karte-{target}-")
        self.db = os.path.join(self.d, db_name)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        sock.close()
        self.cmd = ["make", "-s", "--no-print-directory", target, f"BUILD={build_dir()}"] + (
            ["SAN=1"] if Shared.cflags else [])
        self.ready = ready
        self.out = ""

    def __enter__(self):
        env = dict(os.environ, KARTE_LISTEN=f"127.0.0.1:{self.port}", KARTE_DB=self.db)
        self.proc = subprocess.Popen(self.cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, start_new_session=True)
        deadline = time.time() + 300
        while time.time() < deadline and self.ready not in self.out:
            line = self.proc.stdout.readline()
            if not line and self.proc.poll() is not None:
                break
            self.out += line
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(30)
        self.proc.stdout.close()


@test
@sqlite_only
def make_run_takes_its_settings_from_the_environment():
    with MakeServer("run", "serving", "k.db") as m:
        expect(f"serving http://127.0.0.1:{m.port}/ (database {m.db})" in m.out,
               f"make run serves on KARTE_LISTEN with KARTE_DB ({m.out[-2000:]})")
        c = http.client.HTTPConnection("127.0.0.1", m.port, timeout=5)
        c.request("GET", "/api/v1/health")
        expect(c.getresponse().status == 200, "and answers there")
        c.close()
    expect(os.path.exists(m.db) and not os.path.exists(os.path.join(ROOT, "data", "k.db")),
           "the database is where KARTE_DB says")


@test
@sqlite_only
def installs_into_a_prefix_and_runs_from_there():
    prefix = temp_dir("karte-prefix-")
    r = subprocess.run(["make", "-s", "--no-print-directory", "install", f"PREFIX={prefix}", f"BUILD={build_dir()}"]
                       + (["SAN=1"] if Shared.cflags else []),  # the sanitizer build's own flags
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    expect(r.returncode == 0, f"make install ({r.stdout[-1000:]} {r.stderr[-2000:]})")
    for f in ("sbin/karted", "bin/karte", "bin/karte-collect", "lib/libkarte_region.a", "lib/libkarte_region_mpi.a",
              "lib/libkarte_region.so", "lib/libkarte_region_mpi.so", "lib/pkgconfig/karte-region.pc",
              "lib/pkgconfig/karte-region-mpi.pc", "share/man/man3/karte_region.3",
              "include/karte_region.h", "share/karte/karte_region.f90", "share/karte/static/index.html",
              "share/karte/static/app.js", "share/karte/static/js/lib.js", "share/karte/static/js/pages/series.js", "share/karte/schema/0001_init.sql", "share/man/man8/karted.8",
              "share/man/man1/karte.1", "share/man/man1/karte-collect.1", "lib/systemd/system/karted.service",
              "lib/systemd/system/karted@.service"):
        expect(os.path.isfile(os.path.join(prefix, f)), f"{f} installed")
    with open(os.path.join(prefix, "lib/systemd/system/karted.service")) as f:
        expect(f"ExecStart={prefix}/sbin/karted serve" in f.read(), "the unit starts the installed karted")
    # a program built against the installed region library through pkg-config, shared, with the markers
    src = os.path.join(prefix, "marked.c")
    with open(src, "w") as f:
        f.write('#include <karte_region.h>\n#include <unistd.h>\nint main(void) {\n'
                '  KARTE_REGION_BEGIN("solve"); usleep(20000); KARTE_REGION_END("solve");\n'
                '  return KARTE_FINISH(), 0;\n}\n')
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig"))
    pc = subprocess.run(["pkg-config", "--cflags", "--libs", "karte-region"], env=env, capture_output=True, text=True)
    expect(pc.returncode == 0 and f"-I{prefix}/include" in pc.stdout and "-lkarte_region" in pc.stdout,
           f"pkg-config knows karte-region ({pc.stdout} {pc.stderr})")
    flags = list(Shared.cflags)
    for marked in (True, False):
        exe = os.path.join(prefix, "marked" if marked else "unmarked")
        cmd = ["cc", src, "-o", exe, f"-I{prefix}/include"] + flags + (["-DKARTE_REGIONS"] + pc.stdout.split()
                                                                       if marked else [])
        c = subprocess.run(cmd, capture_output=True, text=True)
        expect(c.returncode == 0, f"{' '.join(cmd)}: {c.stderr}")
        out = os.path.join(prefix, f"run-{marked}.json")
        x = subprocess.run([exe], env=dict(os.environ, LD_LIBRARY_PATH=os.path.join(prefix, "lib"),
                                           KARTE_RESULTS=out, KARTE_REGION_RAPL="0"), capture_output=True, text=True)
        expect(x.returncode == 0, f"{exe} runs ({x.stderr})")
        if marked:
            with open(out) as f:
                run = json.load(f)
            reg = {r["name"]: r for r in run.get("regions", [])}
            expect("solve" in reg and 0.015 < reg["solve"]["time_s"] < 5,
                   f"the shared library measured the marked region ({run})")
        else:
            expect(not os.path.exists(out), "without KARTE_REGIONS the markers are nothing: no run written")
    with open(os.path.join(prefix, "lib/systemd/system/karted@.service")) as f:
        unit = f.read()
    expect(f"ExecStart={prefix}/sbin/karted serve" in unit and "KARTE_LISTEN=127.0.0.1:%i" in unit,
           "the template unit starts the installed karted on the instance's port")
    expect(os.path.isfile(os.path.join(prefix, "share/karte/schema/pg/0006_initial.sql")),
           "PostgreSQL's schema installed")
    with open(os.path.join(prefix, "share/man/man8/karted.8")) as f:
        man = f.read()
    expect(man.startswith(".\\\"") or ".TH KARTED" in man, "a man page")
    expect(".TH KARTED \"8\"" in man and "request\\-timeout" in man, "karted(8) from its --help")
    for prog in ("sbin/karted", "bin/karte", "bin/karte-collect"):
        v = subprocess.run([os.path.join(prefix, prog), "--version"], capture_output=True, text=True)
        expect(v.returncode == 0 and re.match(r"karte(d|-collect)? \d+\.\d+\.\d+", v.stdout),
               f"{prog} --version ({v.stdout!r} {v.stderr!r})")
    # run from the prefix, far from the source tree: the UI and the schema come along
    proc = subprocess.Popen([os.path.join(prefix, "sbin/karted"), "serve", "--listen", "127.0.0.1:0", "--db",
                             os.path.join(prefix, "k.db")], cwd=prefix, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={k: v for k, v in os.environ.items()
                                                                     if not k.startswith("KARTE_")})
    try:
        line = ""
        while "serving" not in line:
            line = proc.stdout.readline()
            expect(line or proc.poll() is None, f"the installed karted starts ({proc.stderr.read() if proc.poll() is not None else ''})")
        port = int(re.search(r":(\d+)/ ", line).group(1))
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("GET", "/")
        r1 = c.getresponse()
        page = r1.read()
        expect(r1.status == 200 and b"<html" in page.lower(), f"the UI from PREFIX/share/karte/static ({r1.status})")
        c.request("GET", "/api/v1/health")
        h = json.loads(c.getresponse().read())
        expect(h["schema_version"] >= 5, f"a new database migrated to the latest schema ({h})")
        c.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
        proc.stdout.close()
        proc.stderr.close()
    # a program built against the installed region library
    src = os.path.join(prefix, "demo.c")
    with open(src, "w") as f:
        f.write('#include <karte_region.h>\nint main(void) { karte_region_begin("solve"); '
                'karte_region_end("solve"); return karte_finish() < 0; }\n')
    exe = os.path.join(prefix, "demo")
    r = subprocess.run(["cc"] + Shared.cflags + ["-I", os.path.join(prefix, "include"), src,
                                                 os.path.join(prefix, "lib/libkarte_region.a"), "-lm", "-o", exe],
                       capture_output=True, text=True)
    expect(r.returncode == 0, f"builds against the installed header and library ({r.stderr})")
    r = subprocess.run([exe], capture_output=True, text=True, cwd=prefix,
                       env=dict(os.environ, KARTE_RESULTS=os.path.join(prefix, "run.json")))
    expect(r.returncode == 0 and os.path.exists(os.path.join(prefix, "run.json")), f"and writes its run ({r.stderr})")


@test
@sqlite_only
def make_demo_serves_every_example():
    with MakeServer("demo", "demo: ready", "demo.db") as m:
        expect("demo: ready at http://127.0.0.1:" in m.out, f"make demo starts ({m.out[-2000:]})")
        c = http.client.HTTPConnection("127.0.0.1", m.port, timeout=10)
        c.request("GET", "/api/v1/series")
        got = {(x["system"], x["application"]): x["runs"] for x in json.loads(c.getresponse().read())["series"]}
        expect(got.get(("SP2", "md")) == 8 and got.get(("T3E", "md")) == 8 and got.get(("Stencil", "jacobi")) == 50 and got.get(("Score-P", "mm")) == 12
               and got.get(("K", "mg"), 0) >= 10, f"the examples are loaded ({got})")
        for path in ("/api/v1/reports/isoefficiency.svg?system=SP2&application=md",
                     "/api/v1/reports/energy.svg?system=K&application=mg&f_std=3000",
                     "/api/v1/reports/isoefficiency.svg?system=Stencil&application=jacobi",
                     "/api/v1/reports/scaling.svg?system=Score-P&application=mm"):
            c.request("GET", path)
            r = c.getresponse()
            r.read()
            expect(r.status == 200, f"{path} draws ({r.status})")
        # the demo agrees with itself: Kimura's predicted saving is the measured one at every p
        c.request("GET", "/api/v1/analysis/energy?system=K&application=mg&f_std=3000")
        e = json.loads(c.getresponse().read())
        pred = {x["p"]: x["delta_e"] for x in e["predicted"]}
        meas = {x["p"]: x["delta_e"] for x in e["measured"]}
        expect(sorted(meas) == [1, 2, 4, 8] and all(abs(pred[p] - meas[p]) < 1e-6 for p in meas)
               and abs(meas[1] - (1230 - 1068) / 1230) < 1e-12,
               f"K:mg: predicted and measured Delta E agree at every p ({pred} {meas})")
        expect({g["name"]: round(g["energy_ratio"], 6) for g in e["regions"]} == {"calc": 1.0, "comm": 0.4},
               f"each region's energy ratio ({e['regions']})")
        # Score-P:mm: tau is the slowest process's time and falls with p, as each process's does
        c.request("GET", "/api/v1/analysis/scaling?system=Score-P&application=mm")
        sc = json.loads(c.getresponse().read())
        taus = [x["tau"] for x in sorted(sc["points"], key=lambda x: x["p"]) if x["n"] == 1000]
        expect(len(taus) == 3 and taus[0] > taus[1] > taus[2], f"Score-P:mm's tau falls with p ({taus})")
        c.request("GET", "/api/v1/analysis/model?system=Score-P&application=mm&n=1000")
        mo = json.loads(c.getresponse().read())
        expect(mo["resource"] is True and mo["quality"] == "poor"
               and any("3 distinct values" in x for x in mo["quality_reasons"]),
               f"its model: p x tau, at best poor from 3 p ({mo['function']} {mo['quality']} {mo['quality_reasons']})")
        c.close()


@test
def the_readme_curl_line_shows_what_was_wrong():
    k, t = Shared.k, Shared.token
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    m = re.search(r"\n    (curl [^\n]*application/json' \\\n\s+-d '[^']*' \\\n\s+http://127.0.0.1:8080/api/v1/runs)\n", text)
    expect(m, "the README shows a curl line posting one run")
    cmd = m.group(1).replace("\\\n", " ").replace("http://127.0.0.1:8080", k.url)
    env = dict(os.environ, KARTE_TOKEN=t)
    good = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, env=env, timeout=30)
    expect(good.returncode == 0 and re.fullmatch(r'\{"ids":\[\d+\],"verdicts":\["ok"\],"alerts":\[\]\}',
                                                   good.stdout.strip()),
           f"as printed it stores the run ({good.returncode} {good.stdout} {good.stderr})")
    bad = subprocess.run(["sh", "-c", cmd.replace('"chi":5.6', '"chi":15')], capture_output=True, text=True,
                         env=env, timeout=30)
    expect(bad.returncode == 22 and '"field":"chi"' in bad.stdout and "must not exceed tau" in bad.stdout,
           f"with a mistake it fails and still shows karted's answer ({bad.returncode} {bad.stdout!r} {bad.stderr!r})")


@test
def environment_settings_and_read_tokens():
    k = Karted(Shared.binary, env={"KARTE_LISTEN": "127.0.0.1:0", "KARTE_READ_TOKEN": "1"})
    k.env["KARTE_DB"] = k.db
    k.start()
    try:
        expect(k.on_pg or os.path.exists(k.db), "KARTE_DB used")
        s, b, _ = k.request("GET", "/api/v1/health", token=k.first_token)
        expect(b["store"] == ("postgresql" if k.on_pg else "sqlite"), f"KARTE_DB chose the backend ({b})")
        s, b, _ = k.request("GET", "/api/v1/systems")
        expect(s == 401, f"reads need a token with KARTE_READ_TOKEN=1 ({s})")
        s, b, _ = k.request("GET", "/api/v1/systems", token=k.first_token)
        expect(s == 200, f"read with a token ({s})")
    finally:
        expect(k.stop() == 0, "clean exit")


@test
def ipv6_loopback():
    if not socket.has_ipv6:
        return
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError:
        print("    (no ::1 here; skipped)")
        return
    k = Karted(Shared.binary, listen="[::1]:0").start()
    try:
        expect(k.url.startswith("http://[::1]:"), f"URL {k.url}")
        s, b, _ = k.request("POST", "/api/v1/runs", run(), token=k.first_token)
        expect(s == 201, f"POST over ::1 ({s})")
    finally:
        k.stop()


@test
@sqlite_only
def migrates_an_older_database():
    k = Karted(Shared.binary)
    with open(os.path.join(ROOT, "schema", "0001_init.sql")) as f:
        v1 = f.read()
    db = sqlite3.connect(k.db)
    db.executescript(v1)
    db.executescript("PRAGMA user_version = 1;"
                     "INSERT INTO series (id, system, application, variant) VALUES (1, 'old-sys', 'md', '');"
                     "INSERT INTO runs (series_id, p, n, tau, chi, gamma, created_at) "
                     "VALUES (1, 8, 400, 3.0, 1.0, 2.0, '2026-01-01T00:00:00.000Z');")
    db.commit()
    db.close()
    k.start()
    try:
        s, b, _ = k.request("GET", "/api/v1/health")
        expect(b["schema_version"] >= 2, f"migrated to the newest schema ({b})")
        s, b, _ = k.request("GET", "/api/v1/runs/1")
        expect(s == 200 and b["system"] == "old-sys" and b["chi"] == 1.0, f"old run kept ({b})")
        s, b, _ = k.request("POST", "/api/v1/runs", run(system="old-sys"), token=k.first_token)
        expect(s == 201 and b["ids"][0] == 2, f"new runs after migration ({s} {b})")
    finally:
        k.stop()
    db = sqlite3.connect(k.db)
    expect(db.execute("PRAGMA user_version").fetchone()[0] >= 2, "version kept in the database")
    expect(db.execute("PRAGMA journal_mode").fetchone()[0] == "wal", "WAL mode")
    db.close()


@test
def sigterm_finishes_requests_in_flight():
    k = Karted(Shared.binary).start()
    body = json.dumps(run(system="inflight")).encode()
    host, port = k.host_port
    conn = http.client.HTTPConnection(host, port, timeout=20)
    conn.putrequest("POST", "/api/v1/runs")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(len(body)))
    conn.putheader("Authorization", "Bearer " + k.first_token)
    conn.endheaders()
    conn.send(body[:10])          # the request is in flight ...
    time.sleep(0.3)
    k.signal(signal.SIGTERM)      # ... when the stop comes
    time.sleep(0.3)
    refused = False
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError:
        refused = True
    conn.send(body[10:])
    resp = conn.getresponse()
    answer = json.loads(resp.read())
    conn.close()
    rc = k.wait()
    expect(refused, "no new connections after SIGTERM")
    expect(resp.status == 201, f"the request in flight is answered ({resp.status} {answer})")
    expect(rc == 0, f"exit 0 after SIGTERM ({rc}, {k.stderr})")
    wal = k.db + "-wal"
    expect(k.on_pg or (not os.path.exists(wal) and not os.path.exists(k.db + "-shm")),
           "database closed cleanly (WAL checkpointed and removed: the read-write connection closed last)")
    n = int(k.sql("SELECT count(*) FROM runs r JOIN series s ON s.id = r.series_id WHERE s.system='inflight'"))
    expect(n == 1, f"the run answered during the stop is stored ({n})")


@test
def clients_that_hang_up_while_their_runs_commit():
    """A client that closes its connection (RST) right after its POST: the
    request's memory must live until the writer is done with it, the
    server keeps serving, and it stops cleanly (under ASan: no use after
    free)."""
    k = Karted(Shared.binary).start()
    host, port = k.host_port
    lines = "\n".join(json.dumps(run(system="hangup-sys", p=1 + i % 64, n=float(i + 1))) for i in range(2000))
    body = (lines + "\n").encode()
    head = (f"POST /api/v1/runs HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-ndjson\r\n"
            f"Authorization: Bearer {k.first_token}\r\nContent-Length: {len(body)}\r\n\r\n").encode()

    def hang_up(n):
        for _ in range(n):
            try:
                s = socket.create_connection((host, port), timeout=5)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                s.sendall(head + body)
                time.sleep(0.002)
                s.close()  # RST: the answer has nowhere to go
            except OSError:
                return  # the last ones race the SIGTERM: karted has stopped listening

    try:
        threads = [threading.Thread(target=hang_up, args=(15,)) for _ in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        s, b, _ = k.request("POST", "/api/v1/runs", run(system="hangup-sys", p=3), token=k.first_token)
        expect(s == 201, f"a POST after 60 hang-ups is answered ({s} {b})")
        s, b, _ = k.request("GET", "/api/v1/health")
        expect(s == 200 and b["status"] == "ok", f"health after the hang-ups ({s} {b})")
        # and a SIGTERM while hung-up requests may still be queued
        for th in [threading.Thread(target=hang_up, args=(3,)) for _ in range(4)]:
            th.start()
        time.sleep(0.01)
    finally:
        rc = k.stop()
    expect(rc == 0, f"karted stops cleanly after clients hung up (exit {rc}): {k.stderr[-2000:]}")


@test
def acknowledged_runs_survive_kill_9():
    k = Karted(Shared.binary).start()
    acked, lock, stop = [], threading.Lock(), threading.Event()
    host, port = k.host_port

    def poster(worker):
        conn = http.client.HTTPConnection(host, port, timeout=5)
        i = 0
        while not stop.is_set() and i < 5000:
            i += 1
            body = json.dumps(run(system="crash-sys", p=worker + 1, n=float(i)))
            try:
                conn.request("POST", "/api/v1/runs", body=body,
                             headers={"Content-Type": "application/json", "Authorization": "Bearer " + k.first_token})
                resp = conn.getresponse()
                data = resp.read()
                if resp.status == 201:
                    with lock:
                        acked.extend(json.loads(data)["ids"])
            except (OSError, http.client.HTTPException):
                return  # the server died under us: what was acknowledged counts
        conn.close()

    threads = [threading.Thread(target=poster, args=(w,)) for w in range(8)]
    for th in threads:
        th.start()
    time.sleep(1.5)
    k.kill9()
    stop.set()
    for th in threads:
        th.join(10)
    expect(len(acked) > 100, f"a stream of POSTs was acknowledged before the kill ({len(acked)})")
    k2 = Karted(Shared.binary, db=k.db).start()
    try:
        stored, cursor = set(), None
        for _ in range(1000):
            s, b, _ = k2.request("GET", "/api/v1/runs?system=crash-sys&limit=1000" + (f"&after={cursor}" if cursor else ""))
            stored.update(r["id"] for r in b["runs"])
            cursor = b["next"]
            if not cursor:
                break
        missing = set(acked) - stored
        expect(not missing, f"{len(missing)} of {len(acked)} acknowledged runs lost after kill -9")
        print(f"    {len(acked)} acknowledged before kill -9, all {len(acked)} there after restart "
              f"({len(stored) - len(acked)} more committed but unacknowledged)")
    finally:
        k2.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--karted", required=True, help="the karted binary to test")
    ap.add_argument("--karte", help="the karte binary (offline plots)")
    ap.add_argument("--otf2-writer", help="tests/otf2/otf2_trace built (writes OTF2 archives)")
    ap.add_argument("--cflags", default="", help="flags the tested build was compiled with (sanitizers): "
                    "a program linked with its libraries needs them too")
    ap.add_argument("-k", dest="only", help="run only tests whose name contains this")
    add_backend_option(ap)
    args = ap.parse_args()
    use_backend(args, SUITE)
    Shared.binary = os.path.abspath(args.karted)
    Shared.karte = os.path.abspath(args.karte) if args.karte else None
    Shared.otf2_writer = os.path.abspath(args.otf2_writer) if args.otf2_writer else None
    Shared.cflags = args.cflags.split()
    Shared.k = Karted(Shared.binary).start()
    Shared.token = Shared.k.token("integration")
    sys.exit(1 if SUITE.run(args.only, lambda: Shared.k.stop_checked("the shared karted")) else 0)


if __name__ == "__main__":
    main()
