#!/bin/sh
# The README cannot drift: every `$ ncclforensic ...` command it shows runs on
# the corpus job it names (stall, as job123.tar.gz) and prints what the
# README shows under it (tests/helpers/readme_check.py; its `$ cat FILE`
# blocks are written first, so the grammar example is real).
. tests/lib.sh

T="$TMP/readme"
case $T in /*) ;; *) T="$NF_ROOT/$T" ;; esac
rm -rf "$T"
mkdir -p "$T"
cp testdata/corpus/stall.tar.gz "$T/job123.tar.gz"
python3 tests/helpers/readme_check.py README.md "$NF_BIN" "$T" > "$T/check.out" 2>&1
rc=$?
while IFS= read -r line; do
	case $line in
	"ok "*) echo "ok readme/$(echo "$line" | cut -d' ' -f2)" >> "$NF_RESULTS" ;;
	"FAIL "*) fail "readme/$(echo "$line" | cut -d' ' -f2)" "$line" ;;
	esac
done < "$T/check.out"
check_eq "readme/checker-exit" 0 "$rc"
check "readme/commands-run" grep -q "^[1-9][0-9]* commands run" "$T/check.out"
