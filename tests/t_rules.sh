#!/bin/sh
# The diagnosis's rules, one at a time, without an ingest: each fixture of
# tests/diagnosis/RULE/ (tests/diagnosis/README.md) is applied to an empty
# case and `analyze --rules-only` must say what its .expect says; every rule
# of the registry has a fixture where it decides and one where it declines
# (the list of those still missing is checked, so that it only shrinks).
. tests/lib.sh

R="$TMP/rules"
rm -rf "$R"
mkdir -p "$R"
printf 'an empty case\n' > "$R/empty.log"
"$NF_BIN" ingest "$R/empty.log" -o "$R/empty.db" -q --no-analyze > /dev/null 2>&1
check "rules/empty-case" test -f "$R/empty.db"

# (a fixture made from a real case is NAME.sql.gz: tests/helpers/rule_fixture.py)
for fx in tests/diagnosis/*/*.sql tests/diagnosis/*/*.sql.gz; do
	[ -f "$fx" ] || continue
	rule=$(basename "$(dirname "$fx")")
	name=$(basename "${fx%.gz}" .sql)
	db="$R/$rule-$name.db"
	cp "$R/empty.db" "$db"
	case $fx in
	*.gz) gzip -dc "$fx" | "$NF_BIN" sql --write "$db" > /dev/null 2> "$db.err" ;;
	*) "$NF_BIN" sql --write "$db" "$(cat "$fx")" > /dev/null 2> "$db.err" ;;
	esac
	if [ -s "$db.err" ]; then
		fail "rules/$rule/$name/fixture" "$(head -c 200 "$db.err")"
		continue
	fi
	"$NF_BIN" analyze "$db" --rules-only -q > /dev/null 2> "$db.err"
	check_eq "rules/$rule/$name/analyze-exit" 0 "$?"
	{
		sql "$db" "SELECT 'rule ' || rule || ': ' || state || coalesce(': ' || reason, '') FROM diagnosis_rules WHERE rule = '$rule'"
		sql "$db" "SELECT 'decided by ' || coalesce(rule, '-') || ': ' || outcome || ' / ' || cause || ' ' || culprit_ranks
			|| ' ' || coalesce(process_group, '-') || ' ' || coalesce(seq, '-') || ' ' || coalesce(op, '-') || ' ' || confidence FROM verdict"
	} > "$db.got"
	check_golden "../diagnosis/$rule/$name.expect" "$db.got"
	state=$(sed -n "1s/^rule $rule: \([a-z ]*\).*/\1/p" "$db.got")
	case $name in
	decides*) check_eq "rules/$rule/$name/decides" decided "$state" ;;
	declines*) check_eq "rules/$rule/$name/declines" declined "$state" ;;
	esac
done

# every rule decides in a fixture and declines in another; the rules that
# have no fixture where they decide yet are listed here (no real job of the
# corpora has them decide but a corpus's variants or hand-made cases), and
# the list may only shrink
todo_decides=""
missing=""
for rule in $(sed -n 's/^[[:space:]]*RULE(\([a-z0-9_]*\),.*/\1/p' src/diagnosis_rules.h); do
	in_todo=0
	for t in $todo_decides; do [ "$t" = "$rule" ] && in_todo=1; done
	if [ "$in_todo" = 0 ] && [ -z "$(ls tests/diagnosis/"$rule"/decides*.sql* 2> /dev/null)" ]; then
		missing="$missing $rule:decides"
	fi
	[ "$rule" = unknown ] && continue # the last rule never declines
	[ -n "$(ls tests/diagnosis/"$rule"/declines*.sql* 2> /dev/null)" ] || missing="$missing $rule:declines"
done
check_eq "rules/every-rule-has-fixtures" "" "$missing"
for t in $todo_decides; do
	if [ -n "$(ls tests/diagnosis/"$t"/decides*.sql* 2> /dev/null)" ]; then
		fail "rules/todo/$t" "has a fixture where it decides now: take it off todo_decides in t_rules.sh"
	fi
done
