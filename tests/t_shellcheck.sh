#!/bin/sh
# Every shell script of the project is clean under shellcheck at its warning
# level (errors and warnings; the style notes are left to taste): the tests
# and their helpers, contrib/ (the collector, the epilog, bash completion),
# the benchmark and CI.
. tests/lib.sh

if ! command -v shellcheck > /dev/null 2>&1; then
	fail "shellcheck/installed" "shellcheck is not installed (contrib/install-deps.sh --test)"
else
	for f in tests/*.sh tests/helpers/*.sh tests/realjobs/*.sh contrib/*.sh bench/*.sh .ci/run; do
		[ -f "$f" ] || continue
		check "shellcheck/$f" shellcheck -x -P . -S warning "$f"
	done
	check "shellcheck/contrib/ncclforensic.bash" shellcheck -S warning -s bash contrib/ncclforensic.bash
fi
