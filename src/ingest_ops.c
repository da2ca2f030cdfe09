/* ingest_ops.c: see ingest_ops.h. */
#include "ingest_ops.h"

#include <stdlib.h>
#include <string.h>

#include "event_keys.h"
#include "flight_recorder.h"
#include "fr_table.h"
#include "ingest_jobs.h"
#include "kind_summary.h"
#include "line_dicts.h"
#include "member_classify.h"
#include "util.h"

struct op_writer {
	struct case_writer *w;
	struct line_dict_writer *dicts; /* the dictionaries' names */
	sqlite3_stmt *ins_dict;
	int64_t dict_id[DICT_SLOTS_MAX + 1]; /* by slot: the dictionary's row, once stored */
	long dropped;
	/* the last source with events dropped, and how many: its update
	 * follows its events (in the same job) and counts those stored */
	int64_t dropped_source;
	long dropped_source_n;
};

/* How many of a source's events were dropped (see sql_event). */
static long dropped_of(const struct op_writer *ow, int64_t source_id)
{
	return ow->dropped_source == source_id ? ow->dropped_source_n : 0;
}

static void put(unsigned char **w, const void *src, size_t n)
{
	if (n)
		memcpy(*w, src, n);
	*w += n;
}

uint32_t op_opt_len(const char *s)
{
	return s ? (uint32_t)strlen(s) : UINT32_MAX;
}

static size_t opt_size(uint32_t len)
{
	return len == UINT32_MAX ? 0 : len;
}

void op_put_source(struct job *j, const struct op_source *o, const char *path, const char *container)
{
	size_t n = 1 + sizeof(*o) + o->path_len + opt_size(o->container_len);
	unsigned char *w = job_room(j, n);
	*w++ = OP_SOURCE;
	put(&w, o, sizeof(*o));
	put(&w, path, o->path_len);
	put(&w, container, opt_size(o->container_len));
	job_wrote(j, n);
}

void op_put_update(struct job *j, const struct op_update *o, const char *host, const char *reason, const char *error)
{
	size_t n = 1 + sizeof(*o) + opt_size(o->host_len) + opt_size(o->reason_len) + opt_size(o->error_len);
	unsigned char *w = job_room(j, n);
	*w++ = OP_UPDATE;
	put(&w, o, sizeof(*o));
	put(&w, host, opt_size(o->host_len));
	put(&w, reason, opt_size(o->reason_len));
	put(&w, error, opt_size(o->error_len));
	job_wrote(j, n);
}


static void sql_update(struct case_writer *w, const struct op_update *o, const char *host, const char *reason,
		       const char *error)
{
	sqlite3_stmt *st = w->upd_source;
	sqlite3_bind_text(st, 1, source_kind_name((enum source_kind)o->kind), -1, SQLITE_STATIC);
	db_bind_int_or_null(st, 2, o->rank, o->rank >= 0);
	db_bind_int_or_null(st, 3, o->local_rank, o->local_rank >= 0);
	db_bind_int_or_null(st, 4, o->pid, o->pid >= 0);
	if (host && o->host_len != UINT32_MAX && o->host_len)
		sqlite3_bind_text(st, 5, host, (int)o->host_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 5);
	sqlite3_bind_int64(st, 6, (int64_t)o->bytes);
	sqlite3_bind_int64(st, 7, o->lines);
	sqlite3_bind_int64(st, 8, o->stored);
	sqlite3_bind_int64(st, 9, o->skipped);
	if (reason && o->reason_len != UINT32_MAX)
		sqlite3_bind_text(st, 10, reason, (int)o->reason_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 10);
	sqlite3_bind_int64(st, 11, o->truncated);
	sqlite3_bind_int64(st, 12, o->events);
	db_bind_int_or_null(st, 13, o->first_t, o->any_t);
	db_bind_int_or_null(st, 14, o->last_t, o->any_t);
	db_bind_int_or_null(st, 15, o->year, o->year > 0);
	if (error && o->error_len != UINT32_MAX)
		sqlite3_bind_text(st, 16, error, (int)o->error_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 16);
	sqlite3_bind_int64(st, 17, o->id);
	db_step_done(st);
}

static void sql_event(struct op_writer *ow, const struct op_event *o, const char *host, const char *fields)
{
	struct case_writer *w = ow->w;
	/* every dump repeats the job's group configuration (the default
	 * group's member list alone is as long as the job): one already
	 * stored is not stored again (here, in the load's order: the jobs
	 * that read the dumps run in any order) */
	if (o->dedupe && (o->dup || !fr_config_first(o->dedupe))) {
		if (ow->dropped_source != o->source_id) {
			ow->dropped_source = o->source_id;
			ow->dropped_source_n = 0;
		}
		ow->dropped_source_n++;
		ow->dropped++;
		return;
	}
	sqlite3_stmt *st = o->staged ? w->ins_event_staged : w->ins_event;
	sqlite3_bind_int64(st, 1, o->source_id);
	sqlite3_bind_int64(st, 2, o->line_no);
	sqlite3_bind_text(st, 3, o->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, o->class_name, -1, SQLITE_STATIC);
	if (o->host_len)
		sqlite3_bind_text(st, 5, host, (int)o->host_len, SQLITE_STATIC);
	db_bind_int_or_null(st, 6, o->rank, o->rank >= 0);
	db_bind_int_or_null(st, 7, o->local_rank, o->local_rank >= 0);
	db_bind_int_or_null(st, 8, o->pid, o->pid >= 0);
	db_bind_int_or_null(st, 9, o->tid, o->tid >= 0);
	db_bind_int_or_null(st, 10, o->dev, o->dev >= 0);
	if (o->level)
		sqlite3_bind_text(st, 11, &o->level, 1, SQLITE_TRANSIENT);
	db_bind_int_or_null(st, 12, o->t_us, o->has_time);
	if (o->has_time)
		sqlite3_bind_text(st, 13, clock_name((enum clock_kind)o->clock), -1, SQLITE_STATIC);
	/* a flight-recorder entry's values go to its typed row, the event keeps
	 * the rest (never staged: dumps are not consoles) */
	bool fr = !o->staged && strcmp(o->kind, "fr_entry") == 0;
	const char *stored = fields;
	size_t stored_len = o->fields_len;
	if (fr) {
		fr_table_residual(fields, o->fields_len, &w->fr_fields);
		stored = w->fr_fields.data;
		stored_len = w->fr_fields.len;
	}
	sqlite3_bind_text(st, 14, stored, (int)stored_len, SQLITE_STATIC);
	if (o->staged) {
		sqlite3_bind_int(st, 15, o->staged);
		sqlite3_bind_int64(st, 16, o->nccl_line);
	}
	db_step_done(st);
	kind_summary_add(w->kinds, o->kind, o->class_name, stored, stored_len);
	if (!o->staged)
		event_keys_add(w->keys, sqlite3_last_insert_rowid(w->db), o->source_id, host, o->host_len, o->pid, o->rank,
			       o->local_rank, event_keys_nccl_kind(o->kind));
	if (fr)
		fr_table_insert(w->ins_fr_entry, sqlite3_last_insert_rowid(w->db), o->rank, fields, o->fields_len);
}

void op_event_from(struct op_event *o, int64_t source_id, const struct event_rec *e, const char *fields)
{
	*o = (struct op_event){
		.source_id = source_id,
		.line_no = e->line_no,
		.t_us = e->t_us,
		.pid = e->pid,
		.tid = e->tid,
		.kind = e->kind,
		.class_name = e->class_name,
		.rank = e->rank,
		.local_rank = e->local_rank,
		.dev = e->dev,
		.host_len = e->host ? (uint32_t)e->host_len : 0,
		.fields_len = (uint32_t)strlen(fields),
		.level = e->level,
		.has_time = e->has_time,
		.clock = (uint8_t)e->clock,
		.nccl_line = e->nccl_line,
		.dedupe = e->dedupe,
		.dup = e->dup,
	};
}

/* Writer: one operation at r; returns the byte after it. */
static const unsigned char *run_op(struct op_writer *ow, const unsigned char *r)
{
	struct case_writer *w = ow->w;
	int code = *r++;
	switch (code) {
	case OP_SOURCE: {
		struct op_source o;
		memcpy(&o, r, sizeof(o));
		r += sizeof(o);
		sqlite3_stmt *st = w->ins_source;
		sqlite3_bind_int64(st, 1, o.id);
		const char *path = (const char *)r;
		sqlite3_bind_text(st, 2, path, (int)o.path_len, SQLITE_STATIC);
		r += o.path_len;
		db_bind_text(st, 3, o.container_len == UINT32_MAX ? NULL : (const char *)r,
			     o.container_len == UINT32_MAX ? -1 : (int)o.container_len);
		r += opt_size(o.container_len);
		sqlite3_bind_text(st, 4, source_kind_name((enum source_kind)o.kind), -1, SQLITE_STATIC);
		db_bind_int_or_null(st, 5, o.mtime, o.mtime > 0);
		db_step_done(st);
		return r;
	}
	case OP_UPDATE: {
		struct op_update o;
		memcpy(&o, r, sizeof(o));
		r += sizeof(o);
		const char *host = (const char *)r;
		r += opt_size(o.host_len);
		const char *reason = (const char *)r;
		r += opt_size(o.reason_len);
		const char *error = (const char *)r;
		r += opt_size(o.error_len);
		o.events -= dropped_of(ow, o.id);
		sql_update(w, &o, host, reason, error);
		return r;
	}
	case OP_CONSOLE_NCCL:
	case OP_RANK_NCCL: {
		struct op_console_nccl o;
		memcpy(&o, r, sizeof(o));
		sqlite3_stmt *st = code == OP_RANK_NCCL ? w->ins_rank_nccl : w->ins_console_nccl;
		sqlite3_bind_int64(st, 1, o.source_id);
		sqlite3_bind_int(st, 2, o.local_rank);
		sqlite3_bind_int64(st, 3, o.lines);
		db_step_done(st);
		return r + sizeof(o);
	}
	case OP_EVENT: {
		struct op_event o;
		memcpy(&o, r, sizeof(o));
		r += sizeof(o);
		const char *host = (const char *)r;
		r += o.host_len;
		sql_event(ow, &o, host, (const char *)r);
		return r + o.fields_len;
	}
	case OP_BLOCK: {
		struct op_block o;
		memcpy(&o, r, sizeof(o));
		r += sizeof(o);
		if (o.made_slot > 0 && o.made_slot <= DICT_SLOTS_MAX)
			ow->dict_id[o.made_slot] = line_dict_store(ow->ins_dict, line_dict_writer_name(ow->dicts, o.made_slot),
								    r, (size_t)o.dict_len);
		r += o.dict_len;
		int64_t dict_id = o.dict_slot > 0 && o.dict_slot <= DICT_SLOTS_MAX ? ow->dict_id[o.dict_slot] : 0;
		sqlite3_stmt *st = w->ins_block;
		sqlite3_bind_int64(st, 1, o.source_id);
		sqlite3_bind_int(st, 2, o.block_no);
		sqlite3_bind_int64(st, 3, o.info.first_line);
		sqlite3_bind_int64(st, 4, o.info.n_lines);
		db_bind_int_or_null(st, 5, o.info.min_t, o.info.has_time);
		db_bind_int_or_null(st, 6, o.info.max_t, o.info.has_time);
		sqlite3_bind_int64(st, 7, (int64_t)o.info.raw_bytes);
		db_bind_int_or_null(st, 8, dict_id, dict_id > 0);
		sqlite3_bind_blob(st, 9, r, (int)o.z_len, SQLITE_STATIC);
		db_step_done(st);
		return r + o.z_len;
	}
	}
	die("ingest: bad operation %d in the writer queue", code);
}


void op_put_event(struct job *j, const struct op_event *o, const char *host, const char *fields)
{
	size_t n = 1 + sizeof(*o) + o->host_len + o->fields_len;
	unsigned char *w = job_room(j, n);
	*w++ = OP_EVENT;
	put(&w, o, sizeof(*o));
	put(&w, host, o->host_len);
	put(&w, fields, o->fields_len);
	job_wrote(j, n);
}

void op_put_nccl_count(struct job *j, enum op_code code, const struct op_console_nccl *o)
{
	unsigned char *w = job_room(j, 1 + sizeof(*o));
	*w++ = (unsigned char)code;
	put(&w, o, sizeof(*o));
	job_wrote(j, 1 + sizeof(*o));
}

void op_put_block(struct job *j, int64_t source_id, int block_no, struct block_builder *bb,
		  struct line_dict_writer *dicts, struct op_scratch *sc)
{
	struct op_block o = {.source_id = source_id, .block_no = block_no};
	buf_clear(&sc->payload);
	block_take(bb, &sc->payload, &o.info);
	if (!sc->zctx)
		sc->zctx = block_zctx_new();
	int made_slot;
	size_t made_len;
	o.dict_slot = line_dict_writer_compress(dicts, source_id, block_no == 0, sc->payload.data, sc->payload.len,
						sc->zctx, &sc->z, &made_slot, &made_len);
	o.made_slot = made_slot;
	o.dict_len = made_len;
	o.z_len = sc->z.len;
	size_t n = 1 + sizeof(o) + made_len + sc->z.len;
	unsigned char *w = job_room(j, n);
	*w++ = OP_BLOCK;
	put(&w, &o, sizeof(o));
	put(&w, sc->payload.data, made_len);
	put(&w, sc->z.data, sc->z.len);
	job_wrote(j, n);
}

void op_scratch_free(struct op_scratch *sc)
{
	buf_free(&sc->payload);
	buf_free(&sc->z);
	block_zctx_free(sc->zctx);
	sc->zctx = NULL;
}

void op_writer_run(struct op_writer *ow, const unsigned char *data, size_t len)
{
	const unsigned char *r = data, *end = data + len;
	while (r < end)
		r = run_op(ow, r);
}

void op_writer_event(struct op_writer *ow, const struct op_event *o, const char *host, const char *fields)
{
	sql_event(ow, o, host, fields);
}

long op_writer_dropped(const struct op_writer *ow)
{
	return ow->dropped;
}

struct op_writer *op_writer_new(struct case_writer *w, struct line_dict_writer *dicts)
{
	struct op_writer *ow = xcalloc(1, sizeof(*ow));
	ow->w = w;
	ow->dicts = dicts;
	ow->ins_dict = db_prepare(w->db, "INSERT INTO line_dicts(name, data) VALUES(?, ?)");
	return ow;
}

void op_writer_free(struct op_writer *ow)
{
	if (!ow)
		return;
	sqlite3_finalize(ow->ins_dict);
	free(ow);
}
