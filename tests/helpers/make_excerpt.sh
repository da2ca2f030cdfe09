#!/bin/sh
# make_excerpt.sh DIR HOST: what a user pastes into a ticket, made of a job's
# bundle: only the files of HOST (the directories named HOST), each cut to
# the 50 lines around its first failure line (a timeout, an error, an
# exception, a failed process), or to its last 50 lines when it has none;
# binary files (flight-recorder dumps) and the other hosts' files removed.
d=$1; host=$2
fail_re='Watchdog caught|timed out|Timeout at NCCL|NCCL WARN|NCCL error|Error|error:|[Ff]ailed|exitcode|Traceback|SIGABRT|SIGKILL|SIGTERM|Segmentation|died'
find "$d" -type f | while IFS= read -r f; do
	case "/$f/" in */"$host"/*) ;; *) rm -f "$f"; continue ;; esac
	if ! grep -Iq . "$f" 2>/dev/null; then rm -f "$f"; continue; fi
	first=$(grep -nE "$fail_re" "$f" | head -n 1 | cut -d: -f1)
	if [ -n "$first" ]; then
		from=$((first > 25 ? first - 25 : 1))
		sed -n "${from},$((from + 49))p" "$f" > "$f.cut"
	else
		tail -n 50 "$f" > "$f.cut"
	fi
	mv "$f.cut" "$f"
done
true
