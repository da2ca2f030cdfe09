#!/bin/sh
# drop_rank.sh DIR RANK: removes every file and console line of one rank of a
# job made by tests/realjobs (node = rank / ranks per node + 1; the ranks per
# node counted from the per-rank directories, attempt_0/<local_rank>/).
d=$1; r=$2
per=$(find "$d" -type d -path '*/torchrun/*/attempt_0/*' -name '[0-9]*' | sed 's|.*/||' | sort -n | tail -1)
per=$(( ${per:-1} + 1 ))
node=$(printf "gpu-node%02d" $((r / per + 1))); lr=$((r % per))
pid=$(find "$d" -name console.log -exec grep -h "rank=$r host=" {} + 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1)
find "$d" -path "*/$node/torchrun/*/attempt_*/$lr/*" -delete
find "$d" -path "*/$node/fr/*_rank_$r" -delete
[ -n "$pid" ] && find "$d" -name "nccl.*.$pid.log" -delete
find "$d" -path "*/$node/*" -name 'console.log' | while IFS= read -r f; do
	grep -v "^\[default$lr\]:" "$f" > "$f.tmp"; mv "$f.tmp" "$f"
done
true
