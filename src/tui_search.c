/* tui_search.c: / runs a PCRE2 regex over every line of the case (through
 * the `lines` table, one pass, decompressing each block once) and keeps
 * the matches sorted by time; n and N move the shared cursor to them. A
 * line without a time of its own takes the last time seen above it in its
 * file, so continuation lines land where they belong. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "tui_draw.h"
#include "tui_input.h"

static void search_done(struct tui *t, const char *text)
{
	if (!text)
		return;
	if (!*text) { /* an empty search repeats the last one */
		if (t->pattern)
			tui_search_step(t, 1);
		return;
	}
	if (tui_search_run(t, text) == 0 && t->n_matches)
		tui_search_step(t, 1);
}

void tui_search_prompt(struct tui *t)
{
	tui_prompt_open(t, "/", HIST_SEARCH, search_done);
}

void tui_search_free(struct tui *t)
{
	free(t->pattern);
	pcre2_code_free(t->re);
	free(t->matches);
	t->pattern = NULL;
	t->re = NULL;
	t->matches = NULL;
	t->n_matches = 0;
	t->cur_match = -1;
	t->matches_capped = false;
}

static int cmp_match(const void *a, const void *b)
{
	const struct tui_match *x = a, *y = b;
	if (x->has_time != y->has_time)
		return x->has_time ? -1 : 1;
	if (x->has_time && x->time_us != y->time_us)
		return x->time_us < y->time_us ? -1 : 1;
	if (x->source_id != y->source_id)
		return x->source_id < y->source_id ? -1 : 1;
	return x->line_no < y->line_no ? -1 : x->line_no > y->line_no;
}

int tui_search_run(struct tui *t, const char *pattern)
{
	int ec;
	PCRE2_SIZE eoff;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &ec, &eoff, NULL);
	if (!re) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(ec, msg, sizeof(msg));
		tui_error(t, "regex: %s at offset %d", (char *)msg, (int)eoff);
		return -1;
	}
	const char *no_jit = getenv("NCCLFORENSIC_NO_JIT"); /* valgrind cannot follow JIT code */
	if (!no_jit || !*no_jit || strcmp(no_jit, "0") == 0)
		pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	tui_search_free(t);
	t->pattern = xstrdup(pattern);
	t->re = re;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db, "SELECT source_id, line_no, time_us, rank, host, text FROM lines "
				      "ORDER BY source_id, line_no", -1, &st, NULL) != SQLITE_OK) {
		tui_error(t, "search: %s", sqlite3_errmsg(t->db));
		pcre2_match_data_free(md);
		return -1;
	}
	size_t cap = 0;
	int64_t cur_source = -1, last_time = 0;
	bool have_last = false;
	char *last_host = NULL;
	int last_host_idx = -1;
	int no_host = tui_host_index(t, "(no host)");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t src = sqlite3_column_int64(st, 0);
		if (src != cur_source) {
			cur_source = src;
			have_last = false;
		}
		bool has_time = sqlite3_column_type(st, 2) != SQLITE_NULL;
		if (has_time) {
			last_time = tui_time(sqlite3_column_int64(st, 2));
			have_last = true;
		}
		const char *text = (const char *)sqlite3_column_text(st, 5);
		if (!text)
			continue;
		size_t len = (size_t)sqlite3_column_bytes(st, 5);
		if (pcre2_match(re, (PCRE2_SPTR)text, len, 0, 0, md, NULL) < 0)
			continue;
		if (t->n_matches == TUI_MAX_MATCHES) {
			t->matches_capped = true;
			break;
		}
		xgrow(&t->matches, &cap, t->n_matches + 1, sizeof(*t->matches));
		struct tui_match *m = &t->matches[t->n_matches++];
		m->source_id = src;
		m->line_no = sqlite3_column_int64(st, 1);
		m->has_time = have_last;
		m->time_us = last_time;
		m->rank = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 3);
		const char *host = (const char *)sqlite3_column_text(st, 4);
		if (!host) {
			m->host = no_host;
		} else if (last_host && strcmp(last_host, host) == 0) {
			m->host = last_host_idx;
		} else {
			free(last_host);
			last_host = xstrdup(host);
			last_host_idx = m->host = tui_host_index(t, host);
		}
		if (m->rank >= 0 && tui_rank_index(t, m->rank) >= 0)
			m->host = t->ranks[tui_rank_index(t, m->rank)].host;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		tui_error(t, "search: %s", sqlite3_errmsg(t->db));
	sqlite3_finalize(st);
	pcre2_match_data_free(md);
	free(last_host);
	if (t->n_matches)
		xqsort(t->matches, t->n_matches, sizeof(*t->matches), cmp_match);
	if (!t->n_matches)
		tui_error(t, "no line matches /%s/", pattern);
	return 0;
}

/* First match at or after time (matches without a time come last). */
static size_t lower_bound(const struct tui *t, int64_t time_us)
{
	size_t lo = 0, hi = t->n_matches;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct tui_match *m = &t->matches[mid];
		if (m->has_time && m->time_us < time_us)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct tui_match *tui_search_step(struct tui *t, int dir)
{
	if (!t->pattern) {
		tui_error(t, "no search yet: / searches the lines");
		return NULL;
	}
	if (!t->n_matches) {
		tui_error(t, "no line matches /%s/", t->pattern);
		return NULL;
	}
	long n = (long)t->n_matches, i;
	const struct tui_match *cm = t->cur_match >= 0 && t->cur_match < n ? &t->matches[t->cur_match] : NULL;
	bool wrapped = false;
	if (cm && (!cm->has_time || cm->time_us == t->cur.time_us)) {
		i = t->cur_match + dir; /* still on the last match: the one after it */
	} else {
		i = (long)lower_bound(t, t->cur.time_us);
		if (dir > 0 && i < n && t->matches[i].has_time && t->matches[i].time_us == t->cur.time_us &&
		    t->matches[i].rank == t->cur.rank && cm)
			i++; /* already there */
		if (dir < 0)
			i--;
	}
	if (i >= n) {
		i = 0;
		wrapped = true;
	} else if (i < 0) {
		i = n - 1;
		wrapped = true;
	}
	t->cur_match = i;
	const struct tui_match *m = &t->matches[i];
	int rank = m->rank >= 0 && tui_rank_index(t, m->rank) >= 0 ? m->rank : -1;
	tui_set_cursor(t, rank, m->host, m->has_time ? m->time_us : t->cur.time_us);
	char *path = NULL;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db, "SELECT path FROM sources WHERE source_id = ?1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, m->source_id);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			path = xstrdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	tui_message(t, "/%s/ %ld of %zu%s: %s:%lld%s", t->pattern, i + 1, t->n_matches, t->matches_capped ? "+" : "",
		    path ? path : "?", (long long)m->line_no, wrapped ? " (wrapped)" : "");
	free(path);
	return m;
}

static bool row_has(const struct tui_match *m, int rank, int host, bool whole_host)
{
	if (whole_host)
		return m->host == host;
	if (rank >= 0)
		return m->rank == rank;
	return m->rank < 0 && m->host == host;
}

void tui_search_cells(const struct tui *t, int rank, int host, bool whole_host, int64_t t0, int64_t scale, int ncols,
		      unsigned char *cells, unsigned char bit)
{
	if (!t->n_matches || scale <= 0 || ncols <= 0)
		return;
	int64_t t1 = t0 + scale * ncols;
	for (size_t i = lower_bound(t, t0); i < t->n_matches; i++) {
		const struct tui_match *m = &t->matches[i];
		if (!m->has_time || m->time_us >= t1)
			break;
		if (row_has(m, rank, host, whole_host))
			cells[(m->time_us - t0) / scale] |= bit;
	}
}
