#!/usr/bin/env python3
"""The rooms of the source tree and which may include which: fails when a
file includes a header of a room above its own (or beside it), or a file
lies in a room the table does not know.

usage: tests/layers.py        prints 'layers: N files, M includes, K refused'

It also refuses what would tie karte to a library's insides: a name of a
namespace libraries keep to themselves (detail::, internal::, __detail,
impl::) anywhere in the sources, C++ outside server/api (nothing the
collectors link may need a C++ runtime), and a server/core/pow10_table.h
other than what server/core/pow10_gen.py writes; and a function of more
than 80 lines in server/import/ or collectors/ (the readers of other
tools' files and what runs on compute nodes stay readable in parts).

A room's rank is its floor: a file may include its own room's headers
(bare: "store_impl.h") and those of rooms on lower floors, by path from
server/ or the top ("store/store.h", "analysis/isoeff.h"). The floors:

  4  server/main.c            karted's main: options, start, stop
  3  server/api/              handlers, the read pool, query and series loading
  3  server/cli/              karte, the offline tool
  2  server/track/            regressions on ingest, the alert webhook
  2  server/http/             libmicrohttpd, routing, lanes, answers
  1  server/store/            SQLite and PostgreSQL, the writer
  1  server/import/           other tools' files, OTF2 traces
  1  server/render/           charts and reports (Cairo, Pango)
  1  collectors/              karte-collect, the region library
  0  server/core/             runs, errors, buffers: shared with the collectors
  0  analysis/                libkarte_analysis: pure C, includes nothing of karte's
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOORS = {"server/main.c": 4, "server/api": 3, "server/cli": 3, "server/track": 2, "server/http": 2,
          "server/store": 1, "server/import": 1, "server/render": 1, "collectors": 1,
          "server/core": 0, "analysis": 0}
# rooms on floor 0 include nothing of another room, whatever its floor
ALONE = {"analysis", "server/core"}


def room_of(path):
    """The room of a file (a path from the top), or None."""
    if path in FLOORS:
        return path
    d = os.path.dirname(path)
    return d if d in FLOORS else None


def target_room(inc, src_dir):
    """The room a quoted include names, from the including file's folder."""
    if "/" not in inc:
        return room_of(os.path.join(src_dir, inc))
    for base in ("server", ""):
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.exists(os.path.join(ROOT, p)):
            return room_of(p)
    return None


LONG_ROOMS = {"server/import", "collectors"}
LONG_MAX = 80
FUNC = re.compile(r"^(?:static )?(?:inline )?(?:__attribute__\(\([^)]*\)\) )?[a-z][\w \*]*?\b(\w+)\(")


def long_functions(path, lines):
    """Functions of more than LONG_MAX lines, from their first line to the
    closing brace in column 0."""
    out, start, name = [], None, None
    for n, line in enumerate(lines, 1):
        m = FUNC.match(line)
        if m and not line.rstrip().endswith(";"):
            start, name = n, m.group(1)
        if line.rstrip("\n") == "}" and start is not None:
            if n - start + 1 > LONG_MAX:
                out.append(f"{path}:{start}: {name} is {n - start + 1} lines (at most {LONG_MAX} here)")
            start = None
    return out


PRIVATE = re.compile(r"\b(detail|internal|__detail|impl)::")
CXX_ROOMS = {"server/api"}


def main():
    refused, files, includes = [], 0, 0
    for top in ("server", "analysis", "collectors"):
        for dp, _, fn in os.walk(os.path.join(ROOT, top)):
            for f in sorted(fn):
                if not f.endswith((".c", ".h", ".cc", ".cpp", ".cxx")):
                    continue
                path = os.path.relpath(os.path.join(dp, f), ROOT)
                room = room_of(path)
                files += 1
                if room is None:
                    refused.append(f"{path}: in no room of tests/layers.py (add its folder to FLOORS)")
                    continue
                if f.endswith((".cc", ".cpp", ".cxx")) and room not in CXX_ROOMS:
                    refused.append(f"{path}: C++ outside {', '.join(sorted(CXX_ROOMS))}")
                with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
                    lines = fh.readlines()
                if room in LONG_ROOMS and f.endswith(".c"):
                    refused.extend(long_functions(path, lines))
                for n, line in enumerate(lines, 1):
                    if PRIVATE.search(line):
                        refused.append(f"{path}:{n}: a library's private namespace: {line.strip()}")
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    includes += 1
                    t = target_room(m.group(1), os.path.dirname(path))
                    if t is None:
                        refused.append(f"{path}:{n}: \"{m.group(1)}\" is in no room")
                    elif t == room:
                        continue
                    elif room in ALONE:
                        refused.append(f"{path}:{n}: {room} includes nothing of karte's, but \"{m.group(1)}\"")
                    elif FLOORS[t] >= FLOORS[room]:
                        refused.append(f"{path}:{n}: {room} (floor {FLOORS[room]}) includes "
                                       f"\"{m.group(1)}\" of {t} (floor {FLOORS[t]}): only rooms below")
    gen = subprocess.run([sys.executable, os.path.join(ROOT, "server/core/pow10_gen.py")],
                         capture_output=True, text=True, check=True).stdout
    with open(os.path.join(ROOT, "server/core/pow10_table.h"), encoding="utf-8") as fh:
        if fh.read() != gen:
            refused.append("server/core/pow10_table.h: not what server/core/pow10_gen.py writes")
    for r in refused:
        print("FAIL", r)
    print(f"layers: {files} files, {includes} includes, {len(refused)} refused")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
