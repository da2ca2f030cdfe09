#!/bin/bash
# run-job.sh NAME NODES PORT [VAR=VALUE ...]
# Runs train.py under torchrun as NODES "nodes" of 2 ranks each (NPROC=N: N) on this
# machine's GPUs. Each node is its own UTS namespace (hostname gpu-nodeNN) with
# its own NCCL_HOSTID, so NCCL treats the nodes as separate hosts (NET/Socket
# over lo between them). Writes $WORK/job-NAME/ laid out as a real job's log
# collection: per node console.log, torchrun/<run>/attempt_0/<local>/{stdout,stderr}.log,
# fr/ flight-recorder dumps; dmesg.txt. VAR=VALUE pairs go to every process
# (FAULT=..., STEPS=..., NCCL_DEBUG=...; FR_ENV=new: the TORCH_FR_* names;
# DEBUG_FILE=1: NCCL_DEBUG_FILE per process; NODE_ENV=N:VAR=VALUE for node N only;
# MAX_RESTARTS=N: torchrun restarts the workers up to N times, attempt_N/;
# NPROC=N: N ranks per node (as many GPUs needed: NCCL refuses two ranks of a
# node on one GPU); RDZV=c10d: c10d rendezvous, so the nodes restart together and get their
# node ranks, hence their global ranks, in the order they join);
# LIMIT_SIGNAL=TERM: at JOB_LIMIT every process of the job gets SIGTERM, as a
# scheduler's cancel sends it, and SIGKILL only 10 s later (default: SIGKILL).
set -u
name=$1 nodes=$2 port=$3
shift 3
work=${WORK:-/tmp/realjobs}
limit=${JOB_LIMIT:-150}
job=$work/job-$name
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$job"
mkdir -p "$job"
fr_env=old debug_file=0 restarts=0 rdzv=static nproc=2 limit_signal=KILL
for kv in "$@"; do
	case $kv in
	LIMIT_SIGNAL=*) limit_signal=${kv#LIMIT_SIGNAL=} ;;
	FR_ENV=new) fr_env=new ;;
	DEBUG_FILE=1) debug_file=1 ;;
	MAX_RESTARTS=*) restarts=${kv#MAX_RESTARTS=} ;;
	RDZV=c10d) rdzv=c10d ;;
	NPROC=*) nproc=${kv#NPROC=} ;;
	esac
done
# NODE_ENV=N:VAR=VALUE: VAR=VALUE for node N only (1-based)
node_env() {
	for kv in "$@"; do
		case $kv in NODE_ENV=$1:*) echo "${kv#NODE_ENV=$1:}" ;; esac
	done
}
uts=1
unshare --uts true 2>/dev/null || uts=0
for i in $(seq 1 "$nodes"); do
	host=$(printf 'gpu-node%02d' "$i")
	mkdir -p "$job/$host/fr" "$job/$host/torchrun"
	if [ "$fr_env" = new ]; then
		frvars="TORCH_FR_BUFFER_SIZE=2000 TORCH_FR_DUMP_TEMP_FILE=$job/$host/fr/nccl_trace_rank_"
	else
		frvars="TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DEBUG_INFO_TEMP_FILE=$job/$host/fr/nccl_trace_rank_"
	fi
	[ "$debug_file" = 1 ] && frvars="$frvars NCCL_DEBUG_FILE=$job/$host/nccl.%h.%p.log"
	cmd="torchrun --nnodes=$nodes --nproc-per-node=$nproc"
	if [ "$rdzv" = c10d ]; then
		cmd="$cmd --rdzv-backend=c10d --rdzv-endpoint=127.0.0.1:$port --rdzv-id=job-$name --local-addr=127.0.0.1"
	else
		cmd="$cmd --node-rank=$((i - 1)) --master-addr=127.0.0.1 --master-port=$port"
	fi
	cmd="$cmd --max-restarts=$restarts --log-dir=$job/$host/torchrun --redirects=3 --tee=3"
	cmd="$cmd $here/train.py --job=job-$name"
	# $frvars and node_env's output are lists of NAME=value, split on purpose
	# shellcheck disable=SC2086,SC2046
	env NCCL_HOSTID="$host" NCCL_SOCKET_IFNAME=lo NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL \
		NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
		TORCH_NCCL_DUMP_ON_TIMEOUT=1 FINAL_TRACE_DIR="$job/$host/fr" $frvars "$@" $(node_env "$i" "$@") \
		sh -c "if [ $uts = 1 ]; then exec unshare --uts sh -c 'hostname $host && exec $cmd'; else exec $cmd; fi" \
		> "$job/$host/console.log" 2>&1 &
done
start=$(date +%s)
while pgrep -f -- "--job=job-$name" > /dev/null; do
	if [ $(($(date +%s) - start)) -ge "$limit" ]; then
		echo "job $name: still running after ${limit}s; killed" >&2
		pkill -CONT -f -- "--job=job-$name"
		if [ "$limit_signal" != KILL ]; then
			pkill "-$limit_signal" -f -- "--job=job-$name"
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				pgrep -f -- "--job=job-$name" > /dev/null || break
				sleep 1
			done
		fi
		pkill -KILL -f -- "--job=job-$name"
		break
	fi
	sleep 1
done
wait
dmesg > "$job/dmesg.txt" 2>/dev/null || rm -f "$job/dmesg.txt"
echo "job $name: $(($(date +%s) - start)) s, uts=$uts" >&2
