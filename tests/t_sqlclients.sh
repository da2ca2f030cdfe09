#!/bin/sh
# The case in every SQLite client (docs/schema.md): the extension
# (build/ncclforensic.so) gives sqlite3 and Python's sqlite3 the `lines`
# table and the helper functions, with the counts `ncclforensic sql` gives;
# `ncclforensic sql CASE` without a query is the sqlite3 shell on the case,
# read-only and with trusted_schema=OFF; a statement that changes the case
# needs --write; option mistakes get one line and a hint.
. tests/lib.sh

T="$TMP/sqlclients"
case $T in /*) ;; *) T="$NF_ROOT/$T" ;; esac
rm -rf "$T"
mkdir -p "$T"
EXT=${NF_EXT:-$NF_ROOT/build/ncclforensic}
db="$T/c.db"
"$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$db" -q > /dev/null 2>&1
check "sqlclients/ingest" test -s "$db"
check "sqlclients/extension-built" test -f "$EXT.so"

want_lines=$(sql "$db" "SELECT count(*) FROM lines")
check "sqlclients/lines-counted" test "$want_lines" -gt 0
check_eq "sqlclients/sqlite3/lines" "$want_lines" \
	"$(sqlite3 -readonly "$db" -cmd ".load $EXT" "SELECT count(*) FROM lines" 2>&1)"
check_eq "sqlclients/sqlite3/functions" "1970-01-01T00:00:00.000Z|3|hello|ALLREDUCE" \
	"$(sqlite3 -readonly "$db" -cmd ".load $EXT" \
		"SELECT iso_time(0), field('{\"a\":3}', 'a'), line_body('[rank3]:hello'), norm_op('allreduce')" 2>&1)"
# a view of the case that uses the extension's functions, with the schema distrusted
check_eq "sqlclients/sqlite3/innocuous" "$(sql "$db" "SELECT count(*) FROM events WHERE kind = 'nccl_comm_init'")" \
	"$(sqlite3 -readonly "$db" -cmd ".load $EXT" -cmd "PRAGMA trusted_schema=OFF" \
		"SELECT count(*) FROM lines l JOIN events e USING(source_id, line_no) WHERE field(e.fields, 'comm') IS NOT NULL AND e.kind = 'nccl_comm_init'" 2>&1)"
# Debian's python3 (a python of one's own may lack load_extension)
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
check_eq "sqlclients/python/lines" "$want_lines" "$("$py" -c '
import sqlite3, sys
con = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
con.enable_load_extension(True)
con.load_extension(sys.argv[2])
print(con.execute("SELECT count(*) FROM lines").fetchone()[0])
' "$db" "$EXT" 2>&1)"

# the shell: dot commands, multi-line statements, read-only
tables=$(printf '.tables\n' | "$NF_BIN" sql "$db" 2>&1)
check "sqlclients/shell/tables-lines" sh -c "printf '%s' '$tables' | grep -qw lines"
check "sqlclients/shell/tables-events" sh -c "printf '%s' '$tables' | grep -qw events"
check_eq "sqlclients/shell/multi-line" "$want_lines" "$(printf 'SELECT count(*)\n  FROM lines;\n' | "$NF_BIN" sql "$db" 2>&1)"
nv=$(sql "$db" "SELECT count(*) FROM verdict")
printf 'DELETE FROM verdict;\n' | "$NF_BIN" sql "$db" > "$T/shell-write.out" 2>&1
check "sqlclients/shell/read-only" grep -q "readonly" "$T/shell-write.out"
check_eq "sqlclients/shell/nothing-deleted" "$nv" "$(sql "$db" "SELECT count(*) FROM verdict")"
# a hostile view cannot reach the shell's writefile()
cp "$db" "$T/evil.db"
sql_write "$T/evil.db" "CREATE VIEW evil AS SELECT writefile('$T/pwned', 'x') AS w" > /dev/null 2>&1
printf 'SELECT * FROM evil;\n' | "$NF_BIN" sql "$T/evil.db" > "$T/evil.out" 2>&1
check "sqlclients/shell/view-no-writefile" test ! -e "$T/pwned"
check "sqlclients/shell/view-refused" grep -q "unsafe use of writefile" "$T/evil.out"

# with a query: read-only unless --write
"$NF_BIN" sql "$db" "DELETE FROM verdict" > /dev/null 2> "$T/del.err"
check_eq "sqlclients/query/write-refused-exit" 2 "$?"
check "sqlclients/query/write-refused-says" grep -q "read-only unless --write" "$T/del.err"
check_eq "sqlclients/query/nothing-deleted" "$nv" "$(sql "$db" "SELECT count(*) FROM verdict")"
cp "$db" "$T/w.db"
check "sqlclients/query/write-allowed" "$NF_BIN" sql --write "$T/w.db" "DELETE FROM verdict"
check_eq "sqlclients/query/deleted" 0 "$(sql "$T/w.db" "SELECT count(*) FROM verdict")"

# option mistakes: one line naming it, a hint, exit 2
"$NF_BIN" sql --frmat "$db" > /dev/null 2> "$T/opt.err"
check_eq "sqlclients/options/unknown-exit" 2 "$?"
check_eq "sqlclients/options/unknown" "ncclforensic: sql: unknown option '--frmat'|try 'ncclforensic sql --help'" \
	"$(paste -sd'|' "$T/opt.err")"
"$NF_BIN" sql "$db" "SELECT 1" extra more > /dev/null 2> "$T/extra.err"
check_eq "sqlclients/options/extra-exit" 2 "$?"
check_eq "sqlclients/options/extra" "ncclforensic: sql: unexpected arguments 'extra', 'more'" "$(head -n 1 "$T/extra.err")"
"$NF_BIN" sql > /dev/null 2> "$T/none.err"
check_eq "sqlclients/options/missing-exit" 2 "$?"
check "sqlclients/options/missing" grep -q "^ncclforensic: sql: missing the case" "$T/none.err"
check_eq "sqlclients/options/equals-form" "$want_lines" "$("$NF_BIN" sql --write "$db" "SELECT count(*) FROM lines" --tsv)"

# NCCLFORENSIC_EXTENSION: any path (a quote in it), any file name (the
# entry point is named, not guessed from the name)
odd="$T/it's here"
mkdir -p "$odd"
cp "$EXT.so" "$odd/renamed.so"
check_eq "sqlclients/shell/extension-env" "$want_lines" \
	"$(printf 'SELECT count(*) FROM lines;\n' | NCCLFORENSIC_EXTENSION="$odd/renamed.so" "$NF_BIN" sql "$db" 2>&1)"
NCCLFORENSIC_EXTENSION="$T/none.so" "$NF_BIN" sql "$db" < /dev/null > /dev/null 2> "$T/noext.err"
check_eq "sqlclients/shell/extension-missing-exit" 4 "$?"
check "sqlclients/shell/extension-missing-says" grep -q "SQLite extension" "$T/noext.err"
