#!/bin/sh
# Verdicts on the real corpus against answers.json, and on variants built on
# the fly: without the flight-recorder dumps (a job that completed must
# still say so when NCCL logged its teardown), without NCCL's INFO lines
# (with and without the dumps), and without one non-culprit
# rank's files (a wrong culprit is a failure; "unknown" or a lower confidence
# is not); without the launcher's consoles (the cause must hold and the
# culprits stay on the culprit's node); without the culprit's node (only its
# ranks may be named). The degraded copies listed in
# tests/golden/verdict-degraded.txt must give the whole answer.
. tests/lib.sh

# the answers of the set the job is in (testdata/corpus, testdata/realjobs, testdata/skewed, testdata/edited)
answers=testdata/corpus/answers.json
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
# degraded_right VARIANT LABEL: 1 when that copy's verdict must stay wholly right
degraded_right() { grep -qx "$1 $2" tests/golden/verdict-degraded.txt && echo 1 || echo 0; }

# answer_of JOB: the job's answer, read once, in a_* variables (lists as
# "2 3"; a_hidden, a_unknown and a_console 1 when the answer has
# hidden_without_rank, unknown_without_console, console_needed). Each check
# reads its values in one query: a
# process start costs more than the query (DEVELOPING.md)
answer_of() {
	IFS='|' read -r a_ranks a_outcome a_hidden a_unknown a_console a_causes a_must a_allowed a_pg a_seq a_op <<EOF
$(sqlite3 :memory: "WITH a(j) AS (SELECT json_extract(readfile('$answers'), '\$.\"$1\"'))
  SELECT json_extract(j, '\$.ranks') || '|' || json_extract(j, '\$.outcome') || '|'
   || (json_type(j, '\$.hidden_without_rank') IS NOT NULL) || '|' || (json_type(j, '\$.unknown_without_console') IS NOT NULL)
   || '|' || (json_type(j, '\$.console_needed') IS NOT NULL)
   || '|' || coalesce((SELECT group_concat(value, ' ') FROM json_each(j, '\$.cause')), '')
   || '|' || coalesce((SELECT group_concat(value, ' ') FROM json_each(j, '\$.culprit_must')), '')
   || '|' || coalesce((SELECT group_concat(value, ' ') FROM json_each(j, '\$.culprit_allowed')), '')
   || '|' || coalesce((SELECT group_concat(value, ' ') FROM json_each(j, '\$.pg')), '')
   || '|' || coalesce((SELECT group_concat(value, ' ') FROM json_each(j, '\$.seq')), '')
   || '|' || coalesce((SELECT group_concat(value, ' ') FROM json_each(j, '\$.op')), '') FROM a")
EOF
}

# verdict_of DB: the case's verdict in v_* variables (v_culprits sorted, "2 3")
verdict_of() {
	IFS='|' read -r v_outcome v_cause v_conf v_pg v_seq v_op v_culprits v_missing <<EOF
$(sql "$1" "SELECT coalesce(outcome, '') || '|' || coalesce(cause, '') || '|' || coalesce(confidence, '')
   || '|' || coalesce(process_group, '') || '|' || coalesce(seq, '') || '|' || coalesce(op, '') || '|'
   || coalesce((SELECT group_concat(value, ' ') FROM (SELECT value FROM json_each(verdict.culprit_ranks) ORDER BY value)), '')
   || '|' || replace(coalesce(missing, ''), char(10), ' ') FROM verdict")
EOF
}

# wrong_culprits: the culprits of v_culprits outside a_allowed, in $bad
wrong_culprits() {
	bad=""
	for x in $v_culprits; do in_list "$x" "$a_allowed" || bad="$bad $x"; done
}

# check_verdict NAME DB JOB STRICT: STRICT=1 full answer; 0 only "no wrong culprit"
check_verdict() {
	name=$1 db=$2 job=$3 strict=$4
	answer_of "$job"
	verdict_of "$db"
	wrong_culprits
	if [ -n "$bad" ]; then fail "$name/no-wrong-culprit" "culprits [$v_culprits], allowed [$a_allowed]"; else pass "$name/no-wrong-culprit"; fi
	[ "$strict" = 1 ] || return 0
	for x in $a_must; do in_list "$x" "$v_culprits" || bad="$bad missing:$x"; done
	if [ -n "$bad" ]; then fail "$name/culprits" "got [$v_culprits] must [$a_must]"; else pass "$name/culprits"; fi
	check_eq "$name/outcome" "$a_outcome" "$v_outcome"
	if in_list "$v_cause" "$a_causes"; then pass "$name/cause"; else fail "$name/cause" "$v_cause not in [$a_causes]"; fi
	[ -z "$a_pg" ] || { if in_list "$v_pg" "$a_pg"; then pass "$name/pg"; else fail "$name/pg" "$v_pg not in [$a_pg]"; fi; }
	[ -z "$a_seq" ] || { if in_list "$v_seq" "$a_seq"; then pass "$name/seq"; else fail "$name/seq" "$v_seq not in [$a_seq]"; fi; }
	[ -z "$a_op" ] || { if in_list "$v_op" "$a_op"; then pass "$name/op"; else fail "$name/op" "$v_op not in [$a_op]"; fi; }
}

# check_wrong_is_low NAME DB JOB: a culprit outside the allowed ones only
# with confidence low (a degraded bundle may mislead, but must say so)
check_wrong_is_low() {
	name=$1 db=$2 job=$3
	answer_of "$job"
	verdict_of "$db"
	wrong_culprits
	if [ -z "$bad" ] || [ "$v_conf" = low ]; then pass "$name"; else
		fail "$name" "culprits [$v_culprits] ($v_conf), allowed [$a_allowed]"; fi
}

# check_node_verdict NAME DB JOB: the cause is right, a culprit is named and
# every culprit shares a host with an allowed one (or, for a job whose answer
# says why in unknown_without_console, the verdict is unknown; in
# console_needed, what happened is only in the consoles: the verdict may not
# be of confidence high)
check_node_verdict() {
	name=$1 db=$2 job=$3
	answer_of "$job"
	verdict_of "$db"
	if [ "$a_console" = 1 ]; then
		if [ "$v_conf" != high ]; then pass "$name/console-needed"; else
			fail "$name/console-needed" "$v_cause [$v_culprits] with confidence high"; fi
		return 0
	fi
	if [ "$v_cause" = unknown ] && [ "$a_unknown" = 1 ]; then
		check_eq "$name/unknown-allowed" "" "$v_culprits"
		return 0
	fi
	if in_list "$v_cause" "$a_causes"; then pass "$name/cause"; else fail "$name/cause" "$v_cause not in [$a_causes]"; fi
	# a culprit only where one must be named (a straggler may go unnamed)
	[ -n "$a_allowed" ] && [ -n "$a_must" ] || return 0
	list=$(echo "$a_allowed" | tr ' ' ',')
	# the culprits off the allowed ones' hosts | how many culprits are allowed ones
	got=$(sql "$db" "SELECT coalesce((SELECT group_concat(value, ' ') FROM verdict, json_each(verdict.culprit_ranks)
		WHERE (SELECT host FROM ranks WHERE rank = value) NOT IN (SELECT host FROM ranks WHERE rank IN ($list))), '')
		|| '|' || (SELECT count(*) FROM verdict, json_each(verdict.culprit_ranks) WHERE value IN ($list))")
	if [ "${got%|*}" = "" ] && [ "${got#*|}" -gt 0 ]; then pass "$name/culprit-node"; else
		fail "$name/culprit-node" "culprits [$v_culprits], allowed [$a_allowed]"; fi
}

# snapshot LABEL DB: with NF_VERDICT_SNAPSHOT=DIR, the verdict of DB as JSON
# into DIR (tests/helpers/verdict_snapshot.sh compares two such runs)
snapshot() {
	[ -n "${NF_VERDICT_SNAPSHOT:-}" ] || return 0
	mkdir -p "$NF_VERDICT_SNAPSHOT"
	"$NF_BIN" sql "$2" "SELECT * FROM verdict" --json > "$NF_VERDICT_SNAPSHOT/$(printf '%s' "$1" | tr '/' '~').json"
}

# (testdata/skewed: real jobs with a node's clock set off, and testdata/edited:
# real jobs with launcher lines edited, checked here only)
nth=0
for tgz in testdata/corpus/*.tar.gz testdata/realjobs/*.tar.gz testdata/skewed/*.tar.gz testdata/edited/*.tar.gz; do
	nth=$((nth + 1))
	nf_sampled "$tgz" "$nth" || continue
	set_=$(basename "$(dirname "$tgz")")
	answers=testdata/$set_/answers.json
	job=$(basename "$tgz" .tar.gz)
	db=$(ingest_case "$job" "$set_")
	label=$job
	[ "$set_" = corpus ] || label="$set_/$job"
	check_verdict "verdict/$label" "$db" "$job" 1
	snapshot "$label" "$db"
	# evidence cited | of it, lines that exist | of it, lines expected (not from a dump)
	IFS='|' read -r n m k <<EOF
$(sql "$db" "SELECT (SELECT count(*) FROM evidence WHERE finding_id = 0) || '|'
  || (SELECT count(*) FROM evidence e JOIN lines l ON l.source_id = e.source_id AND l.line_no = e.line_no WHERE e.finding_id = 0) || '|'
  || (SELECT count(*) FROM evidence e JOIN sources s USING(source_id) WHERE e.finding_id = 0 AND s.kind <> 'flight_recorder')")
EOF
	check "verdict/$label/cites-evidence" test "$n" -gt 0
	check_eq "verdict/$label/evidence-lines-exist" "$k" "$m"
done

# a failure that is every rank's alike (testdata/unblamed/): no culprit, the
# outcome a crash, the shared error quoted
udb="$TMP/unblamed.db"
"$NF_BIN" ingest testdata/unblamed/algo_tree.tar.gz -o "$udb" -q > /dev/null 2>&1
check_eq "verdict/unblamed/algo_tree" "crash unknown []" \
	"$(sql "$udb" "SELECT outcome || ' ' || cause || ' ' || culprit_ranks FROM verdict")"
check "verdict/unblamed/algo_tree/quotes-the-error" sh -c \
	"'$NF_BIN' sql '$udb' \"SELECT summary FROM verdict\" | grep -q 'same NCCL error.*NCCL_ALGO was set to Tree'"

# host clocks (table clocks, finding clock_offset): the node set half a
# second ahead is found within 50 ms; no finding where one clock served all
db=$(ingest_case healthy_clock_ahead skewed)
check_eq "clocks/skewed/off-host" "gpu-node01" "$(sql "$db" "SELECT host FROM clocks WHERE offset_us BETWEEN 450000 AND 550000")"
check_eq "clocks/skewed/finding" '["gpu-node01"]' "$(sql "$db" "SELECT hosts FROM findings WHERE kind = 'clock_offset'")"
check_eq "clocks/skewed/cites" 2 "$(sql "$db" "SELECT count(*) FROM evidence e JOIN findings f USING(finding_id) WHERE f.kind = 'clock_offset'")"
n=0 nth=0
for tgz in testdata/corpus/*.tar.gz testdata/realjobs/*.tar.gz; do
	nth=$((nth + 1))
	nf_sampled "$tgz" "$nth" || continue
	set_=$(basename "$(dirname "$tgz")")
	db=$(ingest_case "$(basename "$tgz" .tar.gz)" "$set_")
	n=$((n + $(sql "$db" "SELECT count(*) FROM findings WHERE kind = 'clock_offset'")))
done
check_eq "clocks/real-jobs/no-finding" 0 "$n"

# variants built from the real jobs, one job after the other on each of up
# to four workers (NF_WORKERS, lib.sh), for one real job in four
# (NF_VARIANTS_EVERY=1: every one, ~15 minutes here) (each copy
# re-ingests the job and queries it a dozen times; the sample spreads over
# every kind of job, and keeps CI's time in bounds) and every corpus job
# variant_ingest LABEL VARIANT DIR: ingests DIR into DIR.VARIANT.db; a failed
# ingest (no case, or an exit code past 1) fails here, where the checks of
# its verdict would read nothing and pass
variant_ingest() {
	"$NF_BIN" ingest "$3" -o "$3.$2.db" -q > "$3.$2.out" 2>&1
	vrc=$?
	if [ "$vrc" -gt 1 ] || [ ! -f "$3.$2.db" ]; then
		fail "verdict-$2/$1/ingest" "exit $vrc: $(head -c 300 "$3.$2.out")"
	fi
	snapshot "$1.$2" "$3.$2.db"
}

variants_of() {
	tgz=$1
	set_=$(basename "$(dirname "$tgz")")
	answers=testdata/$set_/answers.json
	job=$(basename "$tgz" .tar.gz)
	label=$job
	[ "$set_" = corpus ] || label="$set_/$job"
	d="$TMP/v-$set_-$job"
	full=$(ingest_case "$job" "$set_")
	verdict_of "$full"
	full_cause=$v_cause
	rm -rf "$d"; mkdir -p "$d"; tar xzf "$tgz" -C "$d"
	if [ -n "$(find "$d" -path '*/fr/*' -type f | head -1)" ]; then
		find "$d" -path '*/fr/*' -type f -delete
		variant_ingest "$label" nofr "$d"
		check_verdict "verdict-nofr/$label" "$d.nofr.db" "$job" "$(degraded_right nofr "$label")"
		# a job that completed, with NCCL's INFO lines: every rank took
		# down its communicators, which says so without the dumps
		answer_of "$job"
		if [ "$a_outcome" = completed ] && grep -rqs "Destroy COMPLETE" "$d"; then
			verdict_of "$d.nofr.db"
			check_eq "verdict-nofr/$label/completed" completed "$v_outcome"
		fi
		rm -rf "$d"; mkdir -p "$d"; tar xzf "$tgz" -C "$d"
	fi
	# only the launcher's consoles (what a job's captured stdout holds; the
	# per-rank files of --log-dir not collected): every worker line is
	# there behind its [defaultN] prefix, so the verdict must be the same
	if [ -n "$(find "$d" -name console.log | head -1)" ] && [ -n "$(find "$d" -type d -name torchrun | head -1)" ]; then
		find "$d" -type d -name torchrun -prune -exec rm -rf {} +
		variant_ingest "$label" conly "$d"
		# except where the whole bundle allows only "unknown": a frozen
		# node's launcher, stopped with it, never copied its ranks' last
		# lines, and the consoles show those ranks behind; naming them is
		# right if the answer allows them, and not with confidence high
		answer_of "$job"
		verdict_of "$d.conly.db"
		if [ "$a_outcome" = unknown ] && [ -n "$v_culprits" ] && [ "$v_conf" != high ]; then
			check_verdict "verdict-console-only/$label" "$d.conly.db" "$job" 0
		else
			check_verdict "verdict-console-only/$label" "$d.conly.db" "$job" 1
		fi
		rm -rf "$d"; mkdir -p "$d"; tar xzf "$tgz" -C "$d"
	fi
	# without the launcher's consoles (only the per-rank files of --log-dir):
	# the exit reports are gone, so a rank and its node-mates may not be told
	# apart; the cause must hold and the culprits stay on the culprit's node
	# (not for restarted jobs: a launcher that joins a new rendezvous round
	# writes it under attempt_0 again, over the first attempt's files, and
	# then only the console keeps the first attempt)
	if [ -n "$(find "$d" -name console.log | head -1)" ] && [ -z "$(find "$d" -path '*/attempt_[1-9]*' | head -1)" ]; then
		find "$d" -name console.log -delete
		variant_ingest "$label" norun "$d"
		check_node_verdict "verdict-noconsole/$label" "$d.norun.db" "$job"
		rm -rf "$d"; mkdir -p "$d"; tar xzf "$tgz" -C "$d"
	fi
	# without the culprit's node (its files could not be collected): only
	# ranks of that node may be named
	answer_of "$job"
	if [ -n "$a_must" ]; then
		IFS='|' read -r host node_ranks <<EOF
$(sql "$full" "SELECT host || '|' || (SELECT group_concat(rank, ' ') FROM ranks r WHERE r.host = ranks.host) FROM ranks WHERE rank = ${a_must%% *}")
EOF
		if [ -n "$host" ] && [ -n "$(find "$d" -type d -name "$host" | head -1)" ]; then
			find "$d" -type d -name "$host" -prune -exec rm -rf {} +
			variant_ingest "$label" nonode "$d"
			verdict_of "$d.nonode.db"
			bad=""
			for x in $v_culprits; do in_list "$x" "$node_ranks" || bad="$bad $x"; done
			if [ -z "$bad" ]; then pass "verdict-nonode/$label"; else
				fail "verdict-nonode/$label" "culprits [$v_culprits], the dropped node's [$node_ranks]"; fi
			rm -rf "$d"; mkdir -p "$d"; tar xzf "$tgz" -C "$d"
		fi
	fi
	# NCCL_DEBUG off (no NCCL INFO line anywhere), with and then without the
	# dumps: a wrong culprit is allowed only with confidence low
	if grep -rqs " NCCL INFO " "$d"; then
		find "$d" -type f -name '*.log' -exec sed -i '/ NCCL INFO /d' {} +
		for v in noinfo noinfo-nofr; do
			[ "$v" = noinfo-nofr ] && find "$d" -path '*/fr/*' -type f -delete
			variant_ingest "$label" "$v" "$d"
			check_wrong_is_low "verdict-$v/$label" "$d.$v.db" "$job"
			[ "$(degraded_right "$v" "$label")" = 1 ] && check_verdict "verdict-$v/$label" "$d.$v.db" "$job" 1
		done
		rm -rf "$d"; mkdir -p "$d"; tar xzf "$tgz" -C "$d"
	fi
	# the barest bundle: only the ranks' Python stderr (no console, no NCCL
	# output, no dumps): a wrong culprit is allowed only with confidence low
	if [ -n "$(find "$d" -name stderr.log | head -1)" ]; then
		find "$d" -type f ! -name stderr.log ! -name dmesg.txt -delete
		variant_ingest "$label" bare "$d"
		check_wrong_is_low "verdict-stderr-only/$label" "$d.bare.db" "$job"
		rm -rf "$d"; mkdir -p "$d"; tar xzf "$tgz" -C "$d"
	fi
	# an excerpt pasted into a ticket: the files of the first failing rank's
	# host (the answer's culprit, else the first rank that logged a
	# failure, else rank 0), each cut to 50 lines around its first failure
	# line: a wrong culprit is allowed only with confidence low
	answer_of "$job"
	ex_rank=${a_must%% *}
	[ -n "$ex_rank" ] || ex_rank=$(sql "$full" "SELECT rank FROM rank_status WHERE first_error_time_us IS NOT NULL
		ORDER BY first_error_time_us, rank LIMIT 1")
	ex_host=$(sql "$full" "SELECT host FROM ranks WHERE rank = ${ex_rank:-0}")
	if [ -n "$ex_host" ] && [ -n "$(find "$d" -type d -name "$ex_host" | head -1)" ]; then
		sh tests/helpers/make_excerpt.sh "$d" "$ex_host"
		variant_ingest "$label" excerpt "$d"
		check_wrong_is_low "verdict-excerpt/$label" "$d.excerpt.db" "$job"
		rm -rf "$d"; mkdir -p "$d"; tar xzf "$tgz" -C "$d"
	fi
	# the highest rank that may not be named
	answer_of "$job"
	r=$((a_ranks - 1))
	while [ "$r" -ge 0 ] && in_list "$r" "$a_allowed"; do r=$((r - 1)); done
	if [ "$r" -lt 0 ]; then # every rank may be named: nothing to drop
		rm -rf "$d"
		return 0
	fi
	sh tests/helpers/drop_rank.sh "$d" "$r"
	variant_ingest "$label" drop "$d"
	# where the whole bundle names nobody, or the answer says why that rank's
	# logs hold the only trace of the culprit (hidden_without_rank), the
	# rank without a line may be named instead, but only at confidence low
	if [ "$full_cause" = unknown ] || [ "$a_hidden" = 1 ]; then
		check_wrong_is_low "verdict-drop-rank$r/$label" "$d.drop.db" "$job"
	else
		check_verdict "verdict-drop-rank$r/$label" "$d.drop.db" "$job" 0
	fi
	verdict_of "$d.drop.db"
	case "$v_missing" in *"rank $r "*|*"ranks"*"$r"*) pass "verdict-drop-rank$r/$label/says-missing" ;;
	*) fail "verdict-drop-rank$r/$label/says-missing" "$v_missing" ;; esac
	rm -rf "$d" "$d".*.db "$d".*.out
}
# jobs whose variants once went wrong outside the sample (a run over every
# job's variants found them): checked every time (but under the sanitizers)
always_varied="g2_kill_final_r3 g2_pp_skip_send_r3 g2_timing_gpu_hang_r4 g4_4n_nodump_freeze_r6"
always_varied="$always_varied g5_kill_final_r1 g5_mismatch_op_r1_warn g2_blocking_kill_r3 g4_blocking_freeze_r3"
always_varied="$always_varied s3_hung_freeze_r4 g2_kill_init_r2"
w=0
while [ "$w" -lt "$NF_WORKERS" ]; do
	(
		nth=0
		for tgz in testdata/corpus/*.tar.gz testdata/realjobs/*.tar.gz; do
			nth=$((nth + 1))
			[ $((nth % NF_WORKERS)) = "$w" ] || continue
			nf_sampled "$tgz" "$nth" "${NF_VARIANTS_EVERY:-4}" || { [ "${NF_ASAN:-}" != 1 ] && in_list "$(basename "$tgz" .tar.gz)" "$always_varied"; } || continue
			variants_of "$tgz"
		done
	) &
	w=$((w + 1))
done
wait

answers=testdata/corpus/answers.json

# the kernel's OOM killer, when the logs have it, is named as the reason of the death
d="$TMP/oom"; rm -rf "$d"; mkdir -p "$d"; tar xzf testdata/corpus/kill.tar.gz -C "$d"
pid=$(sql "$(ingest_case kill)" "SELECT pid FROM ranks WHERE rank = 6")
printf '[Sun Nov 29 23:55:53 2026] Out of memory: Killed process %s (python3) total-vm:123456kB, anon-rss:120000kB\n' "$pid" \
	> "$d/job-kill/gpu-node04/dmesg.txt"
"$NF_BIN" ingest "$d" -o "$d.db" -q > /dev/null 2>&1
check_eq "verdict-oom/culprit" "[6]" "$(sql "$d.db" "SELECT culprit_ranks FROM verdict")"
check "verdict-oom/says-oom" sh -c "'$NF_BIN' sql '$d.db' 'SELECT summary FROM verdict' --tsv | grep -q 'OOM killer killed it'"
n=$(sql "$d.db" "SELECT count(*) FROM evidence e JOIN events v USING(event_id) WHERE e.finding_id = 0 AND v.kind = 'kernel_oom_kill'")
check_eq "verdict-oom/cites-kernel-line" 1 "$n"
rm -rf "$d" "$d.db"

# a CUDA error of a rank's own GPU work: a device-side assert is quoted with
# its kernel and assertion; an illegal address before the rank's first
# collective is not an init failure
answers=testdata/realjobs/answers.json
db=$(ingest_case cuda_assert realjobs)
check "verdict-cuda-assert/quotes-assertion" sh -c \
	"'$NF_BIN' sql '$db' 'SELECT summary FROM verdict' --tsv | grep -q 'failed its assertion .t >= 0 && t < n_classes. (Loss.cu:245)'"
n=$(sql "$db" "SELECT count(*) FROM evidence e JOIN events v USING(event_id) WHERE e.finding_id = 0 AND v.kind = 'cuda_device_assert'")
check_eq "verdict-cuda-assert/cites-assertion" 1 "$n"
db=$(ingest_case cuda_fault_step0 realjobs)
check "verdict-cuda-step0/says-cuda-error" sh -c \
	"'$NF_BIN' sql '$db' 'SELECT summary FROM verdict' --tsv | grep -q 'hit a CUDA error in its own GPU work: \"an illegal memory access was encountered\"'"
answers=testdata/corpus/answers.json

# a node whose files are missing: its ranks are named (low confidence) when
# every rank with logs lost its connections at the first failure, and the
# report says they have no logs
d="$TMP/nonode"; rm -rf "$d"; mkdir -p "$d"; tar xzf testdata/corpus/kill.tar.gz -C "$d"
rm -rf "$d/job-kill/gpu-node04"
"$NF_BIN" ingest "$d" -o "$d.db" -q > /dev/null 2>&1
check_eq "verdict-nonode-kill/culprits" "[6,7]" "$(sql "$d.db" "SELECT culprit_ranks FROM verdict")"
check_eq "verdict-nonode-kill/cause" "rank_exited low" "$(sql "$d.db" "SELECT cause || ' ' || confidence FROM verdict")"
check "verdict-nonode-kill/report-says-no-logs" sh -c "'$NF_BIN' report '$d.db' --format md | grep -q '^| 6 | (no logs) |'"
rm -rf "$d" "$d.db"

# without the culprit's node and without any dump: the failure began where
# the logs are missing, which the verdict says at confidence low (a rank of
# that node asked for the dumps first; the peers lost their connections)
for c in "s3_hung_size_r0 gpu-node01 [0,1]" "g3_4n_kill_node_r3 gpu-node02 [2,3]"; do
	set -- $c
	d="$TMP/nonode-nofr"; rm -rf "$d"; mkdir -p "$d"; tar xzf "testdata/realjobs/$1.tar.gz" -C "$d"
	find "$d" -path '*/fr/*' -type f -delete
	find "$d" -type d -name "$2" -prune -exec rm -rf {} +
	"$NF_BIN" ingest "$d" -o "$d.db" -q > /dev/null 2>&1
	check_eq "verdict-nonode-nofr/$1" "$3 low" "$(sql "$d.db" "SELECT culprit_ranks || ' ' || confidence FROM verdict")"
	rm -rf "$d" "$d.db"
done

# without the consoles and one healthy rank's output and dump, its NCCL debug
# file still there: that rank is not silent (NCCL writes nothing there while
# a rank waits), and its barrier, an ALLREDUCE to NCCL, is no mismatch
for c in "healthy_file []" "g5_debugfile_freeze_r4 [4,5]"; do
	set -- $c
	d="$TMP/drop-noconsole"; rm -rf "$d"; mkdir -p "$d"; tar xzf "testdata/realjobs/$1.tar.gz" -C "$d"
	find "$d" -name console.log -delete
	sh tests/helpers/drop_rank.sh "$d" 3
	"$NF_BIN" ingest "$d" -o "$d.db" -q > /dev/null 2>&1
	check_eq "verdict-drop-noconsole/$1" "$2" "$(sql "$d.db" "SELECT culprit_ranks FROM verdict")"
	rm -rf "$d" "$d.db"
done
