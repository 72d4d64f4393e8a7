#!/usr/bin/env python3
"""Tests of the collectors against a real karted on loopback: karte-collect
run (with a fake powercap tree that wraps around), the region library from
C, Fortran and MPI (mpirun -np 2), post of CSV/NDJSON, spooling while karted
is away and flush, and `import` of karte's own files and of a directory of
Score-P experiments through karted.

usage: tests/collectors.py --build build     prints 'N passed, M failed'
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cubex  # noqa: E402
from karted_proc import Karted, ROOT, Suite, expect, free_port, temp_dir  # noqa: E402

SUITE = Suite("collectors")
test = SUITE.test
OWN = os.path.join(ROOT, "tests", "data", "import")




class S:
    build = None
    k = None
    token = None
    tmp = None


def collect(*args, env=None, check=False, timeout=60):
    e = dict(os.environ, KARTE_URL=S.k.url, KARTE_TOKEN=S.token,
             KARTE_SPOOL_DIR=os.path.join(S.tmp, "spool"))
    e.update(env or {})
    return subprocess.run([os.path.join(S.build, "karte-collect")] + list(args), capture_output=True,
                          text=True, env=e, timeout=timeout, check=check)


def runs_of(system):
    out, cursor = [], None
    while True:
        s, b, _ = S.k.request("GET", f"/api/v1/runs?system={system}&limit=1000" + (f"&after={cursor}" if cursor else ""))
        out += b["runs"]
        cursor = b["next"]
        if not cursor:
            return out


def fake_powercap(root, pkg_uj, pkg_max, dram_uj, dram_max):
    """A powercap tree as sysfs has it: flat zones with name, energy_uj, max_energy_range_uj."""
    for zone, name, uj, mx in (("intel-rapl:0", "package-0", pkg_uj, pkg_max),
                               ("intel-rapl:0:0", "core", 5, 10 ** 9),
                               ("intel-rapl:0:1", "dram", dram_uj, dram_max)):
        d = os.path.join(root, zone)
        os.makedirs(d, exist_ok=True)
        for f, v in (("name", name), ("energy_uj", uj), ("max_energy_range_uj", mx)):
            with open(os.path.join(d, f), "w") as fh:
                fh.write(f"{v}\n")


@test
def run_measures_tau_and_rapl_with_wraparound():
    root = os.path.join(S.tmp, "powercap")
    # package counter runs 0..999999 uJ: from 999000 it wraps to 2000, 999 + 1 + 2000 uJ
    fake_powercap(root, 999000, 999999, 5000, 10 ** 12)
    script = (f"sleep 0.2; echo 2000 > {root}/intel-rapl:0/energy_uj; "
              f"echo 1005000 > {root}/intel-rapl:0:1/energy_uj; echo 9 > {root}/intel-rapl:0:0/energy_uj")
    r = collect("run", "--system", "rapl-sys", "--application", "app", "-p", "4", "-n", "1000",
                "--chi", "0.05", "--label", "queue=debug", "--", "sh", "-c", script,
                env={"KARTE_POWERCAP_ROOT": root})
    expect(r.returncode == 0, f"run posted ({r.returncode} {r.stderr})")
    got = runs_of("rapl-sys")
    expect(len(got) == 1, f"one run ({len(got)})")
    run = got[0]
    expect(abs(run["energy_j"] - (999 + 1 + 2000 + 1000000) * 1e-6) < 1e-12,
           f"package (wrapped) + DRAM, core left out ({run['energy_j']})")
    expect(0.2 <= run["tau"] < 2 and run["chi"] == 0.05 and run["p"] == 4 and run["n"] == 1000, f"tau, chi ({run})")
    expect(run["labels"]["queue"] == "debug" and run["labels"]["energy_domains"] == "package-0,dram", f"labels ({run['labels']})")
    expect(run["idempotency_key"].startswith("kc-"), "an idempotency key")


@test
def no_energy_says_which_file_and_why_and_the_rule_lets_a_group_read_it():
    """As a user, not root: an energy_uj of root alone is named with the
    reason and the rule that helps; deploy/karte-rapl.conf, applied by
    systemd-tmpfiles to a tree of its own, makes it readable by the group."""
    top = tempfile.mkdtemp(prefix="karte-rapl-")
    try:
        os.chmod(top, 0o755)
        root = os.path.join(top, "sys", "class", "powercap")
        fake_powercap(root, 100, 10 ** 9, 100, 10 ** 9)
        for zone in ("intel-rapl:0", "intel-rapl:0:1"):
            os.chmod(os.path.join(root, zone, "energy_uj"), 0o400)
        r = subprocess.run(["runuser", "-u", "nobody", "--", os.path.join(S.build, "karte-collect"), "run",
                            "--dry-run", "--system", "s", "--application", "a", "-p", "1", "-n", "1", "--", "true"],
                           capture_output=True, text=True, timeout=60, cwd=top,
                           env=dict(os.environ, KARTE_POWERCAP_ROOT=root, HOME=top))
        want = f"no energy: {root}/intel-rapl:0/energy_uj: Permission denied (root only since Linux 5.10"
        expect(r.stderr.count(want) == 1 and "deploy/karte-rapl.conf" in r.stderr,
               f"the file, the reason and the rule, once ({r.returncode} {r.stderr})")
        # the rule on a root of its own (its /etc names the group)
        os.makedirs(os.path.join(top, "etc"))
        with open(os.path.join(top, "etc", "passwd"), "w") as f:
            f.write("root:x:0:0:root:/root:/bin/sh\n")
        with open(os.path.join(top, "etc", "group"), "w") as f:
            f.write("root:x:0:\npower:x:990:\n")
        t = subprocess.run(["systemd-tmpfiles", f"--root={top}", "--create",
                            os.path.join(ROOT, "deploy", "karte-rapl.conf")], capture_output=True, text=True, timeout=60)
        st = [os.stat(os.path.join(root, z, "energy_uj")) for z in ("intel-rapl:0", "intel-rapl:0:1")]
        expect(t.returncode == 0 and all(x.st_mode & 0o777 == 0o440 and x.st_gid == 990 for x in st),
               f"readable by the group after the rule ({t.returncode} {t.stderr} {[oct(x.st_mode) for x in st]})")
    finally:
        shutil.rmtree(top, ignore_errors=True)


@test
def run_without_chi_stores_tau_alone_and_a_failing_command_nothing():
    empty = os.path.join(S.tmp, "no-powercap")
    os.makedirs(empty, exist_ok=True)
    r = collect("run", "--system", "tau-alone", "--application", "y", "-p", "2", "-n", "1", "--", "sleep", "0.2",
                env={"KARTE_POWERCAP_ROOT": empty})
    expect(r.returncode == 0 and r.stderr.count("tau alone") == 1, f"no chi: stored, said once ({r.returncode} {r.stderr})")
    expect(r.stderr.count(f"no energy: {empty}: no package or DRAM domain") == 1,
           f"no RAPL here: said once, with where it looked ({r.stderr})")
    got = runs_of("tau-alone")
    expect(len(got) == 1 and "chi" not in got[0] and 0.2 <= got[0]["tau"] < 5 and got[0]["p"] == 2,
           f"the run carries the measured tau and no chi ({got})")
    r = collect("run", "--system", "x", "--application", "y", "-p", "1", "-n", "1", "--chi", "0", "--", "false")
    expect(r.returncode == 1 and "no run posted" in r.stderr, f"a failing command posts nothing ({r.stderr})")
    expect(runs_of("x") == [], "nothing stored")


@test
def region_library_from_c():
    exe = os.path.join(S.tmp, "region_demo")
    subprocess.run(["cc", "-O2"] + S.cflags + ["-I", os.path.join(ROOT, "collectors"), os.path.join(ROOT, "tests/collectors/region_demo.c"),
                    os.path.join(S.build, "libkarte_region.a"), "-lpthread", "-lm", "-o", exe], check=True)
    root = os.path.join(S.tmp, "powercap-c")
    fake_powercap(root, 100, 10 ** 9, 100, 10 ** 9)
    trace = os.path.join(S.tmp, "trace.csv")
    r = collect("run", "--system", "region-c", "--application", "demo", "-p", "1", "-n", "10",
                "--", exe, "5", env={"KARTE_POWERCAP_ROOT": root, "KARTE_SAMPLE_MS": "5", "KARTE_TRACE": trace})
    expect(r.returncode == 0, f"posted ({r.stderr})")
    run = runs_of("region-c")[0]
    regs = {x["name"]: x for x in run["regions"]}
    expect(set(regs) == {"resid", "exchange"} and regs["resid"]["counters"]["calls"] == 5, f"regions ({regs})")
    expect(0.015 <= regs["resid"]["time_s"] < 0.5 and 0.008 <= regs["exchange"]["time_s"] < 0.5, "region times")
    # gamma: the computation regions only (exchange is overhead)
    expect(abs(run["gamma"] - regs["resid"]["time_s"]) < 1e-12, f"gamma = resid's time ({run['gamma']})")
    expect(run["tau"] >= regs["resid"]["time_s"] + regs["exchange"]["time_s"], "tau covers the regions")
    expect("energy_j" in regs["resid"], "region energy from RAPL")
    rows = open(trace).read().splitlines()
    expect(rows[0] == "t_s,power_w" and len(rows) >= 3, f"power sampled into the trace ({rows[:3]})")


@test
def region_library_records_the_call_tree():
    """A region opened inside another is its child: MPI_Allreduce under solve
    and under io are two paths, each posted with its path and accepted by
    karted; gamma takes the overhead inside computation out once; a thread
    opens at most 32 at once (the deepest path a run takes)."""
    exe = os.path.join(S.tmp, "region_tree")
    subprocess.run(["cc", "-O2"] + S.cflags + ["-I", os.path.join(ROOT, "collectors"),
                    os.path.join(ROOT, "tests/collectors/region_tree.c"), os.path.join(S.build, "libkarte_region.a"),
                    "-lpthread", "-lm", "-o", exe], check=True)
    r = collect("run", "--system", "region-tree", "--application", "demo", "-p", "1", "-n", "10", "--", exe,
                env={"KARTE_REGION_RAPL": "0"})
    expect(r.returncode == 0, f"every call answered as documented, posted ({r.stderr})")
    run = runs_of("region-tree")[0]
    regs = {tuple(x.get("path", [x["name"]])): x for x in run["regions"]}
    want = {("solve",), ("solve", "MPI_Allreduce"), ("io",), ("io", "MPI_Allreduce")}
    deep = [k for k in regs if k[0] == "d0"]
    expect(want <= set(regs) and len(deep) == 32 and max(map(len, deep)) == 32,
           f"the tree, and a chain of 32 ({sorted(regs)[:6]} {len(deep)})")
    expect(all(regs[k]["counters"]["calls"] == 3 for k in want) and regs[("solve", "MPI_Allreduce")]["name"] == "MPI_Allreduce",
           f"each path its own calls ({[regs[k]['counters'] for k in want]})")
    t = {k: regs[k]["time_s"] for k in want}
    expect(t[("solve",)] > t[("solve", "MPI_Allreduce")] >= 0.006 and t[("io",)] >= t[("io", "MPI_Allreduce")] >= 0.003,
           f"a child's time inside its parent's ({t})")
    d = sum(regs[k]["time_s"] for k in regs if len(k) == 1 and k[0] == "d0")
    expect(abs(run["gamma"] - (t[("solve",)] - t[("solve", "MPI_Allreduce")] + t[("io",)] - t[("io", "MPI_Allreduce")] + d))
           < 1e-9, f"gamma: computation less the overhead inside it ({run['gamma']} {t})")


@test
def regions_from_openmp_threads_merge_per_run_without_a_race():
    """4 OpenMP threads mark one region 50 times each: its calls are the sum
    (200), its time the longest thread's (about 50 x 2 ms, not 4 x that);
    built with ThreadSanitizer and run with Archer (OpenMP's synchronisation
    made known to it): any race in the library fails the run."""
    d = os.path.join(S.tmp, "omp")
    os.makedirs(d, exist_ok=True)
    exe = os.path.join(d, "region_omp")
    c = subprocess.run(["clang", "-fopenmp", "-fsanitize=thread", "-g", "-O1", "-std=c11", "-D_GNU_SOURCE",
                        f"-I{ROOT}/collectors", f"-I{ROOT}/server", os.path.join(ROOT, "tests/collectors/region_omp.c"),
                        os.path.join(ROOT, "collectors/region.c"), os.path.join(ROOT, "collectors/rapl.c"),
                        "-o", exe, "-lm"], capture_output=True, text=True, timeout=120)
    expect(c.returncode == 0, f"built with -fsanitize=thread ({c.stderr[-800:]})")
    out = os.path.join(d, "run.json")
    archer = sorted(glob.glob("/usr/lib/llvm-*/lib/libarcher.so"))[-1]  # libomp-dev's OpenMP tool for TSan
    r = subprocess.run([exe], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, KARTE_RESULTS=out, KARTE_REGION_RAPL="0", OMP_TOOL_LIBRARIES=archer,
                                TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1 exitcode=66"))
    expect(r.returncode == 0 and "ThreadSanitizer" not in r.stderr,
           f"no race ({r.returncode}: {r.stderr[-1500:]})")
    with open(out) as f:
        run = json.load(f)
    reg = {x["name"]: x for x in run["regions"]}
    step, serial = reg["step"], reg["serial"]
    expect(step["counters"]["calls"] == 200 and 0.1 <= step["time_s"] < 0.35,
           f"calls summed over threads, time the longest thread's ({step})")
    expect(serial["counters"]["calls"] == 1 and 0.02 <= serial["time_s"] < 0.2
           and abs(run["gamma"] - step["time_s"]) < 1e-9,
           f"one thread's region; overhead kept out of gamma ({serial}, gamma {run['gamma']})")


@test
def region_library_from_fortran():
    d = os.path.join(S.tmp, "fortran")
    os.makedirs(d, exist_ok=True)
    exe = os.path.join(d, "region_demo_f")
    subprocess.run(["gfortran", "-O1"] + S.cflags + ["-J", d, os.path.join(ROOT, "collectors/karte_region.f90"),
                    os.path.join(ROOT, "tests/collectors/region_demo.f90"), os.path.join(S.build, "libkarte_region.a"),
                    "-lpthread", "-o", exe], check=True, capture_output=True)
    out = os.path.join(d, "run.json")
    subprocess.run([exe], check=True, env=dict(os.environ, KARTE_RESULTS=out, KARTE_POWERCAP_ROOT=os.path.join(d, "none")))
    run = json.load(open(out))
    regs = {x["name"]: x for x in run["regions"]}
    expect(set(regs) == {"stencil", "halo"} and regs["stencil"]["counters"]["calls"] == 3, f"Fortran regions ({regs})")
    expect(abs(run["gamma"] - regs["stencil"]["time_s"]) < 1e-12 and "energy_j" not in run, "gamma; no RAPL here")


@test
def region_library_with_mpi():
    d = os.path.join(S.tmp, "mpi")
    os.makedirs(d, exist_ok=True)
    exe = os.path.join(d, "region_mpi")
    subprocess.run(["mpicc", "-O2"] + S.cflags + ["-I", os.path.join(ROOT, "collectors"), os.path.join(ROOT, "tests/collectors/region_mpi.c"),
                    os.path.join(S.build, "libkarte_region_mpi.a"), "-lpthread", "-lm", "-o", exe], check=True)
    out = os.path.join(d, "run.json")
    env = dict(os.environ, KARTE_RESULTS=out, KARTE_POWERCAP_ROOT=os.path.join(d, "none"),
               OMPI_MCA_plm_rsh_agent="", OMPI_MCA_btl="self,vader", OMPI_MCA_rmaps_base_oversubscribe="1")
    # Under the sanitizers: Open MPI unloads its components at MPI_Finalize, so
    # LeakSanitizer sees their caches as leaks of "<unknown module>" that no
    # suppression can name. Leak checks of the region code itself run in the
    # C and Fortran tests (same source); here ASan and UBSan still watch.
    forward = ["-x", "ASAN_OPTIONS=detect_leaks=0"] if S.cflags else []
    r = subprocess.run(["mpirun", "-np", "2", "--allow-run-as-root", "--oversubscribe"] + forward + [exe],
                       capture_output=True, text=True, env=env, timeout=120)
    expect(r.returncode == 0, f"mpirun ({r.returncode} {r.stderr[-3000:]})")
    run = json.load(open(out))
    regs = {x["name"]: x for x in run["regions"]}
    expect(run["p"] == 2, f"p = number of ranks ({run['p']})")
    # rank 1 sleeps 3 x 20 ms in compute, rank 0 3 x 10 ms: the maximum is kept
    expect(regs["compute"]["time_s"] >= 0.06, f"region time is the maximum over ranks ({regs['compute']})")
    expect(run["tau"] >= regs["compute"]["time_s"], "tau is the maximum over ranks")
    expect(abs(run["gamma"] - regs["compute"]["time_s"]) < 1e-12, "gamma from computation regions")


@test
def post_csv_whole_or_nothing():
    good = os.path.join(S.tmp, "good.csv")
    with open(good, "w") as f:
        f.write("p,n,tau,chi,label.queue\n1,100,10,1,\n2,100,5.5,1.2,short\n4,100,3,1.4,short\n")
    r = collect("post", "--system", "csv-sys", "--application", "md", good)
    expect(r.returncode == 0 and "3 runs stored" in r.stderr, f"CSV posted ({r.stderr})")
    got = runs_of("csv-sys")
    expect(len(got) == 3 and sorted(x["p"] for x in got) == [1, 2, 4], f"3 runs ({got})")
    expect(next(x for x in got if x["p"] == 2)["labels"] == {"queue": "short"}, "label columns")
    r = collect("post", "--system", "csv-sys", "--application", "md", good)
    expect(r.returncode == 0 and len(runs_of("csv-sys")) == 3, "posting the same file again stores nothing new")
    bad = os.path.join(S.tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("p,n,tau,chi\n1,100,10,1\n2,100,five,1\n4,100,3,1\n")
    r = collect("post", "--system", "csv-bad", "--application", "md", bad)
    expect(r.returncode == 1 and "bad.csv:3: tau" in r.stderr and "nothing of" in r.stderr, f"bad line named ({r.stderr})")
    with open(bad, "w") as f:
        f.write("p,n,tau,chi,colour\n1,100,10,1,red\n")
    r = collect("post", "--system", "csv-bad", "--application", "md", bad)
    expect(r.returncode == 1 and "unknown column 'colour'" in r.stderr, f"unknown column ({r.stderr})")
    with open(bad, "w") as f:
        f.write("p,n,tau,chi\n1,100,10,1\n2,100,5,9\n")
    r = collect("post", "--system", "csv-bad", "--application", "md", bad)
    expect(r.returncode == 1 and "chi" in r.stderr and "index" in r.stderr, f"karted's refusal shown ({r.stderr})")
    expect(runs_of("csv-bad") == [], "nothing of a bad file is stored")


@test
def post_json_and_ndjson():
    f1 = os.path.join(S.tmp, "runs.ndjson")
    with open(f1, "w") as f:
        for p in (1, 2):
            f.write(json.dumps({"p": p, "n": 10, "tau": 2 / p, "gamma": 1 / p}) + "\n")
    f2 = os.path.join(S.tmp, "runs.json")
    with open(f2, "w") as f:
        json.dump([{"p": 8, "n": 10, "tau": 1, "chi": 0.5}], f)
    r = collect("post", "--system", "json-sys", "--application", "md", f1, f2)
    expect(r.returncode == 0 and len(runs_of("json-sys")) == 3, f"NDJSON and JSON ({r.stderr})")
    # a dry run checks as karted would, and posts nothing
    r = collect("post", "--dry-run", "--system", "dry-sys", "--application", "md", f1, f2)
    expect(r.returncode == 0 and "2 runs karted would take" in r.stderr and "1 run karted would take" in r.stderr
           and len(r.stdout.splitlines()) == 3,
           f"a good dry run ({r.returncode} {r.stderr})")
    f3 = os.path.join(S.tmp, "bad.json")
    with open(f3, "w") as f:
        json.dump([{"p": 4, "n": 10, "tau": 1, "chi": 0.5}, {"p": 4, "n": 10, "tau": 1, "chi": 3}], f)
    r = collect("post", "--dry-run", "--system", "dry-sys", "--application", "md", f3)
    expect(r.returncode == 1 and "karted would refuse this: chi (3) must not exceed tau (1)" in r.stderr
           and "(field chi)" in r.stderr and r.stdout == "", f"a bad run is found by the dry run ({r.returncode} {r.stderr})")
    expect(runs_of("dry-sys") == [], "a dry run posts nothing")


@test
def spool_while_away_then_flush_once():
    spool = os.path.join(S.tmp, "spool-away")
    away = f"http://127.0.0.1:{free_port()}"
    f = os.path.join(S.tmp, "away.csv")
    with open(f, "w") as fh:
        fh.write("p,n,tau,chi\n1,50,4,0.5\n2,50,2.5,0.6\n")
    env = {"KARTE_URL": away, "KARTE_SPOOL_DIR": spool}
    r = collect("post", "--retries", "1", "--system", "spool-sys", "--application", "md", f, env=env)
    expect(r.returncode == 0 and "karte-collect flush" in r.stderr, f"spooled ({r.returncode} {r.stderr})")
    r = collect("run", "--retries", "0", "--system", "spool-sys", "--application", "md", "-p", "3", "-n", "50",
                "--chi", "0.1", "--", "sleep", "0.2", env=env)
    expect(r.returncode == 0, f"a run spooled too ({r.stderr})")
    files = glob.glob(os.path.join(spool, "*.ndjson"))
    expect(len(files) == 2, f"two spool files ({files})")
    r = collect("flush", env=env)
    expect(r.returncode == 2 and len(glob.glob(os.path.join(spool, "*.ndjson"))) == 2, "still away: kept")
    r = collect("flush", env={"KARTE_SPOOL_DIR": spool})
    expect(r.returncode == 0 and "flushed 3 runs" in r.stderr, f"flushed ({r.stderr})")
    expect(glob.glob(os.path.join(spool, "*.ndjson")) == [], "spool empty")
    got = runs_of("spool-sys")
    expect(sorted(x["p"] for x in got) == [1, 2, 3], f"every run there once ({[x['p'] for x in got]})")
    r = collect("post", "--system", "spool-sys", "--application", "md", f)
    expect(len(runs_of("spool-sys")) == 3, "posting the spooled file again stores nothing twice")


@test
def import_cli_files_and_experiment_directories():
    src = os.path.join(OWN, "stencil.txt")
    chi = "Halo exchange (MPI_Sendrecv),Residual (MPI_Allreduce)"
    # options before and after FILE
    r = collect("import", src, "--system", "stencil-sys", "--application", "stencil", "--region", "Iterations",
                "--chi-regions", chi)
    expect(r.returncode == 0 and "50 runs from 25 points stored" in r.stderr and "(extrap-text)" in r.stderr,
           f"50 runs = 25 points x 2 repetitions ({r.stderr})")
    expect("sending" in r.stderr and "(100 %)" in r.stderr, f"a progress line ({r.stderr})")
    got = runs_of("stencil-sys")
    first = [x for x in got if x["p"] == 32 and x["n"] == 5000]
    # Iterations at (32, 5000): sweep 0.78125 (x 1.01) + halo 0.5 + allreduce 0.025
    expect(sorted(x["tau"] for x in first) == [1.30625, 1.3140625], f"both repetitions kept ({first})")
    for x in got:
        expect(0 < x["chi"] < x["tau"], f"chi = the named regions ({x['chi']})")
    s, b, _ = S.k.request("GET", "/api/v1/analysis/isoefficiency?system=stencil-sys&application=stencil")
    expect(s == 200 and len(b["points"]) == 25 and all(p["count"] == 2 for p in b["points"]), f"analysable ({s})")
    r = collect("import", "--system", "stencil-sys", "--application", "stencil", "--region", "Iterations",
                "--chi-regions", chi, src)
    expect(r.returncode == 0 and "nothing new" in r.stderr and len(runs_of("stencil-sys")) == 50,
           f"importing again stores nothing twice ({r.stderr})")
    r = collect("import", "--system", "s", "--application", "a", src)
    expect(r.returncode == 1 and "'Iterations'" in r.stderr and "root regions" in r.stderr and
           "nothing stored" in r.stderr, f"no region: refused, the roots listed, exit 1 ({r.stderr})")
    r = collect("import-extrap", os.path.join(OWN, "two-param.txt"), "--system", "s2",
                "--application", "a", "--p-param", "x", "--n-param", "y")
    expect(r.returncode == 0 and len(runs_of("s2")) == 125, f"import-extrap is import of extrap-text ({r.stderr})")
    r = collect("import", os.path.join(OWN, "strong.jsonl"), "--system", "s3", "--application", "a")
    expect(r.returncode == 0 and "n = 1 (--n-value N gives the problem size)" in r.stderr and
           {x["n"] for x in runs_of("s3")} == {1}, f"a one-parameter file: n = 1, said in the CLI's words ({r.stderr})")
    r = collect("import", os.path.join(OWN, "strong.jsonl"), "--system", "s4", "--application", "a",
                "--n-value", "100")
    expect(r.returncode == 0 and len(runs_of("s4")) == 25 and {x["n"] for x in runs_of("s4")} == {100},
           f"--n-value ({r.stderr})")
    r = collect("import", "/nonexistent/file.txt", "--system", "s", "--application", "a")
    expect(r.returncode == 2 and "cannot open" in r.stderr, f"a missing file ({r.stderr})")
    # a directory of Score-P experiment directories, as Score-P leaves them
    top = os.path.join(S.tmp, "scorep")
    for name, data in cubex.mm_set().items():
        os.makedirs(os.path.join(top, os.path.dirname(name)), exist_ok=True)
        with open(os.path.join(top, name), "wb") as f:
            f.write(data)
    with open(os.path.join(top, "mm.p2.n1000.r1", "scorep.cfg"), "w") as f:
        f.write("SCOREP_ENABLE_PROFILING=true\n")
    # a profile outside the folder linked in, and a link back up (a loop): neither followed
    outside = os.path.join(S.tmp, "outside")
    os.makedirs(os.path.join(outside, "mm.p16.n1000.r1"), exist_ok=True)
    with open(os.path.join(outside, "mm.p16.n1000.r1", "profile.cubex"), "wb") as f:
        f.write(next(iter(cubex.mm_set(ps=(16,), ns=(1000,), reps=(1,)).values())))
    os.symlink(os.path.join(outside, "mm.p16.n1000.r1"), os.path.join(top, "mm.p16.n1000.r1"))
    os.symlink(top, os.path.join(top, "mm.p2.n1000.r1", "loop"))
    r = collect("import", top, "--system", "cube-sys", "--application", "mm")
    expect(r.returncode == 0 and "12 profiles packed" in r.stderr and "(cube): 12 runs from 6 points" in r.stderr
           and "2 symbolic links skipped" in r.stderr and "follows no link" in r.stderr,
           f"import DIR: every profile in it, as one tar; the links skipped and said ({r.stderr})")
    expect(16 not in {x["p"] for x in runs_of("cube-sys")}, "the profile outside the folder is not sent")
    expect(sorted({(x["p"], x["n"]) for x in runs_of("cube-sys")}) ==
           [(2, 1000), (2, 2000), (4, 1000), (4, 2000), (8, 1000), (8, 2000)], "p and n from the names")
    os.makedirs(os.path.join(S.tmp, "empty"), exist_ok=True)
    r = collect("import", os.path.join(S.tmp, "empty"), "--system", "s", "--application", "a")
    expect(r.returncode == 2 and "no .cubex" in r.stderr, f"an empty directory said ({r.stderr})")


def bounded(cmd, env=None, timeout=60):
    """Run cmd; (exit code, stderr, peak RSS in MB) from the kernel's own
    accounting of that one child (wait4)."""
    e = dict(os.environ, KARTE_URL=S.k.url, KARTE_TOKEN=S.token,
             KARTE_SPOOL_DIR=os.path.join(S.tmp, "spool"))
    e.update(env or {})
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=e, text=True)
    try:
        err = p.stderr.read()
    finally:
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err, ru.ru_maxrss / 1024


@test
def the_tools_bound_their_input_as_karted_does():
    """/dev/zero as a file: refused at karted's own limit, naming it, in
    bounded memory (was 3.6 GB for import and 2.2 GB for karte plot)."""
    kc, karte = os.path.join(S.build, "karte-collect"), os.path.join(S.build, "karte")
    rc, err, mb = bounded([kc, "import", "/dev/zero", "--system", "s", "--application", "a"])
    expect(rc == 2 and "larger than 134217728 bytes" in err and "--max-import-body" in err and mb < 600,
           f"import of /dev/zero ({rc} {err.strip()} {mb:.0f} MB)")
    rc, err, mb = bounded([kc, "post", "/dev/zero"])
    expect(rc == 1 and "larger than 8388608 bytes" in err and "KARTE_MAX_BODY" in err and mb < 200,
           f"post of /dev/zero ({rc} {err.strip()} {mb:.0f} MB)")
    rc, err, mb = bounded([karte, "plot", "isoefficiency", "--csv", "/dev/zero", "-o",
                           os.path.join(S.tmp, "x.svg")])
    expect(rc == 1 and "--max-import-body" in err and mb < 600, f"karte plot --csv /dev/zero ({rc} {err.strip()} {mb:.0f} MB)")
    rc, err, mb = bounded([karte, "plot", "energy", "--model", "/dev/zero", "-o", os.path.join(S.tmp, "x.svg")])
    expect(rc == 1 and "larger than 2097152 bytes" in err and mb < 200, f"karte --model /dev/zero ({rc} {err.strip()})")
    # the limits follow karted's variables, as karted reads them
    f = os.path.join(S.tmp, "two.ndjson")
    with open(f, "w") as fh:
        for p in (1, 2):
            fh.write(json.dumps({"system": "bound", "application": "a", "p": p, "n": 1, "tau": 1.0}) + "\n")
    r = collect("post", f, env={"KARTE_MAX_BODY": "50"})
    expect(r.returncode == 1 and "larger than 50 bytes" in r.stderr, f"KARTE_MAX_BODY=50 ({r.stderr})")
    expect(runs_of("bound") == [], "nothing posted")
    r = collect("post", f)
    expect(r.returncode == 0 and len(runs_of("bound")) == 2, f"the same file under the default ({r.stderr})")


@test
def import_speaks_the_cli_flags():
    """karted's refusals of an import name what a request sends (p=NAME,
    n_value); karte-collect says the options the user types. A file of p
    alone imports at n = 1 with a warning; CSV takes --n-value; a CSV error
    names the file's line."""
    two = os.path.join(S.tmp, "two.txt")
    with open(two, "w") as f:
        f.write("PARAMETER x y\nPOINTS (1 2) (2 2)\nREGION r\nMETRIC time\nDATA 1\nDATA 2\n")
    r = collect("import", two, "--system", "flags", "--application", "a")
    expect(r.returncode == 1 and "(--p-param NAME)" in r.stderr and "p=NAME" not in r.stderr
           and "(--p-param)" in r.stderr, f"--p-param, not p=NAME ({r.stderr})")
    r = collect("import", two, "--system", "flags", "--application", "a", "--p-param", "x")
    expect(r.returncode == 1 and "(--n-param NAME) or give a constant --n-value" in r.stderr
           and "n_value" not in r.stderr, f"--n-param and --n-value ({r.stderr})")
    one = os.path.join(S.tmp, "one.txt")
    with open(one, "w") as f:
        f.write("PARAMETER p\nPOINTS 1 2 4\nREGION r\nDATA 8\nDATA 4\nDATA 2\n")
    r = collect("import", one, "--system", "flags", "--application", "one")
    expect(r.returncode == 0 and "every run gets n = 1 (--n-value N gives the problem size)" in r.stderr
           and [x["n"] for x in runs_of("flags")] == [1, 1, 1], f"p alone: n = 1 said ({r.stderr})")
    csvf = os.path.join(S.tmp, "nv.csv")
    with open(csvf, "w") as f:
        f.write("p,tau\n4,2.5\n8,fast\n")
    r = collect("import", csvf, "--system", "flags-csv", "--application", "a", "--n-value", "100")
    expect(r.returncode == 1 and "line 3: tau is 'fast'" in r.stderr, f"the file's line ({r.stderr})")
    with open(csvf, "w") as f:
        f.write("p,tau\n4,2.5\n8,1.5\n")
    r = collect("import", csvf, "--system", "flags-csv", "--application", "a", "--n-value", "100")
    expect(r.returncode == 0 and sorted(x["n"] for x in runs_of("flags-csv")) == [100, 100],
           f"CSV takes --n-value ({r.stderr})")


@test
def help_text():
    r = collect("--help")
    expect(r.returncode == 0 and "run [OPTIONS] -- CMD ARGS" in r.stdout and "KARTE_SPOOL_DIR" in r.stdout, "--help")
    r = collect("frob")
    expect(r.returncode == 2, "unknown command")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--cflags", default="", help="flags the test programs need (the sanitizers)")
    ap.add_argument("-k", dest="only")
    a = ap.parse_args()
    S.build = os.path.abspath(a.build)
    S.cflags = a.cflags.split()
    S.tmp = temp_dir("karte-collect-")
    S.k = Karted(os.path.join(S.build, "karted")).start()
    S.token = S.k.token("collectors")
    def stop():
        failed = S.k.stop_checked()
        shutil.rmtree(S.tmp, ignore_errors=True)
        return failed

    sys.exit(1 if SUITE.run(a.only, stop) else 0)


if __name__ == "__main__":
    main()
