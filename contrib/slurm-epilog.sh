#!/bin/sh
# slurm-epilog.sh: an example Slurm Epilog that runs collect-logs.sh on each
# node of a job that failed, so the logs and the node's state (kernel log,
# nvidia-smi, ip, ibstat) are kept before the node runs the next job.
#
# slurm.conf:   Epilog=/etc/slurm/epilog.d/ncclforensic.sh
# (or call it from your existing epilog). It runs as root on every node of
# the job at its end, with SLURM_JOB_ID, SLURM_JOB_USER and friends set and no
# PATH. Adapt the three settings below; keep it quick: slurmd waits for the
# epilog before the node is released (EpilogMsgTime, UnkillableStepTimeout).
#
# Each node writes $INCIDENTS/<job id>/<host>.tar.gz; then, on a login node:
#   ncclforensic ingest $INCIDENTS/<job id> -o job<job id>.db

PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

# where the tarballs go: a shared file system every node can write
INCIDENTS=${NCCLFORENSIC_INCIDENTS:-/shared/ncclforensic/incidents}
# the collector (make install puts it here)
COLLECT=${NCCLFORENSIC_COLLECT:-/usr/local/share/ncclforensic/contrib/collect-logs.sh}
# 1: collect after every job, not only failed ones
ALWAYS=${NCCLFORENSIC_ALWAYS:-0}

job=${SLURM_JOB_ID:-}
[ -n "$job" ] || exit 0
[ -x "$COLLECT" ] || exit 0

# Did the job fail? Slurm gives the epilog no exit status in every version:
# use it when present, else ask the controller for the job's state.
failed=0
case ${SLURM_JOB_EXIT_CODE:-} in
'' ) ;;
0 ) ;;
* ) failed=1 ;;
esac
if [ "$failed" = 0 ] && [ -z "${SLURM_JOB_EXIT_CODE:-}" ] && command -v scontrol > /dev/null 2>&1; then
	state=$(scontrol show job -o "$job" 2> /dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
	case $state in
	FAILED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | CANCELLED) failed=1 ;;
	esac
	# the exit code scontrol shows (ExitCode=1:0) when the state is still COMPLETING
	code=$(scontrol show job -o "$job" 2> /dev/null | sed -n 's/.* ExitCode=\([0-9]*\):\([0-9]*\).*/\1\2/p')
	case $code in '' | 0 | 00) ;; *) failed=1 ;; esac
fi
[ "$failed" = 1 ] || [ "$ALWAYS" = 1 ] || exit 0

# The job's logs on this node: its working directory's logs/$(hostname -s)
# (a convention: point torchrun --log-dir and NCCL_DEBUG_FILE there, one
# directory per node), and, on the batch host only, the job's stdout file
# (srun's output of every rank: collected once, filed under the host where
# the launcher ran). Adapt to your site's layout.
info=$(scontrol show job -o "$job" 2> /dev/null)
workdir=$(printf '%s\n' "$info" | sed -n 's/.* WorkDir=\([^ ]*\).*/\1/p')
stdout=$(printf '%s\n' "$info" | sed -n 's/.* StdOut=\([^ ]*\).*/\1/p')
batchhost=$(printf '%s\n' "$info" | sed -n 's/.* BatchHost=\([^ ]*\).*/\1/p')
host=$(hostname -s)
set --
[ -n "$workdir" ] && [ -d "$workdir/logs/$host" ] && set -- "$@" --logs "$workdir/logs/$host"
[ -n "$stdout" ] && [ -f "$stdout" ] && [ "$batchhost" = "$host" ] && set -- "$@" --logs "$stdout"

out=$INCIDENTS/$job
mkdir -p "$out" 2> /dev/null || exit 0
# the job's files are read as the job's user, and only the flight-recorder
# dumps that user wrote since the job started are taken (the collector gets
# the start from scontrol); the tarball is readable by root only (add
# --group GROUP for a team that triages)
user=${SLURM_JOB_USER:-}
[ -n "$user" ] || exit 0
# never fail the epilog (a failing epilog drains the node): log and go on
"$COLLECT" -q --job "$job" --user "$user" -o "$out" --timeout 30 "$@" > /dev/null 2>> "$out/collect-errors.log" || true
exit 0
