/* tui_timeline.c: the timeline view (the default): one row per rank,
 * grouped under host rows (which show the host's own rank-less events, or
 * everything of the host when collapsed), time across in columns of a fixed
 * span. A cell shows the most important event class in its span
 * (tui_markers); the culprit rows and the first-failure column stand out.
 * Only visible rows are read (tui_evcache loads a rank when first seen). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "tui_colors.h"
#include "tui_draw.h"
#include "tui_evcache.h"
#include "tui_view.h"

static const int64_t scales[] = {
	10, 100, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,
	1000000, 2000000, 5000000, 10000000, 30000000, 60000000, 120000000, 300000000, 600000000,
	1800000000, 3600000000, 7200000000, 21600000000, 43200000000, 86400000000,
};
#define N_SCALES ((int)(sizeof(scales) / sizeof(scales[0])))
#define TICK_EVERY 10
#define NO_MARKER 0xff

enum row_type { ROW_HOST, ROW_RANK };

struct row {
	enum row_type type;
	int host;        /* ROW_HOST: the host; ROW_RANK: its host or -1 */
	long rank_index; /* ROW_RANK */
};

struct timeline {
	struct tui_evcache *cache;
	struct row *rows;
	size_t n_rows;
	bool grouped;
	bool *collapsed; /* per host */
	bool noted_only; /* only the hosts with findings (tui_host.noted) */
	size_t top;
	int64_t t0;      /* the time at column 0, a multiple of the scale */
	int zoom;        /* index into scales */
	bool placed;
	bool moved;      /* zoomed or panned by hand: no refit on resize */
	int fit_cols;
	size_t next_culprit;
	bool ff_known;   /* the first failure found without a verdict, cached */
	int64_t ff_time;
	int ff_rank;
	char *ff_kind, *ff_host;
	unsigned char *cells, *overlay;
	int cells_cap;
	const struct tui_evlist **lists; /* row_lists() */
	size_t lists_cap;
};

/* --- geometry --- */

static int label_width(const struct timeline *tl, const struct tui *t)
{
	size_t host_len = 0;
	for (size_t i = 0; i < t->n_hosts; i++)
		if (strlen(t->hosts[i].name) > host_len)
			host_len = strlen(t->hosts[i].name);
	size_t digits = 1;
	if (t->n_ranks)
		for (int r = t->ranks[t->n_ranks - 1].rank; r >= 10; r /= 10)
			digits++;
	size_t need;
	if (tl->grouped) /* ">- host*" and ">  r12 culprit" */
		need = host_len + 4 > 5 + digits + (t->verdict.n_culprits ? 8 : 0)
			? host_len + 4 : 5 + digits + (t->verdict.n_culprits ? 8 : 0);
	else             /* "> r12* host" */
		need = 5 + digits + host_len;
	if (need < 10)
		need = 10;
	int w = (int)need;
	if (w > t->cols / 3)
		w = t->cols / 3;
	return w < 6 ? 6 : w;
}

static int chart_cols(const struct timeline *tl, const struct tui *t)
{
	int n = t->cols - label_width(tl, t) - 1;
	return n < 1 ? 1 : n;
}

static int body_rows(const struct tui *t)
{
	return tui_page_rows(t, 4); /* title, two axis rows, info line */
}

static int64_t floor_to(int64_t x, int64_t s)
{
	int64_t m = x % s;
	if (m < 0)
		m += s;
	return x - m;
}

static int64_t fdiv(int64_t x, int64_t s)
{
	return floor_to(x, s) / s;
}

static void fit(struct timeline *tl, const struct tui *t)
{
	int ncols = chart_cols(tl, t);
	int64_t span = t->has_time ? t->t_max - t->t_min + 1 : 1;
	tl->zoom = N_SCALES - 1;
	for (int z = 0; z < N_SCALES; z++)
		if (span <= scales[z] * (ncols > 4 ? ncols - 2 : ncols)) {
			tl->zoom = z;
			break;
		}
	int64_t s = scales[tl->zoom];
	tl->t0 = floor_to(t->has_time ? t->t_min : 0, s) - s;
	tl->placed = true;
	tl->fit_cols = ncols;
}

static void keep_cursor_visible(struct timeline *tl, const struct tui *t)
{
	int64_t s = scales[tl->zoom];
	int ncols = chart_cols(tl, t);
	int64_t col = fdiv(t->cur.time_us - tl->t0, s);
	if (col < 0 || col >= ncols)
		tl->t0 = floor_to(t->cur.time_us - (int64_t)(ncols / 2) * s, s);
}

/* --- rows --- */

static void build_rows(struct timeline *tl, const struct tui *t)
{
	free(tl->rows);
	tl->rows = xcalloc(t->n_ranks + t->n_hosts + 1, sizeof(*tl->rows));
	tl->n_rows = 0;
	if (tl->grouped) {
		for (size_t h = 0; h < t->n_hosts; h++) {
			if (tl->noted_only && !t->hosts[h].noted)
				continue;
			tl->rows[tl->n_rows++] = (struct row){ROW_HOST, (int)h, -1};
			if (tl->collapsed[h])
				continue;
			for (size_t k = 0; k < t->hosts[h].n_ranks; k++)
				tl->rows[tl->n_rows++] =
					(struct row){ROW_RANK, (int)h, tui_rank_index(t, t->hosts[h].ranks[k])};
		}
		for (size_t i = 0; i < t->n_ranks; i++)
			if (t->ranks[i].host < 0 && !tl->noted_only)
				tl->rows[tl->n_rows++] = (struct row){ROW_RANK, -1, (long)i};
	} else {
		for (size_t i = 0; i < t->n_ranks; i++)
			if (!tl->noted_only || (t->ranks[i].host >= 0 && t->hosts[t->ranks[i].host].noted))
				tl->rows[tl->n_rows++] = (struct row){ROW_RANK, t->ranks[i].host, (long)i};
	}
}

/* The row of the shared cursor (its host's row when the rank is hidden). */
static size_t selected_row(const struct timeline *tl, const struct tui *t)
{
	size_t host_row = 0;
	bool have_host = false;
	for (size_t i = 0; i < tl->n_rows; i++) {
		const struct row *r = &tl->rows[i];
		if (r->type == ROW_RANK && t->cur.rank >= 0 && t->ranks[r->rank_index].rank == t->cur.rank)
			return i;
		if (r->type == ROW_HOST && r->host == t->cur.host && !have_host) {
			host_row = i;
			have_host = true;
		}
	}
	return host_row;
}

static void select_row(struct timeline *tl, struct tui *t, long i)
{
	if (!tl->n_rows)
		return;
	if (i < 0)
		i = 0;
	if (i >= (long)tl->n_rows)
		i = (long)tl->n_rows - 1;
	const struct row *r = &tl->rows[i];
	if (r->type == ROW_HOST)
		tui_set_cursor(t, -1, r->host, t->cur.time_us);
	else
		tui_set_cursor(t, t->ranks[r->rank_index].rank, r->host, t->cur.time_us);
}

static void scroll_to(struct timeline *tl, const struct tui *t, size_t sel)
{
	size_t h = (size_t)body_rows(t);
	if (sel < tl->top)
		tl->top = sel;
	else if (sel >= tl->top + h)
		tl->top = sel - h + 1;
	if (tl->n_rows <= h)
		tl->top = 0;
	else if (tl->top > tl->n_rows - h)
		tl->top = tl->n_rows - h;
}

/* --- cells --- */

static void add_events(const struct tui *t, const struct tui_evlist *l, int64_t t0, int64_t s, int ncols,
		       unsigned char *cells)
{
	if (!l)
		return;
	int64_t t1 = t0 + s * ncols;
	for (size_t i = tui_evlist_lower(l, t0); i < l->n && l->ev[i].t < t1; i++) {
		int k = l->ev[i].kind;
		if (k >= 0 && t->kinds[k].hidden)
			continue;
		int m = k >= 0 ? t->kinds[k].marker : 0;
		unsigned char *c = &cells[(l->ev[i].t - t0) / s];
		if (*c == NO_MARKER || tui_markers[m].prio > tui_markers[*c].prio)
			*c = (unsigned char)m;
	}
}

static void widen_span(const struct tui_evlist *l, int64_t *lo, int64_t *hi, bool *any)
{
	if (!l || !l->n)
		return;
	if (!*any || l->ev[0].t < *lo)
		*lo = l->ev[0].t;
	if (!*any || l->ev[l->n - 1].t > *hi)
		*hi = l->ev[l->n - 1].t;
	*any = true;
}

/* The event lists a row shows: a rank's, or a host's own plus, when
 * collapsed, its ranks'. Kept in tl->lists until the next call. */
static size_t row_lists(struct timeline *tl, const struct tui *t, const struct row *r)
{
	size_t need = 1 + (r->type == ROW_HOST ? t->hosts[r->host].n_ranks : 0);
	xgrow(&tl->lists, &tl->lists_cap, need, sizeof(*tl->lists));
	size_t n = 0;
	if (r->type == ROW_RANK) {
		tl->lists[n++] = tui_evcache_rank(tl->cache, t, (size_t)r->rank_index);
		return n;
	}
	tl->lists[n++] = tui_evcache_host(tl->cache, t, r->host);
	if (tl->collapsed[r->host])
		for (size_t k = 0; k < t->hosts[r->host].n_ranks; k++)
			tl->lists[n++] =
				tui_evcache_rank(tl->cache, t, (size_t)tui_rank_index(t, t->hosts[r->host].ranks[k]));
	return n;
}

static void draw_label(struct timeline *tl, const struct tui *t, const struct row *r, int y, int w, bool sel)
{
	attr_t a = sel ? tui_attr(R_SELECTED) : A_NORMAL;
	tui_fill(y, 0, w, a);
	if (sel)
		tui_glyph(y, 0, G_SELECT, a);
	if (r->type == ROW_HOST) {
		bool has_culprit = false;
		for (size_t k = 0; k < t->hosts[r->host].n_ranks && tl->collapsed[r->host]; k++)
			has_culprit |= tui_is_culprit(t, t->hosts[r->host].ranks[k]);
		attr_t ha = a | tui_attr(has_culprit ? R_CULPRIT : R_HOST);
		tui_glyph(y, 1, tl->collapsed[r->host] ? G_CLOSED : G_OPEN, ha);
		int used = tui_text(y, 3, w - 4, t->hosts[r->host].name, -1, ha, true);
		if (has_culprit)
			mvaddch(y, 3 + used, '*' | ha);
		return;
	}
	int rank = t->ranks[r->rank_index].rank;
	bool culprit = tui_is_culprit(t, rank);
	char buf[128];
	int x = tl->grouped ? 3 : 2;
	if (tl->grouped || r->host < 0)
		snprintf(buf, sizeof(buf), "r%d%s", rank, culprit ? " culprit" : "");
	else
		snprintf(buf, sizeof(buf), "r%d%s %s", rank, culprit ? "*" : "", t->hosts[r->host].name);
	tui_text(y, x, w - x, buf, -1, a | (culprit ? tui_attr(R_CULPRIT) : tui_attr(R_LABEL)), true);
}

static void draw_row(struct timeline *tl, const struct tui *t, const struct row *r, int y, bool sel)
{
	int lw = label_width(tl, t), x0 = lw + 1, ncols = chart_cols(tl, t);
	int64_t s = scales[tl->zoom];
	draw_label(tl, t, r, y, lw, sel);
	tui_glyph(y, lw, G_VLINE, tui_attr(R_AXIS));
	size_t nl = row_lists(tl, t, r);
	const struct tui_evlist **lists = tl->lists;
	memset(tl->cells, NO_MARKER, (size_t)ncols);
	memset(tl->overlay, 0, (size_t)ncols);
	int64_t lo = 0, hi = 0;
	bool any = false;
	for (size_t i = 0; i < nl; i++) {
		add_events(t, lists[i], tl->t0, s, ncols, tl->cells);
		widen_span(lists[i], &lo, &hi, &any);
	}
	int rank = r->type == ROW_RANK ? t->ranks[r->rank_index].rank : -1;
	bool whole = r->type == ROW_HOST && tl->collapsed[r->host];
	tui_search_cells(t, rank, r->host, whole, tl->t0, s, ncols, tl->overlay, 1);
	tui_mark_cells(t, rank, r->host, whole, tl->t0, s, ncols, tl->overlay, 2);
	int64_t cur_col = fdiv(t->cur.time_us - tl->t0, s);
	int64_t ff_col = t->verdict.has_first_failure ? fdiv(t->verdict.first_failure_us - tl->t0, s) : -1;
	bool culprit = rank >= 0 && tui_is_culprit(t, rank);
	for (int c = 0; c < ncols; c++) {
		int64_t cs = tl->t0 + c * s;
		attr_t a;
		int ch = 0;
		enum tui_glyph g = G_COUNT;
		if (tl->cells[c] != NO_MARKER) {
			const struct tui_marker *m = &tui_markers[tl->cells[c]];
			ch = m->ch;
			a = tui_attr(m->role);
		} else if (c == ff_col) {
			g = G_FAIL;
			a = tui_attr(R_FAILURE);
		} else if (c == cur_col) {
			g = G_CURLINE;
			a = tui_attr(R_CURSOR);
		} else if (any && cs + s > lo && cs <= hi) {
			g = G_HLINE;
			a = tui_attr(culprit ? R_CULPRIT : R_SPAN);
		} else {
			ch = ' ';
			a = A_NORMAL;
		}
		if (tl->overlay[c] & 2) {
			a = tui_attr(R_MARK);
			if (!ch)
				ch = '@', g = G_COUNT;
		} else if (tl->overlay[c] & 1) {
			a = tui_attr(R_MATCH);
			if (!ch)
				ch = '/', g = G_COUNT;
		}
		if (sel && c == cur_col)
			a |= A_REVERSE;
		if (g != G_COUNT)
			tui_glyph(y, x0 + c, g, a);
		else
			mvaddch(y, x0 + c, (chtype)ch | a);
	}
}

/* Two rows: the tick times, then a ruler with the ticks, the cursor (v)
 * and the first failure (!). */
static void draw_axis(struct timeline *tl, const struct tui *t, int y)
{
	int lw = label_width(tl, t), x0 = lw + 1, ncols = chart_cols(tl, t);
	int64_t s = scales[tl->zoom], step = s * TICK_EVERY;
	attr_t a = tui_attr(R_AXIS);
	char date[32], sb[32];
	tui_fmt_date(t->cur.time_us, date, sizeof(date));
	tui_text(y, 0, lw, date, -1, a, true);
	tui_fmt_span(s, sb, sizeof(sb));
	tui_printf(y + 1, 0, lw, a, "%s/col", sb);
	tui_glyph(y, lw, G_VLINE, a);
	tui_glyph(y + 1, lw, G_VLINE, a);
	for (int c = 0; c < ncols; c++) {
		int64_t cs = tl->t0 + c * s;
		bool tick = floor_to(cs, step) == cs;
		tui_glyph(y + 1, x0 + c, tick ? G_TICK : G_HLINE, a);
		if (!tick)
			continue;
		char lb[32];
		if (step >= 1000000)
			tui_fmt_time(cs, TP_S, lb, sizeof(lb));
		else if (step >= 1000)
			tui_fmt_time(cs, TP_MS, lb, sizeof(lb));
		else
			tui_fmt_time(cs, TP_US, lb, sizeof(lb));
		const char *txt = lb;
		if (step < 1000000) /* 23:56:08.174 -> 56:08.174; .174523 -> 08.174523 */
			txt = step >= 1000 ? lb + 3 : lb + 6;
		if (c + (int)strlen(txt) <= ncols)
			tui_text(y, x0 + c, ncols - c, txt, -1, a, false);
	}
	int64_t ff_col = t->verdict.has_first_failure ? fdiv(t->verdict.first_failure_us - tl->t0, s) : -1;
	if (ff_col >= 0 && ff_col < ncols)
		mvaddch(y + 1, x0 + (int)ff_col, '!' | tui_attr(R_FAILURE));
	int64_t cur_col = fdiv(t->cur.time_us - tl->t0, s);
	if (cur_col >= 0 && cur_col < ncols)
		tui_glyph(y + 1, x0 + (int)cur_col, G_CURSOR, tui_attr(R_CURSOR));
}

static int cmp_kind_prio(const void *a, const void *b, void *arg)
{
	const struct tui *t = arg;
	int x = *(const int *)a, y = *(const int *)b;
	int px = tui_markers[t->kinds[x].marker].prio, py = tui_markers[t->kinds[y].marker].prio;
	if (px != py)
		return py - px;
	return strcmp(t->kinds[x].name, t->kinds[y].name);
}

/* The info line: the cursor and what the selected row has under it. */
static void draw_info(struct timeline *tl, const struct tui *t, int y, size_t sel)
{
	int64_t s = scales[tl->zoom];
	int64_t c0 = floor_to(t->cur.time_us, s);
	char tb[32], sb[32];
	tui_fmt_time(t->cur.time_us, TP_MS, tb, sizeof(tb));
	tui_fmt_span(s, sb, sizeof(sb));
	struct buf b = {0};
	buf_printf(&b, "%s +%s ", tb, sb);
	if (sel < tl->n_rows) {
		const struct row *r = &tl->rows[sel];
		if (r->type == ROW_RANK)
			buf_printf(&b, "r%d%s%s: ", t->ranks[r->rank_index].rank, r->host >= 0 ? "@" : "",
				   r->host >= 0 ? t->hosts[r->host].name : "");
		else
			buf_printf(&b, "%s%s: ", t->hosts[r->host].name,
				   tl->collapsed[r->host] ? " (all ranks)" : " (host lines)");
		size_t nl = row_lists(tl, t, r);
		const struct tui_evlist **lists = tl->lists;
		int *count = xcalloc(t->n_kinds + 1, sizeof(int));
		int *order = xcalloc(t->n_kinds + 1, sizeof(int));
		size_t n_order = 0;
		for (size_t i = 0; i < nl; i++) {
			if (!lists[i])
				continue;
			for (size_t e = tui_evlist_lower(lists[i], c0); e < lists[i]->n && lists[i]->ev[e].t < c0 + s; e++) {
				int k = lists[i]->ev[e].kind;
				if (k < 0 || t->kinds[k].hidden)
					continue;
				if (!count[k]++)
					order[n_order++] = k;
			}
		}
		qsort_r(order, n_order, sizeof(int), cmp_kind_prio, (void *)t);
		for (size_t i = 0; i < n_order; i++) {
			int k = order[i];
			buf_printf(&b, "%s%c %s", i ? ", " : "", tui_markers[t->kinds[k].marker].ch, t->kinds[k].name);
			if (count[k] > 1)
				buf_printf(&b, " x%d", count[k]);
		}
		if (!n_order)
			buf_puts(&b, "no events here (e: events around)");
		free(count);
		free(order);
	}
	tui_text(y, 0, t->cols, b.data, -1, A_NORMAL, true);
	buf_free(&b);
}

static void find_first_failure(struct timeline *tl, struct tui *t);

static void *tl_open(struct tui *t, const void *arg)
{
	(void)arg;
	struct timeline *tl = xcalloc(1, sizeof(*tl));
	tl->cache = tui_evcache_new(t);
	tl->grouped = true;
	tl->collapsed = xcalloc(t->n_hosts + 1, sizeof(bool));
	build_rows(tl, t);
	/* without a verdict, f looks for the first failure event: a scan of
	 * those kinds' events, done here once rather than on the key */
	if (!t->verdict.has_first_failure)
		find_first_failure(tl, t);
	return tl;
}

static void tl_close(void *state)
{
	struct timeline *tl = state;
	tui_evcache_free(tl->cache);
	free(tl->rows);
	free(tl->collapsed);
	free(tl->cells);
	free(tl->overlay);
	free(tl->ff_kind);
	free(tl->ff_host);
	free(tl->lists);
	free(tl);
}

static void tl_draw(void *state, struct tui *t)
{
	struct timeline *tl = state;
	int ncols = chart_cols(tl, t);
	if (ncols > tl->cells_cap) {
		tl->cells = xrealloc(tl->cells, (size_t)ncols);
		tl->overlay = xrealloc(tl->overlay, (size_t)ncols);
		tl->cells_cap = ncols;
	}
	if (!tl->placed || (!tl->moved && tl->fit_cols != ncols))
		fit(tl, t);
	keep_cursor_visible(tl, t);
	size_t sel = selected_row(tl, t);
	scroll_to(tl, t, sel);
	struct buf extra = {0};
	buf_puts(&extra, "");
	size_t hidden = tui_hidden_kinds(t);
	if (hidden)
		buf_printf(&extra, " | %zu kinds hidden", hidden);
	if (t->pattern)
		buf_printf(&extra, " | /%s/ %zu%s", t->pattern, t->n_matches, t->matches_capped ? "+" : "");
	if (t->n_marks)
		buf_printf(&extra, " | %zu marks", t->n_marks);
	tui_title(t, "timeline", "%zu ranks, %zu hosts | row %zu/%zu%s", t->n_ranks, t->n_hosts,
		  tl->n_rows ? sel + 1 : 0, tl->n_rows, extra.data);
	buf_free(&extra);
	draw_axis(tl, t, 1);
	int h = body_rows(t);
	for (int i = 0; i < h && tl->top + (size_t)i < tl->n_rows; i++) {
		size_t ri = tl->top + (size_t)i;
		draw_row(tl, t, &tl->rows[ri], 3 + i, ri == sel);
	}
	if (!tl->n_rows)
		tui_text(3, 0, t->cols, "no ranks or hosts in this case", -1, A_NORMAL, true);
	draw_info(tl, t, tui_view_rows(t) - 1, sel);
}

/* Finds the first failure once: the verdict's time (and the event there),
 * else the first timeout, error, signal or exit event (one indexed query per
 * kind of those classes). */
static void find_first_failure(struct timeline *tl, struct tui *t)
{
	static const char *const classes[] = {"timeout", "error", "signal", "exit"};
	tl->ff_known = true;
	tl->ff_rank = -1;
	bool verdict = t->verdict.has_first_failure, found = verdict;
	tl->ff_time = verdict ? t->verdict.first_failure_us : 0;
	const char *sql = verdict
		? "SELECT time_us, rank, host, kind FROM events WHERE time_us = ?2 ORDER BY rank IS NULL, event_id LIMIT 1"
		: "SELECT time_us, rank, host, kind FROM events WHERE kind = ?1 AND time_us IS NOT NULL "
		  "ORDER BY time_us, rank IS NULL LIMIT 1";
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	for (size_t k = 0; k < (verdict ? 1 : t->n_kinds); k++) {
		if (verdict) {
			sqlite3_bind_int64(st, 2, t->verdict.first_failure_us);
		} else {
			bool wanted = false;
			for (size_t c = 0; c < ARRAY_LEN(classes); c++)
				wanted |= strcmp(t->kinds[k].class_name, classes[c]) == 0;
			if (!wanted)
				continue;
			sqlite3_bind_text(st, 1, t->kinds[k].name, -1, SQLITE_STATIC);
		}
		if (sqlite3_step(st) == SQLITE_ROW) {
			int64_t when = tui_time(sqlite3_column_int64(st, 0));
			if (verdict || !found || when < tl->ff_time) {
				found = true;
				tl->ff_time = when;
				tl->ff_rank = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 1);
				free(tl->ff_kind);
				free(tl->ff_host);
				tl->ff_kind = xstrdup((const char *)sqlite3_column_text(st, 3));
				tl->ff_host = sqlite3_column_text(st, 2) ? xstrdup((const char *)sqlite3_column_text(st, 2)) : NULL;
			}
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (!found)
		tl->ff_time = INT64_MIN;
}

static void first_failure(struct timeline *tl, struct tui *t)
{
	/* a job that completed has no failure: its launchers' exits and the
	 * communicators' teardown are the normal end, not one */
	const char *outcome = t->verdict.present ? t->verdict.outcome : NULL;
	if (outcome && (strcmp(outcome, "completed") == 0 || strcmp(outcome, "cancelled") == 0) &&
	    !t->verdict.has_first_failure) {
		tui_message(t, "the job %s: no failure to jump to (its exits were the normal end)",
			    strcmp(outcome, "completed") == 0 ? "completed" : "was cancelled");
		return;
	}
	if (!tl->ff_known)
		find_first_failure(tl, t);
	if (tl->ff_time == INT64_MIN) {
		tui_error(t, "no verdict and no timeout, error, signal or exit event");
		return;
	}
	char tb[32];
	tui_fmt_time(tl->ff_time, TP_MS, tb, sizeof(tb));
	long ri = tl->ff_rank >= 0 ? tui_rank_index(t, tl->ff_rank) : -1;
	int h = ri >= 0 ? t->ranks[ri].host : tui_host_index(t, tl->ff_host);
	if (ri >= 0 || h >= 0)
		tui_set_cursor(t, ri >= 0 ? tl->ff_rank : -1, h, tl->ff_time);
	else
		tui_set_cursor(t, t->cur.rank, t->cur.host, tl->ff_time);
	const char *what = t->verdict.has_first_failure ? "first failure" : "no verdict; first failure event";
	if (tl->ff_kind && ri >= 0)
		tui_message(t, "%s at %s: r%d %s", what, tb, tl->ff_rank, tl->ff_kind);
	else
		tui_message(t, "%s at %s%s%s", what, tb, tl->ff_kind ? ": " : "", tl->ff_kind ? tl->ff_kind : "");
}

static void culprit(struct timeline *tl, struct tui *t)
{
	const struct tui_verdict *v = &t->verdict;
	if (!v->n_culprits) {
		tui_error(t, v->present ? "the verdict names no culprit rank" : "no verdict: no culprit known yet");
		return;
	}
	size_t i = tl->next_culprit++ % v->n_culprits;
	long ri = tui_rank_index(t, v->culprits[i]);
	if (ri < 0) {
		tui_error(t, "culprit r%d has no row in this case", v->culprits[i]);
		return;
	}
	int h = t->ranks[ri].host;
	if (h >= 0 && tl->collapsed[h]) {
		tl->collapsed[h] = false;
		build_rows(tl, t);
	}
	tui_set_cursor(t, v->culprits[i], h, t->cur.time_us);
	tui_message(t, "culprit r%d (%zu of %zu)%s%s", v->culprits[i], i + 1, v->n_culprits, h >= 0 ? " on " : "",
		    h >= 0 ? t->hosts[h].name : "");
}

static void zoom(struct timeline *tl, struct tui *t, int dz)
{
	int z = tl->zoom + dz;
	if (z < 0 || z >= N_SCALES) {
		tui_error(t, "cannot zoom %s further", dz > 0 ? "out" : "in");
		return;
	}
	int64_t col = fdiv(t->cur.time_us - tl->t0, scales[tl->zoom]);
	tl->zoom = z;
	tl->t0 = floor_to(t->cur.time_us - col * scales[z], scales[z]);
}

static bool tl_key(void *state, struct tui *t, enum tui_req req, int key)
{
	(void)key;
	struct timeline *tl = state;
	long sel = (long)selected_row(tl, t);
	int64_t s = scales[tl->zoom];
	int64_t half = (int64_t)(chart_cols(tl, t) / 2) * s;
	switch (req) {
	case REQ_UP: select_row(tl, t, sel - 1); break;
	case REQ_DOWN: select_row(tl, t, sel + 1); break;
	case REQ_PAGE_UP:
		tl->top = tl->top > (size_t)body_rows(t) ? tl->top - (size_t)body_rows(t) : 0;
		select_row(tl, t, sel - body_rows(t));
		break;
	case REQ_PAGE_DOWN:
		tl->top += (size_t)body_rows(t);
		select_row(tl, t, sel + body_rows(t));
		break;
	case REQ_HOME: select_row(tl, t, 0); break;
	case REQ_END: select_row(tl, t, (long)tl->n_rows - 1); break;
	case REQ_LEFT: tui_set_cursor(t, t->cur.rank, t->cur.host, t->cur.time_us - s); break;
	case REQ_RIGHT: tui_set_cursor(t, t->cur.rank, t->cur.host, t->cur.time_us + s); break;
	case REQ_PAN_LEFT:
	case REQ_PAN_RIGHT: {
		int64_t d = req == REQ_PAN_LEFT ? -half : half;
		tl->t0 += d;
		tl->moved = true;
		tui_set_cursor(t, t->cur.rank, t->cur.host, t->cur.time_us + d);
		break;
	}
	case REQ_ZOOM_IN:
	case REQ_ZOOM_OUT:
		zoom(tl, t, req == REQ_ZOOM_IN ? -1 : 1);
		tl->moved = true;
		break;
	case REQ_ZOOM_FIT:
		fit(tl, t);
		tl->moved = false;
		if (t->has_time && (t->cur.time_us < t->t_min || t->cur.time_us > t->t_max))
			tui_set_cursor(t, t->cur.rank, t->cur.host, t->t_min);
		break;
	case REQ_FIRST_FAILURE: first_failure(tl, t); break;
	case REQ_CULPRIT: culprit(tl, t); break;
	case REQ_GROUP:
		tl->grouped = !tl->grouped;
		build_rows(tl, t);
		tui_message(t, tl->grouped ? "ranks grouped by host" : "ranks in rank order, no host rows");
		break;
	case REQ_COLLAPSE_ALL:
	case REQ_EXPAND_ALL:
		if (!tl->grouped) {
			tui_error(t, "no host rows: g groups the ranks by host");
			break;
		}
		for (size_t h = 0; h < t->n_hosts; h++)
			tl->collapsed[h] = req == REQ_COLLAPSE_ALL;
		if (req == REQ_COLLAPSE_ALL && t->cur.host >= 0)
			tui_set_cursor(t, -1, t->cur.host, t->cur.time_us);
		build_rows(tl, t);
		tui_message(t, req == REQ_COLLAPSE_ALL ? "every host collapsed (E expands them)" : "every host expanded");
		break;
	case REQ_NOTED_HOSTS: {
		size_t noted = 0;
		for (size_t h = 0; h < t->n_hosts; h++)
			noted += t->hosts[h].noted;
		if (!tl->noted_only && !noted) {
			tui_error(t, "no host has a culprit, a failure or a finding");
			break;
		}
		tl->noted_only = !tl->noted_only;
		build_rows(tl, t);
		if (tl->n_rows)
			select_row(tl, t, (long)selected_row(tl, t));
		if (tl->noted_only)
			tui_message(t, "%zu of %zu hosts: those with findings (! shows all)", noted, t->n_hosts);
		else
			tui_message(t, "every host");
		break;
	}
	case REQ_COLLAPSE:
	case REQ_ENTER: {
		if (!tl->n_rows)
			break;
		const struct row *r = &tl->rows[sel];
		if (req == REQ_ENTER && r->type == ROW_RANK) {
			struct tui_events_arg a = {.all = false};
			tui_push(t, &tui_events_view, &a);
			break;
		}
		if (!tl->grouped || r->host < 0) {
			tui_error(t, "no host rows: g groups the ranks by host");
			break;
		}
		tl->collapsed[r->host] = !tl->collapsed[r->host];
		if (tl->collapsed[r->host])
			tui_set_cursor(t, -1, r->host, t->cur.time_us);
		build_rows(tl, t);
		break;
	}
	default:
		return false;
	}
	return true;
}

const struct view_ops tui_timeline_view = {
	.name = "timeline",
	.open = tl_open,
	.close = tl_close,
	.draw = tl_draw,
	.key = tl_key,
};
