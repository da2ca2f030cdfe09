/* tui_evcache.c: see tui_evcache.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tui_evcache.h"

#include <stdlib.h>
#include <string.h>

#include "case_db.h"

/* Past this many cached events, everything is dropped and reloaded as
 * rows become visible again (about 16 bytes each). */
#define CACHE_MAX_EVENTS (2u << 20)

struct tui_evcache {
	struct tui_evlist *ranks;
	bool *rank_loaded;
	size_t n_ranks;
	struct tui_evlist *hosts;
	size_t n_hosts;
	bool hosts_loaded;
	size_t total;
	sqlite3_stmt *rank_st;
};

struct tui_evcache *tui_evcache_new(const struct tui *t)
{
	struct tui_evcache *c = xcalloc(1, sizeof(*c));
	c->n_ranks = t->n_ranks;
	c->ranks = xcalloc(t->n_ranks + 1, sizeof(*c->ranks));
	c->rank_loaded = xcalloc(t->n_ranks + 1, sizeof(bool));
	c->n_hosts = t->n_hosts;
	c->hosts = xcalloc(t->n_hosts + 1, sizeof(*c->hosts));
	return c;
}

static void drop_all(struct tui_evcache *c)
{
	for (size_t i = 0; i < c->n_ranks; i++) {
		free(c->ranks[i].ev);
		c->ranks[i].ev = NULL;
		c->ranks[i].n = 0;
		c->rank_loaded[i] = false;
	}
	c->total = 0;
	for (size_t i = 0; i < c->n_hosts; i++)
		c->total += c->hosts[i].n;
}

void tui_evcache_free(struct tui_evcache *c)
{
	if (!c)
		return;
	drop_all(c);
	for (size_t i = 0; i < c->n_hosts; i++)
		free(c->hosts[i].ev);
	free(c->hosts);
	free(c->ranks);
	free(c->rank_loaded);
	sqlite3_finalize(c->rank_st);
	free(c);
}

static void push(struct tui_evlist *l, size_t *cap, int64_t time_us, int kind)
{
	xgrow(&l->ev, cap, l->n + 1, sizeof(*l->ev));
	l->ev[l->n].t = tui_time(time_us);
	l->ev[l->n].kind = kind;
	l->n++;
}

const struct tui_evlist *tui_evcache_rank(struct tui_evcache *c, const struct tui *t, size_t rank_index)
{
	if (rank_index >= c->n_ranks)
		return NULL;
	if (c->rank_loaded[rank_index])
		return &c->ranks[rank_index];
	if (c->total > CACHE_MAX_EVENTS)
		drop_all(c);
	if (!c->rank_st)
		c->rank_st = db_prepare(t->db, "SELECT time_us, kind FROM events WHERE rank = ?1 AND time_us IS NOT NULL "
					       "ORDER BY time_us");
	struct tui_evlist *l = &c->ranks[rank_index];
	size_t cap = 0;
	sqlite3_bind_int(c->rank_st, 1, t->ranks[rank_index].rank);
	while (sqlite3_step(c->rank_st) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(c->rank_st, 1);
		push(l, &cap, sqlite3_column_int64(c->rank_st, 0), kind ? tui_kind_index(t, kind) : -1);
	}
	sqlite3_reset(c->rank_st);
	c->rank_loaded[rank_index] = true;
	c->total += l->n;
	return l;
}

/* Stable sort by time (equal times keep the order they were read in). */
static void sort_by_time(struct tui_ev *v, struct tui_ev *tmp, size_t n)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	sort_by_time(v, tmp, h);
	sort_by_time(v + h, tmp, n - h);
	if (v[h - 1].t <= v[h].t)
		return;
	memcpy(tmp, v, h * sizeof(*v));
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		v[k++] = v[j].t < tmp[i].t ? v[j++] : tmp[i++];
	while (i < h)
		v[k++] = tmp[i++];
}

/* Rowids closer than this are read as one range (the few rows between are
 * skipped by the query's own test). */
#define RUN_GAP 64

/* The events of no rank (launchers, system messages), each on its host's
 * list. Their rowids come from the rank index and are read back in rowid
 * order, in runs: read in time order, each row was fetched from anywhere
 * in the table (at 16,384 ranks ~100 MB went through the page cache again
 * and again). Then each list is sorted by time, ties in rowid order. */
static void load_hosts(struct tui_evcache *c, const struct tui *t)
{
	c->hosts_loaded = true;
	if (!c->n_hosts)
		return;
	int no_host = tui_host_index(t, "(no host)");
	int64_t *ids = NULL;
	size_t n = 0, icap = 0;
	sqlite3_stmt *st = db_prepare(t->db, "SELECT rowid FROM events WHERE rank IS NULL AND time_us IS NOT NULL");
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&ids, &icap, n + 1, sizeof(*ids));
		ids[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (n)
		xqsort(ids, n, sizeof(*ids), cmp_i64);
	size_t *cap = xcalloc(c->n_hosts, sizeof(size_t));
	st = db_prepare(t->db, "SELECT host, time_us, kind FROM events WHERE rowid BETWEEN ?1 AND ?2 "
			       "AND rank IS NULL AND time_us IS NOT NULL");
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;
		while (k < n && ids[k] - ids[k - 1] <= RUN_GAP)
			k++;
		sqlite3_bind_int64(st, 1, ids[i]);
		sqlite3_bind_int64(st, 2, ids[k - 1]);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *host = (const char *)sqlite3_column_text(st, 0);
			int h = host ? tui_host_index(t, host) : no_host;
			if (h < 0)
				continue;
			const char *kind = (const char *)sqlite3_column_text(st, 2);
			push(&c->hosts[h], &cap[h], sqlite3_column_int64(st, 1), kind ? tui_kind_index(t, kind) : -1);
			c->total++;
		}
		sqlite3_reset(st);
		i = k;
	}
	sqlite3_finalize(st);
	free(ids);
	free(cap);
	size_t most = 0;
	for (size_t h = 0; h < c->n_hosts; h++)
		most = c->hosts[h].n > most ? c->hosts[h].n : most;
	struct tui_ev *tmp = xmalloc((most / 2 + 1) * sizeof(*tmp));
	for (size_t h = 0; h < c->n_hosts; h++)
		sort_by_time(c->hosts[h].ev, tmp, c->hosts[h].n);
	free(tmp);
}

const struct tui_evlist *tui_evcache_host(struct tui_evcache *c, const struct tui *t, int host)
{
	if (host < 0 || (size_t)host >= c->n_hosts)
		return NULL;
	if (!c->hosts_loaded)
		load_hosts(c, t);
	return &c->hosts[host];
}

size_t tui_evlist_lower(const struct tui_evlist *l, int64_t time_us)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->ev[mid].t < time_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
