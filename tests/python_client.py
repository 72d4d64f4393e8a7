"""Tests of the Python client (collectors/python, the package karte)
against a real karted on loopback, run with pytest: pip installs it from
the repository with no index; posting (a PostResult: ids in order,
verdicts, alerts, or the spool file; idempotency keys given and made);
errors by kind under KarteError (ConnectionFailed, AuthError, BadRequest
with field, NotFound, Unavailable with retry_after); spooling on
connection errors and on 503 (a loopback server that answers only 503
stands in for an unavailable karted) and flush, by the client and by
karte-collect; DataFrames of runs (labels as columns, times as datetimes)
and of regions (long form); the model of a stored series with resource as
a boolean or "auto"; an error naming the extra without pandas.

Run with Debian's /usr/bin/python3 (pandas from python3-pandas, pytest
from python3-pytest):
    KARTE_BUILD=build /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python_client.py
"""
import http.server
import json
import math
import os
import shutil
import subprocess
import sys
import threading
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytest  # noqa: E402

from karted_proc import Karted, ROOT, expect, free_port, temp_dir  # noqa: E402

PKG = os.path.join(ROOT, "collectors", "python")
sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, PKG)
import karte  # noqa: E402



class S:
    build = None
    k = None
    tmp = None


@pytest.fixture(scope="module", autouse=True)
def karted():
    """One karted (KARTE_BUILD's, default build/) for every test of the module."""
    S.build = os.path.abspath(os.path.join(ROOT, os.environ.get("KARTE_BUILD", "build")))
    S.tmp = temp_dir("karte-py-")
    S.k = Karted(os.path.join(S.build, "karted")).start()
    yield S.k
    assert S.k.stop() == 0, "karted stops cleanly"


def client(**kw):
    kw.setdefault("spool_dir", os.path.join(S.tmp, "spool"))
    return karte.Client(S.k.url, token=S.k.first_token, **kw)


def test_pip_installs_it_from_the_repository_without_an_index():
    venv = os.path.join(S.tmp, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True,
                   capture_output=True, timeout=120)
    src = os.path.join(S.tmp, "src")  # a copy: setuptools builds in the folder it is given
    shutil.copytree(PKG, src, ignore=shutil.ignore_patterns("__pycache__"))
    r = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--no-index", "--no-build-isolation",
                        "--disable-pip-version-check", src], capture_output=True, text=True, timeout=300)
    expect(r.returncode == 0, f"pip install ({r.returncode}): {r.stdout[-500:]} {r.stderr[-1000:]}")
    r = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                        "import karte, sys; print(karte.__version__, karte.__file__)"],
                       capture_output=True, text=True, timeout=60, cwd=S.tmp)
    expect(r.returncode == 0 and r.stdout.startswith(karte.__version__ + " ") and venv in r.stdout,
           f"the installed package imports from the venv ({r.stdout} {r.stderr})")


def test_posts_runs_and_reads_them_back_as_dataframes():
    import pandas
    k = client()
    runs = [{"system": "py", "application": "md", "p": p, "n": 1000, "tau": 10.0 / p + 0.1 * p, "chi": 0.1 * p,
             "labels": {"commit": "3f2a1c", "cc": "gcc-13" if p < 8 else "icx"},
             "regions": [{"name": "calc", "time_s": 8.0 / p, "energy_j": 100.0 / p},
                         {"name": "halo", "time_s": 0.1 * p},
                         {"name": "MPI_Wait", "path": ["halo", "MPI_Wait"], "time_s": 0.05 * p}]}
            for p in (1, 2, 4, 8, 16)]
    for i, r in enumerate(runs):
        r["measured_at"] = f"2026-11-2{i}T10:00:00Z"
    ids = k.post_runs(runs)
    expect(len(ids) == 5 and ids == sorted(ids) and ids.ids == list(ids), f"five ids in the order posted ({ids})")
    expect(ids.spooled is None and len(ids.verdicts) == 5 and ids.alerts == [],
           f"what happened: stored, a verdict each, no alert ({ids.spooled} {ids.verdicts} {ids.alerts})")
    df = k.runs("py", "md")
    expect(isinstance(df, pandas.DataFrame) and len(df) == 5, f"a DataFrame of 5 rows ({type(df)} {len(df)})")
    expect(list(df.columns[:8]) == ["id", "system", "application", "variant", "p", "n", "tau", "chi"],
           f"the run's fields first ({list(df.columns)})")
    expect({"label.commit", "label.cc"} <= set(df.columns) and "labels" not in df.columns,
           f"labels as label.K columns ({list(df.columns)})")
    expect(str(df["measured_at"].dtype) == "datetime64[ns, UTC]" and str(df["created_at"].dtype) == "datetime64[ns, UTC]"
           and sorted(df["measured_at"].dt.day) == [20, 21, 22, 23, 24],
           f"times as UTC datetimes ({df['measured_at'].dtype} {df['created_at'].dtype})")
    row = df.set_index("id").loc[ids[3]]
    expect(row["p"] == 8 and row["tau"] == 10.0 / 8 + 0.8 and row["label.cc"] == "icx",
           f"values read back as posted ({row.to_dict()})")
    mean = df.groupby("p")["tau"].mean()  # what a Thicket-style analysis does with it
    expect(math.isclose(mean[16], 10.0 / 16 + 1.6), f"a groupby per p ({mean.to_dict()})")
    reg = k.regions("py", "md")
    expect(list(reg.columns[:8]) == ["run_id", "p", "n", "region", "time_s", "energy_j", "path", "depth"]
           and len(reg) == 15, f"regions in long form, one row a run and call path ({list(reg.columns)}, {len(reg)} rows)")
    wait = reg[(reg.path == "halo->MPI_Wait") & (reg.p == 4)].iloc[0]
    expect(wait["region"] == "MPI_Wait" and wait["depth"] == 2 and wait["time_s"] == 0.2, f"a nested path ({wait.to_dict()})")
    tree = k.call_tree("py", "md")
    ranked = ["->".join(x["path"]) for x in tree["paths"]]
    expect(sorted(ranked) == ["calc", "halo", "halo->MPI_Wait"] and tree["root"]["quality"] in ("good", "poor"),
           f"every call path modelled and ranked ({ranked})")
    calc = reg[(reg.region == "calc") & (reg.p == 4)].iloc[0]
    halo = reg[(reg.region == "halo") & (reg.p == 4)].iloc[0]
    expect(calc["run_id"] == ids[2] and calc["energy_j"] == 25.0 and math.isnan(halo["energy_j"])
           and halo["time_s"] == 0.4, f"a region's values, NaN where none was given ({calc.to_dict()} {halo.to_dict()})")
    only = k.runs("py", "md", labels={"cc": "icx"})
    expect(sorted(only["p"]) == [8, 16], f"a label filter ({list(only['p'])})")
    many = k.post_runs([{"system": "py", "application": "paged", "p": 1 + i % 64, "n": 1000 + i, "tau": 1.0}
                        for i in range(2500)])
    df = k.runs("py", "paged")
    expect(len(many) == 2500 and len(df) == 2500 and set(df["id"]) == set(many),
           f"every run of a series, across pages of 1000 ({len(df)})")


def test_idempotency_keys_given_are_kept_and_missing_ones_made():
    k = client()
    run = {"system": "py", "application": "idem", "p": 2, "n": 10, "tau": 1.0, "idempotency_key": "job-4711"}
    a = k.post_runs([run])
    b = k.post_runs([run])
    expect(a == b and len(a) == 1, f"the same key is the same run ({a} {b})")
    c = k.post_runs([{"system": "py", "application": "idem", "p": 4, "n": 10, "tau": 0.6}])
    s, body, _ = S.k.request("GET", f"/api/v1/runs/{c[0]}")
    expect(s == 200 and body["idempotency_key"].startswith("py-") and len(body["idempotency_key"]) == 35,
           f"a run without a key gets one ({body.get('idempotency_key')})")


def test_refusals_raise_their_kind_of_karte_error():
    k = client()
    with pytest.raises(karte.BadRequest) as e:
        k.post_runs([{"system": "py", "application": "bad", "p": 2, "n": 10, "tau": 1.0},
                     {"system": "py", "application": "bad", "p": 2, "n": 10, "tau": -1.0}])
    expect(e.value.status == 400 and e.value.field == "tau" and e.value.index == 1 and "tau" in str(e.value)
           and isinstance(e.value, karte.KarteError), f"400 naming tau and the run ({e.value.status} {e.value})")
    s, b, _ = S.k.request("GET", "/api/v1/runs?system=py&application=bad")
    expect(b["runs"] == [], "nothing of the refused body is stored")
    with pytest.raises(karte.AuthError) as e:
        karte.Client(S.k.url, token="not-a-token", spool_dir=os.path.join(S.tmp, "never")).post_runs(
            [{"system": "py", "application": "bad", "p": 1, "n": 1, "tau": 1.0}])
    expect(e.value.status == 401, f"401 for a wrong token ({e.value.status})")
    expect(not os.path.exists(os.path.join(S.tmp, "never")), "a refusal is not spooled")
    with pytest.raises(karte.NotFound) as e:
        k.model("py", "no-such-app")
    expect(e.value.status == 404, f"404 for a series that is not there ({e.value.status} {e.value})")
    with pytest.raises(karte.ConnectionFailed) as e:
        karte.Client(f"http://127.0.0.1:{free_port()}").model("py", "md")
    expect(e.value.status == 0 and "cannot be reached" in str(e.value), f"a refused connection ({e.value})")


def test_spools_when_karted_is_away_and_flush_sends_once():
    spool = os.path.join(S.tmp, "spool-away")
    away = karte.Client(f"http://127.0.0.1:{free_port()}", token=S.k.first_token, retries=2, spool_dir=spool)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ids = away.post_runs([{"system": "py", "application": "away", "p": p, "n": 5, "tau": 1.0 / p}
                              for p in (1, 2, 4)])
    files = [f for f in os.listdir(spool) if f.endswith(".ndjson")]
    expect(ids == [] and len(files) == 1 and any("flush" in str(x.message) for x in w),
           f"spooled with a warning that says how to send ({ids} {files} {[str(x.message) for x in w]})")
    expect(ids.spooled == os.path.join(spool, files[0]) and karte.Client(S.k.url).post_runs([]).spooled is None,
           f"a spooled post is told from an empty one ({ids.spooled})")
    k = client(spool_dir=spool)
    expect(k.flush() == 3 and k.flush() == 0, "flush sends the three runs, then nothing")
    s, b, _ = S.k.request("GET", "/api/v1/runs?system=py&application=away")
    expect(len(b["runs"]) == 3, f"stored once ({len(b['runs'])})")


class Unavailable(http.server.BaseHTTPRequestHandler):
    seen = 0

    def do_POST(self):  # noqa: N802
        Unavailable.seen += 1
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.answer("0")

    def do_GET(self):  # noqa: N802
        self.answer("7")

    def answer(self, retry):
        body = b'{"error": "the database is unavailable", "request_id": "x"}'
        self.send_response(503)
        self.send_header("Retry-After", retry)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def test_spools_after_retrying_a_503_and_karte_collect_flushes_it():
    srv = http.server.HTTPServer(("127.0.0.1", 0), Unavailable)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    spool = os.path.join(S.tmp, "spool-503")
    try:
        c = karte.Client(f"http://127.0.0.1:{srv.server_address[1]}", token="t", retries=3, spool_dir=spool)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ids = c.post_runs([{"system": "py", "application": "busy", "p": 2, "n": 5, "tau": 1.0}])
        with pytest.raises(karte.Unavailable) as e:
            c.model("py", "busy")
        expect(e.value.status == 503 and e.value.retry_after == 7.0, f"a read: Unavailable, retry after 7 s ({e.value})")
    finally:
        srv.shutdown()
    expect(ids == [] and ids.spooled and Unavailable.seen == 3,
           f"three tries, then the spool ({ids} {ids.spooled} {Unavailable.seen})")
    r = subprocess.run([os.path.join(S.build, "karte-collect"), "flush"], capture_output=True, text=True,
                       timeout=60, env=dict(os.environ, KARTE_URL=S.k.url, KARTE_TOKEN=S.k.first_token,
                                            KARTE_SPOOL_DIR=spool))
    s, b, _ = S.k.request("GET", "/api/v1/runs?system=py&application=busy")
    expect(r.returncode == 0 and len(b["runs"]) == 1 and not os.listdir(spool),
           f"karte-collect flush sends what the client spooled ({r.returncode} {r.stderr} {len(b['runs'])})")


def test_models_a_stored_series():
    k = client()
    k.post_runs([{"system": "py", "application": "model", "p": p, "n": 1000, "tau": 2.0 + 0.5 * math.log2(p)}
                 for p in (1, 2, 4, 8, 16, 32, 64) for _ in range(2)])
    m = k.model("py", "model")
    expect(isinstance(m, dict) and "log2(p)" in m["function"] and m["parameters"] == ["p"],
           f"the model answer ({m.get('function')})")
    pts = k.model_points([((p,), [3.0 * p]) for p in (2, 4, 8, 16, 32)])
    expect("p" in pts["function"] and abs(pts["smape"]) < 1e-6, f"a model of given points ({pts.get('function')})")
    # strong scaling: resource as a Python boolean or "auto", as the API takes it
    k.post_runs([{"system": "py", "application": "strong", "p": p, "n": 1000, "tau": 8.0 / p + 0.01 * p}
                 for p in (1, 2, 4, 8, 16, 32)])
    auto, no, yes = (k.model("py", "strong", resource=r) for r in ("auto", False, True))
    expect(auto["resource"] is True and no["resource"] is False and yes["resource"] is True
           and k.model("py", "strong")["resource"] is True, f"auto, False, True ({auto['resource']} {no['resource']})")
    falling = [((p,), [8.0 / p]) for p in (1, 2, 4, 8)]
    expect(k.model_points(falling)["resource"] is False and k.model_points(falling, resource="auto")["resource"],
           "POST: as given by default, auto on request")
    try:
        k.model("py", "strong", resource="yes")
        expect(False, "resource='yes' refused")
    except ValueError as e:
        expect("resource" in str(e), f"the client names resource ({e})")


def test_without_pandas_the_error_names_the_extra():
    code = ("import sys; sys.dont_write_bytecode = True; sys.modules['pandas'] = None; sys.path.insert(0, %r); import karte; "
            "k = karte.Client(%r); print(len(k.post_runs([{'system': 'py', 'application': 'nopd', 'p': 1, 'n': 1, 'tau': 1.0}])))\n"
            "try:\n    k.runs('py', 'md')\nexcept ImportError as e:\n    print(e)" % (PKG, S.k.url))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, KARTE_TOKEN=S.k.first_token))
    lines = r.stdout.strip().splitlines()
    expect(r.returncode == 0 and lines[0] == "1" and "karte[pandas]" in lines[1] and "python3-pandas" in lines[1],
           f"posting needs no pandas; reading says which extra to install ({r.stdout} {r.stderr[-300:]})")


def test_the_guide_example_runs_as_written():
    with open(os.path.join(ROOT, "docs", "guide.md")) as f:
        text = f.read()
    block = text.split("## From Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    env = dict(os.environ, KARTE_URL=S.k.url, KARTE_TOKEN=S.k.first_token,
               KARTE_SPOOL_DIR=os.path.join(S.tmp, "spool-guide"), PYTHONPATH=PKG, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-c", block + "\nprint(len(ids), speedup.loc[16, 1e6], len(energy))"],
                       capture_output=True, text=True, timeout=120, env=env)
    lines = r.stdout.strip().splitlines()
    expect(r.returncode == 0 and len(lines) == 3, f"the example runs ({r.returncode} {r.stdout} {r.stderr[-800:]})")
    expect("p" in lines[0] and "p" in lines[1], f"two models printed ({lines[:2]})")
    n, s16, ne = lines[2].split()
    # tau(1, 1e6) = 1.002, tau(16, 1e6) = 1/16 + 0.032: speedup 1.002 / 0.0945
    expect(n == "20" and abs(float(s16) - 1.002 / (1 / 16 + 0.032)) < 1e-9 and ne == "5",
           f"20 runs posted, the speedup at p = 16 as computed by hand ({lines[2]})")
