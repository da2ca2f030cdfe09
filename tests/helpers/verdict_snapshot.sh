#!/bin/sh
# verdict_snapshot.sh OUT.jsonl: the verdict of every job of every corpus
# (testdata/corpus, realjobs, skewed, edited) and of every degraded variant
# tests/t_verdict.sh builds of them (NF_VARIANTS_EVERY=1: all of them), one
# JSON line each, sorted by job and variant ("label"). Not in `make test`
# (~15 minutes here): run it before and after a change to the diagnosis that
# must not change verdicts, and compare:
#   sh tests/helpers/verdict_snapshot.sh /tmp/before.jsonl   # on the old tree
#   sh tests/helpers/verdict_snapshot.sh /tmp/after.jsonl
#   diff /tmp/before.jsonl /tmp/after.jsonl
# tests/golden/verdicts.jsonl is the last snapshot taken (4,083 verdicts, the
# 438 excerpt variants included; before them 3,645 at
# the rule registry's change: every verdict as before but for the new
# "rule" and 15 "missing" entries no longer cut mid-word); after a change
# that should leave verdicts alone, a new snapshot must equal it.
set -u
cd "$(dirname "$0")/../.." || exit 2
out=${1:?usage: verdict_snapshot.sh OUT.jsonl}
case $out in /*) ;; *) out="$PWD/$out" ;; esac
dir=$(mktemp -d)
NF_TEST_OUT=${NF_TEST_OUT:-$dir/out} NF_VERDICT_SNAPSHOT="$dir/v" NF_VARIANTS_EVERY=1 NF_ONLY=t_verdict \
	sh tests/run.sh > "$dir/run.log" 2>&1
tail -n 1 "$dir/run.log" >&2
for f in "$dir"/v/*.json; do
	label=$(basename "$f" .json | tr '~' '/')
	printf '{"label":"%s","verdict":%s}\n' "$label" "$(tr -d '\n' < "$f")"
done | sort > "$out"
echo "$(wc -l < "$out") verdicts in $out" >&2
rm -rf "$dir"
