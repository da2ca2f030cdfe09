#!/bin/sh
# The parallel ingest (--jobs): whatever the number of threads, the case
# holds the same rows, event ids and bytes (a full `sqlite3 .dump`), and
# standard error says the same, in the same order, as the serial reference
# (NF_INGEST_SERIAL=1: no thread at all). Inputs: every corpus job, every
# tenth real job, and made ones for the load's special paths: a member too
# large to buffer, members without a modification time (their year comes
# from the bundle after the load), nested compressed members, a cut archive,
# a damaged member in the middle.
. tests/lib.sh

T="$TMP/jobs"
case $T in /*) ;; *) T="$NF_ROOT/$T" ;; esac
rm -rf "$T"
mkdir -p "$T"

# same NAME INPUT [ARGS]: the case and stderr of --jobs 1, 2 and 7 equal the serial one's
same() {
	n=$1; in=$2; shift 2
	NF_INGEST_SERIAL=1 "$NF_BIN" ingest "$in" -o "$T/$n.serial.db" -q --no-analyze "$@" > /dev/null 2> "$T/$n.serial.err"
	want_rc=$?
	if ! [ -f "$T/$n.serial.db" ]; then
		fail "jobs/$n/serial" "no case (exit $want_rc)"
		return
	fi
	sqlite3 "$T/$n.serial.db" .dump > "$T/$n.serial.sql"
	for j in 1 2 7; do
		"$NF_BIN" ingest "$in" -o "$T/$n.$j.db" -q --no-analyze --jobs "$j" "$@" > /dev/null 2> "$T/$n.$j.err"
		check_eq "jobs/$n/j$j/exit" "$want_rc" "$?"
		sqlite3 "$T/$n.$j.db" .dump > "$T/$n.$j.sql"
		check "jobs/$n/j$j/same-case" cmp "$T/$n.serial.sql" "$T/$n.$j.sql"
		check "jobs/$n/j$j/same-stderr" cmp "$T/$n.serial.err" "$T/$n.$j.err"
		rm -f "$T/$n.$j.db" "$T/$n.$j.sql"
	done
}

for f in testdata/corpus/*.tar.gz; do
	same "corpus-$(basename "$f" .tar.gz)" "$f"
done
i=0
for f in testdata/realjobs/*.tar.gz; do
	i=$((i + 1))
	[ $((i % 10)) -eq 1 ] || continue
	same "real-$(basename "$f" .tar.gz)" "$f"
done

# ---- made inputs ----------------------------------------------------------
M="$T/made"
mkdir -p "$M/job/node1" "$M/job/node2"
# a member larger than the load buffers (8 MiB): worked on by the reading thread
awk 'BEGIN { for (i = 0; i < 140000; i++)
	printf "node1:4242:4250 [0] NCCL INFO AllReduce: opCount %x sendbuff 0x7f00 recvbuff 0x7f00 count 1024 datatype 7 op 0 root 0 comm 0x55 [nranks=2] stream 0x1\n", i }' \
	> "$M/job/node1/rank0.log"
printf '[rank0]:[E1203 23:55:52.104000 4242 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=15, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n' >> "$M/job/node1/rank0.log"
# a dated line elsewhere gives the bundle's year
printf '2026-12-03 23:50:01,001 INFO starting\n' > "$M/job/node2/launcher.log"
printf 'Dec  3 23:55:40 node2 kernel: NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus.\n' > "$M/job/node2/syslog"
for k in 1 2 3; do
	printf 'node2:77%d:77%d [%d] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n' "$k" "$k" "$k" | gzip -c > "$M/job/node2/rank$k.log.gz"
done
(cd "$M" && tar czf ../made.tar.gz job)
same made "$T/made.tar.gz"
# members without a modification time (their times lack a year)
python3 - "$M" "$T/nomtime.tar" <<'EOF'
import io, sys, tarfile
root, out = sys.argv[1], sys.argv[2]
with tarfile.open(out, "w") as t:
    for name in ("job/node2/syslog", "job/node2/launcher.log", "job/node1/rank0.log"):
        data = open(root + "/" + name, "rb").read()[:200000]
        ti = tarfile.TarInfo(name)
        ti.size = len(data)
        ti.mtime = 0 if name.endswith("syslog") else 1764806400
        t.addfile(ti, io.BytesIO(data))
EOF
same nomtime "$T/nomtime.tar"
check_eq "jobs/nomtime/year-from-the-bundle" "2026" \
	"$(sql "$T/nomtime.serial.db" "SELECT year_used FROM sources WHERE path LIKE '%syslog'")"
# a cut archive and a directory with a damaged member between good ones
head -c 300000 testdata/corpus/big.tar.gz > "$T/cut.tar.gz"
same cut "$T/cut.tar.gz"
mkdir -p "$T/dir"
cp "$M/job/node2/launcher.log" "$T/dir/a.log"
head -c 100 "$T/made.tar.gz" > "$T/dir/b.tar.gz"
cp "$M/job/node2/syslog" "$T/dir/c.log"
same damaged "$T/dir"

# many dumps that all list the same groups (64 ranks from stall): each
# configuration stored once, the first in the load's order, whatever --jobs
"$NF_BIN" synth --from testdata/corpus/stall.tar.gz --ranks 64 -o "$T/s64.tar.gz" > /dev/null 2>&1
check_eq "jobs/configs/synth" 0 "$?"
same configs "$T/s64.tar.gz"
check_eq "jobs/configs/each-once" "0" \
	"$(sql "$T/configs.serial.db" "SELECT count(*) - count(DISTINCT fields) FROM events WHERE kind = 'fr_pg_config'")"
check "jobs/configs/copies-dropped" test "$(sql "$T/configs.serial.db" \
	"SELECT count(*) FROM events WHERE kind = 'fr_pg_config'")" -lt "$(sql "$T/configs.serial.db" \
	"SELECT count(*) FROM events WHERE kind = 'fr_dump'")"

# ---- the option ---------------------------------------------------------------
"$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$T/bad.db" --jobs 0 > /dev/null 2> "$T/bad.err"
check_eq "jobs/option/zero-refused" 2 "$?"
check "jobs/option/zero-says" grep -q "^ncclforensic: .*--jobs" "$T/bad.err"
"$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$T/bad.db" -j x > /dev/null 2> /dev/null
check_eq "jobs/option/word-refused" 2 "$?"
"$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$T/j3.db" -q -j3 > /dev/null 2>&1
check_eq "jobs/option/short-form" 0 "$?"

# ---- the default: the CPUs this process may use, at most 8 -------------------
workers_of() { sed -n 's/^timing: \([0-9]*\) workers;.*/\1/p' "$1"; }
if command -v taskset > /dev/null 2>&1; then
	# one CPU: as --jobs 1 (the members worked on in the reading thread)
	NF_TIMINGS=1 "$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$T/one.db" -q --no-analyze -j 1 \
		> /dev/null 2> "$T/one.err"
	NF_TIMINGS=1 taskset -c 0 "$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$T/aff.db" -q --no-analyze \
		> /dev/null 2> "$T/aff.err"
	one=$(workers_of "$T/one.err")
	check_eq "jobs/default/one-cpu-by-affinity" "${one:-none}" "$(workers_of "$T/aff.err")"
fi
NF_TIMINGS=1 "$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$T/def.db" -q --no-analyze > /dev/null 2> "$T/def.err"
n=$(workers_of "$T/def.err")
check "jobs/default/at-most-8" test -n "$n" -a "${n:-9}" -le 8
NF_TIMINGS=1 "$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$T/j12.db" -q --no-analyze -j 12 > /dev/null 2> "$T/j12.err"
check_eq "jobs/option/past-the-default" 12 "$(workers_of "$T/j12.err")"
