#!/bin/sh
# Atomicity of the case file (docs/robustness.md): ingest is killed with
# SIGKILL at several moments; the target path then holds either nothing, the
# case that was there before, or a complete case, never a partial one; PRAGMA
# integrity_check is ok on every case found. SIGTERM removes the temporary
# file and writes no case.
. tests/lib.sh

A="$TMP/atomic"
rm -rf "$A"
mkdir -p "$A"
IN=testdata/corpus/big.tar.gz

schema_version=$("$NF_BIN" schema | sed -n '1s/.*schema version \([0-9]*\).*/\1/p')
now_ms() { date +%s%N | cut -c1-13; }
# case_complete NAME DB: DB is a whole case: integrity ok, meta written last, all lines
case_complete() {
	check_eq "atomic/$1/integrity" ok "$(sql "$2" "PRAGMA integrity_check")"
	check_eq "atomic/$1/complete" "$schema_version $want_lines" \
		"$(sql "$2" "SELECT (SELECT value FROM meta WHERE key='schema_version') || ' ' || (SELECT value FROM meta WHERE key='lines')")"
}

# a whole run, to know how long one takes and what a case_complete case holds
t0=$(now_ms)
"$NF_BIN" ingest "$IN" -o "$A/whole.db" -q > /dev/null 2>&1
check_eq "atomic/whole/exit-0" 0 "$?"
dur=$(($(now_ms) - t0))
want_lines=$(sql "$A/whole.db" "SELECT value FROM meta WHERE key='lines'")
check "atomic/whole/has-lines" test "${want_lines:-0}" -gt 0
case_complete whole "$A/whole.db"

# kill_at DB FRACTION: starts an ingest into DB, SIGKILLs it after FRACTION of a whole run
kill_at() {
	"$NF_BIN" ingest "$IN" -o "$1" -q > /dev/null 2>&1 &
	pid=$!
	sleep "$(awk -v d="$dur" -v f="$2" 'BEGIN{printf "%.3f", d * f / 1000}')"
	kill -KILL "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
}

# no case before: after the kill, none or a case_complete one
absent=0
for f in 0.02 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 0.95 1.1 4; do
	db="$A/fresh-$f.db"
	kill_at "$db" "$f"
	if [ -e "$db" ]; then
		case_complete "fresh-$f" "$db"
	else
		absent=$((absent + 1))
		pass "atomic/fresh-$f/absent"
	fi
done
check "atomic/fresh/some-kills-before-the-end ($absent)" test "$absent" -gt 0
# a kill long after a whole run's time is too late: the case is there (an
# ingest that cannot work would leave every case absent and pass the above)
check "atomic/fresh-4/written" test -f "$A/fresh-4.db"

# while the case is being written out (SQLite keeps it in memory until the
# commit): kill as soon as the temporary file grows
for k in 1 2 3; do
	db="$A/flush-$k.db"
	"$NF_BIN" ingest "$IN" -o "$db" -q > /dev/null 2>&1 &
	pid=$!
	grown=0
	while kill -0 "$pid" 2> /dev/null; do
		for t in "$A"/.flush-$k.db.tmp-*; do
			[ -s "$t" ] && grown=1 && break 2
		done
		sleep 0.005
	done
	kill -KILL "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	if [ -e "$db" ]; then
		case_complete "flush-$k" "$db"
	elif [ "$grown" = 1 ]; then
		pass "atomic/flush-$k/absent"
	else
		# it ended before its file grew, yet left no case: it failed
		fail "atomic/flush-$k/absent" "the ingest ended on its own without writing the case"
	fi
done

# a case already there: after the kill, the old one or the new one, whole
for f in 0.1 0.5 0.9; do
	db="$A/over-$f.db"
	cp "$A/whole.db" "$db"
	kill_at "$db" "$f"
	check "atomic/over-$f/still-there" test -f "$db"
	case_complete "over-$f" "$db"
done

# temporary files are the only leftovers of a kill, and never at the target
check "atomic/leftovers-are-temporary" test -z "$(ls_names "$A" | grep -v -e '^fresh-.*\.db$' -e '^flush-.*\.db$' -e '^over-.*\.db$' -e '^whole\.db$' -e '^\.[a-z0-9.-]*\.db\.tmp-......$')"

# SIGTERM in the middle: no case, no temporary file
"$NF_BIN" ingest "$IN" -o "$A/term.db" -q > /dev/null 2> "$A/term.err" &
pid=$!
# once its temporary case exists it handles the signal (a sanitizer build
# under load may take seconds just to start: up to 60 s are waited for, a
# signal sent before would test nothing)
for _ in $(seq 6000); do
	[ -n "$(ls_names "$A" | grep '^\.term\.db\.tmp-')" ] && break
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.01
done
sleep "$(awk -v d="$dur" 'BEGIN{printf "%.3f", d * 0.3 / 1000}')"
kill -TERM "$pid" 2> /dev/null
wait "$pid"
rc=$?
if [ "$rc" -eq 0 ]; then
	# the signal came after the last member: the case is whole
	case_complete term "$A/term.db"
else
	check_eq "atomic/term/exit-130" 130 "$rc"
	check "atomic/term/no-case" test ! -e "$A/term.db"
	check "atomic/term/says" grep -q "interrupted; no case written" "$A/term.err"
fi
check "atomic/term/no-temporary-left" test -z "$(ls_names "$A" | grep '^\.term\.db\.tmp-')"

# ---- temporary files of killed writers go; a running writer's stay ---------
S="$A/sweep"
mkdir -p "$S"
"$NF_BIN" ingest "$IN" -o "$S/killed.db" -q > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1000); do
	[ -n "$(ls_names "$S" | grep '^\.killed\.db\.tmp-')" ] && break
	kill -0 "$pid" 2> /dev/null || break
	sleep 0.005
done
kill -KILL "$pid" 2> /dev/null
wait "$pid" 2> /dev/null
left=$(ls_names "$S" | grep -c '^\.killed\.db\.tmp-')
check_eq "atomic/sweep/kill-leaves-one" 1 "$left"
# the next ingest into the directory removes it; a writer that is alive
# (stopped here) keeps its file while another ingest runs
"$NF_BIN" ingest "$IN" -o "$S/alive.db" -q > /dev/null 2> "$S/alive.err" &
alive=$!
for _ in $(seq 1000); do
	[ -n "$(ls_names "$S" | grep '^\.alive\.db\.tmp-')" ] && break
	sleep 0.005
done
kill -STOP "$alive"
"$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$S/next.db" -q > /dev/null 2> "$S/next.err"
check_eq "atomic/sweep/next-exit-0" 0 "$?"
check_eq "atomic/sweep/dead-removed" 0 "$(ls_names "$S" | grep -c '^\.killed\.db\.tmp-')"
# (the stopped ingest, started after the kill, is the one that swept it)
check "atomic/sweep/says" grep -q "killed\.db\.tmp-.*: removed a temporary file left by a writer that was killed" "$S/alive.err"
check_eq "atomic/sweep/alive-kept" 1 "$(ls_names "$S" | grep -c '^\.alive\.db\.tmp-')"
# someone else's file of the same shape (not a case) is left alone
printf 'not a case\n' > "$S/.notes.txt.tmp-abcdef"
"$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$S/next2.db" -q > /dev/null 2>&1
check "atomic/sweep/other-files-kept" test -f "$S/.notes.txt.tmp-abcdef"
kill -CONT "$alive"
wait "$alive"
check_eq "atomic/sweep/alive-finishes" 0 "$?"
case_complete sweep-alive "$S/alive.db"
check_eq "atomic/sweep/nothing-left" 0 "$(ls_names "$S" | grep -c '\.db\.tmp-')"

# ---- the case reaches the disk before its name does --------------------------
# (strace shows the order: the file's fsync, the rename, the directory's fsync)
# (not under the sanitizers: LeakSanitizer cannot run under ptrace)
if [ "${NF_ASAN:-}" != 1 ] && command -v strace > /dev/null 2>&1 && strace -f -o /dev/null true 2> /dev/null; then
	strace -f -e trace=fsync,fdatasync,rename,renameat,renameat2 -o "$A/sync.trace" \
		"$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$A/synced.db" -q > /dev/null 2>&1
	check_eq "atomic/fsync/exit-0" 0 "$?"
	order=$(grep -E 'fsync|rename' "$A/sync.trace" | grep -v 'resumed>' | sed -E 's/^[0-9]+ +//' |
		sed -E 's/^(f(data)?sync)\(.*/\1/; s/^rename[a-z0-9]*\(.*synced\.db.*/rename/' | grep -E '^(fsync|fdatasync|rename)$' | tr '\n' ' ')
	check "atomic/fsync/file-then-rename-then-dir ($order)" sh -c "printf '%s' '$order' | grep -Eq 'f(data)?sync rename f(data)?sync'"
else
	echo "skip atomic/fsync: strace cannot run here (or a sanitizer build)"
fi
