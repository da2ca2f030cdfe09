/* diagnosis_model.c: loads the facts the diagnosis reasons on; small
 * helpers for the verdict and for SQL. */
#include "diagnosis.h"
#include "diagnosis_limits.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "case_db.h"
#include "failure_kinds.h"
#include "timestamp.h"

static sqlite3_stmt *vprep(sqlite3 *db, const char *fmt, va_list ap)
{
	char *sql = sqlite3_vmprintf(fmt, ap);
	sqlite3_stmt *st = db_prepare(db, sql);
	sqlite3_free(sql);
	return st;
}

int64_t q_int(sqlite3 *db, int64_t def, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sqlite3_stmt *st = vprep(db, fmt, ap);
	va_end(ap);
	int64_t v = def;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

bool q_text(sqlite3 *db, char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sqlite3_stmt *st = vprep(db, fmt, ap);
	va_end(ap);
	bool ok = false;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
		ok = true;
	} else if (n) {
		out[0] = '\0';
	}
	sqlite3_finalize(st);
	return ok;
}

static void col_str(sqlite3_stmt *st, int i, char *out, size_t n)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	snprintf(out, n, "%s", s ? s : "");
}


static bool lost_peer_kind(const char *kind)
{
	return strcmp(kind, "nccl_socket_closed") == 0 || strcmp(kind, "nccl_socket_truncated") == 0 ||
	       strcmp(kind, "gloo_connection_lost") == 0;
}

/* When the job was stopped from outside (SQL_JOB_STOPPED_AT), else T_NONE */
static int64_t job_stopped_at(struct diagnosis *d)
{
	return q_int(d->db, T_NONE, SQL_JOB_STOPPED_AT);
}

/* How long the ranks with logs had been silent at time t (since each one's
 * last line before it): the shortest and the longest silence (T_NONE when no
 * rank logged before t). */
void diag_silence_at(struct diagnosis *d, int64_t t, int64_t *shortest, int64_t *longest)
{
	*shortest = *longest = T_NONE;
	sqlite3_stmt *st = db_prepare(d->db, "SELECT min(last), max(last) FROM (SELECT max(time_us) last FROM events"
					     " WHERE time_us < ?1 AND rank IS NOT NULL GROUP BY rank)");
	sqlite3_bind_int64(st, 1, t);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*longest = t - sqlite3_column_int64(st, 0);
		*shortest = t - sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
}

/* A hang nobody reported, then torn down from outside (a scheduler's
 * cancel, an operator, a time limit), after every rank with logs had been
 * silent for a while: the failures are the teardown's, not the hang's, and
 * the job is a hang nobody reported (the ranks' progress tells who was
 * behind). Either the job was stopped (job_stopped_at) as the failures
 * began, or before any, after 30 s of silence; or, without that, the only
 * failures are lost connections (a peer's process gone: NCCL's "Connection
 * closed by remote peer"), with no timeout, other error or abnormal exit
 * anywhere, after a minute of silence. Returns when the teardown began, or
 * T_NONE. */
static int64_t hang_teardown(struct diagnosis *d)
{
	/* a lost connection logged (in whole seconds) in the second the job was
	 * stopped is its consequence */
	bool signalled = d->stopped_t != T_NONE && (d->t0 == T_NONE || d->stopped_t <= d->t0 + WHOLE_SECOND_US);
	if (!signalled && d->t0 == T_NONE)
		return T_NONE;
	int64_t start = signalled && (d->t0 == T_NONE || d->stopped_t < d->t0) ? d->stopped_t : d->t0;
	for (size_t i = 0; i < d->nranks; i++) {
		const struct rank_facts *r = &d->ranks[i];
		if (signalled) {
			if (r->exited && r->exit_code != 0 && r->exit_t != T_NONE && r->exit_t < start - WHOLE_SECOND_US)
				return T_NONE;
			continue;
		}
		if (r->first_timeout_t != T_NONE || (r->exited && r->exit_code != 0))
			return T_NONE;
		if (r->first_error_t != T_NONE && !lost_peer_kind(r->first_error_kind))
			return T_NONE;
	}
	/* every rank silent that long, a second's slack for the lines' precision */
	int64_t shortest, longest;
	diag_silence_at(d, start - WHOLE_SECOND_US, &shortest, &longest);
	int64_t needed = signalled ? TEARDOWN_SILENCE_SIGNALLED_US : TEARDOWN_SILENCE_US;
	return shortest != T_NONE && shortest + WHOLE_SECOND_US >= needed ? start : T_NONE;
}

void diag_load(struct diagnosis *d, sqlite3 *db)
{
	memset(d, 0, sizeof(*d));
	d->db = db;
	d->ended = d->disagree = -1;
	d->v.seq = -1;
	d->v.first_failure_t = T_NONE;
	sqlite3_stmt *st = db_prepare(db,
		"SELECT rank, host, local_rank, events, first_time_us, last_time_us, last_progress_us, last_step,"
		" last_step_time_us, first_error_time_us, first_error_kind, first_error_event, first_timeout_time_us,"
		" exit_code, exit_signal, exit_time_us, exit_event, sigterm_by_launcher, watchdog_abort, has_dump,"
		" init_complete FROM rank_status ORDER BY rank");
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&d->ranks, &cap, d->nranks + 1, sizeof(*d->ranks));
		struct rank_facts *r = &d->ranks[d->nranks++];
		memset(r, 0, sizeof(*r));
		r->rank = sqlite3_column_int(st, 0);
		col_str(st, 1, r->host, sizeof(r->host));
		r->local_rank = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 2);
		r->events = sqlite3_column_int64(st, 3);
		r->first_t = db_column_int_or(st, 4, T_NONE);
		r->last_t = db_column_int_or(st, 5, T_NONE);
		r->last_progress_t = db_column_int_or(st, 6, T_NONE);
		r->last_step = sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 7);
		r->last_step_t = db_column_int_or(st, 8, T_NONE);
		r->first_error_t = db_column_int_or(st, 9, T_NONE);
		col_str(st, 10, r->first_error_kind, sizeof(r->first_error_kind));
		r->first_error_event = sqlite3_column_int64(st, 11);
		r->first_timeout_t = db_column_int_or(st, 12, T_NONE);
		r->exited = sqlite3_column_type(st, 13) != SQLITE_NULL;
		r->exit_code = sqlite3_column_int(st, 13);
		col_str(st, 14, r->exit_signal, sizeof(r->exit_signal));
		r->exit_t = db_column_int_or(st, 15, T_NONE);
		r->exit_event = sqlite3_column_int64(st, 16);
		r->sigterm_by_launcher = sqlite3_column_int(st, 17);
		r->watchdog_abort = sqlite3_column_int(st, 18);
		r->has_dump = sqlite3_column_int(st, 19);
		r->init_complete = sqlite3_column_int(st, 20);
		r->frozen_event = 0;
		r->role = r->events ? "healthy" : "absent";
		if (r->has_dump)
			d->any_dump = true;
		if (r->init_complete)
			d->past_init = true;
	}
	sqlite3_finalize(st);
	/* without NCCL's INFO lines or a dump, a training step logged shows that
	 * its collectives ran: the communicators were up */
	if (!d->past_init && q_int(db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind = 'app_step')"))
		d->past_init = true;

	/* world size: what the logs say, else what we saw */
	d->world = (int)q_int(db, 0,
		"SELECT max(n) FROM (SELECT max(field(fields, 'nranks')) AS n FROM events WHERE kind='nccl_comm_init'"
		" UNION ALL SELECT max(field(fields, 'world')) FROM events WHERE kind IN ('app_rank_identity', 'lightning_dist_init')"
		" UNION ALL SELECT max(size) FROM process_groups)");
	if (d->world < (int)d->nranks)
		d->world = (int)d->nranks;

	/* the first failure: the earliest failure event, else the earliest abnormal exit */
	d->t0 = T_NONE;
	for (size_t i = 0; i < d->nranks; i++) {
		int64_t t = d->ranks[i].first_error_t;
		if (t != T_NONE && (d->t0 == T_NONE || t < d->t0))
			d->t0 = t;
	}
	if (d->t0 == T_NONE)
		for (size_t i = 0; i < d->nranks; i++) {
			struct rank_facts *r = &d->ranks[i];
			if (r->exited && r->exit_code != 0 && r->exit_t != T_NONE && (d->t0 == T_NONE || r->exit_t < d->t0))
				d->t0 = r->exit_t;
		}
	/* a rank without a line in the bundle that asked every rank for its
	 * dump, before any failure of the ranks with logs: it failed first (a
	 * timeout or an error of its own, in the logs the bundle lacks) */
	sqlite3_stmt *rq = db_prepare(db,
		"SELECT event_id, time_us FROM events WHERE kind = 'pg_dump_signal' AND time_us IS NOT NULL"
		" AND field(fields, 'from_rank') NOT IN (SELECT rank FROM rank_status WHERE events > 0)"
		" ORDER BY time_us, event_id LIMIT 1");
	if (sqlite3_step(rq) == SQLITE_ROW && (d->t0 == T_NONE || sqlite3_column_int64(rq, 1) < d->t0)) {
		d->absent_request_ev = sqlite3_column_int64(rq, 0);
		d->t0 = sqlite3_column_int64(rq, 1);
	}
	sqlite3_finalize(rq);
	d->stopped_t = job_stopped_at(d);
	d->teardown_t = hang_teardown(d);
	if (d->teardown_t != T_NONE) {
		d->t0 = T_NONE;
		d->absent_request_ev = 0;
	}
	d->completed = q_int(db, 0, "SELECT count(*) FROM (" JOB_SUCCESS_SQL ")") > 0;
	d->has_fr = q_int(db, 0, "SELECT EXISTS (SELECT 1 FROM fr_entries)") != 0;
}

bool diag_rank_absent(struct diagnosis *d, int rank)
{
	struct rank_facts *r = diag_rank(d, rank);
	return !r || !r->events;
}

size_t diag_ranks_absent(struct diagnosis *d)
{
	size_t n = 0;
	for (int rank = 0; rank < d->world; rank++)
		n += diag_rank_absent(d, rank);
	return n;
}

bool diag_few(const struct diagnosis *d, size_t n)
{
	return FEW_RANKS_DIVISOR * n <= d->nranks;
}

size_t diag_ranks_with_logs(struct diagnosis *d)
{
	size_t n = 0;
	for (size_t i = 0; i < d->nranks; i++)
		n += d->ranks[i].events > 0;
	return n;
}

bool diag_culprits_whole_host(struct diagnosis *d, const char *host)
{
	size_t on_host = 0, culprits_on_host = 0;
	for (size_t i = 0; i < d->nranks; i++)
		if (strcmp(d->ranks[i].host, host) == 0) {
			on_host++;
			culprits_on_host += v_has_culprit(&d->v, d->ranks[i].rank);
		}
	return host[0] && on_host > 1 && culprits_on_host == on_host && d->v.nculprits == on_host;
}

bool diag_op_uncompared(const char *op)
{
	char quoted[40];
	int n = snprintf(quoted, sizeof(quoted), "'%s'", op);
	return n > 2 && (size_t)n < sizeof(quoted) && strstr(DIAG_UNCOMPARED_OPS, quoted) != NULL;
}

const char *diag_alive_sign(const struct rank_facts *r)
{
	return r->has_dump ? "it answered the dump request" : "it logged after the first failure";
}

void diag_free(struct diagnosis *d)
{
	free(d->ranks);
	free(d->v.culprits);
	free(d->v.evidence);
	for (int i = 0; i < d->v.nmissing; i++)
		free(d->v.missing[i]);
	free(d->v.missing);
	buf_free(&d->v.summary);
	buf_free(&d->decline);
	free(d->collective_scan);
	for (int i = 0; i < DIAG_STMT_COUNT; i++)
		sqlite3_finalize(d->stmt[i]);
}

sqlite3_stmt *diag_stmt(struct diagnosis *d, enum diag_stmt_slot slot, const char *sql)
{
	sqlite3_stmt **st = &d->stmt[slot];
	if (!*st) {
		*st = db_prepare(d->db, sql);
	} else {
		sqlite3_reset(*st);
		sqlite3_clear_bindings(*st);
	}
	return *st;
}

struct rank_facts *diag_rank(struct diagnosis *d, int rank)
{
	/* ranks are sorted by rank */
	size_t lo = 0, hi = d->nranks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->ranks[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nranks && d->ranks[lo].rank == rank ? &d->ranks[lo] : NULL;
}

const char *diag_pg_name(struct diagnosis *d, const char *pg, char *out, size_t n)
{
	if (!q_text(d->db, out, n, "SELECT coalesce(nullif(desc, ''), nullif(name, ''), pg) FROM process_groups WHERE pg = %Q", pg))
		snprintf(out, n, "%s", pg);
	return out;
}

const char *diag_pg_display(struct diagnosis *d, const char *pg, char *out, size_t n)
{
	diag_pg_name(d, pg, out, n);
	/* a group that only NCCL's split of a communicator names (no name, no
	 * description): its members say which group it is */
	if (strncmp(out, "split:", 6) != 0)
		return out;
	int *ranks = NULL;
	size_t nr = 0, cap = 0;
	sqlite3_stmt *st = db_prepare(d->db, "SELECT DISTINCT rank FROM (SELECT rank FROM pg_members WHERE pg = ?1"
					     " UNION ALL SELECT rank FROM comms WHERE comm_id = ?1) WHERE rank IS NOT NULL"
					     " ORDER BY rank");
	sqlite3_bind_text(st, 1, pg, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&ranks, &cap, nr + 1, sizeof(*ranks));
		ranks[nr++] = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	if (nr) {
		struct buf l = {0};
		fmt_rank_list(ranks, nr, &l);
		size_t len = strlen(out);
		snprintf(out + len, n - len, " (rank%s %s)", nr > 1 ? "s" : "", l.data);
		buf_free(&l);
	}
	free(ranks);
	return out;
}

void diag_hosts_json(struct diagnosis *d, const int *ranks, size_t n, struct buf *out)
{
	buf_clear(out);
	buf_putc(out, '[');
	int count = 0;
	for (size_t i = 0; i < n; i++) {
		struct rank_facts *r = diag_rank(d, ranks[i]);
		if (!r || !r->host[0])
			continue;
		bool dup = false;
		for (size_t j = 0; j < i && !dup; j++) {
			struct rank_facts *q = diag_rank(d, ranks[j]);
			dup = q && strcmp(q->host, r->host) == 0;
		}
		if (dup)
			continue;
		if (count++)
			buf_putc(out, ',');
		buf_json_str(out, r->host, strlen(r->host));
	}
	buf_putc(out, ']');
}

void fmt_time(int64_t t, char *out, size_t n)
{
	if (t == T_NONE) {
		snprintf(out, n, "?");
		return;
	}
	char iso[40];
	ts_format_iso(t, iso, sizeof(iso));
	/* 2026-11-29T23:56:08.174Z -> 23:56:08.174 */
	snprintf(out, n, "%.12s", iso + 11);
}

int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

void v_culprit(struct verdict *v, int rank)
{
	if (v_has_culprit(v, rank))
		return;
	xgrow(&v->culprits, &v->culprits_cap, v->nculprits + 1, sizeof(*v->culprits));
	v->culprits[v->nculprits++] = rank;
	xqsort(v->culprits, v->nculprits, sizeof(*v->culprits), cmp_int);
}

void v_say_culprits(struct verdict *v, const char *how)
{
	if (v->nculprits < 2)
		return;
	buf_printf(&v->summary, " %zu ranks %s: ", v->nculprits, how);
	fmt_rank_list(v->culprits, v->nculprits, &v->summary);
	buf_putc(&v->summary, '.');
}

const char *v_peer_op(const struct verdict *v)
{
	return v->peer_op[0] ? v->peer_op : v->op;
}

bool v_has_culprit(const struct verdict *v, int rank)
{
	for (size_t i = 0; i < v->nculprits; i++)
		if (v->culprits[i] == rank)
			return true;
	return false;
}

void v_reset(struct verdict *v)
{
	v->nculprits = 0;
	v->nevidence = 0;
	for (int i = 0; i < v->nmissing; i++)
		free(v->missing[i]);
	v->nmissing = 0;
	v->rule = NULL;
	v->pg[0] = v->op[0] = v->peer_op[0] = '\0';
	v->seq = -1;
	buf_clear(&v->summary);
	v->outcome = v->cause = v->confidence = NULL;
}

void v_cite_event(struct verdict *v, int64_t event_id, const char *note)
{
	if (event_id <= 0)
		return;
	for (size_t i = 0; i < v->nevidence; i++)
		if (v->evidence[i].event_id == event_id)
			return;
	xgrow(&v->evidence, &v->evidence_cap, v->nevidence + 1, sizeof(*v->evidence));
	struct cited *c = &v->evidence[v->nevidence++];
	memset(c, 0, sizeof(*c));
	c->event_id = event_id;
	snprintf(c->note, sizeof(c->note), "%s", note ? note : "");
}

void v_cite_line(struct verdict *v, int64_t source_id, int64_t line_no, const char *note)
{
	xgrow(&v->evidence, &v->evidence_cap, v->nevidence + 1, sizeof(*v->evidence));
	struct cited *c = &v->evidence[v->nevidence++];
	memset(c, 0, sizeof(*c));
	c->source_id = source_id;
	c->line_no = line_no;
	snprintf(c->note, sizeof(c->note), "%s", note ? note : "");
}

void v_missing(struct verdict *v, const char *fmt, ...)
{
	/* as long as it needs to be (a fixed slot once cut a real verdict's
	 * sentence mid-word) */
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (v->nmissing >= v->missing_cap) {
		v->missing_cap = v->missing_cap ? v->missing_cap * 2 : 8;
		v->missing = xrealloc(v->missing, (size_t)v->missing_cap * sizeof(*v->missing));
	}
	v->missing[v->nmissing++] = b.data ? b.data : xstrdup("");
}

void v_decline(struct diagnosis *d, const char *fmt, ...)
{
	buf_clear(&d->decline);
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&d->decline, fmt, ap);
	va_end(ap);
}

void rank_desc(struct diagnosis *d, int rank, struct buf *out)
{
	struct rank_facts *r = diag_rank(d, rank);
	buf_printf(out, "rank %d", rank);
	if (r && r->host[0] && r->local_rank >= 0)
		buf_printf(out, " (%s, local rank %d)", r->host, r->local_rank);
	else if (r && r->host[0])
		buf_printf(out, " (%s)", r->host);
}

/* Sorted ranks as "2, 3", "0-5, 8", or, for a long list with one stride
 * (the same rank of every replica), "2, 8, ..., 1022 (every 6th, 171 ranks)";
 * other long lists are cut after 24 items with the count. */
void fmt_rank_list(const int *ranks, size_t n, struct buf *out)
{
	if (n >= 5) {
		int stride = ranks[1] - ranks[0];
		bool regular = stride > 1;
		for (size_t i = 2; i < n && regular; i++)
			regular = ranks[i] - ranks[i - 1] == stride;
		if (regular) {
			int tens = stride % 100 / 10, unit = stride % 10;
			const char *suffix = tens == 1 || unit > 3 || unit == 0 ? "th" : unit == 1 ? "st" : unit == 2 ? "nd" : "rd";
			buf_printf(out, "%d, %d, ..., %d (every %d%s, %zu ranks)", ranks[0], ranks[1], ranks[n - 1], stride,
				   suffix, n);
			return;
		}
	}
	size_t items = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
			j++;
		if (items == 24) {
			buf_printf(out, ", ... (%zu ranks)", n);
			return;
		}
		if (i)
			buf_puts(out, ", ");
		if (j >= i + 2)
			buf_printf(out, "%d-%d", ranks[i], ranks[j]);
		else if (j == i + 1)
			buf_printf(out, "%d, %d", ranks[i], ranks[j]);
		else
			buf_printf(out, "%d", ranks[i]);
		items++;
		i = j + 1;
	}
}

bool diag_declines_named_ranks(struct diagnosis *d)
{
	for (size_t i = 0; i < d->nranks; i++)
		if (d->ranks[i].exited && d->ranks[i].exit_code != 0) {
			v_decline(d, "rank %d's process ended with a failure: the rules that name ranks judge", d->ranks[i].rank);
			return true;
		}
	if (q_int(d->db, 0, "%s", "SELECT EXISTS (SELECT 1 FROM events WHERE rank IS NOT NULL AND kind IN " FAILURE_KINDS ")")) {
		v_decline(d, "failures of ranks the lines name: the rules that name ranks judge");
		return true;
	}
	return false;
}
