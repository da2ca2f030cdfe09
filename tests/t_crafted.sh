#!/bin/sh
# Crafted cases (docs/robustness.md): a case is evidence someone else sent,
# and every number in it may be anything. A real case with its times, sequence
# numbers, offsets, ranks and sizes set to the ends of the 64-bit range is
# read by every report format and the TUI: each ends normally with output of
# a bounded size (under `make check-asan`, with no sanitizer report: no
# signed overflow in the arithmetic on those values).
. tests/lib.sh

C="$TMP/crafted"
rm -rf "$C"
mkdir -p "$C"
db=$(ingest_case stall)
max=9223372036854775807
min=-9223372036854775808
n=0
for how in max min mixed; do
	n=$((n + 1))
	cp "$db" "$C/$how.db"
	case $how in
	max) a=$max b=$max ;;
	min) a=$min b=$min ;;
	mixed) a=$min b=$max ;;
	esac
	sql "$C/$how.db" "
UPDATE events SET time_us = CASE WHEN event_id % 2 THEN $a ELSE $b END WHERE event_id % 3 = 0;
UPDATE verdict SET first_failure_us = $b, seq = $a;
UPDATE cascade SET time_us = CASE WHEN ord % 2 THEN $a ELSE $b END, offset_ms = $b;
UPDATE collectives SET seq = $b, numel_in = $a, numel_out = $b, time_created_us = $a, time_started_us = $b,
  time_completed_us = $a, duration_ms = 1e308;
UPDATE pg_status SET last_enqueued = $a, last_started = $b, last_completed = $a, time_us = $b;
UPDATE rank_status SET first_time_us = $a, last_time_us = $b, last_progress_us = $a, last_step = $b,
  last_step_time_us = $a, first_error_time_us = $b, first_timeout_time_us = $a, exit_code = $b;
UPDATE sources SET first_time_us = $a, last_time_us = $b, lines = $b, bytes = $b;
UPDATE meta SET value = '$b' WHERE key IN ('lines', 'input_bytes', 'input_uncompressed_bytes', 'members');
UPDATE verdict SET culprit_ranks = '[$a, $b, 2]';
UPDATE findings SET ranks = '[$b, $a]';
UPDATE evidence SET line_no = $b WHERE ord % 2 = 0;
UPDATE cascade SET rank = $b WHERE ord = 1;
UPDATE rank_status SET rank = $b WHERE rank = 5;
" > /dev/null
	for f in md text json html; do
		"$NF_BIN" report "$C/$how.db" --format "$f" -o "$C/$how.$f" 2> "$C/$how.$f.err"
		check_eq "crafted/$how/report-$f/exit-0" 0 "$?"
		size=$(wc -c < "$C/$how.$f" 2> /dev/null || echo 0)
		check "crafted/$how/report-$f/bounded ($size bytes)" test "$size" -gt 0 -a "$size" -lt 20000000
	done
	for keys in '' '<End>' 'v' 'e' 'l<Right><Right>'; do
		"$NF_BIN" tui "$C/$how.db" --script "$keys" --dump-screen "$C/$how.tui" --size 100x30 > /dev/null 2>&1
		check_eq "crafted/$how/tui-'$keys'/exit-0" 0 "$?"
	done
	"$NF_BIN" analyze "$C/$how.db" > /dev/null 2> "$C/$how.analyze.err"
	rc=$?
	check "crafted/$how/analyze-ends ($rc)" test "$rc" -le 1
done
