#!/bin/sh
# The lnav format (contrib/lnav/ncclforensic.json): valid JSON; its sample
# lines are grammar samples (grammars/*.rules), word for word; every regex
# matches one of its format's samples and every sample one of its format's
# regexes (PCRE2, as lnav matches); and the fields lnav gets from each sample
# (host, pid, tid, dev, rank, local_rank, level) are the ones ncclforensic
# gets. When lnav is installed, it loads the format and parses the samples.
. tests/lib.sh
fmt=contrib/lnav/ncclforensic.json

# every grammar sample line, as written in a log
awk '$1 == "sample" { sub(/^[ \t]*sample[ \t]+/, ""); sub(/^\|/, ""); print }' grammars/*.rules > "$TMP/grammar-samples.txt"

# the format's samples, by way of the case database's JSON functions
q=$(sed "s/'/''/g" "$fmt")
samples="$TMP/lnav-samples.log"
: > "$samples"
"$NF_BIN" ingest "$fmt" -o "$TMP/fmt.db" -q > /dev/null 2>&1
check_eq "lnav/json-valid" 1 "$(sql "$TMP/fmt.db" "SELECT json_valid('$q')")"
sql "$TMP/fmt.db" "SELECT f.key, json_extract(s.value, '\$.line') FROM json_each('$q') f, json_each(f.value, '\$.sample') s
	WHERE f.key LIKE 'ncclforensic_%'" | tsv_unescape > "$TMP/fmt-samples.tsv"
sql "$TMP/fmt.db" "SELECT f.key, json_extract(r.value, '\$.pattern') FROM json_each('$q') f, json_each(f.value, '\$.regex') r
	WHERE f.key LIKE 'ncclforensic_%'" | tsv_unescape > "$TMP/fmt-regex.tsv"
check "lnav/has-samples" test -s "$TMP/fmt-samples.tsv"
check "lnav/has-regexes" test -s "$TMP/fmt-regex.tsv"
cut -f 2- "$TMP/fmt-samples.tsv" > "$samples"

missing=""
n=0
while IFS= read -r line; do
	n=$((n + 1))
	grep -qxF -- "$line" "$TMP/grammar-samples.txt" || missing="$missing #$n"
done < "$samples"
check_eq "lnav/samples-are-grammar-samples" "" "$missing"

# each regex matches a sample of its format, each sample a regex of it (PCRE2);
# a sample matches no other format's regex but one of the same name (the
# c10 and plain regexes are shared on purpose: lnav gives a file one format,
# and a rank's stderr or a console mixes Python logging and c10 lines)
"$NF_BIN" ingest "$samples" -o "$TMP/samples.db" -q > /dev/null 2>&1
check_eq "lnav/regex-sample-pairs" "" "$(sql "$TMP/samples.db" "
	WITH f AS (SELECT key AS fmt, value AS v FROM json_each('$q') WHERE key LIKE 'ncclforensic_%'),
	rx AS (SELECT fmt, r.key AS name, json_extract(r.value, '\$.pattern') AS pat FROM f, json_each(f.v, '\$.regex') r),
	sm AS (SELECT fmt, json_extract(s.value, '\$.line') AS line FROM f, json_each(f.v, '\$.sample') s)
	SELECT 'regex ' || fmt || '/' || name || ' matches no sample' FROM rx
	  WHERE NOT EXISTS (SELECT 1 FROM sm WHERE sm.fmt = rx.fmt AND sm.line REGEXP rx.pat)
	UNION ALL SELECT 'sample of ' || fmt || ' matches no regex: ' || line FROM sm
	  WHERE NOT EXISTS (SELECT 1 FROM rx WHERE rx.fmt = sm.fmt AND sm.line REGEXP rx.pat)
	UNION ALL SELECT 'sample of ' || sm.fmt || ' also matches ' || rx.fmt || ': ' || line FROM sm, rx
	  WHERE rx.fmt < sm.fmt AND sm.line REGEXP rx.pat
	    AND NOT EXISTS (SELECT 1 FROM rx own WHERE own.fmt = sm.fmt AND own.name = rx.name)")"

# the fields lnav would capture (perl runs the same patterns), one line per
# sample: host pid tid dev rank local_rank level ("-" when not captured)
perl -e '
	my (%rx, @order);
	open(my $r, "<", $ARGV[0]) or die;
	while (<$r>) { chomp; my ($f, $p) = split /\t/, $_, 2; push @{$rx{$f}}, $p; }
	open(my $s, "<", $ARGV[1]) or die;
	my %lvl = (INFO => "I", WARN => "W", ABORT => "W", TRACE => "T", DEBUG => "D", WARNING => "W",
		   ERROR => "E", CRITICAL => "F");
	while (<$s>) {
		chomp; my ($f, $line) = split /\t/, $_, 2; my @v = ("-") x 7;
		for my $p (@{$rx{$f}}) {
			next unless $line =~ /$p/;
			my %c = %+;
			my $i = 0;
			for my $k (qw(host pid tid dev rank local_rank level)) {
				my $x = $c{$k}; $x = $lvl{$x} // $x if defined $x && $k eq "level";
				$v[$i++] = defined $x ? $x : "-";
			}
			last;
		}
		print join(" ", @v), "\n";
	}' "$TMP/fmt-regex.tsv" "$TMP/fmt-samples.tsv" > "$TMP/lnav-fields.txt"
# ncclforensic's: events for host/pid/tid/dev/level, lines for rank/local_rank
sql "$TMP/samples.db" "SELECT coalesce(e.host, '-'), coalesce(e.pid, '-'), coalesce(e.tid, '-'), coalesce(e.dev, '-'),
	coalesce(l.rank, '-'), coalesce(l.local_rank, '-'), coalesce(e.level, '-')
	FROM lines l LEFT JOIN events e ON e.source_id = l.source_id AND e.line_no = l.line_no ORDER BY l.line_no" |
	tr '\t' ' ' > "$TMP/nf-fields.txt"
check_eq "lnav/fields-agree" "" "$(diff "$TMP/nf-fields.txt" "$TMP/lnav-fields.txt")"

# lnav itself, where installed: the format loads, validates its samples, parses them
if command -v lnav > /dev/null 2>&1; then
	home="$TMP/lnav-home"
	mkdir -p "$home"
	check "lnav/installs" env HOME="$home" lnav -i "$fmt"
	check_eq "lnav/config-check" "" "$(HOME="$home" lnav -C 2>&1 | grep -iE 'error|warning')"
	for f in $(cut -f 1 "$TMP/fmt-samples.tsv" | sort -u); do
		grep "^$f	" "$TMP/fmt-samples.tsv" | cut -f 2- | head -n 1 > "$TMP/one-$f.log"
		got=$(HOME="$home" TZ=UTC lnav -n -c ";SELECT count(*) FROM $f" "$TMP/one-$f.log" 2>&1 | tail -n 1 | tr -d ' ')
		check_eq "lnav/parses-$f" 1 "$got"
	done
fi

# the README's recipe, with the real lnav: a job's directory (-r), every
# file in its format, the watchdog's timeout lines as rows wherever they are
# (a rank's stderr.log mixes Python logging and c10 lines: one format)
if command -v lnav > /dev/null 2>&1; then
	job="$TMP/lnav-job"
	rm -rf "$job"
	mkdir -p "$job"
	tar xzf testdata/corpus/stall.tar.gz -C "$job"
	want=$(find "$job" -name 'stderr.log' -exec grep -h 'Watchdog caught collective operation timeout' {} + | wc -l | tr -d ' ')
	got=$(HOME="$home" TZ=UTC lnav -n -r -c ";SELECT count(*) FROM all_logs WHERE log_body LIKE '%Watchdog caught collective operation timeout%' AND log_path LIKE '%stderr.log'" "$job" 2>&1 | tail -n 1 | tr -d ' ')
	check "lnav/recipe-has-timeouts" test "$want" -gt 0
	check_eq "lnav/recipe-every-timeout-a-row" "$want" "$got"
	got=$(HOME="$home" TZ=UTC lnav -n -r -c ";SELECT count(*) FROM ncclforensic_pylog WHERE rank = 3 AND log_level = 'error'" "$job" 2>&1 | tail -n 1 | tr -d ' ')
	check "lnav/recipe-rank-3-errors" test "${got:-0}" -gt 0
else
	fail "lnav/installed" "lnav is not installed (contrib/install-deps.sh --test)"
fi
