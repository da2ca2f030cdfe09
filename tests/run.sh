#!/bin/sh
# The test runner: unit tests (cmocka), the grammar self-test, and the shell
# test files tests/t_*.sh (which report through tests/lib.sh). Ends with the
# line "N passed, N failed"; exits non-zero when anything failed.
#   NF_BIN=path/to/ncclforensic   binary to test (default ./ncclforensic)
#   NF_ASAN=1                     sanitizer build: unit tests built with it too
#   NF_ONLY="t_ingest t_jobs"     run only the test files whose name matches one of these
#   NF_TSAN=1                     ThreadSanitizer build (make check-tsan)
set -u
cd "$(dirname "$0")/.." || exit 2
NF_BIN=${NF_BIN:-./ncclforensic}
export NF_BIN
export NF_ROOT="$PWD"
OUT=${NF_TEST_OUT:-tests/out}
rm -rf "$OUT"
mkdir -p "$OUT"
export NF_TEST_OUT="$OUT"
results="$OUT/results"
# selected NAME: NF_ONLY is empty or one of its words is part of NAME
selected() {
	[ -z "${NF_ONLY:-}" ] && return 0
	for w in $NF_ONLY; do
		case "$1" in *"$w"*) return 0 ;; esac
	done
	return 1
}
: > "$results"
export NF_RESULTS="$results"

# --- unit tests ---
CFLAGS_UNIT="-std=c11 -Wall -Wextra -D_GNU_SOURCE -g -O1 -Isrc $(pkg-config --cflags libpcre2-8 sqlite3 libarchive ncursesw libzstd cmocka)"
LIBS_UNIT="$(pkg-config --libs libpcre2-8 sqlite3 libarchive ncursesw libzstd cmocka) -lpthread -lm"
if [ "${NF_ASAN:-}" = 1 ]; then
	CFLAGS_UNIT="$CFLAGS_UNIT -fsanitize=address,undefined -fno-omit-frame-pointer"
	LIBS_UNIT="$LIBS_UNIT -fsanitize=address,undefined"
fi
srcs=""
for f in src/*.c; do
	case $f in src/main.c | src/sqlite_ext.c) ;; *) srcs="$srcs $f" ;; esac
done
mkdir -p "$OUT/unit"
for t in tests/unit/test_*.c; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .c)
	selected "$name" || continue
	if ! cc $CFLAGS_UNIT -o "$OUT/unit/$name" "$t" $srcs $LIBS_UNIT 2> "$OUT/unit/$name.build.log"; then
		echo "FAIL unit/$name (does not build; see $OUT/unit/$name.build.log)"
		echo "FAIL unit/$name" >> "$results"
		continue
	fi
	if (cd "$NF_ROOT" && "$OUT/unit/$name") > "$OUT/unit/$name.log" 2>&1; then st=0; else st=1; fi
	np=$(grep -Eo '\[  PASSED  \] [0-9]+' "$OUT/unit/$name.log" | awk '{s+=$NF} END {print s+0}')
	nf=$(grep -Eo '\[  FAILED  \] [0-9]+' "$OUT/unit/$name.log" | awk '{s+=$NF} END {print s+0}')
	if [ "$st" -ne 0 ] && [ "$nf" -eq 0 ]; then nf=1; fi
	i=0; while [ "$i" -lt "$np" ]; do echo "ok unit/$name" >> "$results"; i=$((i+1)); done
	i=0; while [ "$i" -lt "$nf" ]; do echo "FAIL unit/$name" >> "$results"; i=$((i+1)); done
	if [ "$nf" -gt 0 ]; then
		echo "FAIL unit/$name ($nf failed; see $OUT/unit/$name.log)"
		grep -E '\[  FAILED  \]|ERROR|error:|runtime error|Sanitizer' "$OUT/unit/$name.log" | head -20
	else
		echo "ok   unit/$name ($np)"
	fi
done

# --- shell test files ---
for t in tests/t_*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	selected "$name" || continue
	echo "== $name"
	t0=$(date +%s)
	sh "$t" || echo "FAIL $name (script exited with $?)" | tee -a "$results"
	echo "   ($name: $(($(date +%s) - t0)) s)"
done

passed=$(grep -c '^ok' "$results")
failed=$(grep -c '^FAIL' "$results")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
