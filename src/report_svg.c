/* report_svg.c: the timeline of the HTML report, one inline <svg>.
 *
 * One row per rank, grouped by host (host name on the first row of a host),
 * time on the x axis; the step ticks and progress line of each rank, markers
 * for timeouts, errors, exits, dumps and system messages (hover titles carry
 * the lines), the culprit's rows highlighted, the first failure a red line.
 * Large jobs collapse: one row per host above RM_RANK_ROWS ranks, and above
 * HOST_ROWS hosts one row per group of hosts that behaved alike (same kinds
 * of markers in the same order, same last step; drawn from the first host of
 * the group), hosts of culprits grouped only among themselves. Markers of one kind
 * closer than MERGE_PX are drawn as one whose title lists them. */
#include <stdlib.h>
#include <string.h>

#include "report_model.h"

enum {
	HOST_ROWS = 64, WIDTH = 1160, X0 = 260, X1 = 1140, TOP = 58, ROW_H = 18,
	MERGE_PX = 3, MAX_TICKS = 400, TITLE_LINES = 6, TEXT_MAX = 300,
};

struct row {
	const char *host;  /* host label drawn on this row, or NULL */
	const char *mhost; /* host whose system messages go on this row, or NULL */
	char *label, *tip;
	int64_t *ranks; /* ranks whose markers are drawn; steps of ranks[0] only */
	size_t nranks;
	bool culprit, rank_row, own_host;
	int shade;
};

struct host {
	const char *name;
	size_t *idx; /* indexes into m->ranks */
	size_t n;
	bool culprit;
	char *sig;
	bool grouped;
};

struct svg {
	const struct report_model *m;
	struct buf *o;
	int64_t t0, t1;
	size_t clipped; /* markers outside [t0, t1]: not drawn (outliers: a bad clock, a year 0) */
	struct row *rows;
	size_t nrows, cap;
};

static double xpos(const struct svg *g, int64_t t)
{
	return X0 + ((double)t - (double)g->t0) * (X1 - X0) / ((double)g->t1 - (double)g->t0);
}

/* Markers of one rank: [*lo, *hi) of the sorted array. */
static void rank_span(const struct report_model *m, int64_t rank, size_t *lo, size_t *hi)
{
	size_t a = 0, b = m->n_markers;
	while (a < b) {
		size_t mid = (a + b) / 2;
		if (m->markers[mid].rank < rank)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (a < m->n_markers && m->markers[a].rank == rank)
		a++;
	*hi = a;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* What a host did: per rank, the kinds of its markers in order (repeats
 * dropped) and its last step. */
static char *host_signature(const struct report_model *m, const struct host *h)
{
	struct buf b = {0};
	for (size_t i = 0; i < h->n; i++) {
		size_t lo, hi;
		rank_span(m, m->ranks[h->idx[i]].rank, &lo, &hi);
		int last = -1;
		int64_t step = RM_NONE;
		for (size_t k = lo; k < hi; k++) {
			const struct rm_marker *mk = &m->markers[k];
			if (mk->mark == MK_STEP) {
				step = mk->step;
			} else if ((int)mk->mark != last) {
				buf_putc(&b, (char)('a' + mk->mark));
				last = (int)mk->mark;
			}
		}
		buf_printf(&b, "%lld;", (long long)step);
	}
	return b.data ? b.data : xstrdup("");
}

static struct row *add_row(struct svg *g, const struct host *h, size_t nranks)
{
	xgrow(&g->rows, &g->cap, g->nrows + 1, sizeof(*g->rows));
	struct row *r = &g->rows[g->nrows++];
	memset(r, 0, sizeof(*r));
	r->host = r->mhost = h->name;
	r->ranks = xmalloc((nranks ? nranks : 1) * sizeof(int64_t));
	r->nranks = nranks;
	return r;
}

struct rank_at {
	const char *host;
	size_t i; /* index into m->ranks */
};

static int cmp_rank_at(const void *a, const void *b)
{
	const struct rank_at *x = a, *y = b;
	int c = strcmp(x->host, y->host);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int cmp_host_first(const void *a, const void *b)
{
	const struct host *x = a, *y = b;
	return (x->idx[0] > y->idx[0]) - (x->idx[0] < y->idx[0]);
}

/* The hosts in order of their first rank, each with the indexes of its
 * ranks in *idx (one array for all: a sort, where thousands of hosts made
 * looking each rank's host up in a list cost ranks x hosts). */
static size_t group_hosts(const struct report_model *m, struct host *hs, size_t **idx)
{
	size_t n = m->n_ranks, nh = 0;
	struct rank_at *at = xmalloc((n ? n : 1) * sizeof(*at));
	for (size_t i = 0; i < n; i++)
		at[i] = (struct rank_at){m->ranks[i].host ? m->ranks[i].host : "?", i};
	xqsort(at, n, sizeof(*at), cmp_rank_at);
	*idx = xmalloc((n ? n : 1) * sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		(*idx)[i] = at[i].i;
		if (i == 0 || strcmp(at[i].host, at[i - 1].host) != 0)
			hs[nh++] = (struct host){.name = at[i].host, .idx = *idx + i};
		hs[nh - 1].n++;
		hs[nh - 1].culprit |= m->ranks[at[i].i].culprit;
	}
	free(at);
	xqsort(hs, nh, sizeof(*hs), cmp_host_first);
	return nh;
}

static void build_rows(struct svg *g)
{
	const struct report_model *m = g->m;
	struct host *hs = xcalloc(m->n_ranks + 1, sizeof(*hs));
	size_t *idx;
	size_t nh = group_hosts(m, hs, &idx);
	for (size_t h = 0; h < nh; h++) {
		struct host *H = &hs[h];
		if (m->n_ranks <= RM_RANK_ROWS) {
			for (size_t k = 0; k < H->n; k++) {
				const struct rm_rank *rk = &m->ranks[H->idx[k]];
				struct row *r = add_row(g, H, 1);
				if (k)
					r->host = r->mhost = NULL;
				r->ranks[0] = rk->rank;
				r->label = xasprintf("rank %lld", (long long)rk->rank);
				struct buf t = {0};
				buf_printf(&t, "rank %lld on %s, local rank ", (long long)rk->rank, H->name);
				buf_printf(&t, rk->local_rank == RM_NONE ? "?" : "%lld", (long long)rk->local_rank);
				buf_printf(&t, ", pid %s, ", rk->pid_str ? rk->pid_str : "?");
				buf_printf(&t, rk->cuda_dev == RM_NONE ? "GPU ?" : "cuda:%lld", (long long)rk->cuda_dev);
				buf_printf(&t, ", PCI %s%s", rk->pci ? rk->pci : "?", rk->culprit ? " (culprit)" : "");
				r->tip = t.data;
				r->culprit = rk->culprit, r->rank_row = true, r->shade = (int)(h % 2);
			}
			continue;
		}
		if (H->grouped)
			continue;
		/* one row for this host, or for it and the later hosts that behaved alike */
		size_t members = 1;
		if (nh > HOST_ROWS) {
			if (!H->sig)
				H->sig = host_signature(m, H);
			for (size_t j = h + 1; j < nh; j++) {
				if (hs[j].culprit != H->culprit || hs[j].grouped)
					continue;
				if (!hs[j].sig)
					hs[j].sig = host_signature(m, &hs[j]);
				if (strcmp(hs[j].sig, H->sig) == 0)
					hs[j].grouped = true, members++;
			}
		}
		struct row *r = add_row(g, H, H->n);
		size_t nr = 0; /* culprits first: the row shows the steps of its first rank */
		for (int pass = 0; pass < 2; pass++)
			for (size_t k = 0; k < H->n; k++)
				if (m->ranks[H->idx[k]].culprit == (pass == 0))
					r->ranks[nr++] = m->ranks[H->idx[k]].rank;
		r->culprit = H->culprit;
		r->shade = (int)(g->nrows % 2);
		struct buf l = {0};
		if (members > 1) {
			r->host = xasprintf("%zu hosts", members);
			r->own_host = true;
			buf_printf(&l, "like %s", H->name);
		} else {
			buf_puts(&l, H->n == 1 ? "rank " : "ranks ");
			rm_fmt_ranks(&l, r->ranks, r->nranks, 2);
		}
		r->label = l.data;
		struct buf t = {0};
		if (members > 1) {
			buf_printf(&t, "%zu hosts that behaved alike, drawn from %s:", members, H->name);
			size_t shown = 0;
			for (size_t j = h; j < nh && shown < 20; j++)
				if (j == h || (hs[j].grouped && hs[j].culprit == H->culprit && strcmp(hs[j].sig, H->sig) == 0))
					buf_printf(&t, " %s", hs[j].name), shown++;
			if (members > shown)
				buf_puts(&t, " ...");
		} else {
			buf_printf(&t, "%s: %s", H->name, r->label);
		}
		r->tip = t.data;
	}
	for (size_t h = 0; h < nh; h++)
		free(hs[h].sig);
	free(idx);
	free(hs);
}

static void esc(struct buf *o, const char *s, size_t max)
{
	if (strlen(s) <= max) {
		report_xml_esc(o, s);
		return;
	}
	char *cut = xstrndup(s, max);
	report_xml_esc(o, cut);
	buf_puts(o, "...");
	free(cut);
}


static void shape(struct buf *o, enum rm_mark k, double x, double y)
{
	switch (k) {
	case MK_STEP: buf_printf(o, "<path class=\"mk step\" d=\"M%.1f %.1fv10\">", x, y - 5); break;
	case MK_TIMEOUT: buf_printf(o, "<path class=\"mk timeout\" d=\"M%.1f %.1fl5.5 9.5h-11z\">", x, y - 5.5); break;
	case MK_ERROR: buf_printf(o, "<circle class=\"mk error\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\">", x, y); break;
	case MK_EXIT: buf_printf(o, "<rect class=\"mk exit\" x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\">", x - 4.5, y - 4.5); break;
	case MK_DUMP: buf_printf(o, "<path class=\"mk dump\" d=\"M%.1f %.1fl5 5l-5 5l-5-5z\">", x, y - 5); break;
	default: buf_printf(o, "<path class=\"mk sysmsg\" d=\"M%.1f %.1fh11M%.1f %.1fv11\">", x - 5.5, y, x, y - 5.5); break;
	}
}

static const char *shape_end(enum rm_mark k)
{
	return k == MK_ERROR ? "</circle>" : k == MK_EXIT ? "</rect>" : "</path>";
}

static int cmp_ptr_mark(const void *a, const void *b)
{
	const struct rm_marker *x = *(const struct rm_marker *const *)a, *y = *(const struct rm_marker *const *)b;
	if (x->mark != y->mark)
		return x->mark < y->mark ? -1 : 1;
	if (x->time_us != y->time_us)
		return x->time_us < y->time_us ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static void marker_title(struct svg *g, const struct rm_marker *k)
{
	struct buf t = {0};
	if (k->rank != RM_NONE)
		buf_printf(&t, "rank %lld ", (long long)k->rank);
	else
		buf_printf(&t, "%s ", k->host ? k->host : "");
	buf_printf(&t, "%s ", k->label ? k->label : rm_mark_name(k->mark));
	if (k->mark == MK_STEP && k->step != RM_NONE)
		buf_printf(&t, "%lld ", (long long)k->step);
	buf_puts(&t, "at ");
	rm_fmt_time(&t, k->time_us);
	if (g->m->first_failure_us != RM_NONE) {
		buf_puts(&t, " (");
		rm_fmt_offset(&t, i64_sub_sat(k->time_us, g->m->first_failure_us) / 1000);
		buf_puts(&t, ")");
	}
	if (k->line != RM_NONE)
		buf_printf(&t, "\n%s:%lld\n", k->source ? k->source : "?", (long long)k->line);
	else
		buf_printf(&t, "\n%s\n", k->source ? k->source : "");
	esc(g->o, t.data, t.len);
	esc(g->o, k->text ? k->text : "", TEXT_MAX);
	buf_free(&t);
}

static void draw_markers(struct svg *g, const struct row *r, double y)
{
	const struct report_model *m = g->m;
	const struct rm_marker **v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < r->nranks; i++) {
		size_t lo, hi;
		rank_span(m, r->ranks[i], &lo, &hi);
		for (size_t k = lo; k < hi; k++) {
			if (m->markers[k].mark == MK_STEP && i > 0)
				continue;
			xgrow(&v, &cap, n + 1, sizeof(*v));
			v[n++] = &m->markers[k];
		}
	}
	size_t lo, hi;
	rank_span(m, RM_NONE, &lo, &hi); /* system messages of the host */
	for (size_t k = lo; k < hi && r->mhost; k++)
		if (same_str(m->markers[k].host, r->mhost)) {
			xgrow(&v, &cap, n + 1, sizeof(*v));
			v[n++] = &m->markers[k];
		}
	if (n)
		xqsort(v, n, sizeof(*v), cmp_ptr_mark);
	/* progress line from the first to the last step */
	double s0 = -1, s1 = -1;
	size_t nsteps = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i]->mark == MK_STEP && v[i]->time_us >= g->t0 && v[i]->time_us <= g->t1) {
			s1 = xpos(g, v[i]->time_us);
			s0 = s0 < 0 ? s1 : s0;
			nsteps++;
		}
	if (nsteps)
		buf_printf(g->o, "<path class=\"progress\" d=\"M%.1f %.1fH%.1f\"/>", s0, y, s1 + 0.01);
	for (size_t i = 0; i < n;) {
		const struct rm_marker *k = v[i];
		double x = xpos(g, k->time_us);
		size_t j = i + 1;
		while (j < n && v[j]->mark == k->mark && xpos(g, v[j]->time_us) - x <= MERGE_PX)
			j++;
		if (k->time_us < g->t0 || k->time_us > g->t1 || (k->mark == MK_STEP && nsteps > MAX_TICKS)) {
			i = j;
			continue;
		}
		shape(g->o, k->mark, x, y);
		buf_puts(g->o, "<title>");
		for (size_t q = i; q < j && q < i + TITLE_LINES; q++) {
			if (q > i)
				buf_puts(g->o, "\n\n");
			marker_title(g, v[q]);
		}
		if (j - i > TITLE_LINES)
			buf_printf(g->o, "\n\nand %zu more", j - i - TITLE_LINES);
		buf_printf(g->o, "</title>%s", shape_end(k->mark));
		i = j;
	}
	/* where each culprit of the row last made progress */
	for (size_t i = 0; i < r->nranks; i++) {
		const struct rm_rank *rk = rm_rank_find(m, r->ranks[i]);
		if (!rk || !rk->culprit)
			continue;
		int64_t t = rk->last_step_us, step = rk->last_step;
		for (size_t q = 0; q < n && t == RM_NONE; q++)
			if (v[n - 1 - q]->mark == MK_STEP && v[n - 1 - q]->rank == rk->rank)
				t = v[n - 1 - q]->time_us, step = v[n - 1 - q]->step;
		if (t == RM_NONE || t < g->t0 || t > g->t1)
			continue;
		struct buf tt = {0};
		buf_printf(&tt, "culprit rank %lld: last progress", (long long)rk->rank);
		if (step != RM_NONE)
			buf_printf(&tt, ", step %lld", (long long)step);
		buf_puts(&tt, ", at ");
		rm_fmt_time(&tt, t);
		buf_printf(g->o, "<circle class=\"lastp\" cx=\"%.1f\" cy=\"%.1f\" r=\"7\"><title>", xpos(g, t), y);
		report_xml_esc(g->o, tt.data);
		buf_puts(g->o, "</title></circle>");
		buf_free(&tt);
	}
	free(v);
}

/* The drawn span: every marker, unless some lie far from the rest (a clock
 * set to year 0 or 9999, a stale line): the markers are split where more
 * than OUTLIER_GAP_US pass without one, and the span is the stretch with
 * the most markers; the
 * markers left out (and a first failure among them) are counted and said. */
#define OUTLIER_GAP_US ((double)30 * 86400 * 1000000) /* 30 days: longer than a job runs */

static void time_range(struct svg *g)
{
	const struct report_model *m = g->m;
	int64_t *v = xmalloc((m->n_markers + 1) * sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < m->n_markers; i++)
		if (m->markers[i].rank != RM_NONE && m->markers[i].time_us != RM_NONE)
			v[n++] = m->markers[i].time_us;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	if (n) {
		xqsort(v, n, sizeof(*v), cmp_i64);
		size_t best_a = 0, best_b = 0, a = 0; /* stretches [a, b] */
		for (size_t b = 0; b < n; b++) {
			if (b + 1 < n && (double)v[b + 1] - (double)v[b] <= OUTLIER_GAP_US)
				continue;
			if (b - a > best_b - best_a)
				best_a = a, best_b = b;
			a = b + 1;
		}
		lo = v[best_a], hi = v[best_b];
	}
	int64_t extra[] = {m->first_failure_us, n ? RM_NONE : m->first_us, n ? RM_NONE : m->last_us};
	for (size_t i = 0; i < ARRAY_LEN(extra); i++)
		if (extra[i] != RM_NONE && (!n || ((double)extra[i] > (double)lo - OUTLIER_GAP_US &&
						   (double)extra[i] < (double)hi + OUTLIER_GAP_US))) {
			lo = extra[i] < lo ? extra[i] : lo;
			hi = extra[i] > hi ? extra[i] : hi;
		}
	if (lo == INT64_MAX)
		lo = hi = 0;
	g->clipped = 0;
	for (size_t i = 0; i < n; i++)
		g->clipped += v[i] < lo || v[i] > hi;
	free(v);
	/* padding, without overflow at the ends of the int64 range */
	double pad = ((double)hi - (double)lo) / 40 + 1000;
	g->t0 = (double)lo - pad < (double)INT64_MIN ? INT64_MIN : lo - (int64_t)pad;
	g->t1 = (double)hi + pad > (double)INT64_MAX ? INT64_MAX : hi + (int64_t)pad;
	if (g->t1 <= g->t0)
		g->t1 = g->t0 + 1;
}

static void axis(struct svg *g, double bottom)
{
	static const int64_t steps_ms[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000,
					   60000, 120000, 300000, 600000, 900000, 1800000, 3600000, 7200000, 21600000,
					   43200000, 86400000};
	int64_t span_ms = (int64_t)(((double)g->t1 - (double)g->t0) / 1000), step = 0;
	for (size_t i = 0; i < ARRAY_LEN(steps_ms) && !step; i++)
		if (span_ms / steps_ms[i] <= 10)
			step = steps_ms[i];
	if (!step) /* more than ten days: whole days, ten ticks or fewer */
		step = (span_ms / 10 / 86400000 + 1) * 86400000;
	struct buf t = {0};
	rm_fmt_time(&t, g->t0);
	buf_printf(g->o, "<text class=\"axis\" x=\"%d\" y=\"14\">time since ", X0);
	report_xml_esc(g->o, t.data);
	if (g->clipped)
		buf_printf(g->o, " (%zu marker%s far from the rest, outside this span, not drawn)", g->clipped,
			   g->clipped == 1 ? "" : "s");
	buf_puts(g->o, "</text>");
	buf_free(&t);
	for (int64_t ms = 0; ms <= span_ms && ms >= 0; ms += step) {
		double x = xpos(g, g->t0 + ms * 1000);
		buf_printf(g->o, "<path class=\"grid\" d=\"M%.1f %dV%.1f\"/>", x, TOP - 4, bottom);
		if (step >= 60000)
			buf_printf(g->o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\">%lld:%02lld:00</text>", x, TOP - 8,
				   (long long)(ms / 3600000), (long long)(ms / 60000 % 60));
		else if (step >= 1000)
			buf_printf(g->o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\">%lld:%02lld</text>", x, TOP - 8,
				   (long long)(ms / 60000), (long long)(ms / 1000 % 60));
		else
			buf_printf(g->o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\">+%lld ms</text>", x, TOP - 8, (long long)ms);
	}
}

static void legend(struct svg *g, double y)
{
	static const char *const names[MK_COUNT] = {"step", "timeout", "error", "exit / signal", "dump", "system message"};
	double x = X0;
	for (int k = 0; k < MK_COUNT; k++) {
		shape(g->o, (enum rm_mark)k, x, y);
		buf_printf(g->o, "<title>%s</title>%s<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">%s</text>", names[k],
			   shape_end((enum rm_mark)k), x + 9, y + 4, names[k]);
		x += 30 + 6.5 * (double)strlen(names[k]);
	}
	buf_printf(g->o, "<rect class=\"bg cul\" x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\"/>"
			 "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">culprit</text>", x, y - 6, x + 18, y + 4);
	x += 80;
	buf_printf(g->o, "<circle class=\"lastp\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\"/>"
			 "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">culprit's last progress</text>", x, y, x + 10, y + 4);
	x += 170;
	buf_printf(g->o, "<path class=\"ff\" d=\"M%.1f %.1fv14\"/><text class=\"lg\" x=\"%.1f\" y=\"%.1f\">first failure</text>",
		   x, y - 7, x + 6, y + 4);
}

static void free_rows(struct svg *g)
{
	for (size_t i = 0; i < g->nrows; i++) {
		if (g->rows[i].own_host)
			free((char *)g->rows[i].host);
		free(g->rows[i].label);
		free(g->rows[i].tip);
		free(g->rows[i].ranks);
	}
	free(g->rows);
}

void report_svg(const struct report_model *m, struct buf *out)
{
	struct svg g = {.m = m, .o = out};
	build_rows(&g);
	time_range(&g);
	double bottom = TOP + (double)g.nrows * ROW_H;
	int height = (int)bottom + 44;
	buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" viewBox=\"0 0 %d %d\" "
			"width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"timeline of %zu ranks in %zu rows\">",
		   WIDTH, height, WIDTH, height, m->n_ranks, g.nrows);
	axis(&g, bottom);
	for (size_t i = 0; i < g.nrows; i++) {
		const struct row *r = &g.rows[i];
		double y = TOP + (double)i * ROW_H, mid = y + ROW_H / 2.0;
		buf_printf(out, "<g class=\"row%s%s\"", r->rank_row ? " rank" : " group", r->culprit ? " culprit" : "");
		if (r->rank_row)
			buf_printf(out, " data-rank=\"%lld\"", (long long)r->ranks[0]);
		buf_printf(out, "><rect class=\"bg %s\" x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%d\"/>",
			   r->culprit ? "cul" : r->shade ? "s1" : "s0", y, WIDTH, ROW_H);
		if (r->culprit)
			buf_printf(out, "<rect class=\"culbar\" x=\"0\" y=\"%.1f\" width=\"5\" height=\"%d\"/>", y, ROW_H);
		if (r->host) {
			buf_printf(out, "<text class=\"host\" x=\"10\" y=\"%.1f\">", mid + 4);
			esc(out, r->host, 20);
			buf_puts(out, "</text>");
		}
		buf_printf(out, "<text class=\"rl%s\" x=\"%d\" y=\"%.1f\"><title>", r->culprit ? " cul" : "", 150, mid + 4);
		esc(out, r->tip ? r->tip : "", 2000);
		buf_puts(out, "</title>");
		esc(out, r->label, 14);
		buf_puts(out, r->culprit ? " \xe2\x97\x80</text>" : "</text>");
		draw_markers(&g, r, mid);
		buf_puts(out, "</g>");
	}
	if (m->first_failure_us != RM_NONE) {
		double x = xpos(&g, m->first_failure_us);
		struct buf t = {0};
		rm_fmt_time(&t, m->first_failure_us);
		buf_printf(out, "<path class=\"ff\" d=\"M%.1f %dV%.1f\"><title>first failure %s</title></path>", x,
			   TOP - 20, bottom, t.data);
		buf_printf(out, "<text class=\"fft\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">first failure %s</text>",
			   x + (x > (X0 + X1) / 2 ? -4 : 4), TOP - 22, x > (X0 + X1) / 2 ? "end" : "start", t.data + 11);
		buf_free(&t);
	}
	if (!g.nrows)
		buf_printf(out, "<text class=\"lg\" x=\"%d\" y=\"%d\">no ranks in this case</text>", X0, TOP + 12);
	legend(&g, bottom + 24);
	buf_puts(out, "</svg>\n");
	free_rows(&g);
}

size_t report_svg_drawn_ranks(const struct report_model *m, int64_t **ranks)
{
	struct svg g = {.m = m};
	build_rows(&g);
	size_t n = 0, cap = 0;
	*ranks = NULL;
	for (size_t i = 0; i < g.nrows; i++)
		for (size_t k = 0; k < g.rows[i].nranks; k++) {
			xgrow(ranks, &cap, n + 1, sizeof(**ranks));
			(*ranks)[n++] = g.rows[i].ranks[k];
		}
	free_rows(&g);
	return n;
}
