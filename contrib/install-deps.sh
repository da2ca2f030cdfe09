#!/bin/sh
# Installs what ncclforensic needs to build and test, when it is missing
# (--test: also what the tests need; --fuzz: also what `make fuzz` needs).
# As root it runs apt-get; otherwise it prints the exact command to run.
set -u
build_pkgs="gcc make pkg-config libpcre2-dev libsqlite3-dev libarchive-dev libncurses-dev libzstd-dev"
test_pkgs="libcmocka-dev sqlite3 tmux libxml2-utils groff-base shellcheck libarchive-tools zstd xz-utils bzip2 valgrind python3 cmark-gfm strace lnav"
# make fuzz: clang with libFuzzer and the sanitizers' runtimes
fuzz_pkgs="clang libclang-rt-dev"
want="$build_pkgs"
[ "${1:-}" = "--test" ] && want="$build_pkgs $test_pkgs"
[ "${1:-}" = "--fuzz" ] && want="$build_pkgs $fuzz_pkgs"

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null || {
		echo "apt-get install failed for:$missing" >&2
		exit 1
	}
else
	echo "missing packages:$missing" >&2
	echo "run: sudo apt-get install -y$missing" >&2
	exit 1
fi
