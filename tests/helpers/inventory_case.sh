#!/bin/sh
# inventory_case.sh DIR: builds the inventory test job in DIR (test helper):
# contrib/collect-logs.sh runs for gpu-node01 and gpu-node02 of
# tests/fixtures/inventory with the stand-in commands of its bin/, then
# `ncclforensic ingest` reads the two tarballs into DIR/inventory.db.
# Prints the case's path; exits non-zero when a step failed.
# Needs NF_BIN (absolute) and to run from the source tree's root.
set -u
dir=$1
fix="$PWD/tests/fixtures/inventory"
mkdir -p "$dir/incident" || exit 1
for h in gpu-node01 gpu-node02; do
	PATH="$fix/bin:$PATH" NF_FAKE_NODE="$fix/$h" sh contrib/collect-logs.sh -q -H "$h" -o "$dir/incident" \
		--fr-prefix "$dir/none/x" --logs "$fix/$h/job" > /dev/null || exit 1
done
"$NF_BIN" ingest "$dir/incident" -o "$dir/inventory.db" -q > "$dir/ingest.out" 2>&1 || exit 1
echo "$dir/inventory.db"
