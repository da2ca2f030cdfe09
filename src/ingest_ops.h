/* ingest_ops.h: the load's operations. A job of the load (ingest_jobs.h)
 * does not touch SQLite: it writes what the case gets (a source's row, its
 * update once read, an event, a line block, a console's NCCL line counts)
 * as operations, byte strings in the job's output; the writer thread runs
 * them into the case in the jobs' order (op_writer_run), so sources, events
 * and blocks get the row ids, and the case the bytes, of a serial load. */
#ifndef NF_INGEST_OPS_H
#define NF_INGEST_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case_db.h"
#include "ingest.h"
#include "line_store.h"

struct job;

enum op_code { OP_SOURCE = 1, OP_UPDATE, OP_EVENT, OP_BLOCK, OP_CONSOLE_NCCL, OP_RANK_NCCL };

/* Fixed parts of the operations (copied in and out with memcpy). */
struct op_source {
	int64_t id, mtime;
	int32_t kind;
	uint32_t path_len, container_len; /* container_len UINT32_MAX: NULL */
};

struct op_update {
	int64_t id;
	int32_t kind, rank, local_rank;
	int64_t pid;
	uint64_t bytes;
	int64_t lines, stored, skipped, truncated, events;
	uint8_t any_t;
	int64_t first_t, last_t;
	int32_t year;
	uint32_t host_len, reason_len, error_len; /* UINT32_MAX: NULL */
};

struct op_event {
	int64_t source_id, line_no, t_us, pid, tid;
	const char *kind, *class_name; /* the grammar's strings: they outlive the load */
	int32_t rank, local_rank, dev;
	uint32_t host_len, fields_len;
	char level;
	uint8_t has_time, clock;
	uint8_t staged; /* 1: a console's line, 2: a per-rank file's NCCL line: kept or not after the load */
	int64_t nccl_line; /* staged 2: the how-manieth NCCL line of its file */
	uint64_t dedupe;   /* event_rec's dedupe and dup */
	uint8_t dup;
};

/* A console's count of the NCCL lines it copied for one local rank; with
 * OP_RANK_NCCL, a per-rank file's count of its NCCL lines (not matched
 * during the load: see replay_rank_nccl) and local_rank its srun labels. */
struct op_console_nccl {
	int64_t source_id, lines;
	int32_t local_rank;
};

struct op_block {
	int64_t source_id;
	int32_t block_no;
	struct block_info info;
	int32_t dict_slot;  /* the dictionary it is compressed with (line_dicts.h; 0: none) */
	int32_t made_slot;  /* > 0: it made that dictionary; its dict_len bytes come first */
	uint64_t dict_len, z_len;
};

/* A thread's buffers for making blocks. */
struct op_scratch {
	struct buf payload, z;
	void *zctx;
};
void op_scratch_free(struct op_scratch *sc);

/* UINT32_MAX for NULL, else strlen */
uint32_t op_opt_len(const char *s);

void op_put_source(struct job *j, const struct op_source *o, const char *path, const char *container);
void op_put_update(struct job *j, const struct op_update *o, const char *host, const char *reason, const char *error);
void op_put_event(struct job *j, const struct op_event *o, const char *host, const char *fields);
void op_put_nccl_count(struct job *j, enum op_code code, const struct op_console_nccl *o);
/* The block being built in bb, compressed here (with its name's dictionary). */
struct line_dict_writer;
void op_put_block(struct job *j, int64_t source_id, int block_no, struct block_builder *bb,
		  struct line_dict_writer *dicts, struct op_scratch *sc);
void op_event_from(struct op_event *o, int64_t source_id, const struct event_rec *e, const char *fields);

/* The writer's side: runs operations into w. */
struct op_writer;
struct op_writer *op_writer_new(struct case_writer *w, struct line_dict_writer *dicts);
void op_writer_run(struct op_writer *ow, const unsigned char *data, size_t len);
/* One event into the case now (the matching after the load). */
void op_writer_event(struct op_writer *ow, const struct op_event *o, const char *host, const char *fields);
/* Events the writer did not store: a process group's configuration that an
 * earlier dump already gave (every dump repeats it). */
long op_writer_dropped(const struct op_writer *ow);
void op_writer_free(struct op_writer *ow);

#endif
