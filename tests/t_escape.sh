#!/bin/sh
# Nothing from a log acts on its reader (docs/robustness.md): a job whose
# member name and lines hold terminal escapes (OSC 52 writes the clipboard,
# OSC 0 retitles the window, CSI, the 8-bit CSI), Markdown and HTML, NUL
# bytes and spreadsheet formulas; every output that can reach a terminal or
# a renderer shows them as text: ingest's messages and verdict, `report`
# (md, text), `sql` in every mode, the TUI. JSON keeps them, escaped.
. tests/lib.sh

T="$TMP/escape"
case $T in /*) ;; *) T="$NF_ROOT/$T" ;; esac
rm -rf "$T"
mkdir -p "$T"
clean() { check "escape/$1/no-control-bytes" python3 tests/helpers/no_controls.py "$2"; }

esc=$(printf '\033')
bel=$(printf '\007')
# the member's name: a code span breaker, a link, an image with a handler, a title change
name="rank0\`](https:e.x)<img src=x onerror=alert(1)>${esc}]0;T${bel}.log"
J="$T/case\`<b>x</b>"
mkdir -p "$J/job"
{
	printf 'plain start\n'
	printf 'osc52 \033]52;c;ZWNobyBwd25lZA==\007 end\n'
	printf 'title \033]0;pwned\007 csi \033[2J c1 \302\2332J\n'
	printf 'nul\000inside the line\n'
	printf '=HYPERLINK("http://e.x")\n'
	printf 'tab\there\n'
	printf '# heading? [link](http://e.x) ![img](x) <script>alert(1)</script> www.e.x\n'
	printf 'a long line that goes on and on past the limit this test sets, so that a message names the member\n'
} > "$J/job/$name"
"$NF_BIN" ingest "$J" -o "$T/c.db" --max-line 80 > "$T/ingest.out" 2> "$T/ingest.err"
check_eq "escape/ingest/exit-1" 1 "$?"
check "escape/ingest/says-member" grep -q "rank0.*--max-line" "$T/ingest.err"
clean ingest-stderr "$T/ingest.err"
clean ingest-stdout "$T/ingest.out"

# a verdict and evidence that quote the hostile lines and name (through SQL,
# so that this tests the outputs, not which lines the analysis picks)
sql_write "$T/c.db" "UPDATE verdict SET summary = (SELECT group_concat(text, ' ') FROM lines WHERE line_no IN (2, 3)),
  process_group = (SELECT path FROM sources LIMIT 1), op = 'a\`\`b', culprit_ranks = '[0]';
DELETE FROM evidence WHERE finding_id = 0;
INSERT INTO evidence(finding_id, ord, source_id, line_no, event_id, note)
SELECT 0, line_no, source_id, line_no, NULL, 'note ' || text FROM lines WHERE line_no BETWEEN 2 AND 7;" > /dev/null
check_eq "escape/fixture/evidence" 6 "$(sql "$T/c.db" "SELECT count(*) FROM evidence WHERE finding_id = 0")"

for f in md text; do
	"$NF_BIN" report "$T/c.db" --format "$f" > "$T/report.$f" 2> "$T/report.$f.err"
	check_eq "escape/report-$f/exit-0" 0 "$?"
	clean "report-$f" "$T/report.$f"
	clean "report-$f-stderr" "$T/report.$f.err"
	check "escape/report-$f/nul-shown" grep -q 'nul\\0inside the line' "$T/report.$f"
done
"$NF_BIN" report "$T/c.db" --format md -o "$T/report-o.md" 2> /dev/null
clean report-md-file "$T/report-o.md"

# the Markdown, rendered as GitHub would (and unsafely): no heading, link,
# image or HTML element comes from the data
if command -v cmark-gfm > /dev/null 2>&1; then
	cmark-gfm --unsafe -e table -e autolink -e strikethrough -e tagfilter "$T/report.md" > "$T/report.html"
	check_eq "escape/markdown/no-img" 0 "$(grep -c '<img' "$T/report.html")"
	check_eq "escape/markdown/no-link" 0 "$(grep -c '<a ' "$T/report.html")"
	check_eq "escape/markdown/no-script" 0 "$(grep -c '<script' "$T/report.html")"
	check_eq "escape/markdown/no-bold-from-data" 0 "$(grep -c '<b>x' "$T/report.html")"
	check_eq "escape/markdown/no-heading-from-data" 0 "$(grep -Ec '<h[1-6]>[^<]*(heading\?|pwned)' "$T/report.html")"
	check_eq "escape/markdown/one-title" 1 "$(grep -c '<h1>' "$T/report.html")"
	check "escape/markdown/name-kept-as-text" grep -q 'onerror=alert(1)' "$T/report.html"
else
	fail "escape/markdown/cmark-gfm" "cmark-gfm is not installed (contrib/install-deps.sh --test)"
fi

# sql, every mode
for m in table tsv csv; do
	case $m in table) flag= ;; *) flag=--$m ;; esac
	# shellcheck disable=SC2086
	"$NF_BIN" sql "$T/c.db" "SELECT path, line_no, text FROM lines JOIN sources USING(source_id) ORDER BY line_no" $flag \
		> "$T/sql.$m"
	check_eq "escape/sql-$m/exit-0" 0 "$?"
	clean "sql-$m" "$T/sql.$m"
	check "escape/sql-$m/nul-shown" grep -q 'nul\\0inside the line' "$T/sql.$m"
done
check_eq "escape/csv/formula-guarded" "\"'=HYPERLINK(\"\"http://e.x\"\")\"" \
	"$("$NF_BIN" sql "$T/c.db" "SELECT text FROM lines WHERE line_no = 5" --csv)"
check_eq "escape/csv/number-not-guarded" "-5,2.5,\"'-x\",\"'+1\",\"'@a\"" \
	"$("$NF_BIN" sql "$T/c.db" "SELECT -5, 2.5, '-x', '+1', '@a'" --csv)"
check_eq "escape/tsv/tab-newline-backslash" 'a\tb\nc\\d\re' \
	"$("$NF_BIN" sql "$T/c.db" "SELECT 'a' || char(9) || 'b' || char(10) || 'c\\d' || char(13) || 'e'" --tsv)"
check_eq "escape/tsv/fields-stay-apart" "2" \
	"$("$NF_BIN" sql "$T/c.db" "SELECT 'x' || char(9) || 'y', 'z'" --tsv | awk -F '\t' '{print NF}')"
# JSON is exact
check "escape/json/exact" grep -q 'osc52 \\u001b]52;c;ZWNobyBwd25lZA==\\u0007 end' \
	"$("$NF_BIN" sql "$T/c.db" "SELECT text FROM lines WHERE line_no = 2" --json > "$T/sql.json"; echo "$T/sql.json")"
check "escape/json/nul-exact" grep -q 'nul\\u0000inside' \
	"$("$NF_BIN" sql "$T/c.db" "SELECT text FROM lines WHERE line_no = 4" --json > "$T/sql4.json"; echo "$T/sql4.json")"
"$NF_BIN" report "$T/c.db" --format json > "$T/report.json"
check_eq "escape/report-json/exit-0" 0 "$?"
clean report-json "$T/report.json"

# the TUI's lines view of the member
"$NF_BIN" tui "$T/c.db" --script ':SELECT source_id, line_no FROM lines WHERE line_no = 4<Enter><Enter>' --dump-screen "$T/tui.txt" --size 160x30 > /dev/null 2>&1
check_eq "escape/tui/exit-0" 0 "$?"
clean tui "$T/tui.txt"
check "escape/tui/nul-line-whole" grep -q 'inside the line' "$T/tui.txt"
