#!/bin/sh
# Nothing lost without a word (docs/robustness.md): inputs that libarchive
# reads in ways the tool must not trust, members that fail early, hard links
# that carry the data, the line limit, many lines; and a differential check:
# every member of generated archives (tar, pax, cpio, zip, 7z; gzip, zstd,
# xz, bzip2) has, in the case, the lines `bsdtar -xO` gives of it.
. tests/lib.sh

T="$TMP/lossless"
case $T in /*) ;; *) T="$NF_ROOT/$T" ;; esac
rm -rf "$T"
mkdir -p "$T"

# cases in $T, checks named lossless/... (ing, q, exit_is, says, noloss: lib.sh)
ING_DIR=$T
ING_PREFIX=lossless

# ---- plain text libarchive's mtree reader would bid on ----------------------
printf 'node001\nnode002\nnode003\n' | gzip -c > "$T/hostfile.gz"
ing hostfile "$T/hostfile.gz"
exit_is hostfile 5
check_eq "lossless/hostfile/one-text-member" "hostfile text 3" \
	"$(q hostfile "SELECT path || ' ' || kind || ' ' || lines FROM sources")"
noloss hostfile 3
mkdir -p "$T/mt"
printf '#mtree\nfoo type=file\nbar type=dir\n' > "$T/mt/notes.log"
gzip -c "$T/mt/notes.log" > "$T/mt/notes.log.gz"
(cd "$T/mt" && tar cf ../mtree-nested.tar notes.log.gz notes.log)
ing mtree-nested "$T/mtree-nested.tar"
exit_is mtree-nested 0
check_eq "lossless/mtree-nested/text" "text:3 text:3" \
	"$(q mtree-nested "SELECT group_concat(kind || ':' || lines, ' ') FROM sources WHERE kind <> 'archive'")"
noloss mtree-nested 6

# ---- a read error within a member's first bytes is an error, not an empty member
mkdir -p "$T/z"
seq 1 100 > "$T/z/a.log"
seq 1 30 > "$T/z/b.log"
(cd "$T/z" && bsdtar --format zip -cf ../plain.zip a.log b.log)
# the CRC of the first entry's local header, flipped
cp "$T/plain.zip" "$T/badcrc.zip"
printf '\377' | dd of="$T/badcrc.zip" bs=1 seek=14 conv=notrunc 2> /dev/null
ing badcrc "$T/badcrc.zip"
exit_is badcrc 1
check_eq "lossless/badcrc/error-recorded" 1 "$(q badcrc "SELECT count(*) FROM sources WHERE path='a.log' AND error IS NOT NULL")"
says badcrc member "^ncclforensic: a\\.log: .*(CRC|crc)"
check_eq "lossless/badcrc/other-member-whole" 30 "$(q badcrc "SELECT lines FROM sources WHERE path='b.log'")"
(cd "$T/z" && bsdtar --format zip --options zip:encryption=zipcrypt --passphrase secret -cf ../enc.zip a.log b.log) 2> /dev/null
if [ -s "$T/enc.zip" ]; then
	ing encrypted "$T/enc.zip"
	exit_is encrypted 1
	check_eq "lossless/encrypted/errors-recorded" 2 "$(q encrypted "SELECT count(*) FROM sources WHERE error IS NOT NULL")"
	says encrypted member "^ncclforensic: a\\.log: .*nothing of the member could be read"
fi
mkdir -p "$T/tc"
seq 1 300 > "$T/tc/b.log"
(cd "$T" && tar cf tc.tar tc/b.log)
head -c 1200 "$T/tc.tar" > "$T/tcut.tar"
ing tcut "$T/tcut.tar"
exit_is tcut 1
check_eq "lossless/tar-cut-small-member/error-recorded" 1 \
	"$(q tcut "SELECT count(*) FROM sources WHERE path='tc/b.log' AND error IS NOT NULL")"

# ---- hard links that carry the data -----------------------------------------
mkdir -p "$T/cp"
seq 1 50 > "$T/cp/a.log"
ln "$T/cp/a.log" "$T/cp/b.log"
seq 1 50 > "$T/cp/c.log"
printf 'x\ny\n' > "$T/cp/d.log"
# cpio newc puts the data on the last link
(cd "$T/cp" && bsdtar --format newc -czf ../links.cpio.gz a.log b.log c.log d.log)
ing cpio-links "$T/links.cpio.gz"
exit_is cpio-links 0
noloss cpio-links 102
# a pax hard link with a body of its own
python3 tests/helpers/pax_hardlink_body.py "$T/paxlink.tar"
ing pax-link "$T/paxlink.tar"
exit_is pax-link 0
noloss pax-link 202
check_eq "lossless/pax-link/link-read" "text 100" "$(q pax-link "SELECT kind || ' ' || lines FROM sources WHERE path='job/b.log'")"

# ---- --max-line stays below what a case can store ---------------------------
printf 'a line\n' > "$T/one.log"
ing max-line-2g "$T/one.log" --max-line 2G
exit_is max-line-2g 2
says max-line-2g msg "max-line 2G is above the largest line a case can store"
check "lossless/max-line-2g/no-case" test ! -e "$T/max-line-2g.db"
ing max-line-256m "$T/one.log" --max-line 256M
exit_is max-line-256m 0

# ---- many lines in little memory --------------------------------------------
# 20 million empty lines from a few KB: the memory does not grow with them
# (under the sanitizers the address space is not a measure: skipped)
head -c 20000000 /dev/zero | tr '\0' '\n' | zstd -q -3 > "$T/empty20m.zst"
if [ "${NF_ASAN:-}" != 1 ] && [ "${NF_TSAN:-}" != 1 ]; then
	# dash and bash have ulimit -v; POSIX leaves it out
	# shellcheck disable=SC3045
	(ulimit -v 400000 && "$NF_BIN" ingest "$T/empty20m.zst" -o "$T/empty20m.db" -q > /dev/null 2> "$T/empty20m.err")
	rc=$?
	exit_is empty20m 5
	check_eq "lossless/empty20m/lines" 20000000 "$(q empty20m "SELECT value FROM meta WHERE key='lines'")"
fi

# ---- differential: the case against bsdtar -xO ------------------------------
# a job with members of every shape: lines ending or not in "\n", a long
# line, an empty member, a hard link, a nested compressed log
G="$T/gen"
mkdir -p "$G/job/sub"
awk 'BEGIN{srand(7); for (i = 1; i <= 2000; i++) printf "rank 0 step %d loss %.6f\n", i, rand()}' > "$G/job/rank0.log"
awk 'BEGIN{srand(8); for (i = 1; i <= 1500; i++) printf "rank 1 step %d\n", i}' > "$G/job/sub/rank1.log"
printf 'no newline at the end' > "$G/job/sub/tail.log"
: > "$G/job/empty.log"
head -c 200000 /dev/zero | tr '\0' 'x' > "$G/job/longline.log"
ln "$G/job/rank0.log" "$G/job/rank0-again.log"
seq 1 77 | gzip -c > "$G/job/sub/seq.log.gz"
# per-member line counts as bsdtar extracts them (a member's last line
# without "\n" counts); hard links without data give nothing
expect_of() {
	bsdtar -tvf "$1" | awk '$1 !~ /^d/ {print $9}' | sed 's|^\./||' | while IFS= read -r m; do
		if [ "${m%.gz}" != "$m" ]; then
			# a compressed member is one member named without its suffix
			n=$(bsdtar -xOf "$1" "$m" | gzip -dc | awk 'END{print NR}')
			m=${m%.gz}
		else
			n=$(bsdtar -xOf "$1" "$m" | awk 'END{print NR}')
		fi
		printf '%s:%s\n' "$m" "$n"
	done | sort
}
got_of() {
	q "$1" "SELECT path || ':' || (lines) FROM sources WHERE kind NOT IN ('archive') ORDER BY path" | sort
}
for spec in ustar:gz pax:zst gnutar:xz newc:gz odc:bz2 zip: 7zip:; do
	fmt=${spec%%:*}
	z=${spec#*:}
	a="$T/gen-$fmt.ar"
	case $z in
	gz) zf=-z ;; zst) zf=--zstd ;; xz) zf=-J ;; bz2) zf=-j ;; *) zf= ;;
	esac
	# shellcheck disable=SC2086
	(cd "$G" && bsdtar --format "$fmt" $zf -cf "$a" job) 2> "$T/gen-$fmt.mk.err" || {
		fail "lossless/differential/$fmt/make" "$(head -c 200 "$T/gen-$fmt.mk.err")"
		continue
	}
	ing "gen-$fmt" "$a" --max-line 1M
	check_eq "lossless/differential/$fmt-$z/exit" 0 "$rc"
	expect_of "$a" > "$T/gen-$fmt.expect"
	got_of "gen-$fmt" > "$T/gen-$fmt.got"
	check "lossless/differential/$fmt-$z/lines-per-member" diff "$T/gen-$fmt.expect" "$T/gen-$fmt.got"
	# and the same bytes, line by line, for a member read whole
	bsdtar -xOf "$a" job/sub/rank1.log | md5sum > "$T/gen-$fmt.md5.expect"
	q "gen-$fmt" "SELECT text FROM lines JOIN sources USING(source_id) WHERE path='job/sub/rank1.log' ORDER BY line_no" \
		| md5sum > "$T/gen-$fmt.md5.got"
	check "lossless/differential/$fmt-$z/same-bytes" cmp -s "$T/gen-$fmt.md5.expect" "$T/gen-$fmt.md5.got"
done
