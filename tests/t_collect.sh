#!/bin/sh
# contrib/collect-logs.sh (and the Slurm epilog example): shellcheck-clean;
# run here against a fake log directory (a corpus job's node) with stand-ins
# for nvidia-smi, ip, ibstat, ibv_devinfo, dmesg and journalctl
# (tests/fixtures/inventory/bin), it writes HOST.tar.gz laid out as HOST/...;
# records what failed, hung, was absent or too large; and `ncclforensic ingest`
# of a directory holding it files every member under the host and gives the
# job's verdict.
. tests/lib.sh
# absolute paths: some steps run elsewhere
TMP=$(cd "$TMP" && pwd)
case $NF_BIN in /*) ;; *) NF_BIN="$NF_ROOT/$NF_BIN" ;; esac
collect="$NF_ROOT/contrib/collect-logs.sh"
fix="$NF_ROOT/tests/fixtures/inventory"

if command -v shellcheck > /dev/null 2>&1; then
	check "collect/shellcheck" shellcheck contrib/collect-logs.sh contrib/slurm-epilog.sh
	check "collect/shellcheck-fakes" shellcheck -s sh "$fix"/bin/*
else
	fail "collect/shellcheck" "shellcheck is not installed (contrib/install-deps.sh --test)"
fi

sh "$collect" --help > "$TMP/help.out" 2>&1
check_eq "collect/help-exit" 0 "$?"
check "collect/help-text" grep -q -- '--fr-prefix' "$TMP/help.out"
check "collect/version" sh -c "sh '$collect' --version | grep -q '^collect-logs.sh [0-9]'"
sh "$collect" --no-such-option > /dev/null 2>&1
check_eq "collect/bad-option-exit" 2 "$?"
sh "$collect" -H gpu-node02 -o "$TMP/nowhere" > /dev/null 2>&1
check_eq "collect/bad-outdir-exit" 2 "$?"

# the fake job: the corpus job `stall`, three nodes; gpu-node02 is collected
job="$TMP/job"
mkdir -p "$job"
tar -xzf testdata/corpus/stall.tar.gz -C "$job"
node="$job/job-stall/gpu-node02"
printf 'NCCL_DEBUG=INFO\nNCCL_SOCKET_IFNAME=lo\nHOME=/root\nCUDA_VISIBLE_DEVICES=0,1\n' > "$TMP/env.in"
out="$TMP/out"
mkdir -p "$out"
: > "$TMP/journal-args"
(
	PATH="$fix/bin:$PATH" NF_FAKE_NODE="$fix/gpu-node02" NF_FAKE_LOG="$TMP/journal-args"
	export PATH NF_FAKE_NODE NF_FAKE_LOG
	cd "$TMP" && sh "$collect" -q -H gpu-node02 -o "$out" --fr-prefix "$node/fr/nccl_trace_rank_" \
		--env-file "$TMP/env.in" --since "2026-11-29 23:40:00" "$node/console.log" --logs "$node/torchrun/"
) > "$TMP/collect.out" 2> "$TMP/collect.err"
check_eq "collect/exit" 0 "$?"
check_eq "collect/prints-path" "$out/gpu-node02.tar.gz" "$(cat "$TMP/collect.out")"
check_eq "collect/quiet" "" "$(cat "$TMP/collect.err")"
tar -tzf "$out/gpu-node02.tar.gz" | grep -v '/$' | sort > "$TMP/members"
check_eq "collect/all-under-host" "" "$(grep -v '^gpu-node02/' "$TMP/members")"
for m in collect.txt system/nvidia-smi-q.txt system/nvidia-smi-L.txt system/nvidia-smi-topo.txt \
	system/ip-br-addr.txt system/ip-s-link.txt system/ibstat.txt system/journal-kernel.txt system/env.txt \
	fr/nccl_trace_rank_2 fr/nccl_trace_rank_3 logs/console.log; do
	check "collect/member/$m" grep -qx "gpu-node02/$m" "$TMP/members"
done
check_eq "collect/rank-logs" 4 "$(grep -c '^gpu-node02/logs/torchrun/none_[a-z0-9]*/attempt_0/[01]/std\(out\|err\)\.log$' "$TMP/members")"
# the kernel log of the time range, from the journal
check "collect/journal-since" grep -q -- '-k -o short-iso --no-pager --since 2026-11-29 23:40:00' "$TMP/journal-args"
tar -xzf "$out/gpu-node02.tar.gz" -C "$TMP" gpu-node02/collect.txt gpu-node02/system/env.txt gpu-node02/system/ibstat.txt
check "collect/manifest-header" grep -q '^# ncclforensic collect-logs [0-9.]*: host=gpu-node02 time=' "$TMP/gpu-node02/collect.txt"
check "collect/manifest-ok" grep -q '^ok      nvidia-smi topo -m -> system/nvidia-smi-topo.txt' "$TMP/gpu-node02/collect.txt"
check "collect/output-header" grep -q '^# ncclforensic collect-logs .* what="ibstat" rc=0$' "$TMP/gpu-node02/system/ibstat.txt"
check_eq "collect/env-filtered" "NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=lo CUDA_VISIBLE_DEVICES=0,1" \
	"$(grep -v '^#' "$TMP/gpu-node02/system/env.txt" | tr '\n' ' ' | sed 's/ $//')"

# without a time range: dmesg -T; a tool that is absent, one that fails, one
# that hangs (--timeout), a file over --max-file-mb
mkdir -p "$TMP/bin2" "$TMP/node2" "$TMP/biglogs"
cp "$fix/bin/ip" "$fix/bin/dmesg" "$TMP/bin2/"
printf '#!/bin/sh\nsleep 30\n' > "$TMP/bin2/nvidia-smi"
printf '#!/bin/sh\necho "ibstat: failed (test)" >&2\nexit 3\n' > "$TMP/bin2/ibstat"
chmod +x "$TMP/bin2/nvidia-smi" "$TMP/bin2/ibstat"
cp "$fix/gpu-node02/ip-br-addr.txt" "$fix/gpu-node02/ip-s-link.txt" "$fix/gpu-node02/dmesg.txt" "$TMP/node2/"
dd if=/dev/zero of="$TMP/biglogs/huge.log" bs=1024 count=1536 2> /dev/null
echo "small" > "$TMP/biglogs/small.log"
t0=$(date +%s)
PATH="$TMP/bin2:$PATH" NF_FAKE_NODE="$TMP/node2" sh "$collect" -q -H node-x -o "$out" --timeout 1 \
	--max-file-mb 1 --fr-prefix "$TMP/none/x" "$TMP/biglogs" > /dev/null 2>&1
rc=$?
t1=$(date +%s)
check_eq "collect/failed-exit" 1 "$rc"
check "collect/timeout-is-quick" test $((t1 - t0)) -lt 20
tar -xzf "$out/node-x.tar.gz" -C "$TMP" node-x/collect.txt
m="$TMP/node-x/collect.txt"
check "collect/dmesg" grep -q '^ok      dmesg -T -> system/dmesg.txt' "$m"
check "collect/hung-command" grep -q '^failed  nvidia-smi -q (exit 124)' "$m"
check "collect/probe-no-device" grep -q '^none    ibstat (exit 3): ibstat: failed (test)' "$m"
check "collect/too-large" grep -q "^skipped .*huge.log: larger than --max-file-mb 1" "$m"
tar -tzf "$out/node-x.tar.gz" > "$TMP/members-x"
check "collect/small-kept" grep -qx 'node-x/logs/biglogs/small.log' "$TMP/members-x"
check_eq "collect/large-left-out" "" "$(grep huge "$TMP/members-x")"

# ingest: the other nodes as they were, gpu-node02 as its tarball
inc="$TMP/incident"
mkdir -p "$inc"
mv "$job/job-stall/gpu-node01" "$job/job-stall/gpu-node03" "$job/job-stall/dmesg.txt" "$inc/"
cp "$out/gpu-node02.tar.gz" "$inc/"
(cd / && "$NF_BIN" ingest "$inc" -o "$TMP/incident.db" -q) > "$TMP/ingest.out" 2>&1
check_eq "collect/ingest-exit" 0 "$?"
db="$TMP/incident.db"
check_eq "collect/ingest-hosts" "" "$(sql "$db" "SELECT path FROM sources WHERE path LIKE 'gpu-node02.tar.gz/%'
	AND coalesce(host, '') <> 'gpu-node02'")"
check_eq "collect/ingest-ranks" "2 3" "$(sql "$db" "SELECT group_concat(rank, ' ') FROM (SELECT rank FROM ranks WHERE host = 'gpu-node02' ORDER BY rank)")"
check_eq "collect/verdict" "rank_stalled [2] tp1 15" "$(sql "$db" "SELECT cause, culprit_ranks, process_group, seq FROM verdict" | tr '\t' ' ')"
check_eq "collect/fr-dumps-read" 2 "$(sql "$db" "SELECT count(*) FROM sources WHERE path LIKE 'gpu-node02.tar.gz/gpu-node02/fr/%' AND kind = 'flight_recorder' AND rank IN (2, 3)")"
check_eq "collect/env-events" "NCCL_DEBUG NCCL_SOCKET_IFNAME CUDA_VISIBLE_DEVICES" "$(sql "$db" "SELECT group_concat(json_extract(e.fields, '\$.name'), ' ')
	FROM events e JOIN sources s USING (source_id) WHERE s.path LIKE '%/system/env.txt' AND e.class = 'config'")"

# ---- run as root for a job's user: nothing that user could not read -----------
if [ "$(id -u)" -eq 0 ] && id -u nobody > /dev/null 2>&1 && command -v runuser > /dev/null 2>&1; then
	U="$TMP/asuser"
	mkdir -p "$U/logs" "$U/out" "$U/dumps"
	chmod 755 "$TMP" "$U" "$U/logs" "$U/dumps"
	printf 'secret of root\n' > "$U/secret"
	chmod 600 "$U/secret"
	printf 'a rank log\n' > "$U/logs/rank0.log"
	chmod 644 "$U/logs/rank0.log"
	ln "$U/secret" "$U/logs/hardlink-to-secret.log" 2> /dev/null || cp "$U/secret" "$U/logs/hardlink-to-secret.log"
	ln -s "$U/secret" "$U/logs/symlink-to-secret.log"
	# dumps: the user's own, a root one, and a link a user left to a secret
	printf 'dump of the job\n' > "$U/dumps/nccl_trace_rank_0"
	chown nobody "$U/dumps/nccl_trace_rank_0"
	printf 'dump of someone else\n' > "$U/dumps/nccl_trace_rank_1"
	ln -s "$U/secret" "$U/dumps/nccl_trace_rank_99"
	PATH="$fix/bin:$PATH" NF_FAKE_NODE="$fix/gpu-node02" sh "$collect" -q -H node-u -o "$U/out" --user nobody \
		--fr-prefix "$U/dumps/nccl_trace_rank_" "$U/logs" > /dev/null 2> "$U/err"
	rc=$?
	check "collect/as-user/exit ($rc)" test "$rc" -le 1
	tb="$U/out/node-u.tar.gz"
	check_eq "collect/as-user/tarball-0600" 600 "$(stat -c %a "$tb")"
	tar -xzf "$tb" -C "$U"
	check_eq "collect/as-user/no-secret" "" "$(grep -rl 'secret of root' "$U/node-u" 2> /dev/null)"
	check "collect/as-user/readable-log-kept" test -f "$U/node-u/logs/logs/rank0.log"
	check "collect/as-user/own-dump-kept" test -f "$U/node-u/fr/nccl_trace_rank_0"
	check "collect/as-user/other-dump-skipped" test ! -e "$U/node-u/fr/nccl_trace_rank_1"
	check "collect/as-user/link-dump-skipped" test ! -e "$U/node-u/fr/nccl_trace_rank_99"
	check "collect/as-user/manifest-says-link" grep -q "skipped .*nccl_trace_rank_99: a symbolic link" "$U/node-u/collect.txt"
	check "collect/as-user/manifest-says-owner" grep -q "skipped .*nccl_trace_rank_1: not owned by the job's user nobody" "$U/node-u/collect.txt"
	# --group: 0640 and that group
	grp=$(id -gn nobody)
	PATH="$fix/bin:$PATH" NF_FAKE_NODE="$fix/gpu-node02" sh "$collect" -q -H node-g -o "$U/out" --user nobody \
		--group "$grp" --fr-prefix "$U/dumps/none_" "$U/logs" > /dev/null 2>&1
	check_eq "collect/group/mode-0640" "640 $grp" "$(stat -c '%a %G' "$U/out/node-g.tar.gz")"
	# staged beside the output, never left behind
	check_eq "collect/as-user/no-staging-left" "" "$(ls_names "$U/out" | grep -v '\.tar\.gz$')"
else
	echo "skip collect/as-user: needs root, the user nobody and runuser"
fi
# --max-total-mb: files past the total are listed, not packed
mkdir -p "$TMP/total"
dd if=/dev/zero of="$TMP/total/a.log" bs=1024 count=700 2> /dev/null
dd if=/dev/zero of="$TMP/total/b.log" bs=1024 count=700 2> /dev/null
PATH="$fix/bin:$PATH" NF_FAKE_NODE="$fix/gpu-node02" sh "$collect" -q -H node-t -o "$out" --max-total-mb 1 \
	--fr-prefix "$TMP/none/x" "$TMP/total" > /dev/null 2>&1
tar -tzf "$out/node-t.tar.gz" > "$TMP/members-t"
check_eq "collect/max-total/one-packed" 1 "$(grep -c 'node-t/logs/total/.\.log' "$TMP/members-t")"
tar -xzf "$out/node-t.tar.gz" -C "$TMP" node-t/collect.txt
check "collect/max-total/listed" grep -q "skipped .*total/.\.log: over --max-total-mb 1" "$TMP/node-t/collect.txt"
