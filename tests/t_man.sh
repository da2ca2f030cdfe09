#!/bin/sh
# The man page (man/ncclforensic.1): groff renders it without a warning, and
# it does not drift from the program: every command of `ncclforensic --help`
# has its section, every option printed by `ncclforensic CMD --help` is in
# that section, every environment variable the code reads, every exit code,
# every table of the schema and every SQL function is described.
. tests/lib.sh
page=man/ncclforensic.1

if command -v groff > /dev/null 2>&1; then
	groff -ww -man -z "$page" > "$TMP/groff.out" 2>&1
	check_eq "man/groff-exit" 0 "$?"
	check_eq "man/groff-warnings" "" "$(cat "$TMP/groff.out")"
else
	fail "man/groff" "groff is not installed (contrib/install-deps.sh --test installs groff-base)"
fi

# the page as plain text, roff escapes undone: \- is -, fonts are dropped
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(em/-/g' "$page" > "$TMP/page.txt"

# section NAME: the lines of ".SS NAME" up to the next .SS or .SH
section() {
	awk -v h=".SS $1" '$0 == h {on = 1; next} /^\.S[SH] / {on = 0} on' "$TMP/page.txt"
}

# options OUTPUT: the option names a --help text shows (-o, --output, ...)
options() {
	grep -oE '(^|[^A-Za-z0-9/._-])--?[A-Za-z][A-Za-z0-9-]*' | grep -oE -- '--?[A-Za-z][A-Za-z0-9-]*$' | sort -u
}

"$NF_BIN" --help > "$TMP/help.out" 2>&1
check_eq "man/help-exit" 0 "$?"
cmds=$(awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}' "$TMP/help.out")
check "man/help-lists-commands" test -n "$cmds"
for c in $cmds; do
	sec=$(section "$c")
	if [ -z "$sec" ]; then
		fail "man/command/$c" "no '.SS $c' section in $page"
		continue
	fi
	pass "man/command/$c"
	# a section may say it takes the options of another command (view: tui's)
	ref=$(printf '%s\n' "$sec" | awk '/options of$/ {getline; if ($1 == ".B") print $2}')
	[ -n "$ref" ] && sec="$sec
$(section "$ref")"
	"$NF_BIN" "$c" --help > "$TMP/help-$c.out" 2>&1
	check_eq "man/$c-help-exit" 0 "$?"
	missing=""
	for o in $(options < "$TMP/help-$c.out"); do
		printf '%s\n' "$sec" | grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" || missing="$missing $o"
	done
	check_eq "man/$c-options" "" "$missing"
done
for o in --help --version; do
	check "man/global$o" grep -qE -- "$o" "$TMP/page.txt"
done

# --version: the version the page's title line carries
v=$("$NF_BIN" --version)
check "man/version-output" sh -c "echo '$v' | grep -qE '^ncclforensic [0-9]+\.[0-9]+'"
check "man/version-in-title" grep -q "^\.TH NCCLFORENSIC 1 .*\"${v}\"" "$page"

# environment variables the code reads
envsec=$(awk '/^\.SH ENVIRONMENT/ {on = 1; next} /^\.SH / {on = 0} on' "$TMP/page.txt")
missing=""
for e in $(grep -ho 'getenv("[A-Za-z_0-9]*")' src/*.c | sed 's/getenv("\(.*\)")/\1/' | sort -u); do
	printf '%s\n' "$envsec" | grep -q "^\.B $e\$" || missing="$missing $e"
done
check_eq "man/environment" "" "$missing"

# exit codes of src/util.h
exitsec=$(awk '/^\.SH EXIT STATUS/ {on = 1; next} /^\.SH / {on = 0} on' "$TMP/page.txt")
missing=""
for n in $(grep -oE 'NF_EXIT_[A-Z]+ = [0-9]+' src/util.h | awk '{print $3}'); do
	printf '%s\n' "$exitsec" | grep -q "^\.B $n\$" || missing="$missing $n"
done
check_eq "man/exit-codes" "" "$missing"

# every table of the schema, in brief
dbsec=$(awk '/^\.SH THE CASE DATABASE/ {on = 1; next} /^\.SH / {on = 0} on' "$TMP/page.txt")
missing=""
for t in $("$NF_BIN" schema | sed -n 's/^CREATE \(VIRTUAL \)\{0,1\}TABLE \([a-z_]*\).*/\2/p'); do
	printf '%s\n' "$dbsec" | grep -qE "(^|[ ,])$t([ ,]|\$)" || missing="$missing $t"
done
check_eq "man/tables" "" "$missing"

# SQL functions registered for every connection
missing=""
for f in $(grep -o 'sqlite3_create_function(db, "[a-z_]*"' src/sql_functions.c | sed 's/.*"\(.*\)"/\1/'); do
	[ "$f" = regexp ] && f=REGEXP
	printf '%s\n' "$dbsec" | grep -q "$f" || missing="$missing $f"
done
check_eq "man/sql-functions" "" "$missing"

# it renders as a man page (man -l), when man is there
if command -v man > /dev/null 2>&1; then
	check "man/man-l" sh -c "MANWIDTH=80 man -l '$page' 2>/dev/null | grep -q 'EXIT STATUS'"
fi
