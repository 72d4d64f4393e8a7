#!/usr/bin/env python3
"""A throwaway PostgreSQL cluster for the tests: initdb in a temporary
folder as an unprivileged user, a free loopback port, a database `karte`
owned by a role `karte` that is not a superuser (karted needs only to own
its database), removed whole at the end.

    with PgCluster() as pg:
        pg.uri   # postgresql://karte@127.0.0.1:PORT/karte

`python3 tests/pg_cluster.py --check` starts one, checks what karted will
rely on (a non-superuser owner that can create tables, a loopback-only
listener) and that nothing is left behind. PostgreSQL 15 comes from
Debian's postgresql-15 (deploy/install-deps.sh installs it).
"""
import argparse
import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def pg_bin():
    """The newest installed server's bin folder."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if not found:
        raise SystemExit("pg_cluster: no PostgreSQL server installed (deploy/install-deps.sh installs postgresql-15)")
    return os.path.dirname(found[-1])


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgCluster:
    """One postgres process on 127.0.0.1 for the length of a test run."""

    def __init__(self, user=None, timeout=30, durable=False):
        self.bin = pg_bin()
        # initdb refuses root: run the server as the postgres account the
        # package made, else nobody
        self.user = user or next((u for u in ("postgres", "nobody") if _exists(u)), None)
        self.timeout = timeout
        self.durable = durable  # fsync and synchronous commits as in production (benchmarks)
        self.dir = None
        self.port = None
        self.uri = None

    def _run(self, *args, check=True, **kw):
        cmd = list(args)
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", self.user, "--"] + cmd
        return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=self.timeout, **kw)

    def start(self):
        self.dir = tempfile.mkdtemp(prefix="karte-pg-")
        data = os.path.join(self.dir, "data")
        if os.geteuid() == 0:
            pw = pwd.getpwnam(self.user)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self.port = free_port()
        try:
            self._run(os.path.join(self.bin, "initdb"), "-D", data, "-U", "admin", "-A", "trust",
                      "-E", "UTF8", "--locale=C", "--no-sync")
            # loopback only, no Unix socket outside the folder, no fsync (a test cluster)
            with open(os.path.join(data, "postgresql.auto.conf"), "a") as f:
                f.write(f"listen_addresses = '127.0.0.1'\nport = {self.port}\n"
                        f"unix_socket_directories = '{self.dir}'\nmax_connections = 200\n")
                if not self.durable:
                    f.write("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n")
            self._run(os.path.join(self.bin, "pg_ctl"), "-D", data, "-l", os.path.join(self.dir, "log"),
                      "-w", "-t", str(self.timeout), "start")
            self.sql("admin", "postgres", "CREATE ROLE karte LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE")
            self.sql("admin", "postgres", "CREATE DATABASE karte OWNER karte")
        except BaseException:
            self.stop()
            raise
        self.uri = f"postgresql://karte@127.0.0.1:{self.port}/karte"
        return self

    def new_db(self):
        """A fresh database owned by karte, as a URI (one per karted under test)."""
        self.ndb = getattr(self, "ndb", 0) + 1
        name = f"karte_{self.ndb}"
        self.sql("admin", "postgres", f"CREATE DATABASE {name} OWNER karte")
        return f"postgresql://karte@127.0.0.1:{self.port}/{name}"

    def sql_uri(self, uri, text):
        """Run text as karte on the database uri names; its output, tuples only."""
        return self.sql("karte", uri.rsplit("/", 1)[1], text)

    def sql(self, role, db, text):
        """Run text with psql as role on db; its output, tuples only."""
        r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                            "-p", str(self.port), "-U", role, "-d", db, "-c", text],
                           capture_output=True, text=True, timeout=self.timeout)
        if r.returncode:
            raise RuntimeError(f"psql as {role}: {text}: {r.stderr.strip()}")
        return r.stdout.strip()

    def pg_ctl(self, *args):
        """pg_ctl on this cluster (as the server's user): 'stop', 'start',
        'restart' with their options; waits until done."""
        data = os.path.join(self.dir, "data")
        return self._run(os.path.join(self.bin, "pg_ctl"), "-D", data, "-l", os.path.join(self.dir, "log"),
                         "-w", "-t", str(self.timeout), *args)

    def stop(self):
        if not self.dir:
            return
        data = os.path.join(self.dir, "data")
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            self._run(os.path.join(self.bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop",
                      check=False)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def _exists(user):
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


def check():
    t0 = time.monotonic()
    with PgCluster() as pg:
        where = pg.dir
        who = pg.sql("karte", "karte", "SELECT current_user || ' ' || rolsuper FROM pg_roles WHERE rolname = current_user")
        if who != "karte false":
            raise SystemExit(f"pg_cluster: the owner role is {who!r}, want a non-superuser karte")
        pg.sql("karte", "karte", "CREATE TABLE t (x double precision); INSERT INTO t VALUES (0.1), (1e-300)")
        # the shortest text that reads back the same double (PostgreSQL >= 12)
        got = pg.sql("karte", "karte", "SELECT string_agg(x::text, ',' ORDER BY x DESC) FROM t")
        if got != "0.1,1e-300":
            raise SystemExit(f"pg_cluster: doubles as text are {got!r}, want '0.1,1e-300'")
        listen = pg.sql("admin", "postgres", "SHOW listen_addresses")
        if listen != "127.0.0.1":
            raise SystemExit(f"pg_cluster: listens on {listen!r}, want 127.0.0.1 only")
        uri = pg.uri
    if os.path.exists(where):
        raise SystemExit(f"pg_cluster: {where} was left behind")
    print(f"pg_cluster: {uri} up and removed in {time.monotonic() - t0:.1f} s; owner karte is no superuser")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="start a cluster, check it, remove it")
    a = ap.parse_args()
    if not a.check:
        ap.print_help()
        sys.exit(2)
    check()
