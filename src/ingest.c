/* ingest.c: the ingest pipeline; see ingest.h. One member at a time:
 * classify it, then stream its lines through the prefix parser and the
 * grammar into events and compressed line blocks. Memory stays bounded by
 * one block per source being read, whatever the input size. */
#include "ingest.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "attribution.h"
#include "case_db.h"
#include "case_schema.h"
#include "commands.h"
#include "flight_recorder.h"
#include "grammar.h"
#include "line_prefix.h"
#include "line_split.h"
#include "line_store.h"
#include "member_classify.h"
#include "progress.h"
#include "util.h"

void ingest_default_opts(struct ingest_opts *o)
{
	memset(o, 0, sizeof(*o));
	walk_default_limits(&o->limits);
	o->max_line = 64 << 10;
	o->block_bytes = 256 << 10;
	o->zstd_level = 1;
	o->analyze = true;
}

struct ingest {
	const struct ingest_opts *o;
	struct grammar *g;
	struct case_writer w;
	struct walk_limits limits;
	struct walk_stats stats;
	struct ingest_summary *sum;
	int64_t next_source_id;
	int job_year;
	struct buf zbuf;
	struct buf json;
	struct progress prog;
	const struct walk_sink *sink;
};

struct member_ctx {
	struct ingest *in;
	int64_t source_id;
	const char *path;
	struct member_class mc;
	int year_hint;
	int64_t boot_us;
	bool have_prev_t;
	int64_t prev_t;
	struct block_builder bb;
	int block_no;
	long lines, events;
	bool any_t;
	int64_t first_t, last_t;
	/* what the content says about who wrote this member */
	int rank_hint;
	bool rank_conflict;
	long pid_hint;
	bool pid_conflict;
	char host_hint[64];
	bool host_conflict;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int year_of(int64_t epoch_s)
{
	time_t t = (time_t)epoch_s;
	struct tm tm;
	if (!gmtime_r(&t, &tm))
		return 0;
	return tm.tm_year + 1900;
}

/* ---- events ---- */

static void write_event(struct member_ctx *m, const struct event_rec *e)
{
	struct case_writer *w = &m->in->w;
	sqlite3_stmt *st = w->ins_event;
	sqlite3_bind_int64(st, 1, m->source_id);
	sqlite3_bind_int64(st, 2, e->line_no);
	sqlite3_bind_text(st, 3, e->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, e->class_name, -1, SQLITE_STATIC);
	if (e->host && e->host_len)
		sqlite3_bind_text(st, 5, e->host, (int)e->host_len, SQLITE_TRANSIENT);
	db_bind_int_or_null(st, 6, e->rank, e->rank >= 0);
	db_bind_int_or_null(st, 7, e->local_rank, e->local_rank >= 0);
	db_bind_int_or_null(st, 8, e->pid, e->pid >= 0);
	db_bind_int_or_null(st, 9, e->tid, e->tid >= 0);
	db_bind_int_or_null(st, 10, e->dev, e->dev >= 0);
	if (e->level)
		sqlite3_bind_text(st, 11, &e->level, 1, SQLITE_TRANSIENT);
	db_bind_int_or_null(st, 12, e->t_us, e->has_time);
	if (e->has_time)
		sqlite3_bind_text(st, 13, clock_name(e->clock), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 14, e->fields_json ? e->fields_json : "{}", -1, SQLITE_STATIC);
	db_step_done(st);
	m->events++;
	m->in->sum->events++;
}

static void emit_event_cb(void *ctx, const struct event_rec *e)
{
	write_event(ctx, e);
}

/* A captured value is written as a JSON number when it is a plain decimal
 * integer (no leading zero, fits in 64 bits), else as a string. */
static bool is_json_int(const char *s, size_t n)
{
	size_t i = 0;
	if (n && s[0] == '-')
		i = 1;
	if (i >= n || n - i > 18)
		return false;
	if (s[i] == '0' && n - i > 1)
		return false;
	for (; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static void fields_json(struct buf *b, const struct grammar_match *gm)
{
	buf_clear(b);
	buf_putc(b, '{');
	for (int i = 0; i < gm->nfields; i++) {
		const struct match_field *f = &gm->fields[i];
		if (i)
			buf_putc(b, ',');
		buf_json_str(b, f->name, strlen(f->name));
		buf_putc(b, ':');
		if (is_json_int(f->value, f->len))
			buf_append(b, f->value, f->len);
		else
			buf_json_str(b, f->value, f->len);
	}
	buf_putc(b, '}');
}

/* ---- line blocks ---- */

static void flush_block(struct member_ctx *m)
{
	if (block_empty(&m->bb))
		return;
	struct ingest *in = m->in;
	struct block_info info;
	block_seal(&m->bb, in->o->zstd_level, &in->zbuf, &info);
	sqlite3_stmt *st = in->w.ins_block;
	sqlite3_bind_int64(st, 1, m->source_id);
	sqlite3_bind_int(st, 2, m->block_no++);
	sqlite3_bind_int64(st, 3, info.first_line);
	sqlite3_bind_int64(st, 4, info.n_lines);
	db_bind_int_or_null(st, 5, info.min_t, info.has_time);
	db_bind_int_or_null(st, 6, info.max_t, info.has_time);
	sqlite3_bind_int64(st, 7, (int64_t)info.raw_bytes);
	sqlite3_bind_blob(st, 8, in->zbuf.data, (int)in->zbuf.len, SQLITE_STATIC);
	db_step_done(st);
}

/* ---- the per-line path ---- */

static void note_hints(struct member_ctx *m, const struct line_parts *lp)
{
	if (lp->rank >= 0) {
		if (m->rank_hint < 0)
			m->rank_hint = lp->rank;
		else if (m->rank_hint != lp->rank)
			m->rank_conflict = true;
	}
	if (lp->family == FAM_NCCL) {
		if (m->pid_hint < 0)
			m->pid_hint = lp->pid;
		else if (m->pid_hint != lp->pid)
			m->pid_conflict = true;
		if (!m->host_hint[0] && lp->host_len < sizeof(m->host_hint)) {
			memcpy(m->host_hint, lp->host, lp->host_len);
			m->host_hint[lp->host_len] = '\0';
		} else if (m->host_hint[0] && (strlen(m->host_hint) != lp->host_len ||
					       memcmp(m->host_hint, lp->host, lp->host_len) != 0)) {
			m->host_conflict = true;
		}
	}
}

/* The absolute time of a line, if any. */
static bool line_time(struct member_ctx *m, const struct line_parts *lp, int64_t *t)
{
	if (lp->clock == CLOCK_FULL) {
		if (line_parts_time(lp, 0, INT64_MIN, t)) {
			m->year_hint = lp->year > 0 ? lp->year : m->year_hint;
			if (lp->year > 0)
				m->in->job_year = lp->year;
			return true;
		}
		return false;
	}
	if (lp->clock == CLOCK_NOYEAR) {
		int y = m->year_hint ? m->year_hint : m->in->job_year;
		return y > 0 && line_parts_time(lp, y, INT64_MIN, t);
	}
	if (lp->clock == CLOCK_BOOT)
		return line_parts_time(lp, 0, m->boot_us, t);
	return false;
}

/* A kernel line that ties boot-relative time to the wall clock. */
static void learn_boot_time(struct member_ctx *m, const struct line_parts *lp, const struct grammar_match *gm)
{
	if (lp->clock != CLOCK_BOOT || strcmp(rule_name(gm->rule), "kernel_audit_epoch") != 0)
		return;
	long long epoch = -1, ms = 0;
	for (int i = 0; i < gm->nfields; i++) {
		if (strcmp(gm->fields[i].name, "epoch") == 0)
			epoch = strtoll(gm->fields[i].value, NULL, 10);
		else if (strcmp(gm->fields[i].name, "epoch_ms") == 0)
			ms = strtoll(gm->fields[i].value, NULL, 10);
	}
	if (epoch > 0 && m->boot_us == INT64_MIN)
		m->boot_us = (int64_t)epoch * 1000000 + ms * 1000 - (int64_t)(lp->boot_s * 1e6);
}

static void on_line(void *ctx, const char *line, size_t len, long line_no, bool truncated)
{
	struct member_ctx *m = ctx;
	struct ingest *in = m->in;
	struct line_parts lp;
	line_parts_parse(line, len, m->mc.srun_labels, &lp);
	note_hints(m, &lp);

	struct grammar_match gm;
	bool matched = grammar_match(in->g, &lp, &gm);
	if (matched)
		learn_boot_time(m, &lp, &gm);

	struct line_meta meta = {.rank = lp.rank, .local_rank = lp.local_rank, .pid = lp.pid,
				 .truncated = truncated, .clock = CLOCK_NONE};
	if (lp.srun_task >= 0 && meta.rank < 0)
		meta.rank = lp.srun_task;
	if (meta.rank < 0 && m->mc.path_rank >= 0 && m->mc.kind == SK_RANK_LOG)
		meta.rank = m->mc.path_rank;
	if (meta.local_rank < 0 && m->mc.path_local_rank >= 0)
		meta.local_rank = m->mc.path_local_rank;
	int64_t t;
	if (line_time(m, &lp, &t)) {
		meta.has_time = true;
		meta.t_us = t;
		meta.clock = lp.clock;
		m->have_prev_t = true;
		m->prev_t = t;
		if (!m->any_t || t < m->first_t)
			m->first_t = t;
		if (!m->any_t || t > m->last_t)
			m->last_t = t;
		m->any_t = true;
	} else if (m->have_prev_t) {
		meta.has_time = true;
		meta.t_us = m->prev_t;
		meta.clock = CLOCK_INHERITED;
	} else if (lp.clock != CLOCK_NONE) {
		meta.clock = lp.clock; /* written but not placeable (no year / boot time) */
	}

	if (matched) {
		fields_json(&in->json, &gm);
		struct event_rec e = {
			.line_no = line_no,
			.kind = rule_name(gm.rule),
			.class_name = rule_class(gm.rule),
			.host = lp.host,
			.host_len = lp.host_len,
			.rank = meta.rank,
			.local_rank = meta.local_rank,
			.pid = lp.pid,
			.tid = lp.tid,
			.dev = lp.dev,
			.level = lp.level,
			.has_time = meta.has_time,
			.t_us = meta.t_us,
			.clock = meta.clock,
			.fields_json = in->json.data,
		};
		write_event(m, &e);
	}

	block_add(&m->bb, line_no, line, len, &meta);
	if (block_full(&m->bb))
		flush_block(m);
	m->lines++;
}

/* ---- members ---- */

static int64_t new_source(struct ingest *in, const struct member_info *mi, enum source_kind kind)
{
	int64_t id = ++in->next_source_id;
	sqlite3_stmt *st = in->w.ins_source;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, mi->path, -1, SQLITE_STATIC);
	db_bind_text(st, 3, mi->container, -1);
	sqlite3_bind_text(st, 4, source_kind_name(kind), -1, SQLITE_STATIC);
	db_bind_int_or_null(st, 5, mi->mtime, mi->mtime > 0);
	db_step_done(st);
	in->sum->sources++;
	return id;
}

struct source_update {
	enum source_kind kind;
	int rank, local_rank;
	long pid;
	const char *content_host;
	uint64_t bytes;
	long lines, stored, skipped, truncated, events;
	const char *skip_reason;
	bool any_t;
	int64_t first_t, last_t;
	int year;
	const char *error;
};

static void update_source(struct ingest *in, int64_t id, const struct source_update *u)
{
	sqlite3_stmt *st = in->w.upd_source;
	sqlite3_bind_text(st, 1, source_kind_name(u->kind), -1, SQLITE_STATIC);
	db_bind_int_or_null(st, 2, u->rank, u->rank >= 0);
	db_bind_int_or_null(st, 3, u->local_rank, u->local_rank >= 0);
	db_bind_int_or_null(st, 4, u->pid, u->pid >= 0);
	db_bind_text(st, 5, u->content_host && *u->content_host ? u->content_host : NULL, -1);
	sqlite3_bind_int64(st, 6, (int64_t)u->bytes);
	sqlite3_bind_int64(st, 7, u->lines);
	sqlite3_bind_int64(st, 8, u->stored);
	sqlite3_bind_int64(st, 9, u->skipped);
	db_bind_text(st, 10, u->skip_reason, -1);
	sqlite3_bind_int64(st, 11, u->truncated);
	sqlite3_bind_int64(st, 12, u->events);
	db_bind_int_or_null(st, 13, u->first_t, u->any_t);
	db_bind_int_or_null(st, 14, u->last_t, u->any_t);
	db_bind_int_or_null(st, 15, u->year, u->year > 0);
	db_bind_text(st, 16, u->error, -1);
	sqlite3_bind_int64(st, 17, id);
	db_step_done(st);
	in->sum->lines += (uint64_t)u->lines;
	in->sum->stored_lines += (uint64_t)u->stored;
	in->sum->skipped_lines += (uint64_t)u->skipped;
	in->sum->truncated_lines += (uint64_t)u->truncated;
}

/* Counts the lines of a member we do not store (binary): '\n' bytes, plus
 * one for a last line without a line break. */
static long count_lines_rest(struct member_stream *ms, uint64_t *bytes, struct errbuf *err)
{
	static char buf[1 << 16];
	long lines = 0;
	char last = '\n';
	long r;
	while ((r = member_read(ms, buf, sizeof(buf))) > 0) {
		for (const char *p = buf, *end = buf + r; (p = memchr(p, '\n', (size_t)(end - p))); p++)
			lines++;
		last = buf[r - 1];
		*bytes += (uint64_t)r;
	}
	if (r < 0)
		errbuf_set(err, "%s", ms->err.msg);
	if (last != '\n')
		lines++;
	return lines;
}

static void report_error(void *ctx, const char *path, const char *msg)
{
	struct ingest *in = ctx;
	in->sum->input_errors++;
	diag_input(path, 0, "%s", msg);
}

static int ingest_text(struct ingest *in, const struct member_info *mi, struct member_stream *ms,
		       struct member_ctx *m)
{
	struct line_splitter sp;
	splitter_init(&sp, in->o->max_line);
	block_init(&m->bb, in->o->block_bytes);
	static char buf[1 << 16];
	long r;
	uint64_t bytes = 0;
	const char *error = NULL;
	while ((r = member_read(ms, buf, sizeof(buf))) > 0) {
		splitter_feed(&sp, buf, (size_t)r, on_line, m);
		bytes += (uint64_t)r;
		progress_update(&in->prog, (uint64_t)r, 0);
		if (interrupted)
			break;
	}
	if (r < 0) {
		error = ms->err.msg;
		in->sum->input_errors++;
		diag_input(mi->path, sp.line_no + 1, "%s (lines before it are kept)", error);
	}
	splitter_finish(&sp, on_line, m);
	flush_block(m);
	struct source_update u = {
		.kind = m->mc.kind,
		.rank = !m->rank_conflict && m->rank_hint >= 0 ? m->rank_hint
			: (m->mc.kind == SK_RANK_LOG ? m->mc.path_rank : -1),
		.local_rank = m->mc.path_local_rank,
		.pid = m->pid_conflict ? -1 : m->pid_hint,
		.content_host = m->host_conflict ? NULL : m->host_hint,
		.bytes = bytes,
		.lines = m->lines,
		.stored = m->lines,
		.truncated = sp.truncated_lines,
		.events = m->events,
		.any_t = m->any_t,
		.first_t = m->first_t,
		.last_t = m->last_t,
		.year = m->year_hint,
		.error = error,
	};
	if (sp.truncated_lines)
		u.skip_reason = "long lines truncated (--max-line)";
	update_source(in, m->source_id, &u);
	splitter_free(&sp);
	block_free(&m->bb);
	return 0;
}

static int ingest_flight_recorder(struct ingest *in, const struct member_info *mi, struct member_stream *ms,
				  struct member_ctx *m)
{
	struct errbuf err = {{0}};
	long lines = 0;
	uint64_t bytes = 0;
	int rc = fr_ingest(ms, mi->path, m->mc.path_rank, emit_event_cb, m, &lines, &bytes, &err);
	const char *error = NULL;
	if (rc < 0) {
		error = err.msg;
		in->sum->input_errors++;
		diag_input(mi->path, 0, "flight recorder: %s", err.msg);
	}
	struct source_update u = {
		.kind = SK_FLIGHT_RECORDER,
		.rank = m->mc.path_rank,
		.local_rank = -1,
		.pid = -1,
		.bytes = bytes,
		.lines = lines,
		.skipped = lines,
		.skip_reason = rc < 0 ? "binary: flight-recorder pickle refused" : "binary: flight-recorder pickle (read into events)",
		.events = m->events,
		.error = error,
	};
	update_source(in, m->source_id, &u);
	return 0;
}

static int on_member(void *ctx, const struct member_info *mi, struct member_stream *ms)
{
	struct ingest *in = ctx;
	if (interrupted)
		return -1;
	in->sum->members++;
	progress_update(&in->prog, 0, 1);
	struct member_ctx m = {.in = in, .path = mi->path, .rank_hint = -1, .pid_hint = -1, .boot_us = INT64_MIN};
	if (mi->type != MT_FILE) {
		enum source_kind k = (mi->type == MT_SYMLINK || mi->type == MT_HARDLINK) ? SK_LINK : SK_OTHER;
		int64_t id = new_source(in, mi, k);
		struct source_update u = {.kind = k, .rank = -1, .local_rank = -1, .pid = -1};
		if (k == SK_LINK) {
			char *note = xasprintf("link to %s (not followed)", mi->link_target ? mi->link_target : "?");
			u.error = note;
			update_source(in, id, &u);
			free(note);
		} else {
			update_source(in, id, &u);
		}
		return 0;
	}
	size_t n;
	const unsigned char *head = member_peek(ms, &n);
	if (member_is_container(mi->path, head, n)) {
		int64_t id = new_source(in, mi, SK_ARCHIVE);
		uint64_t before = in->stats.members;
		int rc = walk_nested(ms, mi, &in->limits, in->sink, &in->stats);
		struct source_update u = {.kind = SK_ARCHIVE, .rank = -1, .local_rank = -1, .pid = -1,
					  .bytes = ms->bytes};
		char *note = NULL;
		if (rc < 0) {
			note = xasprintf("nested archive read only in part (%llu members)",
					 (unsigned long long)(in->stats.members - before));
			u.error = note;
		}
		update_source(in, id, &u);
		free(note);
		return interrupted || in->stats.limit_hit ? -1 : 0;
	}
	member_classify(mi->path, head, n, &m.mc);
	m.source_id = new_source(in, mi, m.mc.kind);
	m.year_hint = mi->mtime > 0 ? year_of(mi->mtime) : 0;
	if (in->job_year && !m.year_hint)
		m.year_hint = in->job_year;

	switch (m.mc.kind) {
	case SK_FLIGHT_RECORDER:
		return ingest_flight_recorder(in, mi, ms, &m);
	case SK_BINARY: {
		struct errbuf err = {{0}};
		uint64_t bytes = 0;
		long lines = count_lines_rest(ms, &bytes, &err);
		struct source_update u = {.kind = SK_BINARY, .rank = -1, .local_rank = -1, .pid = -1,
					  .bytes = bytes, .lines = lines, .skipped = lines,
					  .skip_reason = "binary: not text", .error = err.msg[0] ? err.msg : NULL};
		update_source(in, m.source_id, &u);
		diag_input(mi->path, 0, "binary member, %ld line(s) not read", lines);
		return 0;
	}
	default:
		return ingest_text(in, mi, ms, &m);
	}
}

static void write_meta(struct ingest *in)
{
	char v[64];
	const char *base = strrchr(in->o->input, '/');
	db_meta_set(in->w.db, "input", base ? base + 1 : in->o->input);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)in->stats.input_bytes);
	db_meta_set(in->w.db, "input_bytes", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)in->sum->bytes);
	db_meta_set(in->w.db, "input_uncompressed_bytes", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)in->sum->members);
	db_meta_set(in->w.db, "members", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)in->sum->lines);
	db_meta_set(in->w.db, "lines", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)in->sum->skipped_lines);
	db_meta_set(in->w.db, "skipped_lines", v);
	snprintf(v, sizeof(v), "%ld", in->sum->input_errors);
	db_meta_set(in->w.db, "input_errors", v);
	snprintf(v, sizeof(v), "%ld", grammar_limit_hits(in->g));
	db_meta_set(in->w.db, "regex_limit_hits", v);
	snprintf(v, sizeof(v), "%zu", grammar_rule_count(in->g));
	db_meta_set(in->w.db, "grammar_rules", v);
	db_meta_set(in->w.db, "tool_version", NF_VERSION);
	if (in->stats.limit_hit)
		db_meta_set(in->w.db, "limit_hit", in->stats.limit_msg);
}

int ingest_run(const struct ingest_opts *o, struct ingest_summary *sum)
{
	struct ingest in = {.o = o, .sum = sum, .limits = o->limits};
	struct errbuf err;
	memset(sum, 0, sizeof(*sum));
	in.g = grammar_new();
	if (grammar_load_default(in.g, o->grammar_dirs, o->n_grammar_dirs, &err) < 0) {
		fprintf(stderr, NF_PROG ": %s\n", err.msg);
		grammar_free(in.g);
		return NF_EXIT_USAGE;
	}
	int bad = grammar_selftest(in.g, NULL, NULL);
	if (bad)
		diag_warn("warning: %d grammar sample(s) fail their self-test; run '" NF_PROG " grammar test'", bad);
	if (case_writer_open(&in.w, o->output, &err) < 0) {
		fprintf(stderr, NF_PROG ": %s\n", err.msg);
		grammar_free(in.g);
		return NF_EXIT_NOTHING;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	struct sigaction old_int, old_term;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	progress_init(&in.prog, o->progress && !o->quiet);
	struct walk_sink sink = {.member = on_member, .error = report_error, .ctx = &in};
	in.sink = &sink;
	int rc = walk_input(o->input, &in.limits, &sink, &in.stats, &err);
	progress_done(&in.prog);
	sum->bytes = in.stats.bytes;
	sum->limit_hit = in.stats.limit_hit;
	int exit_code = NF_EXIT_OK;
	if (rc < 0 && in.stats.members == 0) {
		fprintf(stderr, NF_PROG ": %s\n", err.msg[0] ? err.msg : "nothing could be read");
		exit_code = NF_EXIT_NOTHING;
	}
	if (in.stats.limit_hit) {
		fprintf(stderr, NF_PROG ": %s: %s; the members read so far are kept\n", o->input, in.stats.limit_msg);
		sum->input_errors++;
	}
	if (interrupted) {
		fprintf(stderr, NF_PROG ": interrupted; no case written\n");
		case_writer_abort(&in.w);
		exit_code = 130;
	} else if (exit_code == NF_EXIT_OK) {
		write_meta(&in);
		db_exec(in.w.db, case_schema_index_sql);
		attribution_run(in.w.db);
		if (o->analyze)
			analysis_run(in.w.db);
		if (case_writer_commit(&in.w, &err) < 0) {
			fprintf(stderr, NF_PROG ": %s\n", err.msg);
			exit_code = NF_EXIT_NOTHING;
		} else if (sum->input_errors) {
			exit_code = NF_EXIT_INPUT;
		}
	} else {
		case_writer_abort(&in.w);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	buf_free(&in.zbuf);
	buf_free(&in.json);
	grammar_free(in.g);
	return exit_code;
}
