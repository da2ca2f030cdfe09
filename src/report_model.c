/* report_model.c: loads a report (see report_model.h) from a case through
 * SQL, and the formatting helpers the writers share. Tables the analysis has
 * not filled (or a case without them) load as empty. */
#include "report_model.h"

#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "redact.h"
#include "report_bandwidth.h"
#include "timestamp.h"

/* Distinct strings, each kept once in the model's pool (open addressing;
 * slots NULL or a pooled string; cap a power of two). */
struct interned {
	const char **slots;
	size_t n, cap;
};

struct loader {
	sqlite3 *db;
	struct report_model *m;
	struct redact *r; /* NULL: no redaction */
	struct interned strings;
};

/* Text for an event whose line is not stored (flight-recorder entries:
 * line_no is the entry number): made from its fields. */
#define EVENT_TEXT(ev, line)                                                                              \
	"CASE WHEN " ev ".kind = 'fr_entry' THEN (SELECT printf('flight recorder entry %d: %s seq %s %s numel_in=%s " \
	"numel_out=%s %s, state %s%s', " line ", f.pg_desc, f.seq, f.op, f.numel_in, f.numel_out, f.dtype, "      \
	"f.state, coalesce(', at ' || f.frame, '')) FROM fr_entries f WHERE f.event_id = " ev ".event_id) "   \
	"WHEN " ev ".kind IS NOT NULL THEN " ev ".kind || ' ' || " ev ".fields END"

/* A line whose text is wanted, and where to put it. */
struct want {
	int64_t src, line;
	const char **dst;
};

/* NULL when the SQL does not prepare (a table missing in an old case). */
static sqlite3_stmt *prep(struct loader *L, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(L->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

static bool step_row(sqlite3_stmt *st)
{
	return st && sqlite3_step(st) == SQLITE_ROW;
}

/* Grows an array of n items so that item n fits (capacity: powers of two). */
static void *grow_pow2(void *v, size_t n, size_t size)
{
	if (n == 0 || (n & (n - 1)) == 0)
		v = xrealloc(v, (n ? n * 2 : 1) * size);
	return v;
}

static const char *keep(struct loader *L, char *s)
{
	struct rm_strs *p = &L->m->pool;
	p->v = grow_pow2(p->v, p->n, sizeof(char *));
	p->v[p->n++] = s;
	return s;
}

/* The pooled copy of s (taken over: s is the caller's allocation), one per
 * distinct string. */
static const char *intern(struct loader *L, char *s)
{
	struct interned *t = &L->strings;
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		const char **slots = xcalloc(cap, sizeof(*slots));
		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i]) {
				size_t j = hash_str(t->slots[i]) & (cap - 1);
				while (slots[j])
					j = (j + 1) & (cap - 1);
				slots[j] = t->slots[i];
			}
		free(t->slots);
		t->slots = slots;
		t->cap = cap;
	}
	size_t j = hash_str(s) & (t->cap - 1);
	for (; t->slots[j]; j = (j + 1) & (t->cap - 1))
		if (strcmp(t->slots[j], s) == 0) {
			free(s);
			return t->slots[j];
		}
	t->n++;
	return t->slots[j] = keep(L, s);
}

/* A copy of a text column (NULL for SQL NULL), redacted when asked; host:
 * it holds a host name. */
static char *col_copy(struct loader *L, sqlite3_stmt *st, int c, bool host)
{
	char *s = db_column_text_dup(st, c); /* a NUL shown as \0 */
	if (!s || !L->r)
		return s;
	char *out = host ? xstrdup(redact_host(L->r, s)) : redact_text(L->r, s);
	free(s);
	return out;
}

/* Text column, redacted when asked. */
static const char *col_str(struct loader *L, sqlite3_stmt *st, int c)
{
	char *s = col_copy(L, st, c, false);
	return s ? keep(L, s) : NULL;
}

/* A column that holds a host name. */
static const char *col_host(struct loader *L, sqlite3_stmt *st, int c)
{
	char *s = col_copy(L, st, c, true);
	return s ? keep(L, s) : NULL;
}

/* A text column whose values repeat (kinds, hosts, paths): one copy of each
 * distinct value; host: it holds a host name. */
static const char *col_shared(struct loader *L, sqlite3_stmt *st, int c, bool host)
{
	char *s = col_copy(L, st, c, host);
	return s ? intern(L, s) : NULL;
}

static int64_t col_int(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL ? RM_NONE : sqlite3_column_int64(st, c);
}

static const char *col_pid(struct loader *L, sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NULL;
	int64_t pid = sqlite3_column_int64(st, c);
	return keep(L, L->r ? xstrdup(redact_pid(L->r, pid)) : xasprintf("%lld", (long long)pid));
}

static void want_push(struct want **w, size_t *n, size_t *cap, int64_t src, int64_t line, const char **dst)
{
	if (src == RM_NONE || line == RM_NONE)
		return;
	xgrow(w, cap, *n + 1, sizeof(**w));
	(*w)[(*n)++] = (struct want){src, line, dst};
}

static int cmp_want(const void *a, const void *b)
{
	const struct want *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Reads the wanted lines from the `lines` table in one query (one cursor:
 * each lookup of its own would cost a cursor setup), by ranges of nearby
 * lines of each source. Lines not stored keep the text they have. */
static void fetch_lines(struct loader *L, struct want *w, size_t n)
{
	if (!n)
		return;
	xqsort(w, n, sizeof(*w), cmp_want);
	struct buf j = {0};
	buf_putc(&j, '[');
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;
		while (k < n && w[k].src == w[i].src && w[k].line - w[k - 1].line <= 256)
			k++;
		buf_printf(&j, "%s[%lld,%lld,%lld]", i ? "," : "", (long long)w[i].src, (long long)w[i].line,
			   (long long)w[k - 1].line);
		i = k;
	}
	buf_putc(&j, ']');
	sqlite3_stmt *st = prep(L, "SELECT l.source_id, l.line_no, l.text FROM json_each(?) r JOIN lines l "
				   "ON l.source_id = json_extract(r.value, '$[0]') AND l.line_no BETWEEN "
				   "json_extract(r.value, '$[1]') AND json_extract(r.value, '$[2]')");
	if (st)
		sqlite3_bind_text(st, 1, j.data, (int)j.len, SQLITE_STATIC);
	while (step_row(st)) {
		struct want key = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), NULL};
		struct want *hit = bsearch(&key, w, n, sizeof(*w), cmp_want);
		if (!hit)
			continue;
		while (hit > w && cmp_want(hit - 1, &key) == 0)
			hit--;
		const char *text = col_str(L, st, 2);
		for (; hit < w + n && cmp_want(hit, &key) == 0; hit++)
			*hit->dst = text;
	}
	sqlite3_finalize(st);
	buf_free(&j);
}

static void ints_push(struct rm_ints *a, int64_t v)
{
	a->v = grow_pow2(a->v, a->n, sizeof(*a->v));
	a->v[a->n++] = v;
}

static void strs_push(struct rm_strs *a, char *s)
{
	a->v = grow_pow2(a->v, a->n, sizeof(*a->v));
	a->v[a->n++] = s;
}

/* Elements of a JSON array text (column c of st); malformed text gives none. */
static void json_array(struct loader *L, sqlite3_stmt *src, int c, struct rm_ints *ints, struct rm_strs *strs, bool hosts)
{
	if (sqlite3_column_type(src, c) == SQLITE_NULL)
		return;
	sqlite3_stmt *st = prep(L, "SELECT value, type FROM json_each(?) ORDER BY CAST(key AS INTEGER)");
	if (!st)
		return;
	sqlite3_bind_value(st, 1, sqlite3_column_value(src, c));
	while (step_row(st)) {
		if (ints && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
			ints_push(ints, sqlite3_column_int64(st, 0));
		else if (strs && sqlite3_column_type(st, 0) != SQLITE_NULL)
			strs_push(strs, (char *)(hosts ? col_host(L, st, 0) : col_str(L, st, 0)));
	}
	sqlite3_finalize(st);
}

/* Hosts get aliases in sorted order, pids in rank order, before any text. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void register_names(struct loader *L)
{
	static const char *const host_sql[] = {
		"SELECT host AS h FROM ranks", "SELECT host AS h FROM sources", "SELECT content_host AS h FROM sources",
		"SELECT host AS h FROM procs", "SELECT host AS h FROM comms", "SELECT host AS h FROM network",
		"SELECT host AS h FROM config", "SELECT host AS h FROM sysmsgs", "SELECT host AS h FROM cascade",
		"SELECT host AS h FROM rank_status",
		"SELECT j.value AS h FROM verdict, json_each(verdict.culprit_hosts) j",
		"SELECT j.value AS h FROM findings, json_each(findings.hosts) j"};
	struct rm_strs all = {0};
	for (size_t i = 0; i < ARRAY_LEN(host_sql); i++) {
		char *sql = xasprintf("SELECT DISTINCT h FROM (%s) WHERE typeof(h) = 'text' AND h <> ''", host_sql[i]);
		sqlite3_stmt *st = prep(L, sql);
		free(sql);
		while (step_row(st))
			strs_push(&all, xstrdup((const char *)sqlite3_column_text(st, 0)));
		sqlite3_finalize(st);
	}
	if (all.n)
		xqsort(all.v, all.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < all.n; i++)
		if (i == 0 || strcmp(all.v[i], all.v[i - 1]) != 0)
			redact_host(L->r, all.v[i]);
	for (size_t i = 0; i < all.n; i++)
		free(all.v[i]);
	free(all.v);
	sqlite3_stmt *st = prep(L, "SELECT pid FROM (SELECT rank, 0 AS o, pid FROM ranks UNION ALL "
				   "SELECT rank, 1, pid FROM procs UNION ALL SELECT rank, 2, pid FROM sources) "
				   "WHERE pid IS NOT NULL ORDER BY o, rank, pid");
	while (step_row(st))
		redact_pid(L->r, sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
}

static void load_verdict(struct loader *L)
{
	struct report_model *m = L->m;
	/* (a case analysed before the rules were recorded has no verdict.rule) */
	bool has_rule = db_int(L->db, "SELECT count(*) FROM pragma_table_info('verdict') WHERE name = 'rule'", 0) > 0;
	sqlite3_stmt *st = prep(L, has_rule ? "SELECT outcome, cause, culprit_ranks, culprit_hosts, process_group, seq, op, "
					      "first_failure_us, confidence, summary, missing, rule FROM verdict ORDER BY rowid LIMIT 1"
					    : "SELECT outcome, cause, culprit_ranks, culprit_hosts, process_group, seq, op, "
					      "first_failure_us, confidence, summary, missing, NULL FROM verdict ORDER BY rowid LIMIT 1");
	m->seq = m->first_failure_us = RM_NONE;
	m->missing_null = true;
	if (step_row(st)) {
		m->has_verdict = true;
		m->outcome = col_str(L, st, 0);
		m->cause = col_str(L, st, 1);
		json_array(L, st, 2, &m->culprit_ranks, NULL, false);
		json_array(L, st, 3, NULL, &m->culprit_hosts, true);
		m->process_group = col_str(L, st, 4);
		m->seq = col_int(st, 5);
		m->op = col_str(L, st, 6);
		m->first_failure_us = col_int(st, 7);
		m->confidence = col_str(L, st, 8);
		m->summary = col_str(L, st, 9);
		m->missing_null = sqlite3_column_type(st, 10) == SQLITE_NULL;
		json_array(L, st, 10, NULL, &m->missing, false);
		m->rule = col_str(L, st, 11);
	}
	sqlite3_finalize(st);
	if (!m->outcome)
		m->outcome = "unknown";
	if (!m->cause)
		m->cause = "unknown";
	if (!m->confidence)
		m->confidence = "low";
}

static void load_findings(struct loader *L)
{
	struct report_model *m = L->m;
	sqlite3_stmt *st = prep(L, "SELECT finding_id, kind, severity, ranks, hosts, summary, hint FROM findings "
				   "ORDER BY finding_id");
	int64_t *ids = NULL;
	size_t cap = 0;
	while (step_row(st)) {
		xgrow(&m->findings, &cap, m->n_findings + 1, sizeof(*m->findings));
		ids = xrealloc(ids, cap * sizeof(*ids));
		struct rm_finding *f = &m->findings[m->n_findings];
		memset(f, 0, sizeof(*f));
		ids[m->n_findings++] = sqlite3_column_int64(st, 0);
		f->kind = col_str(L, st, 1);
		f->severity = col_str(L, st, 2);
		json_array(L, st, 3, &f->ranks, NULL, false);
		json_array(L, st, 4, NULL, &f->hosts, true);
		f->summary = col_str(L, st, 5);
		f->hint = col_str(L, st, 6);
	}
	sqlite3_finalize(st);

	/* evidence of the verdict (finding 0) and of each finding, in order */
	st = prep(L, "SELECT e.finding_id, s.path, coalesce(e.line_no, ev.line_no), e.note, " EVENT_TEXT(
			     "ev", "coalesce(e.line_no, ev.line_no)") ", s.source_id FROM evidence e "
			     "LEFT JOIN events ev ON ev.event_id = coalesce(e.event_id, (SELECT x.event_id FROM events x "
			     "  WHERE x.source_id = e.source_id AND x.line_no = e.line_no ORDER BY x.event_id LIMIT 1)) "
			     "LEFT JOIN sources s ON s.source_id = coalesce(e.source_id, ev.source_id) "
			     "ORDER BY e.finding_id, e.ord, e.rowid");
	size_t fi = 0, vcap = 0;
	size_t *caps = xcalloc(m->n_findings + 1, sizeof(size_t));
	while (step_row(st)) {
		int64_t id = sqlite3_column_int64(st, 0);
		struct rm_evidence **arr;
		size_t *n, *c;
		if (id == 0) {
			arr = &m->ev, n = &m->n_ev, c = &vcap;
		} else {
			while (fi < m->n_findings && ids[fi] < id)
				fi++;
			if (fi >= m->n_findings || ids[fi] != id)
				continue;
			arr = &m->findings[fi].ev, n = &m->findings[fi].n_ev, c = &caps[fi];
		}
		xgrow(arr, c, *n + 1, sizeof(**arr));
		struct rm_evidence *e = &(*arr)[(*n)++];
		e->source = col_str(L, st, 1);
		e->line = col_int(st, 2);
		e->note = col_str(L, st, 3);
		e->text = col_str(L, st, 4);
		e->src = col_int(st, 5);
	}
	sqlite3_finalize(st);
	free(caps);
	free(ids);
	struct want *w = NULL;
	size_t nw = 0, wcap = 0;
	for (size_t i = 0; i < m->n_ev; i++)
		want_push(&w, &nw, &wcap, m->ev[i].src, m->ev[i].line, &m->ev[i].text);
	for (size_t f = 0; f < m->n_findings; f++)
		for (size_t i = 0; i < m->findings[f].n_ev; i++)
			want_push(&w, &nw, &wcap, m->findings[f].ev[i].src, m->findings[f].ev[i].line,
				  &m->findings[f].ev[i].text);
	fetch_lines(L, w, nw);
	free(w);
}

static void load_cascade(struct loader *L)
{
	struct report_model *m = L->m;
	sqlite3_stmt *st = prep(L, "SELECT ord, rank, host, time_us, offset_ms, what, role FROM cascade ORDER BY ord");
	size_t cap = 0;
	while (step_row(st)) {
		xgrow(&m->cascade, &cap, m->n_cascade + 1, sizeof(*m->cascade));
		struct rm_cascade *c = &m->cascade[m->n_cascade++];
		c->ord = col_int(st, 0);
		c->rank = col_int(st, 1);
		c->host = col_host(L, st, 2);
		c->time_us = col_int(st, 3);
		c->offset_ms = col_int(st, 4);
		if (c->offset_ms == RM_NONE && c->time_us != RM_NONE && m->first_failure_us != RM_NONE)
			c->offset_ms = i64_sub_sat(c->time_us, m->first_failure_us) / 1000;
		c->what = col_str(L, st, 5);
		c->role = col_str(L, st, 6);
	}
	sqlite3_finalize(st);
}

/* rank_status is read by column name, so columns the analysis adds or drops
 * do not break the report. */
static void load_rank_status(struct loader *L)
{
	struct report_model *m = L->m;
	sqlite3_stmt *st = prep(L, "SELECT * FROM rank_status ORDER BY rank");
	int ncol = st ? sqlite3_column_count(st) : 0;
	while (step_row(st)) {
		struct rm_rank *r = NULL;
		for (int c = 0; c < ncol && !r; c++)
			if (strcmp(sqlite3_column_name(st, c), "rank") == 0)
				r = (struct rm_rank *)rm_rank_find(m, sqlite3_column_int64(st, c));
		for (int c = 0; c < ncol && r; c++) {
			static const char *const names[] = {"first_time_us", "last_time_us", "last_step", "last_step_time_us",
							    "first_error_time_us", "exit_code", "exit_time_us"};
			int64_t *ints[] = {&r->first_us, &r->last_us, &r->last_step, &r->last_step_us, &r->first_error_us,
					   &r->exit_code, &r->exit_us};
			const char *name = sqlite3_column_name(st, c);
			for (size_t k = 0; k < ARRAY_LEN(names); k++)
				if (strcmp(name, names[k]) == 0)
					*ints[k] = col_int(st, c);
			if (strcmp(name, "first_error_kind") == 0)
				r->first_error_kind = col_str(L, st, c);
			else if (strcmp(name, "exit_signal") == 0)
				r->exit_signal = col_str(L, st, c);
			else if (strcmp(name, "role") == 0 || (strcmp(name, "state") == 0 && !r->role))
				r->role = col_str(L, st, c);
		}
	}
	sqlite3_finalize(st);
}

static void load_ranks(struct loader *L)
{
	struct report_model *m = L->m;
	sqlite3_stmt *st = prep(L, "SELECT rank, host, local_rank, pid, cuda_dev, bus_id, pci FROM ranks ORDER BY rank");
	size_t cap = 0;
	while (step_row(st)) {
		xgrow(&m->ranks, &cap, m->n_ranks + 1, sizeof(*m->ranks));
		struct rm_rank *r = &m->ranks[m->n_ranks++];
		memset(r, 0, sizeof(*r));
		r->rank = col_int(st, 0);
		r->host = col_host(L, st, 1);
		r->local_rank = col_int(st, 2);
		r->pid = col_int(st, 3);
		r->pid_str = col_pid(L, st, 3);
		r->cuda_dev = col_int(st, 4);
		r->bus_id = col_str(L, st, 5);
		r->pci = col_str(L, st, 6);
		r->last_step = r->last_step_us = r->first_error_us = r->exit_code = r->exit_us = RM_NONE;
		r->first_us = r->last_us = RM_NONE;
		for (size_t i = 0; i < m->culprit_ranks.n; i++)
			if (m->culprit_ranks.v[i] == r->rank)
				r->culprit = true;
	}
	sqlite3_finalize(st);
	load_rank_status(L);
	st = prep(L, "SELECT DISTINCT host FROM ranks WHERE host IS NOT NULL ORDER BY host");
	while (step_row(st))
		strs_push(&m->hosts, (char *)col_host(L, st, 0));
	sqlite3_finalize(st);
}

static void load_tables(struct loader *L)
{
	struct report_model *m = L->m;
	size_t cap = 0;
	sqlite3_stmt *st = prep(L, "SELECT host, rank, pid, comm_id, bootstrap_if, bootstrap_addr, socket_ifname_env, "
				   "ib_hca_env, net_plugin, net_devices, network, gdr, transports, "
				   "CASE WHEN json_valid(transports) AND json_type(transports) = 'object' THEN (SELECT "
				   "group_concat(key, ', ') FROM (SELECT key FROM json_each(network.transports) ORDER BY key)) "
				   "ELSE transports END FROM network "
				   "ORDER BY host, rank, rowid");
	while (step_row(st)) {
		xgrow(&m->net, &cap, m->n_net + 1, sizeof(*m->net));
		struct rm_net *n = &m->net[m->n_net++];
		n->host = col_host(L, st, 0);
		n->rank = col_int(st, 1);
		n->pid_str = col_pid(L, st, 2);
		n->comm_id = col_str(L, st, 3);
		n->bootstrap_if = col_str(L, st, 4);
		n->bootstrap_addr = col_str(L, st, 5);
		n->socket_ifname_env = col_str(L, st, 6);
		n->ib_hca_env = col_str(L, st, 7);
		n->net_plugin = col_str(L, st, 8);
		n->net_devices = col_str(L, st, 9);
		n->network = col_str(L, st, 10);
		n->gdr = col_str(L, st, 11);
		n->transports = col_str(L, st, 12);
		n->transport_kinds = col_str(L, st, 13);
	}
	sqlite3_finalize(st);
	cap = 0;
	st = prep(L, "SELECT host, rank, name, value, origin FROM config ORDER BY name, value, host, rank, rowid");
	while (step_row(st)) {
		xgrow(&m->config, &cap, m->n_config + 1, sizeof(*m->config));
		struct rm_config *c = &m->config[m->n_config++];
		c->host = col_host(L, st, 0);
		c->rank = col_int(st, 1);
		c->name = col_str(L, st, 2);
		c->value = col_str(L, st, 3);
		c->origin = col_str(L, st, 4);
	}
	sqlite3_finalize(st);
	cap = 0;
	st = prep(L, "SELECT host, time_us, kind, device, code, rank, text FROM sysmsgs ORDER BY time_us, sysmsg_id");
	while (step_row(st)) {
		xgrow(&m->sysmsgs, &cap, m->n_sysmsgs + 1, sizeof(*m->sysmsgs));
		struct rm_sysmsg *s = &m->sysmsgs[m->n_sysmsgs++];
		s->host = col_host(L, st, 0);
		s->time_us = col_int(st, 1);
		s->kind = col_str(L, st, 2);
		s->device = col_str(L, st, 3);
		s->code = col_str(L, st, 4);
		s->rank = col_int(st, 5);
		s->text = col_str(L, st, 6);
	}
	sqlite3_finalize(st);
	cap = 0;
	st = prep(L, "SELECT path, kind, host, rank, lines, skipped_lines, skip_reason, error FROM sources "
		     "ORDER BY source_id");
	while (step_row(st)) {
		xgrow(&m->sources, &cap, m->n_sources + 1, sizeof(*m->sources));
		struct rm_source *s = &m->sources[m->n_sources++];
		s->path = col_str(L, st, 0);
		s->kind = col_str(L, st, 1);
		s->host = col_host(L, st, 2);
		s->rank = col_int(st, 3);
		s->lines = col_int(st, 4);
		s->skipped = col_int(st, 5);
		s->skip_reason = col_str(L, st, 6);
		s->error = col_str(L, st, 7);
	}
	sqlite3_finalize(st);
}

static const char *meta_str(struct loader *L, const char *key)
{
	sqlite3_stmt *st = prep(L, "SELECT value FROM meta WHERE key = ?");
	const char *v = NULL;
	if (st) {
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		if (step_row(st))
			v = col_str(L, st, 0);
	}
	sqlite3_finalize(st);
	return v;
}

static int64_t meta_int(struct loader *L, const char *key)
{
	const char *v = meta_str(L, key);
	return v ? strtoll(v, NULL, 10) : RM_NONE;
}

static void load_job(struct loader *L)
{
	struct report_model *m = L->m;
	m->input = meta_str(L, "input");
	m->tool_version = meta_str(L, "tool_version");
	m->input_bytes = meta_int(L, "input_bytes");
	m->members = meta_int(L, "members");
	m->lines = meta_int(L, "lines");
	m->skipped_lines = meta_int(L, "skipped_lines");
	m->first_us = m->last_us = RM_NONE;
	sqlite3_stmt *st = prep(L, "SELECT min(first_time_us), max(last_time_us) FROM sources "
				   "WHERE kind NOT IN ('dmesg', 'syslog', 'journal')");
	if (step_row(st)) {
		m->first_us = col_int(st, 0);
		m->last_us = col_int(st, 1);
	}
	sqlite3_finalize(st);
	st = prep(L, "SELECT DISTINCT v FROM (SELECT field(fields, 'version') v FROM events WHERE kind IN"
		     " ('nccl_version', 'nccl_tests_nccl_version')"
		     /* a flight-recorder dump's library version; nccl-tests' header's NCCL_VERSION_CODE (22902: 2.29.2) */
		     " UNION ALL SELECT * FROM (SELECT field(fields, 'comm_lib_version') FROM events WHERE kind = 'fr_dump'"
		     " UNION ALL SELECT (n / 10000) || '.' || (n % 10000 / 100) || '.' || (n % 100) FROM (SELECT"
		     "  CAST(field(fields, 'nccl_library') AS INTEGER) n FROM events WHERE kind = 'nccl_tests_version')"
		     "  WHERE n >= 20000) WHERE NOT EXISTS (SELECT 1 FROM events WHERE kind IN ('nccl_version',"
		     "  'nccl_tests_nccl_version')))"
		     " WHERE v IS NOT NULL ORDER BY v");
	while (step_row(st))
		strs_push(&m->nccl_versions, (char *)col_str(L, st, 0));
	sqlite3_finalize(st);
	st = prep(L, "SELECT DISTINCT field(fields, 'version') v FROM events WHERE kind IN ('torch_version', "
		     "'pytorch_version') AND v IS NOT NULL ORDER BY v");
	while (step_row(st))
		strs_push(&m->torch_versions, (char *)col_str(L, st, 0));
	sqlite3_finalize(st);
}

static enum rm_mark mark_of_class(const char *cls)
{
	static const struct {
		const char *cls;
		enum rm_mark k;
	} map[] = {{"step", MK_STEP}, {"timeout", MK_TIMEOUT}, {"error", MK_ERROR}, {"exit", MK_EXIT},
		   {"signal", MK_EXIT}, {"dump", MK_DUMP}};
	for (size_t i = 0; i < ARRAY_LEN(map); i++)
		if (cls && strcmp(cls, map[i].cls) == 0)
			return map[i].k;
	return MK_ERROR;
}

static int cmp_marker(const void *a, const void *b)
{
	const struct rm_marker *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->time_us != y->time_us)
		return x->time_us < y->time_us ? -1 : 1;
	if (x->mark != y->mark)
		return x->mark < y->mark ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Markers of no event sort after those of events, in the order made. */
#define NO_EVENT_ORDER (INT64_MAX / 2)

static void push_marker(struct report_model *m, size_t *cap, struct rm_marker k)
{
	xgrow(&m->markers, cap, m->n_markers + 1, sizeof(*m->markers));
	k.order = NO_EVENT_ORDER + (int64_t)m->n_markers;
	m->markers[m->n_markers++] = k;
}

/* The texts of the markers the timeline draws (its rows' ranks; a large
 * job's rows show a few hosts for many): the event as text, then its line
 * where the marker carries one (steps only where each rank has a row).
 * Reading them for every marker held ~50 MB at 16,384 ranks. */
static void load_marker_texts(struct loader *L)
{
	struct report_model *m = L->m;
	int64_t *drawn;
	size_t nd = report_svg_drawn_ranks(m, &drawn);
	xqsort(drawn, nd, sizeof(*drawn), cmp_i64);
	size_t *idx = NULL, n = 0, cap = 0;
	struct buf ids = {0};
	buf_putc(&ids, '[');
	for (size_t i = 0; i < m->n_markers; i++) {
		const struct rm_marker *k = &m->markers[i];
		if (k->order >= NO_EVENT_ORDER || !bsearch(&k->rank, drawn, nd, sizeof(*drawn), cmp_i64))
			continue;
		xgrow(&idx, &cap, n + 1, sizeof(*idx));
		buf_printf(&ids, "%s%lld", n ? "," : "", (long long)k->order);
		idx[n++] = i;
	}
	buf_putc(&ids, ']');
	free(drawn);
	sqlite3_stmt *st = n ? prep(L, "SELECT j.key, ev.source_id, ev.line_no, " EVENT_TEXT("ev", "ev.line_no")
					  " FROM json_each(?) j JOIN events ev ON ev.event_id = j.value")
			     : NULL;
	if (st)
		sqlite3_bind_text(st, 1, ids.data, (int)ids.len, SQLITE_STATIC);
	struct want *w = NULL;
	size_t nw = 0, wcap = 0;
	while (step_row(st)) {
		int64_t j = sqlite3_column_int64(st, 0);
		if (j < 0 || (size_t)j >= n)
			continue;
		struct rm_marker *k = &m->markers[idx[j]];
		k->text = col_str(L, st, 3);
		if (k->mark != MK_STEP || m->n_ranks <= RM_RANK_ROWS)
			want_push(&w, &nw, &wcap, col_int(st, 1), col_int(st, 2), &k->text);
	}
	sqlite3_finalize(st);
	fetch_lines(L, w, nw);
	free(w);
	free(idx);
	buf_free(&ids);
}

/* Events of each rank worth a marker: one per (rank, kind, time), the
 * per-rank file preferred over the console copy; launcher events that name a
 * rank's pid are put on that rank. */
static void load_markers(struct loader *L)
{
	struct report_model *m = L->m;
	sqlite3_stmt *st = prep(
		L, "WITH c AS ("
		   " SELECT e.event_id, e.rank, e.time_us, e.kind, e.class, e.source_id, e.line_no,"
		   "  field(e.fields, 'step') AS step, e.host"
		   "  FROM events e WHERE e.rank IS NOT NULL AND e.time_us IS NOT NULL"
		   "  AND e.class IN ('step', 'timeout', 'error', 'exit', 'dump')"
		   " UNION ALL"
		   " SELECT e.event_id, r.rank, e.time_us, e.kind, e.class, e.source_id, e.line_no,"
		   "  field(e.fields, 'step'), e.host"
		   "  FROM events e JOIN ranks r ON r.host = e.host AND r.pid = field(e.fields, 'pid')"
		   "  WHERE e.rank IS NULL AND e.time_us IS NOT NULL AND e.class IN ('exit', 'signal')),"
		   " d AS (SELECT c.*, s.path, row_number() OVER (PARTITION BY c.rank, c.kind, c.time_us"
		   "  ORDER BY s.kind = 'console', c.event_id) AS n FROM c JOIN sources s USING(source_id))"
		   " SELECT ev.rank, ev.time_us, ev.kind, ev.class, ev.step, ev.path, ev.line_no, ev.event_id, ev.host"
		   " FROM d ev WHERE ev.n = 1");
	size_t cap = 0;
	while (step_row(st)) {
		xgrow(&m->markers, &cap, m->n_markers + 1, sizeof(*m->markers));
		struct rm_marker *k = &m->markers[m->n_markers++];
		k->rank = col_int(st, 0);
		k->time_us = col_int(st, 1);
		k->label = col_shared(L, st, 2, false);
		k->mark = mark_of_class((const char *)sqlite3_column_text(st, 3));
		k->step = col_int(st, 4);
		k->source = col_shared(L, st, 5, false);
		k->line = sqlite3_column_int64(st, 6);
		k->order = sqlite3_column_int64(st, 7);
		k->text = NULL;
		k->host = col_shared(L, st, 8, true);
	}
	sqlite3_finalize(st);
	/* an exit the analysis knows of but no line shows (the ranks with an
	 * exit marker sorted, for a binary search: thousands of ranks have as
	 * many markers each) */
	int64_t *exited = xmalloc((m->n_markers ? m->n_markers : 1) * sizeof(*exited));
	size_t n_exited = 0;
	for (size_t j = 0; j < m->n_markers; j++)
		if (m->markers[j].mark == MK_EXIT)
			exited[n_exited++] = m->markers[j].rank;
	xqsort(exited, n_exited, sizeof(*exited), cmp_i64);
	for (size_t i = 0; i < m->n_ranks; i++) {
		const struct rm_rank *r = &m->ranks[i];
		if (r->exit_us == RM_NONE || bsearch(&r->rank, exited, n_exited, sizeof(*exited), cmp_i64))
			continue;
		push_marker(m, &cap, (struct rm_marker){
			.rank = r->rank, .time_us = r->exit_us, .step = RM_NONE, .mark = MK_EXIT, .host = r->host,
			.label = "exit", .text = r->exit_signal ? r->exit_signal : "exited", .source = "rank_status",
			.line = RM_NONE});
	}
	free(exited);
	for (size_t i = 0; i < m->n_sysmsgs; i++) {
		const struct rm_sysmsg *s = &m->sysmsgs[i];
		if (s->time_us == RM_NONE)
			continue;
		push_marker(m, &cap, (struct rm_marker){
			.rank = s->rank, .time_us = s->time_us, .step = RM_NONE, .mark = MK_SYSMSG, .host = s->host,
			.label = s->kind ? s->kind : "system message", .text = s->text, .source = "system message",
			.line = RM_NONE});
	}
	if (m->n_markers)
		xqsort(m->markers, m->n_markers, sizeof(*m->markers), cmp_marker);
	load_marker_texts(L);
}

int report_model_load(sqlite3 *db, const struct report_opts *o, struct report_model *m, struct errbuf *err)
{
	memset(m, 0, sizeof(*m));
	sqlite3_stmt *probe = NULL;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sources", -1, &probe, NULL) != SQLITE_OK) {
		sqlite3_finalize(probe);
		return errbuf_set(err, "not a readable case: %s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(probe);
	struct loader L = {.db = db, .m = m, .r = o->redact ? redact_new() : NULL};
	m->redacted = o->redact;
	if (L.r)
		register_names(&L);
	load_verdict(&L);
	load_findings(&L);
	load_cascade(&L);
	load_ranks(&L);
	load_tables(&L);
	load_job(&L);
	if (o->timeline)
		load_markers(&L);
	m->bandwidth = bw_report_load(db, L.r);
	redact_free(L.r);
	free(L.strings.slots);
	return 0;
}

void report_model_free(struct report_model *m)
{
	for (size_t i = 0; i < m->pool.n; i++)
		free(m->pool.v[i]);
	free(m->pool.v);
	for (size_t i = 0; i < m->n_findings; i++) {
		free(m->findings[i].ranks.v);
		free(m->findings[i].hosts.v);
		free(m->findings[i].ev);
	}
	free(m->findings);
	free(m->culprit_ranks.v);
	free(m->culprit_hosts.v);
	free(m->missing.v);
	free(m->ev);
	free(m->cascade);
	free(m->ranks);
	free(m->hosts.v);
	free(m->net);
	free(m->config);
	free(m->sysmsgs);
	free(m->sources);
	free(m->markers);
	bw_report_free(m->bandwidth);
	free(m->nccl_versions.v);
	free(m->torch_versions.v);
	memset(m, 0, sizeof(*m));
}

const struct rm_rank *rm_rank_find(const struct report_model *m, int64_t rank)
{
	size_t lo = 0, hi = m->n_ranks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->ranks[mid].rank == rank)
			return &m->ranks[mid];
		if (m->ranks[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void rm_fmt_time(struct buf *b, int64_t us)
{
	if (us == RM_NONE) {
		buf_puts(b, "-");
		return;
	}
	char t[40];
	ts_format_iso(us, t, sizeof(t));
	buf_puts(b, t);
}

static void fmt_span(struct buf *b, int64_t ms)
{
	char t[48];
	ts_format_span(ms, t, sizeof(t));
	buf_puts(b, t);
}

void rm_fmt_offset(struct buf *b, int64_t ms)
{
	if (ms == RM_NONE) {
		buf_puts(b, "-");
		return;
	}
	buf_putc(b, ms < 0 ? '-' : '+');
	fmt_span(b, ms < 0 ? -ms : ms);
}

void rm_fmt_duration(struct buf *b, int64_t us)
{
	if (us == RM_NONE || us < 0)
		buf_puts(b, "-");
	else
		fmt_span(b, us / 1000);
}

bool rm_fmt_ranks(struct buf *b, const int64_t *r, size_t n, size_t max_parts)
{
	if (!n) {
		buf_puts(b, "none");
		return false;
	}
	int64_t *s = xmalloc(n * sizeof(*s));
	memcpy(s, r, n * sizeof(*s));
	xqsort(s, n, sizeof(*s), cmp_i64);
	size_t parts = 0;
	bool cut = false;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && (s[j + 1] == s[j] || s[j + 1] == s[j] + 1))
			j++;
		if (max_parts && parts == max_parts) {
			buf_puts(b, ", ...");
			cut = true;
			break;
		}
		buf_printf(b, parts ? ", %lld" : "%lld", (long long)s[i]);
		if (s[j] != s[i])
			buf_printf(b, s[j] == s[i] + 1 ? ", %lld" : "-%lld", (long long)s[j]);
		parts++;
		i = j + 1;
	}
	free(s);
	return cut;
}

const char *rm_mark_name(enum rm_mark k)
{
	static const char *const names[MK_COUNT] = {"step", "timeout", "error", "exit", "dump", "system message"};
	return (unsigned)k < MK_COUNT ? names[k] : "event";
}
