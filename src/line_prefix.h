/* line_prefix.h: takes one log line apart into its wrappers, its header and
 * its message, without copying.
 *
 *   [default1]:[rank3]:[E1129 23:56:08.174523844 ProcessGroupNCCL.cpp:689] [Rank 1] Watchdog ...
 *   ^ wrapper   ^ wrapper ^ header (family C10, level E, time without year)  ^ message
 *
 * Wrappers say who wrote the line (torchrun's "[<role><local_rank>]:", PyTorch's
 * "[rank<N>]:", srun's "<task>: " label); the header says which logger wrote it
 * and when; the message is what grammar rules match. */
#ifndef NF_LINE_PREFIX_H
#define NF_LINE_PREFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timestamp.h"

/* Which logger wrote a line; grammar rules say which family they match. */
enum line_family {
	FAM_PLAIN = 0, /* no known header: tracebacks, torchrun failure blocks, tool output */
	FAM_NCCL,      /* host:pid:tid [dev] NCCL INFO|WARN|TRACE ... */
	FAM_C10,       /* [E1129 23:50:42.457198170 file.cpp:689] ... (c10 logging) */
	FAM_GLOG,      /* I1129 23:47:28.713000 604 torch/.../api.py:224] ... (torchrun) */
	FAM_PYLOG,     /* 2026-11-29 23:55:40,214 INFO ... (Python logging) */
	FAM_KERNEL,    /* dmesg, dmesg -T, syslog, journald lines */
	FAM_COUNT
};
const char *family_name(enum line_family f);
/* FAM_* from a name ("nccl", "c10", ...), -1 if unknown. */
int family_from_name(const char *name);

struct line_parts {
	/* wrappers (-1 when absent) */
	int rank;           /* [rank5]: */
	int local_rank;     /* [default0]: (role + local rank) */
	int srun_task;      /* "12: " with srun --label (only when allow_srun) */
	long wrapper_pid;   /* Ray's "(Worker pid=N) ": the worker's pid; -1 */
	const char *wrapper_host; /* pdsh's (and the DeepSpeed launcher's) "host: "; not NUL-terminated */
	size_t wrapper_host_len;
	/* a wrapper's time (Open MPI --timestamp-output, kubectl logs --timestamps),
	 * the line's when its own header has none (line_parts_wrapper_time) */
	struct {
		bool set;
		int year, mon, day, hour, min, sec, tz_offset_min;
		long usec;
	} wrap_time;

	enum line_family family;
	char level;         /* I W E F for glog/c10, I W E for NCCL INFO/WARN/ERROR; T trace; 0 */
	const char *host;   /* NCCL host or syslog host; not NUL-terminated */
	size_t host_len;
	long pid, tid;      /* NCCL and glog pid, NCCL tid; -1 when absent */
	int dev;            /* NCCL [dev]; -1 */
	const char *src;    /* c10/glog/NCCL WARN source "file.cpp:689"; not NUL-terminated */
	size_t src_len;

	/* time as written; see resolve_time() for the absolute value */
	enum clock_kind clock; /* CLOCK_NONE, CLOCK_FULL, CLOCK_NOYEAR or CLOCK_BOOT */
	int year, mon, day, hour, min, sec;
	long usec;
	double boot_s;      /* CLOCK_BOOT: seconds since boot */
	int tz_offset_min;  /* zone written on the line (journald), minutes east of UTC */

	const char *body;   /* the line after the wrappers */
	size_t body_len;
	const char *msg;    /* the message after the header (== body for FAM_PLAIN) */
	size_t msg_len;
};

/* Splits line (len bytes, no newline) into parts. Never fails: a line with no
 * known header is FAM_PLAIN. allow_srun enables the srun "N: " label. */
void line_parts_parse(const char *line, size_t len, bool allow_srun, struct line_parts *p);
/* The wrapper's time as the line's, where the line has none of its own. */
void line_parts_wrapper_time(struct line_parts *p);

/* True if the line starts with an srun --label ("  3: "). */
bool line_has_srun_label(const char *line, size_t len);

/* Absolute time of a parsed line in µs (UTC), or false when it has none.
 * year_hint completes CLOCK_NOYEAR times; boot_us places CLOCK_BOOT times
 * (false when boot_us is unknown, i.e. INT64_MIN). */
bool line_parts_time(const struct line_parts *p, int year_hint, int64_t boot_us, int64_t *t_us);

#endif
