/* ingest.h: reads a job's logs into a case database (the pipeline:
 * archive_walk -> member_classify -> line_split -> line_prefix -> grammar ->
 * events and line blocks -> case_db), then attribution and analysis. */
#ifndef NF_INGEST_H
#define NF_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "archive_walk.h"
#include "timestamp.h"

/* The longest line a case stores: a line is read back as one SQLite value,
 * whose limit is 10^9 bytes, from a block that holds it and at most the
 * block size more. */
#define INGEST_MAX_LINE_CAP (256u << 20)

struct ingest_opts {
	const char *input;
	const char *output;
	bool quiet;          /* no progress, no per-line diagnostics summary */
	bool progress;       /* progress line on stderr (only on a terminal) */
	const char *const *grammar_dirs;
	size_t n_grammar_dirs;
	struct walk_limits limits;
	size_t max_line;     /* bytes kept per line */
	size_t block_bytes;  /* text per compressed block */
	int zstd_level;
	bool analyze;        /* run the analysis after the load */
	int jobs;            /* worker threads (0: the CPUs this process may use; 1: none) */
};
void ingest_default_opts(struct ingest_opts *o);

struct ingest_summary {
	uint64_t members, sources, bytes, lines, stored_lines, skipped_lines, truncated_lines, events;
	uint64_t events_not_kept;  /* matches of `keep N` rules beyond the last N of their stream */
	uint64_t events_copies;    /* console copies of per-rank lines, not stored twice */
	uint64_t nccl_lines_copied; /* per-rank files' NCCL lines a console copied: never matched */
	long input_errors;
	bool limit_hit;
	bool unrecognised;  /* no event, no dump, no member known as a log by its name: nothing read */
	bool input_cut;     /* some input could not be read: a damaged or cut container, a read error, a limit */
};

/* A record that becomes one row of `events`. */
struct event_rec {
	long line_no;
	const char *kind;
	const char *class_name;
	const char *host;     /* may be NULL; not necessarily NUL-terminated */
	size_t host_len;
	int rank, local_rank; /* -1 when unknown */
	long pid, tid;        /* -1 when unknown */
	int dev;              /* -1 */
	char level;           /* 0 when none */
	bool has_time;
	int64_t t_us;
	enum clock_kind clock;
	const char *fields_json;
	int family;           /* the line's FAM_*, -1 for records that are not lines */
	long nccl_line;       /* FAM_NCCL: the how-manieth NCCL line of its member; else 0 */
	uint64_t dedupe;      /* stored once per value (fr_config_first); 0: always */
	bool dup;             /* dedupe's value was stored by an earlier member: dropped */
};

/* Returns an exit code (NF_EXIT_*) and fills sum. */
int ingest_run(const struct ingest_opts *o, struct ingest_summary *sum);

#endif
