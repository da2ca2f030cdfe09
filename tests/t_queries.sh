#!/bin/sh
# docs/queries.md: every ```sql block runs on the job its "-- job: NAME" line
# names (testdata/corpus/NAME.tar.gz, or the inventory test job) and prints
# exactly the ```text block that follows it. A query that uses neither the
# `lines` table nor the tool's SQL functions gives the same rows in plain
# sqlite3, as the page says. NF_UPDATE_GOLDEN=1 rewrites the outputs in the page.
. tests/lib.sh
TMP=$(cd "$TMP" && pwd)
case $NF_BIN in /*) ;; *) NF_BIN="$NF_ROOT/$NF_BIN" ;; esac
doc=docs/queries.md
q="$TMP/queries"
mkdir -p "$q"

# split the page: N.sql (the query), N.job, N.expected (the text block after it)
awk -v dir="$q" '
	/^```sql$/ { n++; insql = 1; next }
	insql && /^```$/ { insql = 0; want = 1; next }
	insql && /^-- job: / { print $3 > (dir "/" n ".job"); next }
	insql { print > (dir "/" n ".sql"); next }
	want && /^```text$/ { intext = 1; want = 0; printf "" > (dir "/" n ".expected"); next }
	intext && /^```$/ { intext = 0; next }
	intext { print > (dir "/" n ".expected") }
' "$doc"
n=$(ls "$q"/*.sql 2> /dev/null | wc -l)
check "queries/at-least-ten" test "$n" -ge 10

case_of() {
	if [ "$1" = inventory ]; then
		[ -f "$TMP/inv/inventory.db" ] || sh tests/helpers/inventory_case.sh "$TMP/inv" > /dev/null
		echo "$TMP/inv/inventory.db"
	else
		ingest_case "$1"
	fi
}

i=1
while [ "$i" -le "$n" ]; do
	job=$(cat "$q/$i.job" 2> /dev/null)
	if [ -z "$job" ] || [ ! -f "$q/$i.expected" ]; then
		fail "queries/$i" "no '-- job: NAME' line or no text block after the query"
		i=$((i + 1))
		continue
	fi
	db=$(case_of "$job")
	"$NF_BIN" sql "$db" "$(cat "$q/$i.sql")" > "$q/$i.got" 2>&1
	check_eq "queries/$i-$job-exit" 0 "$?"
	if [ "${NF_UPDATE_GOLDEN:-}" = 1 ]; then
		pass "queries/$i-$job-output"
	elif cmp -s "$q/$i.expected" "$q/$i.got"; then
		pass "queries/$i-$job-output"
	else
		fail "queries/$i-$job-output" "differs from $doc: $(diff "$q/$i.expected" "$q/$i.got" | head -n 6 | tr '\n' ' ')"
	fi
	check "queries/$i-has-rows" test "$(wc -l < "$q/$i.got")" -ge 3
	# plain sqlite3 where the query needs nothing of the tool's
	if command -v sqlite3 > /dev/null 2>&1 && ! grep -qE '\blines\b|iso_time|line_body|pci_from_bus_id|norm_op|REGEXP' "$q/$i.sql"; then
		"$NF_BIN" sql "$db" "$(cat "$q/$i.sql")" --tsv > "$q/$i.tsv" 2>&1
		sqlite3 -readonly -separator '	' -nullvalue '' "$db" < "$q/$i.sql" > "$q/$i.sqlite3.tsv" 2>&1
		check_eq "queries/$i-sqlite3" "" "$(diff "$q/$i.tsv" "$q/$i.sqlite3.tsv" | head -n 4)"
	fi
	i=$((i + 1))
done

if [ "${NF_UPDATE_GOLDEN:-}" = 1 ]; then
	awk -v dir="$q" '
		/^```sql$/ { n++ }
		want && /^```text$/ { print; while ((getline l < (dir "/" n ".got")) > 0) print l; skip = 1; want = 0; next }
		skip && /^```$/ { skip = 0 }
		skip { next }
		/^```$/ && n && !done[n]++ { want = 1 }
		{ print }
	' "$doc" > "$TMP/queries.md" && cp "$TMP/queries.md" "$doc"
fi
