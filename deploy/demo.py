#!/usr/bin/env python3
"""make demo: karted with example data, so a first look shows every chart.

usage: deploy/demo.py [--build build]

Starts karted as `make run` does (KARTE_LISTEN, default 127.0.0.1:8080), on
its own database (KARTE_DB, default data/demo.db), and loads, once:
- Orii's SP2 example (the paper's Table 1), and the same shifted as a second
  machine (T3E) to compare;
- K:mg, a two-region NPB-MG-like energy series: standard runs at 3000 MHz,
  optimised runs with per-region frequencies, and p = 1 runs at lower
  frequencies (Kimura's model);
- Stencil:jacobi, karte's own Extra-P text file (tests/data/import/
  stencil.txt: 25 points x 2 repetitions, its call tree as regions, the
  halo exchange and the allreduce as chi), imported with karte-collect;
- Score-P:mm, karte's own set of Score-P Cube profiles (tests/data/import/
  stencil-cubes.tar: 3 p x 2 n x 2 repetitions), imported the same way.
Then it prints where to look and serves until Ctrl-C (or SIGTERM).
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    a = ap.parse_args()
    build = os.path.join(ROOT, a.build)
    db = os.environ.get("KARTE_DB", os.path.join(ROOT, "data", "demo.db"))
    env = dict(os.environ, KARTE_DB=db)
    proc = subprocess.Popen([os.path.join(build, "karted"), "serve", "--no-first-token"], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    signal.signal(signal.SIGTERM, lambda *_: proc.send_signal(signal.SIGTERM))
    line = proc.stdout.readline()
    m = re.search(r"serving (http://\S+)/ ", line)
    if not m:
        proc.wait()
        sys.exit("demo: karted did not start (is the port taken? set KARTE_LISTEN)")
    url = m.group(1)
    with urllib.request.urlopen(url + "/api/v1/runs?system=SP2&application=md&limit=1") as r:
        loaded = json.load(r)["runs"] != []
    if not loaded:
        token = subprocess.run([os.path.join(build, "karted"), "token", "create", f"demo-{os.getpid()}", "--db", db],
                               capture_output=True, text=True, check=True).stdout.strip()
        with open(os.path.join(ROOT, "tests", "data", "examples.json")) as f:
            ex = json.load(f)
        req = urllib.request.Request(url + "/api/v1/runs", data=json.dumps(ex["runs"]).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + token})
        with urllib.request.urlopen(req) as r:
            print(f"demo: {len(json.load(r)['ids'])} example runs stored (SP2, T3E, K:mg)", flush=True)
        own = os.path.join(ROOT, "tests", "data", "import")
        collect = [os.path.join(build, "karte-collect"), "import", "--url", url, "--token", token]
        subprocess.run(collect + ["--system", "Stencil", "--application", "jacobi", "--region", "Iterations",
                                  "--chi-regions", "Halo exchange (MPI_Sendrecv),Residual (MPI_Allreduce)",
                                  os.path.join(own, "stencil.txt")], check=True)
        subprocess.run(collect + ["--system", "Score-P", "--application", "mm",
                                  os.path.join(own, "stencil-cubes.tar")], check=True)
    print(f"""demo: ready at {url}/
  {url}/series?system=SP2&application=md              Orii's example: tau-chi plane, SPS, C1/C3
  {url}/compare?series=SP2:md&series=T3E:md           two machines side by side
  {url}/series?system=K&application=mg                energy saved versus nodes, region shares
  {url}/series?system=Stencil&application=jacobi      an Extra-P file: its regions, chi from MPI
  {url}/series?system=Score-P&application=mm          Score-P Cube profiles
  {url}/methods                                       power caps, trace correction, power models
Ctrl-C stops karted (the database stays in {db}).""", flush=True)
    try:
        sys.exit(proc.wait())
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        sys.exit(proc.wait())


if __name__ == "__main__":
    main()
