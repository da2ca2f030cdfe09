#!/bin/sh
# Scales every real job up with `synth` (copies of its nodes, FACTOR times
# its ranks) and compares the verdict on the copy with the verdict on the
# job: the same outcome and cause, and as culprits exactly the copies of the
# original's (rank r -> r + c*W). Prints one line per job ("same" or "DIFF",
# then both verdicts) and a count. Not part of `make test` (~8 minutes for
# testdata/realjobs); docs/DEVELOPING.md says what the differences left are.
#   sh tests/helpers/scale_verdicts.sh [DIR] [FACTOR]   (default testdata/realjobs 4)
set -u
cd "$(dirname "$0")/../.." || exit 2
DIR=${1:-testdata/realjobs}
FACTOR=${2:-4}
BIN=${NF_BIN:-./ncclforensic}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
same=0 diff=0
for job in "$DIR"/*.tar.gz; do
	name=$(basename "$job" .tar.gz)
	"$BIN" ingest "$job" -o "$T/o.db" -q > /dev/null 2>&1
	w=$("$BIN" sql "$T/o.db" "SELECT count(*) FROM ranks" --tsv 2> /dev/null | tail -n 1)
	if [ -z "$w" ] || [ "$w" -eq 0 ] ||
		! "$BIN" synth --from "$job" --ranks $((w * FACTOR)) -o "$T/s.tar.gz" -q > /dev/null 2>&1; then
		echo "skip $name (no ranks, or synth refused it)"
		continue
	fi
	"$BIN" ingest "$T/s.tar.gz" -o "$T/s.db" -q > /dev/null 2>&1
	q="SELECT outcome || ' ' || cause || ' ' || coalesce(culprit_ranks, '[]') FROM verdict"
	o=$("$BIN" sql "$T/o.db" "$q" --tsv | tail -n 1)
	s=$("$BIN" sql "$T/s.db" "$q" --tsv | tail -n 1)
	# the copies of the original's culprits
	exp=$("$BIN" sql "$T/o.db" "SELECT group_concat(r, ',') FROM (SELECT value + c.n * $w AS r
		FROM verdict, json_each(verdict.culprit_ranks), (WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL
		SELECT n + 1 FROM k WHERE n + 1 < $FACTOR) SELECT n FROM k) c ORDER BY r)" --tsv | tail -n 1)
	want="${o%% \[*} [$exp]"
	if [ "$(echo "$s" | tr -d ' ')" = "$(echo "$want" | tr -d ' ')" ]; then
		same=$((same + 1)); echo "same $name: $o"
	else
		diff=$((diff + 1)); echo "DIFF $name: $o | x$FACTOR: $s"
	fi
done
echo "$same same, $diff differ"
