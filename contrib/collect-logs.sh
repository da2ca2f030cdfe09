#!/bin/sh
# collect-logs.sh: gathers, on one node after an incident, what ncclforensic
# can use, into HOST.tar.gz laid out as HOST/... so that `ncclforensic ingest`
# files every member under its host:
#
#   HOST/collect.txt                what was gathered, what failed, what was skipped
#   HOST/logs/NAME/...              each LOGDIR (rank stdout/stderr, torchrun --log-dir, NCCL_DEBUG_FILE)
#   HOST/fr/nccl_trace_rank_N       flight-recorder dumps
#   HOST/nccl/...                   NCCL_DEBUG_FILE output found by its pattern
#   HOST/system/dmesg.txt           dmesg -T (or journal-kernel.txt: journalctl -k for the job's time range)
#   HOST/system/nvidia-smi-q.txt    nvidia-smi -q, -L and topo -m (GPU <-> PCI bus id <-> serial, GPU <-> NIC)
#   HOST/system/ip-*.txt            ip -br addr, ip -s link
#   HOST/system/ibstat.txt          ibstat, ibv_devinfo (when present)
#   HOST/system/env.txt             the job's NCCL_*/TORCH_* environment (when given)
#
# Run it on every node of the job (pdsh, `srun -N$N --ntasks-per-node=1`, or
# from a Slurm epilog: contrib/slurm-epilog.sh), put the tarballs in one
# directory and run `ncclforensic ingest DIR`. POSIX sh; needs tar and gzip.
#
# Run as root (an epilog), it reads the job's files as the job's user
# (--user: runuser, setpriv or su), so that a link or a hard link a user left
# in a log directory or as a dump (/tmp/nccl_trace_rank_99 -> /etc/shadow)
# packs nothing that user could not read; symbolic links are never followed;
# dumps are only those the job's user owns, changed since the job started;
# the system state (kernel log, nvidia-smi, ip, ibstat) is gathered as root,
# apart. The tarball is 0600 (0640 with --group), written under umask 077.
set -u
umask 077

VERSION=0.1.0
PROG=collect-logs.sh

usage() {
	cat <<'EOF'
usage: collect-logs.sh [options] [LOGDIR...]
Gathers this node's job logs and system state into OUTDIR/HOST.tar.gz for
`ncclforensic ingest`. Run it on every node of the job.
  LOGDIR, --logs DIR     a log directory (or file) of the job on this node; repeatable:
                         the ranks' stdout/stderr, torchrun --log-dir, NCCL_DEBUG_FILE output
  -o, --output DIR       where to write HOST.tar.gz (default: the current directory)
  -H, --host NAME        the host name to file it under (default: `hostname -s`, as NCCL prints it)
  -j, --job ID           the Slurm job id (default: $SLURM_JOB_ID): `scontrol show job` is
                         recorded and its start and end bound the kernel log
  --since TIME           start of the kernel log to take (journalctl -k --since)
  --until TIME           end of it (journalctl -k --until)
  --fr-prefix PREFIX     flight-recorder dumps are PREFIX<rank> (default:
                         $TORCH_NCCL_DEBUG_INFO_TEMP_FILE, else /tmp/nccl_trace_rank_)
  --nccl-debug-file PAT  the job's NCCL_DEBUG_FILE (%h host, %p pid; default: $NCCL_DEBUG_FILE)
  --env                  record this shell's NCCL_*, TORCH_*, CUDA_* ... variables (from a job script)
  --env-pid PID          record those of a running process (/proc/PID/environ)
  --env-file FILE        record those found in FILE (NAME=value lines)
  --max-file-mb N        leave out log files larger than N MiB (default 2048; listed in collect.txt)
  --max-total-mb N       stop adding log files once N MiB are staged (default 16384; the rest listed)
  -u, --user USER        the job's user (default: $SLURM_JOB_USER when run as root): its files
                         are read as that user, dumps are only the ones it owns
  -g, --group GROUP      make the tarball group-readable by GROUP (0640; else 0600)
  --timeout S            seconds each command may take (default 60: nvidia-smi can hang on a sick GPU)
  -q, --quiet            print only the tarball's path
  -h, --help             this text
  -V, --version          the version
Exit status: 0 done; 1 written, but a command failed (see HOST/collect.txt);
2 bad usage; 3 nothing written.
EOF
}

die_usage() {
	printf '%s: %s\n' "$PROG" "$1" >&2
	printf 'try %s --help\n' "$PROG" >&2
	exit 2
}

# ---- options ----
outdir=.
host=
job=${SLURM_JOB_ID:-}
since=
until=
fr_prefix=${TORCH_NCCL_DEBUG_INFO_TEMP_FILE:-/tmp/nccl_trace_rank_}
nccl_debug_file=${NCCL_DEBUG_FILE:-}
env_self=0
env_pid=
env_file=
max_mb=2048
max_total_mb=16384
job_user=
group=
tmo=60
quiet=0
nlogs=0

add_log() {
	[ -e "$1" ] || die_usage "no such log directory or file: $1"
	nlogs=$((nlogs + 1))
	eval "log_$nlogs=\$1"
}

need_arg() {
	[ "$2" -ge 2 ] || die_usage "$1 needs an argument"
}

while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	-V | --version) printf '%s %s\n' "$PROG" "$VERSION"; exit 0 ;;
	-q | --quiet) quiet=1 ;;
	--env) env_self=1 ;;
	-o | --output) need_arg "$1" $#; outdir=$2; shift ;;
	-H | --host) need_arg "$1" $#; host=$2; shift ;;
	-j | --job) need_arg "$1" $#; job=$2; shift ;;
	--since) need_arg "$1" $#; since=$2; shift ;;
	--until) need_arg "$1" $#; until=$2; shift ;;
	--logs) need_arg "$1" $#; add_log "$2"; shift ;;
	--fr-prefix) need_arg "$1" $#; fr_prefix=$2; shift ;;
	--nccl-debug-file) need_arg "$1" $#; nccl_debug_file=$2; shift ;;
	--env-pid) need_arg "$1" $#; env_pid=$2; shift ;;
	--env-file) need_arg "$1" $#; env_file=$2; shift ;;
	--max-file-mb) need_arg "$1" $#; max_mb=$2; shift ;;
	--max-total-mb) need_arg "$1" $#; max_total_mb=$2; shift ;;
	-u | --user) need_arg "$1" $#; job_user=$2; shift ;;
	-g | --group) need_arg "$1" $#; group=$2; shift ;;
	--timeout) need_arg "$1" $#; tmo=$2; shift ;;
	--) shift; while [ $# -gt 0 ]; do add_log "$1"; shift; done; break ;;
	-*) die_usage "unknown option $1" ;;
	*) add_log "$1" ;;
	esac
	shift
done

case $max_mb in '' | *[!0-9]*) die_usage "--max-file-mb wants a number of MiB" ;; esac
case $max_total_mb in '' | *[!0-9]*) die_usage "--max-total-mb wants a number of MiB" ;; esac
[ -n "$job_user" ] || [ "$(id -u)" -ne 0 ] || job_user=${SLURM_JOB_USER:-}
if [ -n "$job_user" ]; then
	id -u "$job_user" > /dev/null 2>&1 || die_usage "no such user: $job_user"
fi
if [ -n "$group" ]; then
	getent group "$group" > /dev/null 2>&1 || die_usage "no such group: $group"
fi
case $tmo in '' | *[!0-9]*) die_usage "--timeout wants a number of seconds" ;; esac
case $env_pid in *[!0-9]*) die_usage "--env-pid wants a process id" ;; esac
[ -z "$env_file" ] || [ -r "$env_file" ] || die_usage "cannot read --env-file $env_file"
[ -d "$outdir" ] || die_usage "no such output directory: $outdir"

if [ -z "$host" ]; then
	host=$(hostname -s 2>/dev/null) || host=
	[ -n "$host" ] || host=$(uname -n | cut -d. -f1)
fi
case $host in '' | */* | .*) die_usage "unusable host name '$host' (give one with --host)" ;; esac

say() {
	[ "$quiet" = 1 ] || printf '%s: %s\n' "$PROG" "$*" >&2
}

# ---- the staging directory ----
# beside the output, not in $TMPDIR (a RAM disk on many GPU nodes); what is
# staged is capped (--max-total-mb)
work=$(mktemp -d "$outdir/.ncclforensic-collect.XXXXXX") || { echo "$PROG: cannot create a staging directory in $outdir" >&2; exit 3; }
trap 'rm -rf "$work"' EXIT
trap 'exit 3' INT TERM HUP
stage=$work/$host
mkdir -p "$stage/system" || exit 3
manifest=$work/collect.txt
failed=0
now() { date -u +%Y-%m-%dT%H:%M:%S+0000; }

# note WHAT: a line of collect.txt
note() {
	printf '%s\n' "$*" >> "$manifest"
}

# header WHAT RC: the first line of a gathered command's output (grammars/90-inventory.rules)
header() {
	printf '# ncclforensic collect-logs %s: host=%s time=%s what="%s" rc=%s\n' "$VERSION" "$host" "$(now)" "$1" "$2"
}

# as_user CMD ARGS...: runs CMD as the job's user when root was given one
# (the job's files are read with that user's rights), else as is
as_user() {
	if [ -z "$job_user" ] || [ "$(id -u)" -ne 0 ] || [ "$(id -un)" = "$job_user" ]; then
		"$@"
	elif command -v runuser > /dev/null 2>&1; then
		runuser -u "$job_user" -- "$@"
	elif command -v setpriv > /dev/null 2>&1; then
		setpriv --reuid="$job_user" --regid="$(id -g "$job_user")" --init-groups -- "$@"
	else
		# shellcheck disable=SC2016 # expanded by the inner shell
		su -s /bin/sh "$job_user" -c '"$0" "$@"' "$@"
	fi
}

with_timeout() {
	if command -v timeout >/dev/null 2>&1; then
		timeout "$tmo" "$@"
	else
		"$@"
	fi
}

# run FILE HEADER COMMAND ARGS...: runs a command into system/FILE; HEADER
# is 1 to put the header line first (not for kernel logs, whose reader knows
# them by their first lines); 2 as well, for a probe that may fail on a host
# without the hardware (ibstat without RDMA devices): not counted as failed
run() {
	file=$1 hdr=$2
	shift 2
	if ! command -v "$1" >/dev/null 2>&1; then
		note "absent  $*"
		return 127
	fi
	with_timeout "$@" > "$work/out" 2> "$work/err"
	rc=$?
	if [ "$rc" -ne 0 ] && [ ! -s "$work/out" ]; then
		if [ "$hdr" = 2 ]; then
			note "none    $* (exit $rc): $(head -c 300 "$work/err" | tr '\n' ' ')"
		else
			note "failed  $* (exit $rc): $(head -c 300 "$work/err" | tr '\n' ' ')"
			failed=1
		fi
		return "$rc"
	fi
	{
		[ "$hdr" != 0 ] && header "$*" "$rc"
		cat "$work/out"
	} > "$stage/system/$file"
	if [ "$rc" -ne 0 ]; then
		note "partial $* (exit $rc) -> system/$file: $(head -c 300 "$work/err" | tr '\n' ' ')"
		failed=1
	else
		note "ok      $* -> system/$file ($(wc -l < "$work/out" | tr -d ' ') lines)"
	fi
	return "$rc"
}

note "$(header collect-logs 0)"
note "job ${job:-unknown}; logs: $nlogs; kernel log from ${since:-boot} to ${until:-now}"

# ---- the job's time range, from Slurm ----
if [ -n "$job" ] && command -v scontrol >/dev/null 2>&1; then
	if run slurm-job.txt 1 scontrol show job -o "$job"; then
		start=$(sed -n 's/.*[[:space:]]StartTime=\([^[:space:]]*\).*/\1/p' "$work/out" | head -n 1)
		end=$(sed -n 's/.*[[:space:]]EndTime=\([^[:space:]]*\).*/\1/p' "$work/out" | head -n 1)
		case $start in [0-9][0-9][0-9][0-9]-*) [ -n "$since" ] || since=$(printf '%s' "$start" | tr T ' ') ;; esac
		case $end in [0-9][0-9][0-9][0-9]-*) [ -n "$until" ] || until=$(printf '%s' "$end" | tr T ' ') ;; esac
	fi
fi

# ---- the kernel log ----
kernel_done=0
if [ -n "$since" ] && command -v journalctl >/dev/null 2>&1; then
	if [ -n "$until" ]; then
		run journal-kernel.txt 0 journalctl -k -o short-iso --no-pager --since "$since" --until "$until" && kernel_done=1
	else
		run journal-kernel.txt 0 journalctl -k -o short-iso --no-pager --since "$since" && kernel_done=1
	fi
fi
if [ "$kernel_done" = 0 ]; then
	run dmesg.txt 0 dmesg -T && kernel_done=1
fi
if [ "$kernel_done" = 0 ]; then
	# dmesg is restricted to root on many systems; the journal may not be
	run journal-kernel.txt 0 journalctl -k -b -o short-iso --no-pager
fi

# ---- GPUs, NICs ----
run nvidia-smi-q.txt 1 nvidia-smi -q
run nvidia-smi-L.txt 1 nvidia-smi -L
run nvidia-smi-topo.txt 1 nvidia-smi topo -m
run ip-br-addr.txt 1 ip -br addr
run ip-s-link.txt 1 ip -s link
run ibstat.txt 2 ibstat
run ibv_devinfo.txt 2 ibv_devinfo

# ---- the job's environment ----
env_re='^(export )?((NCCL|TORCH|TORCHELASTIC|PYTORCH|CUDA|UCX|FI|OMPI_MCA)_[A-Za-z0-9_]*|MASTER_ADDR|MASTER_PORT|WORLD_SIZE)='
if [ "$env_self" = 1 ] || [ -n "$env_pid" ] || [ -n "$env_file" ]; then
	{
		header "environment" 0
		[ "$env_self" = 1 ] && env | grep -E "$env_re"
		if [ -n "$env_pid" ]; then
			if [ -r "/proc/$env_pid/environ" ]; then
				tr '\000' '\n' < "/proc/$env_pid/environ" | grep -E "$env_re"
			else
				note "failed  environment of pid $env_pid: /proc/$env_pid/environ is not readable"
				failed=1
			fi
		fi
		[ -n "$env_file" ] && grep -E "$env_re" "$env_file"
	} > "$stage/system/env.txt"
	note "ok      environment -> system/env.txt ($(($(wc -l < "$stage/system/env.txt") - 1)) variables)"
fi

# ---- flight-recorder dumps and NCCL debug files ----
# the job's start, for the dumps' time window (a stamp file, for find -newer)
window=
if [ -n "$since" ] && touch -d "$since" "$work/since" 2> /dev/null; then
	window=$work/since
fi
# copy_glob DIR PATTERN: copies the files matching PATTERN (a shell glob) into
# HOST/DIR: regular files only (a symbolic link is never followed), owned by
# the job's user when there is one, changed since the job's start when it is
# known, read with the job's user's rights
copy_glob() {
	dest=$1 pat=$2 n=0
	for f in $pat; do
		if [ -L "$f" ]; then
			note "skipped $f: a symbolic link (not followed)"
			continue
		fi
		[ -f "$f" ] || continue
		if [ -n "$job_user" ] && [ -z "$(find "$f" -prune -user "$job_user" 2> /dev/null)" ]; then
			note "skipped $f: not owned by the job's user $job_user"
			continue
		fi
		if [ -n "$window" ] && [ -z "$(find "$f" -prune -newer "$window" 2> /dev/null)" ]; then
			note "skipped $f: older than the job's start"
			continue
		fi
		mkdir -p "$stage/$dest"
		if as_user cat -- "$f" > "$stage/$dest/$(basename "$f")" 2> "$work/err"; then
			n=$((n + 1))
		else
			rm -f "$stage/$dest/$(basename "$f")"
			note "failed  copy $f: $(head -c 200 "$work/err" | tr '\n' ' ')"
			failed=1
		fi
	done
	if [ "$n" -gt 0 ]; then
		note "ok      $pat -> $dest/ ($n files)"
	else
		note "none    $pat: no such files"
	fi
}
copy_glob fr "${fr_prefix}*"
if [ -n "$nccl_debug_file" ]; then
	# NCCL_DEBUG_FILE expands %h to the host name and %p to the pid
	pat=$(printf '%s' "$nccl_debug_file" | sed -e "s/%h/$host/g" -e 's/%p/*/g')
	copy_glob nccl "$pat"
fi

# ---- the job's log directories ----
max_kb=$((max_mb * 1024))
left_kb=$((max_total_mb * 1024))
i=1
while [ "$i" -le "$nlogs" ]; do
	eval "dir=\$log_$i"
	dir=${dir%/}
	[ -n "$dir" ] || dir=/
	find "$dir" -type f -size +"${max_kb}"k 2>/dev/null | while IFS= read -r big; do
		note "skipped $big: larger than --max-file-mb $max_mb"
	done
	i=$((i + 1))
done

tarball=$work/out.tar
# collect.txt goes in last, once the log directories have said what they left out
if ! (cd "$work" && tar -cf "$tarball" "$host"); then
	echo "$PROG: tar failed" >&2
	exit 3
fi

tar_kind=copy
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
	tar_kind=gnu
elif tar --version 2>/dev/null | grep -q 'bsdtar'; then
	tar_kind=bsd
fi

i=1
names=
while [ "$i" -le "$nlogs" ]; do
	eval "dir=\$log_$i"
	dir=${dir%/}
	[ -n "$dir" ] || dir=/
	parent=$(dirname "$dir")
	name=$(basename "$dir")
	# HOST/logs/NAME/...; a second directory of the same name goes to logs-2/
	prefix=logs
	case " $names " in *" $name "*) prefix=logs-$i ;; esac
	names="$names $name"
	list=$work/list
	# files (never links), under --max-file-mb, while the total stays under
	# --max-total-mb; listed as the job's user sees them
	(cd "$parent" && as_user find "$name" -type f ! -size +"${max_kb}"k -printf '%s %p\0' 2> /dev/null) |
		tr '\0\n' '\n\0' > "$work/sized"
	: > "$list"
	while IFS= read -r rec; do
		kb=$(((${rec%% *} + 1023) / 1024))
		f=$(printf '%s' "${rec#* }" | tr '\0' '\n')
		if [ "$kb" -gt "$left_kb" ]; then
			note "skipped $parent/$f: over --max-total-mb $max_total_mb"
			continue
		fi
		left_kb=$((left_kb - kb))
		printf '%s\0' "$f" >> "$list"
	done < "$work/sized"
	# the job's user reads the files; root writes the staging archive
	# (a file the user cannot read is left out by its tar, which goes on: exit 2)
	part() {
		as_user tar -cf - -C "$parent" --null -T - "$@" < "$list" > "$work/part.tar" 2> "$work/tar.err"
		prc=$?
		sed -n 's/^tar: \(.*\): Cannot open: \(.*\)$/skipped \1: \2 (as the job'"'"'s user)/p' "$work/tar.err" |
			while IFS= read -r line; do note "$line"; done
		[ "$prc" -le 2 ] && [ -s "$work/part.tar" ]
	}
	case $tar_kind in
	gnu) part --transform "s|^|$host/$prefix/|" && tar -Af "$tarball" "$work/part.tar" ;;
	bsd) part -s "|^|$host/$prefix/|" && tar -rf "$tarball" "@$work/part.tar" ;;
	*)
		# no tar that renames members: copy (read as the job's user), then add the copy
		mkdir -p "$work/copy/$host/$prefix" &&
			(cd "$parent" && tr '\0' '\n' < "$list" | while IFS= read -r f; do
				mkdir -p "$work/copy/$host/$prefix/$(dirname "$f")" &&
					as_user cat -- "$f" > "$work/copy/$host/$prefix/$f"
			done) &&
			tar -rf "$tarball" -C "$work/copy" "$host/$prefix" && rm -rf "$work/copy"
		;;
	esac
	rc=$?
	# GNU tar exits 1 when a file changed while it was read (a log still written): kept all the same
	if [ "$rc" -gt 1 ]; then
		echo "$PROG: could not add $dir to the archive (tar exit $rc)" >&2
		failed=1
	fi
	i=$((i + 1))
done
mv "$manifest" "$stage/collect.txt" && (cd "$work" && tar -rf "$tarball" "$host/collect.txt") || exit 3

out=$outdir/$host.tar.gz
rm -f "$work/part.tar"
mode=600
if [ -n "$group" ]; then
	mode=640
fi
if ! gzip -c "$tarball" > "$out.tmp.$$" || { [ -n "$group" ] && ! chgrp "$group" "$out.tmp.$$"; } ||
	! chmod "$mode" "$out.tmp.$$" || ! mv "$out.tmp.$$" "$out"; then
	rm -f "$out.tmp.$$"
	echo "$PROG: cannot write $out" >&2
	exit 3
fi
members=$(tar -tzf "$out" | grep -vc '/$')
say "wrote $out ($members files, $(du -k "$out" | cut -f1) KiB); see $host/collect.txt inside"
printf '%s\n' "$out"
[ "$failed" = 0 ] || exit 1
exit 0
