#!/usr/bin/env python3
"""bench/many-cores.py: the scale benchmark's core part on a machine where
nothing can be installed (a lent many-core host): the binary, bsdtar and
their libraries come in a kit (bench/make-kit.sh) and run through the kit's
own dynamic loader.

  python3 bench/many-cores.py KIT WORKDIR synth
      synthesizes big-1024 and stall-16384 from the corpus into WORKDIR
  python3 bench/many-cores.py KIT WORKDIR measure [JOBS...]
      measures, in one run: the floor (bsdtar -xOf), ingest --no-analyze at
      each --jobs (default 1 2 4 8 and the CPUs available), analyze, report
      --format json; median of 3 (the floor: minimum of 3; the 16,384-rank
      job: --jobs 8 and all CPUs, once each); "to verdict" is ingest at the
      default --jobs (the CPUs, at most 8) + analyze + report; prints a
      Markdown table and writes WORKDIR/many-cores.json

Times are wall seconds; peak RSS is the child's (getrusage)."""
import json
import os
import statistics
import subprocess
import sys
import time

kit, work, what = sys.argv[1], sys.argv[2], sys.argv[3]
kit = os.path.abspath(kit)
loader = os.path.join(kit, "ld-linux-x86-64.so.2")
env = dict(os.environ, NCCLFORENSIC_GRAMMARS="")


def run(tool, *args):
    """runs a kit tool; returns (wall s, cpu s, peak RSS MiB, exit status)"""
    cmd = [loader, "--library-path", kit, os.path.join(kit, tool)] + list(args)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    rc = os.waitstatus_to_exitcode(status)
    if rc not in (0, 1, 3):
        sys.stderr.write(f"{tool} {' '.join(args)}: exit {rc}\n{err[-2000:]}\n")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, rc, err


os.makedirs(work, exist_ok=True)
jobs = {"big-1024": ("big", 1024), "stall-16384": ("stall", 16384)}

if what == "synth":
    for name, (src, ranks) in jobs.items():
        out = os.path.join(work, name + ".tar.gz")
        if not os.path.exists(out):
            w, *_ = run("ncclforensic", "synth", "--from", f"testdata/corpus/{src}.tar.gz", "--ranks", str(ranks),
                        "-o", out)
            print(f"synth {name}: {w:.1f} s", flush=True)
    sys.exit(0)

ncpu = len(os.sched_getaffinity(0))
default_jobs = min(8, ncpu)
counts = sorted(set([int(j) for j in sys.argv[4:]] or [1, 2, 4, 8, ncpu]) | {default_jobs})
results = {"cpus": ncpu, "inputs": {}}
# the 16,384-rank job takes long: the default --jobs and all CPUs, once each
plan = {"big-1024": (counts, 3), "stall-16384": (sorted({default_jobs, ncpu}), 1)}
for name in jobs:
    tgz = os.path.join(work, name + ".tar.gz")
    case = os.path.join(work, name + ".db")
    jcounts, reps = plan[name]
    r = {"floor": min(run("bsdtar", "-xOf", tgz)[0] for _ in range(reps)), "ingest": {}, "runs": reps}
    for j in jcounts:
        runs = [run("ncclforensic", "ingest", "--no-analyze", "-q", "--force", "--jobs", str(j), "-o", case, tgz)
                for _ in range(reps)]
        r["ingest"][j] = {"wall": statistics.median(x[0] for x in runs),
                          "cpu": statistics.median(x[1] for x in runs),
                          "rss": max(x[2] for x in runs)}
        print(f"{name} ingest --jobs {j}: {r['ingest'][j]}", flush=True)
    # one more with the phases (NF_TIMINGS=1)
    env["NF_TIMINGS"] = "1"
    r["phases"] = run("ncclforensic", "ingest", "--no-analyze", "-q", "--force", "-o", case, tgz)[4]
    del env["NF_TIMINGS"]
    an = [run("ncclforensic", "analyze", "-q", case) for _ in range(reps)]
    r["analyze"] = {"wall": statistics.median(x[0] for x in an), "rss": max(x[2] for x in an)}
    rep = [run("ncclforensic", "report", case, "--format", "json", "-o", case + ".json") for _ in range(reps)]
    r["report"] = {"wall": statistics.median(x[0] for x in rep), "rss": max(x[2] for x in rep)}
    r["case_mb"] = os.path.getsize(case) / 2**20
    r["input_mb"] = os.path.getsize(tgz) / 2**20
    results["inputs"][name] = r
    print(f"{name}: {json.dumps(r)}", flush=True)

with open(os.path.join(work, "many-cores.json"), "w") as f:
    json.dump(results, f, indent=1)
print(f"\n{ncpu} CPUs")
print("| input | runs | floor s | " + " | ".join(f"ingest -j{j} s (x floor)" for j in counts) +
      " | analyze s | report s | to verdict s (x floor) | peak RSS MB |")
print("|" + "---|" * (7 + len(counts)))
for name, r in results["inputs"].items():
    verdict = r["ingest"][default_jobs]["wall"] + r["analyze"]["wall"] + r["report"]["wall"]
    rss = max([x["rss"] for x in r["ingest"].values()] + [r["analyze"]["rss"], r["report"]["rss"]])
    cell = lambda j: (f"{r['ingest'][j]['wall']:.2f} ({r['ingest'][j]['wall'] / r['floor']:.1f}x)"
                      if j in r["ingest"] else "-")
    print(f"| {name} | {r['runs']} | {r['floor']:.2f} | " + " | ".join(cell(j) for j in counts) +
          f" | {r['analyze']['wall']:.2f} | {r['report']['wall']:.2f} | {verdict:.2f} ({verdict / r['floor']:.1f}x) |"
          f" {rss:.0f} |")
