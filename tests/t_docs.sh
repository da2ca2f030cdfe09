#!/bin/sh
# docs/schema.md describes every table, column and index of a case; `schema` prints
# the same DDL.
. tests/lib.sh
db=$(ingest_case stall)
tables=$(sql "$db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
for t in $tables; do
	section=$(awk -v h="### \`$t\`" 'index($0, h) == 1 {on = 1; next} /^### / {on = 0} on' docs/schema.md)
	if [ -z "$section" ]; then fail "docs/schema/$t" "no section"; continue; fi
	missing=""
	for c in $(sql "$db" "SELECT name FROM pragma_table_info('$t')"); do
		echo "$section" | grep -q "\`$c\`" || missing="$missing $c"
	done
	check_eq "docs/schema/$t" "" "$missing"
done
# and every index, in its table of indexes
indexes=$(awk '/^## Indexes/ {on = 1; next} /^## / {on = 0} on' docs/schema.md)
missing=""
for i in $(sql "$db" "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name"); do
	echo "$indexes" | grep -q "\`$i\`" || missing="$missing $i"
done
check_eq "docs/schema/indexes" "" "$missing"
check "docs/schema-command" sh -c "'$NF_BIN' schema | grep -q 'CREATE TABLE verdict'"

# docs/diagnosis.md's table of rules is the registry's (src/diagnosis_rules.h),
# in its order, with each rule's family; and a case's diagnosis_rules agrees
reg=$(sed -n 's/^[[:space:]]*RULE(\([a-z0-9_]*\), DIAG_\([A-Z]*\),.*/\1 \2/p' src/diagnosis_rules.h | awk '{print NR, $1, tolower($2)}')
doc=$(sed -n 's/^| \([0-9]*\) | `\([a-z0-9_]*\)` | \([a-z]*\) |.*/\1 \2 \3/p' docs/diagnosis.md)
check "docs/diagnosis/rules-in-registry-order" test -n "$reg"
check_eq "docs/diagnosis/rules-table" "$reg" "$doc"
check_eq "docs/diagnosis/case-rules" "$reg" "$(sql "$db" "SELECT ord || ' ' || rule || ' ' || family FROM diagnosis_rules ORDER BY ord")"

# the verdict's words (src/verdict_vocab.h) are the ones docs/schema.md lists
vocab() { awk -v l="$1" '$0 ~ "^#define " l "\\(X\\)" {on = 1} on {print} on && !/\\$/ {on = 0}' src/verdict_vocab.h |
	grep -oE 'X\([a-z_]+' | sed 's/X(//' | sort | tr '\n' ' '; }
schema_words() { grep "^| \`$1\` |" docs/schema.md | head -n 1 | cut -d'|' -f3 | grep -oE '`[a-z_]+`' | tr -d '`' | sort | tr '\n' ' '; }
check "docs/vocab/read" test -n "$(vocab VERDICT_CAUSES)"
check_eq "docs/vocab/outcomes" "$(vocab VERDICT_OUTCOMES)" "$(schema_words outcome)"
check_eq "docs/vocab/causes" "$(vocab VERDICT_CAUSES)" "$(schema_words cause)"
check_eq "docs/vocab/confidences" "$(vocab VERDICT_CONFIDENCES)" "$(schema_words confidence)"

# every threshold of the diagnosis (src/diagnosis_limits.h) has its row in
# docs/diagnosis.md's Limits table
missing=""
for n in $(sed -n 's/^#define \([A-Z_]*\) .*/\1/p' src/diagnosis_limits.h | grep -v '^NF_'); do
	grep -qE "^\\| ([^|]*, )?\`$n\`(, [^|]*)? \\|" docs/diagnosis.md || missing="$missing $n"
done
check "docs/limits/read" test -n "$(sed -n 's/^#define \([A-Z_]*\) .*/\1/p' src/diagnosis_limits.h)"
check_eq "docs/limits/documented" "" "$missing"
