#!/bin/sh
# `ncclforensic report`: Markdown, text and JSON reports of four corpus jobs
# pinned as goldens (tests/golden/report/); HTML well-formed (xmllint) with a
# timeline row per rank; the JSON's shape and key order; --redact; the same
# case giving the same bytes; a case without a verdict; a made-up 1,024-rank
# job whose reports collapse.
#
# Analysis tables a case lacks are filled from tests/fixtures/report_*.sql
# (every insert is guarded: what the analysis wrote wins). When the analysis
# changes, regenerate the goldens with one command:
#   NF_UPDATE_GOLDEN=1 NF_ONLY=t_report sh tests/run.sh
. tests/lib.sh

FIX=tests/fixtures
JOBS="stall kill mismatch_op bad_ifname"

# prepare JOB FIXTURE...: a copy of JOB's case in $TMP/report-JOB.db with the fixtures applied
prepare() {
	job=$1; shift
	src=$(ingest_case "$job")
	db="$TMP/report-$job.db"
	rm -f "$db"
	cp "$src" "$db"
	files=""
	for f in "$@"; do files="$files $FIX/$f"; done
	# shellcheck disable=SC2086
	check "report/$job/fixture" "$NF_BIN" sql --write "$db" "$(cat $files)"
}

no_match() { ! grep -Eq "$1" "$2"; }
# no line wider than W, but a quoted log line ("    > ", kept whole) or a
# single word longer than the line (a path, a setting's name: never cut)
max_width() { awk -v w="$1" 'length($0) > w && $0 !~ /^    > / && NF > 1 { bad = 1 } END { exit bad }' "$2"; }
# every word of the text report is a word of the Markdown one: nothing cut
# inside a word ("Watch" "dog", "TORCH_NCCL_DEBUG_INFO_TEM" "P_FILE")
words_whole() {
	tr -s ' \t' '\n\n' < "$1" | sed 's/^[>*`|(]*//; s/[.,:;)`|*]*$//' | grep -E '^[A-Za-z_]{6,}$' | sort -u > "$1.words"
	tr -d '\\' < "$2" | tr -s ' \t`*|()' '\n\n\n\n\n\n\n' | sed 's/^[>]*//; s/[.,:;]*$//' | sort -u > "$2.words"
	test -z "$(comm -23 "$1.words" "$2.words")"
}

for job in $JOBS; do
	prepare "$job" report_common.sql "report_$job.sql"
	db="$TMP/report-$job.db"
	for fmt in md text json; do
		out="$TMP/$job.$fmt"
		"$NF_BIN" report "$db" --format "$fmt" > "$out" 2> "$out.err"
		check_eq "report/$job/$fmt-exit" 0 "$?"
		check_golden "report/$job.$fmt" "$out"
	done
	j="$TMP/$job.json"
	check "report/$job/json-valid" jq -e . "$j"
	check_eq "report/$job/json-keys" "verdict,findings,missing,cascade,job,network,config,sysmsgs,ranks,sources,bandwidth" \
		"$(jq -r 'keys_unsorted | join(",")' "$j")"
	check_eq "report/$job/json-verdict-keys" \
		"outcome,cause,culprit_ranks,culprit_hosts,process_group,seq,op,first_failure_time,confidence,rule,summary,evidence" \
		"$(jq -r '.verdict | keys_unsorted | join(",")' "$j")"
	check_eq "report/$job/json-evidence-keys" "source,line,text" \
		"$(jq -r '[(.verdict.evidence + [.findings[].evidence[]])[] | keys_unsorted[0:3] | join(",")] | unique | join(";")' "$j")"
	check "report/$job/json-finding-keys" jq -e \
		'all(.findings[]; keys_unsorted[0:6] == ["kind","severity","ranks","hosts","summary","evidence"])' "$j"
	check "report/$job/json-culprits-marked" jq -e \
		'(.verdict.culprit_ranks | sort) == [.ranks[] | select(.culprit) | .rank]' "$j"
	check "report/$job/json-time-format" jq -e \
		'.verdict.first_failure_time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$")' "$j"

	h="$TMP/$job.html"
	"$NF_BIN" report "$db" --format html -o "$h"
	check_eq "report/$job/html-exit" 0 "$?"
	check "report/$job/html-wellformed" xmllint --noout "$h"
	check "report/$job/html-svg" grep -q '<svg xmlns="http://www.w3.org/2000/svg" class="timeline"' "$h"
	check_eq "report/$job/html-row-per-rank" "$(sql "$db" "SELECT count(*) FROM ranks")" \
		"$(grep -o '<g class="row rank' "$h" | wc -l | tr -d ' ')"
	check_eq "report/$job/html-culprit-rows" "$(jq '.verdict.culprit_ranks | length' "$j")" \
		"$(grep -o '<g class="row rank culprit" data-rank="[0-9]*"' "$h" | wc -l | tr -d ' ')"
	check "report/$job/html-first-failure" grep -q 'class="ff"' "$h"
	check "report/$job/html-self-contained" no_match '(src|href)="(https?:)?//|<script|@import|url\(' "$h"

	"$NF_BIN" report "$db" > "$TMP/$job.md2"
	"$NF_BIN" report "$db" --format html > "$TMP/$job.html2"
	check "report/$job/deterministic-md" cmp "$TMP/$job.md" "$TMP/$job.md2"
	check "report/$job/deterministic-html" cmp "$h" "$TMP/$job.html2"
	"$NF_BIN" report "$db" --format text --width 60 > "$TMP/$job.w60"
	check "report/$job/text-width-60" max_width 60 "$TMP/$job.w60"
	"$NF_BIN" report "$db" --format text --width 40 > "$TMP/$job.w40"
	check "report/$job/text-width-40-words-whole" words_whole "$TMP/$job.w40" "$TMP/$job.md"
done

# --redact: hosts, addresses, user paths and pids become aliases, the same ones everywhere
db="$TMP/report-stall.db"
"$NF_BIN" report "$db" --redact > "$TMP/stall.redact.md"
check_golden "report/stall.redact.md" "$TMP/stall.redact.md"
for fmt in md text json html; do
	r="$TMP/stall.redact.$fmt"
	"$NF_BIN" report "$db" --redact --format "$fmt" > "$r"
	check "report/redact/$fmt/no-host-names" no_match 'gpu-node' "$r"
	check "report/redact/$fmt/no-user-paths" no_match '/srv/|/home/' "$r"
	for pid in $(sql "$db" "SELECT pid FROM ranks"); do
		check "report/redact/$fmt/no-pid-$pid" no_match "(^|[^0-9.])$pid([^0-9]|\$)" "$r"
	done
	check "report/redact/$fmt/aliases" grep -q 'node-B' "$r"
done
check "report/redact/html-wellformed" xmllint --noout "$TMP/stall.redact.html"
check "report/redact/json-consistent" jq -e \
	'.verdict.culprit_hosts[0] as $h | ([.ranks[] | select(.culprit) | .host] | unique) == [$h] and ($h | startswith("node-"))' \
	"$TMP/stall.redact.json"
check "report/redact/json-pid-alias" jq -e 'all(.ranks[]; .pid | test("^pid-[0-9]+$"))' "$TMP/stall.redact.json"

# a case without a verdict (the analysis has not run): still a valid JSON verdict, exit 0
e="$TMP/report-empty.db"
cp "$db" "$e"
"$NF_BIN" sql --write "$e" "DELETE FROM verdict; DELETE FROM evidence; DELETE FROM findings; DELETE FROM cascade;" > /dev/null
"$NF_BIN" report "$e" --format json > "$TMP/empty.json"
check_eq "report/empty/json-exit" 0 "$?"
check "report/empty/json-unknown" jq -e '.verdict | .outcome == "unknown" and .cause == "unknown" and
	.culprit_ranks == [] and .culprit_hosts == [] and .process_group == null and .seq == null and .op == null and
	.first_failure_time == null and .evidence == []' "$TMP/empty.json"
for fmt in md text html; do
	"$NF_BIN" report "$e" --format "$fmt" > "$TMP/empty.$fmt"
	check_eq "report/empty/$fmt-exit" 0 "$?"
done
check "report/empty/html-wellformed" xmllint --noout "$TMP/empty.html"

# command line
"$NF_BIN" report "$TMP/no-such.db" > /dev/null 2>&1
check_eq "report/cli/missing-case" 3 "$?"
"$NF_BIN" report "$db" --format pdf > /dev/null 2>&1
check_eq "report/cli/bad-format" 2 "$?"
"$NF_BIN" report "$db" --format markdown -o "$TMP/stall.o.md"
check "report/cli/markdown-alias-and-o" cmp "$TMP/stall.o.md" "$TMP/stall.md"

# a made-up 1,024-rank job: Markdown under 300 lines and 1 s, the cascade collapsed, timeline rows collapsed
s=$(ingest_case stall)
m="$TMP/report-many.db"
rm -f "$m"
cp "$s" "$m"
check "report/many/fixture" "$NF_BIN" sql --write "$m" "$(cat $FIX/report_many.sql)"
t0=$(date +%s%N)
"$NF_BIN" report "$m" > "$TMP/many.md"
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
check "report/many/md-under-1s (${ms} ms)" test "$ms" -lt 1000
check "report/many/md-under-300-lines" test "$(wc -l < "$TMP/many.md")" -lt 300
check "report/many/cascade-collapsed" grep -q '| 0-515, 518-1023 (1022 ranks) |' "$TMP/many.md"
check_golden "report/many.md" "$TMP/many.md"
"$NF_BIN" report "$m" --format text > "$TMP/many.text"
check "report/many/text-collapsed" test "$(wc -l < "$TMP/many.text")" -lt 600
"$NF_BIN" report "$m" --format json > "$TMP/many.json"
check_eq "report/many/json-full-cascade" 2048 "$(jq '.cascade | length' "$TMP/many.json")"
"$NF_BIN" report "$m" --format html -o "$TMP/many.html"
check "report/many/html-wellformed" xmllint --noout "$TMP/many.html"
rows=$(grep -o '<g class="row' "$TMP/many.html" | wc -l | tr -d ' ')
check "report/many/html-rows-collapsed ($rows)" test "$rows" -ge 2 -a "$rows" -le 64
check "report/many/html-culprit-row" grep -q '<g class="row group culprit"' "$TMP/many.html"
"$NF_BIN" report "$m" --redact > "$TMP/many.redact.md"
check "report/many/redact-no-hosts" no_match 'gpu-node' "$TMP/many.redact.md"
check "report/many/redact-no-ips" no_match '(^|[^0-9.])10\.[0-9]+\.[0-9]+\.[0-9]+' "$TMP/many.redact.md"
check "report/many/redact-ip-aliases" grep -q 'ip-[0-9]' "$TMP/many.redact.md"
check "report/many/redact-xid-pid" grep -q 'pid=pid-518,' "$TMP/many.redact.md"
