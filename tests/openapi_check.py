"""Every answer the suites get, held to docs/openapi.json.

karted_proc.Karted.request hands each exchange to check(): the route must
be in the description with its method, every query parameter sent must be
one it declares (a request refused with a 4xx may carry others: that is
what it tests), the answer's status must be one it lists (or one every
route may give: 401 with --read-token, 405, 413, 415, 421, 503), and a JSON answer must hold to
the schema of its status; a JSON body karted accepted (2xx) must hold to
the request's schema. What does not is kept in PROBLEMS, which Suite.run
reports as the failure of the test that met it. COVERED says which
operations answered 2xx, for a suite that must show every route.

Schemas are JSON Schema 2020-12 (OpenAPI 3.1's dialect), checked with the
jsonschema package (Debian's python3-jsonschema, any version from 4.0);
references are resolved here, so no resolver of either version's API is
needed.
"""
import json
import os
import re
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC_PATH = os.path.join(ROOT, "docs", "openapi.json")
ANY_ROUTE = {401, 405, 413, 415, 421, 503}   # statuses any route may answer (401: --read-token)
MAX_CHECKED = 1 << 20                    # answers larger are checked for their status only

# The benchmarks turn it off (openapi_check.ENABLED = False): their clocks
# must not count a schema check.
ENABLED = True
PROBLEMS = []
COVERED = set()
_spec = None
_routes = None
_validators = {}


def spec():
    global _spec
    if _spec is None:
        with open(SPEC_PATH) as f:
            _spec = json.load(f)
    return _spec


def _resolve(node, seen=()):
    """The schema with every local $ref replaced by what it names."""
    if isinstance(node, dict):
        if "$ref" in node:
            ref = node["$ref"]
            if ref in seen:
                raise ValueError(f"recursive $ref {ref}")
            target = spec()
            for part in ref.lstrip("#/").split("/"):
                target = target[part]
            return _resolve(target, seen + (ref,))
        return {k: _resolve(v, seen) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve(v, seen) for v in node]
    return node


def routes():
    """[(regex, method, path template, operation)] of the description."""
    global _routes
    if _routes is None:
        # made whole before it is published: tests' threads ask at once, and
        # one must not find the list half made
        made = []
        for path, item in spec()["paths"].items():
            rx = re.compile("^" + re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(path)) + "$")
            for method, op in item.items():
                made.append((rx, method.upper(), path, _resolve(op)))
        _routes = made
    return _routes


def operation(method, path):
    for rx, m, template, op in routes():
        if m == method and rx.match(path):
            return template, op
    return None, None


def _declared(op, key):
    for p in op.get("parameters", []):
        if p["in"] != "query":
            continue
        name = p["name"]
        if name == key or (name.endswith(".KEY") or name.endswith(".FIELD")) and key.startswith(name.split(".")[0] + "."):
            return True
    return False


def _validate(schema_key, schema, value):
    import jsonschema
    v = _validators.get(schema_key)
    if v is None:
        v = _validators[schema_key] = jsonschema.Draft202012Validator(schema)
    errors = sorted(v.iter_errors(value), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(str(x) for x in e.absolute_path) or '(top)'}: {e.message[:200]}" for e in errors[:3]]


def _media(ctype):
    return (ctype or "").split(";")[0].strip().lower()


def check(method, target, status, ctype, answer, req_body=None, req_ctype=None):
    """Hold one exchange to the description; what does not hold goes to
    PROBLEMS. answer is the parsed JSON (or bytes / None)."""
    if not ENABLED:
        return
    path, _, query = target.partition("?")
    where = f"{method} {target[:120]} -> {status}"
    if not path.startswith("/api/") and path != "/metrics":
        return                      # the UI's pages and files
    template, op = operation(method, path)
    if op is None:
        if status not in (404, 405):
            PROBLEMS.append(f"{where}: no such operation in docs/openapi.json")
        return
    if 200 <= status < 300:
        COVERED.add((method, template))
        for key, _ in urllib.parse.parse_qsl(query, keep_blank_values=True):
            if not _declared(op, key):
                PROBLEMS.append(f"{where}: query parameter {key} is not in the description")
    responses = op["responses"]
    r = responses.get(str(status))
    if r is None:
        if status not in ANY_ROUTE:
            PROBLEMS.append(f"{where}: status {status} is not in the description ({', '.join(responses)})")
        return
    media = _media(ctype)
    content = r.get("content", {})
    if content and media not in content and "*/*" not in content:
        PROBLEMS.append(f"{where}: content type {media} is not in the description ({', '.join(content)})")
        return
    schema = content.get(media, {}).get("schema")
    if schema is not None and media == "application/json" and not isinstance(answer, bytes) and answer is not None:
        if len(json.dumps(answer)) <= MAX_CHECKED:
            for e in _validate((method, template, status, media), schema, answer):
                PROBLEMS.append(f"{where}: answer {e}")
    body = op.get("requestBody")
    if body and 200 <= status < 300 and _media(req_ctype) == "application/json" and req_body is not None:
        schema = body["content"].get("application/json", {}).get("schema")
        if schema is not None:
            try:
                value = json.loads(req_body)
            except ValueError:
                return
            for e in _validate((method, template, "request"), schema, value):
                PROBLEMS.append(f"{where}: request body {e}")


def take_problems():
    """The problems found since the last call (and forget them)."""
    out = PROBLEMS[:]
    del PROBLEMS[:]
    return out
