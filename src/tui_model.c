/* tui_model.c: loads the shared model of struct tui from the case: ranks
 * and hosts, event kinds, the verdict, the job's time span. Every query
 * goes through an index (seeks per rank or kind), so a 1,024-rank case
 * opens as fast as a small one; empty analysis tables are fine. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "tui.h"
#include "tui_colors.h"
#include "tui_draw.h"

#define NO_HOST_NAME "(no host)"

static char *col_dup(sqlite3_stmt *st, int i)
{
	return db_column_text_dup(st, i);
}

/* Host names are collected first, then sorted and made unique: a job of
 * 8,192 hosts looked each name up in a list (~0.3 s of strcmp at 16,384
 * ranks). t->host_by_name keeps the final order's indexes sorted by name
 * for tui_host_index. */
struct name_list {
	char **v;
	size_t n, cap;
};

static void names_push(struct name_list *l, const char *name)
{
	xgrow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = xstrdup(name);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct named_host {
	const char *name;
	int i;
};

static int cmp_named_host(const void *a, const void *b)
{
	return strcmp(((const struct named_host *)a)->name, ((const struct named_host *)b)->name);
}

int tui_host_index(const struct tui *t, const char *name)
{
	if (!name)
		return -1;
	size_t lo = 0, hi = t->n_hosts;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int i = t->host_by_name[mid];
		int c = strcmp(t->hosts[i].name, name);
		if (c == 0)
			return i;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int cmp_host(const void *a, const void *b)
{
	const struct tui_host *x = a, *y = b;
	bool nx = strcmp(x->name, NO_HOST_NAME) == 0, ny = strcmp(y->name, NO_HOST_NAME) == 0;
	if (nx != ny)
		return nx ? 1 : -1;
	if (x->first_rank != y->first_rank)
		return x->first_rank < y->first_rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The hosts, unique, in display order, and the name index over them. */
static void make_hosts(struct tui *t, struct name_list *names)
{
	if (names->n)
		xqsort(names->v, names->n, sizeof(*names->v), cmp_name);
	t->hosts = xcalloc(names->n + 1, sizeof(*t->hosts));
	for (size_t i = 0; i < names->n; i++) {
		if (t->n_hosts && strcmp(t->hosts[t->n_hosts - 1].name, names->v[i]) == 0) {
			free(names->v[i]);
			continue;
		}
		struct tui_host *h = &t->hosts[t->n_hosts++];
		h->name = names->v[i];
		h->first_rank = INT64_MAX;
	}
	free(names->v);
	t->host_by_name = xcalloc(t->n_hosts + 1, sizeof(int));
	for (size_t i = 0; i < t->n_hosts; i++)
		t->host_by_name[i] = (int)i; /* the hosts are sorted by name here */
}

static void order_hosts(struct tui *t)
{
	if (!t->n_hosts)
		return;
	xqsort(t->hosts, t->n_hosts, sizeof(*t->hosts), cmp_host);
	struct named_host *v = xmalloc(t->n_hosts * sizeof(*v));
	for (size_t i = 0; i < t->n_hosts; i++)
		v[i] = (struct named_host){t->hosts[i].name, (int)i};
	xqsort(v, t->n_hosts, sizeof(*v), cmp_named_host);
	for (size_t i = 0; i < t->n_hosts; i++)
		t->host_by_name[i] = v[i].i;
	free(v);
}

/* The hosts the timeline's "hosts with findings" filter keeps: the
 * verdict's culprits', those a finding names, those of the ranks that
 * caused or first detected the failure, and those with kernel messages.
 * Not every rank that timed out: in a hang that is every host. */
static void note_hosts(struct tui *t)
{
	static const char sql[] =
		"SELECT value FROM verdict, json_each(CASE WHEN json_valid(culprit_hosts) THEN culprit_hosts ELSE '[]' END)"
		" UNION SELECT value FROM findings, json_each(CASE WHEN json_valid(hosts) THEN hosts ELSE '[]' END)"
		" UNION SELECT r.host FROM ranks r JOIN rank_status s USING(rank) WHERE s.role IN ('cause', 'detector')"
		" UNION SELECT host FROM sysmsgs WHERE host IS NOT NULL AND kind <> 'other'";
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int h = name ? tui_host_index(t, name) : -1;
		if (h >= 0)
			t->hosts[h].noted = true;
	}
	sqlite3_finalize(st);
}

static int load_ranks(struct tui *t, struct errbuf *err)
{
	/* ranks that have events (one index seek each) and ranks the
	 * attribution found; hosts from `ranks`, else from the events */
	static const char sql[] =
		"WITH RECURSIVE r(rank) AS (SELECT min(rank) FROM events UNION ALL "
		"  SELECT (SELECT min(rank) FROM events WHERE rank > r.rank) FROM r WHERE r.rank IS NOT NULL), "
		"all_ranks(rank) AS (SELECT rank FROM r WHERE rank IS NOT NULL UNION SELECT rank FROM ranks WHERE rank IS NOT NULL) "
		"SELECT a.rank, coalesce((SELECT host FROM ranks k WHERE k.rank = a.rank), "
		"  (SELECT host FROM events e WHERE e.rank = a.rank AND e.host IS NOT NULL LIMIT 1)) "
		"FROM all_ranks a ORDER BY a.rank";
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK)
		return errbuf_set(err, "cannot read the ranks: %s", sqlite3_errmsg(t->db));
	struct name_list names = {0};
	char **rank_host = NULL; /* per rank, a copy of its host's name until the hosts are ordered */
	size_t cap = 0, rcap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&t->ranks, &cap, t->n_ranks + 1, sizeof(*t->ranks));
		xgrow(&rank_host, &rcap, t->n_ranks + 1, sizeof(*rank_host));
		struct tui_rank *r = &t->ranks[t->n_ranks];
		r->rank = sqlite3_column_int(st, 0);
		r->host = -1;
		const char *h = (const char *)sqlite3_column_text(st, 1);
		rank_host[t->n_ranks++] = h ? xstrdup(h) : NULL;
		if (h)
			names_push(&names, h);
	}
	sqlite3_finalize(st);
	/* hosts with no rank (a launcher's console) still have a row */
	if (sqlite3_prepare_v2(t->db, "SELECT DISTINCT host FROM sources WHERE host IS NOT NULL ORDER BY host", -1, &st,
			       NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			names_push(&names, (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	if (db_int(t->db, "SELECT 1 FROM events WHERE rank IS NULL AND host IS NULL AND time_us IS NOT NULL LIMIT 1", 0))
		names_push(&names, NO_HOST_NAME);
	make_hosts(t, &names);
	/* order hosts by their first rank, then give each its ranks */
	for (size_t i = 0; i < t->n_ranks; i++) {
		int h = tui_host_index(t, rank_host[i]);
		if (h >= 0 && t->ranks[i].rank < t->hosts[h].first_rank)
			t->hosts[h].first_rank = t->ranks[i].rank;
	}
	order_hosts(t);
	for (size_t i = 0; i < t->n_ranks; i++) {
		int h = tui_host_index(t, rank_host[i]);
		free(rank_host[i]);
		if (h < 0)
			continue;
		t->ranks[i].host = h;
		struct tui_host *hp = &t->hosts[h];
		hp->ranks = xrealloc(hp->ranks, (hp->n_ranks + 1) * sizeof(int));
		hp->ranks[hp->n_ranks++] = t->ranks[i].rank;
	}
	free(rank_host);
	note_hosts(t);
	return 0;
}

static int cmp_kind(const void *a, const void *b)
{
	return strcmp(((const struct tui_kind *)a)->name, ((const struct tui_kind *)b)->name);
}

static void load_kinds(struct tui *t)
{
	static const char sql[] =
		"WITH RECURSIVE k(kind) AS (SELECT min(kind) FROM events UNION ALL "
		"  SELECT (SELECT min(kind) FROM events WHERE kind > k.kind) FROM k WHERE k.kind IS NOT NULL) "
		"SELECT kind, (SELECT class FROM events e WHERE e.kind = k.kind LIMIT 1) FROM k WHERE kind IS NOT NULL";
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&t->kinds, &cap, t->n_kinds + 1, sizeof(*t->kinds));
		struct tui_kind *k = &t->kinds[t->n_kinds++];
		k->name = col_dup(st, 0);
		k->class_name = col_dup(st, 1);
		if (!k->class_name)
			k->class_name = xstrdup("info");
		k->marker = tui_marker_index(k->class_name);
		k->hidden = false;
	}
	sqlite3_finalize(st);
	if (t->n_kinds)
		xqsort(t->kinds, t->n_kinds, sizeof(*t->kinds), cmp_kind);
}

/* "[2, 5]" -> {2, 5} */
static void parse_int_list(const char *s, int **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!s)
		return;
	size_t cap = 0;
	while (*s) {
		if ((*s >= '0' && *s <= '9') || (*s == '-' && s[1] >= '0' && s[1] <= '9')) {
			char *end;
			long v = strtol(s, &end, 10);
			xgrow(out, &cap, *n + 1, sizeof(**out));
			(*out)[(*n)++] = (int)v;
			s = end;
		} else {
			s++;
		}
	}
}

/* ["gpu-node02","x"] -> gpu-node02, x */
static char *plain_list(const char *s)
{
	if (!s)
		return NULL;
	struct buf b = {0};
	buf_puts(&b, "");
	for (; *s; s++) {
		if (*s == '[' || *s == ']' || *s == '"')
			continue;
		if (*s == ',') {
			buf_puts(&b, ", ");
			while (s[1] == ' ')
				s++;
			continue;
		}
		buf_putc(&b, *s);
	}
	return b.data;
}

static void load_verdict(struct tui *t)
{
	struct tui_verdict *v = &t->verdict;
	sqlite3_stmt *st = NULL;
	/* (a case analysed before the rules were recorded has no verdict.rule) */
	bool has_rule = db_int(t->db, "SELECT count(*) FROM pragma_table_info('verdict') WHERE name = 'rule'", 0) > 0;
	if (sqlite3_prepare_v2(t->db,
			       has_rule ? "SELECT outcome, cause, culprit_ranks, culprit_hosts, process_group, seq, op, "
					  "first_failure_us, confidence, summary, rule FROM verdict LIMIT 1"
					: "SELECT outcome, cause, culprit_ranks, culprit_hosts, process_group, seq, op, "
					  "first_failure_us, confidence, summary, NULL FROM verdict LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		v->present = true;
		v->outcome = col_dup(st, 0);
		v->cause = col_dup(st, 1);
		parse_int_list((const char *)sqlite3_column_text(st, 2), &v->culprits, &v->n_culprits);
		v->culprit_hosts = plain_list((const char *)sqlite3_column_text(st, 3));
		v->process_group = col_dup(st, 4);
		v->has_seq = sqlite3_column_type(st, 5) != SQLITE_NULL;
		v->seq = sqlite3_column_int64(st, 5);
		v->op = col_dup(st, 6);
		v->has_first_failure = sqlite3_column_type(st, 7) != SQLITE_NULL;
		v->first_failure_us = tui_time(sqlite3_column_int64(st, 7));
		v->confidence = col_dup(st, 8);
		v->summary = col_dup(st, 9);
		v->rule = col_dup(st, 10);
	}
	sqlite3_finalize(st);
}

static void widen(struct tui *t, sqlite3_stmt *st)
{
	for (int c = 0; c < 2; c++) {
		if (sqlite3_column_type(st, c) == SQLITE_NULL)
			continue;
		int64_t v = tui_time(sqlite3_column_int64(st, c));
		if (!t->has_time) {
			t->t_min = t->t_max = v;
			t->has_time = true;
		}
		if (v < t->t_min)
			t->t_min = v;
		if (v > t->t_max)
			t->t_max = v;
	}
}

/* The job's span: events of ranks and of hosts (system messages), through
 * the time index from each end (one seek per rank read every rank's part of
 * the rank index: most of it at 16,384 ranks); else every event. */
static void load_span(struct tui *t)
{
	static const char *const ends[] = {
		"SELECT (SELECT time_us FROM events WHERE time_us IS NOT NULL AND (rank IS NOT NULL OR host IS NOT NULL)"
		" ORDER BY time_us LIMIT 1), (SELECT time_us FROM events WHERE time_us IS NOT NULL"
		" AND (rank IS NOT NULL OR host IS NOT NULL) ORDER BY time_us DESC LIMIT 1)",
		"SELECT min(time_us), max(time_us) FROM events",
	};
	for (size_t i = 0; i < 2 && !t->has_time; i++) {
		sqlite3_stmt *st = db_prepare(t->db, ends[i]);
		if (sqlite3_step(st) == SQLITE_ROW)
			widen(t, st);
		sqlite3_finalize(st);
	}
}

int tui_model_load(struct tui *t, struct errbuf *err)
{
	if (load_ranks(t, err) < 0)
		return -1;
	load_kinds(t);
	load_verdict(t);
	load_span(t);
	/* start on the culprit at the first failure, else the first rank */
	int rank = -1, host = t->n_hosts ? 0 : -1;
	if (t->verdict.n_culprits && tui_rank_index(t, t->verdict.culprits[0]) >= 0)
		rank = t->verdict.culprits[0];
	else if (t->n_ranks)
		rank = t->ranks[0].rank;
	if (rank >= 0)
		host = t->ranks[tui_rank_index(t, rank)].host;
	int64_t when = t->verdict.has_first_failure ? t->verdict.first_failure_us : t->t_min;
	t->cur_match = -1;
	tui_set_cursor(t, rank, host, when);
	return 0;
}

void tui_model_free(struct tui *t)
{
	for (size_t i = 0; i < t->n_hosts; i++) {
		free(t->hosts[i].name);
		free(t->hosts[i].ranks);
	}
	free(t->hosts);
	free(t->host_by_name);
	free(t->ranks);
	for (size_t i = 0; i < t->n_kinds; i++) {
		free(t->kinds[i].name);
		free(t->kinds[i].class_name);
	}
	free(t->kinds);
	struct tui_verdict *v = &t->verdict;
	free(v->outcome);
	free(v->cause);
	free(v->culprit_hosts);
	free(v->process_group);
	free(v->op);
	free(v->confidence);
	free(v->rule);
	free(v->summary);
	free(v->culprits);
	memset(v, 0, sizeof(*v));
}

long tui_rank_index(const struct tui *t, int rank)
{
	size_t lo = 0, hi = t->n_ranks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->ranks[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n_ranks && t->ranks[lo].rank == rank ? (long)lo : -1;
}

int tui_kind_index(const struct tui *t, const char *name)
{
	size_t lo = 0, hi = t->n_kinds;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(t->kinds[mid].name, name);
		if (c == 0)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

size_t tui_hidden_kinds(const struct tui *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n_kinds; i++)
		n += t->kinds[i].hidden;
	return n;
}

char *tui_kind_filter_sql(const struct tui *t, const char *col)
{
	if (!tui_hidden_kinds(t))
		return sqlite3_mprintf("1");
	sqlite3_str *s = sqlite3_str_new(NULL);
	sqlite3_str_appendf(s, "%s NOT IN (", col);
	bool first = true;
	for (size_t i = 0; i < t->n_kinds; i++) {
		if (!t->kinds[i].hidden)
			continue;
		sqlite3_str_appendf(s, "%s%Q", first ? "" : ",", t->kinds[i].name);
		first = false;
	}
	sqlite3_str_appendall(s, ")");
	return sqlite3_str_finish(s);
}

bool tui_is_culprit(const struct tui *t, int rank)
{
	for (size_t i = 0; i < t->verdict.n_culprits; i++)
		if (t->verdict.culprits[i] == rank)
			return true;
	return false;
}

void tui_verdict_line(const struct tui *t, char *out, size_t n)
{
	const struct tui_verdict *v = &t->verdict;
	if (!v->present) {
		snprintf(out, n, "no verdict (the verdict table is empty: run '" NF_PROG " analyze')");
		return;
	}
	struct buf b = {0};
	buf_printf(&b, "%s/%s", v->outcome ? v->outcome : "?", v->cause ? v->cause : "?");
	if (v->n_culprits) {
		buf_printf(&b, " | culprit%s", v->n_culprits > 1 ? "s" : "");
		for (size_t i = 0; i < v->n_culprits && i < 8; i++)
			buf_printf(&b, "%s r%d", i ? "," : "", v->culprits[i]);
		if (v->n_culprits > 8)
			buf_printf(&b, ",... (%zu)", v->n_culprits);
		if (v->culprit_hosts && *v->culprit_hosts && v->n_culprits <= 8)
			buf_printf(&b, " (%s)", v->culprit_hosts);
	}
	if (v->has_first_failure) {
		char tb[32];
		tui_fmt_time(v->first_failure_us, TP_MS, tb, sizeof(tb));
		buf_printf(&b, " | failed %s", tb);
	}
	if (v->process_group || v->has_seq || v->op) {
		buf_puts(&b, " |");
		if (v->process_group)
			buf_printf(&b, " %s", v->process_group);
		if (v->has_seq)
			buf_printf(&b, " seq %lld", (long long)v->seq);
		if (v->op)
			buf_printf(&b, " %s", v->op);
	}
	if (v->confidence)
		buf_printf(&b, " | %s confidence", v->confidence);
	snprintf(out, n, "verdict: %s", b.data);
	buf_free(&b);
}
