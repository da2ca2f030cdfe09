#!/bin/sh
# The evidence and the outputs (docs/robustness.md): ingest never replaces
# its input nor a file that is not a case; cases are named after a
# directory's real name; a missing input is the input's fault; report -o is
# written beside its target and renamed (never through a symlink, never cut
# short under its name); a write that fails (a full disk, a file-size limit
# here) is said as such, with its own exit code, and leaves what was there.
. tests/lib.sh

E="$TMP/evidence"
case $E in /*) ;; *) E="$NF_ROOT/$E" ;; esac
case $NF_BIN in /*) bin=$NF_BIN ;; *) bin=$NF_ROOT/$NF_BIN ;; esac
rm -rf "$E"
mkdir -p "$E"
JOB=testdata/corpus/stall.tar.gz
sum() { md5sum < "$1"; }

# ---- -o never replaces the input nor a file that is not a case --------------
cp "$JOB" "$E/evid.tar.gz"
before=$(sum "$E/evid.tar.gz")
"$bin" ingest "$E/evid.tar.gz" -o "$E/evid.tar.gz" -q > /dev/null 2> "$E/self.err"
check_eq "evidence/output-is-input/exit-2" 2 "$?"
check_eq "evidence/output-is-input/input-intact" "$before" "$(sum "$E/evid.tar.gz")"
check "evidence/output-is-input/says" grep -q "evid.tar.gz is the input" "$E/self.err"
"$bin" ingest "$E/evid.tar.gz" -o "$E/evid.tar.gz" --force -q > /dev/null 2>&1
check_eq "evidence/output-is-input/even-forced" "$before" "$(sum "$E/evid.tar.gz")"
ln -s evid.tar.gz "$E/link-to-input"
"$bin" ingest "$E/evid.tar.gz" -o "$E/link-to-input" -q > /dev/null 2>&1
check_eq "evidence/output-links-to-input/exit-2" 2 "$?"
check_eq "evidence/output-links-to-input/intact" "$before" "$(sum "$E/evid.tar.gz")"

printf 'my notes\n' > "$E/notes.md"
"$bin" ingest "$E/evid.tar.gz" -o "$E/notes.md" -q > /dev/null 2> "$E/notes.err"
check_eq "evidence/not-a-case/exit-2" 2 "$?"
check_eq "evidence/not-a-case/kept" "my notes" "$(cat "$E/notes.md")"
check "evidence/not-a-case/says" grep -q "notes.md exists and is not a case: not replaced (--force to replace it)" "$E/notes.err"
"$bin" ingest "$E/evid.tar.gz" -o "$E/notes.md" --force -q > /dev/null 2>&1
check_eq "evidence/not-a-case/forced-exit-0" 0 "$?"
check_eq "evidence/not-a-case/forced-is-case" 1 "$(sql "$E/notes.md" "SELECT count(*) FROM verdict")"
# a case there is replaced, as before
"$bin" ingest "$E/evid.tar.gz" -o "$E/notes.md" -q > /dev/null 2>&1
check_eq "evidence/case-replaced/exit-0" 0 "$?"
mkdir -p "$E/adir"
"$bin" ingest "$E/evid.tar.gz" -o "$E/adir" -q > /dev/null 2>&1
check_eq "evidence/output-is-directory/exit-2" 2 "$?"

# ---- cases named after a directory's real name -------------------------------
mkdir -p "$E/names/job7/node1"
tar xzf "$JOB" -C "$E/names/job7/node1"
(cd "$E/names/job7" && "$bin" ingest . -q > /dev/null 2>&1)
check_eq "evidence/dot/exit-0" 0 "$?"
check "evidence/dot/named-job7" test -f "$E/names/job7.db"
check "evidence/dot/no-dotdot-db" test ! -e "$E/names/job7/..db"
rm -f "$E/names/job7.db"
(cd "$E/names" && "$bin" ingest job7/node1/.. -q > /dev/null 2>&1)
check_eq "evidence/dotdot/exit-0" 0 "$?"
check "evidence/dotdot/named-job7" test -f "$E/names/job7.db"
check "evidence/dotdot/no-dots-db" test ! -e "$E/names/job7/node1/...db"
# the case written inside the input directory is not read as input
(cd "$E/names/job7" && "$bin" ingest . -o inside.db -q > /dev/null 2>&1)
check_eq "evidence/case-inside-input/exit-0" 0 "$?"
check_eq "evidence/case-inside-input/not-a-member" 0 \
	"$(sql "$E/names/job7/inside.db" "SELECT count(*) FROM sources WHERE path LIKE '%inside.db%'")"

# ---- a missing input is said as such ------------------------------------------
"$bin" ingest /nonexistent-ncclforensic/dir/ -q > /dev/null 2> "$E/missing.err"
check_eq "evidence/missing-input/exit-3" 3 "$?"
check "evidence/missing-input/names-input" grep -q "/nonexistent-ncclforensic/dir/: No such file or directory" "$E/missing.err"
check "evidence/missing-input/not-output" sh -c "! grep -q 'cannot write' '$E/missing.err'"

# ---- nothing recognised -------------------------------------------------------
printf 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n' > "$E/passwd"
for n in passwd empty case; do
	case $n in
	passwd) in=$E/passwd ;;
	empty) in=$E/empty; : > "$in" ;;
	case) in=$E/case-in.db; cp "$E/names/job7.db" "$in" ;;
	esac
	"$bin" ingest "$in" -o "$E/unrec-$n.db" -q > "$E/unrec-$n.out" 2> "$E/unrec-$n.err"
	check_eq "evidence/unrecognised-$n/exit-5" 5 "$?"
	check "evidence/unrecognised-$n/case-written" test -f "$E/unrec-$n.db"
	check "evidence/unrecognised-$n/says" grep -q "nothing in it was recognised as a job's logs" "$E/unrec-$n.err"
	check_eq "evidence/unrecognised-$n/no-verdict-printed" "" "$(cat "$E/unrec-$n.out")"
	check_eq "evidence/unrecognised-$n/meta" 0 "$(sql "$E/unrec-$n.db" "SELECT value FROM meta WHERE key='recognised'")"
done
# plain-text logs and dumps alone are read, not "nothing"
printf '2026-11-29 10:00:00 step 1 loss 2.5\n2026-11-29 10:00:01 step 2 loss 2.4\n' > "$E/train.out"
"$bin" ingest "$E/train.out" -o "$E/plain.db" -q > /dev/null 2>&1
check_eq "evidence/plain-text-log/exit-0" 0 "$?"

# ---- report -o: beside the target, renamed; never through a symlink ----------
"$bin" ingest "$JOB" -o "$E/r.db" -q > /dev/null 2>&1
printf 'precious\n' > "$E/precious.txt"
ln -s precious.txt "$E/report-link.md"
"$bin" report "$E/r.db" -o "$E/report-link.md" 2> /dev/null
check_eq "evidence/report-symlink/exit-0" 0 "$?"
check_eq "evidence/report-symlink/target-untouched" precious "$(cat "$E/precious.txt")"
check "evidence/report-symlink/replaced-by-file" sh -c "test -f '$E/report-link.md' && test ! -L '$E/report-link.md'"
# a write that fails (here a file-size limit) leaves the old report whole
"$bin" report "$E/r.db" -o "$E/old.md" 2> /dev/null
old=$(sum "$E/old.md")
(trap '' XFSZ; ulimit -f 2; "$bin" report "$E/r.db" --format html -o "$E/old.md" 2> "$E/full.err")
check_eq "evidence/report-write-fails/exit-6" 6 "$?"
check_eq "evidence/report-write-fails/old-intact" "$old" "$(sum "$E/old.md")"
check "evidence/report-write-fails/says" grep -Eq "cannot write .*old\.md: File too large" "$E/full.err"
check_eq "evidence/report-write-fails/no-temporary" 0 "$(ls_names "$E" | grep -c '^\.old\.md\.tmp-')"
# and so does an ingest that cannot write its case
cp "$E/r.db" "$E/keep.db"
keep=$(sum "$E/keep.db")
(trap '' XFSZ; ulimit -f 64; "$bin" ingest testdata/corpus/big.tar.gz -o "$E/keep.db" -q > /dev/null 2> "$E/ifull.err")
check_eq "evidence/ingest-write-fails/exit-6" 6 "$?"
check_eq "evidence/ingest-write-fails/old-intact" "$keep" "$(sum "$E/keep.db")"
check "evidence/ingest-write-fails/says" grep -Eq "(disk is full|input/output error)" "$E/ifull.err"
check "evidence/ingest-write-fails/not-internal" sh -c "! grep -q 'fatal' '$E/ifull.err'"
check_eq "evidence/ingest-write-fails/no-temporary" 0 "$(ls_names "$E" | grep -c '^\.keep\.db\.tmp-')"

# ---- a case that cannot be written to, or is damaged --------------------------
# (root writes through a mode of 444: as root, analyze runs as nobody)
ro=$(mktemp -d /tmp/ncclforensic-ro.XXXXXX)
chmod 755 "$ro"
cp "$E/r.db" "$ro/ro.db"
chmod 444 "$ro/ro.db"
as=""
if [ "$(id -u)" -eq 0 ] && command -v runuser > /dev/null 2>&1 && id -u nobody > /dev/null 2>&1; then
	as="runuser -u nobody --"
fi
if [ "$(id -u)" -ne 0 ] || [ -n "$as" ]; then
	$as "$bin" analyze "$ro/ro.db" > /dev/null 2> "$E/ro.err"
	check_eq "evidence/analyze-read-only/exit-3" 3 "$?"
	check "evidence/analyze-read-only/says" grep -q "ro.db: the case is read-only" "$E/ro.err"
	check "evidence/analyze-read-only/not-internal" sh -c "! grep -q 'fatal' '$E/ro.err'"
fi
rm -rf "$ro"
head -c 100000 "$E/r.db" > "$E/damaged.db"
"$bin" analyze "$E/damaged.db" > /dev/null 2> "$E/damaged.err"
rc=$?
check "evidence/analyze-damaged/exit-3 ($rc)" test "$rc" -eq 3
check "evidence/analyze-damaged/not-internal" sh -c "! grep -q 'fatal' '$E/damaged.err'"
"$bin" report "$E/damaged.db" > /dev/null 2> "$E/damaged-r.err"
rc=$?
check "evidence/report-damaged/exit-3 ($rc)" test "$rc" -eq 3
