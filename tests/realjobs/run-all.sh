#!/bin/bash
# run-all.sh JOBS-FILE OUT-DIR: runs the jobs of JOBS-FILE (lines "name nodes
# VAR=VALUE ...", # comments), PARALLEL at a time, and packs each
# job-NAME/ into OUT-DIR/realjobs.tar as job-NAME.tar.gz.
set -u
jobs_file=$1 out=$2
export WORK=${WORK:-/tmp/realjobs}
parallel=${PARALLEL:-4}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK" "$out"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())'
port=29610
while read -r name nodes rest; do
	case $name in '' | '#'*) continue ;; esac
	while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
	# shellcheck disable=SC2086
	"$here/run-job.sh" "$name" "$nodes" "$port" $rest 2>> "$WORK/run.log" &
	port=$((port + 7))
	sleep 2
done < "$jobs_file"
wait
cat "$WORK/run.log"
cd "$WORK" || exit 1
for j in job-*/; do
	j=${j%/}
	tar -czf "$j.tar.gz" "$j"
done
tar -cf "$out/realjobs.tar" job-*.tar.gz run.log
ls -la "$WORK"/*.tar.gz
