# shellcheck shell=sh
# tests/lib.sh: helpers for the shell test files. Each check appends one
# "ok NAME" or "FAIL NAME" line to $NF_RESULTS and prints failures.
#   check NAME CMD...           passes when CMD exits 0
#   check_eq NAME EXPECTED GOT  passes when the strings are equal
#   check_golden NAME FILE      compares FILE with tests/golden/NAME (NF_UPDATE_GOLDEN=1 rewrites it)
#   sql CASE QUERY              runs a query with the binary under test (TSV, no header;
#                               tsv_unescape undoes its escapes)
#   sql_write CASE QUERY        the same, for a statement that changes the case (--write)
set -u
NF_BIN=${NF_BIN:-./ncclforensic}
NF_RESULTS=${NF_RESULTS:-/dev/null}
NF_TEST_OUT=${NF_TEST_OUT:-tests/out}
TMP="$NF_TEST_OUT/tmp.$$"
mkdir -p "$TMP"

pass() { echo "ok $1" >> "$NF_RESULTS"; [ -n "${NF_VERBOSE:-}" ] && echo "ok   $1"; return 0; }
fail() { echo "FAIL $1" >> "$NF_RESULTS"; echo "FAIL $1${2:+: $2}"; return 0; }

check() {
	name=$1; shift
	if "$@" > "$TMP/check.out" 2>&1; then pass "$name"; else fail "$name" "$(tail -n 5 "$TMP/check.out" | tr '\n' ' ')"; fi
}

check_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

check_golden() {
	g="tests/golden/$1"
	if [ "${NF_UPDATE_GOLDEN:-}" = 1 ]; then
		mkdir -p "$(dirname "$g")"
		cp "$2" "$g"
		pass "$1"
	elif [ ! -f "$g" ]; then
		fail "$1" "no golden file $g (run with NF_UPDATE_GOLDEN=1 to create it)"
	elif cmp -s "$g" "$2"; then
		pass "$1"
	else
		fail "$1" "differs from $g: $(diff "$g" "$2" | head -n 6 | tr '\n' ' ')"
	fi
}

sql() { "$NF_BIN" sql "$1" "$2" --tsv; }
# the names in a directory, one a line (dot files too): for grep
ls_names() { find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n'; }
sql_write() { "$NF_BIN" sql --write "$1" "$2" --tsv; }
# tsv_unescape: standard input to output with the TSV escapes of `sql --tsv`
# (\\ \t \n \r) undone, for values that hold backslashes (regexes, say)
tsv_unescape() { perl -pe 's/\\(.)/$1 eq "t" ? "\t" : $1 eq "n" ? "\n" : $1 eq "r" ? "\r" : $1/ge'; }

# The input tests' helpers (t_hostile, t_lossless): cases go to $ING_DIR,
# checks are named $ING_PREFIX/NAME/...
# ing NAME INPUT [ARGS...]: ingests INPUT into $ING_DIR/NAME.db; exit code in
# $rc, standard error in $ING_DIR/NAME.err
ing() {
	n=$1; in=$2; shift 2
	"$NF_BIN" ingest "$in" -o "$ING_DIR/$n.db" -q "$@" > "$ING_DIR/$n.out" 2> "$ING_DIR/$n.err"
	rc=$?
}
q() { sql "$ING_DIR/$1.db" "$2"; }
exit_is() { check_eq "$ING_PREFIX/$1/exit-$2" "$2" "$rc"; }
# says NAME WHAT PATTERN: standard error has a line matching PATTERN (grep -E)
says() { check "$ING_PREFIX/$1/says-$2" grep -Eq -- "$3" "$ING_DIR/$1.err"; }
# noloss NAME N: rows of lines + lines counted as skipped = N input lines
noloss() {
	check_eq "$ING_PREFIX/$1/no-line-lost" "$2" \
		"$(q "$1" "SELECT (SELECT count(*) FROM lines) + (SELECT coalesce(sum(skipped_lines),0) FROM sources)")"
}

# NF_WORKERS: how many jobs a loop over the real jobs checks at once (the
# CPUs, at most 4; NF_TEST_JOBS=N to choose)
NF_WORKERS=${NF_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$NF_WORKERS" -ge 1 ] 2>/dev/null || NF_WORKERS=1
[ "$NF_WORKERS" -gt 4 ] && NF_WORKERS=4

# nf_sampled TGZ N [EVERY]: whether the N-th job of a loop over the jobs is
# checked: the corpus's always, and one real job in EVERY (default 1: all);
# under the sanitizers (NF_ASAN=1) one in eight times that, which exercises
# the same code while keeping CI's two runs well under its 30 minutes
nf_sampled() {
	every=${3:-1}
	[ "${NF_ASAN:-}" = 1 ] && every=$((every * 8))
	case $1 in
	testdata/realjobs/*) [ $((($2 / NF_WORKERS) % every)) = 0 ] ;;
	*) return 0 ;;
	esac
}

# ingest_case NAME [SET]: ingests testdata/SET/NAME.tar.gz (SET: corpus, the
# default, or realjobs) once per run into $NF_TEST_OUT/cases/ (the ingest's
# exit code beside it, in NAME.rc)
ingest_case() {
	mkdir -p "$NF_TEST_OUT/cases"
	set_=${2:-corpus}
	case $set_ in corpus) db="$NF_TEST_OUT/cases/$1.db" ;; *) db="$NF_TEST_OUT/cases/$set_-$1.db" ;; esac
	if [ ! -f "$db" ]; then
		"$NF_BIN" ingest "testdata/$set_/$1.tar.gz" -o "$db" -q > "${db%.db}.ingest.out" 2>&1
		echo "$?" > "${db%.db}.rc"
	fi
	echo "$db"
}
