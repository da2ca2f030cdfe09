#!/bin/sh
# Bombs and limits (docs/robustness.md): grammar files that are not regular
# files, a rule that costs too much on every line (disabled after a budget
# counted in match steps, not time), a report of a case whose times span ten
# thousand years, a field of megabytes in the text report, host names in
# another case under --redact. Each ends quickly with bounded output.
. tests/lib.sh

L="$TMP/limits"
case $L in /*) ;; *) L="$NF_ROOT/$L" ;; esac
rm -rf "$L"
mkdir -p "$L"
printf 'a line\n' > "$L/one.log"

# ---- grammar directories ------------------------------------------------------
mkdir -p "$L/gzero" "$L/gfifo"
ln -s /dev/zero "$L/gzero/zero.rules"
mkfifo "$L/gfifo/pipe.rules"
for d in gzero gfifo; do
	timeout 20 "$NF_BIN" ingest "$L/one.log" --grammar-dir "$L/$d" -o "$L/$d.db" -q > /dev/null 2> "$L/$d.err"
	check_eq "limits/grammar-$d/exit-2" 2 "$?"
	check "limits/grammar-$d/says" grep -q "not a regular file" "$L/$d.err"
done
head -c 5000000 /dev/zero | tr '\0' '#' > "$L/big.rules"
mkdir -p "$L/gbig" && mv "$L/big.rules" "$L/gbig/"
"$NF_BIN" ingest "$L/one.log" --grammar-dir "$L/gbig" -o "$L/gbig.db" -q > /dev/null 2> "$L/gbig.err"
check_eq "limits/grammar-too-big/exit-2" 2 "$?"
check "limits/grammar-too-big/says" grep -q "larger than 4 MiB" "$L/gbig.err"

# ---- a rule near PCRE2's match limit on every line ----------------------------
# (^(a|aa)+$ on 26 a's and an x: ~200,000 steps a line, under the 1,000,000
# limit; 20,000 such lines took 31 s before the budget, and 0.5 s with it)
mkdir -p "$L/gcost"
printf 'rule costly_one\n  family any\n  class info\n  regex ^(a|aa)+$\n  sample aa\n' > "$L/gcost/costly.rules"
awk 'BEGIN{for (i = 0; i < 20000; i++) print "aaaaaaaaaaaaaaaaaaaaaaaaaax"}' > "$L/costly.log"
t0=$(date +%s)
"$NF_BIN" ingest "$L/costly.log" --grammar-dir "$L/gcost" -o "$L/cost.db" -q > /dev/null 2> "$L/cost.err"
rc=$?
t1=$(date +%s)
check_eq "limits/costly-rule/exit-1" 1 "$rc"
check "limits/costly-rule/bounded-time ($((t1 - t0)) s)" test $((t1 - t0)) -lt 15
check "limits/costly-rule/says" grep -q "^ncclforensic: costly\.log:256: rule costly_one (.*costly\.rules:1): its regex needed more than 100000 match steps on 256 lines; rule disabled" "$L/cost.err"
check_eq "limits/costly-rule/counted" 256 "$(sql "$L/cost.db" "SELECT value FROM meta WHERE key='regex_costly_matches'")"
check_eq "limits/costly-rule/lines-kept" 20000 "$(sql "$L/cost.db" "SELECT count(*) FROM lines")"
# the same on a second run: counted in steps, not time
"$NF_BIN" ingest "$L/costly.log" --grammar-dir "$L/gcost" -o "$L/cost2.db" -q > /dev/null 2>&1
check_eq "limits/costly-rule/deterministic" "$(sql "$L/cost.db" "SELECT count(*) FROM events")" \
	"$(sql "$L/cost2.db" "SELECT count(*) FROM events")"
# the built-in rules stay within the budget on every corpus job
db=$(ingest_case stall)
check_eq "limits/builtin-rules-cheap/stall" 0 "$(sql "$db" "SELECT value FROM meta WHERE key='regex_costly_matches'")"

# ---- ten thousand years of times in the HTML report ---------------------------
mkdir -p "$L/yr"
tar xzf testdata/corpus/stall.tar.gz -C "$L/yr"
f=$(find "$L/yr" -path '*attempt_0/0/stderr.log' | head -n 1)
{ cat "$f"; printf '9999-12-31 23:59:59,000 ERROR late\n0001-01-01 00:00:01,000 ERROR early\n'; } > "$L/x" && mv "$L/x" "$f"
"$NF_BIN" ingest "$L/yr" -o "$L/yr.db" -q > /dev/null 2>&1
"$NF_BIN" report "$L/yr.db" --format html -o "$L/yr.html"
check_eq "limits/html-span/exit-0" 0 "$?"
size=$(wc -c < "$L/yr.html")
check "limits/html-span/bounded ($size bytes)" test "$size" -lt 2000000
check "limits/html-span/says-clipped" grep -q "markers far from the rest, outside this span, not drawn" "$L/yr.html"
check "limits/html-span/few-ticks" test "$(grep -o 'class="tick"' "$L/yr.html" | wc -l)" -le 12

# ---- a field of megabytes in the text report ------------------------------------
cp "$db" "$L/word.db"
word="replace(hex(zeroblob(2000000)), '0', 'w')" # 4,000,000 w's
sql_write "$L/word.db" "UPDATE verdict SET summary = $word; UPDATE findings SET summary = $word WHERE finding_id = (SELECT min(finding_id) FROM findings)" > /dev/null
check_eq "limits/long-word-text/fixture" 4000000 "$(sql "$L/word.db" "SELECT length(summary) FROM verdict")"
t0=$(date +%s)
"$NF_BIN" report "$L/word.db" --format text -o "$L/word.txt"
check_eq "limits/long-word-text/exit-0" 0 "$?"
t1=$(date +%s)
check "limits/long-word-text/linear ($((t1 - t0)) s)" test $((t1 - t0)) -lt 10

# ---- --redact finds host names in any case ----------------------------------------
cp "$db" "$L/red.db"
sql_write "$L/red.db" "UPDATE verdict SET summary = summary || ' seen on GPU-NODE02 and Gpu-Node01.'" > /dev/null
"$NF_BIN" report "$L/red.db" --redact -o "$L/red.md"
check_eq "limits/redact-case/exit-0" 0 "$?"
check_eq "limits/redact-case/no-host-left" 0 "$(grep -ci 'gpu-node0' "$L/red.md")"
