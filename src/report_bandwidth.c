/* report_bandwidth.c: see report_bandwidth.h. */
#include "report_bandwidth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "report_model.h"

enum {
	/* the chart */
	CW = 720, CX0 = 70, CX1 = 700, CY0 = 14, CY1 = 250, LEGEND_Y = 306, LEGEND_H = 18,
};

/* one run, as the report shows it; strings owned, NULL for SQL NULL */
struct bw_run_rep {
	int64_t run, gpus, channels, oob, wrong, nhosts;
	char *source, *collective, *gpu_name, *transport, *rating, *expected, *severity, *summary, *settings;
	double avg, exp_low, exp_high;
	bool has_avg, has_exp, has_oob;
	struct buf hosts_json; /* ["a","b"] (redacted) */
	struct buf env_json;   /* {"NAME":"value"} (redacted) */
	int64_t *size;
	double *bw[2]; /* out of place, in place; NAN when absent */
	size_t npt, cap;
	int peak[2];
};

struct bw_report {
	struct bw_run_rep *runs;
	size_t n;
};

static char *dup_col(sqlite3_stmt *st, int i, struct redact *r)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	if (!s)
		return NULL;
	return r ? redact_text(r, s) : xstrdup(s);
}

static double dcol(sqlite3_stmt *st, int i, bool *has)
{
	bool h = sqlite3_column_type(st, i) != SQLITE_NULL;
	if (has)
		*has = h;
	return h ? sqlite3_column_double(st, i) : NAN;
}

static void fmt_size(struct buf *b, double n)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (u < 4 && n >= 1024) {
		n /= 1024;
		u++;
	}
	if (n == floor(n))
		buf_printf(b, "%.0f %s", n, unit[u]);
	else
		buf_printf(b, "%.1f %s", n, unit[u]);
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "?";
}

/* hosts (a JSON array) and env (a JSON object) of a run, element by element so each can be redacted */
static void load_json(sqlite3 *db, sqlite3_stmt *src, int col, bool object, struct redact *r, struct buf *out)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT key, value FROM json_each(?1)", -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return;
	}
	const char *json = (const char *)sqlite3_column_text(src, col);
	sqlite3_bind_text(st, 1, json ? json : (object ? "{}" : "[]"), -1, SQLITE_TRANSIENT);
	buf_putc(out, object ? '{' : '[');
	int n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);
		if (!v)
			continue;
		buf_puts(out, n++ ? "," : "");
		if (object) {
			buf_json_str(out, k ? k : "", k ? strlen(k) : 0);
			buf_putc(out, ':');
		}
		const char *shown = v;
		char *red = NULL;
		if (r)
			shown = object ? (red = redact_text(r, v)) : redact_host(r, v);
		buf_json_str(out, shown, strlen(shown));
		free(red);
	}
	buf_putc(out, object ? '}' : ']');
	sqlite3_finalize(st);
}

static sqlite3_stmt *prep_opt(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

struct bw_report *bw_report_load(sqlite3 *db, struct redact *r)
{
	struct bw_report *b = xcalloc(1, sizeof(*b));
	sqlite3_stmt *st = NULL;
	/* a case written before the table existed has none */
	if (sqlite3_prepare_v2(db,
			       "SELECT b.run, s.path, b.collective, b.gpus, b.gpu_name, b.hosts, b.transport, b.channels,"
			       "  b.env, b.avg_busbw_gbs, b.oob, b.rating, b.expected, b.expected_low_gbs, b.expected_high_gbs,"
			       "  f.severity, f.summary, sum(CASE WHEN b.wrong > 0 THEN b.wrong ELSE 0 END),"
			       "  json_array_length(b.hosts)"
			       " FROM bandwidth b LEFT JOIN sources s USING(source_id) LEFT JOIN findings f USING(finding_id)"
			       " GROUP BY b.run ORDER BY b.run",
			       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return b;
	}
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&b->runs, &cap, b->n + 1, sizeof(*b->runs));
		struct bw_run_rep *x = &b->runs[b->n++];
		memset(x, 0, sizeof(*x));
		x->run = sqlite3_column_int64(st, 0);
		x->source = dup_col(st, 1, r);
		x->collective = dup_col(st, 2, NULL);
		x->gpus = sqlite3_column_int64(st, 3);
		x->gpu_name = dup_col(st, 4, NULL);
		load_json(db, st, 5, false, r, &x->hosts_json);
		x->transport = dup_col(st, 6, NULL);
		x->channels = sqlite3_column_int64(st, 7);
		load_json(db, st, 8, true, r, &x->env_json);
		x->avg = dcol(st, 9, &x->has_avg);
		x->has_oob = sqlite3_column_type(st, 10) != SQLITE_NULL;
		x->oob = sqlite3_column_int64(st, 10);
		x->rating = dup_col(st, 11, NULL);
		x->expected = dup_col(st, 12, NULL);
		x->exp_low = dcol(st, 13, &x->has_exp);
		x->exp_high = dcol(st, 14, NULL);
		x->severity = dup_col(st, 15, NULL);
		x->summary = dup_col(st, 16, r);
		x->wrong = sqlite3_column_int64(st, 17);
		x->nhosts = sqlite3_column_int64(st, 18);
		x->peak[0] = x->peak[1] = -1;
	}
	sqlite3_finalize(st);

	/* settings shown in the table: the run's environment but the debug output ones */
	st = prep_opt(db, "SELECT key || '=' || value FROM json_each(?1) WHERE key NOT LIKE 'NCCL_DEBUG%' ORDER BY key");
	for (size_t i = 0; st && i < b->n; i++) {
		struct bw_run_rep *x = &b->runs[i];
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, x->env_json.data ? x->env_json.data : "{}", -1, SQLITE_STATIC);
		struct buf s = {0};
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *kv = (const char *)sqlite3_column_text(st, 0);
			buf_printf(&s, "%s%s", s.len ? " " : "", kv ? kv : "");
		}
		x->settings = s.data;
	}
	sqlite3_finalize(st);

	/* the points */
	st = prep_opt(db, "SELECT run, size_bytes, placement = 'in-place', busbw_gbs, is_peak FROM bandwidth"
				" ORDER BY run, line_no, placement DESC");
	size_t ri = 0;
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t run = sqlite3_column_int64(st, 0);
		while (ri < b->n && b->runs[ri].run < run)
			ri++;
		if (ri >= b->n || b->runs[ri].run != run)
			continue;
		struct bw_run_rep *x = &b->runs[ri];
		int64_t size = sqlite3_column_int64(st, 1);
		int k = sqlite3_column_int(st, 2) ? 1 : 0;
		if (!x->npt || x->size[x->npt - 1] != size || !isnan(x->bw[k][x->npt - 1])) {
			if (x->npt == x->cap) {
				x->cap = x->cap ? 2 * x->cap : 16;
				x->size = xrealloc(x->size, x->cap * sizeof(*x->size));
				x->bw[0] = xrealloc(x->bw[0], x->cap * sizeof(double));
				x->bw[1] = xrealloc(x->bw[1], x->cap * sizeof(double));
			}
			x->size[x->npt] = size;
			x->bw[0][x->npt] = x->bw[1][x->npt] = NAN;
			x->npt++;
		}
		x->bw[k][x->npt - 1] = dcol(st, 3, NULL);
		if (sqlite3_column_int(st, 4))
			x->peak[k] = (int)x->npt - 1;
	}
	sqlite3_finalize(st);
	return b;
}

void bw_report_free(struct bw_report *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		struct bw_run_rep *x = &b->runs[i];
		free(x->source);
		free(x->collective);
		free(x->gpu_name);
		free(x->transport);
		free(x->rating);
		free(x->expected);
		free(x->severity);
		free(x->summary);
		free(x->settings);
		buf_free(&x->hosts_json);
		buf_free(&x->env_json);
		free(x->size);
		free(x->bw[0]);
		free(x->bw[1]);
	}
	free(b->runs);
	free(b);
}

size_t bw_report_runs(const struct bw_report *b)
{
	return b ? b->n : 0;
}

/* ---- the section ---- */

static char *gbs(double v, bool peak_of, const struct bw_run_rep *x, int k)
{
	struct buf b = {0};
	if (isnan(v)) {
		buf_puts(&b, "-");
	} else {
		buf_printf(&b, "%.1f GB/s", v);
		if (peak_of && x->peak[k] >= 0) {
			buf_puts(&b, " at ");
			fmt_size(&b, (double)x->size[x->peak[k]]);
		}
	}
	return rc_take(&b);
}

void rc_bandwidth(struct rcomp *c)
{
	const struct bw_report *b = c->m->bandwidth;
	if (!b || !b->n)
		return;
	c->s->section(c->s->ctx, "Bandwidth", "bandwidth");
	buf_printf(&c->b, "%zu nccl-tests run%s in this case (table ", b->n, b->n == 1 ? "" : "s");
	rc_code(&c->b, "bandwidth");
	buf_puts(&c->b, "): the peak bus bandwidth of each, out of place and in place, and how the out-of-place peak"
			" rates against what its GPUs or NICs should reach (");
	rc_code(&c->b, "data/bandwidth-expectations.tsv");
	buf_puts(&c->b, ").");
	rc_para(c);
	static const char *const head[] = {"Run", "File", "Test", "GPUs", "Transport", "Peak busbw", "In place",
					   "Avg busbw", "Errors", "Settings", "Rating"};
	struct rc_tb t = {.ncols = ARRAY_LEN(head), .head = head};
	for (size_t i = 0; i < b->n; i++) {
		const struct bw_run_rep *x = &b->runs[i];
		struct buf g = {0}, e = {0}, rt = {0}, st = {0};
		if (x->gpus > 0) {
			buf_printf(&g, "%lldx ", (long long)x->gpus);
			rc_text(&g, x->gpu_name ? x->gpu_name : "GPU");
			if (x->nhosts > 1)
				buf_printf(&g, " on %lld hosts", (long long)x->nhosts);
		} else {
			buf_puts(&g, "-");
		}
		if (x->wrong > 0)
			buf_printf(&e, "#wrong %lld", (long long)x->wrong);
		if (x->has_oob && x->oob > 0)
			buf_printf(&e, "%sout of bounds %lld", e.len ? ", " : "", (long long)x->oob);
		if (!e.len)
			buf_puts(&e, "none");
		rc_text(&rt, x->rating ? x->rating : "-");
		if (x->has_exp)
			buf_printf(&rt, " (%g-%g GB/s)", x->exp_low, x->exp_high);
		if (x->settings && *x->settings)
			rc_code(&st, x->settings);
		else
			buf_puts(&st, "-");
		bool hi = x->wrong > 0 || (x->has_oob && x->oob > 0) ||
			  (x->rating && (strcmp(x->rating, "low") == 0 || strcmp(x->rating, "far below") == 0));
		struct buf src = {0};
		rc_code(&src, base_name(x->source));
		rc_row(&t, hi, xasprintf("%lld", (long long)x->run), rc_take(&src), rc_str(x->collective, "-"),
		       rc_take(&g), rc_str(x->transport, "not logged"),
		       gbs(x->peak[0] >= 0 ? x->bw[0][x->peak[0]] : NAN, true, x, 0),
		       gbs(x->peak[1] >= 0 ? x->bw[1][x->peak[1]] : NAN, true, x, 1),
		       gbs(x->has_avg ? x->avg : NAN, false, x, 0), rc_take(&e), rc_take(&st), rc_take(&rt));
	}
	rc_table(c, &t);
	for (int sev = 0; sev <= 3; sev++)
		for (size_t i = 0; i < b->n; i++) {
			const struct bw_run_rep *x = &b->runs[i];
			if (!x->summary || rc_severity(x->severity) != sev)
				continue;
			buf_puts(&c->b, RI_BOLD);
			rc_text(&c->b, x->severity ? x->severity : "info");
			buf_puts(&c->b, RI_BOLD " ");
			rc_text(&c->b, x->summary);
			rc_item(c);
		}
	if (c->s->figure) {
		struct buf svg = {0};
		bw_report_svg(b, &svg);
		if (svg.len)
			c->s->figure(c->s->ctx, svg.data);
		buf_free(&svg);
	}
}

/* ---- JSON ---- */

static void indent(struct buf *o, int depth)
{
	for (int i = 0; i < depth; i++)
		buf_puts(o, "  ");
}

static void jkey(struct buf *o, int depth, bool first, const char *key)
{
	buf_puts(o, first ? "\n" : ",\n");
	indent(o, depth);
	buf_json_str(o, key, strlen(key));
	buf_puts(o, ": ");
}

static void jstr(struct buf *o, const char *s)
{
	if (s)
		buf_json_str(o, s, strlen(s));
	else
		buf_puts(o, "null");
}

static void jnum(struct buf *o, double v)
{
	if (isnan(v))
		buf_puts(o, "null");
	else
		buf_printf(o, "%.10g", v);
}

void bw_report_json(const struct bw_report *b, struct buf *out, int depth)
{
	jkey(out, depth, false, "bandwidth");
	if (!b || !b->n) {
		buf_puts(out, "[]");
		return;
	}
	buf_putc(out, '[');
	for (size_t i = 0; i < b->n; i++) {
		const struct bw_run_rep *x = &b->runs[i];
		buf_puts(out, i ? ",\n" : "\n");
		indent(out, depth + 1);
		buf_putc(out, '{');
		int d = depth + 2;
		jkey(out, d, true, "run");
		buf_printf(out, "%lld", (long long)x->run);
		jkey(out, d, false, "source");
		jstr(out, x->source);
		jkey(out, d, false, "collective");
		jstr(out, x->collective);
		jkey(out, d, false, "gpus");
		if (x->gpus > 0)
			buf_printf(out, "%lld", (long long)x->gpus);
		else
			buf_puts(out, "null");
		jkey(out, d, false, "gpu_name");
		jstr(out, x->gpu_name);
		jkey(out, d, false, "hosts");
		buf_puts(out, x->hosts_json.data ? x->hosts_json.data : "[]");
		jkey(out, d, false, "transport");
		jstr(out, x->transport);
		jkey(out, d, false, "channels");
		if (x->channels > 0)
			buf_printf(out, "%lld", (long long)x->channels);
		else
			buf_puts(out, "null");
		jkey(out, d, false, "env");
		buf_puts(out, x->env_json.data ? x->env_json.data : "{}");
		jkey(out, d, false, "peak_busbw_gbs");
		jnum(out, x->peak[0] >= 0 ? x->bw[0][x->peak[0]] : NAN);
		jkey(out, d, false, "peak_size_bytes");
		if (x->peak[0] >= 0)
			buf_printf(out, "%lld", (long long)x->size[x->peak[0]]);
		else
			buf_puts(out, "null");
		jkey(out, d, false, "peak_busbw_in_place_gbs");
		jnum(out, x->peak[1] >= 0 ? x->bw[1][x->peak[1]] : NAN);
		jkey(out, d, false, "avg_busbw_gbs");
		jnum(out, x->has_avg ? x->avg : NAN);
		jkey(out, d, false, "wrong");
		buf_printf(out, "%lld", (long long)x->wrong);
		jkey(out, d, false, "out_of_bounds");
		if (x->has_oob)
			buf_printf(out, "%lld", (long long)x->oob);
		else
			buf_puts(out, "null");
		jkey(out, d, false, "rating");
		jstr(out, x->rating);
		jkey(out, d, false, "expected");
		jstr(out, x->expected);
		jkey(out, d, false, "expected_low_gbs");
		jnum(out, x->has_exp ? x->exp_low : NAN);
		jkey(out, d, false, "expected_high_gbs");
		jnum(out, x->has_exp ? x->exp_high : NAN);
		jkey(out, d, false, "severity");
		jstr(out, x->severity);
		jkey(out, d, false, "summary");
		jstr(out, x->summary);
		/* [size, busbw out of place, busbw in place] */
		jkey(out, d, false, "points");
		buf_putc(out, '[');
		for (size_t p = 0; p < x->npt; p++) {
			buf_printf(out, "%s[%lld, ", p ? ", " : "", (long long)x->size[p]);
			jnum(out, x->bw[0][p]);
			buf_puts(out, ", ");
			jnum(out, x->bw[1][p]);
			buf_putc(out, ']');
		}
		buf_putc(out, ']');
		buf_putc(out, '\n');
		indent(out, depth + 1);
		buf_putc(out, '}');
	}
	buf_putc(out, '\n');
	indent(out, depth);
	buf_putc(out, ']');
}

/* ---- the chart ---- */

static const char *const colour[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
				     "#17becf"};

struct axes {
	double lx0, lx1; /* log2 of sizes */
	double ly0, ly1; /* log10 of GB/s */
};

static double px(const struct axes *a, double size)
{
	return CX0 + (log2(size) - a->lx0) * (CX1 - CX0) / (a->lx1 - a->lx0);
}

static double py(const struct axes *a, double gbs)
{
	return CY1 - (log10(gbs) - a->ly0) * (CY1 - CY0) / (a->ly1 - a->ly0);
}

void bw_report_svg(const struct bw_report *b, struct buf *o)
{
	if (!b || !b->n)
		return;
	double smin = INFINITY, smax = 0, bmin = INFINITY, bmax = 0;
	for (size_t i = 0; i < b->n; i++)
		for (size_t p = 0; p < b->runs[i].npt; p++) {
			double v = b->runs[i].bw[0][p];
			double s = (double)b->runs[i].size[p];
			if (isnan(v) || v <= 0 || s <= 0)
				continue;
			smin = fmin(smin, s);
			smax = fmax(smax, s);
			bmin = fmin(bmin, v);
			bmax = fmax(bmax, v);
		}
	if (!(smax > 0))
		return;
	struct axes a = {floor(log2(smin)), ceil(log2(smax)), floor(log10(bmin)), ceil(log10(bmax))};
	if (a.lx1 <= a.lx0)
		a.lx1 = a.lx0 + 1;
	a.ly0 = fmax(a.ly0, a.ly1 - 6); /* six decades at most: 0.001 GB/s and less squeezed at the bottom */
	if (a.ly1 <= a.ly0)
		a.ly1 = a.ly0 + 1;
	int height = LEGEND_Y + (int)b->n * LEGEND_H + 6;
	buf_printf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bwchart\" width=\"%d\" height=\"%d\" "
		      "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"bus bandwidth against message size\">",
		   CW, height, CW, height);
	buf_puts(o, "<style>.bwchart text{font:11px system-ui,sans-serif;fill:#46505a}.bwchart .grid{stroke:#e3e7eb}"
		    ".bwchart .frame{fill:none;stroke:#9aa5b1}.bwchart .band{fill:#2ca02c;fill-opacity:.08}"
		    ".bwchart .run{fill:none;stroke-width:2}.bwchart .tx{text-anchor:middle}"
		    ".bwchart .ty{text-anchor:end}</style>");
	/* expected ranges of the rated runs (each distinct one once) */
	for (size_t i = 0; i < b->n; i++) {
		const struct bw_run_rep *x = &b->runs[i];
		bool seen = !x->has_exp || !(x->exp_low > 0);
		for (size_t j = 0; j < i && !seen; j++)
			seen = b->runs[j].has_exp && b->runs[j].exp_low == x->exp_low && b->runs[j].exp_high == x->exp_high;
		if (seen)
			continue;
		double top = py(&a, fmin(x->exp_high, pow(10, a.ly1))), bot = py(&a, fmax(x->exp_low, pow(10, a.ly0)));
		if (bot <= top)
			continue;
		buf_printf(o, "<rect class=\"band\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\"><title>expected: ", CX0,
			   top, CX1 - CX0, bot - top);
		report_xml_esc(o, x->expected ? x->expected : "");
		buf_printf(o, " (%g-%g GB/s)</title></rect>", x->exp_low, x->exp_high);
		buf_printf(o, "<text x=\"%d\" y=\"%.1f\">expected: ", CX0 + 4, top + 11);
		report_xml_esc(o, x->expected ? x->expected : "");
		buf_puts(o, "</text>");
	}
	/* grid and ticks: decades of GB/s, powers of two of bytes */
	for (double d = a.ly0; d <= a.ly1 + 1e-9; d++) {
		double y = py(&a, pow(10, d));
		buf_printf(o, "<path class=\"grid\" d=\"M%d %.1fH%d\"/><text class=\"ty\" x=\"%d\" y=\"%.1f\">%g</text>", CX0, y,
			   CX1, CX0 - 6, y + 4, pow(10, d));
	}
	/* a tick every 1, 2, 5 or 10 powers of two: at most 12 labels */
	static const int steps[] = {1, 2, 5, 10, 20};
	int span = (int)(a.lx1 - a.lx0), step = 20;
	for (size_t i = 0; i < ARRAY_LEN(steps); i++)
		if (span / steps[i] < 12) {
			step = steps[i];
			break;
		}
	for (int e = (int)a.lx0; e <= (int)a.lx1; e++) {
		if (e % step)
			continue;
		double x = px(&a, pow(2, e));
		buf_printf(o, "<path class=\"grid\" d=\"M%.1f %dV%d\"/><text class=\"tx\" x=\"%.1f\" y=\"%d\">", x, CY0, CY1, x,
			   CY1 + 15);
		struct buf s = {0};
		fmt_size(&s, pow(2, e));
		report_xml_esc(o, s.data);
		buf_free(&s);
		buf_puts(o, "</text>");
	}
	buf_printf(o, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", CX0, CY0, CX1 - CX0, CY1 - CY0);
	buf_printf(o, "<text class=\"tx\" x=\"%d\" y=\"%d\">message size (log scale)</text>", (CX0 + CX1) / 2, CY1 + 32);
	buf_printf(o, "<text class=\"tx\" transform=\"translate(14 %d) rotate(-90)\">busbw, GB/s (log scale)</text>",
		   (CY0 + CY1) / 2);
	/* one line per run: busbw out of place; zeros cannot be drawn on a log scale */
	for (size_t i = 0; i < b->n; i++) {
		const struct bw_run_rep *x = &b->runs[i];
		const char *col = colour[i % ARRAY_LEN(colour)];
		buf_printf(o, "<g><title>run %lld: ", (long long)x->run);
		report_xml_esc(o, base_name(x->source));
		buf_puts(o, "</title><polyline class=\"run\" stroke=\"");
		buf_puts(o, col);
		buf_puts(o, "\" points=\"");
		int n = 0;
		for (size_t p = 0; p < x->npt; p++) {
			double v = x->bw[0][p];
			if (isnan(v) || v <= 0 || v < pow(10, a.ly0))
				continue;
			buf_printf(o, "%s%.1f,%.1f", n++ ? " " : "", px(&a, (double)x->size[p]), py(&a, v));
		}
		buf_puts(o, "\"/>");
		for (size_t p = 0; p < x->npt; p++) {
			double v = x->bw[0][p];
			if (isnan(v) || v <= 0 || v < pow(10, a.ly0))
				continue;
			buf_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>", px(&a, (double)x->size[p]),
				   py(&a, v), col);
			struct buf s = {0};
			fmt_size(&s, (double)x->size[p]);
			buf_printf(&s, ": %.2f GB/s", v);
			report_xml_esc(o, s.data);
			buf_free(&s);
			buf_puts(o, "</title></circle>");
		}
		buf_puts(o, "</g>");
		/* legend */
		int y = LEGEND_Y + (int)i * LEGEND_H;
		buf_printf(o, "<path d=\"M%d %dh22\" stroke=\"%s\" stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">", CX0, y - 4,
			   col, CX0 + 28, y);
		struct buf s = {0};
		buf_printf(&s, "run %lld: %s, %s, %s", (long long)x->run, x->collective ? x->collective : "?",
			   x->transport ? x->transport : "transport not logged", base_name(x->source));
		if (x->peak[0] >= 0)
			buf_printf(&s, ", peak %.1f GB/s", x->bw[0][x->peak[0]]);
		if (x->rating)
			buf_printf(&s, " (%s)", x->rating);
		report_xml_esc(o, s.data);
		buf_free(&s);
		buf_puts(o, "</text>");
	}
	buf_puts(o, "</svg>");
}
