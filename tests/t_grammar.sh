#!/bin/sh
# The log grammars (grammars/*.rules, docs/grammars.md): the self-test passes,
# it catches each kind of broken rule, NCCLFORENSIC_GRAMMARS works like
# --grammar-dir, and on every corpus job the lines that matter become events.
# Prints (without failing) the most common message shapes no rule knows.
. tests/lib.sh
unset NCCLFORENSIC_GRAMMARS

# ---- 1. the built-in rules pass their own self-test ----
out="$TMP/grammar-test.out"
"$NF_BIN" grammar test > "$out" 2>&1
check_eq "grammar/selftest-exit" 0 "$?"
check "grammar/selftest-0-failures" grep -q ' samples checked, 0 failures$' "$out"

# ---- 2. each kind of broken rule is caught ----
# bad_grammar NAME: writes a directory $TMP/g-NAME with one .rules file (stdin)
bad_grammar() {
	d="$TMP/g-$1"
	rm -rf "$d"; mkdir -p "$d"
	cat > "$d/90-test.rules"
	echo "$d"
}

# expect_failure NAME DIR PATTERN [ENV]: `grammar test` with DIR fails and says PATTERN
expect_failure() {
	o="$TMP/g-$1.out"
	if [ -n "${4:-}" ]; then
		NCCLFORENSIC_GRAMMARS="$2" "$NF_BIN" grammar test > "$o" 2>&1
	else
		"$NF_BIN" grammar test --grammar-dir "$2" > "$o" 2>&1
	fi
	rc=$?
	if [ "$rc" -eq 0 ]; then
		fail "grammar/$1" "exit 0, expected a failure"
	elif grep -q -- "$3" "$o"; then
		pass "grammar/$1"
	else
		fail "grammar/$1" "no '$3' in: $(head -n 3 "$o" | tr '\n' ' ')"
	fi
}

d=$(bad_grammar sample-no-match <<'EOF'
rule t_no_match
  family  plain
  class   info
  starts  zzz
  regex   ^zzz (?<n>\d+)$
  sample  zzz not-a-number
EOF
)
expect_failure sample-no-match "$d" 'rule t_no_match: sample matches no rule (family plain)'

d=$(bad_grammar sample-bad-field <<'EOF'
rule t_bad_field
  family  plain
  class   info
  starts  zzz
  regex   ^zzz (?<n>\d+)$
  sample  zzz 12
  expect  n=13
EOF
)
expect_failure sample-bad-field "$d" "rule t_bad_field: field n is '12', expected '13'"

# a sample that a rule loaded earlier (the built-in nccl_version) takes first
d=$(bad_grammar sample-taken-earlier <<'EOF'
rule t_shadowed
  family  nccl
  class   init
  starts  NCCL version
  regex   ^NCCL version (?<v>\S+)
  sample  gpu-node03:881:881 [1] NCCL INFO NCCL version 2.28.9+cuda13.0
EOF
)
expect_failure sample-taken-earlier "$d" 'rule t_shadowed: sample is taken by rule nccl_version'

d=$(bad_grammar variant-no-sample <<'EOF'
rule t_variant
  family  plain
  class   info
  starts  zzz
  regex   ^zzz (?<n>\d+)$
  regex   ^zzz (?<word>[a-z]+)$
  sample  zzz 12
EOF
)
expect_failure variant-no-sample "$d" 'rule t_variant: regex variant 2 matches none of its samples'

d=$(bad_grammar unknown-keyword <<'EOF'
rule t_keyword
  family  plain
  class   info
  colour  red
  regex   ^zzz$
  sample  zzz
EOF
)
expect_failure unknown-keyword "$d" "90-test.rules:4: unknown keyword 'colour'"

d=$(bad_grammar bad-regex <<'EOF'
rule t_bad_regex
  family  plain
  class   info
  regex   ^zzz (?<n>\d+
  sample  zzz 1
EOF
)
expect_failure bad-regex "$d" '90-test.rules:4: rule t_bad_regex: bad regex'

d=$(bad_grammar duplicate-name <<'EOF'
rule nccl_version
  family  nccl
  class   init
  starts  NCCL version
  regex   ^NCCL version (?<version>\S+)
  sample  gpu-node03:881:881 [1] NCCL INFO NCCL version 2.28.9+cuda13.0
EOF
)
expect_failure duplicate-name "$d" 'rule nccl_version is defined twice'

d=$(bad_grammar unknown-class <<'EOF'
rule t_class
  family  plain
  class   purple
  regex   ^zzz$
  sample  zzz
EOF
)
expect_failure unknown-class "$d" "unknown class 'purple'"

# NCCLFORENSIC_GRAMMARS=DIR works like --grammar-dir: same failure...
expect_failure env-sample-no-match "$TMP/g-sample-no-match" 'rule t_no_match: sample matches no rule (family plain)' env
expect_failure env-duplicate-name "$TMP/g-duplicate-name" 'rule nccl_version is defined twice' env
# ...and a good extra directory adds its rules
d=$(bad_grammar extra-ok <<'EOF'
rule t_extra_ok
  family  plain
  class   info
  starts  zzz
  regex   ^zzz (?<n>\d+)$
  sample  zzz 12
  expect  n=12
EOF
)
check "grammar/env-extra-dir-passes" env NCCLFORENSIC_GRAMMARS="$d" "$NF_BIN" grammar test
n=$(NCCLFORENSIC_GRAMMARS="$d" "$NF_BIN" grammar list 2>/dev/null | grep -c '^t_extra_ok ')
check_eq "grammar/env-extra-dir-listed" 1 "$n"
n=$("$NF_BIN" grammar list --grammar-dir "$d" 2>/dev/null | grep -c '^t_extra_ok ')
check_eq "grammar/option-extra-dir-listed" 1 "$n"

# ---- rules without a literal are tried on every line of their family ----
# (a `level` is checked before the regex too). None may be of family any;
# the others are listed for whoever adds one.
no_literal=$(awk '
	function flush() { if (name != "" && !lit) print name " " fam }
	/^rule / { flush(); name = $2; lit = 0; fam = ""; next }
	/^[ \t]+family[ \t]/ { fam = $2 }
	/^[ \t]+(starts|contains|level)[ \t]/ { lit = 1 }
	END { flush() }' grammars/*.rules | sort)
check_eq "grammar/no-family-any-rule-without-literal" "" "$(echo "$no_literal" | awk '$2 == "any"' | tr '\n' ' ')"
echo "   rules without a literal: $(echo "$no_literal" | awk '{ printf "%s(%s) ", $1, $2 }')"

# ---- 3. on the real corpus, the lines that matter become events ----
patterns="Watchdog caught collective operation timeout|failure detected by watchdog|Received a dump signal|NCCL WARN|Using network|Init COMPLETE|exitcode|Traceback (most recent call last)|Stack trace of the failed collective|Sending process|Root Cause|errors.ChildFailedError:|socketProgress|Abort COMPLETE|Destroy COMPLETE|GPU Direct RDMA|Connected all rings|NVRM: Xid"
select=$(echo "$patterns" | awk -F'|' '{ for (i = 1; i <= NF; i++) printf "%ssum(l.text LIKE %c%%%s%%%c)", (i > 1 ? ", " : ""), 39, $i, 39 }')
shapes="$TMP/unmatched.txt"
: > "$shapes"
for tgz in testdata/corpus/*.tar.gz; do
	job=$(basename "$tgz" .tar.gz)
	db=$(ingest_case "$job")
	# (a console's [default<N>]: lines repeat the per-rank files: one copy carries the event,
	#  the console's for NCCL lines, the per-rank file's for the others)
	got=$(sql "$db" "SELECT $select FROM lines l JOIN sources s USING(source_id) LEFT JOIN events e ON e.source_id = l.source_id AND e.line_no = l.line_no WHERE e.event_id IS NULL AND NOT (s.kind = 'console' AND l.local_rank IS NOT NULL AND l.text NOT LIKE '% NCCL INFO %' AND l.text NOT LIKE '% NCCL WARN %') AND NOT (s.kind = 'rank_log' AND (l.text LIKE '% NCCL INFO %' OR l.text LIKE '% NCCL WARN %'))")
	i=1
	echo "$patterns" | tr '|' '\n' > "$TMP/patterns"
	while IFS= read -r pat; do
		n=$(echo "$got" | cut -f "$i")
		check_eq "grammar/coverage/$job/$(echo "$pat" | sed 's/[^A-Za-z0-9]/_/g')" 0 "${n:-0}"
		i=$((i + 1))
	done < "$TMP/patterns"
	sql "$db" "SELECT l.text FROM lines l LEFT JOIN events e ON e.source_id = l.source_id AND e.line_no = l.line_no WHERE e.event_id IS NULL" >> "$shapes"
done

# the most common message shapes no rule knows (information, not a failure):
# wrappers and headers off, numbers and hex folded; NCCL INFO lines apart,
# as NCCL_DEBUG_SUBSYS=ALL buries everything else
shape() {
	sed -e 's/^\(\[[a-z_]*[0-9][0-9]*\]:\)*//' \
	    -e 's/^ *[0-9][0-9]*: //' \
	    -e 's/^\[[0-9-]* [0-9:]*\] //' \
	    -e 's/^[A-Za-z0-9_.-]*:[0-9]*:[0-9]* \[[0-9]*\] \([^ ]* \)\{0,1\}NCCL [A-Z]* //' \
	    -e 's/^\[[IWEF][0-9]* [0-9:.]* [^]]*\] //' \
	    -e 's/^[IWEF][0-9]\{4\} [0-9:.]* *[0-9]* [^]]*\] //' \
	    -e 's/^\[ *[0-9]*\.[0-9]*\] //' \
	    -e 's/0x[0-9a-fA-F]*/HEX/g' -e 's/[0-9][0-9]*/#/g' -e 's/HEX/0x#/g' |
		cut -c1-90 | sort | uniq -c | sort -rn | head -n 20 | sed 's/^/   /'
}
echo "   20 most common unmatched NCCL INFO message shapes (count, shape):"
grep ' NCCL INFO ' "$shapes" | shape
echo "   20 most common unmatched other message shapes (count, shape):"
grep -v ' NCCL INFO ' "$shapes" | grep -v '^[[:space:]]*$' | shape
