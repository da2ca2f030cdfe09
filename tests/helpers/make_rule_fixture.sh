#!/bin/sh
# make_rule_fixture.sh JOB.tar.gz OUT.sql.gz: a fixture of tests/diagnosis/
# from a real job: ingested, then the tables the diagnosis reads (and, of
# events, the kinds its rules' SQL names) written as INSERTs for an empty
# case (tests/helpers/rule_fixture.py). Write its .expect with
# NF_UPDATE_GOLDEN=1 NF_ONLY=t_rules sh tests/run.sh, and read it.
set -eu
cd "$(dirname "$0")/../.."
tgz=$1 out=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"${NF_BIN:-./ncclforensic}" ingest "$tgz" -o "$d/case.db" -q > /dev/null 2>&1 || true
cat src/diagnosis_*.c src/analysis_diagnosis.c src/diagnosis.h src/diagnosis_hang.h |
	grep -oE "'[a-z0-9_]+'" | tr -d "'" | sort -u > "$d/kinds"
python3 tests/helpers/rule_fixture.py "$d/case.db" "$d/kinds" | gzip -9n > "$out"
echo "$out: $(wc -c < "$out") bytes" >&2
