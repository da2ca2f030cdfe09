#!/bin/sh
# nccl-tests output (testdata/corpus/nccl-tests/, real runs on 2x H200): every
# result row of every file lands in table bandwidth (checked against the files
# themselves, read here with awk), the run facts (peaks, transports, settings,
# ratings), the findings, a #wrong variant (testdata/fixtures/bandwidth-wrong/:
# tree_allreduce.txt with one #wrong changed from 0 to 12) and one with
# out-of-bounds values made here, a file holding two runs, an env dump next to
# the output, `analyze` run again, and the report's Bandwidth section, JSON
# array and HTML chart.
. tests/lib.sh

CORPUS=testdata/corpus/nccl-tests
db="$TMP/nccl-tests.db"
"$NF_BIN" ingest "$CORPUS" -o "$db" -q > "$TMP/bw-ingest.out" 2>&1
check_eq "bandwidth/ingest-exit" 0 "$?"

# --- every row of every table, against the files ---
# numbers normalized on both sides (the files print 311.70, SQLite 311.7)
norm() { awk -F'|' 'BEGIN { OFS = "|" } { for (i = 8; i <= 11; i++) if ($i != "") $i = sprintf("%.4f", $i); print }'; }
for f in "$CORPUS"/*.txt; do
	fn=$(basename "$f")
	awk -v f="$fn" 'BEGIN { OFS = "|" }
		/^ *[0-9]+ +[0-9]+ +[a-z0-9_]+ +[a-z0-9_]+ +-?[0-9]+ / {
			print f, $1, $2, $3, $4, $5, "out-of-place", $6, $7, $8, $9
			print f, $1, $2, $3, $4, $5, "in-place", $10, $11, $12, $13
		}' "$f" | norm > "$TMP/bw-exp-$fn"
	sql "$db" "SELECT '$fn', size_bytes, count, dtype, redop, root, placement, time_us, algbw_gbs, busbw_gbs, wrong
		FROM bandwidth b JOIN sources s USING(source_id) WHERE s.path = '$fn'
		ORDER BY b.line_no, placement = 'in-place'" | tr '\t' '|' | norm > "$TMP/bw-got-$fn"
	check "bandwidth/rows/$fn" cmp "$TMP/bw-exp-$fn" "$TMP/bw-got-$fn"
	n=$(wc -l < "$TMP/bw-exp-$fn")
	check "bandwidth/rows/$fn/not-empty" test "$n" -gt 0
done
check_eq "bandwidth/row-count" 86 "$(sql "$db" "SELECT count(*) FROM bandwidth")"
check_eq "bandwidth/rows-per-run" "1 28|2 14|3 26|4 18" \
	"$(sql "$db" "SELECT run || ' ' || count(*) FROM bandwidth GROUP BY run ORDER BY run" | paste -sd '|')"
check_eq "bandwidth/every-row-event" 0 \
	"$(sql "$db" "SELECT count(*) FROM events e WHERE e.kind = 'nccl_tests_row'
		AND (SELECT count(*) FROM bandwidth b WHERE b.event_id = e.event_id) <> 2")"

# --- per run: collective, peaks, transport, settings, rating ---
runs=$(sql "$db" "SELECT s.path, b.collective, b.gpus, b.gpu_name, b.hosts, b.devices, b.channels,
		b.nccl_version, b.tests_version, b.avg_busbw_gbs, b.oob
	FROM bandwidth b JOIN sources s USING(source_id) GROUP BY b.run ORDER BY b.run" | tr '\t' '|')
check_eq "bandwidth/runs" "nvlink_allreduce.txt|all_reduce|2|NVIDIA H200|[\"vm\"]|[\"vm:0000:00:06\",\"vm:0000:00:07\"]|24|2.28.9+cuda13.0|2.19.6|80.2035|0
onechannel_allgather.txt|all_gather|2|NVIDIA H200|[\"vm\"]|[\"vm:0000:00:06\",\"vm:0000:00:07\"]||2.28.9+cuda13.0|2.19.6|8.43088|0
socket_allreduce.txt|all_reduce|2|NVIDIA H200|[\"vm\"]|[\"vm:0000:00:06\",\"vm:0000:00:07\"]|2|2.28.9+cuda13.0|2.19.6|1.46433|0
tree_allreduce.txt|all_reduce|2|NVIDIA H200|[\"vm\"]|[\"vm:0000:00:06\",\"vm:0000:00:07\"]||2.28.9+cuda13.0|2.19.6|64.1913|0" "$runs"

peak() { sql "$db" "SELECT printf('%.2f@%d', busbw_gbs, size_bytes) FROM bandwidth b JOIN sources s USING(source_id)
	WHERE s.path = '$1' AND is_peak = 1 AND placement = '$2'"; }
check_eq "bandwidth/peak/nvlink" "311.70@536870912" "$(peak nvlink_allreduce.txt out-of-place)"
check_eq "bandwidth/peak/socket" "4.09@134217728" "$(peak socket_allreduce.txt out-of-place)"
check_eq "bandwidth/peak/onechannel" "15.22@268435456" "$(peak onechannel_allgather.txt out-of-place)"
check_eq "bandwidth/peak/tree" "300.61@134217728" "$(peak tree_allreduce.txt out-of-place)"
check_eq "bandwidth/peak-in-place/nvlink" "317.24@536870912" "$(peak nvlink_allreduce.txt in-place)"
check_eq "bandwidth/peak-in-place/socket" "4.28@33554432" "$(peak socket_allreduce.txt in-place)"
check_eq "bandwidth/peak-in-place/onechannel" "20.04@268435456" "$(peak onechannel_allgather.txt in-place)"
check_eq "bandwidth/peak-in-place/tree" "300.89@134217728" "$(peak tree_allreduce.txt in-place)"
check_eq "bandwidth/one-peak-per-placement" "0" \
	"$(sql "$db" "SELECT count(*) FROM (SELECT run, placement FROM bandwidth GROUP BY 1, 2 HAVING sum(is_peak) <> 1)")"

col() { sql "$db" "SELECT DISTINCT coalesce($2, '-') FROM bandwidth b JOIN sources s USING(source_id) WHERE s.path = '$1'"; }
check_eq "bandwidth/transport/nvlink" "P2P" "$(col nvlink_allreduce.txt transport)"
check_eq "bandwidth/transport/socket" "NET/Socket" "$(col socket_allreduce.txt transport)"
check_eq "bandwidth/transport/onechannel" "-" "$(col onechannel_allgather.txt transport)"
check_eq "bandwidth/transport/tree" "-" "$(col tree_allreduce.txt transport)"
check_eq "bandwidth/transports/nvlink" '{"P2P":48}' "$(col nvlink_allreduce.txt transports)"
check_eq "bandwidth/transports/socket" '{"NET/Socket":8}' "$(col socket_allreduce.txt transports)"
check_eq "bandwidth/command/socket" \
	"NCCL_DEBUG=INFO NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_SOCKET_IFNAME=lo /tmp/ncb/all_reduce_perf -b 8 -e 256M -f 4 -g 2" \
	"$(col socket_allreduce.txt command)"
check_eq "bandwidth/env/socket" \
	'{"NCCL_DEBUG":"INFO","NCCL_NVLS_ENABLE":"0","NCCL_P2P_DISABLE":"1","NCCL_SHM_DISABLE":"1","NCCL_SOCKET_IFNAME":"lo"}' \
	"$(col socket_allreduce.txt env)"
check_eq "bandwidth/env/onechannel" '{"NCCL_DEBUG":"WARN","NCCL_MAX_NCHANNELS":"1"}' "$(col onechannel_allgather.txt env)"
check_eq "bandwidth/env/tree" '{"NCCL_ALGO":"Tree","NCCL_DEBUG":"WARN"}' "$(col tree_allreduce.txt env)"
check_eq "bandwidth/ratings" "nvlink_allreduce.txt as expected|onechannel_allgather.txt far below|socket_allreduce.txt far below|tree_allreduce.txt as expected" \
	"$(sql "$db" "SELECT DISTINCT s.path || ' ' || rating FROM bandwidth b JOIN sources s USING(source_id) ORDER BY 1" | paste -sd '|')"
check_eq "bandwidth/expected" "P2P over NVLink 4 250.0-450.0" \
	"$(sql "$db" "SELECT DISTINCT expected || ' ' || expected_low_gbs || '-' || expected_high_gbs FROM bandwidth")"

# --- findings: one per run, each tied to its rows ---
fsum() { sql "$db" "SELECT f.severity || ' ' || f.summary FROM findings f WHERE f.finding_id =
	(SELECT DISTINCT b.finding_id FROM bandwidth b JOIN sources s USING(source_id) WHERE s.path = '$1')"; }
has() { case $2 in *"$1"*) return 0 ;; *) return 1 ;; esac; }
check_eq "bandwidth/findings" 4 "$(sql "$db" "SELECT count(*) FROM findings WHERE kind = 'bandwidth'")"
s=$(fsum socket_allreduce.txt)
check "bandwidth/finding/socket-warning" has "warning NET/Socket run (socket_allreduce.txt" "$s"
check "bandwidth/finding/socket-76x-below-nvlink" has \
	"4.1 GB/s peak bus bandwidth at 128 MiB, 76x below the P2P/NVLink run of the same GPUs (311.7 GB/s" "$s"
check "bandwidth/finding/socket-far-below" has "far below the 250-450 GB/s expected of P2P over NVLink 4" "$s"
check "bandwidth/finding/socket-cause" has "probable cause: NCCL_P2P_DISABLE=1" "$s"
check "bandwidth/finding/socket-interface" has "interface lo" "$s"
s=$(fsum onechannel_allgather.txt)
check "bandwidth/finding/onechannel-warning" has "warning all_gather run (onechannel_allgather.txt" "$s"
check "bandwidth/finding/onechannel-far-below" has "15.2 GB/s peak bus bandwidth at 256 MiB; far below" "$s"
check "bandwidth/finding/onechannel-cause" has "probable cause: NCCL_MAX_NCHANNELS=1" "$s"
s=$(fsum nvlink_allreduce.txt)
check "bandwidth/finding/nvlink" has \
	"info P2P/NVLink run (nvlink_allreduce.txt, all_reduce_perf, 2x NVIDIA H200 on 1 host): 311.7 GB/s peak bus bandwidth at 512 MiB, the fastest of 3 all_reduce runs on these GPUs; as expected" "$s"
s=$(fsum tree_allreduce.txt)
check "bandwidth/finding/tree-as-expected" has "info all_reduce run (tree_allreduce.txt" "$s"
check "bandwidth/finding/tree-setting" has "set: NCCL_ALGO=Tree" "$s"
sql "$db" "SELECT f.severity, f.summary, coalesce(f.hint, '-') FROM findings f WHERE kind = 'bandwidth' ORDER BY finding_id" \
	> "$TMP/bw-findings.tsv"
check_golden "bandwidth/findings.tsv" "$TMP/bw-findings.tsv"
check_eq "bandwidth/evidence/socket-transport-line" "72" \
	"$(sql "$db" "SELECT e.line_no FROM evidence e JOIN bandwidth b USING(finding_id) JOIN sources s ON s.source_id = b.source_id
		WHERE s.path = 'socket_allreduce.txt' AND e.note = 'the transport' LIMIT 1")"

# analyze again: the same table
before=$(sql "$db" "SELECT count(*), sum(busbw_gbs), count(DISTINCT finding_id) FROM bandwidth")
check "bandwidth/analyze-exit" "$NF_BIN" analyze "$db" -q
check_eq "bandwidth/analyze-same" "$before" \
	"$(sql "$db" "SELECT count(*), sum(busbw_gbs), count(DISTINCT finding_id) FROM bandwidth")"

# --- data corruption: #wrong not 0 on one row ---
wdb="$TMP/bw-wrong.db"
"$NF_BIN" ingest testdata/fixtures/bandwidth-wrong -o "$wdb" -q > /dev/null 2>&1
check_eq "bandwidth/wrong/row" "2097152 out-of-place 12" \
	"$(sql "$wdb" "SELECT size_bytes, placement, wrong FROM bandwidth WHERE wrong > 0" | tr '\t' ' ')"
s=$(sql "$wdb" "SELECT severity || ' ' || summary FROM findings WHERE kind = 'bandwidth'")
check "bandwidth/wrong/error" has "error Data corruption in the all_reduce run (tree_allreduce_wrong.txt" "$s"
check "bandwidth/wrong/what" has "12 wrong elements at 2 MiB out of place (#wrong)" "$s"
check_eq "bandwidth/wrong/cites-row" "20" \
	"$(sql "$wdb" "SELECT line_no FROM evidence WHERE note = '#wrong is not 0'")"
# ... and out-of-bounds values in the footer, fast as the run is
mkdir -p "$TMP/bw-oob"
sed 's/Out of bounds values : 0 OK/Out of bounds values : 3 FAILED/' "$CORPUS/nvlink_allreduce.txt" > "$TMP/bw-oob/nvlink_oob.txt"
odb="$TMP/bw-oob.db"
"$NF_BIN" ingest "$TMP/bw-oob" -o "$odb" -q > /dev/null 2>&1
s=$(sql "$odb" "SELECT severity || ' ' || summary FROM findings WHERE kind = 'bandwidth'")
check "bandwidth/oob/error" has "error Data corruption in the P2P/NVLink run" "$s"
check "bandwidth/oob/what" has "3 out-of-bounds values" "$s"

# --- one file, two runs; an env dump next to it ---
mkdir -p "$TMP/bw-two/job"
cat "$CORPUS/socket_allreduce.txt" "$CORPUS/onechannel_allgather.txt" > "$TMP/bw-two/job/both.txt"
printf 'NCCL_PROTO=Simple\n' > "$TMP/bw-two/job/env.txt"
tdb="$TMP/bw-two.db"
"$NF_BIN" ingest "$TMP/bw-two" -o "$tdb" -q > /dev/null 2>&1
check_eq "bandwidth/two-runs" "1 all_reduce 26 NET/Socket|2 all_gather 14 -" \
	"$(sql "$tdb" "SELECT run, collective, count(*), coalesce(transport, '-') FROM bandwidth GROUP BY run ORDER BY run" | tr '\t' ' ' | paste -sd '|')"
check_eq "bandwidth/two-runs/commands" "-b 8 -e 256M -f 4 -g 2|-b 1K -e 512M -f 8 -g 2" \
	"$(sql "$tdb" "SELECT DISTINCT substr(command, instr(command, ' -b')+1) FROM bandwidth ORDER BY run" | paste -sd '|')"
check_eq "bandwidth/neighbour-env" '{"NCCL_DEBUG":"WARN","NCCL_MAX_NCHANNELS":"1","NCCL_PROTO":"Simple"}' \
	"$(sql "$tdb" "SELECT DISTINCT env FROM bandwidth WHERE run = 2")"

# --- a launcher's settings: mpirun -x NAME=VALUE ---
mkdir -p "$TMP/bw-mpi"
{ echo '$ mpirun -np 2 -x NCCL_ALGO=Ring -x NCCL_IB_HCA=mlx5_0 ./build/all_reduce_perf -b 8 -e 512M -f 8 -g 1'
  sed 1d "$CORPUS/tree_allreduce.txt"; } > "$TMP/bw-mpi/out.log"
mdb="$TMP/bw-mpi.db"
"$NF_BIN" ingest "$TMP/bw-mpi" -o "$mdb" -q > /dev/null 2>&1
check_eq "bandwidth/launcher-env" '{"NCCL_ALGO":"Ring","NCCL_IB_HCA":"mlx5_0"}' "$(sql "$mdb" "SELECT DISTINCT env FROM bandwidth")"

# --- the report ---
"$NF_BIN" report "$db" --format md > "$TMP/bw.md"
check "bandwidth/report/md-section" grep -q '^## Bandwidth$' "$TMP/bw.md"
check "bandwidth/report/md-row" grep -q '^| 3 | `socket_allreduce.txt` | all_reduce | 2x NVIDIA H200 | NET/Socket | 4.1 GB/s at 128 MiB |' "$TMP/bw.md"
"$NF_BIN" report "$db" --format json > "$TMP/bw.json"
check_eq "bandwidth/report/json" "4|311.7|536870912|NET/Socket|far below|14" \
	"$(jq -r '[(.bandwidth | length), .bandwidth[0].peak_busbw_gbs, .bandwidth[0].peak_size_bytes,
		.bandwidth[2].transport, .bandwidth[2].rating, (.bandwidth[0].points | length)] | join("|")' "$TMP/bw.json")"
"$NF_BIN" report "$db" --format html > "$TMP/bw.html"
check "bandwidth/report/html-well-formed" xmllint --noout "$TMP/bw.html"
check_eq "bandwidth/report/html-chart-lines" 4 "$(grep -o '<polyline class="run"' "$TMP/bw.html" | wc -l | tr -d ' ')"
"$NF_BIN" report "$db" --format json --redact > "$TMP/bw.redact.json"
check_eq "bandwidth/report/redacted-host" "node-A" "$(jq -r '.bandwidth[0].hosts[0]' "$TMP/bw.redact.json")"

# --- a row whose pieces stdout glued in front of NCCL's stderr lines ---
# nccl-tests' buffered stdout and NCCL's unbuffered stderr share one file: the
# row's columns come in three pieces, two of them before an NCCL line; the row
# and both NCCL lines become events, and the lines table keeps the 8 lines.
glued="$TMP/glued.log"
{
	echo 'hostg:701:701 [0] NCCL INFO comm 0x5600 rank 0 nranks 2 cudaDev 0 busId 17000 - Init COMPLETE'
	echo '#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong'
	echo '     8388608       2097152     float     sum      -1hostg:701:701 [1] NCCL INFO AllReduce: opCount 0 sendbuff 0x72 recvbuff 0x92 count 2097152 datatype 7 op 0 root 0 comm 0x55 [nranks=2] stream 0x55'
	echo 'hostg:701:701 [0] NCCL INFO AllReduce: 8388608 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}'
	echo '    83.33  100.66  100.66      0hostg:701:701 [1] NCCL INFO AllReduce: opCount 1 sendbuff 0x92 recvbuff 0x92 count 2097152 datatype 7 op 0 root 0 comm 0x55 [nranks=2] stream 0x55'
	echo '    80.98  103.59  103.59      0'
	echo '# Out of bounds values : 0 OK'
	echo '# Avg bus bandwidth    : 102.1 '
} > "$glued"
"$NF_BIN" ingest "$glued" -o "$TMP/glued.db" -q --force > /dev/null
check_eq "bandwidth/glued/ingest-exit" 0 "$?"
check_eq "bandwidth/glued/row" "$(printf '8388608\t2097152\t100.66\t103.59')" \
	"$(sql "$TMP/glued.db" "SELECT field(fields,'size'), field(fields,'count'), field(fields,'oop_busbw'), field(fields,'ip_busbw') FROM events WHERE kind = 'nccl_tests_row'")"
check_eq "bandwidth/glued/nccl-lines" 3 "$(sql "$TMP/glued.db" "SELECT count(*) FROM events WHERE kind = 'nccl_coll' OR kind LIKE 'nccl_algo%' OR kind = 'nccl_comm_init'")"
check_eq "bandwidth/glued/lines-kept" 8 "$(sql "$TMP/glued.db" "SELECT count(*) FROM lines")"
