#!/bin/sh
# Long public logs of other stacks (../shared/wild-long/, next to the
# checkout; not part of the project: copies of files other teams committed
# publicly). Skipped when the folder is absent. For every case: the
# important lines became events (at least 95%), the NCCL version, interface
# and transport were found where meta.json's expect names them, the ranks
# and hosts found match what meta.json says is visible (but for the gaps
# listed in tests/golden/wild-gaps.txt, which must stay gaps: a gap closed
# is a line to remove), and the verdicts: at least 14 of 18 right by the
# shared scorer, none confidently wrong.
. tests/lib.sh

wild="$NF_ROOT/../shared/wild-long"
if [ ! -d "$wild" ] || [ ! -x "$wild/run.sh" ]; then
	echo "skip t_wild: $wild is absent"
	exit 0
fi
case $NF_BIN in /*) bin=$NF_BIN ;; *) bin="$NF_ROOT/$NF_BIN" ;; esac
out="$TMP/wild"
mkdir -p "$out"
bash "$wild/run.sh" "$bin" "$out" > "$TMP/wild.txt" 2>&1
check_eq "wild/run-exit" 0 "$?"

# one line per case and fact that does not hold: "CASE FACT got=... want=..."
python3 - "$wild" "$out" > "$TMP/wild-gaps.txt" <<'PY'
import json, os, re, sys
wild, out = sys.argv[1], sys.argv[2]
def lead(s):
    m = re.match(r"\s*(\d+)", str(s or ""))
    return int(m.group(1)) if m else None
def named(s):
    # "8 nodes (only nid001044 named, ...)": the hosts a log can name
    m = re.search(r"only ([\w.,\- ]+?) named", str(s or ""))
    return len(re.split(r"\s*(?:,|\band\b)\s*", m.group(1).strip())) if m else lead(s)
for case in sorted(os.listdir(wild)):
    meta_p = os.path.join(wild, case, "meta.json")
    det_p = os.path.join(out, case + ".detail.json")
    if not os.path.exists(meta_p):
        continue
    if not os.path.exists(det_p):
        print(case, "detail missing"); continue
    meta, d = json.load(open(meta_p)), json.load(open(det_p))
    exp = meta.get("expect", {})
    imp, rec = d.get("important_lines") or 0, d.get("important_lines_recognised") or 0
    if imp and rec < 0.95 * imp:
        print(case, "important-lines", f"got={rec}/{imp}")
    if exp.get("nccl_version") and not d.get("nccl_versions"):
        print(case, "nccl-version", "got=none")
    if exp.get("bootstrap_if") and not d.get("bootstrap_ifs"):
        print(case, "bootstrap-if", "got=none")
    if exp.get("transport") and not d.get("transports"):
        print(case, "transport", "got=none")
    want_r, want_h = lead(meta.get("ranks_visible")), named(meta.get("hosts_visible"))
    got_r, got_h = len(d.get("ranks") or []), len(d.get("hosts") or [])
    if want_r is not None and got_r != want_r:
        print(case, "ranks", f"got={got_r} want={want_r}")
    if want_h is not None and got_h != want_h:
        print(case, "hosts", f"got={got_h} want={want_h}")
PY
check_eq "wild/facts-script" 0 "$?"
sed 's/ got=.*//' "$TMP/wild-gaps.txt" | sort > "$TMP/wild-gaps.keys"
grep -v '^#' tests/golden/wild-gaps.txt | sed 's/ *#.*//' | grep . | sort > "$TMP/wild-gaps.known"
check_eq "wild/new-gaps" "" "$(comm -23 "$TMP/wild-gaps.keys" "$TMP/wild-gaps.known" | tr '\n' ';')"
check_eq "wild/closed-gaps" "" "$(comm -13 "$TMP/wild-gaps.keys" "$TMP/wild-gaps.known" | tr '\n' ';')"

"$wild/../tools/score-wild" "$wild" --bin "$bin" > "$TMP/wild-score.txt" 2>&1
last=$(tail -n 1 "$TMP/wild-score.txt")
right=$(echo "$last" | sed -n 's/.*: \([0-9]*\) right.*/\1/p')
wrong=$(echo "$last" | sed -n 's/.* \([0-9]*\) wrong of.*/\1/p')
check "wild/at-least-14-right ($last)" test "${right:-0}" -ge 14
check_eq "wild/none-confidently-wrong" 0 "${wrong:-x}"
