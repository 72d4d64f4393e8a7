#!/usr/bin/env python3
"""karted on PostgreSQL, several instances on one database (issue #20).

Starts a throwaway PostgreSQL cluster (tests/pg_cluster.py) and real karted
processes on loopback ports, and checks what the contract promises
("Storage: SQLite embedded, PostgreSQL to scale out" in docs/operations.md):

- two instances starting together migrate once;
- a run written to one is read from the other, and every answer is the same
  JSON as the SQLite backend gives for the same runs, order included;
- one idempotency key posted to both gives one run and the same id;
- a token revoked on one stops working on the other within 2 s;
- concurrent bulk posts of the same runs to both store each exactly once;
- kill -9 of one instance mid-stream loses no acknowledged run;
- karted copy moves an SQLite database into PostgreSQL, resumes after an
  interruption, and the copy answers as its source did.

    python3 tests/scaleout.py --karted build/karted
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from karted_proc import Karted, Suite, expect, temp_dir  # noqa: E402
from pg_cluster import PgCluster  # noqa: E402

SUITE = Suite("scaleout")
test = SUITE.test


class S:
    binary = None
    collect = None
    pg = None


def start_together(*ks):
    """Start every karted at the same moment (threads): the migration lock."""
    errors = []

    def go(k):
        try:
            k.start(timeout=30)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=go, args=(k,)) for k in ks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return ks


def pair():
    """Two karted on one new database; the first has the first-start token."""
    uri = S.pg.new_db()
    a, b = start_together(Karted(S.binary, db=uri), Karted(S.binary, db=uri))
    token = a.first_token or b.first_token
    return uri, a, b, token


def ndjson(runs):
    return "\n".join(json.dumps(r) for r in runs)


def post_at(k, token, system, p, tau):
    """One run of series system:x at (p, n=100) to k: its verdict and alerts."""
    run = {"system": system, "application": "x", "p": p, "n": 100.0, "tau": tau}
    s, body, _ = k.request("POST", "/api/v1/runs", run, token=token)
    expect(s == 201, f"stored ({s} {body})")
    return body["verdicts"][0], body.get("alerts", [])


def series_runs():
    """A series with repetitions, energy and frequencies: what the analyses read."""
    out = []
    for p in (1, 2, 4, 8, 16):
        for n in (1000.0, 2000.0, 4000.0):
            for rep in range(2):
                chi = 0.01 * p * (1 + 0.1 * rep) + 1e-4 * n / p
                gamma = n / (1000.0 * p)
                out.append({"system": "so-sys", "application": "so-app", "p": p, "n": n,
                            "tau": chi + gamma, "chi": chi, "energy_j": 100.0 * p * (chi + gamma),
                            "frequency_mhz": 2400.0, "labels": {"rep": str(rep)},
                            "regions": [{"name": "solve", "time_s": gamma}]})
    out.append({"system": "so-sys", "application": "other", "p": 2, "n": 10.0, "tau": 0.3})
    return out


def strip_times(v):
    """An answer without the commit times (which differ between two stores)."""
    if isinstance(v, dict):
        return {k: strip_times(x) for k, x in v.items() if k not in ("created_at", "last_run_at")}
    if isinstance(v, list):
        return [strip_times(x) for x in v]
    return v


READS = [
    "/api/v1/runs?limit=100", "/api/v1/runs?system=so-sys&application=so-app&p=4&limit=3",
    "/api/v1/runs?n=2000&limit=5", "/api/v1/systems", "/api/v1/applications", "/api/v1/series",
    "/api/v1/analysis/isoefficiency?system=so-sys&application=so-app",
    "/api/v1/analysis/points?system=so-sys&application=so-app",
    "/api/v1/analysis/energy?system=so-sys&application=so-app",
    "/api/v1/analysis/isoefficiency?system=so-sys&application=other",
    "/api/v1/runs/3", "/api/v1/runs/999",
]


def same_answers(k1, k2, what):
    for path in READS:
        s1, b1, _ = k1.request("GET", path)
        s2, b2, _ = k2.request("GET", path)
        expect(s1 == s2 and json.dumps(strip_times(b1)) == json.dumps(strip_times(b2)),
               f"{what}: {path} answers the same ({s1} {json.dumps(b1)[:300]} / {s2} {json.dumps(b2)[:300]})")
    return len(READS)


@test
def two_instances_start_together_and_migrate_once():
    uri, a, b, token = pair()
    try:
        versions = S.pg.sql_uri(uri, "SELECT string_agg(version::text, ',' ORDER BY version) FROM karte_schema")
        expect(versions == "6,7,8,9,10,11,12,13,14,15", f"each migration recorded once: 6 (the initial schema), 7 to 15 ({versions!r})")
        for k in (a, b):
            s, h, _ = k.request("GET", "/api/v1/health")
            expect(s == 200 and h["store"] == "postgresql" and h["schema_version"] == 15, f"health {h}")
        tokens = S.pg.sql_uri(uri, "SELECT count(*) FROM tokens")
        expect(tokens == "1" and token, f"one first-start token between them ({tokens})")
    finally:
        a.stop(), b.stop()


@test
def written_on_one_read_on_the_other_and_the_same_as_sqlite():
    uri, a, b, token = pair()
    lite = Karted(S.binary).start()
    try:
        body = ndjson(series_runs())
        s, r, _ = a.request("POST", "/api/v1/runs", body, ctype="application/x-ndjson", token=token)
        expect(s == 201 and r["ids"] == list(range(1, 32)), f"31 runs stored through A ({s} {r})")
        s, r2, _ = lite.request("POST", "/api/v1/runs", body, ctype="application/x-ndjson",
                                token=lite.first_token)
        expect(s == 201 and r2 == r, f"and the same ids on SQLite ({s} {r2})")
        s, one, _ = b.request("GET", "/api/v1/runs/7")
        expect(s == 200 and one["p"] == 2 and one["n"] == 1000.0 and one["labels"] == {"rep": "0"},
               f"run 7 read through B ({s} {one})")
        s, iso, _ = b.request("GET", "/api/v1/analysis/isoefficiency?system=so-sys&application=so-app")
        expect(s == 200 and iso["counts"]["sps"] + iso["counts"]["not_sps"] > 0, f"an analysis on B ({s})")
        n = same_answers(a, b, "A and B")
        n += same_answers(b, lite, "PostgreSQL and SQLite")
        # a delete on B is seen by A, and the counts follow
        s, _, _ = b.request("DELETE", "/api/v1/runs/31", token=token)
        expect(s == 200, f"delete through B ({s})")
        s, _, _ = lite.request("DELETE", "/api/v1/runs/31", token=lite.first_token)
        s, g, _ = a.request("GET", "/api/v1/applications")
        expect([x["name"] for x in g["applications"]] == ["so-app"], f"A sees the delete ({g})")
        n += same_answers(a, lite, "after a delete")
        print(f"    {n} reads compared, byte for byte without commit times")
    finally:
        a.stop(), b.stop(), lite.stop()


@test
def one_idempotency_key_sent_to_both_is_one_run():
    uri, a, b, token = pair()
    try:
        answers = {}

        def post(k, name, key):
            run = {"system": "idem", "application": "x", "p": 2, "n": 10.0, "tau": 1.0,
                   "idempotency_key": key}
            answers[(name, key)] = k.request("POST", "/api/v1/runs", run, token=token)
        threads = []
        for i in range(20):
            for k, name in ((a, "a"), (b, "b")):
                threads.append(threading.Thread(target=post, args=(k, name, f"job-{i}")))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for i in range(20):
            sa, ba, _ = answers[("a", f"job-{i}")]
            sb, bb, _ = answers[("b", f"job-{i}")]
            expect(sa in (200, 201) and sb in (200, 201) and {sa, sb} == {200, 201},
                   f"job-{i}: one stored (201), one found (200) ({sa} {sb})")
            expect(ba["ids"] == bb["ids"], f"job-{i}: the same id from both ({ba} {bb})")
        n = S.pg.sql_uri(uri, "SELECT count(*) FROM runs")
        expect(n == "20", f"20 runs for 20 keys ({n})")
    finally:
        a.stop(), b.stop()


@test
def a_token_revoked_on_one_stops_on_the_other_within_2_s():
    uri, a, b, token = pair()
    try:
        tok = subprocess.run([S.binary, "token", "create", "ci-job", "--db", uri], capture_output=True,
                             text=True, timeout=30).stdout.strip()
        run = {"system": "tok", "application": "x", "p": 1, "n": 1.0, "tau": 1.0}
        for k in (a, b):
            s, _, _ = k.request("POST", "/api/v1/runs", run, token=tok)
            expect(s == 201, f"the new token writes on both ({s})")
        rv = subprocess.run([S.binary, "token", "revoke", "ci-job", "--db", uri], capture_output=True,
                            text=True, timeout=30)
        expect(rv.returncode == 0, f"revoked ({rv.stderr})")
        t0 = time.monotonic()
        stopped = {}
        while len(stopped) < 2 and time.monotonic() - t0 < 5:
            for name, k in (("a", a), ("b", b)):
                if name not in stopped and k.request("POST", "/api/v1/runs", run, token=tok)[0] == 401:
                    stopped[name] = time.monotonic() - t0
            time.sleep(0.05)
        expect(len(stopped) == 2 and max(stopped.values()) <= 2.0,
               f"refused on both within 2 s ({stopped})")
        print(f"    refused after {stopped['a']:.2f} s on A and {stopped['b']:.2f} s on B")
    finally:
        a.stop(), b.stop()


@test
def the_regression_check_on_one_sees_what_the_other_wrote():
    """Each instance keeps the windows of a point's earlier runs between
    batches and trusts them while its write numbers follow one another
    (karte_writes): runs the other adds or deletes at the point must still
    be in the next verdict."""
    uri, a, b, token = pair()
    try:
        def post(k, tau):
            run = {"system": "watch", "application": "x", "p": 4, "n": 100.0, "tau": tau}
            s, body, _ = k.request("POST", "/api/v1/runs", run, token=token)
            expect(s == 201, f"stored ({s} {body})")
            return body["ids"][0], body["verdicts"][0], body.get("alerts", [])
        for _ in range(5):
            post(a, 10.0)  # A's window: five runs of 10
        added = [post(b, 20.0)[0] for _ in range(6)]
        # the point: 5 x 10 and 6 x 20, median 20; A alone saw a median of 10
        _, v, alerts = post(a, 20.5)
        expect(v == "ok", f"A judges 20.5 against the runs B added too: +2.5 % of 20 is ok ({v} {alerts})")
        for rid in added:
            s, _, _ = b.request("DELETE", f"/api/v1/runs/{rid}", token=token)
            expect(s in (200, 204), f"B deletes run {rid} ({s})")
        # the point: 5 x 10 and 20.5, median 10; A's window had a median of 20
        rid, v, alerts = post(a, 20.5)
        med = [r["median"] for al in alerts for r in al.get("regressions", [])] if alerts else []
        expect(v == "regression", f"A judges 20.5 without the runs B deleted: +105 % of 10 ({v} {alerts})")
        alert = json.loads(S.pg.sql_uri(uri, f"SELECT regressions FROM alerts WHERE run_id = {rid}") or "[]")
        expect([r["median"] for r in alert] == [10.0], f"the alert's median is 10 ({alert} {med})")
        q = "/api/v1/series/thresholds?system=watch&application=x"
        s, th, _ = b.request("PUT", q, {"rel": 2.0}, token=token)
        expect(s == 200 and th["thresholds"]["rel"] == 2.0, f"B sets the series' thresholds ({s} {th})")
        _, v, alerts = post(a, 25.0)
        expect(v == "ok", f"A judges with B's thresholds: +150 % of 10 is within 200 % ({v} {alerts})")
    finally:
        a.stop(), b.stop()


@test
def a_window_kept_through_the_others_write_is_checked_when_next_used():
    """A keeps windows of every point it met. When B adds runs at point X
    while A's next batch is at another point Y, A's window of X is not
    checked in that batch; it must be when A next posts at X, batches
    later (a window is trusted only while nobody added runs since it was
    last whole)."""
    uri, a, b, token = pair()
    try:
        def post(k, p, tau):
            return post_at(k, token, "watch2", p, tau)
        for _ in range(5):
            post(a, 4, 10.0)  # A's window of X: five runs of 10
            post(a, 8, 10.0)  # and of Y
        for _ in range(6):
            post(b, 4, 20.0)  # B adds six runs of 20 at X
        for _ in range(2):
            v, _ = post(a, 8, 10.0)  # A writes at Y only, twice: its first batch sees B's numbers
            expect(v == "ok", f"A at Y: ok ({v})")
        v, alerts = post(a, 4, 20.5)
        expect(v == "ok", f"A judges 20.5 at X against B's runs too (median 20, not 10): ({v} {alerts})")
    finally:
        a.stop(), b.stop()


@test
def a_new_point_of_a_series_made_here_sees_what_the_other_stored_there():
    """A makes a series (so it follows it whole and begins its new points'
    windows without a read); B then stores six runs at a point A never
    met. When A first posts there, it must read B's runs: another
    instance's write ends A's following the series whole."""
    uri, a, b, token = pair()
    try:
        def post(k, p, tau):
            return post_at(k, token, system, p, tau)[0]
        # A's first batches may come after a write of B's starting (then
        # A follows no series made in them, rightly): a new series each
        # try, until A follows one whole
        for attempt in range(5):
            system, begun = f"whole3-{attempt}", a.metric("karte_check_windows_begun_total")
            for _ in range(3):
                expect(post(a, 1, 10.0) == "ok", "A makes the series")
            if a.metric("karte_check_windows_begun_total") > begun:
                break
            time.sleep(0.5)
        else:
            expect(False, "A follows none of five new series whole")
        for _ in range(6):
            post(b, 32, 10.0)  # B: six runs of 10 at a point A never met
        v = post(a, 32, 30.0)
        expect(v == "regression", f"A judges 30 at that point against B's six runs of 10 ({v})")
    finally:
        a.stop(), b.stop()


@test
def concurrent_bulk_posts_to_both_are_stored_exactly_once():
    uri, a, b, token = pair()
    batches, per = 10, 200
    try:
        results = []

        def post(k, i):
            runs = [{"system": "bulk", "application": f"app{i % 3}", "p": 1 + j % 16, "n": 100.0 + j,
                     "tau": 1.0 + j / 1000, "chi": 0.25, "idempotency_key": f"b{i}-{j}"} for j in range(per)]
            results.append((i, k.request("POST", "/api/v1/runs", ndjson(runs), ctype="application/x-ndjson",
                                         token=token)))
        # every batch to both instances at once, four clients at a time
        jobs = [(k, i) for i in range(batches) for k in (a, b)]
        for at in range(0, len(jobs), 4):
            threads = [threading.Thread(target=post, args=j) for j in jobs[at:at + 4]]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        ids = {}
        for i, (s, body, _) in results:
            expect(s in (200, 201) and len(body["ids"]) == per, f"batch {i}: {s} {str(body)[:200]}")
            expect(ids.setdefault(i, body["ids"]) == body["ids"], f"batch {i}: the same ids from both")
        every = [x for v in ids.values() for x in v]
        expect(len(set(every)) == batches * per, "no two runs share an id")
        n = S.pg.sql_uri(uri, "SELECT count(*) || ' ' || count(DISTINCT idempotency_key) FROM runs")
        expect(n == f"{batches * per} {batches * per}", f"each run once ({n})")
        counts = S.pg.sql_uri(uri, "SELECT sum(runs) FROM series")
        expect(counts == str(batches * per), f"the series counts add up ({counts})")
        s, g, _ = a.request("GET", "/api/v1/applications")
        expect(sum(x["runs"] for x in g["applications"]) == batches * per, f"catalogue {g}")
    finally:
        a.stop(), b.stop()


@test
def a_commit_the_server_refuses_fails_only_its_own_run():
    """Single-run POSTs of a known series are group-committed in one
    statement (karte_put_runs). A trigger refuses tau 666, so a batch
    holding one fails on the server; its other runs must be stored again
    alone, each with the id it was answered, and the series count must
    match. (Fails when a failed batch's jobs are not retried one by one.)"""
    uri = S.pg.new_db()
    k = Karted(S.binary, db=uri).start()
    try:
        token = k.first_token
        base = {"system": "travel", "application": "x", "p": 4, "n": 10.0}
        s, _, _ = k.request("POST", "/api/v1/runs", dict(base, tau=1.0), token=token)
        expect(s == 201, f"the series is made ({s})")
        S.pg.sql_uri(uri, "CREATE FUNCTION refuse_666() RETURNS trigger LANGUAGE plpgsql AS $$ "
                          "BEGIN IF NEW.tau = 666 THEN RAISE EXCEPTION 'tau 666 refused'; END IF; "
                          "RETURN NEW; END $$; CREATE TRIGGER refuse BEFORE INSERT ON runs "
                          "FOR EACH ROW EXECUTE FUNCTION refuse_666()")
        answers, lock = [], threading.Lock()

        def client(c):
            for i in range(10):
                tau = 666.0 if i == 4 else 2.0 + c + i / 100
                s, body, _ = k.request("POST", "/api/v1/runs", dict(base, tau=tau), token=token)
                with lock:
                    answers.append((tau, s, body))
        threads = [threading.Thread(target=client, args=(c,)) for c in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        refused = [a for a in answers if a[0] == 666.0]
        stored = [a for a in answers if a[0] != 666.0]
        expect(len(refused) == 32 and all(s == 503 and "666" not in json.dumps(b) and b.get("request_id")
                                          for _, s, b in refused),
               f"each run of tau 666 is a 503 naming a request id, not the database's text ({refused[:2]})")
        rid = refused[0][2]["request_id"]
        line = k.log_line(rid)
        expect("tau 666 refused" in line, f"the log names the server's refusal under that id ({line!r})")
        expect(len(stored) == 288 and all(s == 201 for _, s, _ in stored),
               f"every other run is stored ({[a for a in stored if a[1] != 201][:3]})")
        ids = {b["ids"][0]: tau for tau, _, b in stored}
        expect(len(ids) == 288, f"288 distinct ids ({len(ids)})")
        rows = S.pg.sql_uri(uri, "SELECT string_agg(id || ':' || tau, ' ' ORDER BY id) FROM runs WHERE tau <> 1")
        have = {int(x.split(":")[0]): float(x.split(":")[1]) for x in rows.split()}
        expect(have == ids, "each answered id holds the tau it was posted with "
               f"({len(have)} rows; differ: {sorted(set(have.items()) ^ set(ids.items()))[:4]})")
        count = S.pg.sql_uri(uri, "SELECT runs FROM series WHERE system = 'travel'")
        expect(count == "289", f"the series counts 289 runs ({count})")
        s, m, _ = k.request("GET", "/metrics")
        text = m.decode() if isinstance(m, bytes) else str(m)
        commits = int(float(re.search(r"^karte_write_commits_total (\S+)", text, re.M).group(1)))
        expect(commits < 300, f"the posts were grouped: {commits} commits for 321 requests")
        print(f"    32 refused, 288 stored with their ids, {commits} commits")
    finally:
        k.stop()


DB_TEXT = ("FATAL", "ERROR:", "connection to server", "Connection refused", "127.0.0.1", "postgres")


def no_db_text(body, port):
    text = json.dumps(body)
    return not any(t in text for t in DB_TEXT + (str(port),))


@test
def postgresql_down_is_503_never_401_and_karte_collect_keeps_the_run():
    """While PostgreSQL is stopped a valid token gets 503 with
    Retry-After (never 401: a collector would drop the run), the answer
    names a request id and none of the database's text, health says
    unavailable; karte-collect spools the run and flush stores it once
    when the database is back."""
    uri, a, b, token = pair()
    spool = temp_dir("karte-spool-")
    try:
        run = {"system": "blink", "application": "x", "p": 2, "n": 10.0, "tau": 1.0}
        expect(a.request("POST", "/api/v1/runs", run, token=token)[0] == 201, "stored before")
        S.pg.pg_ctl("stop", "-m", "fast")
        time.sleep(1.2)  # past the token cache: the token is looked up
        for k, name in ((a, "A"), (b, "B")):
            s, body, h = k.request("POST", "/api/v1/runs", run, token=token)
            expect(s == 503 and h.get("Retry-After") and body.get("request_id"),
                   f"{name}: a valid token while the database is down is a 503 with Retry-After ({s} {body})")
            expect(no_db_text(body, S.pg.port), f"{name}: no database text in the answer ({body})")
            s, body, _ = k.request("POST", "/api/v1/runs", run, token="kt_wrong")
            expect(s == 503, f"{name}: nor is a token the store cannot check a 401 ({s} {body})")
            s, body, h = k.request("GET", "/api/v1/runs?limit=5")
            expect(s == 503 and no_db_text(body, S.pg.port) and h.get("Retry-After"),
                   f"{name}: a read is a 503 too, without the database's text ({s} {body})")
            rid = body["request_id"]
            line = k.log_line(rid)
            expect(line and ("refused" in line or "connect" in line),
                   f"{name}: the log gives the database's own text under the request id ({line!r})")
            s, body, _ = k.request("GET", "/api/v1/health")
            expect(s == 503 and body.get("status") == "unavailable", f"{name}: health says unavailable ({s} {body})")
        # karte-collect keeps the run (503s, then spooled)
        f = os.path.join(spool, "run.json")
        with open(f, "w") as fh:
            json.dump(dict(run, tau=2.5, idempotency_key="blink-1"), fh)
        env = dict(os.environ, KARTE_URL=a.url, KARTE_TOKEN=token, KARTE_SPOOL_DIR=os.path.join(spool, "q"))
        c = subprocess.run([S.collect, "post", f, "--retries", "1"], env=env, capture_output=True,
                           text=True, timeout=60)
        expect(c.returncode == 0 and "karte-collect flush" in c.stderr and "HTTP 503" in c.stderr,
               f"karte-collect spools on 503 ({c.returncode} {c.stderr})")
        expect(len(os.listdir(os.path.join(spool, "q"))) == 1, "one spooled file")
        S.pg.pg_ctl("start")
        t0 = time.monotonic()
        while time.monotonic() - t0 < 10:
            if all(k.request("GET", "/api/v1/health")[0] == 200 for k in (a, b)):
                break
            time.sleep(0.2)
        back = time.monotonic() - t0
        expect(back < 5, f"health is 200 on both within 5 s of the start ({back:.1f} s)")
        for _ in range(2):
            c = subprocess.run([S.collect, "flush"], env=env, capture_output=True, text=True, timeout=60)
            expect(c.returncode == 0, f"flush ({c.returncode} {c.stderr})")
        n = S.pg.sql_uri(uri, "SELECT count(*) FROM runs WHERE idempotency_key = 'blink-1' AND tau = 2.5")
        expect(n == "1", f"the spooled run is stored once ({n})")
        print(f"    503 on both while down; spooled; health back after {back:.1f} s; stored once")
    finally:
        a.stop(), b.stop()
        if subprocess.run([os.path.join(S.pg.bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(S.pg.port)]).returncode != 0:
            S.pg.pg_ctl("start")  # a failure above must not leave the later tests without a database


@test
def a_restart_of_postgresql_fails_no_request_once_it_is_back():
    """pg_ctl restart drops every pooled connection of both instances
    (readers, the writer, the token check). Once the database is back no
    request may fail because a connection went stale: each is checked
    (its socket says the server left) and made again."""
    uri, a, b, token = pair()
    try:
        base = {"system": "restart", "application": "x", "n": 10.0}
        for p in (1, 2, 4, 8):
            run = dict(base, p=p, tau=8.0 / p, chi=0.1 * p)
            expect(a.request("POST", "/api/v1/runs", run, token=token)[0] == 201, "stored")
        paths = ["/api/v1/runs?limit=3", "/api/v1/runs/1", "/api/v1/systems",
                 "/api/v1/analysis/isoefficiency?system=restart&application=x", "/api/v1/health"]

        def burst(k, tag, n=3):
            """Concurrent reads and writes, so that every pooled connection is used."""
            out, lock = [], threading.Lock()

            def client(c):
                for i in range(n):
                    for path in paths:
                        r = k.request("GET", path)
                        with lock:
                            out.append((path, r[0], r[1]))
                    r = k.request("POST", "/api/v1/runs", dict(base, p=16, tau=0.6 + c / 100 + i / 1000),
                                  token=token)
                    with lock:
                        out.append(("POST", r[0], r[1]))
            threads = [threading.Thread(target=client, args=(c,)) for c in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            return out
        for k in (a, b):
            bad = [x for x in burst(k, "warm") if x[1] >= 300]
            expect(not bad and not k.died(), f"warm-up answered ({bad[:3]}) {k.died()}")
        pids = S.pg.sql("admin", "postgres", "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                        f"'{uri.rsplit('/', 1)[1]}'")
        S.pg.pg_ctl("restart", "-m", "fast")
        time.sleep(1.2)  # past the token cache, so the token check meets a stale connection too
        failed = []
        for k, name in ((b, "B"), (a, "A")):
            expect(not k.died(), f"{name} alive after the restart ({k.died()})")
            s, body, _ = k.request("GET", "/api/v1/runs/1")
            if s != 200:
                failed.append((name, "first read", s, body))
            s, body, _ = k.request("POST", "/api/v1/runs", dict(base, p=32, tau=0.4), token=token)
            if s != 201:
                failed.append((name, "first write", s, body))
            failed += [(name,) + x for x in burst(k, "after") if x[1] >= 300]
        expect(not failed, f"no request fails after the restart ({len(failed)}: {failed[:3]})")
        print(f"    {pids} connections dropped by the restart; every request after it answered")
    finally:
        a.stop(), b.stop()


@test
def kill_9_of_one_instance_mid_stream_loses_no_acknowledged_run():
    uri, a, b, token = pair()
    acked, stop = [], threading.Event()

    def stream(k, tag):
        i = 0
        while not stop.is_set():
            run = {"system": "kill", "application": tag, "p": 1, "n": 1.0 + i, "tau": 1.0}
            try:
                s, body, _ = k.request("POST", "/api/v1/runs", run, token=token, timeout=5)
            except OSError:
                return
            if s == 201:
                acked.append(body["ids"][0])
            i += 1
    try:
        threads = [threading.Thread(target=stream, args=(a, "a")), threading.Thread(target=stream, args=(b, "b"))]
        for t in threads:
            t.start()
        time.sleep(1.5)
        a.kill9()
        time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(timeout=10)
        stored = set(int(x) for x in S.pg.sql_uri(uri, "SELECT id FROM runs").split())
        lost = [i for i in acked if i not in stored]
        expect(len(acked) > 50 and not lost, f"{len(acked)} acknowledged, lost {lost[:10]}")
        s, r, _ = b.request("POST", "/api/v1/runs", {"system": "kill", "application": "after", "p": 1,
                                                      "n": 1.0, "tau": 1.0}, token=token)
        expect(s == 201 and r["ids"][0] > max(stored), f"B goes on writing ({s} {r})")
        print(f"    {len(acked)} acknowledged through both, all there after kill -9 of A")
    finally:
        b.stop()


@test
def copy_moves_sqlite_into_postgresql_resumes_and_answers_the_same():
    lite = Karted(S.binary).start()
    tok = lite.first_token
    try:
        body = ndjson(series_runs())
        expect(lite.request("POST", "/api/v1/runs", body, ctype="application/x-ndjson", token=tok)[0] == 201,
               "series stored")
        many = ndjson({"system": "bulk", "application": "x", "p": 1 + i % 64, "n": 10.0 + i, "tau": 0.1 + i,
                       "chi": 0.05, "idempotency_key": f"k{i}"} for i in range(20000))
        expect(lite.request("POST", "/api/v1/runs", many, ctype="application/x-ndjson", token=tok)[0] == 201,
               "20,000 more")
        lite.request("DELETE", "/api/v1/runs/20031", token=tok)  # the newest: the id floor must come along
        pvt = {"modules": [{"module": 0, "ratio_max": 1.02, "ratio_min": 0.97},
                           {"module": 1, "ratio_max": 0.98, "ratio_min": 1.03}]}
        expect(lite.request("PUT", "/api/v1/pvt/so-sys", pvt, token=tok)[0] in (200, 201), "pvt stored")
        lite.stop()
        uri = S.pg.new_db()
        # interrupted after its first chunk ...
        cp = subprocess.Popen([S.binary, "copy", "--from", lite.db, "--to", uri, "--chunk", "1000"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = cp.stderr.readline()
        cp.kill()
        cp.wait()
        cp.stdout.close(), cp.stderr.close()
        have = int(S.pg.sql_uri(uri, "SELECT count(*) FROM runs"))
        expect("runs" in first and 0 < have < 20030, f"stopped part way ({first!r}, {have} runs)")
        # ... and started again
        out = subprocess.run([S.binary, "copy", "--from", lite.db, "--to", uri, "--chunk", "1000"],
                             capture_output=True, text=True, timeout=120)
        expect(out.returncode == 0 and "resuming after run" in out.stderr, f"resumed ({out.returncode} {out.stderr[-400:]})")
        expect("runs                   20030 on both" in out.stdout and "sha256 of every table" in out.stdout,
               f"counts and checksum reported ({out.stdout})")
        lite2 = Karted(S.binary, db=lite.db).start()
        pgk = Karted(S.binary, db=uri).start()
        try:
            n = same_answers(lite2, pgk, "source and copy")
            s1, b1, _ = lite2.request("GET", "/api/v1/pvt/so-sys")
            s2, b2, _ = pgk.request("GET", "/api/v1/pvt/so-sys")
            expect(s1 == s2 == 200 and b1 == b2, f"pvt copied ({b1} {b2})")
            s, r, _ = pgk.request("POST", "/api/v1/runs", {"system": "new", "application": "x", "p": 1, "n": 1.0,
                                                           "tau": 1.0, "idempotency_key": "k5"}, token=tok)
            expect(s == 200 and r["ids"] == [32 + 5], f"keys came along: k5 is run 37 ({s} {r})")
            s, r, _ = pgk.request("POST", "/api/v1/runs", {"system": "new", "application": "x", "p": 1, "n": 1.0,
                                                           "tau": 1.0}, token=tok)
            expect(s == 201 and r["ids"] == [20032], f"a new run above the deleted newest ({s} {r})")
            print(f"    20,030 runs copied in two goes; {n} reads the same on the copy")
        finally:
            lite2.stop(), pgk.stop()
        bad = subprocess.run([S.binary, "copy", "--from", lite.db], capture_output=True, text=True, timeout=30)
        expect(bad.returncode == 2 and "--to" in bad.stderr, f"copy without --to explained ({bad.stderr})")
    finally:
        lite.stop()


def free_port():
    import socket
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


@test
def two_instances_behind_the_example_nginx_upstream():
    """deploy/nginx-karte-upstream.conf as shipped, but plain HTTP on a
    loopback port and the test's instances as its servers."""
    import re
    import shutil
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    expect(os.path.exists(nginx), "nginx installed (deploy/install-deps.sh: nginx-light)")
    uri, a, b, token = pair()
    conf_dir = os.path.join(a.dir, "nginx")
    os.makedirs(conf_dir)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy",
                           "nginx-karte-upstream.conf")) as f:
        site = f.read()
    port = free_port()
    ports = [k.host_port[1] for k in (a, b)]
    site = re.sub(r"listen 443 ssl;", f"listen 127.0.0.1:{port};", site)
    site = re.sub(r"\n\s*ssl_certificate\S*\s+\S+;", "", site)
    site = site.replace("127.0.0.1:8081", f"127.0.0.1:{ports[0]}").replace("127.0.0.1:8082", f"127.0.0.1:{ports[1]}")
    expect(site.count(f"127.0.0.1:{ports[0]}") == 1 and "ssl" not in site.replace("ssl_", ""), "config adapted")
    main = (f"daemon off;\npid {conf_dir}/nginx.pid;\nerror_log {conf_dir}/error.log;\n"
            "worker_processes 1;\nevents { worker_connections 256; }\n"
            f"http {{\naccess_log off;\nclient_body_temp_path {conf_dir}/body;\n"
            f"proxy_temp_path {conf_dir}/proxy;\n{site}\n}}\n")
    with open(os.path.join(conf_dir, "nginx.conf"), "w") as f:
        f.write(main)
    if os.geteuid() == 0:
        os.chmod(a.dir, 0o755)
        os.chmod(conf_dir, 0o777)
    proc = subprocess.Popen([nginx, "-p", conf_dir, "-c", os.path.join(conf_dir, "nginx.conf")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        import http.client
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=2).connect()
                break
            except OSError:
                time.sleep(0.1)

        def via_proxy(method, path, body=None):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            hdrs = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
            conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=hdrs)
            r = conn.getresponse()
            out = r.status, json.loads(r.read() or b"null")
            conn.close()
            return out
        ids = []
        for i in range(40):
            s, r = via_proxy("POST", "/api/v1/runs", {"system": "px", "application": "x", "p": 1 + i % 4,
                                                      "n": 10.0, "tau": 1.0})
            expect(s == 201, f"POST {i} through the proxy ({s} {r})")
            ids += r["ids"]
        expect(ids == list(range(1, 41)), f"consecutive ids whichever instance stored them ({ids[:5]}...)")
        served = [k.request("GET", "/api/v1/health")[1]["write_requests"] for k in (a, b)]
        expect(min(served) > 0 and sum(served) == 40, f"both instances took writes ({served})")
        a.kill9()
        for i in range(10):
            s, r = via_proxy("POST", "/api/v1/runs", {"system": "px", "application": "x", "p": 1, "n": 10.0,
                                                      "tau": 2.0})
            expect(s == 201, f"with A killed, POST {i} goes to B ({s} {r})")
        s, r = via_proxy("GET", "/api/v1/series")
        expect(s == 200 and r["series"][0]["runs"] == 50, f"50 runs through the proxy ({r})")
        print(f"    40 posts shared {served[0]}/{served[1]}; 10 more with one instance killed")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stderr.close()
        a.stop(), b.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--karted", required=True)
    ap.add_argument("--collect", help="karte-collect (default: beside karted)")
    ap.add_argument("-k", dest="only", help="run only tests whose name contains this")
    args = ap.parse_args()
    S.binary = os.path.abspath(args.karted)
    S.collect = os.path.abspath(args.collect or os.path.join(os.path.dirname(S.binary), "karte-collect"))
    with PgCluster() as pg:
        S.pg = pg
        failed = SUITE.run(args.only)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
