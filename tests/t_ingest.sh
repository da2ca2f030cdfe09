#!/bin/sh
# Ingest of every real job (testdata/corpus, testdata/realjobs): ranks, hosts, line counts, attribution of the
# per-rank files, watchdog timeouts and flight-recorder entries per rank.
. tests/lib.sh

# flight-recorder entries per rank, counted independently with Python's pickletools
fr_expected() {
	case $1 in
	big) echo "0:766 1:766 2:766 3:766 4:766 5:766 6:766 7:766" ;;
	exception) echo "0:36 1:36 4:36 5:36 6:36 7:36" ;;
	freeze) echo "0:31 1:31 2:31 3:31 4:31 5:31" ;;
	healthy) echo "0:154 1:154 2:154 3:154" ;;
	kill) echo "0:67 1:67 2:67 3:67 4:67 5:67" ;;
	mismatch_op) echo "0:26 1:26 2:26 3:26" ;;
	skip) echo "0:51 1:57 2:51 3:57 4:50 5:57" ;;
	stall) echo "0:41 1:41 2:36 3:41 4:41 5:41" ;;
	straggler) echo "0:103 1:103 2:103 3:103 4:103 5:103" ;;
	*) echo "" ;;
	esac
}

nth=0
for tgz in testdata/corpus/*.tar.gz testdata/realjobs/*.tar.gz; do
	nth=$((nth + 1))
	nf_sampled "$tgz" "$nth" || continue
	set_=$(basename "$(dirname "$tgz")")
	job=$(basename "$tgz" .tar.gz)
	db=$(ingest_case "$job" "$set_")
	[ "$set_" = corpus ] || job="$set_/$job"
	check_eq "ingest/$job/exit-0" 0 "$(cat "${db%.db}.rc" 2> /dev/null)"
	check "ingest/$job/case-written" test -f "$db"
	exp_ranks=$(grep -o "\"$(basename "$job")\": *{\"ranks\": [0-9]*" "testdata/$set_/answers.json" | grep -o '[0-9]*$')
	# ranks per node: the local-rank directories of the per-rank files (2 in
	# most jobs, 4 in testdata/realjobs/n4_*)
	per=$(tar tzf "$tgz" | grep -o '/attempt_0/[0-9]*/' | sort -u | wc -l)
	[ "$per" -gt 0 ] || per=2
	# every value the checks below compare, in one query (a process start
	# costs more than most of these queries: DEVELOPING.md)
	IFS='|' read -r ranks hosts lines_and_skipped stored meta bad_rank_log bad_nccl_debug bad_console bad_hosts \
		wd_events wd_lines fr_per_rank fr_kept fr_over_32 fr_untyped fr_events fr_rows kinds_counts kinds_fields <<EOF
$(sql "$db" "SELECT coalesce((SELECT count(*) FROM ranks), '')
	|| '|' || coalesce((SELECT count(DISTINCT host) FROM ranks), '')
	|| '|' || coalesce((SELECT (SELECT count(*) FROM lines) + (SELECT sum(skipped_lines) FROM sources)), '')
	|| '|' || coalesce((SELECT count(*) FROM lines), '')
	|| '|' || coalesce((SELECT sum(stored_lines) FROM sources), '')
	|| '|' || coalesce((SELECT count(*) FROM lines l JOIN sources s USING(source_id) WHERE s.kind='rank_log' AND
		(l.rank IS NULL OR l.rank <> $per*(CAST(substr(s.path, instr(s.path,'gpu-node')+8, 2) AS INTEGER)-1)
		 + CAST(substr(s.path, length(s.path) - 11, 1) AS INTEGER))), '')
	|| '|' || coalesce((SELECT count(*) FROM lines l JOIN sources s USING(source_id) WHERE s.kind='nccl_debug' AND l.rank IS NULL), '')
	|| '|' || coalesce((SELECT count(*) FROM lines l JOIN sources s USING(source_id) WHERE l.text LIKE '[default%' AND l.rank IS NULL), '')
	|| '|' || coalesce((SELECT count(*) FROM sources WHERE path LIKE '%gpu-node%' AND (host IS NULL OR instr(path, host) = 0)), '')
	|| '|' || coalesce((SELECT count(*) FROM events WHERE kind='pg_watchdog_timeout'), '')
	|| '|' || coalesce((SELECT count(*) FROM lines WHERE text LIKE '%Watchdog caught collective operation timeout%'), '')
	|| '|' || coalesce((SELECT coalesce(group_concat(rank || ':' || n, ' '), '') FROM (SELECT rank, sum(json_extract(fields,'\$.entries')) n
		FROM events WHERE kind='fr_kept' GROUP BY rank ORDER BY rank)), '')
	|| '|' || coalesce((SELECT (SELECT count(*) FROM events WHERE kind='fr_entry') = (SELECT coalesce(sum(json_extract(fields,'\$.entries_kept')), 0) FROM events WHERE kind='fr_kept')), '')
	|| '|' || coalesce((SELECT count(*) FROM (SELECT e.source_id, e.rank, f.pg_id g, count(*) n FROM events e JOIN fr_entries f USING(event_id)
		WHERE f.state = 'completed' GROUP BY 1, 2, 3 HAVING n > 32)), '')
	|| '|' || coalesce((SELECT count(*) FROM events e LEFT JOIN fr_entries f USING(event_id) WHERE e.kind = 'fr_entry'
		AND (f.event_id IS NULL OR f.rank IS NOT e.rank OR f.seq IS NULL OR f.state IS NULL
		OR json_extract(e.fields, '\$.seq') IS NOT NULL OR json_extract(e.fields, '\$.state') IS NOT NULL)), '')
	|| '|' || coalesce((SELECT count(*) FROM events WHERE kind = 'fr_entry'), '')
	|| '|' || coalesce((SELECT count(*) FROM fr_entries), '')
	|| '|' || coalesce((SELECT count(*) FROM (SELECT kind, count(*) n FROM events GROUP BY kind) e FULL JOIN kinds k USING(kind) WHERE k.events IS NOT e.n), '')
	|| '|' || coalesce((SELECT count(*) FROM events e, json_each(e.fields) j JOIN kinds k ON k.kind = e.kind
		WHERE instr(' ' || k.fields || ' ', ' ' || j.key || ' ') = 0), '')")
EOF
	check_eq "ingest/$job/ranks" "$exp_ranks" "$ranks"
	check_eq "ingest/$job/hosts" "$((exp_ranks / per))" "$hosts"

	# every input line is a row of lines or a counted skipped line (lines as
	# the tool counts them, in text and binary alike: "\n", "\r\n" and "\r"
	# end one, and a last line without one counts)
	x="$TMP/x-$set_-$(basename "$job")"
	rm -rf "$x"; mkdir -p "$x"; tar xzf "$tgz" -C "$x"
	total=$(find "$x" -type f -exec perl -0777 -ne '$n = () = /\r\n|\r|\n/g; $n++ if length && !/[\r\n]\z/; print $n + 0, "\n"' {} + | awk '{ n += $1 } END { print n + 0 }')
	check_eq "ingest/$job/no-line-lost" "$total" "$lines_and_skipped"
	check_eq "ingest/$job/lines-rows-match-sources" "$meta" "$stored"

	# each per-rank file (.../attempt_N/L/std{out,err}.log): node NN, local rank L
	# -> rank per*(NN-1)+L
	check_eq "ingest/$job/per-rank-file-lines-attributed" 0 "$bad_rank_log"
	check_eq "ingest/$job/nccl-debug-lines-attributed" 0 "$bad_nccl_debug"
	check_eq "ingest/$job/console-worker-lines-attributed" 0 "$bad_console"
	check_eq "ingest/$job/source-hosts" 0 "$bad_hosts"

	# watchdog timeouts: one event per line that says so, a console copy of a
	# per-rank line not counted twice
	exp=$(find "$x" -type f ! -name console.log -exec grep -h "Watchdog caught collective operation timeout" {} + |
		grep -vc "watchdog thread terminated with exception")
	check_eq "ingest/$job/watchdog-timeouts" "$exp" "$wd_events"
	exp=$(grep -rh "Watchdog caught collective operation timeout" "$x" | wc -l)
	check_eq "ingest/$job/watchdog-timeout-lines" "$exp" "$wd_lines"

	# flight-recorder entries per rank: all read, and the ones kept as events
	# (every entry not completed, the last 32 completed of each group)
	[ "$set_" = corpus ] && check_eq "ingest/$job/flight-recorder-entries" "$(fr_expected "$job")" "$fr_per_rank"
	check_eq "ingest/$job/flight-recorder-entries-kept" 1 "$fr_kept"
	check_eq "ingest/$job/flight-recorder-completed-kept-at-most-32-per-dump" 0 "$fr_over_32"
	# every fr_entry event has its typed row (same rank), and keeps in its
	# fields only what no column holds
	check_eq "ingest/$job/fr-entries-typed" 0 "$fr_untyped"
	check_eq "ingest/$job/fr-entries-no-extra" "$fr_events" "$fr_rows"
	# kinds: one row per kind with its count, and every key its events carry
	check_eq "ingest/$job/kinds-counts" 0 "$kinds_counts"
	check_eq "ingest/$job/kinds-fields" 0 "$kinds_fields"
	rm -rf "$x"
done

# a per-rank file's NCCL lines that a launcher console copied are not matched
# (the console's copies are the events); without the consoles they are, and
# the job has the same NCCL events, kind by kind
for job in stall freeze; do
	x="$TMP/noconsole-$job"
	rm -rf "$x"; mkdir -p "$x"; tar xzf "testdata/corpus/$job.tar.gz" -C "$x"
	find "$x" -name console.log -delete
	"$NF_BIN" ingest "$x" -o "$x.db" -q --no-analyze > /dev/null 2>&1
	db=$(ingest_case "$job")
	q="SELECT group_concat(kind || ':' || n, ' ') FROM (SELECT kind, count(*) n FROM events WHERE kind LIKE 'nccl%' GROUP BY kind ORDER BY kind)"
	check_eq "ingest/$job/nccl-events-with-or-without-consoles" "$(sql "$db" "$q")" "$(sql "$x.db" "$q")"
	check_eq "ingest/$job/nccl-lines-console-copied-counted" 1 \
		"$(sql "$db" "SELECT value > 0 FROM meta WHERE key = 'nccl_lines_console_copied'")"
	check_eq "ingest/$job/no-console-nothing-copied" 0 \
		"$(sql "$x.db" "SELECT value FROM meta WHERE key = 'nccl_lines_console_copied'")"
	rm -rf "$x" "$x.db"
done
# a console that stopped early (a frozen node): the per-rank file's NCCL lines
# past its copy are events from the file
got=$(sql "$(ingest_case freeze_warn realjobs)" "SELECT count(*) > 0 FROM events e JOIN sources s USING(source_id)
  WHERE s.kind = 'rank_log' AND e.kind LIKE 'nccl%'")
check_eq "ingest/realjobs/freeze_warn/nccl-events-past-the-console-copy" 1 "$got"

# the same input twice gives the same content
db1="$TMP/a.db"; db2="$TMP/b.db"
"$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$db1" -q > /dev/null 2>&1
"$NF_BIN" ingest testdata/corpus/stall.tar.gz -o "$db2" -q > /dev/null 2>&1
q="SELECT count(*), sum(length(fields)), sum(line_no), sum(coalesce(time_us,0) % 1000003) FROM events"
check_eq "ingest/deterministic-events" "$(sql "$db1" "$q")" "$(sql "$db2" "$q")"
q="SELECT count(*), sum(length(text)), sum(coalesce(rank, -1)) FROM lines"
check_eq "ingest/deterministic-lines" "$(sql "$db1" "$q")" "$(sql "$db2" "$q")"

# a case written before fr_entries and kinds existed (schema 1: the entries'
# values in their events' fields): opening it makes the table from the events,
# the same as an ingest makes it, and the analysis and the report are the same
old_case() {
	new=$(ingest_case "$1")
	old="$TMP/old-$1.db"
	cp "$new" "$old"
	"$NF_BIN" sql --write "$old" "UPDATE events SET fields = json_patch(json_patch('{}', json_object('record_id', f.record_id,
	  'pg_id', f.pg_id, 'pg_name', f.pg_name, 'pg_desc', f.pg_desc, 'seq', f.seq, 'p2p_seq', f.p2p_seq,
	  'is_p2p', nullif(f.is_p2p, 0), 'op', f.op, 'numel_in', f.numel_in, 'numel_out', f.numel_out, 'dtype', f.dtype,
	  'state', f.state, 'time_created_us', f.time_created_us, 'time_started_us', f.time_started_us,
	  'time_completed_us', f.time_completed_us, 'duration_ms', f.duration_ms, 'timeout_ms', f.timeout_ms,
	  'frame', f.frame)), events.fields) FROM fr_entries f
	  WHERE events.kind = 'fr_entry' AND f.event_id = events.event_id" > /dev/null
	"$NF_BIN" sql --write "$old" "DROP TABLE fr_entries" > /dev/null
	"$NF_BIN" sql --write "$old" "DROP TABLE kinds" > /dev/null
	"$NF_BIN" sql --write "$old" "UPDATE meta SET value = '1' WHERE key = 'schema_version'" > /dev/null
	# read-only (reports, the TUI): the table is made in the connection's temporary schema
	cp "$old" "$TMP/old-ro-$1.db"
	"$NF_BIN" report "$new" --format md > "$TMP/new-$1.md" 2>&1
	"$NF_BIN" report "$TMP/old-ro-$1.db" --format md > "$TMP/old-$1.md" 2>&1
	check_eq "ingest/old-case/$1/read-only-report" "$(grep -c 'flight recorder entry' "$TMP/new-$1.md")" \
		"$(grep -c 'flight recorder entry' "$TMP/old-$1.md")"
	check_eq "ingest/old-case/$1/read-only-left-alone" "$(md5sum < "$old")" "$(md5sum < "$TMP/old-ro-$1.db")"
	q="SELECT * FROM fr_entries ORDER BY event_id"
	check_eq "ingest/old-case/$1/fr-entries" "$(sql "$new" "$q" | md5sum)" "$(sql "$old" "$q" | md5sum)"
	"$NF_BIN" analyze "$old" -q > /dev/null 2>&1
	q="SELECT outcome, cause, culprit_ranks, process_group, seq, op FROM verdict"
	check_eq "ingest/old-case/$1/verdict" "$(sql "$new" "$q")" "$(sql "$old" "$q")"
	q="SELECT count(*), sum(seq), group_concat(DISTINCT pg) FROM collectives"
	check_eq "ingest/old-case/$1/collectives" "$(sql "$new" "$q")" "$(sql "$old" "$q")"
}
old_case stall
old_case mismatch_op
check_eq "ingest/old-case/report-shows-entries" 1 "$([ "$(grep -c 'flight recorder entry' "$TMP/new-mismatch_op.md")" -gt 0 ] && echo 1)"

# analyze --reattribute on a case made earlier: the attribution runs again
# from the events (no load to collect the processes from) and must find the
# same processes, ranks and event ranks
for job in stall kill; do
	re="$TMP/reattr-$job.db"
	cp "$(ingest_case "$job")" "$re"
	check "ingest/reattribute/$job/runs" "$NF_BIN" analyze "$re" --reattribute -q
	for q in "SELECT * FROM procs ORDER BY rowid" "SELECT * FROM ranks ORDER BY rank" \
		"SELECT event_id, host, rank, local_rank FROM events ORDER BY event_id" \
		"SELECT outcome, cause, culprit_ranks FROM verdict"; do
		check_eq "ingest/reattribute/$job/$(echo "$q" | cut -d' ' -f4-5 | tr -d ',')" \
			"$(sql "$(ingest_case "$job")" "$q" | md5sum)" "$(sql "$re" "$q" | md5sum)"
	done
done

# --- one of PyTorch's lines cut into an NCCL line (two streams, one file) ---
# the NCCL line and the watchdog's line both become events; one line is kept
cut="$TMP/cut.log"
{
	echo 'hostc:4138718:4138718 [0] NCCL INFO comm 0x55 rank 0 nranks 2 cudaDev 0 busId 7000 - Init COMPLETE'
	echo 'hostc:4138718:413[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, NumelIn=1, NumelOut=2, Timeout(ms)=120000) ran for 120035 milliseconds before timing out.'
	echo 'hostc:4138719:4138719 [1] NCCL INFO NCCL_CROSS_[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, NumelIn=1, NumelOut=2, Timeout(ms)=120000) ran for 120008 milliseconds before timing out.'
} > "$cut"
"$NF_BIN" ingest "$cut" -o "$TMP/cut.db" -q --force > /dev/null
check_eq "ingest/cut-line/exit" 0 "$?"
check_eq "ingest/cut-line/timeouts" "0 1|1 1" \
	"$(sql "$TMP/cut.db" "SELECT rank || ' ' || field(fields, 'seq') FROM events WHERE kind = 'pg_watchdog_timeout' ORDER BY rank" | paste -sd'|')"
check_eq "ingest/cut-line/lines" 3 "$(sql "$TMP/cut.db" "SELECT count(*) FROM lines")"
check_eq "ingest/cut-line/verdict" "hang|1|ALLGATHER" "$(sql "$TMP/cut.db" "SELECT outcome || '|' || seq || '|' || op FROM verdict")"

# --- a flight-recorder dump without a rank field, named _dump_N ---
# its rank is the one every group of its pg_config lists (2, not the 7 of its
# name; one list out of order); its pg_status ids without entries pair with
# the groups' names
mkdir -p "$TMP/dumpnamed"
python3 - "$TMP/dumpnamed/_dump_7" <<'PY'
import pickle, sys
d = {"version": "2.9", "nccl_version": "2.27.3", "entries": [],
     "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"},
                   "5": {"name": "5", "desc": "tp", "ranks": "[3, 2]"},
                   "9": {"name": "9", "desc": "dp", "ranks": "[0, 2]"}},
     "pg_status": {"0": {"last_enqueued_collective": 4, "last_started_collective": -1, "last_completed_collective": 4},
                   "1": {"last_enqueued_collective": 17, "last_started_collective": -1, "last_completed_collective": 17},
                   "3": {"last_enqueued_collective": 9, "last_started_collective": -1, "last_completed_collective": 9}}}
pickle.dump(d, open(sys.argv[1], "wb"), protocol=2)
PY
"$NF_BIN" ingest "$TMP/dumpnamed" -o "$TMP/dumpnamed.db" -q --force > /dev/null
check_eq "ingest/dump-rank/from-groups" 2 "$(sql "$TMP/dumpnamed.db" "SELECT DISTINCT rank FROM events WHERE kind = 'fr_dump'")"
check_eq "ingest/dump-rank/groups-paired" "0 4|5 17|9 9" \
	"$(sql "$TMP/dumpnamed.db" "SELECT field(fields, 'pg_name') || ' ' || field(fields, 'last_enqueued') FROM events WHERE kind = 'fr_pg_status' ORDER BY CAST(field(fields, 'pg_name') AS INTEGER)" | paste -sd'|')"
# ... and one whose groups all list every rank: the rank is its name's N
mkdir -p "$TMP/dumpname2"
python3 - "$TMP/dumpname2/trace_dump_5" <<'PY'
import pickle, sys
d = {"version": "2.9", "entries": [], "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3, 4, 5]"}},
     "pg_status": {"0": {"last_enqueued_collective": 4, "last_started_collective": -1, "last_completed_collective": 4}}}
pickle.dump(d, open(sys.argv[1], "wb"), protocol=2)
PY
"$NF_BIN" ingest "$TMP/dumpname2" -o "$TMP/dumpname2.db" -q --force > /dev/null
check_eq "ingest/dump-rank/from-name" 5 "$(sql "$TMP/dumpname2.db" "SELECT DISTINCT rank FROM events WHERE kind = 'fr_dump'")"

# --- an NCCL line whose host another stream cut ("xn0" for "x3006c0s19b1n0") ---
# it is the host whose pid:tid it carries, once that host has printed 8 lines
cuthost="$TMP/cuthost.log"
{
	i=0
	while [ $i -lt 8 ]; do
		echo "x3006c0s19b1n0:4138719:4138856 [1] NCCL INFO Channel 0$i/0 : 1[1] -> 2[2] via P2P/CUMEM/read"
		i=$((i + 1))
	done
	echo 'xn0:4138719:4138856 [1] NCCL INFO Channel 09/0 : 1[1] -> 2[2] via P2P/CUMEM/read'
	echo 'node7:4138719:4138856 [0] NCCL INFO Channel 09/0 : 3[1] -> 4[2] via P2P/CUMEM/read'
} > "$cuthost"
"$NF_BIN" ingest "$cuthost" -o "$TMP/cuthost.db" -q --force > /dev/null
check_eq "ingest/cut-host/hosts" "node7 1|x3006c0s19b1n0 9" \
	"$(sql "$TMP/cuthost.db" "SELECT host || ' ' || count(*) FROM events GROUP BY host ORDER BY host" | paste -sd'|')"

# --- a paste: a progress bar glued in front, the line cut at a fixed width ---
# the three pieces make one watchdog timeout; the lines table keeps 3 lines
wrapped="$TMP/wrapped.log"
{
	printf '%s\n' 'Epoch 0:  78%|#####################################################                | 64809/83556 [25:06:58<7:15:54,  1.40s/it, v_num=18][rank1]:[E ProcessGroupNCCL.cpp:563] [Rank '
	printf '%s\n' '1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1363596, OpType=BROADCAST, NumelIn=5158880, NumelOut=5158880, Timeout(ms)=1800000) ran for 1800047 milliseconds before timin'
	printf '%s\n' 'g out.'
} > "$wrapped"
"$NF_BIN" ingest "$wrapped" -o "$TMP/wrapped.db" -q --force > /dev/null
check_eq "ingest/wrapped/timeout" "1|1363596|BROADCAST|3" \
	"$(sql "$TMP/wrapped.db" "SELECT rank || '|' || field(fields, 'seq') || '|' || field(fields, 'op') || '|' || line_no FROM events WHERE kind = 'pg_watchdog_timeout'")"
check_eq "ingest/wrapped/lines" 3 "$(sql "$TMP/wrapped.db" "SELECT count(*) FROM lines")"

# --- one host under two names: NCCL's short one, torchrun's report's FQDN ---
fqdn="$TMP/fqdn.log"
{
	echo 'node1:4242:4242 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE'
	echo 'node1:4243:4243 [1] NCCL INFO comm 0x55d1 rank 1 nranks 2 cudaDev 1 busId 2000 - Init COMPLETE'
	echo 'Root Cause (first observed failure):'
	echo '[0]:'
	echo '  time      : 2024-05-01_10:00:00'
	echo '  host      : node1.cluster.example.org'
	echo '  rank      : 1 (local_rank: 1)'
	echo '  exitcode  : -11 (pid: 4243)'
	echo '  error_file: <N/A>'
	echo '  traceback : Signal 11 (SIGSEGV) received by PID 4243'
} > "$fqdn"
"$NF_BIN" ingest "$fqdn" -o "$TMP/fqdn.db" -q --force > /dev/null
check_eq "ingest/fqdn/one-host" "node1" "$(sql "$TMP/fqdn.db" "SELECT DISTINCT host FROM procs" | paste -sd'|')"
check_eq "ingest/fqdn/ranks" "0 node1 4242|1 node1 4243" \
	"$(sql "$TMP/fqdn.db" "SELECT rank || ' ' || host || ' ' || pid FROM ranks ORDER BY rank" | paste -sd'|')"

# --- progress printed under srun -l's labels: one stream a rank ---
steps="$TMP/steps.log"
{
	for s in 1 2 3; do
		for r in 0 1 2 3; do
			[ "$s" = 3 ] && [ "$r" = 2 ] && continue
			echo " $r: RANK $r: running step $s/10"
		done
	done
	echo 'slurmstepd: error: *** JOB 77 ON nodeA CANCELLED AT 2024-05-01T10:00:00 DUE TO TIME LIMIT ***'
} > "$steps"
"$NF_BIN" ingest "$steps" -o "$TMP/steps.db" -q --force > /dev/null
check_eq "ingest/steps/per-rank-count" "0 3|1 3|2 2|3 3" \
	"$(sql "$TMP/steps.db" "SELECT rank || ' ' || max(field(fields, 'n')) FROM events WHERE kind = 'app_step' GROUP BY rank ORDER BY rank" | paste -sd'|')"
check_eq "ingest/steps/verdict" "hang rank_stalled [2]" \
	"$(sql "$TMP/steps.db" "SELECT outcome || ' ' || cause || ' ' || culprit_ranks FROM verdict")"
