#!/bin/sh
# The ingest of a small job, broken inputs and a query under valgrind: no
# memory error and no leak (definite, indirect or possible). Skipped, with a
# message, when valgrind is not installed or the binary is a sanitizer build.
. tests/lib.sh

if ! command -v valgrind > /dev/null 2>&1; then
	echo "skip t_valgrind: valgrind is not installed (contrib/install-deps.sh --test installs it)"
	exit 0
fi
if [ "${NF_ASAN:-}" = 1 ]; then
	echo "skip t_valgrind: the sanitizer build does not run under valgrind"
	exit 0
fi

V="$TMP/valgrind"
rm -rf "$V"
mkdir -p "$V/job"
# vg NAME ARGS...: runs the binary under valgrind; passes when valgrind found nothing.
# PCRE2's JIT code is opaque to valgrind: the regexes run interpreted here.
vg() {
	n=$1; shift
	NCCLFORENSIC_NO_JIT=1 valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible --log-file="$V/$n.vg" "$NF_BIN" "$@" \
		> "$V/$n.out" 2> "$V/$n.err"
	rc=$?
	if [ "$rc" -eq 99 ] || [ -s "$V/$n.vg" ]; then
		fail "valgrind/$n" "$(grep -m 3 -E 'Invalid|uninitialised|definitely|indirectly|possibly|ERROR' "$V/$n.vg" | tr '\n' ' ') (see $V/$n.vg)"
	else
		pass "valgrind/$n"
	fi
}

# a small real job, with its flight-recorder pickles and the analysis
vg ingest-job ingest testdata/corpus/mismatch_op.tar.gz -o "$V/job.db" -q
check_eq "valgrind/ingest-job/exit-0" 0 "$rc"
vg query sql "$V/job.db" "SELECT count(*), sum(length(text)) FROM lines"

# the error paths: refused and broken pickles, a damaged and a truncated archive,
# links, long lines, a catastrophic regex
for p in testdata/hostile/pickles/*.pkl; do
	cp "$p" "$V/job/nccl_trace_rank_$(basename "$p" .pkl)"
done
head -c 3000 testdata/corpus/stall.tar.gz > "$V/job/cut.tar.gz"
cp testdata/hostile/tarslip.tar.gz testdata/hostile/zipslip.zip "$V/job/"
ln -s /etc/passwd "$V/job/link"
{ head -c 200000 /dev/zero | tr '\0' 'z'; printf '\r\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\n'; } > "$V/job/long.log"
vg ingest-hostile ingest "$V/job" -o "$V/hostile.db" -q --grammar-dir testdata/hostile/grammars
check_eq "valgrind/ingest-hostile/exit-1" 1 "$rc"
head -c 5 testdata/corpus/stall.tar.gz > "$V/stub.tar.gz"
vg nothing ingest "$V/stub.tar.gz" -o "$V/nothing.db" -q
check_eq "valgrind/nothing/exit-3" 3 "$rc"
