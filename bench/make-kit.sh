#!/bin/sh
# bench/make-kit.sh DIR: the binary, bsdtar, every library they load and the
# dynamic loader, in DIR, for a machine where nothing can be installed
# (bench/many-cores.py runs them as DIR/ld-linux-x86-64.so.2 --library-path DIR).
set -eu
dir=${1:?usage: bench/make-kit.sh DIR}
mkdir -p "$dir"
cp ncclforensic "$dir/"
cp -r grammars data "$dir/"
cp "$(command -v bsdtar)" "$dir/"
for bin in ncclforensic "$(command -v bsdtar)"; do
	ldd "$bin" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'
done | sort -u | while read -r lib; do
	cp -L "$lib" "$dir/"
done
[ -f "$dir/ld-linux-x86-64.so.2" ] || { echo "make-kit: no ld-linux-x86-64.so.2" >&2; exit 1; }
du -sh "$dir"
