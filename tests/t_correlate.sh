#!/bin/sh
# Network, system messages and configuration (docs/correlation.md): the
# network table of every corpus job, no finding from the corpus boot noise, the
# bad_ifname finding, and fixtures built from corpus jobs by ADDING the files of
# testdata/fixtures/<name>/ (never editing a real line), each with a golden
# verdict and findings under tests/golden/correlate/.
. tests/lib.sh

q() { "$NF_BIN" sql "$1" "$2" --json; }
has() { case "$2" in *"$1"*) return 0 ;; esac; return 1; }
mine="('missing_interface','network_differs','socket_fallback','transport_fallback','gpu_fault','gpu_xid','link_event',
 'oom_kill','host_error','config_unknown','config_deprecated','config_ignored','config_differs','config_tuner')"

# ---- the corpus ----
for tgz in testdata/corpus/*.tar.gz; do
	job=$(basename "$tgz" .tar.gz)
	db=$(ingest_case "$job")
	# one row per process (comm_id NULL), every rank there
	n=$(sql "$db" "SELECT count(DISTINCT rank) FROM network WHERE comm_id IS NULL")
	check_eq "correlate/$job/network-every-rank" "$(sql "$db" "SELECT count(*) FROM ranks")" "$n"
	# every process that finished init: Socket over lo, GPUDirect RDMA off; bootstrap on lo where the
	# logs have NCCL's BOOTSTRAP lines (healthy and skip ran with NCCL_DEBUG_SUBSYS=INIT,COLL: none)
	if tar xzOf "$tgz" | grep -q "NCCL INFO Bootstrap: Using"; then boot="'lo'" addr="'127.0.0.1'"; else boot=NULL addr=NULL; fi
	bad=$(sql "$db" "SELECT count(*) FROM network n JOIN rank_status r USING(rank) WHERE r.init_complete = 1 AND
		(n.network IS NOT 'Socket' OR n.bootstrap_if IS NOT $boot OR n.bootstrap_addr IS NOT $addr
		 OR n.net_plugin IS NOT 'Socket' OR n.net_devices IS NOT '[0]lo:127.0.0.1<0>'
		 OR (n.comm_id IS NULL AND n.gdr IS NOT 'off'))")
	check_eq "correlate/$job/network-socket-lo" 0 "$bad"
	# between nodes NET/Socket, inside a node P2P/CUMEM, on every rank that connected
	bad=$(sql "$db" "SELECT count(*) FROM network n JOIN rank_status r USING(rank) WHERE n.comm_id IS NULL
		AND r.init_complete = 1 AND (coalesce(json_extract(n.transports,'\$.\"NET/Socket\"'), 0) = 0
		OR coalesce(json_extract(n.transports,'\$.\"P2P/CUMEM\"'), 0) = 0
		OR (SELECT count(*) FROM json_each(n.transports)) <> 2)")
	check_eq "correlate/$job/network-transports" 0 "$bad"
	# every run of channel lines was given to one communicator: the process row is their sum
	n=$(sql "$db" "SELECT count(*) FROM network p WHERE p.comm_id IS NULL AND p.transports IS NOT NULL
		AND (SELECT sum(j.value) FROM json_each(p.transports) j) IS NOT (SELECT sum(j.value) FROM network c,
		json_each(c.transports) j WHERE c.comm_id IS NOT NULL AND c.host = p.host AND c.pid = p.pid)")
	check_eq "correlate/$job/network-channels-placed" 0 "$n"
	# the whole table, pinned
	q "$db" "SELECT host, rank, pid, comm_id, bootstrap_if, bootstrap_addr, socket_ifname_env, ib_hca_env, net_plugin,
		net_devices, network, gdr, transports FROM network ORDER BY host, rank, comm_id IS NOT NULL, comm_id" \
		> "$TMP/network-$job.json"
	check_golden "correlate/network-$job.json" "$TMP/network-$job.json"
	# the corpus dmesg.txt is boot noise of a host-less machine: nothing tied to the job, no finding
	check_eq "correlate/$job/sysmsgs-not-tied" 0 "$(sql "$db" "SELECT count(*) FROM sysmsgs WHERE rank IS NOT NULL OR host IS NOT NULL")"
	check_eq "correlate/$job/no-sysmsg-finding" 0 \
		"$(sql "$db" "SELECT count(*) FROM findings WHERE kind IN ('gpu_fault','gpu_xid','link_event','oom_kill','host_error')")"
	# network findings only where the job has a network problem
	n=$(sql "$db" "SELECT count(*) FROM findings WHERE kind IN ('missing_interface','network_differs','socket_fallback','transport_fallback')")
	if [ "$job" = bad_ifname ]; then exp=1; else exp=0; fi
	check_eq "correlate/$job/network-findings" "$exp" "$n"
	# the settings seen (NCCL's env lines, PyTorch's deprecation warnings)
	q "$db" "SELECT host, rank, name, value, origin FROM config ORDER BY host, rank, name, value, origin" > "$TMP/config-$job.json"
	check_golden "correlate/config-$job.json" "$TMP/config-$job.json"
done

# bad_ifname: the verdict and the finding name the host, the missing interface and what the others used
db=$(ingest_case bad_ifname)
v=$(sql "$db" "SELECT summary FROM verdict")
has gpu-node02 "$v" && has ib0 "$v" && has "bootstrapped on lo" "$v"
check_eq "correlate/bad_ifname/verdict-names-interface" 0 $?
f=$(sql "$db" "SELECT kind || '|' || severity || '|' || hosts || '|' || ranks || '|' || summary || '|' || hint FROM findings WHERE kind = 'missing_interface'")
has 'missing_interface|error|["gpu-node02"]|[2,3]|' "$f" && has "NCCL_SOCKET_IFNAME=ib0" "$f" && has "used lo" "$f" &&
	has "set NCCL_SOCKET_IFNAME on gpu-node02 to the interface the other hosts used (lo)" "$f"
check_eq "correlate/bad_ifname/missing-interface-finding" 0 $?
n=$(sql "$db" "SELECT count(*) FROM evidence e JOIN findings f USING(finding_id) WHERE f.kind = 'missing_interface'")
check "correlate/bad_ifname/missing-interface-evidence" test "$n" -ge 3

# ---- fixtures: a corpus job plus the added files ----
# assemble NAME BASE: prints the case path
assemble() {
	d="$TMP/fx-$1"
	rm -rf "$d"
	mkdir -p "$d"
	tar xzf "testdata/corpus/$2.tar.gz" -C "$d"
	cp -R "testdata/fixtures/$1/." "$d/job-$2/"
	# a fixed modification time: times written without a year take the file's
	(cd "testdata/fixtures/$1" && find . -type f) | while read -r f; do touch -t 202611300000 "$d/job-$2/$f"; done
	"$NF_BIN" ingest "$d" -o "$d.db" -q > "$d.out" 2>&1
	echo "$d.db"
}

# golden_case NAME DB: verdict and findings (and the report's verdict when report works)
golden_case() {
	q "$2" "SELECT outcome, cause, culprit_ranks, culprit_hosts, process_group, seq, op, confidence FROM verdict" \
		> "$TMP/$1.verdict.json"
	check_golden "correlate/$1.verdict.json" "$TMP/$1.verdict.json"
	q "$2" "SELECT kind, severity, ranks, hosts, summary, hint FROM findings WHERE kind IN $mine ORDER BY finding_id" \
		> "$TMP/$1.findings.json"
	check_golden "correlate/$1.findings.json" "$TMP/$1.findings.json"
	if "$NF_BIN" report "$2" --format json > "$TMP/$1.report.json" 2> /dev/null; then
		sqlite3 :memory: "SELECT json_extract(readfile('$TMP/$1.report.json'), '\$.verdict')" > "$TMP/$1.report-verdict.json"
		check_golden "correlate/$1.report-verdict.json" "$TMP/$1.report-verdict.json"
	fi
}

verdict_is() { sql "$1" "SELECT outcome || ' ' || cause || ' ' || culprit_ranks || ' ' || culprit_hosts FROM verdict"; }

# (1) Xid 79 on the stalled rank's GPU 2 s before the first timeout -> gpu_fault
db=$(assemble xid_stall stall)
check_eq "correlate/xid_stall/verdict" 'hang gpu_fault [2] ["gpu-node02"]' "$(verdict_is "$db")"
v=$(sql "$db" "SELECT summary FROM verdict")
has "Xid 79" "$v" && has "0000:00:06" "$v" && has "2.1 s before the first timeout" "$v"
check_eq "correlate/xid_stall/summary" 0 $?
check_eq "correlate/xid_stall/xid-joined-to-rank" "xid 79 2 gpu-node02" \
	"$(sql "$db" "SELECT kind || ' ' || code || ' ' || rank || ' ' || host FROM sysmsgs WHERE kind = 'xid'")"
check_eq "correlate/xid_stall/cites-xid" 1 \
	"$(sql "$db" "SELECT count(*) FROM evidence e JOIN lines l USING(source_id, line_no) WHERE e.finding_id = 0 AND l.text LIKE '%Xid (PCI:0000:00:06): 79%'")"
check_eq "correlate/xid_stall/hint" "drain gpu-node02: Xid 79 on the GPU of rank 2 (0000:00:06) at 23:56:06.120, 2.1 s before the first timeout" \
	"$(sql "$db" "SELECT hint FROM findings WHERE kind = 'gpu_fault'")"
golden_case xid_stall "$db"

# (2) eth1 down on gpu-node01, then IB errors on gpu-node03 (first) and gpu-node01 -> network, gpu-node01
db=$(assemble linkdown_stall stall)
check_eq "correlate/linkdown_stall/verdict" 'hang network [0] ["gpu-node01"]' "$(verdict_is "$db")"
v=$(sql "$db" "SELECT summary FROM verdict")
has "eth1 on gpu-node01 went down" "$v" && has "gpu-node03 reported IB errors too" "$v"
check_eq "correlate/linkdown_stall/summary" 0 $?
check_eq "correlate/linkdown_stall/first-complaint-is-the-peer" "4 gpu-node03" \
	"$(sql "$db" "SELECT rank || ' ' || host FROM rank_status ORDER BY first_error_time_us IS NULL, first_error_time_us LIMIT 1")"
check_eq "correlate/linkdown_stall/one-link-finding" "link_event error" \
	"$(sql "$db" "SELECT group_concat(kind || ' ' || severity) FROM findings WHERE kind = 'link_event'")"
golden_case linkdown_stall "$db"

# (3) gpu-node03 on Socket over lo while gpu-node01/02 use IB over eth0 -> a warning finding
db=$(assemble socket_host_stall stall)
check_eq "correlate/socket_host_stall/finding" 'socket_fallback warning ["gpu-node03"] [4,5]' \
	"$(sql "$db" "SELECT group_concat(kind || ' ' || severity || ' ' || hosts || ' ' || ranks) FROM findings WHERE kind IN ('socket_fallback','network_differs','transport_fallback')")"
check_eq "correlate/socket_host_stall/network" "gpu-node01 IB eth0 on|gpu-node02 IB eth0 on|gpu-node03 Socket lo off" \
	"$(sql "$db" "SELECT group_concat(x, '|') FROM (SELECT DISTINCT host || ' ' || network || ' ' || bootstrap_if || ' ' || gdr AS x FROM network WHERE comm_id IS NULL ORDER BY 1)")"
check_eq "correlate/socket_host_stall/verdict-unchanged" 'hang rank_stalled [2] ["gpu-node02"]' "$(verdict_is "$db")"
golden_case socket_host_stall "$db"

# (4) NCCL_TIMEOUT, NCCL_ASYNC_ERROR_HANDLING and NCCL_IB_TIMEOUT on a Socket network -> three config findings
db=$(assemble env_audit_healthy healthy)
check_eq "correlate/env_audit_healthy/findings" "config_deprecated NCCL_ASYNC_ERROR_HANDLING|config_ignored NCCL_IB_TIMEOUT|config_unknown NCCL_TIMEOUT" \
	"$(sql "$db" "SELECT group_concat(x, '|') FROM (SELECT kind || ' ' || substr(summary, 1, instr(summary, '=') - 1) AS x FROM findings
		WHERE kind LIKE 'config%' AND summary LIKE 'NCCL\_%' ESCAPE '\\' ORDER BY 1)")"
check_eq "correlate/env_audit_healthy/verdict-unchanged" 'completed none [] []' "$(verdict_is "$db")"
golden_case env_audit_healthy "$db"

# the knowledge file is found next to the grammars, also by `analyze`
check "correlate/analyze-finds-knowledge" sh -c "'$NF_BIN' analyze '$db' > /dev/null 2> '$TMP/analyze.err' && ! grep -q 'knowledge file' '$TMP/analyze.err'"
check_eq "correlate/analyze-same-findings" 4 "$(sql "$db" "SELECT count(*) FROM findings WHERE kind LIKE 'config%'")"
