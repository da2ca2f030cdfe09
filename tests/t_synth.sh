#!/bin/sh
# synth: cloning a real job's nodes into a large job that ingests and
# diagnoses like the original scaled up.
. tests/lib.sh

S="$TMP/synth"
mkdir -p "$S"

# --- the same size gives back the same job ---------------------------------
# 6 ranks from stall (6 ranks): every text member byte for byte, and the same
# events once ingested (the flight-recorder pickles are re-encoded).
check "synth/stall-6/exit-0" "$NF_BIN" synth --from testdata/corpus/stall.tar.gz --ranks 6 -o "$S/st6.tar.gz" -q
rm -rf "$S/a" "$S/b"; mkdir -p "$S/a" "$S/b"
tar xzf testdata/corpus/stall.tar.gz -C "$S/a"
tar xzf "$S/st6.tar.gz" -C "$S/b" 2>/dev/null
diffs=0
for f in $(cd "$S/a" && find . -type f ! -path '*/fr/*' | sort); do
	cmp -s "$S/a/$f" "$S/b/$f" || diffs=$((diffs + 1))
done
check_eq "synth/stall-6/text-members-identical" 0 "$diffs"
check_eq "synth/stall-6/same-members" "$(cd "$S/a" && find . | sort | tr '\n' ' ')" "$(cd "$S/b" && find . | sort | tr '\n' ' ')"
db0=$(ingest_case stall)
"$NF_BIN" ingest "$S/st6.tar.gz" -o "$S/st6.db" -q > /dev/null 2>&1
q="SELECT count(*), sum(length(fields)), sum(coalesce(rank, -1)) FROM events WHERE kind NOT LIKE 'fr_%'"
check_eq "synth/stall-6/same-log-events" "$(sql "$db0" "$q")" "$(sql "$S/st6.db" "$q")"
# (a group configuration repeated by several dumps is stored once, from whichever dump came first)
q="SELECT count(*), sum(length(fields)), sum(coalesce(rank, -1)) FROM events WHERE kind LIKE 'fr_%' AND kind <> 'fr_pg_config'"
check_eq "synth/stall-6/same-flight-recorder-events" "$(sql "$db0" "$q")" "$(sql "$S/st6.db" "$q")"

# --- determinism ---------------------------------------------------------------
"$NF_BIN" synth --from testdata/corpus/stall.tar.gz --ranks 24 -o "$S/d1.tar.gz" -q --seed 7
sleep 1 # no clock in the output (gzip header included)
"$NF_BIN" synth --from testdata/corpus/stall.tar.gz --ranks 24 -o "$S/d2.tar.gz" -q --seed 7
"$NF_BIN" synth --from testdata/corpus/stall.tar.gz --ranks 24 -o "$S/d3.tar.gz" -q --seed 8
check "synth/deterministic" cmp -s "$S/d1.tar.gz" "$S/d2.tar.gz"
check "synth/seed-matters" sh -c "! cmp -s '$S/d1.tar.gz' '$S/d3.tar.gz'"

# --- whole nodes only ----------------------------------------------------------
"$NF_BIN" synth --from testdata/corpus/stall.tar.gz --ranks 7 -o "$S/bad.tar.gz" -q > "$S/bad.out" 2>&1
check_eq "synth/odd-ranks-refused" "1" "$?"
check "synth/odd-ranks-message" grep -q "not a number of whole nodes" "$S/bad.out"

# --- 16 ranks from big: every line family scales with the copies ---------------
check "synth/big-16/exit-0" "$NF_BIN" synth --from testdata/corpus/big.tar.gz --ranks 16 -o "$S/big16.tar.gz" -q
db=$(ingest_case big)
"$NF_BIN" ingest "$S/big16.tar.gz" -o "$S/big16.db" -q > /dev/null 2>&1
q="SELECT group_concat(kind || '=' || n, ' ') FROM (SELECT kind, count(*) n FROM events WHERE kind NOT LIKE 'kernel%' AND kind <> 'fr_pg_config' GROUP BY kind ORDER BY kind)"
exp=$(sql "$db" "SELECT group_concat(kind || '=' || (2 * n), ' ') FROM (SELECT kind, count(*) n FROM events WHERE kind NOT LIKE 'kernel%' AND kind <> 'fr_pg_config' GROUP BY kind ORDER BY kind)")
check_eq "synth/big-16/events-per-kind-doubled" "$exp" "$(sql "$S/big16.db" "$q")"
check_eq "synth/big-16/ranks" "16 8" "$(sql "$S/big16.db" "SELECT count(*), count(DISTINCT host) FROM ranks" | tr '\t' ' ')"
# per-rank files: host gpu-nodeNN, local rank L -> rank 2*(NN-1)+L
bad=$(sql "$S/big16.db" "SELECT count(*) FROM sources WHERE kind='rank_log' AND
	(rank IS NULL OR rank <> 2 * (CAST(substr(host, 9) AS INTEGER) - 1) + local_rank)")
check_eq "synth/big-16/per-rank-files-attributed" 0 "$bad"
# the world communicator has 16 ranks; node-local ones keep 2; dp ones grow to 8
check_eq "synth/big-16/comm-sizes" "2 8 16" "$(sql "$S/big16.db" "SELECT group_concat(n, ' ') FROM (SELECT DISTINCT json_extract(fields,'\$.nranks') n FROM events WHERE kind='nccl_comm_init' ORDER BY n)")"
check_eq "synth/big-16/groups" "11" "$(sql "$S/big16.db" "SELECT count(*) FROM process_groups")"
# the ingest's two threads (reader, SQLite writer) give the case of a serial load
NF_INGEST_SERIAL=1 "$NF_BIN" ingest "$S/big16.tar.gz" -o "$S/big16s.db" -q --no-analyze > /dev/null 2>&1
"$NF_BIN" ingest "$S/big16.tar.gz" -o "$S/big16t.db" -q --no-analyze > /dev/null 2>&1
q="SELECT count(*), sum(length(fields)), sum(line_no), sum(source_id * event_id % 1000003), sum(coalesce(rank, -1)) FROM events"
check_eq "synth/big-16/threads-same-events" "$(sql "$S/big16s.db" "$q")" "$(sql "$S/big16t.db" "$q")"
q="SELECT count(*), sum(length(text)), sum(coalesce(rank, -1)), sum(coalesce(time_us, 0) % 1000003) FROM lines"
check_eq "synth/big-16/threads-same-lines" "$(sql "$S/big16s.db" "$q")" "$(sql "$S/big16t.db" "$q")"
q="SELECT count(*), sum(length(data)), sum(raw_bytes) FROM line_blocks"
check_eq "synth/big-16/threads-same-blocks" "$(sql "$S/big16s.db" "$q")" "$(sql "$S/big16t.db" "$q")"

# --- 256 ranks from stall: the fault in every copy -----------------------------
check "synth/stall-256/exit-0" "$NF_BIN" synth --from testdata/corpus/stall.tar.gz --ranks 256 -o "$S/st256.tar.gz" -q
"$NF_BIN" ingest "$S/st256.tar.gz" -o "$S/st256.db" -q > "$S/st256.out" 2>&1
check_eq "synth/stall-256/ranks" "256 128" "$(sql "$S/st256.db" "SELECT count(*), count(DISTINCT host) FROM ranks" | tr '\t' ' ')"
# 42 full copies of 3 nodes and one copy of the first 2 (ranks 0-3)
n0=$(sql "$db0" "SELECT count(*) FROM events WHERE kind='pg_watchdog_timeout'")
n1=$(sql "$db0" "SELECT count(*) FROM events WHERE kind='pg_watchdog_timeout' AND rank < 4")
check_eq "synth/stall-256/watchdog-timeouts" "$((42 * n0 + n1))" "$(sql "$S/st256.db" "SELECT count(*) FROM events WHERE kind='pg_watchdog_timeout'")"
exp=$(sql "$db0" "SELECT group_concat(n, ' ') FROM (SELECT rank % 6 r, count(*) n FROM events WHERE kind='fr_entry' GROUP BY rank ORDER BY rank)")
got=$(sql "$S/st256.db" "SELECT group_concat(n, ' ') FROM (SELECT DISTINCT rank % 6 r, count(*) n FROM events WHERE kind='fr_entry' GROUP BY rank ORDER BY r)")
check_eq "synth/stall-256/flight-recorder-entries-per-copy" "$exp" "$got"

# The verdict names exactly the copies of stall's culprit (rank 2 -> 2 + 6c,
# c = 0..42) and the copied group (tp1 -> tp(1 + 3c)) with the same sequence
# number. DEPENDS ON THE DIAGNOSIS (src/analysis*.c, written in parallel):
# these checks state the expected answer and fail until it gives it.
exp=$(awk 'BEGIN { s = "["; for (c = 0; c <= 42; c++) s = s (c ? "," : "") (2 + 6 * c); print s "]" }')
check_eq "synth/stall-256/DIAGNOSIS/culprits-are-the-copies" "$exp" "$(sql "$S/st256.db" "SELECT replace(culprit_ranks, ' ', '') FROM verdict")"
check_eq "synth/stall-256/DIAGNOSIS/cause" "hang rank_stalled 15" "$(sql "$S/st256.db" "SELECT outcome, cause, seq FROM verdict" | tr '\t' ' ')"
# every group the verdict names is a copy of tp1 (by description or GUID)
pgs=$(sql "$S/st256.db" "SELECT process_group FROM verdict" | tr -d '[]" ' | tr ',' ' ')
badpg=0
for pg in $pgs; do
	d=$(sql "$S/st256.db" "SELECT coalesce((SELECT desc FROM process_groups WHERE pg = '$pg' OR desc = '$pg' LIMIT 1), '$pg')")
	case $d in
	tp*) k=${d#tp}; [ $((k % 3)) -eq 1 ] && [ "$k" -le 127 ] || badpg=$((badpg + 1)) ;;
	*) badpg=$((badpg + 1)) ;;
	esac
done
[ -n "$pgs" ] || badpg=1
check_eq "synth/stall-256/DIAGNOSIS/group-is-a-copy-of-tp1" 0 "$badpg"
# a setting made on all 128 hosts: its finding names four and counts the rest
check_eq "synth/stall-256/findings-name-few-hosts" "1 0" "$(sql "$S/st256.db" "SELECT count(*) > 0, sum(length(summary) > 600) FROM findings WHERE summary LIKE '%gpu-node%4 and 124 more hosts%'" | tr '\t' ' ')"
rm -rf "$S/a" "$S/b"

# --- a hang no watchdog reported, at scale -----------------------------------
# blocking_stall (4 ranks, TORCH_NCCL_BLOCKING_WAIT=1, rank 2 stops before its
# tp all_gather #7, nothing times out) cloned to 128 ranks: the verdict comes
# from who enqueued what, and names exactly the copies of rank 2 (2 + 4c).
"$NF_BIN" synth --from testdata/realjobs/blocking_stall.tar.gz --ranks 128 -o "$S/bs128.tar.gz" -q
"$NF_BIN" ingest "$S/bs128.tar.gz" -o "$S/bs128.db" -q > /dev/null 2>&1
exp=$(awk 'BEGIN { s = "["; for (c = 0; c < 32; c++) s = s (c ? "," : "") (2 + 4 * c); print s "]" }')
check_eq "synth/blocking-stall-128/culprits-are-the-copies" "$exp" "$(sql "$S/bs128.db" "SELECT replace(culprit_ranks, ' ', '') FROM verdict")"
check_eq "synth/blocking-stall-128/verdict" "hang rank_stalled 7 ALLGATHER" "$(sql "$S/bs128.db" "SELECT outcome, cause, seq, op FROM verdict" | tr '\t' ' ')"

# --- verdicts at scale -------------------------------------------------------
# scaled_verdict NAME JOB RANKS EXPECTED [COLUMNS...]: the real job
# testdata/realjobs/JOB cloned to RANKS ranks must get the verdict EXPECTED
# (outcome, cause, culprits without spaces, then the COLUMNS of verdict named).
scaled_verdict() {
	name=$1 job=$2 ranks=$3 expected=$4
	shift 4
	cols=""
	for c in "$@"; do cols="$cols, $c"; done
	"$NF_BIN" synth --from "testdata/realjobs/$job.tar.gz" --ranks "$ranks" -o "$S/$name.tar.gz" -q
	"$NF_BIN" ingest "$S/$name.tar.gz" -o "$S/$name.db" -q > /dev/null 2>&1
	check_eq "synth/$name/verdict" "$expected" \
		"$(sql "$S/$name.db" "SELECT outcome, cause, replace(culprit_ranks, ' ', '')$cols FROM verdict" | tr '\t' ' ')"
}

# --- a SIGTERM from outside, at scale ----------------------------------------
# g3_sigterm_r2 (6 ranks: rank 2 gets SIGTERM from outside, its launcher
# SIGTERMs it again after rank 3's abort) cloned to 24 ranks: each copy of
# rank 2 went silent with the others, not alone, and is still a death, not
# the launcher's doing (a hang with four stalled ranks before).
scaled_verdict sigterm-24 g3_sigterm_r2 24 "crash rank_exited [2,8,14,20]"

# --- stragglers, at scale -----------------------------------------------------
# g2_straggler_r5 (6 ranks: rank 5 sleeps 0.4 s every step) cloned to 24
# ranks: its four copies are alike, so none of them alone stands out against
# the rest (the next slowest is another copy); together they do.
scaled_verdict straggler-24 g2_straggler_r5 24 "completed straggler [5,11,17,23]"

# --- ranks that woke too late, at scale ----------------------------------------
# g2_slow_step_r2 (6 ranks: rank 2 sleeps 30 s before its tp all_gather #11,
# past the 20 s timeout, then goes on) cloned to 24 ranks: the four copies
# made their calls late at once, in their own tp groups and together in dp0;
# each of them is a rank that stalled (only one such rank was named before:
# "unknown" then).
scaled_verdict late-24 g2_slow_step_r2 24 "hang rank_stalled [2,8,14,20] 11 ALLGATHER" seq op

# --- skips done alike, at scale --------------------------------------------------
# extra_barrier_r3 (4 ranks: rank 3 calls a barrier the others do not and
# never reaches its tp all_gather) cloned to 16 ranks: the four copies went
# past their tp calls alike; rank 1 and its copies, left waiting in dp1 for
# them, went past the barrier only as seen from the copies, and are not named.
scaled_verdict extra-barrier-16 extra_barrier_r3 16 "hang collective_mismatch [3,7,11,15]"
# skip_bcast (6 ranks: rank 4 skips a broadcast of the default group) cloned
# to 24: its copies skipped the same call; rank 5 and its copies, waiting in
# that broadcast, are not named.
scaled_verdict skip-bcast-24 skip_bcast 24 "hang collective_mismatch [4,10,16,22]"
# hung_skip_bcast (6 ranks, no timeout: rank 1 skips a broadcast and goes
# on ahead in dp1) cloned to 24: its four copies are ahead together in dp1,
# a minority of its members, and are named.
scaled_verdict hung-skip-ahead-24 hung_skip_bcast 24 "hang collective_mismatch [1,7,13,19]"
# s4_hung_skip_bcast_r3 (6 ranks, no timeout: rank 3's skip told by a peer's
# order of lines) cloned to 24: every copy went past the call the same way.
scaled_verdict hung-skip-by-order-24 s4_hung_skip_bcast_r3 24 "hang collective_mismatch [3,9,15,21]"
# slow_step_nofr (4 ranks, no flight recorder: rank 1 sleeps past the
# timeout, then goes on) cloned to 16: the watchdogs' lines alone show the
# four copies' timed-out calls begun late, within a second of each other.
scaled_verdict late-start-16 slow_step_nofr 16 "hang rank_stalled [1,5,9,13]"
# b1_stall_wd60_r1 (3 ranks, one per node: rank 1 stuck in host code) cloned
# to 12: its four copies are a third of the ranks, stuck at once, a node's
# worth in a job of three 4-GPU nodes; each is named (a quarter was the limit).
scaled_verdict stall-third-12 b1_stall_wd60_r1 12 "hang rank_stalled [1,4,7,10]"
# c1_short_r1 (3 ranks: rank 1 leaves the loop early for the final barrier)
# cloned to 12: the four copies skipped alike.
scaled_verdict short-third-12 c1_short_r1 12 "hang collective_mismatch [1,4,7,10]"
