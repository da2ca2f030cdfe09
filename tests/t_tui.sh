#!/bin/sh
# The terminal UI, driven headless: `tui CASE --script KEYS --dump-screen FILE
# --size 80x24` presses KEYS (docs/tui.md) on a virtual terminal and writes the
# screen as text. Golden screens of the stall case (tests/golden/tui/), the
# status line and errors, `view`, and a 1,024-rank case paged through under a
# time bound.
#
# The goldens use a copy of the stall case whose verdict is set by
# tui_verdict_sql below (the one the corpus answer gives: rank 2 stalled), so
# they test the TUI, not the analysis. When the ingest or the TUI changes on
# purpose: NF_UPDATE_GOLDEN=1 NF_ONLY=t_tui sh tests/run.sh rewrites them.
. tests/lib.sh

T="$TMP/tui"
rm -rf "$T"
mkdir -p "$T"

# The analysis tables of the goldens, made from the events alone: the verdict
# (first failure: the first watchdog timeout), one finding with evidence, the
# cascade of timeouts, a network row per rank.
tui_verdict_sql="DELETE FROM verdict; DELETE FROM findings; DELETE FROM evidence; DELETE FROM cascade;
DELETE FROM network; DELETE FROM sysmsgs;
INSERT INTO verdict(outcome, cause, culprit_ranks, culprit_hosts, process_group, seq, op, first_failure_us,
  confidence, summary, missing)
SELECT 'hang', 'rank_stalled', '[2]', '[\"gpu-node02\"]', 'tp1', 15, 'ALLGATHER', min(time_us),
  'high', 'rank 2 never enqueued ALLGATHER #15 of tp1; its peers timed out', '[]'
FROM events WHERE kind = 'pg_watchdog_timeout';
INSERT INTO evidence(finding_id, ord, source_id, line_no, event_id, note)
SELECT 0, 1, source_id, line_no, event_id, 'the first watchdog timeout' FROM events
WHERE kind = 'pg_watchdog_timeout' ORDER BY time_us, event_id LIMIT 1;
INSERT INTO findings(finding_id, kind, severity, ranks, hosts, summary, hint)
VALUES (1, 'watchdog_timeout', 'error', '[0,1,3,4,5]', '[]', 'the peers of rank 2 timed out', NULL);
INSERT INTO evidence(finding_id, ord, source_id, line_no, event_id, note)
SELECT 1, row_number() OVER (ORDER BY time_us, event_id), source_id, line_no, event_id, 'timeout of r' || rank
FROM events WHERE kind = 'pg_watchdog_timeout' AND source_id IN (SELECT source_id FROM sources WHERE kind = 'rank_log');
INSERT INTO cascade(ord, rank, host, time_us, offset_ms, what, role, event_id)
SELECT row_number() OVER (ORDER BY min(time_us)), rank, host, min(time_us),
  (min(time_us) - (SELECT min(time_us) FROM events WHERE kind = 'pg_watchdog_timeout')) / 1000,
  'pg_watchdog_timeout', 'consequence', min(event_id)
FROM events WHERE kind = 'pg_watchdog_timeout' GROUP BY rank;
INSERT INTO network(host, rank, pid, bootstrap_if, bootstrap_addr, network, transports)
SELECT host, rank, pid, 'lo', '127.0.0.1', 'Socket', 'P2P, NET/Socket' FROM ranks;"

stall=$(ingest_case stall)
db="$T/stall.db"
cp "$stall" "$db"
"$NF_BIN" sql --write "$db" "$tui_verdict_sql" > "$T/verdict.out" 2>&1
check_eq "tui/test-verdict-set" "1" "$(sql "$db" "SELECT count(*) FROM verdict")"

# screen NAME KEYS [OPTIONS...]: the screen after KEYS in $T/NAME.txt
screen() {
	n=$1; k=$2; shift 2
	"$NF_BIN" tui "$db" --ascii --size 80x24 --script "$k" --dump-screen "$T/$n.txt" "$@" > "$T/$n.err" 2>&1
}
# golden NAME KEYS [OPTIONS...]: that screen against tests/golden/tui/NAME.txt
golden() {
	n=$1
	if screen "$@"; then
		check_golden "tui/$n.txt" "$T/$n.txt"
	else
		fail "tui/$n.txt" "exit $?: $(head -c 300 "$T/$n.err")"
	fi
}

golden open ""
golden culprit "<Home>c"
golden first-failure "f"
golden zoom-in "+++"
golden zoom-out "--"
golden pan "+++HH<Left><Left>l"
golden events "e"
golden events-all "ea<Down><Down>"
golden lines "e<Enter>"
golden sql ":SELECT rank, host, local_rank, pid, bus_id FROM ranks ORDER BY rank<Enter>"
golden sql-error ":SELECT nosuch FROM ranks<Enter>"
golden help "?"
golden findings "v"
golden findings-expanded "vjjjjjjjjjj<Enter>"
golden findings-evidence "vjjjjjjjjjj<Enter>jj<Enter>"
golden search "/Watchdog caught<Enter>nn"
golden filter "Fx<Down><Down><Down><Space>q"
golden ungrouped "g"
golden collapsed "k<Space>"
golden marks "m<Right><Right>m'"
golden resized "<Resize:100x30>"
golden small "" --size 40x12

# the culprit's row is highlighted and the verdict is on the status line
check "tui/open/culprit-row" grep -q '^>  r2 culprit ' "$T/open.txt"
check "tui/open/verdict-status" sh -c "tail -n 1 '$T/open.txt' | grep -q '^verdict: hang/rank_stalled | culprit r2'"
check "tui/culprit/selects-r2" grep -q '^>  r2 culprit ' "$T/culprit.txt"
check "tui/culprit/message" sh -c "tail -n 1 '$T/culprit.txt' | grep -q '^culprit r2'"
check "tui/first-failure/message" sh -c "tail -n 1 '$T/first-failure.txt' | grep -q '^first failure at 23:56:08.174'"
check "tui/sql-error/status" sh -c "tail -n 1 '$T/sql-error.txt' | grep -q '^SQL: no such'"
check "tui/events/title" grep -q '^ events | stall.db | r2@gpu-node02' "$T/events.txt"
check "tui/lines/source-path" grep -q '^ lines | stall.db | job-stall/gpu-node02/' "$T/lines.txt"
check "tui/findings/expanded" grep -q '^>- error    watchdog_timeout' "$T/findings-expanded.txt"
check "tui/findings/evidence-opens-lines" grep -q '^ lines | stall.db | job-stall/gpu-node0[0-9]/torchrun/' "$T/findings-evidence.txt"
check "tui/help/lists-keys" grep -q 'SQL prompt: run a SELECT' "$T/help.txt"
"$NF_BIN" tui "$db" --ascii --script "?<End>" --dump-screen "$T/help-end.txt" > /dev/null 2>&1
check "tui/help/lists-markers" grep -q 'the first-failure column' "$T/help-end.txt"

# docs/tui.md describes every key the help lists
"$NF_BIN" tui "$db" --ascii --size 120x200 --script "?" --dump-screen "$T/help-all.txt" > /dev/null 2>&1
missing=$(awk '/^Keys in/ {on = 1; next} /^SQL result view/ {on = 0} on && /^  / {print substr($0, 18)}' "$T/help-all.txt" |
	sort -u | while IFS= read -r h; do grep -qF -- "| $h |" docs/tui.md || printf '[%s] ' "$h"; done)
check_eq "tui/docs-list-every-key" "" "$missing"

# the verdict the analysis writes (not the test's): rank 2 is still the culprit
"$NF_BIN" tui "$stall" --ascii --script "" --dump-screen "$T/real.txt" > /dev/null 2>&1
check "tui/analysis-verdict/culprit-row" grep -q '^>  r2 culprit ' "$T/real.txt"
check "tui/analysis-verdict/status" sh -c "tail -n 1 '$T/real.txt' | grep -q '^verdict: hang/rank_stalled'"

# no verdict: no highlight, "no verdict", and c and f still answer
cp "$stall" "$T/noverdict.db"
"$NF_BIN" sql --write "$T/noverdict.db" "DELETE FROM verdict" > /dev/null 2>&1
"$NF_BIN" tui "$T/noverdict.db" --ascii --script "" --dump-screen "$T/nv.txt" > /dev/null 2>&1
check "tui/no-verdict/status" sh -c "tail -n 1 '$T/nv.txt' | grep -q '^no verdict'"
check "tui/no-verdict/no-culprit" sh -c "! grep -q culprit '$T/nv.txt'"
"$NF_BIN" tui "$T/noverdict.db" --ascii --script "f" --dump-screen "$T/nvf.txt" > /dev/null 2>&1
check "tui/no-verdict/f-finds-first-timeout" sh -c "tail -n 1 '$T/nvf.txt' | grep -q 'first failure event at 23:56:08.174'"
"$NF_BIN" tui "$T/noverdict.db" --ascii --script "c" --dump-screen "$T/nvc.txt" > /dev/null 2>&1
check "tui/no-verdict/c-says-so" sh -c "tail -n 1 '$T/nvc.txt' | grep -q 'no culprit known'"

# the SQL prompt runs queries only; the case is untouched
n0=$(sql "$db" "SELECT count(*) FROM events")
"$NF_BIN" tui "$db" --ascii --script ":DELETE FROM events<Enter>" --dump-screen "$T/del.txt" > /dev/null 2>&1
check "tui/sql-write/refused" sh -c "tail -n 1 '$T/del.txt' | grep -q '^SQL: only queries'"
check_eq "tui/sql-write/case-untouched" "$n0" "$(sql "$db" "SELECT count(*) FROM events")"
"$NF_BIN" tui "$db" --ascii --script "/(unclosed<Enter>" --dump-screen "$T/re.txt" > /dev/null 2>&1
check "tui/search/bad-regex-status" sh -c "tail -n 1 '$T/re.txt' | grep -q '^regex: missing closing parenthesis'"

# the same screens without colour and with UTF-8 line drawing
NO_COLOR=1 "$NF_BIN" tui "$db" --ascii --script "" --dump-screen "$T/nocolor.txt" > /dev/null 2>&1
check "tui/no-color/same-text" cmp -s "$T/nocolor.txt" "$T/open.txt"
utf8=$(locale -a 2>/dev/null | grep -i -m 1 -E '^c\.utf-?8$')
if [ -n "$utf8" ]; then
	LC_ALL=$utf8 "$NF_BIN" tui "$db" --script "" --dump-screen "$T/utf8.txt" > /dev/null 2>&1
	check "tui/utf8/line-drawing" grep -q '│' "$T/utf8.txt"
	LC_ALL=$utf8 "$NF_BIN" tui "$db" --ascii --script "" --dump-screen "$T/ascii.txt" > /dev/null 2>&1
	check "tui/utf8/ascii-option" cmp -s "$T/ascii.txt" "$T/open.txt"
else
	echo "skip tui/utf8: no C.UTF-8 locale"
fi

# usage errors
"$NF_BIN" tui "$db" --size 3x2 --script "" > /dev/null 2>&1
check_eq "tui/bad-size/exit" 2 "$?"
"$NF_BIN" tui "$db" --script "\\x" > /dev/null 2>&1
check_eq "tui/bad-script-escape/exit" 2 "$?"
"$NF_BIN" tui "$T/missing.db" --script "" > /dev/null 2>&1
check_eq "tui/missing-case/exit" 3 "$?"
"$NF_BIN" tui "$db" < /dev/null > "$T/notty.out" 2>&1
check_eq "tui/not-a-terminal/exit" 2 "$?"

# view: ingest into a temporary case, browse, remove it
mkdir -p "$T/viewtmp"
vt=$(cd "$T/viewtmp" && pwd)
TMPDIR="$vt" "$NF_BIN" view testdata/corpus/stall.tar.gz -q --ascii --script "q" --dump-screen "$T/view.txt" > "$T/view.err" 2>&1
check_eq "tui/view/exit" 0 "$?"
check "tui/view/timeline" grep -q '^ timeline | stall.tar.gz | 6 ranks' "$T/view.txt"
check_eq "tui/view/temporary-case-removed" "" "$(ls -A "$T/viewtmp")"

# valgrind: a tour of every view, no memory error and no leak
if command -v valgrind > /dev/null 2>&1 && [ "${NF_ASAN:-}" != 1 ]; then
	NCCLFORENSIC_NO_JIT=1 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--log-file="$T/vg.log" "$NF_BIN" tui "$db" --ascii --dump-screen "$T/vg.txt" \
		--script "cf+-0g<Space>gk<Space><Space>ea<Down><PgDn><Enter><Down>nq/Watchdog<Enter>nN<Enter>Nqq:SELECT * FROM events<Enter><End><Right><Enter>q:bad<Enter>F<Space>xaqv<Down><Enter>q?<PgDn>qm<Left>m'\"<Resize:100x30><Resize:30x8>Q" \
		> /dev/null 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$T/vg.log" ]; then pass "tui/valgrind"; else fail "tui/valgrind" "exit $rc, see $T/vg.log"; fi
else
	echo "skip tui/valgrind: no valgrind, or a sanitizer build"
fi

# --- a 1,024-rank case: paging through it stays under 50 ms a key -------------
# Synthesized with `synth` from the stall job; per-rank copies of the console
# (torchrun/) are left out to keep the ingest short: ranks, hosts, flight
# recorders and the console lines of every rank are all there.
# NF_TUI_BIG_CASE=path reuses a case built before.
big=${NF_TUI_BIG_CASE:-}
if [ -z "$big" ]; then
	big="$T/big.db"
	rm -rf "$T/bigsrc"
	mkdir -p "$T/bigsrc"
	tar xzf testdata/corpus/stall.tar.gz -C "$T/bigsrc"
	rm -rf "$T"/bigsrc/job-stall/*/torchrun
	if "$NF_BIN" synth --from "$T/bigsrc/job-stall" --ranks 1024 -o "$T/big.tar.gz" -q > "$T/synth.out" 2>&1; then
		"$NF_BIN" ingest "$T/big.tar.gz" -o "$big" -q --no-analyze > "$T/big.ingest.out" 2>&1
	else
		fail "tui/big/synth" "synth failed: $(head -c 200 "$T/synth.out")"
		big=""
	fi
fi
if [ -n "$big" ] && [ -f "$big" ]; then
	check_eq "tui/big/ranks" 1024 "$(sql "$big" "SELECT count(*) FROM ranks")"
	keys=""
	i=0
	while [ $i -lt 80 ]; do keys="$keys<PgDn>"; i=$((i + 1)); done
	keys="${keys}jjkk+-0fc<PgUp><PgUp>e<PgDn><PgDn>a<PgDn><Enter><PgDn>qqg<PgUp>jk:SELECT * FROM events<Enter><PgDn><End>q?qg<End>"
	start=$(date +%s)
	"$NF_BIN" tui "$big" --ascii --timing --script "$keys" --dump-screen "$T/big.txt" > "$T/big.out" 2> "$T/big.err"
	rc=$?
	took=$(( $(date +%s) - start ))
	check_eq "tui/big/exit" 0 "$rc"
	check "tui/big/last-rank-shown" grep -q 'r1023' "$T/big.txt"
	# the slowest key in CPU ms (other jobs on the machine do not count),
	# and in wall-clock ms with room for them; sanitizer builds are slower
	cpu_bound=50 wall_bound=500
	[ "${NF_ASAN:-}" = 1 ] && cpu_bound=1000 wall_bound=5000
	cpu=$(sed -n 's/.*max cpu \([0-9]*\)\.[0-9]* ms.*/\1/p' "$T/big.err")
	wall=$(sed -n 's/.*, max \([0-9]*\)\.[0-9]* ms (key.*/\1/p' "$T/big.err")
	if [ -n "$cpu" ] && [ "$cpu" -lt "$cpu_bound" ]; then
		pass "tui/big/max-key-cpu-under-${cpu_bound}ms"
	else
		fail "tui/big/max-key-cpu-under-${cpu_bound}ms" "$(tr '\n' ' ' < "$T/big.err")"
	fi
	if [ -n "$wall" ] && [ "$wall" -lt "$wall_bound" ]; then
		pass "tui/big/max-key-wall-under-${wall_bound}ms"
	else
		fail "tui/big/max-key-wall-under-${wall_bound}ms" "$(tr '\n' ' ' < "$T/big.err")"
	fi
	echo "tui/big: $(tail -n 1 "$T/big.err")"
	if [ "$took" -le 20 ]; then pass "tui/big/whole-run-under-20s"; else fail "tui/big/whole-run-under-20s" "took ${took}s"; fi
fi

# C collapses every host, E expands them; ! keeps the hosts with findings
# (the test verdict's culprit host gpu-node02: its rank 2 is the culprit)
screen collapse-all 'C'
check_eq "tui/collapse-all/no-rank-rows" 0 "$(grep -c '^ *r[0-9] ' "$T/collapse-all.txt")"
check "tui/collapse-all/says" grep -q 'every host collapsed' "$T/collapse-all.txt"
screen expand-all 'CE'
check_eq "tui/expand-all/rank-rows" 6 "$(grep -cE '^[ >]*r[0-9]' "$T/expand-all.txt")"
screen noted '!'
check "tui/noted/culprit-host" grep -q 'gpu-node02' "$T/noted.txt"
check "tui/noted/says" grep -q 'hosts: those with findings' "$T/noted.txt"
check_eq "tui/noted/other-hosts-hidden" 0 "$(grep -c 'gpu-node01 \|gpu-node03 ' "$T/noted.txt")"
screen noted-back '!!'
check "tui/noted-back/all-hosts" grep -q 'gpu-node03' "$T/noted-back.txt"
# w wraps the lines view: a line longer than the screen goes on below
screen wrapped 'cee\nw'
check "tui/wrap/says" grep -q 'long lines wrap' "$T/wrapped.txt"
screen unwrapped 'cee\n'
check "tui/wrap/more-rows-for-fewer-lines" test "$(grep -cE '^[ >]* [0-9]+  ' "$T/wrapped.txt")" -lt \
	"$(grep -cE '^[ >]* [0-9]+  ' "$T/unwrapped.txt")"
# f on a completed job: no failure to jump to
done_db="$T/done.db"
cp "$db" "$done_db"
"$NF_BIN" sql --write "$done_db" "UPDATE verdict SET outcome = 'completed', cause = 'none', first_failure_us = NULL" > /dev/null 2>&1
"$NF_BIN" tui "$done_db" --ascii --size 80x24 --script 'f' --dump-screen "$T/done-f.txt" > /dev/null 2>&1
check "tui/completed/f-no-failure" grep -q 'no failure to jump to' "$T/done-f.txt"
