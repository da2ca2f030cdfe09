#!/bin/sh
# The command line behaves alike in every command (src/cmd_options.c):
# --opt=value and -ovalue, a missing value and an unknown option named in one
# line with a hint, extra arguments an error naming them, -V/--version
# everywhere, an unknown command one line and a hint, exit status 2 for every
# mistake; `ingest -` reads an archive or a log from standard input.
. tests/lib.sh

T="$TMP/cli"
case $T in /*) ;; *) T="$NF_ROOT/$T" ;; esac
rm -rf "$T"
mkdir -p "$T"
db="$T/c.db"
"$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$db" -q > /dev/null 2>&1
check "cli/ingest" test -s "$db"

# exit status and the first line of stderr of a command line
try() { "$NF_BIN" "$@" > "$T/out" 2> "$T/err"; echo "$? $(head -n 1 "$T/err")"; }

check_eq "cli/unknown-command" "2 ncclforensic: unknown command 'frob'" "$(try frob)"
check_eq "cli/unknown-command-one-hint" 2 "$(wc -l < "$T/err" | tr -d ' ')"
for cmd in ingest analyze report sql tui view grammar schema synth; do
	check_eq "cli/$cmd/version" "0 " "$(try "$cmd" -V)"
	check "cli/$cmd/version-text" grep -q '^ncclforensic [0-9]' "$T/out"
	check_eq "cli/$cmd/long-version" "0 " "$(try "$cmd" --version)"
	check_eq "cli/$cmd/unknown-option" "2 ncclforensic: $cmd: unknown option '--frob'" "$(try "$cmd" --frob)"
	check "cli/$cmd/hint" grep -q "^try 'ncclforensic $cmd --help'" "$T/err"
	check_eq "cli/$cmd/help" "0 " "$(try "$cmd" --help)"
	check "cli/$cmd/help-usage" grep -q "usage: ncclforensic $cmd" "$T/out"
done
check_eq "cli/version" "0 " "$(try -V)"
check_eq "cli/report/missing-value" "2 ncclforensic: report: option '--format' needs a value" "$(try report "$db" --format)"
check_eq "cli/ingest/missing-value" "2 ncclforensic: ingest: option '-o' needs a value" "$(try ingest x -o)"
check_eq "cli/report/bad-value" "2 ncclforensic: report: unknown format 'pdf' (md, text, json or html)" \
	"$(try report "$db" --format pdf)"
check_eq "cli/report/extra" "2 ncclforensic: report: unexpected argument 'more'" "$(try report "$db" more)"
check_eq "cli/analyze/extra" "2 ncclforensic: analyze: unexpected arguments 'a', 'b'" "$(try analyze "$db" a b)"
check_eq "cli/report/missing-case" "2 ncclforensic: report: missing the case to report on (CASE.db)" "$(try report)"
check_eq "cli/ingest/bad-ratio" "2 ncclforensic: ingest: --max-ratio 'x': wants a number above 0" "$(try ingest y --max-ratio x)"
# the forms of a value: --opt=value, --opt value, -ovalue, -o value, and options after the arguments
"$NF_BIN" report "$db" --format=json > "$T/a.json"
"$NF_BIN" report --format json "$db" > "$T/b.json"
"$NF_BIN" report -fjson "$db" > "$T/c.json"
"$NF_BIN" report "$db" -o "$T/d.json" -f json
check "cli/report/json" grep -q '"verdict"' "$T/a.json"
check "cli/report/forms-alike-1" cmp -s "$T/a.json" "$T/b.json"
check "cli/report/forms-alike-2" cmp -s "$T/a.json" "$T/c.json"
check "cli/report/forms-alike-3" cmp -s "$T/a.json" "$T/d.json"
"$NF_BIN" report "$db" -o"$T/e.json" --form=json
check "cli/report/short-joined-and-abbreviated" cmp -s "$T/a.json" "$T/e.json"
# a query that opens with an SQL comment is the query, not an option
check_eq "cli/sql/comment-query" 7 "$("$NF_BIN" sql "$db" "-- a comment
SELECT 7" --tsv)"

# ingest -: standard input, an archive or a log
"$NF_BIN" ingest - -o "$T/stdin.db" -q < testdata/corpus/stall.tar.gz > "$T/stdin.out" 2>&1
check_eq "cli/ingest-stdin/exit" 0 "$?"
check_eq "cli/ingest-stdin/same-verdict" "$(sql "$db" "SELECT outcome, cause, culprit_ranks FROM verdict")" \
	"$(sql "$T/stdin.db" "SELECT outcome, cause, culprit_ranks FROM verdict")"
printf 'node1:11:11 [0] NCCL INFO NCCL version 2.18.3+cuda12.1\n' | "$NF_BIN" ingest - -o "$T/stdin-log.db" -q > /dev/null 2>&1
check_eq "cli/ingest-stdin/log" "stdin|1" "$(sql "$T/stdin-log.db" "SELECT path || '|' || (SELECT count(*) FROM events WHERE kind = 'nccl_version') FROM sources")"
check_eq "cli/ingest-stdin/needs-output" "2 ncclforensic: ingest -: name the case with -o CASE.db" "$(try ingest - < /dev/null)"
