#!/bin/sh
# make install / make uninstall: into a temporary DESTDIR, the binary, the
# grammars and data under <prefix>/share/ncclforensic, the man page, the
# completions, the collector, the lnav format and the SQLite extension under
# <prefix>/lib/ncclforensic; the installed binary, run
# from outside the source tree, finds its grammars and data there and
# diagnoses a corpus job; uninstall leaves nothing behind.
. tests/lib.sh
TMP=$(cd "$TMP" && pwd)
case $NF_BIN in /*) ;; *) NF_BIN="$NF_ROOT/$NF_BIN" ;; esac
dest="$TMP/dest"
prefix=/usr/local
root="$dest$prefix"

# -o: install the binary under test as it is, without remaking it
make --no-print-directory -o "$NF_BIN" install BIN="$NF_BIN" PREFIX="$prefix" DESTDIR="$dest" > "$TMP/install.out" 2>&1
check_eq "install/exit" 0 "$?"
for f in bin/ncclforensic share/man/man1/ncclforensic.1 share/bash-completion/completions/ncclforensic \
	share/zsh/site-functions/_ncclforensic share/ncclforensic/contrib/collect-logs.sh \
	share/ncclforensic/contrib/slurm-epilog.sh share/ncclforensic/lnav/ncclforensic.json \
	lib/ncclforensic/ncclforensic.so; do
	check "install/file/$f" test -f "$root/$f"
done
check "install/binary-executable" test -x "$root/bin/ncclforensic"
check "install/collector-executable" test -x "$root/share/ncclforensic/contrib/collect-logs.sh"
check_eq "install/grammars" "$(ls grammars/*.rules | wc -l)" "$(ls "$root"/share/ncclforensic/grammars/*.rules | wc -l)"
if [ -d data ]; then
	check_eq "install/data" "$(ls data | wc -l)" "$(ls "$root/share/ncclforensic/data" | wc -l)"
fi

# run it from elsewhere, with nothing of the source tree in reach
away="$TMP/elsewhere"
mkdir -p "$away"
cp testdata/corpus/stall.tar.gz "$away/"
(cd "$away" && env -u NCCLFORENSIC_GRAMMARS "$root/bin/ncclforensic" grammar list) > "$TMP/list.out" 2>&1
check "install/uses-installed-grammars" grep -qE " $root/(bin/\.\./)?share/ncclforensic/grammars/10-nccl.rules\$" "$TMP/list.out"
check_eq "install/no-build-tree-grammars" "" "$(grep "$NF_ROOT/grammars" "$TMP/list.out")"
(cd "$away" && env -u NCCLFORENSIC_GRAMMARS "$root/bin/ncclforensic" grammar test) > "$TMP/test.out" 2>&1
check_eq "install/grammar-test" 0 "$?"
(cd "$away" && env -u NCCLFORENSIC_GRAMMARS "$root/bin/ncclforensic" ingest stall.tar.gz) > "$TMP/ingest.out" 2> "$TMP/ingest.err"
check_eq "install/ingest-exit" 0 "$?"
check "install/verdict" grep -q '^verdict: hang / rank_stalled' "$TMP/ingest.out"
check "install/case-next-to-input" test -f "$away/stall.db"
check_eq "install/data-found" "" "$(grep -i 'not found' "$TMP/ingest.err")"
check_eq "install/culprit" "[2]" "$("$root/bin/ncclforensic" sql "$away/stall.db" "SELECT culprit_ranks FROM verdict" --tsv)"
# the installed binary's shell loads the installed extension (lines reads)
check_eq "install/shell-extension" "$("$root/bin/ncclforensic" sql "$away/stall.db" "SELECT count(*) FROM lines" --tsv)" \
	"$(printf 'SELECT count(*) FROM lines;\n' | "$root/bin/ncclforensic" sql "$away/stall.db" 2>&1)"
check_eq "install/sqlite3-extension" "$("$root/bin/ncclforensic" sql "$away/stall.db" "SELECT count(*) FROM lines" --tsv)" \
	"$(sqlite3 -readonly "$away/stall.db" -cmd ".load $root/lib/ncclforensic/ncclforensic" "SELECT count(*) FROM lines" 2>&1)"
if command -v man > /dev/null 2>&1; then
	check "install/man" sh -c "MANPATH='$root/share/man' man ncclforensic 2>/dev/null | grep -q 'EXIT STATUS'"
fi
check "install/completion-loads" bash --norc --noprofile -c ". '$root/share/bash-completion/completions/ncclforensic' && complete -p ncclforensic"

# installing again over it is fine (an upgrade)
make --no-print-directory -o "$NF_BIN" install BIN="$NF_BIN" PREFIX="$prefix" DESTDIR="$dest" > /dev/null 2>&1
check_eq "install/again" 0 "$?"

make --no-print-directory uninstall PREFIX="$prefix" DESTDIR="$dest" > "$TMP/uninstall.out" 2>&1
check_eq "uninstall/exit" 0 "$?"
check_eq "uninstall/no-files-left" "" "$(find "$dest" -type f)"
check_eq "uninstall/no-share-dir" "" "$(find "$dest" -name ncclforensic -type d)"
