#!/bin/sh
# drop_rank.sh DIR RANK: removes every file and console line of one rank of a
# corpus job (test helper: the corpus runs 2 ranks per node, node = rank/2 + 1).
d=$1; r=$2; node=$(printf "gpu-node%02d" $((r / 2 + 1))); lr=$((r % 2))
pid=$(grep -h "rank=$r host=" $(find "$d" -name console.log) 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1)
find "$d" -path "*/$node/torchrun/*/attempt_*/$lr/*" -delete
find "$d" -path "*/$node/fr/*_rank_$r" -delete
[ -n "$pid" ] && find "$d" -name "nccl.*.$pid.log" -delete
for f in $(find "$d" -path "*/$node/*" -name 'console.log'); do grep -v "^\[default$lr\]:" "$f" > "$f.tmp"; mv "$f.tmp" "$f"; done
true
