"""The client (see the package's docstring and docs/guide.md)."""
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import warnings

__version__ = "0.2.0"

PAGE = 1000          # runs a page (the API's most)
BODY_MAX = 8 << 20   # bytes a POST body may have (karted's limit)


class KarteError(Exception):
    """karted refused a request: status is the HTTP status (0 when karted
    could not be reached), error its sentence, field the field it names
    (or None), index the run of a body it names (or None)."""

    def __init__(self, status, error, field=None, index=None, request_id=None):
        self.status, self.error, self.field, self.index = status, error, field, index
        self.request_id = request_id
        where = f" (field {field})" if field else ""
        super().__init__(f"karted answered {status}: {error}{where}" if status else error)


def _default_spool():
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "karte", "spool")


class Client:
    """A karted at url. token: a write token (KARTE_TOKEN by default),
    needed to post. retries: tries on a connection error or a 5xx before
    runs are spooled (into spool_dir, KARTE_SPOOL_DIR or karte-collect's
    default, in karte-collect's format: either sends them with flush)."""

    def __init__(self, url=None, token=None, timeout=60, retries=4, spool_dir=None):
        self.url = (url or os.environ.get("KARTE_URL") or "http://127.0.0.1:8080").rstrip("/")
        self.token = token if token is not None else os.environ.get("KARTE_TOKEN")
        self.timeout = timeout
        self.retries = max(1, retries)
        self.spool_dir = spool_dir or os.environ.get("KARTE_SPOOL_DIR") or _default_spool()

    # ---- HTTP ------------------------------------------------------------

    def _request(self, method, path, body=None, ctype=None):
        """One request: (status, headers, bytes). Connection errors raise
        KarteError with status 0."""
        headers = {"Accept": "application/json"}
        if ctype:
            headers["Content-Type"] = ctype
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()
        except (urllib.error.URLError, OSError) as e:
            raise KarteError(0, f"karted at {self.url} cannot be reached: {getattr(e, 'reason', e)}")

    @staticmethod
    def _error(status, headers, data):
        try:
            b = json.loads(data)
        except ValueError:
            b = {}
        if not isinstance(b, dict):
            b = {}
        return KarteError(status, b.get("error") or data[:200].decode("utf-8", "replace"), b.get("field"),
                          b.get("index"), headers.get("X-Request-Id") if headers else None)

    def _get(self, path, params=None):
        q = "?" + urllib.parse.urlencode(params, doseq=True) if params else ""
        status, headers, data = self._request("GET", path + q)
        if status != 200:
            raise self._error(status, headers, data)
        return json.loads(data)

    # ---- posting ---------------------------------------------------------

    def post_runs(self, runs):
        """Store runs (dicts as the runs API takes them) and return their
        ids in order. A run without an idempotency_key gets one, so a
        retried body is stored once. A 4xx raises KarteError (nothing of the
        body is stored); after `retries` connection errors or 5xx answers
        the runs are spooled, a warning says where, and [] is returned."""
        runs = [dict(r) for r in runs]
        if not runs:
            return []
        for r in runs:
            r.setdefault("idempotency_key", "py-" + uuid.uuid4().hex)
        body = "".join(json.dumps(r, separators=(",", ":"), allow_nan=False) + "\n" for r in runs).encode()
        if len(body) > BODY_MAX:
            raise KarteError(413, f"the body is {len(body)} bytes, karted takes at most {BODY_MAX}; "
                                  "post the runs in parts")
        ids = self._deliver(body)
        if ids is None:
            where = self._spool(body)
            warnings.warn(f"karted did not take the runs; they wait in {where} "
                          "(send them with Client.flush() or karte-collect flush)", stacklevel=2)
            return []
        return ids

    def _deliver(self, body):
        """POST body: its ids, or None when it should be spooled."""
        for attempt in range(self.retries):
            try:
                status, headers, data = self._request("POST", "/api/v1/runs", body, "application/x-ndjson")
            except KarteError:
                status, headers, data = 0, None, b""
            if status in (200, 201):
                return json.loads(data)["ids"]
            if 400 <= status < 500:
                raise self._error(status, headers, data)
            if attempt + 1 < self.retries:
                wait = 0.5 * 2 ** attempt
                if headers is not None and (headers.get("Retry-After") or "").isdigit():
                    wait = min(float(headers["Retry-After"]), 30.0)
                time.sleep(wait)
        return None

    def _spool(self, body):
        os.makedirs(self.spool_dir, mode=0o700, exist_ok=True)
        now = time.time()
        name = f"{int(now)}.{int(now % 1 * 1e9):09d}-{uuid.uuid4().hex[:16]}.ndjson"
        tmp = os.path.join(self.spool_dir, "." + name + ".tmp")
        with open(tmp, "wb") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        final = os.path.join(self.spool_dir, name)
        os.rename(tmp, final)
        return final

    def flush(self):
        """Send what waits in the spool, oldest first: the number of runs
        stored. A file karted still cannot take stays; one it refuses (4xx)
        raises KarteError and stays too."""
        if not os.path.isdir(self.spool_dir):
            return 0
        sent = 0
        for name in sorted(n for n in os.listdir(self.spool_dir) if n.endswith(".ndjson") and n[0] != "."):
            path = os.path.join(self.spool_dir, name)
            with open(path, "rb") as f:
                body = f.read()
            ids = self._deliver(body)
            if ids is None:
                break
            os.remove(path)
            sent += len(ids)
        return sent

    # ---- reading ---------------------------------------------------------

    def _series(self, system, application, variant, labels):
        q = {"system": system, "application": application}
        if variant is not None:
            q["variant"] = variant
        for k, v in (labels or {}).items():
            q[f"label.{k}"] = v
        return q

    def _each_run(self, system, application, variant, labels):
        q = dict(self._series(system, application, variant, labels), limit=PAGE)
        while True:
            page = self._get("/api/v1/runs", q)
            yield from page["runs"]
            if not page.get("next"):
                return
            q["after"] = page["next"]

    def runs(self, system, application, variant="", labels=None):
        """The runs of a series (variant None: every variant), newest first,
        as a DataFrame: one row per run, the run's fields as columns, each
        label a column label.K; regions stay a list in column regions. A
        list of dicts (labels flattened alike) when pandas is missing."""
        rows = []
        for r in self._each_run(system, application, variant, labels):
            row = {k: v for k, v in r.items() if k != "labels"}
            for k, v in (r.get("labels") or {}).items():
                row[f"label.{k}"] = v
            rows.append(row)
        return _frame(rows, ["id", "system", "application", "variant", "p", "n", "tau", "chi"])

    def regions(self, system, application, variant="", labels=None):
        """The regions of the series' runs in long form: one row per run and
        region, columns run_id, p, n, region, time_s, energy_j (NaN when the
        run gave none), power_w and frequency_mhz when any run has them."""
        rows = []
        for r in self._each_run(system, application, variant, labels):
            for g in r.get("regions") or []:
                row = {"run_id": r["id"], "p": r["p"], "n": r["n"], "region": g.get("name"),
                       "time_s": g.get("time_s"), "energy_j": g.get("energy_j")}
                for extra in ("power_w", "frequency_mhz"):
                    if extra in g:
                        row[extra] = g[extra]
                rows.append(row)
        return _frame(rows, ["run_id", "p", "n", "region", "time_s", "energy_j"])

    def model(self, system, application, metric="tau", parameters="p", variant="", resource="auto", **params):
        """The scaling model of a stored series (GET /api/v1/analysis/model)
        as a dict; resource is "auto" (the default: p x the metric when it
        falls at every step of p, as Extra-P 4.2 models strong scaling),
        True or False; params are the endpoint's other parameters (n, p,
        frequency_mhz, predict, ...)."""
        q = dict(self._series(system, application, variant, None), metric=metric, parameters=parameters,
                 resource=_resource(resource))
        q.update({k: v for k, v in params.items() if v is not None})
        return self._get("/api/v1/analysis/model", q)

    def model_points(self, points, parameters=("p",), predict=None, resource=False):
        """Model given points (POST /api/v1/analysis/model): points is a list
        of (coordinates, values) pairs, e.g. [((4,), [1.2, 1.22]), ...];
        resource False (the points as given), True or "auto"."""
        body = {"parameters": list(parameters),
                "points": [{"coordinates": list(c), "values": list(v)} for c, v in points]}
        _resource(resource)
        if resource is not False:
            body["resource"] = resource
        if predict:
            body["predict"] = [list(c) for c in predict]
        status, headers, data = self._request("POST", "/api/v1/analysis/model", json.dumps(body).encode(),
                                              "application/json")
        if status != 200:
            raise self._error(status, headers, data)
        return json.loads(data)


def _resource(resource):
    """The API's spelling of resource: True, False or "auto"."""
    if resource is True or resource is False:
        return "true" if resource else "false"
    if resource == "auto":
        return "auto"
    raise ValueError(f"resource must be True, False or 'auto', not {resource!r}")


def _frame(rows, first):
    """rows as a DataFrame with the columns first in front (every column
    there even without rows), or the rows themselves without pandas."""
    try:
        import pandas
    except ImportError:
        return rows
    cols = list(first) + sorted({k for r in rows for k in r} - set(first), key=_column_order)
    return pandas.DataFrame(rows, columns=cols)


def _column_order(name):
    return (name.startswith("label."), name)
