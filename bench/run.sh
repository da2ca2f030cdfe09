#!/bin/sh
# bench/run.sh: the scale benchmark (`make bench`). Synthesizes jobs of 64,
# 1,024 and 4,096 ranks from the corpus job big and faulty ones of 1,024 and
# 16,384 ranks from stall (the diagnosis and the report at the scale where a
# cost that grows with the square of the ranks shows), then measures on this machine, in this run:
#   floor    bsdtar -xOf JOB > /dev/null (libarchive alone)
#   ingest   ncclforensic ingest --no-analyze: the case built (wall, CPU,
#            peak RSS), and its phases (NF_TIMINGS=1: load, indexes,
#            attribution); with --jobs 1, 2 and all the cores too (the
#            default is the cores, at most 8)
#   analyze  ncclforensic analyze CASE (what a plain `ingest` runs after)
#   report   ncclforensic report CASE --format json
#   tui      ncclforensic tui CASE opened (headless, 120x40), then 'q'
# "to verdict" is ingest + analyze + report: from the archive to the verdict.
# The case size is measured after analyze; peak RSS is ingest's or analyze's.
# prints a table and rewrites the generated parts of BENCHMARKS.md (the rest
# of the file, the analysis written by hand, is kept).
#
# Environment:
#   NF_BIN=path        binary (default ./ncclforensic)
#   BENCH_DIR=dir      work directory (default build/bench)
#   BENCH_SIZES="..."  ranks synthesized from big (default "64 1024 4096")
#   BENCH_FAULTY="..." ranks synthesized from stall (default "1024 16384";
#                      0 or "": none)
#   BENCH_REUSE=1      keep synthesized inputs from an earlier run
#   BENCH_PROFILE=0    no perf profile of the 1,024-rank ingest
#   BENCH_MD=file      where the report goes (default BENCHMARKS.md; "-": none)
#   BENCH_JOBS_INPUTS="..." inputs also ingested at --jobs 1, 2 and all the
#                      cores (default "big-1024 stall-16384"; "": none)
#   BENCH_TIMEOUT=s    longest any one command may run (default 1800): past
#                      it the command is stopped and its cell says "timeout"
set -u
cd "$(dirname "$0")/.." || exit 2
BIN=${NF_BIN:-./ncclforensic}
DIR=${BENCH_DIR:-build/bench}
SIZES=${BENCH_SIZES:-"64 1024 4096"}
FAULTY=${BENCH_FAULTY-"1024 16384"}
MD=${BENCH_MD:-BENCHMARKS.md}
TIME=/usr/bin/time
CORPUS=testdata/corpus

die() { echo "bench: $*" >&2; exit 2; }
[ -x "$BIN" ] || die "no binary $BIN (run make)"
[ -x "$TIME" ] || die "needs GNU time as $TIME (Debian package time)"
command -v bsdtar > /dev/null || die "needs bsdtar for the floor (Debian package libarchive-tools)"
mkdir -p "$DIR"
T0=$(date +%s)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

# timed CMD...: runs CMD with GNU time (and a timeout); sets W (wall s), C
# (user+sys s), R (peak RSS MiB), RC (exit status; 124: timed out, then W is
# "timeout"). Output of CMD goes to $DIR/last.out.
timed() {
	: > "$DIR/time.txt"
	timeout "${BENCH_TIMEOUT:-1800}" "$TIME" -f '%e %U %S %M' -o "$DIR/time.txt" "$@" > "$DIR/last.out" 2>&1
	RC=$?
	if [ $RC -eq 124 ] || [ ! -s "$DIR/time.txt" ]; then
		W=timeout C=- R=-
		return
	fi
	# the fields of time's last line, split on purpose
	# shellcheck disable=SC2046
	set -- $(tail -n 1 "$DIR/time.txt")
	W=$1
	C=$(echo "$2 $3" | awk '{printf "%.2f", $1 + $2}')
	R=$(echo "$4" | awk '{printf "%.0f", $1 / 1024}')
}

# tui CASE: opens the TUI on the case and quits (its headless mode: a
# virtual terminal, keys from --script); W or "n/a"
tui_time() {
	timed "$BIN" tui "$1" --ascii --size 120x40 --script q --dump-screen "$DIR/tui.txt"
	TW=$W
	[ $RC -eq 0 ] || TW=n/a
}

sql1() { "$BIN" sql "$1" "$2" --tsv 2>/dev/null | head -n 1; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

ROWS="$DIR/rows.tsv"
PHASES="$DIR/phases.tsv"
JOBROWS="$DIR/jobs.tsv"
: > "$ROWS"
: > "$PHASES"
: > "$JOBROWS"
JOBS_INPUTS=${BENCH_JOBS_INPUTS-"big-1024 stall-16384"}
NCORES=$(nproc 2>/dev/null || echo 1)

# input list: name source ranks
inputs=""
for n in $SIZES; do inputs="$inputs big-$n:big:$n"; done
for n in $FAULTY; do [ "$n" -gt 0 ] 2>/dev/null && inputs="$inputs stall-$n:stall:$n"; done

for spec in $inputs; do
	name=${spec%%:*}; rest=${spec#*:}; src=${rest%%:*}; ranks=${rest#*:}
	job="$DIR/$name.tar.gz"
	db="$DIR/$name.db"
	if [ "${BENCH_REUSE:-}" != 1 ] || [ ! -f "$job" ]; then
		echo "bench: synthesizing $name" >&2
		timed "$BIN" synth --from "$CORPUS/$src.tar.gz" --ranks "$ranks" -o "$job"
		[ $RC -eq 0 ] || die "synth $name failed: $(tail -n 3 "$DIR/last.out")"
		SW=$W
	else
		SW=reused
	fi
	gz=$(wc -c < "$job")
	echo "bench: $name: floor" >&2
	timed sh -c "bsdtar -xOf '$job' > /dev/null"
	FW=$W
	timed sh -c "bsdtar -xOf '$job' | wc -c"
	raw=$(tail -n 1 "$DIR/last.out" | tr -d ' ')
	echo "bench: $name: ingest" >&2
	rm -f "$db"
	export NF_TIMINGS=1
	timed "$BIN" ingest "$job" -o "$db" -q --no-analyze
	unset NF_TIMINGS
	[ $RC -le 1 ] || [ "$W" = timeout ] || die "ingest $name failed ($RC): $(tail -n 3 "$DIR/last.out")"
	IW=$W IC=$C IR=$R
	if [ "$IW" = timeout ]; then
		printf '%s\t%s\t-\t-\t%s\t%s\t%s\ttimeout\t-\t-\t-\t-\t-\t-\t-\t-\t%s\t-\t-\t-\t-\t-\n' \
			"$name" "$ranks" "$(mb "$raw")" "$(mb "$gz")" "$FW" "$SW" >> "$ROWS"
		continue
	fi
	# phases: "timing: NAME WALL s wall CPU s cpu PEAK MiB peak"
	awk -v n="$name" '$1 == "timing:" && $4 == "s" && $5 == "wall" { printf "%s\t%s\t%s\t%s\t%s\n", n, $2, $3, $6, $9 }' "$DIR/last.out" >> "$PHASES"
	# the same ingest at --jobs 1, 2 and all the cores
	case " $JOBS_INPUTS " in *" $name "*)
		for j in $(printf '1\n2\n%s\n' "$NCORES" | sort -n -u); do
			echo "bench: $name: ingest --jobs $j" >&2
			rm -f "$DIR/jobs.db"
			timed "$BIN" ingest "$job" -o "$DIR/jobs.db" -q --no-analyze --jobs "$j"
			jr=$(echo "$W $FW" | awk '{ if ($2 > 0 && $1 != "timeout") printf "%.1f", $1 / $2; else print "-" }')
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$j" "$W" "$C" "$R" "$jr" >> "$JOBROWS"
		done
		rm -f "$DIR/jobs.db" ;;
	esac
	lines=$(sql1 "$db" "SELECT value FROM meta WHERE key='lines'")
	members=$(sql1 "$db" "SELECT value FROM meta WHERE key='members'")
	echo "bench: $name: analyze, report, tui" >&2
	timed "$BIN" analyze "$db"
	AW=$W; [ $RC -le 1 ] || AW=n/a
	# the case as its user has it (analysed), and the larger of the two peaks
	dbsize=$(wc -c < "$db")
	[ "$R" != - ] && [ "$R" -gt "$IR" ] && IR=$R
	verdict=$(sql1 "$db" "SELECT cause || ' ' || coalesce(json_array_length(culprit_ranks), 0) FROM verdict")
	timed "$BIN" report "$db" --format json -o "$DIR/$name.json"
	PW=$W; [ $RC -le 1 ] || PW=n/a
	VR=$R
	# the reader's side: the HTML report (its timeline) and the TUI, and the
	# larger of their peaks and the JSON report's
	timed "$BIN" report "$db" --format html -o "$DIR/$name.html"
	HW=$W; [ $RC -le 1 ] || HW=n/a
	[ "$R" != - ] && { [ "$VR" = - ] || [ "$R" -gt "$VR" ]; } && VR=$R
	tui_time "$db"
	[ "$R" != - ] && { [ "$VR" = - ] || [ "$R" -gt "$VR" ]; } && VR=$R
	ratio=$(echo "$IW $FW" | awk '{ if ($2 > 0) printf "%.1f", $1 / $2; else print "-" }')
	# from the archive to the verdict: ingest, analyze, report
	total=$(echo "$IW $AW $PW" | awk '{ printf "%.2f", $1 + $2 + $3 }')
	tratio=$(echo "$total $FW" | awk '{ if ($2 > 0) printf "%.1f", $1 / $2; else print "-" }')
	dbr=$(echo "$dbsize $gz" | awk '{ printf "%.2f", $1 / $2 }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$name" "$ranks" "$members" "$lines" "$(mb "$raw")" "$(mb "$gz")" "$FW" "$IW" "$IC" "$ratio" "$IR" \
		"$(mb "$dbsize")" "$dbr" "$AW" "$PW" "$TW" "$SW" "$total" "$tratio" "$verdict" "$HW" "$VR" >> "$ROWS"
done

# ---- profile of the 1,024-rank ingest ----
PROF="$DIR/profile.txt"
: > "$PROF"
if [ "${BENCH_PROFILE:-1}" != 0 ] && command -v perf > /dev/null && [ -f "$DIR/big-1024.tar.gz" ]; then
	echo "bench: big-1024: perf record" >&2
	rm -f "$DIR/prof.db"
	if perf record -F 499 -g -o "$DIR/perf.data" "$BIN" ingest "$DIR/big-1024.tar.gz" -o "$DIR/prof.db" -q --no-analyze \
		> /dev/null 2>"$DIR/perf.err"; then
		perf report -i "$DIR/perf.data" --no-children --percent-limit 1 --stdio -g none \
			--sort symbol 2>/dev/null | grep -E '^ +[0-9]' | head -n 25 > "$PROF"
		perf report -i "$DIR/perf.data" --no-children --stdio -g none --sort dso 2>/dev/null |
			grep -E '^ +[0-9]' | head -n 8 > "$DIR/profile_dso.txt"
	fi
	rm -f "$DIR/prof.db"
fi

T1=$(date +%s)
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

# ---- the table ----
TABLE="$DIR/table.md"
{
	echo "| input | ranks | members | lines | text MB | gz MB | floor s | ingest s | ingest CPU s | ingest / floor | peak RSS MB | case MB | case / gz | analyze s | report json s | tui s | synth s | to verdict s | to verdict / floor | verdict (cause, culprits) | report html s | report, TUI peak RSS MB |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"
	awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22 }' "$ROWS"
	echo
	echo "Phases of the ingest above: wall s / CPU s (of all its threads) / peak RSS MiB at the phase's end (NF_TIMINGS=1):"
	echo
	awk -F '\t' '
		{ if (!($2 in seen)) { seen[$2] = 1; cols[++nc] = $2 }
		  if (!($1 in seenr)) { seenr[$1] = 1; rows[++nr] = $1 }
		  v[$1 "," $2] = $3 " / " $4 ($5 != "" ? " / " $5 : "") }
		END {
			if (!nr) exit
			printf "| input |"; for (i = 1; i <= nc; i++) printf " %s |", cols[i]; print ""
			printf "|---|"; for (i = 1; i <= nc; i++) printf "---:|"; print ""
			for (r = 1; r <= nr; r++) {
				printf "| %s |", rows[r]
				for (i = 1; i <= nc; i++) printf " %s |", ((rows[r] "," cols[i]) in v) ? v[rows[r] "," cols[i]] : "-"
				print ""
			}
		}' "$PHASES"
	if [ -s "$JOBROWS" ]; then
		echo
		echo "Ingest by \`--jobs\` ($NCORES cores here; the default is the cores, at most 8):"
		echo
		echo "| input | --jobs | ingest s | CPU s | peak RSS MB | ingest / floor |"
		echo "|---|---:|---:|---:|---:|---:|"
		awk -F '\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' "$JOBROWS"
	fi
} > "$TABLE"

# ---- targets ----
TARGETS="$DIR/targets.md"
awk -F '\t' '
	function verdict(ok) { return ok ? "met" : "NOT met" }
	$1 == "big-1024" { printf "- ingest (the case built: --no-analyze) of 1,024 ranks within 3.5x the floor: %s / %s s = %sx: %s\n", $8, $7, $10, verdict($10 + 0 <= 3.5)
		printf "- from the archive to the verdict at 1,024 ranks (ingest + analyze + report json) within 4.5x the floor: %s s = %sx: %s\n", $18, $19, verdict($19 + 0 <= 4.5)
		printf "- case of big-1024 within 1.5x the compressed input: %sx: %s\n", $13, verdict($13 + 0 <= 1.5) }
	$1 == "stall-1024" { printf "- case of stall-1024 within 3x the compressed input: %sx: %s\n", $13, verdict($13 + 0 <= 3) }
	$1 == "stall-16384" { printf "- analyze of the 16,384-rank stall under 6 s (a quarter of its 22-27 s before the work): %s s: %s\n", $14, verdict($14 + 0 < 6) }
	{ if ($11 + 0 > rss) { rss = $11 + 0; rssn = $1 } if ($13 + 0 > dbr) { dbr = $13 + 0; dbn = $1 }
	  if ($22 + 0 > vrss) { vrss = $22 + 0; vrssn = $1 } }
	$1 == "big-1024" { v1 = $14; p1 = $15 }
	$1 == "big-4096" { v4 = $14; p4 = $15 }
	END {
		printf "- peak RSS under 150 MB at every size: largest %s MB (%s): %s\n", rss, rssn, verdict(rss < 150)
		printf "- (for reading) peak RSS of the reports (json, html) and the TUI: largest %s MB (%s)\n", vrss, vrssn
		printf "- (for reading) the largest case against its compressed input: %sx (%s)\n", dbr, dbn
		if (v1 != "") printf "- verdict (analyze + json report) on 1,024 ranks under 1 s: %s + %s s: %s\n", v1, p1, verdict(v1 + p1 < 1)
		if (v4 != "") printf "- verdict (analyze + json report) on 4,096 ranks under 4 s: %s + %s s: %s\n", v4, p4, verdict(v4 + p4 < 4)
	}' "$ROWS" > "$TARGETS"
echo "- whole run (synthesis included): $((T1 - T0)) s (target: under 10 minutes)" >> "$TARGETS"

cat "$TABLE"
echo
cat "$TARGETS"

[ "$MD" = - ] && exit 0

# ---- BENCHMARKS.md: replace the generated blocks, keep the rest ----
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
GEN="$DIR/generated.md"
{
	echo "<!-- bench:begin (written by bench/run.sh; edits here are lost) -->"
	echo "Run of $(date -u '+%Y-%m-%d %H:%M UTC') by \`make bench\`."
	echo
	echo "Machine: $(uname -srm), $cpu, $(nproc) cores, $mem; load average $LOAD0 at the start, $LOAD1 at the end."
	echo "Tools: $("$BIN" --version), SQLite $(sql1 "$DIR/big-64.db" "SELECT sqlite_version()" 2>/dev/null),"
	echo "$(bsdtar --version)."
	echo
	echo "Inputs: synthesized by \`ncclforensic synth\` from the corpus jobs big (8 ranks, NCCL_DEBUG_SUBSYS=ALL,"
	echo "150 steps) and stall (6 ranks, rank 2 stalls); *members* and *lines* as the ingest counts them, *text MB*"
	echo "the uncompressed size of all members. Times are wall-clock seconds; *CPU* is user + system."
	echo
	cat "$TABLE"
	echo
	cat "$TARGETS"
	echo "<!-- bench:end -->"
} > "$GEN"
PGEN="$DIR/profile.md"
{
	echo "<!-- profile:begin (written by bench/run.sh) -->"
	if [ -s "$PROF" ]; then
		echo "\`perf record -F 499 -g\` of \`ncclforensic ingest big-1024.tar.gz\` (self time by symbol, over 1%):"
		echo
		echo '```'
		cat "$PROF"
		echo '```'
		if [ -s "$DIR/profile_dso.txt" ]; then
			echo "By library:"
			echo
			echo '```'
			cat "$DIR/profile_dso.txt"
			echo '```'
		fi
	else
		echo "(no profile in this run: perf missing, BENCH_PROFILE=0 or no 1,024-rank input)"
	fi
	echo "<!-- profile:end -->"
} > "$PGEN"
if [ ! -f "$MD" ]; then
	{
		echo "# Benchmarks"
		echo
		echo "\`make bench\` (bench/run.sh) writes the blocks below; the notes around them are written by hand."
		echo
		echo "## Results"
		echo
		echo "<!-- bench:begin -->"
		echo "<!-- bench:end -->"
		echo
		echo "## Profile"
		echo
		echo "<!-- profile:begin -->"
		echo "<!-- profile:end -->"
	} > "$MD"
fi
awk -v gen="$GEN" -v pgen="$PGEN" '
	/<!-- bench:begin/ { while ((getline l < gen) > 0) print l; skip = 1; next }
	/<!-- bench:end/ { skip = 0; next }
	/<!-- profile:begin/ { while ((getline l < pgen) > 0) print l; skip = 1; next }
	/<!-- profile:end/ { skip = 0; next }
	!skip { print }' "$MD" > "$MD.tmp" && mv "$MD.tmp" "$MD"
echo "bench: wrote $MD" >&2
