"""Start and talk to a real karted on a loopback port (tests and benchmarks).

Python 3 standard library only. Every server listens on 127.0.0.1 (or ::1)
with port 0, so the kernel picks a free port; karted prints the URL it
serves, which is read back here.
"""
import atexit
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.parse

import openapi_check

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
_TEMP_DIRS = []
# A PgCluster (tests/pg_cluster.py) when the suite runs on PostgreSQL: every
# Karted without a db then gets a fresh database of it.
PG = None


def temp_dir(prefix):
    """A new folder in the system's temporary directory, removed when the
    test program exits (tests leave nothing behind in /tmp)."""
    d = tempfile.mkdtemp(prefix=prefix)
    _TEMP_DIRS.append(d)
    return d


@atexit.register
def _remove_temp_dirs():
    for d in _TEMP_DIRS:
        shutil.rmtree(d, ignore_errors=True)


def free_port():
    """A loopback port nobody listens on now (for a server that is away)."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Karted:
    """A karted process with its own temporary database directory."""

    def __init__(self, binary, db=None, args=(), env=None, listen="127.0.0.1:0"):
        self.binary = os.path.abspath(binary)
        self.dir = temp_dir("karte-it-")
        self.db = db or (PG.new_db() if PG else os.path.join(self.dir, "karte.db"))
        self.args = list(args)
        self.env = env
        self.listen = listen
        self.proc = None
        self.url = None
        self.first_token = None
        self._err = []
        self._readers = []

    def start(self, timeout=10):
        env = dict(os.environ)
        env.update(self.env or {})
        cmd = [self.binary, "serve", "--listen", self.listen, "--db", self.db,
               "--static", os.path.join(ROOT, "static")] + self.args
        if self.env and "KARTE_LISTEN" in self.env:
            cmd = [self.binary, "serve"] + self.args  # settings from the environment only
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env, text=True)
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("karted exited early: " + self.proc.stderr.read())
            m = re.search(r"write token \(shown once, stored hashed\): (\S+)", line)
            if m:
                self.first_token = m.group(1)
            m = re.search(r"serving (http://\S+)/ ", line)
            if m:
                self.url = m.group(1)
                self._drain()
                return self
        raise RuntimeError("karted did not start in time")

    def _drain(self):
        """Read what karted prints from now on, so a full pipe never
        stops it (its log lines go to self.stderr)."""
        def read(f, keep):
            for line in f:
                if keep is not None:
                    keep.append(line)
                    if len(keep) > 20000:
                        del keep[:10000]
        self._readers = [threading.Thread(target=read, args=(self.proc.stdout, None), daemon=True),
                         threading.Thread(target=read, args=(self.proc.stderr, self._err), daemon=True)]
        for t in self._readers:
            t.start()

    def log_line(self, text, timeout=5):
        """The first line of karted's stderr holding text, waiting up to
        timeout seconds for it (a thread of ours reads the pipe); "" if none."""
        t0 = time.time()
        while True:
            line = next((x for x in self.stderr.splitlines() if text in x), "")
            if line or time.time() - t0 > timeout:
                return line
            time.sleep(0.05)

    @property
    def stderr(self):
        """What karted wrote to stderr since it started serving."""
        return "".join(self._err)

    @property
    def host_port(self):
        u = urllib.parse.urlsplit(self.url)
        return u.hostname, u.port

    @property
    def on_pg(self):
        return self.db.startswith("postgresql://")

    def sql(self, text):
        """One value (or rows as text) of a query on this karted's database,
        whichever the backend."""
        if self.on_pg:
            return PG.sql_uri(self.db, text)
        import sqlite3
        db = sqlite3.connect(self.db)
        try:
            rows = db.execute(text).fetchall()
        finally:
            db.close()
        return "\n".join("|".join("" if v is None else str(v) for v in r) for r in rows)

    def metric(self, name):
        """The value of one sample of this karted's /metrics (name with its labels)."""
        s, m, _ = self.request("GET", "/metrics")
        text = m.decode() if isinstance(m, bytes) else str(m)
        found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
        if s != 200 or not found:
            raise RuntimeError(f"/metrics -> {s}, without {name}")
        return int(float(found.group(1)))

    def token(self, name):
        out = subprocess.run([self.binary, "token", "create", name, "--db", self.db],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()

    def request(self, method, path, body=None, ctype="application/json", token=None,
                headers=None, timeout=30):
        """One request on a fresh connection: (status, parsed JSON or bytes, headers)."""
        host, port = self.host_port
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
        hdrs = dict(headers or {})
        data = None
        if body is not None:
            data = body if isinstance(body, (bytes, bytearray)) else (
                body.encode() if isinstance(body, str) else json.dumps(body).encode())
            if ctype:
                hdrs["Content-Type"] = ctype
        if token:
            hdrs["Authorization"] = "Bearer " + token
        try:
            conn.request(method, path, body=data, headers=hdrs)
            resp = conn.getresponse()
            payload = resp.read()
            try:
                parsed = json.loads(payload) if payload else None
            except ValueError:
                parsed = payload
            req_ctype = next((v for n, v in hdrs.items() if n.lower() == "content-type"), None)
            openapi_check.check(method, path, resp.status, resp.getheader("Content-Type"), parsed, data, req_ctype)
            return resp.status, parsed, dict(resp.getheaders())
        finally:
            conn.close()

    def signal(self, sig):
        self.proc.send_signal(sig)

    def wait(self, timeout=15):
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        for t in self._readers:
            t.join(timeout=5)
        if not self._readers:
            self._err.append(self.proc.stderr.read())
        self.proc.stdout.close()
        self.proc.stderr.close()
        return rc

    def died(self):
        """What karted said last, when it is no longer running (else "")."""
        if self.proc is None or self.proc.poll() is None:
            return ""
        return f"karted exited with {self.proc.returncode}: {self.stderr[-1500:]}"

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            return self.wait()
        return self.proc.returncode if self.proc else None

    def stop_checked(self, what="karted"):
        """Stop it; 0 if it exited cleanly, else print why and return 1 (a
        teardown for Suite.run, so a crash at exit fails the suite)."""
        rc = self.stop()
        if rc != 0:
            print(f"FAIL {what} exited with {rc}: {self.stderr[-3000:]}")
        return 1 if rc != 0 else 0

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        return self.wait()


class Suite:
    """A list of test functions run in order, each printed as ok/FAIL, and
    'NAME: N passed, M failed' last (the line CI reads)."""

    def __init__(self, name):
        self.name = name
        self.tests = []
        self.skip = set()

    def test(self, fn):
        self.tests.append(fn)
        return fn

    def sqlite_only(self, fn):
        """A test of the SQLite file itself, or of what does not depend on
        the backend (make run, install): skipped when the suite runs on
        PostgreSQL."""
        self.skip.add(fn.__name__)
        return fn

    def run(self, only=None, teardown=None):
        import time
        import traceback
        passed = failed = 0
        try:
            for fn in self.tests:
                if only and only not in fn.__name__:
                    continue
                if PG and fn.__name__ in self.skip:
                    print(f"skip {fn.__name__} (SQLite only)", flush=True)
                    continue
                t0 = time.time()
                try:
                    openapi_check.take_problems()
                    fn()
                    off = openapi_check.take_problems()
                    if off:
                        raise AssertionError(f"{len(off)} answers differ from docs/openapi.json: " + "; ".join(off[:5]))
                    passed += 1
                    print(f"ok   {fn.__name__} ({time.time() - t0:.1f} s)", flush=True)
                except Exception as e:  # noqa: BLE001 - report and go on
                    failed += 1
                    print(f"FAIL {fn.__name__}: {e}", flush=True)
                    if not isinstance(e, AssertionError):
                        traceback.print_exc()
        finally:
            if teardown:
                failed += teardown()
        print(f"{self.name}: {passed} passed, {failed} failed")
        return failed


def add_backend_option(ap):
    ap.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite",
                    help="the store every karted of the suite uses; postgresql starts a throwaway "
                    "cluster (tests/pg_cluster.py), removed at the end")


def use_backend(args, suite):
    """Start the cluster --backend postgresql asks for; later Karteds use it."""
    global PG
    if args.backend != "postgresql":
        return
    import atexit
    from pg_cluster import PgCluster
    PG = PgCluster().start()
    atexit.register(PG.stop)
    suite.name += " (postgresql)"


def expect(cond, what):
    if not cond:
        raise AssertionError(what)
