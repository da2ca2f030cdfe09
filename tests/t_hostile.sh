#!/bin/sh
# Hostile and broken inputs (docs/robustness.md): every one gets a clear
# message naming the file (and line), the rest of the job is ingested, what
# was skipped is counted in the case, and the exit code says what happened
# (0 ok, 1 input problems, 2 usage, 3 nothing ingested). Inputs are made here
# with sh, printf, head, dd, tar, gzip, zstd, xz and bsdtar; small fixtures
# are in testdata/hostile/. Ends with a replay of the fuzzers' seeds and past
# crashes (testdata/hostile/fuzz/) through the harnesses, built with cc.
. tests/lib.sh

H=testdata/hostile
T="$TMP/hostile"
rm -rf "$T"
mkdir -p "$T"

# cases in $T, checks named hostile/... (ing, q, exit_is, says, noloss: lib.sh)
ING_DIR=$T
ING_PREFIX=hostile
intact() {
	check_eq "hostile/$1/integrity" ok "$(q "$1" "PRAGMA integrity_check")"
	check_eq "hostile/$1/rows-match-sources" "$(q "$1" "SELECT coalesce(sum(stored_lines),0) FROM sources")" \
		"$(q "$1" "SELECT count(*) FROM lines")"
}
nofile() { check "hostile/$1/no-case-written" test ! -e "$T/$1.db"; }
# lines of a file as the tool counts them ("\n", "\r\n" and "\r" end a line;
# a last line without one counts)
nlines() { perl -0777 -ne '$n = () = /\r\n|\r|\n/g; $n++ if length && !/[\r\n]\z/; END { print $n + 0 }' "$1"; }
# mklog FILE N SEED: N lines of a plausible log, different for each seed
mklog() {
	awk -v n="$2" -v s="$3" 'BEGIN{srand(s); for (i = 1; i <= n; i++)
		printf "2026-11-29 23:%02d:%02d,%03d INFO rank %d step %d loss %.9f tok %d\n",
			int(i / 60) % 60, i % 60, i % 1000, s, i, rand(), int(rand() * 1000000)}' > "$1"
}

# ---- a small job, packed every way, then truncated --------------------------
J="$T/job"
mkdir -p "$J/job/node1" "$J/job/node2"
mklog "$J/job/node1/rank0.log" 3000 1
mklog "$J/job/node1/rank1.log" 3000 2
mklog "$J/job/node2/rank2.log" 3000 3
mklog "$J/job/node2/rank3.log" 3000 4
(cd "$J" && tar cf ../job.tar job)
gzip -c "$T/job.tar" > "$T/job.tar.gz"
zstd -q -c "$T/job.tar" > "$T/job.tar.zst"
xz -1 -c "$T/job.tar" > "$T/job.tar.xz"

ing whole "$T/job.tar.gz"
exit_is whole 0
noloss whole 12000
intact whole

for z in gz zst xz; do
	n=trunc-$z
	size=$(wc -c < "$T/job.tar.$z")
	head -c $((size * 6 / 10)) "$T/job.tar.$z" > "$T/$n.tar.$z"
	ing "$n" "$T/$n.tar.$z"
	exit_is "$n" 1
	intact "$n"
	says "$n" input "^ncclforensic: ([^ ]*/)?$n\\.tar\\.$z: .*([Tt]runcat|[Dd]amaged|corrupt|error)"
	# the member cut in the middle says so, with the line where it stops
	says "$n" member-and-line "^ncclforensic: job/node[12]/rank[0-3]\\.log:[0-9]+: .*lines before it are kept"
	check_eq "hostile/$n/member-error-recorded" 1 "$(q "$n" "SELECT count(*) FROM sources WHERE error IS NOT NULL")"
	# every member read before the cut has all its lines, and the cut one some
	check_eq "hostile/$n/complete-members-whole" 0 \
		"$(q "$n" "SELECT count(*) FROM sources WHERE error IS NULL AND lines <> 3000")"
	check "hostile/$n/some-lines" test "$(q "$n" "SELECT count(*) FROM lines")" -gt 3000
	check "hostile/$n/meta-input-errors" test "$(q "$n" "SELECT value FROM meta WHERE key='input_errors'")" -ge 1
done

# a gzip cut inside its header: nothing can be read at all
head -c 5 "$T/job.tar.gz" > "$T/stub.tar.gz"
ing stub "$T/stub.tar.gz"
exit_is stub 3
nofile stub
says stub input "^ncclforensic: ([^ ]*/)?stub\\.tar\\.gz: "

# ---- a corrupted tar header in the middle -----------------------------------
mkdir -p "$T/dm/j"
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do
	printf 'member %s line 1\nmember %s line 2\n' $i $i > "$T/dm/j/m$i.log"
done
(cd "$T/dm" && tar cf ../damaged.tar j/m01.log j/m02.log j/m03.log j/m04.log j/m05.log j/m06.log \
	j/m07.log j/m08.log j/m09.log j/m10.log j/m11.log j/m12.log)
# each member is a header block and a data block: garble m07's header checksum
printf 'garbage!' | dd of="$T/damaged.tar" bs=1 seek=$((6 * 1024 + 148)) conv=notrunc 2> /dev/null
ing damaged "$T/damaged.tar"
exit_is damaged 1
intact damaged
says damaged where "^ncclforensic: ([^ ]*/)?damaged\\.tar: damaged archive after member 'j/m06\\.log'"
check_eq "hostile/damaged/one-message" 1 "$(grep -c damaged "$T/damaged.err")"
check_eq "hostile/damaged/members-after-damage-read" "11 j/m12.log" \
	"$(q damaged "SELECT count(*) || ' ' || max(path) FROM sources")"
noloss damaged 22

# ---- names that climb out, absolute names, links, devices -------------------
mkdir -p "$T/slip/cwd"
case $NF_BIN in /*) abs_bin=$NF_BIN ;; *) abs_bin=$NF_ROOT/$NF_BIN ;; esac
(cd "$T/slip/cwd" && "$abs_bin" ingest "$NF_ROOT/$H/zipslip.zip" -o ../zip.db -q > ../zip.out 2> ../zip.err)
rc=$?
check_eq "hostile/zipslip/exit-0" 0 "$rc"
check_eq "hostile/zipslip/names-recorded" \
	"../../../../../../tmp/ncclforensic-zipslip-up.log|../../etc/passwd|/tmp/ncclforensic-zipslip-abs.log|ok.log" \
	"$(sql "$T/slip/zip.db" "SELECT group_concat(path, '|') FROM (SELECT path FROM sources ORDER BY path)")"
check "hostile/zipslip/nothing-written" test -z "$(find "$T/slip" -type f ! -name 'zip.*')"
check "hostile/zipslip/no-abs-file" test ! -e /tmp/ncclforensic-zipslip-abs.log
check "hostile/zipslip/no-up-file" test ! -e /tmp/ncclforensic-zipslip-up.log

ing tarslip "$H/tarslip.tar.gz"
exit_is tarslip 0
intact tarslip
check_eq "hostile/tarslip/links-recorded-not-followed" \
	"job/hard.log:link to job/ok.log (not followed)|job/passwd-link:link to /etc/passwd (not followed)|job/up-link:link to ../../../../etc/shadow (not followed)" \
	"$(q tarslip "SELECT group_concat(path || ':' || error, '|') FROM (SELECT * FROM sources WHERE kind='link' ORDER BY path)")"
check_eq "hostile/tarslip/devices-recorded" "job/fifo job/null" \
	"$(q tarslip "SELECT group_concat(path, ' ') FROM (SELECT path FROM sources WHERE kind='other' ORDER BY path)")"
check_eq "hostile/tarslip/links-have-no-lines" 0 "$(q tarslip "SELECT count(*) FROM lines JOIN sources USING(source_id) WHERE kind IN ('link', 'other')")"
check "hostile/tarslip/no-abs-file" test ! -e /tmp/ncclforensic-tarslip-abs.log
noloss tarslip 6

# a directory with links: recorded, never followed
mkdir -p "$T/linkdir/sub"
printf 'a\nb\n' > "$T/linkdir/a.log"
ln -s /etc/passwd "$T/linkdir/passwd"
ln -s ../a.log "$T/linkdir/sub/a-again.log"
ln -s sub "$T/linkdir/loop"
ln "$T/linkdir/a.log" "$T/linkdir/hard.log"
mkfifo "$T/linkdir/fifo"
ing linkdir "$T/linkdir"
exit_is linkdir 0
check_eq "hostile/linkdir/symlinks-not-followed" "loop passwd sub/a-again.log" \
	"$(q linkdir "SELECT group_concat(path, ' ') FROM (SELECT path FROM sources WHERE kind='link' ORDER BY path)")"
check_eq "hostile/linkdir/fifo-recorded-not-opened" "fifo" "$(q linkdir "SELECT path FROM sources WHERE kind='other'")"
noloss linkdir 4

# ---- decompression bombs ----------------------------------------------------
# (not zeros: libarchive takes a stream of zeros for an empty tar)
head -c 20000000 /dev/zero | tr '\0' '\001' | gzip -1 > "$T/zeros.gz"
ing bomb-total "$T/zeros.gz" --max-total-bytes 1M
exit_is bomb-total 1
intact bomb-total
says bomb-total msg "^ncclforensic: ([^ ]*/)?zeros\\.gz: input expands beyond the limit of 1048576 bytes \\(--max-total-bytes\\)"
check_eq "hostile/bomb-total/meta-limit-hit" "input expands beyond the limit of 1048576 bytes (--max-total-bytes)" \
	"$(q bomb-total "SELECT value FROM meta WHERE key='limit_hit'")"
ing bomb-member "$T/zeros.gz" --max-member-bytes 64K
exit_is bomb-member 1
says bomb-member msg "member larger than the limit of 65536 bytes \\(--max-member-bytes\\)"
# the ratio is checked past 256 MiB of output: 300 MB of zeros in a few KB
head -c 300000000 /dev/zero | tr '\0' '\001' | zstd -q -1 > "$T/zeros.zst"
ing bomb-ratio "$T/zeros.zst"
exit_is bomb-ratio 1
intact bomb-ratio
says bomb-ratio msg "zeros\\.zst: input expands more than 1000 times its size: a decompression bomb\\? \\(--max-ratio\\)"
ing bomb-ratio-raised "$T/zeros.zst" --max-ratio 1000000
check_eq "hostile/bomb-ratio-raised/read-whole" "300000000 0" \
	"$(q bomb-ratio-raised "SELECT bytes || ' ' || (SELECT count(*) FROM meta WHERE key='limit_hit') FROM sources")"
# a bomb inside an archive with good members: those are kept
mkdir -p "$T/bombjob"
cp "$J/job/node1/rank0.log" "$T/bombjob/a-first.log"
cp "$T/zeros.gz" "$T/bombjob/b-zeros.gz"
(cd "$T/bombjob" && tar cf ../bombjob.tar a-first.log b-zeros.gz)
ing bomb-nested "$T/bombjob.tar" --max-total-bytes 4M
exit_is bomb-nested 1
check_eq "hostile/bomb-nested/good-member-kept" 3000 "$(q bomb-nested "SELECT lines FROM sources WHERE path='a-first.log'")"

# ---- archives nested deeper than --max-depth --------------------------------
mkdir -p "$T/nest"
printf 'deep line\n' > "$T/nest/deep.log"
(cd "$T/nest" && tar czf l1.tgz deep.log && tar czf l2.tgz l1.tgz && tar czf l3.tgz l2.tgz && tar czf l4.tgz l3.tgz \
	&& tar czf l5.tgz l4.tgz)
ing nest "$T/nest/l5.tgz"
exit_is nest 1
says nest msg "^ncclforensic: l4\\.tgz/l3\\.tgz/l2\\.tgz/l1\\.tgz: archive nested too deep; not opened \\(--max-depth\\)"
ing nest-ok "$T/nest/l5.tgz" --max-depth 4
exit_is nest-ok 0
check_eq "hostile/nest-ok/deep-line" "l4.tgz/l3.tgz/l2.tgz/l1.tgz/deep.log:deep line" \
	"$(q nest-ok "SELECT s.path || ':' || l.text FROM lines l JOIN sources s USING(source_id)")"

# ---- a 100 MB single line ---------------------------------------------------
head -c 100000000 /dev/zero | tr '\0' 'x' | zstd -q -1 > "$T/oneline.log.zst"
ing oneline "$T/oneline.log.zst"
exit_is oneline 1
intact oneline
noloss oneline 1
says oneline msg "^ncclforensic: oneline\\.log:1: 1 line\\(s\\) longer than 65536 bytes cut to that length \\(first here\\), 99934464 bytes dropped \\(--max-line\\)"
check_eq "hostile/oneline/kept-and-flagged" "65536 1 long lines truncated (--max-line)" \
	"$(q oneline "SELECT length(l.text) || ' ' || s.truncated_lines || ' ' || s.skip_reason FROM lines l JOIN sources s USING(source_id)")"
ing oneline-1m "$T/oneline.log.zst" --max-line 1M
check_eq "hostile/oneline-1m/kept" 1048576 "$(q oneline-1m "SELECT length(text) FROM lines")"

# ---- NUL bytes, invalid UTF-8, CRLF and CR ----------------------------------
# (in a file long enough to stay text: a few NULs among 50 lines)
{
	printf 'plain line\nnul\000inside\ninvalid \377\376 utf8 \300\257 overlong\n'
	head -n 47 "$J/job/node1/rank0.log"
} > "$T/bytes.log"
ing bytes "$T/bytes.log"
exit_is bytes 0
noloss bytes 50
check_eq "hostile/bytes/nul-kept" "6E756C00696E73696465" "$(q bytes "SELECT hex(text) FROM lines WHERE line_no=2")"
check_eq "hostile/bytes/invalid-utf8-kept" "696E76616C696420FFFE207574663820C0AF206F7665726C6F6E67" \
	"$(q bytes "SELECT hex(text) FROM lines WHERE line_no=3")"

printf 'a\r\nb\r\nc\rd\re\n\nf' > "$T/crlf.log"
ing crlf "$T/crlf.log"
exit_is crlf 0
noloss crlf 7
check_eq "hostile/crlf/texts" "a|b|c|d|e||f" "$(q crlf "SELECT group_concat(text, '|') FROM (SELECT text FROM lines ORDER BY line_no)")"
# a "\r\n" split across two reads (the tool reads 64 KiB at a time)
{ head -c 65535 /dev/zero | tr '\0' 'y'; printf '\r\nsecond\r\n'; } > "$T/crlf-split.log"
ing crlf-split "$T/crlf-split.log"
noloss crlf-split 2
check_eq "hostile/crlf-split/lengths" "65535 6" "$(q crlf-split "SELECT group_concat(length(text), ' ') FROM (SELECT text FROM lines ORDER BY line_no)")"

# ---- pure binary ------------------------------------------------------------
# all 256 byte values (one "\n" and one "\r" each round), 64 rounds: 129
# lines as counted (as text's would be)
i=0; : > "$T/b256"
# shellcheck disable=SC2059
while [ $i -lt 256 ]; do printf "\\$(printf %o $i)" >> "$T/b256"; i=$((i + 1)); done
cat "$T/b256" "$T/b256" "$T/b256" "$T/b256" > "$T/b1k"
cat "$T/b1k" "$T/b1k" "$T/b1k" "$T/b1k" > "$T/b4k"
cat "$T/b4k" "$T/b4k" "$T/b4k" "$T/b4k" > "$T/blob.bin"
check_eq "hostile/binary/fixture-size" 16384 "$(wc -c < "$T/blob.bin")"
ing binary "$T/blob.bin"
exit_is binary 5
intact binary
noloss binary 129
check_eq "hostile/binary/recorded" "binary 129 binary: not text" \
	"$(q binary "SELECT kind || ' ' || skipped_lines || ' ' || skip_reason FROM sources")"
says binary msg "^ncclforensic: blob\\.bin: binary member, 129 line\\(s\\) not read"
# among text members, the rest is ingested
mkdir -p "$T/binjob"
cp "$T/blob.bin" "$T/binjob/core.bin"
cp "$J/job/node1/rank0.log" "$T/binjob/rank0.log"
(cd "$T/binjob" && tar czf ../binjob.tar.gz core.bin rank0.log)
ing binjob "$T/binjob.tar.gz"
exit_is binjob 1
noloss binjob 3129

# ---- empty inputs -----------------------------------------------------------
tar cf "$T/empty.tar" -T /dev/null
ing empty-tar "$T/empty.tar"
exit_is empty-tar 3
nofile empty-tar
says empty-tar msg "empty\\.tar: no members .*nothing to ingest"
gzip -c "$T/empty.tar" > "$T/empty.tar.gz"
ing empty-tgz "$T/empty.tar.gz"
exit_is empty-tgz 3
nofile empty-tgz
printf 'PK\005\006\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' > "$T/empty.zip"
ing empty-zip "$T/empty.zip"
exit_is empty-zip 3
nofile empty-zip
mkdir -p "$T/emptydir"
ing empty-dir "$T/emptydir"
exit_is empty-dir 3
nofile empty-dir
: > "$T/empty.log"
ing empty-file "$T/empty.log"
exit_is empty-file 5
check_eq "hostile/empty-file/recorded" "empty 0" "$(q empty-file "SELECT kind || ' ' || lines FROM sources")"
ing missing "$T/does-not-exist.tar.gz"
exit_is missing 3
nofile missing
says missing msg "does-not-exist\\.tar\\.gz: No such file or directory"

# ---- 100,000 tiny members ---------------------------------------------------
printf 'one tiny line\n' > "$T/tiny.txt"
awk -v f="$T/tiny.txt" 'BEGIN{print "#mtree"; for (i = 1; i <= 100000; i++) printf "d/m%06d type=file mode=0644 contents=%s\n", i, f}' > "$T/many.mtree"
bsdtar -czf "$T/many.tar.gz" "@$T/many.mtree"
t0=$(date +%s)
ing many "$T/many.tar.gz"
t1=$(date +%s)
exit_is many 5
check_eq "hostile/many/all-members" "100000 100000" "$(q many "SELECT count(*) || ' ' || sum(lines) FROM sources")"
noloss many 100000
check "hostile/many/under-60s ($((t1 - t0))s)" test $((t1 - t0)) -lt 60

# ---- pickles ----------------------------------------------------------------
mkdir -p "$T/fr"
for p in "$H"/pickles/*.pkl; do
	b=$(basename "$p" .pkl)
	cp "$p" "$T/fr/nccl_trace_rank_$b"
done
printf 'text beside the pickles\n' > "$T/fr/rank0.log"
rm -f /tmp/ncclforensic-pwned
t0=$(date +%s)
ing pickles "$T/fr"
t1=$(date +%s)
check "hostile/pickles/bounded-time ($((t1 - t0))s)" test $((t1 - t0)) -lt 20
exit_is pickles 1
intact pickles
check "hostile/pickles/nothing-executed" test ! -e /tmp/ncclforensic-pwned
perr() { q pickles "SELECT error FROM sources WHERE path='nccl_trace_rank_$1'"; }
check_eq "hostile/pickles/global" "refused opcode GLOBAL (0x63) at byte 0: pickles that import or call code are not read" "$(perr global_reduce)"
check_eq "hostile/pickles/global-proto2" "refused opcode GLOBAL (0x63) at byte 2: pickles that import or call code are not read" "$(perr proto2_global)"
check_eq "hostile/pickles/stack-global" "refused opcode STACK_GLOBAL (0x93) at byte 14: pickles that import or call code are not read" "$(perr stack_global)"
check_eq "hostile/pickles/reduce" "refused opcode REDUCE (0x52) at byte 4: pickles that import or call code are not read" "$(perr reduce_only)"
check_eq "hostile/pickles/deep-nesting" "APPEND (0x61) at byte 100065: values nested deeper than the limit of 64 containers" "$(perr deep_nesting)"
check_eq "hostile/pickles/deep-marks" "MARK (0x28) at byte 66: MARKs nested deeper than the limit of 64" "$(perr deep_marks)"
check_eq "hostile/pickles/huge-length" "BINUNICODE8 (0x8d) at byte 2: declared length 4611686018427387904 exceeds the string limit of 67108864 bytes" "$(perr huge_length)"
check_eq "hostile/pickles/huge-length4" "BINBYTES (0x42) at byte 2: declared length 4294967295 exceeds the string limit of 67108864 bytes" "$(perr huge_length4)"
check_eq "hostile/pickles/long-body-cut" "input ends inside BINBYTES (0x42) at byte 2: truncated pickle" "$(perr long_body_truncated)"
check_eq "hostile/pickles/truncated" "input ends inside SHORT_BINUNICODE (0x8c) at byte 285: truncated pickle" "$(perr truncated)"
check_eq "hostile/pickles/recursive" "APPEND (0x61) at byte 7: a container stored inside itself (recursive structure) is not supported" "$(perr recursive)"
check_eq "hostile/pickles/not-a-dict" "not a flight-recorder dump (top level is list, not a dict)" "$(perr toplevel_list)"
check_eq "hostile/pickles/valid-read" "6" "$(q pickles "SELECT count(*) FROM events WHERE kind='fr_entry'")"
check_eq "hostile/pickles/sizes-overflow-no-numel" "1 0" "$(q pickles "SELECT count(*) || ' ' || count(json_extract(e.fields, '\$.numel_in'))
	FROM events e JOIN sources s USING(source_id) WHERE s.path = 'nccl_trace_rank_sizes_overflow' AND e.kind = 'fr_entry'")"
says pickles msg "^ncclforensic: nccl_trace_rank_global_reduce: flight recorder: refused opcode GLOBAL"
check_eq "hostile/pickles/memo-bomb" "APPENDS (0x65) at byte 545: values shared through the memo expand beyond the limit of 268435456 bytes (a pickle bomb?)" "$(perr memo_bomb)"
check_eq "hostile/pickles/refused-count" 15 "$(q pickles "SELECT count(*) FROM sources WHERE skip_reason='binary: flight-recorder pickle refused'")"
check_eq "hostile/pickles/text-kept" 1 "$(q pickles "SELECT lines FROM sources WHERE path='rank0.log'")"
total=0
for f in "$T"/fr/*; do total=$((total + $(nlines "$f"))); done
noloss pickles "$total"

# ---- a grammar with a catastrophic regex ------------------------------------
{
	printf 'before\n'
	i=0; while [ $i -lt 12 ]; do printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\n'; i=$((i + 1)); done
	printf 'after\n'
} > "$T/redos.log"
t0=$(date +%s)
ing redos "$T/redos.log" --grammar-dir "$H/grammars"
t1=$(date +%s)
exit_is redos 1
intact redos
noloss redos 14
says redos named "^ncclforensic: redos\\.log:2: rule hostile_catastrophic \\($H/grammars/catastrophic\\.rules:4\\): regex gave up at the PCRE2 match/depth limit; line kept$"
says redos disabled "^ncclforensic: redos\\.log:9: rule hostile_catastrophic .*; rule disabled for the rest of this file$"
check_eq "hostile/redos/messages" 8 "$(grep -c hostile_catastrophic "$T/redos.err")"
check_eq "hostile/redos/meta" 8 "$(q redos "SELECT value FROM meta WHERE key='regex_limit_hits'")"
check "hostile/redos/bounded-time ($((t1 - t0))s)" test $((t1 - t0)) -lt 20
# ...in many files: disabled per file (what a file makes does not depend on
# the files other threads read), then for the whole ingest once it was
# disabled in 4 files
mkdir -p "$T/redos-many"
for f in 1 2 3 4 5 6 7 8 9 10; do cp "$T/redos.log" "$T/redos-many/r$f.log"; done
ing redos-many "$T/redos-many" --grammar-dir "$H/grammars" --jobs 1
exit_is redos-many 1
check_eq "hostile/redos-many/meta" 32 "$(q redos-many "SELECT value FROM meta WHERE key='regex_limit_hits'")"
says redos-many ingest "rule hostile_catastrophic .*; rule disabled for the rest of this ingest \\(disabled in 4 files\\)$"
ing redos-many4 "$T/redos-many" --grammar-dir "$H/grammars" --jobs 4
exit_is redos-many4 1
check "hostile/redos-many/bounded-with-threads" test "$(q redos-many4 "SELECT value FROM meta WHERE key='regex_limit_hits'")" -le 64

# ---- where the case goes ----------------------------------------------------
: > "$T/a-file"
"$NF_BIN" ingest "$T/crlf.log" -o "$T/a-file/case.db" -q > /dev/null 2> "$T/outdir.err"
rc=$?
exit_is outdir-not-a-dir 3
check "hostile/outdir-not-a-dir/says" grep -q "cannot write the case in $T/a-file" "$T/outdir.err"
"$NF_BIN" ingest "$T/crlf.log" -o "$T/no/such/dir/case.db" -q > /dev/null 2> "$T/outdir2.err"
rc=$?
exit_is outdir-missing 3
check "hostile/outdir-missing/says" grep -q "cannot write the case in $T/no/such/dir: No such file or directory" "$T/outdir2.err"
if [ "$(id -u)" -ne 0 ]; then
	mkdir -p "$T/ro"
	chmod 555 "$T/ro"
	"$NF_BIN" ingest "$T/crlf.log" -o "$T/ro/case.db" -q > /dev/null 2> "$T/outdir3.err"
	rc=$?
	exit_is outdir-unwritable 3
	check "hostile/outdir-unwritable/says" grep -q "Permission denied" "$T/outdir3.err"
	check "hostile/outdir-unwritable/nothing" test -z "$(ls -A "$T/ro")"
	chmod 755 "$T/ro"
fi

# ---- a case from a newer schema version -------------------------------------
cp "$T/crlf.db" "$T/newer.db"
sql_write "$T/newer.db" "UPDATE meta SET value='99' WHERE key='schema_version'" > /dev/null
"$NF_BIN" sql "$T/newer.db" "SELECT count(*) FROM sources" > "$T/newer.out" 2> "$T/newer.err"
rc=$?
exit_is newer-schema 3
says newer msg "newer\\.db: case written by a newer ncclforensic \\(schema 99, this one reads up to [0-9]+\\)"
"$NF_BIN" sql "$T/bytes.log" "SELECT 1" > /dev/null 2> "$T/notacase.err"
rc=$?
exit_is not-a-case 3

# ---- usage ------------------------------------------------------------------
"$NF_BIN" ingest > /dev/null 2>&1; rc=$?
exit_is usage-no-input 2
"$NF_BIN" ingest "$T/crlf.log" --max-line nonsense > /dev/null 2>&1; rc=$?
exit_is usage-bad-option 2
"$NF_BIN" no-such-command > /dev/null 2>&1; rc=$?
exit_is usage-bad-command 2

# ---- fuzz seeds and past crashes, replayed without libFuzzer -----------------
# each harness is built with cc (and the sanitizers under NF_ASAN=1) and run
# on testdata/hostile/fuzz/NAME/: the crashes found there must stay fixed
FZ="$T/fuzz"
mkdir -p "$FZ/obj"
FCFLAGS="-std=c11 -D_GNU_SOURCE -g -O1 -Isrc $(pkg-config --cflags libpcre2-8 sqlite3 libarchive ncursesw libzstd)"
FLIBS="$(pkg-config --libs libpcre2-8 sqlite3 libarchive ncursesw libzstd) -lpthread -lm"
if [ "${NF_ASAN:-}" = 1 ]; then
	FCFLAGS="$FCFLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
	FLIBS="$FLIBS -fsanitize=address,undefined"
fi
# only the modules the harnesses use (an archive links what each needs)
fobjs=""
built=1
for m in archive_walk escape flight_recorder grammar_load grammar_match grammar_selftest line_prefix line_split \
	member_classify pickle_read timestamp util; do
	cc $FCFLAGS -c -o "$FZ/obj/$m.o" "src/$m.c" 2>> "$FZ/build.log" || built=0
	fobjs="$fobjs $FZ/obj/$m.o"
done
ar rcs "$FZ/libnf.a" $fobjs 2>> "$FZ/build.log" || built=0
check "hostile/fuzz-replay/build" test "$built" = 1
for h in tests/fuzz/fuzz_*.c; do
	name=$(basename "$h" .c | sed 's/^fuzz_//')
	[ -d "$H/fuzz/$name" ] || continue
	if ! cc $FCFLAGS -o "$FZ/$name" "$h" tests/fuzz/replay_main.c "$FZ/libnf.a" $FLIBS 2>> "$FZ/build.log"; then
		fail "hostile/fuzz-replay/$name" "does not build; see $FZ/build.log"
		continue
	fi
	check "hostile/fuzz-replay/$name ($(ls "$H/fuzz/$name" | wc -l) inputs)" "$FZ/$name" "$H/fuzz/$name"
done
