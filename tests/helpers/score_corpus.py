#!/usr/bin/env python3
"""score_corpus.py BIN DIR OUTDIR: the verdict of every DIR/<name>.tar.gz that
DIR/answers.json answers, one line each: "<name> right", "<name> miss WHY" or
"<name> wrong WHY" (a culprit outside culprit_allowed at confidence medium or
high). The answers' format is testdata/corpus's (README there)."""
import json, os, subprocess, sys

binp, corpus, out = sys.argv[1:4]
key = json.load(open(os.path.join(corpus, "answers.json")))

def norm_op(s):
    s = (s or "").upper().replace("NCCL:", "").replace("_BASE", "").replace("_", "").replace("INTOTENSOR", "")
    return {"REDUCESCATTERTENSOR": "REDUCESCATTER"}.get(s, s)

for name in sorted(k for k in key if not k.startswith("_")):
    exp = key[name]
    db = os.path.join(out, name + ".db")
    r = subprocess.run([binp, "ingest", os.path.join(corpus, name + ".tar.gz"), "-o", db, "-q", "--force"],
                       capture_output=True, text=True)
    if r.returncode > 1 or not os.path.exists(db):
        print(name, "miss", f"ingest exit {r.returncode}"); continue
    rep = subprocess.run([binp, "report", db, "--format", "json"], capture_output=True, text=True)
    try:
        v = json.loads(rep.stdout)["verdict"]
    except Exception:
        print(name, "miss", f"no verdict (report exit {rep.returncode})"); continue
    got = set(v.get("culprit_ranks") or [])
    why = []
    if got - set(exp["culprit_allowed"]) and v.get("confidence") in ("medium", "high"):
        print(name, "wrong", f"culprits {sorted(got)} ({v.get('confidence')}), allowed {exp['culprit_allowed']}")
        continue
    if v.get("outcome") != exp["outcome"]:
        why.append(f"outcome {v.get('outcome')} != {exp['outcome']}")
    if v.get("cause") not in exp["cause"]:
        why.append(f"cause {v.get('cause')} not in {exp['cause']}")
    if not set(exp["culprit_must"]) <= got or not got <= set(exp["culprit_allowed"]):
        why.append(f"culprits {sorted(got)} (must {exp['culprit_must']}, allowed {exp['culprit_allowed']})")
    if "pg" in exp and v.get("process_group") not in exp["pg"]:
        why.append(f"group {v.get('process_group')} not in {exp['pg']}")
    if "seq" in exp and v.get("seq") not in exp["seq"]:
        why.append(f"seq {v.get('seq')} not in {exp['seq']}")
    if "op" in exp and norm_op(v.get("op")) not in {norm_op(o) for o in exp["op"]}:
        why.append(f"op {v.get('op')} not in {exp['op']}")
    print(name, "right" if not why else "miss " + "; ".join(why))
