/* ingest.c: the ingest pipeline; see ingest.h. One member at a time:
 * classify it, then stream its lines through the prefix parser and the
 * grammar into events and compressed line blocks. Memory stays bounded by
 * one block per source being read, whatever the input size. */
#include "ingest.h"

#include <malloc.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "attribution.h"
#include "case_db.h"
#include "case_schema.h"
#include "fr_table.h"
#include "event_keys.h"
#include "kind_summary.h"
#include "line_dicts.h"
#include "commands.h"
#include "flight_recorder.h"
#include "grammar.h"
#include "ingest_jobs.h"
#include "ingest_ops.h"
#include "line_glue.h"
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
	o->block_bytes = 1 << 20;
	o->zstd_level = 1;
	o->analyze = true;
}

/* What a thread that works on members has of its own. */
struct thread_state {
	struct grammar_matcher *matcher;
	struct buf json;          /* an event's fields */
	struct op_scratch scratch; /* its blocks */
};

/* A member put aside until the load's end (its times lack a year and it
 * has no modification time: the bundle's year is known then), spooled to
 * a temporary file. */
struct deferred {
	struct deferred *next;
	struct member_job *mj;
};

struct ingest {
	const struct ingest_opts *o;
	struct grammar *g;
	struct grammar_matcher *matcher; /* the walk thread's (grammar.h) */
	struct case_writer w;
	struct jobs *jobs;
	struct op_writer *ow;
	struct line_dict_writer *dicts;
	int nworkers;
	struct thread_state *ts;           /* [0]: the walk thread's; [1..nworkers]: each worker's */
	struct walk_limits limits;
	struct walk_stats stats;
	struct ingest_summary *sum;        /* the walk thread's counts */
	struct ingest_summary written;     /* the jobs' counts, added by the writer as they retire */
	int year_max;                      /* the latest year a dated line gave (the writer's) */
	int64_t next_source_id;
	struct progress prog;
	const struct walk_sink *sink;
	struct deferred *deferred, **deferred_tail;
};

struct member_ctx {
	struct ingest *in;
	struct job *job;      /* where its operations go */
	struct grammar_matcher *matcher; /* the working thread's */
	struct buf *json;     /* scratch for an event's fields: the working thread's */
	struct op_scratch *scratch; /* the working thread's */
	struct ingest_summary *sum; /* its counts (the job's) */
	bool on_walk;         /* worked on by the walk thread: it shows progress */
	int year_max;         /* the latest year its dated lines gave */
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
	long first_truncated; /* line number of the first line cut at --max-line, 0 if none */
	int srun_seen;        /* lines with an srun task label so far (counted up to 2) */
	bool any_t;
	int64_t first_t, last_t;
	/* what the content says about who wrote this member */
	int rank_hint;
	bool rank_conflict;
	long pid_hint;
	bool pid_conflict;
	char host_hint[64];
	bool host_conflict;
	/* events of rules with `keep N`: the last N matches of each stream */
	struct tail *tails;
	size_t ntails, tails_cap;
	long events_not_kept;
	/* NCCL lines so far; for a console, per local rank (what it copied of
	 * each rank's file: see merge_console_events) */
	long nccl_lines;
	long *nccl_by_local;
	size_t nccl_by_local_n;
	/* matching a per-rank file's NCCL lines after the load (see
	 * replay_rank_nccl): events go straight to the case */
	bool replay;
	/* pieces of another stream glued before NCCL lines (line_glue.h) */
	struct line_glue glue;
	/* what take_line did with the last line: an event, a line without any header */
	bool took_event, took_plain;
	enum line_family took_family;
	size_t took_body; /* where the line's body began, after its wrappers */
	/* the pieces of a line a paste cut at a fixed width (take_wrapped) */
	char wrap[4096];
	size_t wrap_len;
	int wrap_pieces;
};

/* One stream of a `keep N` rule: a ring of its last N matches. A match
 * keeps its message and where its captures are in it; its fields become
 * JSON only if it is still among the last N when the member ends (most of
 * these lines, NCCL's COLL lines, are dropped: building JSON for each cost
 * more than the copy). The slots' buffers are reused. */
struct kept {
	struct event_rec e; /* host and fields_json are set when it is written */
	struct buf msg, host;
	int nfields;
	const char *name[GRAMMAR_MAX_FIELDS];
	uint32_t off[GRAMMAR_MAX_FIELDS], len[GRAMMAR_MAX_FIELDS];
	long n; /* its ordinal in the stream: field "n" */
};
struct tail {
	const struct rule *rule;
	long pid;
	int rank;       /* the line's own rank (a task label, a [rankN]: prefix), -1 none */
	char key[64];
	long count;     /* matches so far: the ordinal of the next one minus one */
	int cap, head, n;
	struct kept *slots;
};

/* set by SIGINT/SIGTERM (util.h: nf_interrupted, which SQLite's progress
 * handler also reads, so that a long statement stops too) */
#define interrupted nf_interrupted

/* NF_TIMINGS=1 in the environment: the time of each phase on stderr (for
 * bench/run.sh and profiling; not part of the interface). */
static double phase_t0 = -1, phase_c0;

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The process's peak resident set so far, in KiB (0 if unknown). */
static long peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kib;
}

static void phase_done(const char *name)
{
	if (phase_t0 < 0)
		return;
	double t = clock_s(CLOCK_MONOTONIC), c = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	fprintf(stderr, "timing: %-12s %7.3f s wall %7.3f s cpu %6ld MiB peak\n", name, t - phase_t0, c - phase_c0,
		peak_rss_kib() / 1024);
	phase_t0 = t;
	phase_c0 = c;
}

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

/* ---- jobs ----
 *
 * The load's threads (ingest_jobs.h): this file's walk thread reads the
 * input and cuts it into jobs, one per member; a member's bytes are
 * buffered and worked on (split, prefixes, glue, grammar, tails) by a
 * worker, or by the walk thread itself when it is too large to buffer;
 * what each job makes goes to the writer as operations (ingest_ops.h). */

/* A member larger than this is worked on by the walk thread as it reads it. */
#define JOB_BUFFER_MAX (8u << 20)

struct member_job {
	struct ingest *in;
	struct member_ctx m;
	struct member_info mi;   /* its path and container: copies */
	char *path, *container;
	unsigned char *data;     /* the member's bytes (a worker's job) */
	size_t len;
	FILE *spool;             /* or there (deferred) */
	char *read_error;        /* the read that ended the member failed: why */
	struct member_stream *ms; /* or read from the walk (a large member) */
	struct ingest_summary sum;
};

static void write_event(struct member_ctx *m, const struct event_rec *e)
{
	const char *fields = e->fields_json ? e->fields_json : "{}";
	struct op_event o;
	op_event_from(&o, m->source_id, e, fields);
	/* copies: a console repeats the per-rank files. Of NCCL lines the
	 * console's copy is kept (per-rank stdout has no times, the console's
	 * neighbours give them one), and the file's lines the console never got;
	 * of the others, the per-rank file's. Both kinds of candidates wait in
	 * events_staged (see merge_console_events). */
	bool nccl = e->family == FAM_NCCL;
	o.staged = (m->mc.kind == SK_CONSOLE && !nccl) ? 1 : (m->mc.kind == SK_RANK_LOG && nccl) ? 2 : 0;
	m->events++;
	m->sum->events++;
	if (m->replay) {
		op_writer_event(m->in->ow, &o, e->host, fields);
		return;
	}
	op_put_event(m->job, &o, e->host, fields);
}

/* ---- `keep N` rules: only the last N matches of a stream become events ---- */

static struct tail *tail_for(struct member_ctx *m, const struct rule *r, long pid, int rank, const char *key,
			     size_t klen)
{
	if (klen >= sizeof(m->tails[0].key))
		klen = sizeof(m->tails[0].key) - 1;
	for (size_t i = 0; i < m->ntails; i++) {
		struct tail *t = &m->tails[i];
		if (t->rule == r && t->pid == pid && t->rank == rank && strlen(t->key) == klen && memcmp(t->key, key, klen) == 0)
			return t;
	}
	xgrow(&m->tails, &m->tails_cap, m->ntails + 1, sizeof(*m->tails));
	struct tail *t = &m->tails[m->ntails++];
	memset(t, 0, sizeof(*t));
	t->rule = r;
	t->pid = pid;
	t->rank = rank;
	memcpy(t->key, key, klen);
	t->key[klen] = '\0';
	t->cap = rule_keep(r, NULL);
	t->slots = xcalloc((size_t)t->cap, sizeof(*t->slots));
	return t;
}

static void fields_json(struct buf *b, const struct grammar_match *gm);

/* Keeps match gm of message msg (event e without its fields), with its
 * ordinal in the stream. */
static void tail_push(struct member_ctx *m, struct tail *t, const struct event_rec *e,
		      const struct grammar_match *gm, const char *msg, size_t msg_len)
{
	struct kept *k;
	if (t->n < t->cap) {
		k = &t->slots[(t->head + t->n) % t->cap];
		t->n++;
	} else {
		k = &t->slots[t->head];
		t->head = (t->head + 1) % t->cap;
		m->events_not_kept++;
	}
	k->n = ++t->count;
	k->e = *e;
	buf_clear(&k->msg);
	buf_append(&k->msg, msg, msg_len);
	buf_clear(&k->host);
	if (e->host && e->host_len)
		buf_append(&k->host, e->host, e->host_len);
	k->nfields = gm->nfields;
	for (int i = 0; i < gm->nfields; i++) {
		k->name[i] = gm->fields[i].name;
		k->off[i] = (uint32_t)(gm->fields[i].value - msg); /* captures lie in the message */
		k->len[i] = (uint32_t)gm->fields[i].len;
	}
}

static void tails_flush(struct member_ctx *m)
{
	struct buf *json = m->json;
	for (size_t i = 0; i < m->ntails; i++) {
		struct tail *t = &m->tails[i];
		for (int j = 0; j < t->n; j++) {
			struct kept *k = &t->slots[(t->head + j) % t->cap];
			struct grammar_match gm = {.nfields = k->nfields};
			for (int f = 0; f < k->nfields; f++)
				gm.fields[f] = (struct match_field){k->name[f], k->msg.data + k->off[f], k->len[f]};
			fields_json(json, &gm);
			json->len--; /* the closing brace: the ordinal follows */
			buf_puts(json, k->nfields ? ",\"n\":" : "\"n\":");
			buf_int(json, k->n);
			buf_putc(json, '}');
			k->e.fields_json = json->data;
			k->e.host = k->host.len ? k->host.data : NULL;
			k->e.host_len = k->host.len;
			write_event(m, &k->e);
		}
		for (int j = 0; j < t->cap; j++) {
			buf_free(&t->slots[j].msg);
			buf_free(&t->slots[j].host);
		}
		free(t->slots);
	}
	free(m->tails);
	m->tails = NULL;
	m->ntails = m->tails_cap = 0;
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

/* buf_json_str() with a fast path: printable ASCII without a quote or a
 * backslash (nearly every captured value) is copied as it is, which is what
 * buf_json_str() writes for it. */
static void json_str(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
			buf_json_str(b, s, n);
			return;
		}
	}
	buf_reserve(b, n + 2);
	char *w = b->data + b->len;
	*w++ = '"';
	memcpy(w, s, n);
	w[n] = '"';
	b->len += n + 2;
	b->data[b->len] = '\0';
}

static void fields_json(struct buf *b, const struct grammar_match *gm)
{
	buf_clear(b);
	buf_putc(b, '{');
	for (int i = 0; i < gm->nfields; i++) {
		const struct match_field *f = &gm->fields[i];
		if (i)
			buf_putc(b, ',');
		json_str(b, f->name, strlen(f->name));
		buf_putc(b, ':');
		if (is_json_int(f->value, f->len))
			buf_append(b, f->value, f->len);
		else
			json_str(b, f->value, f->len);
	}
	buf_putc(b, '}');
}

/* ---- line blocks ---- */

static void flush_block(struct member_ctx *m)
{
	if (block_empty(&m->bb))
		return;
	op_put_block(m->job, m->source_id, m->block_no++, &m->bb, m->in->dicts, m->scratch);
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
			if (lp->year > m->year_max)
				m->year_max = lp->year;
			return true;
		}
		return false;
	}
	if (lp->clock == CLOCK_NOYEAR) {
		return m->year_hint > 0 && line_parts_time(lp, m->year_hint, INT64_MIN, t);
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
	/* the captures are unbounded digit runs: out of range is no clock at all */
	if (epoch > 0 && epoch < 100000000000LL && ms >= 0 && ms < 1000 && m->boot_us == INT64_MIN)
		m->boot_us = (int64_t)epoch * 1000000 + ms * 1000 - (int64_t)(lp->boot_s * 1e6);
}

/* grammar_match() of a line, with a diagnostic when a regex gave up. */
static bool match_line(struct member_ctx *m, const struct line_parts *lp, long line_no, struct grammar_match *gm)
{
	struct ingest *in = m->in;
	bool matched = grammar_match(m->matcher, lp, gm);
	bool rule_disabled;
	const struct rule *gave_up = grammar_take_limit_hit(m->matcher, &rule_disabled);
	if (gave_up) {
		m->sum->input_errors++;
		diag_input(m->path, line_no, "rule %s (%s:%d): regex gave up at the PCRE2 match/depth limit; "
			   "line kept%s%s", rule_name(gave_up), rule_file(gave_up), rule_line(gave_up),
			   rule_disabled ? "; rule disabled" : "", rule_disabled ? grammar_disabled_for(in->g, gave_up) : "");
	}
	const struct rule *costly = grammar_take_costly(m->matcher);
	if (costly) {
		m->sum->input_errors++;
		diag_input(m->path, line_no, "rule %s (%s:%d): its regex needed more than %u match steps on %d lines; "
			   "rule disabled%s (lines kept)", rule_name(costly), rule_file(costly),
			   rule_line(costly), grammar_costly_steps(in->g), GRAMMAR_COSTLY_AFTER,
			   grammar_disabled_for(in->g, costly));
	}
	return matched;
}

/* The event of a matched line (or its place in a `keep N` tail). */
static void emit_match(struct member_ctx *m, const struct line_parts *lp, const struct grammar_match *gm, long line_no,
		       const struct line_meta *meta)
{
	struct event_rec e = {
		.line_no = line_no,
		.kind = rule_event_kind(gm->rule),
		.class_name = rule_class(gm->rule),
		.host = lp->host,
		.host_len = lp->host_len,
		.rank = meta->rank,
		.local_rank = meta->local_rank,
		.pid = lp->pid,
		.tid = lp->tid,
		.dev = lp->dev,
		.level = lp->level,
		.has_time = meta->has_time,
		.t_us = meta->t_us,
		.clock = meta->clock,
		.family = lp->family,
		.nccl_line = lp->family == FAM_NCCL ? m->nccl_lines : 0,
	};
	const char *per;
	if (rule_keep(gm->rule, &per) > 0) {
		const char *key = "";
		size_t klen = 0;
		/* a stream is one process: its pid, its rank (the line's label or
		 * prefix, else the rank its message names) */
		int rank = meta->rank;
		for (int i = 0; i < gm->nfields; i++) {
			if (per && strcmp(gm->fields[i].name, per) == 0) {
				key = gm->fields[i].value;
				klen = gm->fields[i].len;
			}
			const char *v = gm->fields[i].value;
			long r;
			if (rank < 0 && strcmp(gm->fields[i].name, "rank") == 0 &&
			    parse_long(&v, v + gm->fields[i].len, &r) && r >= 0 && r <= INT_MAX)
				rank = (int)r;
		}
		tail_push(m, tail_for(m, gm->rule, lp->pid, rank, key, klen), &e, gm, lp->msg, lp->msg_len);
	} else {
		fields_json(m->json, gm);
		e.fields_json = m->json->data;
		write_event(m, &e);
	}
}

/* One logical line: its parts, its event, its time. joined: the pieces of
 * another stream glued before it (line_glue.h), taken only when they make
 * an event: false returned, nothing done. */
static bool take_line(struct member_ctx *m, const char *line, size_t len, long line_no, bool truncated, bool joined,
		      struct line_meta *meta_out)
{
	struct line_parts lp;
	/* srun's task labels ("  12: ") are taken off every line: a job's
	 * output often starts with the batch script's own lines and only later
	 * has srun -l's; a label names the line's task (its rank) once the
	 * member has shown two such lines, or its first line had one */
	line_parts_parse(line, len, true, &lp);
	struct grammar_match gm;
	bool matched = false;
	if (joined) {
		if (!match_line(m, &lp, line_no, &gm))
			return false;
		matched = true;
	}
	if (lp.pid < 0 && lp.wrapper_pid >= 0)
		lp.pid = lp.wrapper_pid;
	if (!lp.host_len && lp.wrapper_host_len) {
		lp.host = lp.wrapper_host;
		lp.host_len = lp.wrapper_host_len;
	}
	line_parts_wrapper_time(&lp);
	if (lp.family == FAM_NCCL && m->mc.kind != SK_RANK_LOG) {
		/* a host cut by another stream's line is the host of its pid:tid
		 * (a per-rank file's NCCL lines are matched after the load) */
		size_t hl = lp.host_len;
		const char *h = glue_note_host(&m->glue, lp.host, &hl, lp.pid, lp.tid);
		if (h) {
			lp.host = h;
			lp.host_len = hl;
		}
	}
	if (lp.srun_task >= 0 && m->srun_seen < 2)
		m->srun_seen++;
	if (lp.srun_task >= 0 && !m->mc.srun_labels && m->srun_seen < 2)
		lp.srun_task = -1;
	note_hints(m, &lp);

	if (lp.family == FAM_NCCL) {
		m->nccl_lines++;
		if (m->mc.kind == SK_CONSOLE && lp.local_rank >= 0) {
			size_t lr = (size_t)lp.local_rank;
			if (lr >= m->nccl_by_local_n) {
				size_t cap = m->nccl_by_local_n;
				xgrow(&m->nccl_by_local, &cap, lr + 1, sizeof(*m->nccl_by_local));
				memset(m->nccl_by_local + m->nccl_by_local_n, 0,
				       (cap - m->nccl_by_local_n) * sizeof(*m->nccl_by_local));
				m->nccl_by_local_n = cap;
			}
			m->nccl_by_local[lr]++;
		}
	}

	/* a per-rank file's NCCL lines are matched after the load, and only
	 * where no console copied them (replay_rank_nccl) */
	if (!joined)
		matched = !(lp.family == FAM_NCCL && m->mc.kind == SK_RANK_LOG) && match_line(m, &lp, line_no, &gm);
	if (!matched && lp.family == FAM_PLAIN && lp.msg_len > 1 && (lp.msg[0] == ' ' || lp.msg[0] == '\t')) {
		/* a paste's indentation ("  RuntimeError: NCCL error in: ..."), kept
		 * for the rules that read it (a traceback's frames): without it */
		size_t k = 0;
		while (k < lp.msg_len && (lp.msg[k] == ' ' || lp.msg[k] == '\t'))
			k++;
		struct line_parts in;
		line_parts_parse(lp.msg + k, lp.msg_len - k, false, &in);
		if (!(in.family == FAM_NCCL && m->mc.kind == SK_RANK_LOG) && k < lp.msg_len && match_line(m, &in, line_no, &gm)) {
			if (in.rank < 0)
				in.rank = lp.rank;
			if (in.local_rank < 0)
				in.local_rank = lp.local_rank;
			in.srun_task = lp.srun_task;
			if (in.pid < 0)
				in.pid = lp.pid;
			in.wrap_time = lp.wrap_time;
			line_parts_wrapper_time(&in);
			lp = in;
			matched = true;
		}
	}
	if (matched)
		learn_boot_time(m, &lp, &gm);
	if (truncated && !m->first_truncated)
		m->first_truncated = line_no;

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

	if (matched)
		emit_match(m, &lp, &gm, line_no, &meta);
	*meta_out = meta;
	/* a per-rank file's NCCL line is the replay's (replay_rank_nccl): handled */
	m->took_event = matched || (lp.family == FAM_NCCL && m->mc.kind == SK_RANK_LOG);
	m->took_plain = lp.family == FAM_PLAIN && lp.rank < 0 && lp.local_rank < 0 && lp.srun_task < 0;
	m->took_family = lp.family;
	m->took_body = (size_t)(lp.body - line) <= len ? (size_t)(lp.body - line) : 0;
	return true;
}

/* A line a paste cut at a fixed width ("... [Rank " / "1] Watchdog caught
 * ... before timin" / "g out."): the pieces after the first have no header
 * of their own. An unmatched line of WRAP_MIN_LEN bytes or more is kept;
 * each next line without a header is tried joined to the pieces kept, up
 * to WRAP_PIECES of them; the joined text makes the event when it matches
 * a rule. The lines table keeps the physical lines. */
#define WRAP_MIN_LEN 60
#define WRAP_PIECES 3

static void wrap_keep(struct member_ctx *m, const char *line, size_t len, bool append)
{
	if (!append)
		m->wrap_len = m->wrap_pieces = 0;
	if (m->wrap_len + len >= sizeof(m->wrap) || m->wrap_pieces >= WRAP_PIECES) {
		m->wrap_len = m->wrap_pieces = 0;
		return;
	}
	memcpy(m->wrap + m->wrap_len, line, len);
	m->wrap_len += len;
	m->wrap_pieces++;
}

/* The line, or the pieces kept joined to it: true when the joined text made an event. */
static bool take_wrapped(struct member_ctx *m, const char *line, size_t len, long line_no, bool truncated,
			 struct line_meta *meta)
{
	if (!m->wrap_len || m->wrap_len + len >= sizeof(m->wrap))
		return false;
	char joined[sizeof(m->wrap)];
	memcpy(joined, m->wrap, m->wrap_len);
	memcpy(joined + m->wrap_len, line, len);
	return take_line(m, joined, m->wrap_len + len, line_no, truncated, true, meta);
}

static void on_line(void *ctx, const char *line, size_t len, long line_no, bool truncated)
{
	struct member_ctx *m = ctx;
	struct line_meta meta;
	bool had_wrap = m->wrap_len > 0;
	take_line(m, line, len, line_no, truncated, false, &meta);
	/* a line no rule took may be damage (line_glue.h): looked at only then */
	size_t glued, cut, jn;
	char joined[GLUE_FRAGMENT_MAX * 2];
	if (m->took_event) {
		m->wrap_len = m->wrap_pieces = 0;
	} else if (m->took_family == FAM_PLAIN && (glued = glue_nccl_at(&m->glue, line + m->took_body, len - m->took_body)) > 0) {
		/* a piece of the other stream, then an NCCL line */
		size_t b = m->took_body;
		glue_keep(&m->glue, line + b, glued);
		take_line(m, line + b + glued, len - b - glued, line_no, truncated, false, &meta);
	} else if (m->glue.frag_len && m->took_family != FAM_NCCL &&
		   (jn = glue_join(&m->glue, line, len, joined, sizeof(joined))) > 0 &&
		   take_line(m, joined, jn, line_no, truncated, true, &meta)) {
		/* the end of a row whose pieces came before NCCL's lines */
	} else if (m->took_family != FAM_C10 && (cut = glue_pytorch_at(&m->glue, line, len)) > 0) {
		/* one of PyTorch's lines cut into another (an NCCL line, a print
		 * without its newline, a progress bar): its own line too */
		struct line_meta second;
		take_line(m, line + cut, len - cut, line_no, truncated, false, &second);
		m->wrap_len = m->wrap_pieces = 0;
		if (!m->took_event && len >= WRAP_MIN_LEN)
			wrap_keep(m, line + cut, len - cut, false);
	} else if (had_wrap && m->took_plain && len > 0) {
		/* a piece without a header: the rest of the pieces kept? */
		struct line_meta jm;
		if (take_wrapped(m, line, len, line_no, truncated, &jm))
			m->wrap_len = m->wrap_pieces = 0;
		else
			wrap_keep(m, line, len, true);
	} else {
		m->wrap_len = m->wrap_pieces = 0;
		if (len >= WRAP_MIN_LEN)
			wrap_keep(m, line, len, false);
	}

	block_add(&m->bb, line_no, line, len, &meta);
	if (block_full(&m->bb))
		flush_block(m);
	m->lines++;
}

/* ---- members ---- */

/* A job of the walk thread's: for a member (its row, then its work, here or
 * by a worker), or for what the walk writes between members (mi NULL). */
static struct member_job *job_open(struct ingest *in, const struct member_info *mi)
{
	struct member_job *mj = xcalloc(1, sizeof(*mj));
	mj->in = in;
	if (mi) {
		mj->path = xstrdup(mi->path);
		mj->container = mi->container ? xstrdup(mi->container) : NULL;
		mj->mi = *mi;
		mj->mi.path = mj->path;
		mj->mi.container = mj->container;
		mj->mi.link_target = NULL;
	}
	mj->m = (struct member_ctx){.in = in, .json = &in->ts[0].json, .matcher = in->matcher,
				    .scratch = &in->ts[0].scratch, .sum = &mj->sum,
				    .on_walk = true, .path = mj->path, .rank_hint = -1, .pid_hint = -1,
				    .boot_us = INT64_MIN};
	mj->m.job = jobs_begin(in->jobs, mj);
	return mj;
}

static void job_close(struct member_job *mj)
{
	jobs_end(mj->m.job);
}

static int64_t new_source(struct member_ctx *m, const struct member_info *mi, enum source_kind kind)
{
	struct ingest *in = m->in;
	int64_t id = ++in->next_source_id;
	struct op_source o = {
		.id = id,
		.mtime = mi->mtime,
		.kind = kind,
		.path_len = (uint32_t)strlen(mi->path),
		.container_len = op_opt_len(mi->container),
	};
	op_put_source(m->job, &o, mi->path, mi->container);
	line_dict_writer_source(in->dicts, id, mi->path, o.path_len);
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

/* A console's NCCL lines per local rank, for merge_console_events. */
static void put_console_nccl(struct member_ctx *m)
{
	for (size_t lr = 0; lr < m->nccl_by_local_n; lr++) {
		if (!m->nccl_by_local[lr])
			continue;
		struct op_console_nccl o = {.source_id = m->source_id, .lines = m->nccl_by_local[lr],
					    .local_rank = (int32_t)lr};
		op_put_nccl_count(m->job, OP_CONSOLE_NCCL, &o);
	}
	free(m->nccl_by_local);
	m->nccl_by_local = NULL;
	m->nccl_by_local_n = 0;
}

static void update_source(struct member_ctx *m, int64_t id, const struct source_update *u)
{
	const char *host = u->content_host && *u->content_host ? u->content_host : NULL;
	struct op_update o = {
		.id = id,
		.kind = u->kind,
		.rank = u->rank,
		.local_rank = u->local_rank,
		.pid = u->pid,
		.bytes = u->bytes,
		.lines = u->lines,
		.stored = u->stored,
		.skipped = u->skipped,
		.truncated = u->truncated,
		.events = u->events,
		.any_t = u->any_t,
		.first_t = u->first_t,
		.last_t = u->last_t,
		.year = u->year,
		.host_len = op_opt_len(host),
		.reason_len = op_opt_len(u->skip_reason),
		.error_len = op_opt_len(u->error),
	};
	op_put_update(m->job, &o, host, u->skip_reason, u->error);
	line_dict_writer_done(m->in->dicts, id); /* its blocks are all made */
	m->sum->lines += (uint64_t)u->lines;
	m->sum->stored_lines += (uint64_t)u->stored;
	m->sum->skipped_lines += (uint64_t)u->skipped;
	m->sum->truncated_lines += (uint64_t)u->truncated;
}

/* Counts the lines of a member we do not store (binary) as the splitter
 * would: "\n", "\r\n" and "\r" each end one, and a last line without a
 * line break counts. */
static long count_lines_rest(struct member_stream *ms, uint64_t *bytes, struct errbuf *err)
{
	char buf[1 << 16]; /* the calling thread's */
	struct line_counter lc = {0};
	long r;
	while ((r = member_read(ms, buf, sizeof(buf))) > 0) {
		line_counter_feed(&lc, buf, (size_t)r);
		*bytes += (uint64_t)r;
	}
	if (r < 0)
		errbuf_set(err, "%s", ms->err.msg);
	return line_counter_total(&lc);
}

static void report_error(void *ctx, const char *path, const char *msg)
{
	struct ingest *in = ctx;
	struct member_job *mj = job_open(in, NULL); /* said in the load's order */
	mj->sum.input_errors++;
	in->sum->input_cut = true;
	diag_input(path, 0, "%s", msg);
	job_close(mj);
}

static int ingest_text(struct member_ctx *m, const struct member_info *mi, struct member_stream *ms)
{
	struct ingest *in = m->in;
	struct line_splitter sp;
	splitter_init(&sp, in->o->max_line);
	block_init(&m->bb, in->o->block_bytes);
	char buf[1 << 16]; /* the calling thread's */
	long r;
	uint64_t bytes = 0;
	const char *error = NULL;
	while ((r = member_read(ms, buf, sizeof(buf))) > 0) {
		splitter_feed(&sp, buf, (size_t)r, on_line, m);
		bytes += (uint64_t)r;
		if (m->on_walk)
			progress_update(&in->prog, (uint64_t)r, 0);
		if (interrupted)
			break;
	}
	if (r < 0) {
		error = ms->err.msg;
		m->sum->input_errors++;
		if (bytes == 0)
			diag_input(mi->path, 0, "%s (nothing of the member could be read)", error);
		else
			diag_input(mi->path, sp.line_no + 1, "%s (lines before it are kept)", error);
	}
	splitter_finish(&sp, on_line, m);
	flush_block(m);
	tails_flush(m);
	m->sum->events_not_kept += (uint64_t)m->events_not_kept;
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
	if (sp.truncated_lines) {
		u.skip_reason = "long lines truncated (--max-line)";
		m->sum->input_errors++;
		diag_input(mi->path, m->first_truncated, "%ld line(s) longer than %zu bytes cut to that length "
			   "(first here), %llu bytes dropped (--max-line)", sp.truncated_lines, sp.max_line,
			   (unsigned long long)sp.dropped_bytes);
	}
	update_source(m, m->source_id, &u);
	put_console_nccl(m);
	if (m->mc.kind == SK_RANK_LOG && m->nccl_lines) {
		struct op_console_nccl o = {.source_id = m->source_id, .lines = m->nccl_lines,
					    .local_rank = m->mc.srun_labels};
		op_put_nccl_count(m->job, OP_RANK_NCCL, &o);
	}
	splitter_free(&sp);
	block_free(&m->bb);
	return 0;
}

static int ingest_flight_recorder(struct member_ctx *m, const struct member_info *mi, struct member_stream *ms)
{
	struct errbuf err = {{0}};
	long lines = 0;
	uint64_t bytes = 0;
	int rc = fr_ingest(ms, mi->path, m->mc.path_rank, job_seq(m->job), emit_event_cb, m, &lines, &bytes, &err);
	const char *error = NULL;
	if (rc < 0) {
		error = err.msg;
		m->sum->input_errors++;
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
	update_source(m, m->source_id, &u);
	return 0;
}

/* ---- a member's work, wherever its bytes are ---- */

/* A member's bytes as a job holds them: what was buffered, then a spool
 * file or the rest of the walk's stream, then the read error that ended
 * the member, if any. */
struct job_src {
	const unsigned char *p;
	size_t n, pos;
	FILE *spool;
	struct member_stream *rest;
	const char *error;
};

static long job_read(struct member_stream *ms, void *buf, size_t n)
{
	struct job_src *s = ms->impl;
	if (s->pos < s->n) {
		size_t k = s->n - s->pos < n ? s->n - s->pos : n;
		memcpy(buf, s->p + s->pos, k);
		s->pos += k;
		return (long)k;
	}
	if (s->spool) {
		size_t k = fread(buf, 1, n, s->spool);
		if (k > 0)
			return (long)k;
		if (ferror(s->spool)) {
			errbuf_set(&ms->err, "cannot read the member back from its temporary file");
			return -1;
		}
	}
	if (s->rest) {
		long r = member_read(s->rest, buf, n);
		if (r < 0)
			errbuf_set(&ms->err, "%s", s->rest->err.msg);
		return r;
	}
	if (s->error) {
		errbuf_set(&ms->err, "%s", s->error);
		return -1;
	}
	return 0;
}

static void work_member(struct member_job *mj, struct member_stream *rest)
{
	struct member_ctx *m = &mj->m;
	struct job_src src = {.p = mj->data, .n = mj->len, .spool = mj->spool, .rest = rest, .error = mj->read_error};
	struct member_stream ms;
	memset(&ms, 0, sizeof(ms));
	ms.read_impl = job_read;
	ms.impl = &src;
	grammar_matcher_begin_file(m->matcher);
	if (m->mc.kind == SK_FLIGHT_RECORDER)
		ingest_flight_recorder(m, &mj->mi, &ms);
	else
		ingest_text(m, &mj->mi, &ms);
	free(mj->data);
	mj->data = NULL;
	if (mj->spool)
		fclose(mj->spool);
	mj->spool = NULL;
}

/* jobs_hooks.work: a worker's (or, without workers, the walk thread's) */
static void job_work(void *ctx, struct job *j, void *data, int worker)
{
	struct ingest *in = ctx;
	struct member_job *mj = data;
	(void)j;
	if (worker > 0) {
		mj->m.matcher = in->ts[worker].matcher;
		mj->m.json = &in->ts[worker].json;
		mj->m.scratch = &in->ts[worker].scratch;
		mj->m.on_walk = false;
	}
	work_member(mj, NULL);
}

/* jobs_hooks.run: the writer */
static void job_run(void *ctx, const unsigned char *data, size_t len)
{
	struct ingest *in = ctx;
	op_writer_run(in->ow, data, len);
}

static void summary_add(struct ingest_summary *to, const struct ingest_summary *d)
{
	to->events += d->events;
	to->lines += d->lines;
	to->stored_lines += d->stored_lines;
	to->skipped_lines += d->skipped_lines;
	to->truncated_lines += d->truncated_lines;
	to->events_not_kept += d->events_not_kept;
	to->input_errors += d->input_errors;
}

/* jobs_hooks.retired: the writer, in the load's order */
static void job_retired(void *ctx, void *data)
{
	struct ingest *in = ctx;
	struct member_job *mj = data;
	summary_add(&in->written, &mj->sum);
	if (mj->m.year_max > in->year_max)
		in->year_max = mj->m.year_max;
	free(mj->data);
	if (mj->spool)
		fclose(mj->spool);
	free(mj->read_error);
	free(mj->path);
	free(mj->container);
	free(mj);
}

/* Reads the member into mj->data, up to JOB_BUFFER_MAX bytes: true when
 * all of it is there (a read error ends it: kept in mj->read_error). */
static bool buffer_member(struct member_job *mj, struct member_stream *ms)
{
	size_t cap = mj->mi.size > 0 && (uint64_t)mj->mi.size < JOB_BUFFER_MAX ? (size_t)mj->mi.size + 1 : 64 << 10;
	mj->data = xmalloc(cap);
	for (;;) {
		if (mj->len == cap) {
			if (cap > JOB_BUFFER_MAX)
				return false;
			cap *= 2;
			mj->data = xrealloc(mj->data, cap);
		}
		long r = member_read(ms, mj->data + mj->len, cap - mj->len);
		if (r == 0)
			return true;
		if (r < 0) {
			mj->read_error = xstrdup(ms->err.msg);
			return true;
		}
		mj->len += (size_t)r;
		progress_update(&mj->in->prog, (uint64_t)r, 0);
	}
}

/* A member whose lines lack a year and that has no modification time: its
 * bytes go to a temporary file and its work waits for the load's end,
 * when the bundle's dated lines have given their year (run_deferred). */
static bool defer_member(struct member_job *mj, struct member_stream *ms)
{
	struct ingest *in = mj->in;
	FILE *f = tmpfile();
	if (!f)
		return false;
	char buf[1 << 16];
	long r;
	while ((r = member_read(ms, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, (size_t)r, f) != (size_t)r)
			die("cannot write a temporary file: %s", strerror(errno));
		progress_update(&in->prog, (uint64_t)r, 0);
	}
	if (r < 0)
		mj->read_error = xstrdup(ms->err.msg);
	rewind(f);
	/* its row now, in read order; its work later, as a job of its own */
	struct member_job *later = xcalloc(1, sizeof(*later));
	*later = *mj;
	later->path = xstrdup(mj->path);
	later->container = mj->container ? xstrdup(mj->container) : NULL;
	later->mi.path = later->path;
	later->mi.container = later->container;
	later->m.path = later->path;
	later->m.sum = &later->sum;
	later->spool = f;
	mj->read_error = NULL;
	/* its blocks come last: it gives no dictionary (its likes never wait for it) */
	line_dict_writer_done(in->dicts, mj->m.source_id);
	struct deferred *d = xcalloc(1, sizeof(*d));
	d->mj = later;
	*in->deferred_tail = d;
	in->deferred_tail = &d->next;
	return true;
}

static void run_deferred(struct ingest *in)
{
	if (!in->deferred)
		return;
	jobs_wait_all(in->jobs); /* every other member's years are in */
	for (struct deferred *d = in->deferred, *next; d; d = next) {
		next = d->next;
		struct member_job *mj = d->mj;
		mj->m.year_hint = in->year_max;
		mj->m.job = jobs_begin(in->jobs, mj);
		if (interrupted) {
			job_close(mj);
		} else {
			jobs_wait_input(in->jobs);
			jobs_submit(mj->m.job, 0);
		}
		free(d);
	}
	in->deferred = NULL;
	in->deferred_tail = &in->deferred;
}

static int on_member(void *ctx, const struct member_info *mi, struct member_stream *ms)
{
	struct ingest *in = ctx;
	if (interrupted)
		return -1;
	in->sum->members++;
	progress_update(&in->prog, 0, 1);
	if (mi->type != MT_FILE) {
		struct member_job *mj = job_open(in, mi);
		enum source_kind k = (mi->type == MT_SYMLINK || mi->type == MT_HARDLINK) ? SK_LINK : SK_OTHER;
		int64_t id = new_source(&mj->m, mi, k);
		struct source_update u = {.kind = k, .rank = -1, .local_rank = -1, .pid = -1};
		if (k == SK_LINK) {
			char *note = xasprintf("link to %s (not followed)", mi->link_target ? mi->link_target : "?");
			u.error = note;
			update_source(&mj->m, id, &u);
			free(note);
		} else {
			update_source(&mj->m, id, &u);
		}
		job_close(mj);
		return 0;
	}
	size_t n;
	const unsigned char *head = member_peek(ms, &n);
	if (member_is_container(mi->path, head, n)) {
		struct member_job *mj = job_open(in, mi);
		int64_t id = new_source(&mj->m, mi, SK_ARCHIVE);
		line_dict_writer_done(in->dicts, id); /* no blocks of its own */
		job_close(mj);
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
		mj = job_open(in, mi);
		update_source(&mj->m, id, &u);
		job_close(mj);
		free(note);
		return interrupted || in->stats.limit_hit ? -1 : 0;
	}
	struct member_job *mj = job_open(in, mi);
	struct member_ctx *m = &mj->m;
	member_classify(mi->path, head, n, &m->mc);
	m->source_id = new_source(m, mi, m->mc.kind);
	m->year_hint = mi->mtime > 0 ? year_of(mi->mtime) : 0;

	if (m->mc.kind == SK_BINARY) {
		struct errbuf err = {{0}};
		uint64_t bytes = 0;
		long lines = count_lines_rest(ms, &bytes, &err);
		struct source_update u = {.kind = SK_BINARY, .rank = -1, .local_rank = -1, .pid = -1,
					  .bytes = bytes, .lines = lines, .skipped = lines,
					  .skip_reason = "binary: not text", .error = err.msg[0] ? err.msg : NULL};
		update_source(m, m->source_id, &u);
		m->sum->input_errors++;
		diag_input(mi->path, 0, "binary member, %ld line(s) not read", lines);
		job_close(mj);
		return 0;
	}
	if (!m->year_hint && m->mc.kind != SK_FLIGHT_RECORDER && defer_member(mj, ms)) {
		job_close(mj);
		return interrupted ? -1 : 0;
	}
	jobs_wait_input(in->jobs);
	if (mi->size >= 0 && (uint64_t)mi->size > JOB_BUFFER_MAX) {
		work_member(mj, ms); /* too large to buffer: worked on as it is read */
		job_close(mj);
	} else if (!buffer_member(mj, ms)) {
		work_member(mj, ms); /* larger than its size said: the rest as it is read */
		job_close(mj);
	} else {
		jobs_submit(m->job, mj->len);
	}
	return interrupted ? -1 : 0;
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
	snprintf(v, sizeof(v), "%ld", grammar_limit_hits(in->matcher));
	db_meta_set(in->w.db, "regex_limit_hits", v);
	snprintf(v, sizeof(v), "%ld", grammar_costly_lines(in->matcher));
	db_meta_set(in->w.db, "regex_costly_matches", v);
	snprintf(v, sizeof(v), "%zu", grammar_rule_count(in->g));
	db_meta_set(in->w.db, "grammar_rules", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)in->sum->events_not_kept);
	db_meta_set(in->w.db, "events_not_kept", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)in->sum->events_copies);
	db_meta_set(in->w.db, "events_console_copies", v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)in->sum->nccl_lines_copied);
	db_meta_set(in->w.db, "nccl_lines_console_copied", v);
	db_meta_set(in->w.db, "tool_version", NF_VERSION);
	if (in->stats.limit_hit)
		db_meta_set(in->w.db, "limit_hit", in->stats.limit_msg);
}

/* A per-rank file's NCCL lines are not matched during the load: a console
 * beside it (torchrun --tee) usually copied every one of them, and of NCCL
 * lines the console's copies are the events kept (merge_console_events).
 * Once the load tells what each console copied, the files whose NCCL lines
 * it did not all copy (no console, or one that stopped early) are read back
 * from their line blocks and their NCCL lines matched now, into
 * events_staged as the load would have put them (the lines' time, rank and
 * pid are those stored with the lines; `keep N` counts run over the whole
 * file, as during the load). */
static void replay_rank_nccl(struct ingest *in)
{
	sqlite3 *db = in->w.db;
	struct line_dict_reader *dicts = line_dict_reader_new(db);
	char *sql = xasprintf("SELECT first_line, data, %s FROM line_blocks WHERE source_id = ? ORDER BY block_no",
			      line_dict_column(dicts));
	sqlite3_stmt *blocks = db_prepare(db, sql);
	free(sql);
	sqlite3_stmt *q = db_prepare(db,
		"SELECT r.source_id, r.srun_labels, s.path FROM temp.rank_nccl_lines r JOIN sources s USING(source_id)\n"
		"  WHERE r.lines > coalesce((SELECT c.lines FROM temp.copied c WHERE c.rank_source = r.source_id), 0)\n"
		"  ORDER BY r.source_id");
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct member_ctx m = {.in = in, .json = &in->ts[0].json, .matcher = in->matcher, .sum = in->sum,
				       .source_id = sqlite3_column_int64(q, 0), .replay = true,
				       .path = (const char *)sqlite3_column_text(q, 2)};
		m.mc.kind = SK_RANK_LOG;
		m.mc.srun_labels = sqlite3_column_int(q, 1) != 0;
		sqlite3_bind_int64(blocks, 1, m.source_id);
		grammar_matcher_begin_file(m.matcher);
		while (sqlite3_step(blocks) == SQLITE_ROW) {
			struct decoded_block d;
			struct errbuf err = {{0}};
			if (line_dict_decode(dicts, sqlite3_column_blob(blocks, 1), (size_t)sqlite3_column_bytes(blocks, 1),
					     sqlite3_column_int64(blocks, 2), &d, &err) < 0)
				die("ingest: %s: a line block just written cannot be read back: %s", m.path, err.msg);
			long first = (long)sqlite3_column_int64(blocks, 0);
			for (uint32_t i = 0; i < d.n_lines; i++) {
				const struct decoded_line *dl = &d.lines[i];
				struct line_parts lp;
				line_parts_parse(dl->text, dl->len, true, &lp);
				if (lp.family != FAM_NCCL)
					continue;
				m.nccl_lines++;
				struct grammar_match gm;
				if (match_line(&m, &lp, first + (long)i, &gm))
					emit_match(&m, &lp, &gm, first + (long)i, &dl->meta);
			}
			decoded_block_free(&d);
		}
		sqlite3_reset(blocks);
		tails_flush(&m);
		in->sum->events_not_kept += (uint64_t)m.events_not_kept;
	}
	sqlite3_finalize(q);
	sqlite3_finalize(blocks);
	line_dict_reader_free(dicts);
}

/* A launcher console (torchrun --tee) repeats every line of the per-rank
 * files next to it. Its events waited in temp.events_staged; those of a local
 * rank whose stdout and stderr files sit in the console's directory (or
 * below) are copies and are dropped, the rest (the launcher's own lines, ranks
 * without per-rank files) join `events`. Of NCCL lines it is the other way
 * round: the console's copies are kept, and a per-rank file's NCCL events
 * join only past the number of that rank's NCCL lines the console copied (it
 * tails the files, and misses their end when a node freezes or the launcher
 * dies first). The lines themselves are all kept. */
static void merge_console_events(struct ingest *in)
{
	sqlite3 *db = in->w.db;
	/* each per-rank file under each of its ancestor directories: a console
	 * covers the files below its own directory (an equality join, not a
	 * prefix comparison of every pair) */
	db_exec(db, "CREATE TEMP TABLE rank_dirs(dir TEXT, source_id INTEGER, local_rank INTEGER);");
	sqlite3_stmt *q = db_prepare(db, "SELECT source_id, path, local_rank FROM sources"
					 " WHERE kind IN ('rank_log', 'empty') AND local_rank IS NOT NULL");
	sqlite3_stmt *ins = db_prepare(db, "INSERT INTO temp.rank_dirs VALUES(?,?,?)");
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(q, 1);
		/* "" too: a console at the top of the input covers what is below it */
		for (size_t len = 0;;) {
			sqlite3_bind_text(ins, 1, path, (int)len, SQLITE_TRANSIENT);
			sqlite3_bind_int64(ins, 2, sqlite3_column_int64(q, 0));
			sqlite3_bind_int(ins, 3, sqlite3_column_int(q, 2));
			db_step_done(ins);
			const char *slash = strchr(path + len, '/');
			if (!slash)
				break;
			len = (size_t)(slash - path) + 1;
		}
	}
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	/* indexed once filled: one sort, not a look-up per insert */
	db_exec(db, "CREATE INDEX temp.rank_dirs_dir ON rank_dirs(dir);");
	int64_t staged = db_int(db, "SELECT count(*) FROM temp.events_staged", 0);
	db_exec(db,
		/* which local ranks of each console have their own stdout and stderr files below it
		 * (temp.rank_dirs: every directory above each per-rank file, see below) */
		"CREATE TEMP TABLE console_cover AS\n"
		"  SELECT c.source_id AS console_id, d.source_id AS rank_source, d.local_rank AS local_rank\n"
		"  FROM (SELECT source_id, rtrim(path, replace(path, '/', '')) AS dir FROM sources WHERE kind = 'console') c\n"
		"  JOIN temp.rank_dirs d ON d.dir = c.dir;\n"
		"DELETE FROM console_cover WHERE (console_id, local_rank) NOT IN (SELECT cc.console_id, cc.local_rank\n"
		"  FROM console_cover cc JOIN sources r ON r.source_id = cc.rank_source GROUP BY cc.console_id, cc.local_rank\n"
		"  HAVING count(DISTINCT CASE WHEN r.path LIKE '%stdout%' THEN 1 WHEN r.path LIKE '%stderr%' THEN 2 END) = 2);\n"
		"CREATE INDEX temp.console_cover_c ON console_cover(console_id, local_rank);\n"
		"CREATE INDEX temp.console_cover_r ON console_cover(rank_source);\n"
		/* a per-rank file's first N NCCL lines are copies when a covering
		 * console copied N NCCL lines of that rank: the console tails the
		 * file and may miss its end (a node that froze, a launcher killed) */
		"CREATE TEMP TABLE copied(rank_source INTEGER PRIMARY KEY, lines INTEGER);\n"
		"INSERT INTO copied SELECT cc.rank_source, max(n.lines) FROM temp.console_cover cc\n"
		"  JOIN temp.console_nccl_lines n ON n.source_id = cc.console_id AND n.local_rank = cc.local_rank\n"
		"  GROUP BY cc.rank_source;\n");
	replay_rank_nccl(in);
	in->sum->nccl_lines_copied = (uint64_t)db_int(db,
		"SELECT coalesce(sum(r.lines), 0) FROM temp.rank_nccl_lines r\n"
		"  WHERE r.lines <= coalesce((SELECT c.lines FROM temp.copied c WHERE c.rank_source = r.source_id), 0)", 0);
	db_exec(db,
		/* the staged events kept: their `staged` negated */
		"UPDATE temp.events_staged AS s SET staged = -staged\n"
		"  WHERE (s.staged = 1 AND (s.local_rank IS NULL OR NOT EXISTS (SELECT 1 FROM temp.console_cover cc\n"
		"          WHERE cc.console_id = s.source_id AND cc.local_rank = s.local_rank)))\n"
		"     OR (s.staged = 2 AND s.nccl_line > coalesce((SELECT c.lines FROM temp.copied c\n"
		"          WHERE c.rank_source = s.source_id), 0));\n"
		"INSERT INTO main.events(source_id, line_no, kind, class, host, rank, local_rank, pid, tid, dev, level,\n"
		"    time_us, clock, fields)\n"
		"  SELECT source_id, line_no, kind, class, host, rank, local_rank, pid, tid, dev, level, time_us, clock, fields\n"
		"  FROM temp.events_staged s WHERE s.staged < 0\n"
		/* the load's order: a source's events after those of the
		 * sources before it (replay_rank_nccl's came last) */
		"  ORDER BY s.source_id, s.rowid;\n"
		/* each source's count: the load counted its console copies (staged
		 * 1), not the per-rank NCCL events matched after it (staged 2) */
		"CREATE TEMP TABLE source_events(source_id INTEGER PRIMARY KEY, d INTEGER);\n"
		"INSERT INTO temp.source_events SELECT source_id,\n"
		"    sum(CASE staged WHEN 1 THEN -1 WHEN -2 THEN 1 ELSE 0 END) FROM temp.events_staged GROUP BY source_id;\n"
		"UPDATE sources SET events = events + (SELECT d FROM temp.source_events c WHERE c.source_id = sources.source_id)\n"
		"  WHERE source_id IN (SELECT source_id FROM temp.source_events);\n"
		"DROP TABLE temp.source_events;\n"
		"DROP TABLE temp.events_staged; DROP TABLE temp.console_cover; DROP TABLE temp.console_nccl_lines;"
		"DROP TABLE temp.copied; DROP TABLE temp.rank_nccl_lines;"
		"DROP TABLE temp.rank_dirs;");
	int64_t kept = db_int(db, "SELECT count(*) FROM main.events", 0);
	in->sum->events_copies = in->sum->events > (uint64_t)kept ? in->sum->events - (uint64_t)kept : 0;
	in->sum->events = (uint64_t)kept;
	(void)staged;
}

/* The load's threads: the writer, and the workers --jobs asks for (--jobs 1:
 * none, the walk thread works on each member itself: the reference). */
static void load_start(struct ingest *in)
{
	const char *serial = getenv("NF_INGEST_SERIAL");
	bool is_serial = serial && *serial && strcmp(serial, "0") != 0;
	int jobs = in->o->jobs > 0 ? in->o->jobs : jobs_default_workers();
	in->nworkers = is_serial || jobs <= 1 ? 0 : jobs;
	in->ts = xcalloc((size_t)in->nworkers + 1, sizeof(*in->ts));
	in->ts[0].matcher = in->matcher;
	for (int i = 1; i <= in->nworkers; i++)
		in->ts[i].matcher = grammar_matcher_new(in->g);
	in->deferred_tail = &in->deferred;
	in->dicts = line_dict_writer_new(in->o->zstd_level);
	in->ow = op_writer_new(&in->w, in->dicts);
	struct jobs_hooks h = {.ctx = in, .run = job_run, .retired = job_retired, .work = job_work};
	in->jobs = jobs_start(&h, in->nworkers, is_serial);
}

/* Waits for every job to be written; the counts of the jobs and of every
 * worker's matcher join the walk thread's. */
static void load_finish(struct ingest *in)
{
	jobs_finish(in->jobs);
	in->jobs = NULL;
	summary_add(in->sum, &in->written);
	/* a dump's group configuration another dump gave: counted, not stored */
	long dropped = op_writer_dropped(in->ow);
	in->sum->events -= (uint64_t)dropped < in->sum->events ? (uint64_t)dropped : in->sum->events;
	for (int i = 1; i <= in->nworkers; i++) {
		grammar_matcher_merge(in->matcher, in->ts[i].matcher);
		grammar_matcher_free(in->ts[i].matcher);
	}
	for (int i = 0; i <= in->nworkers; i++)
		op_scratch_free(&in->ts[i].scratch);
	/* the walk thread's matcher and JSON stay (the matching after the load) */
	for (int i = 1; i <= in->nworkers; i++)
		buf_free(&in->ts[i].json);
	line_dict_writer_free(in->dicts);
	in->dicts = NULL;
}

int ingest_run(const struct ingest_opts *o, struct ingest_summary *sum)
{
	struct ingest in = {.o = o, .sum = sum, .limits = o->limits};
	struct errbuf err = {{0}};
	memset(sum, 0, sizeof(*sum));
	/* first: a signal during the grammar's load is an interruption too
	 * (the load below then stops at once and writes no case) */
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	struct sigaction old_int, old_term;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	in.g = grammar_new();
	if (grammar_load_default(in.g, o->grammar_dirs, o->n_grammar_dirs, &err) < 0) {
		diag_error("%s", err.msg);
		grammar_free(in.g);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		return NF_EXIT_USAGE;
	}
	int bad = grammar_selftest(in.g, NULL, NULL);
	if (bad)
		diag_warn("warning: %d grammar sample(s) fail their self-test; run '" NF_PROG " grammar test'", bad);
	struct stat in_st;
	if (stat(o->input, &in_st) < 0) {
		/* said before the output is tried: a missing input is not an output problem */
		diag_error("%s: %s", o->input, strerror(errno));
		grammar_free(in.g);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		return NF_EXIT_NOTHING;
	}
	if (case_writer_open(&in.w, o->output, &err) < 0) {
		diag_error("%s", err.msg);
		grammar_free(in.g);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		return NF_EXIT_NOTHING;
	}
	in.matcher = grammar_matcher_new(in.g);
	struct stat tmp_st;
	if (fstat(in.w.file.fd, &tmp_st) == 0) {
		in.limits.skip_dev = (uint64_t)tmp_st.st_dev;
		in.limits.skip_ino = (uint64_t)tmp_st.st_ino;
	}

	const char *tm = getenv("NF_TIMINGS");
	if (tm && *tm && strcmp(tm, "0") != 0) {
		phase_t0 = clock_s(CLOCK_MONOTONIC);
		phase_c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	}
	progress_init(&in.prog, o->progress && !o->quiet);
	struct walk_sink sink = {.member = on_member, .error = report_error, .ctx = &in};
	in.sink = &sink;
	fr_forget_configs();
	load_start(&in);
	int rc = walk_input(o->input, &in.limits, &sink, &in.stats, &err);
	run_deferred(&in);
	load_finish(&in);
	progress_done(&in.prog);
	/* the reader's and the writer's buffers are freed but kept by the
	 * allocator's per-thread arenas: given back, so that the analyses'
	 * memory does not add to them (at 16,384 ranks ~20 MiB of the peak) */
	malloc_trim(0);
	phase_done("load");
	sum->bytes = in.stats.bytes;
	sum->limit_hit = in.stats.limit_hit;
	int exit_code = NF_EXIT_OK;
	if (rc < 0 && in.stats.members == 0) {
		if (err.msg[0])
			diag_error("%s", err.msg);
		else
			diag_error("%s: nothing could be read", o->input);
		exit_code = NF_EXIT_NOTHING;
	} else if (in.stats.members == 0 && !interrupted) {
		diag_error("%s: no members (an empty archive or directory): nothing to ingest",
			o->input);
		exit_code = NF_EXIT_NOTHING;
	}
	if (in.stats.limit_hit) {
		diag_error("%s: %s; the members read so far are kept", o->input, in.stats.limit_msg);
		sum->input_errors++;
	}
	if (interrupted) {
		diag_error("interrupted; no case written");
		op_writer_free(in.ow); /* its statements, before the close */
		in.ow = NULL;
		case_writer_abort(&in.w);
		exit_code = 130;
	} else if (exit_code == NF_EXIT_OK) {
		/* from here one thread: a signal stops a long statement at once */
		db_stop_on_signal(in.w.db);
		/* SQLite's sorter may use the cores for the indexes (at most 8) */
		char threads[32];
		snprintf(threads, sizeof(threads), "PRAGMA threads = %d", in.nworkers < 8 ? in.nworkers : 8);
		db_exec(in.w.db, threads);
		/* each of the sorter's threads fills a list as large as the page
		 * cache before it writes it out: 8 MiB lists, not 32, for the
		 * sorts from here to the indexes (peak RSS at 16,384 ranks) */
		db_exec(in.w.db, "PRAGMA cache_size=-8192");
		merge_console_events(&in);
		op_writer_free(in.ow); /* its statements, before the commit */
		in.ow = NULL;
		event_keys_write(in.w.keys, in.w.db);
		write_meta(&in);
		phase_done("indexes");
		/* the attribution rewrites events' host and rank: index after it */
		attribution_run(in.w.db);
		db_exec(in.w.db, case_schema_index_sql);
		/* the analyses that may follow run as `analyze` does */
		db_exec(in.w.db, "PRAGMA cache_size=-32768; PRAGMA threads = 0");
		kind_summary_write(in.w.kinds, in.w.db);
		phase_done("attribution");
		/* nothing recognised: no event, no dump, no member that its name
		 * or content makes a log (a rank's, a launcher's, the kernel's),
		 * and no text with times in it or named like a log (a plain-text
		 * training log is read; /etc/passwd or an empty file is not) */
		sum->unrecognised = db_int(in.w.db,
					   "SELECT NOT EXISTS (SELECT 1 FROM events) AND NOT EXISTS (SELECT 1 FROM sources "
					   "WHERE kind NOT IN ('text', 'binary', 'empty', 'link', 'archive', 'other') "
					   "OR (kind = 'text' AND (first_time_us IS NOT NULL OR lower(path) GLOB '*.log' "
					   "OR lower(path) GLOB '*.out' OR lower(path) GLOB '*.err' OR lower(path) GLOB '*.txt' "
					   "OR lower(path) GLOB '*std*' OR lower(path) GLOB '*log*')))", 0) != 0;
		db_meta_set(in.w.db, "recognised", sum->unrecognised ? "0" : "1");
		sum->input_cut = sum->input_cut || in.stats.limit_hit ||
				 db_int(in.w.db, "SELECT EXISTS (SELECT 1 FROM sources WHERE error IS NOT NULL "
						 "AND kind <> 'link')", 0) != 0;
		if (o->analyze) {
			analysis_run(in.w.db);
			phase_done("analysis");
		}
		if (interrupted) {
			/* a signal during attribution or analysis: still no case */
			diag_error("interrupted; no case written");
			op_writer_free(in.ow); /* its statements, before the close */
			in.ow = NULL;
			case_writer_abort(&in.w);
			exit_code = 130;
			goto done;
		}
		int crc = case_writer_commit(&in.w, &err);
		phase_done("commit");
		if (crc < 0) {
			diag_error("%s", err.msg);
			exit_code = NF_EXIT_NOTHING;
		} else if (sum->input_errors) {
			exit_code = NF_EXIT_INPUT;
		}
	} else {
		op_writer_free(in.ow); /* its statements, before the close */
		in.ow = NULL;
		case_writer_abort(&in.w);
	}
done:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	op_writer_free(in.ow);
	if (in.ts)
		buf_free(&in.ts[0].json);
	free(in.ts);
	grammar_matcher_free(in.matcher);
	grammar_free(in.g);
	return exit_code;
}
