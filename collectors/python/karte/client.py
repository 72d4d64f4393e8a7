"""The client (see the package's docstring and docs/guide.md)."""
from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import warnings
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._version import __version__

if TYPE_CHECKING:  # pandas is an extra: imported when a DataFrame is made
    import pandas

PAGE = 1000          # runs a page (the API's most)
BODY_MAX = 8 << 20   # bytes a POST body may have (karted's limit)

Run = Mapping[str, Any]
Resource = Union[bool, str]


class KarteError(Exception):
    """karted refused a request, or could not be asked. status is the HTTP
    status (0 when karted could not be reached), error its sentence, field
    the field it names (or None), index the run of a body it names (or
    None), request_id the id karted's log has it under. Catch a kind below,
    or this for any."""

    def __init__(self, status: int, error: str, field: Optional[str] = None, index: Optional[int] = None,
                 request_id: Optional[str] = None, retry_after: Optional[float] = None) -> None:
        self.status, self.error, self.field, self.index = status, error, field, index
        self.request_id = request_id
        self.retry_after = retry_after
        where = f" (field {field})" if field else ""
        super().__init__(f"karted answered {status}: {error}{where}" if status else error)


class ConnectionFailed(KarteError):
    """karted could not be reached (refused, timed out, no such host): status 0."""


class AuthError(KarteError):
    """401 or 403: the token is missing, unknown or revoked."""


class BadRequest(KarteError):
    """A 4xx about the request itself (400, 413, ...): field names what was
    wrong, index which run of a body; nothing of the body was stored."""


class NotFound(KarteError):
    """404: no such run or series."""


class Unavailable(KarteError):
    """503 (or another 5xx): karted or its database cannot serve now; try
    again after retry_after seconds (when karted said)."""


def _error_kind(status: int) -> type:
    if status == 0:
        return ConnectionFailed
    if status in (401, 403):
        return AuthError
    if status == 404:
        return NotFound
    if status >= 500:
        return Unavailable
    return BadRequest


class PostResult(list):
    """What post_runs did: a list of the ids stored, in the order posted
    (empty when the runs were spooled), with
      ids       the same ids, as a list;
      verdicts  the regression check's verdict of each run ("ok",
                "regression", "improvement", "new"), when karted gave them;
      alerts    the alerts the runs raised (dicts, as GET /api/v1/alerts);
      spooled   None when karted took the runs; else the spool file they
                wait in (send them with Client.flush or karte-collect flush).
    A spooled post is told from an empty one by spooled."""

    def __init__(self, ids: Sequence[int] = (), verdicts: Sequence[str] = (),
                 alerts: Sequence[Dict[str, Any]] = (), spooled: Optional[str] = None) -> None:
        super().__init__(ids)
        self.ids: List[int] = list(ids)
        self.verdicts: List[str] = list(verdicts)
        self.alerts: List[Dict[str, Any]] = list(alerts)
        self.spooled: Optional[str] = spooled


def _default_spool() -> str:
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "karte", "spool")


class Client:
    """A karted at url. token: a write token (KARTE_TOKEN by default),
    needed to post. retries: tries on a connection error or a 5xx before
    runs are spooled (into spool_dir, KARTE_SPOOL_DIR or karte-collect's
    default, in karte-collect's format: either sends them with flush)."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, timeout: float = 60,
                 retries: int = 4, spool_dir: Optional[str] = None) -> None:
        self.url: str = (url or os.environ.get("KARTE_URL") or "http://127.0.0.1:8080").rstrip("/")
        self.token: Optional[str] = token if token is not None else os.environ.get("KARTE_TOKEN")
        self.timeout = timeout
        self.retries = max(1, retries)
        self.spool_dir: str = spool_dir or os.environ.get("KARTE_SPOOL_DIR") or _default_spool()

    # ---- HTTP ------------------------------------------------------------

    def _request(self, method: str, path: str, body: Optional[bytes] = None,
                 ctype: Optional[str] = None) -> Tuple[int, Any, bytes]:
        """One request: (status, headers, bytes). Connection errors raise
        ConnectionFailed (status 0)."""
        headers = {"Accept": "application/json", "User-Agent": f"karte-python/{__version__}"}
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
            raise ConnectionFailed(0, f"karted at {self.url} cannot be reached: {getattr(e, 'reason', e)}")

    @staticmethod
    def _error(status: int, headers: Any, data: bytes) -> KarteError:
        try:
            b = json.loads(data)
        except ValueError:
            b = {}
        if not isinstance(b, dict):
            b = {}
        retry = headers.get("Retry-After") if headers else None
        return _error_kind(status)(status, b.get("error") or data[:200].decode("utf-8", "replace"),
                                   b.get("field"), b.get("index"),
                                   headers.get("X-Request-Id") if headers else None,
                                   float(retry) if retry and retry.replace(".", "", 1).isdigit() else None)

    def _get(self, path: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        q = "?" + urllib.parse.urlencode(params, doseq=True) if params else ""
        status, headers, data = self._request("GET", path + q)
        if status != 200:
            raise self._error(status, headers, data)
        return json.loads(data)

    # ---- posting ---------------------------------------------------------

    def post_runs(self, runs: Iterable[Run]) -> PostResult:
        """Store runs (dicts as the runs API takes them). A run without an
        idempotency_key gets one, so a retried body is stored once. Returns
        a PostResult: the ids in order (a list), the verdicts and alerts,
        or the spool file when karted did not take them. A 4xx raises its
        KarteError kind (nothing of the body is stored); after `retries`
        connection errors or 5xx answers the runs are spooled and a warning
        says where."""
        posted = [dict(r) for r in runs]
        if not posted:
            return PostResult()
        for r in posted:
            r.setdefault("idempotency_key", "py-" + uuid.uuid4().hex)
        body = "".join(json.dumps(r, separators=(",", ":"), allow_nan=False) + "\n" for r in posted).encode()
        if len(body) > BODY_MAX:
            raise BadRequest(413, f"the body is {len(body)} bytes, karted takes at most {BODY_MAX}; "
                                  "post the runs in parts", "body")
        answer = self._deliver(body)
        if answer is None:
            where = self._spool(body)
            warnings.warn(f"karted did not take the runs; they wait in {where} "
                          "(send them with Client.flush() or karte-collect flush)", stacklevel=2)
            return PostResult(spooled=where)
        return PostResult(answer.get("ids", []), answer.get("verdicts", []), answer.get("alerts", []))

    def _deliver(self, body: bytes) -> Optional[Dict[str, Any]]:
        """POST body: karted's answer, or None when it should be spooled."""
        for attempt in range(self.retries):
            try:
                status, headers, data = self._request("POST", "/api/v1/runs", body, "application/x-ndjson")
            except ConnectionFailed:
                status, headers, data = 0, None, b""
            if status in (200, 201):
                answer: Dict[str, Any] = json.loads(data)
                return answer
            if 400 <= status < 500:
                raise self._error(status, headers, data)
            if attempt + 1 < self.retries:
                wait = 0.5 * 2 ** attempt
                if headers is not None and (headers.get("Retry-After") or "").isdigit():
                    wait = min(float(headers["Retry-After"]), 30.0)
                time.sleep(wait)
        return None

    def _spool(self, body: bytes) -> str:
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

    def flush(self) -> int:
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
            answer = self._deliver(body)
            if answer is None:
                break
            os.remove(path)
            sent += len(answer.get("ids", []))
        return sent

    # ---- reading ---------------------------------------------------------

    def _series(self, system: str, application: str, variant: Optional[str],
                labels: Optional[Mapping[str, str]]) -> Dict[str, Any]:
        q: Dict[str, Any] = {"system": system, "application": application}
        if variant is not None:
            q["variant"] = variant
        for k, v in (labels or {}).items():
            q[f"label.{k}"] = v
        return q

    def _each_run(self, system: str, application: str, variant: Optional[str],
                  labels: Optional[Mapping[str, str]]) -> Iterable[Dict[str, Any]]:
        q = dict(self._series(system, application, variant, labels), limit=PAGE)
        while True:
            page = self._get("/api/v1/runs", q)
            yield from page["runs"]
            if not page.get("next"):
                return
            q["after"] = page["next"]

    def runs(self, system: str, application: str, variant: Optional[str] = "",
             labels: Optional[Mapping[str, str]] = None) -> "pandas.DataFrame":
        """The runs of a series (variant None: every variant), newest first,
        as a DataFrame: one row per run, the run's fields as columns (the
        times measured_at and created_at as UTC datetimes), each label a
        column label.K; regions stay a list in column regions (regions()
        gives them in long form). Needs pandas (the 'pandas' extra)."""
        pd = _pandas("runs")
        rows = []
        for r in self._each_run(system, application, variant, labels):
            row = {k: v for k, v in r.items() if k != "labels"}
            for k, v in (r.get("labels") or {}).items():
                row[f"label.{k}"] = v
            rows.append(row)
        df = _frame(pd, rows, ["id", "system", "application", "variant", "p", "n", "tau", "chi"])
        for col in ("measured_at", "created_at"):
            if col in df.columns:
                df[col] = pd.to_datetime(df[col], utc=True)
        return df

    def regions(self, system: str, application: str, variant: Optional[str] = "",
                labels: Optional[Mapping[str, str]] = None) -> "pandas.DataFrame":
        """The regions of the series' runs in long form: one row per run and
        region (call path), columns run_id, p, n, region (its own name),
        time_s, energy_j (NaN when the run gave none), path (the call path
        written "solve->MPI_Allreduce", the name alone for a first-level
        region), depth (1 for a first-level region), power_w and
        frequency_mhz when any run has them. Needs pandas (the 'pandas'
        extra)."""
        pd = _pandas("regions")
        rows = []
        for r in self._each_run(system, application, variant, labels):
            for g in r.get("regions") or []:
                path = g.get("path") or [g.get("name")]
                row = {"run_id": r["id"], "p": r["p"], "n": r["n"], "region": g.get("name"),
                       "time_s": g.get("time_s"), "energy_j": g.get("energy_j"), "path": "->".join(path),
                       "depth": len(path)}
                for extra in ("power_w", "frequency_mhz"):
                    if extra in g:
                        row[extra] = g[extra]
                rows.append(row)
        return _frame(pd, rows, ["run_id", "p", "n", "region", "time_s", "energy_j", "path", "depth"])

    def call_tree(self, system: str, application: str, variant: str = "", labels: Optional[Mapping[str, str]] = None,
                  resource: Resource = "auto", **params: Any) -> Dict[str, Any]:
        """Every call path of a stored series modelled and ranked (GET
        /api/v1/analysis/regions) as a dict: "root" (the model of tau),
        "paths" ranked by predicted share at at_p, each with path, depth,
        measured, model, growth, predicted and share_grows; params are the
        endpoint's others (metric, n, at_p, limit, ...)."""
        q = dict(self._series(system, application, variant, labels), resource=_resource(resource))
        q.update({k: v for k, v in params.items() if v is not None})
        return self._get("/api/v1/analysis/regions", q)

    def model(self, system: str, application: str, metric: str = "tau", parameters: str = "p",
              variant: str = "", resource: Resource = "auto", **params: Any) -> Dict[str, Any]:
        """The scaling model of a stored series (GET /api/v1/analysis/model)
        as a dict; resource is "auto" (the default: p x the metric when it
        falls at every step of p, as Extra-P 4.2 models strong scaling),
        True or False; params are the endpoint's other parameters (n, p,
        frequency_mhz, predict, ...)."""
        q = dict(self._series(system, application, variant, None), metric=metric, parameters=parameters,
                 resource=_resource(resource))
        q.update({k: v for k, v in params.items() if v is not None})
        return self._get("/api/v1/analysis/model", q)

    def model_points(self, points: Iterable[Tuple[Sequence[float], Sequence[float]]],
                     parameters: Sequence[str] = ("p",), predict: Optional[Iterable[Sequence[float]]] = None,
                     resource: Resource = False) -> Dict[str, Any]:
        """Model given points (POST /api/v1/analysis/model): points is a list
        of (coordinates, values) pairs, e.g. [((4,), [1.2, 1.22]), ...];
        resource False (the points as given), True or "auto"."""
        body: Dict[str, Any] = {"parameters": list(parameters),
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
        answer: Dict[str, Any] = json.loads(data)
        return answer


def _resource(resource: Resource) -> str:
    """The API's spelling of resource: True, False or "auto"."""
    if resource is True or resource is False:
        return "true" if resource else "false"
    if resource == "auto":
        return "auto"
    raise ValueError(f"resource must be True, False or 'auto', not {resource!r}")


def _pandas(what: str) -> Any:
    """pandas, or an ImportError that says which extra to install."""
    try:
        import pandas
    except ImportError as e:
        raise ImportError(f"karte.Client.{what}() returns a pandas DataFrame: install the 'pandas' extra "
                          "(pip install 'karte[pandas]', or Debian's python3-pandas)") from e
    return pandas


def _frame(pd: Any, rows: List[Dict[str, Any]], first: Sequence[str]) -> "pandas.DataFrame":
    """rows as a DataFrame with the columns first in front (every column
    there even without rows)."""
    cols = list(first) + sorted({k for r in rows for k in r} - set(first), key=_column_order)
    return pd.DataFrame(rows, columns=cols)


def _column_order(name: str) -> Tuple[bool, str]:
    return (name.startswith("label."), name)
