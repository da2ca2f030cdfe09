#!/usr/bin/env python3
"""readme_check.py README BIN SANDBOX: runs every `$ ncclforensic ...` command
the README shows in its code blocks and compares what it prints with what the
README shows under it (blanks and line breaks aside: the README may wrap a long
line). `$ cat FILE` blocks write FILE first, so the README's own examples are
the inputs. The sandbox holds job123.tar.gz. Prints one line per command:
"ok N CMD" or "FAIL N CMD" with the difference; exits 1 on a failure."""
import os, re, subprocess, sys

readme, binary, sandbox = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
text = open(readme, encoding="utf-8").read()
blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)
steps = []  # (command, expected lines)
for b in blocks:
    cur = None
    for line in b.split("\n"):
        if line.startswith("$ "):
            cur = [line[2:], []]
            steps.append(cur)
        elif cur is not None:
            cur[1].append(line)
    # a command this test cannot run (srun, a cluster's paths) and the
    # commands after it in its block, which read what it made, are skipped
    runnable = True
    for st in steps[len(steps) - sum(1 for l in b.split("\n") if l.startswith("$ ")):]:
        runnable = runnable and (st[0].startswith("ncclforensic ") or st[0].startswith("cat "))
        st.append(runnable)

def norm(lines):
    return " ".join(" ".join(lines).split())

failed = 0
n = 0
skipped = 0
for cmd, out, runnable in steps:
    if not runnable:
        skipped += cmd.startswith("ncclforensic ")
        continue
    m = re.match(r"cat (\S+)$", cmd)
    if m:  # the README shows a file: it is written, for the commands after it
        path = os.path.join(sandbox, m.group(1))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        body = out[:]
        while body and body[-1] == "":
            body.pop()
        open(path, "w").write("\n".join(body) + "\n")
        continue
    if not cmd.startswith("ncclforensic "):
        continue
    n += 1
    shown = cmd
    how = re.search(r"#\s*here as (.*?) prints it", cmd)
    cmd = re.sub(r"\s+#.*$", "", cmd)
    if how:
        cmd += " " + how.group(1)
    run = binary + cmd[len("ncclforensic"):]
    p = subprocess.run(["sh", "-c", run], cwd=sandbox, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    got = p.stdout.decode("utf-8", "replace").split("\n")
    want = [l for l in out]
    if p.returncode not in (0,) and "head" not in cmd:
        print(f"FAIL {n} {shown}: exit {p.returncode}: {norm(got)[:300]}")
        failed += 1
    elif norm(got) != norm(want):
        g, w = norm(got), norm(want)
        i = next((k for k in range(min(len(g), len(w))) if g[k] != w[k]), min(len(g), len(w)))
        print(f"FAIL {n} {shown}: differs at char {i}: README '{w[max(0, i - 40):i + 60]}' / printed '{g[max(0, i - 40):i + 60]}'")
        failed += 1
    else:
        print(f"ok {n} {shown}")
print(f"{n} commands run, {failed} differ, {skipped} skipped (they need a cluster)")
sys.exit(1 if failed or n == 0 else 0)
