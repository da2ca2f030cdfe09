/* report_text.c: the plain-text sink of report_compose, for terminals: no
 * markup, paragraphs wrapped to the width, tables aligned when they fit and
 * written as records when they do not, quoted lines cut at the width. Widths
 * count UTF-8 characters, not bytes. */
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "report_model.h"

struct tx {
	struct buf *out;
	size_t width;
	bool in_list;
};

static bool cont_byte(char c)
{
	return ((unsigned char)c & 0xC0) == 0x80;
}

static size_t dwidth(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += !cont_byte(s[i]);
	return w;
}

/* Text on one line and safe for a terminal (escape.h): tabs and line
 * breaks as spaces, without the markup bytes when markup is set. */
static char *one_line(const char *s, bool markup)
{
	struct buf b = {0};
	for (; *s; s++) {
		if (markup && (*s == RI_CODE[0] || *s == RI_BOLD[0]))
			continue;
		buf_putc(&b, *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s);
	}
	char *safe = esc_term_dup(b.data ? b.data : "", b.len, 0);
	buf_free(&b);
	return safe;
}

/* Inline text without markup, on one line. */
static char *plain(const char *s)
{
	return one_line(s, true);
}

static void newline(struct buf *o)
{
	while (o->len && o->data[o->len - 1] == ' ')
		o->data[--o->len] = '\0';
	buf_putc(o, '\n');
}

/* Word-wraps s; lines start with first, then rest. */
static void wrap(struct tx *w, const char *s, const char *first, const char *rest)
{
	struct buf *o = w->out;
	buf_puts(o, first);
	size_t col = dwidth(first, strlen(first)), ind = dwidth(rest, strlen(rest));
	bool empty = true;
	for (const char *p = s; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *e = strchr(p, ' ');
		size_t n = e ? (size_t)(e - p) : strlen(p), wl = dwidth(p, n);
		if (!empty && col + 1 + wl > w->width) {
			newline(o);
			buf_puts(o, rest);
			col = ind, empty = true;
		}
		if (!empty)
			buf_putc(o, ' '), col++;
		/* a word longer than a line (a path, a setting's name) stays whole
		 * on a line of its own: cut, it could not be searched for */
		buf_append(o, p, n);
		col += wl, empty = false;
		p += n;
	}
	newline(o);
}

static void block(struct tx *w)
{
	if (w->in_list)
		buf_putc(w->out, '\n');
	w->in_list = false;
}

static void underline(struct buf *o, const char *s, char ch, size_t max)
{
	size_t n = dwidth(s, strlen(s));
	for (size_t i = 0; i < n && i < max; i++)
		buf_putc(o, ch);
	buf_puts(o, "\n\n");
}

static void tx_title(void *ctx, const char *s)
{
	struct tx *w = ctx;
	char *p = plain(s);
	wrap(w, p, "", "");
	underline(w->out, p, '=', w->width);
	free(p);
}

static void tx_section(void *ctx, const char *name, const char *id)
{
	struct tx *w = ctx;
	(void)id;
	block(w);
	buf_puts(w->out, name);
	buf_putc(w->out, '\n');
	underline(w->out, name, '-', w->width);
}

static void tx_para(void *ctx, const char *s)
{
	struct tx *w = ctx;
	block(w);
	char *p = plain(s);
	wrap(w, p, "", "");
	buf_putc(w->out, '\n');
	free(p);
}

static void tx_item(void *ctx, const char *s)
{
	struct tx *w = ctx;
	w->in_list = true;
	char *p = plain(s);
	wrap(w, p, "  - ", "    ");
	free(p);
}

/* s wrapped to w columns: its lines, each ending in '\n', in out; their count. */
static size_t cell_wrap(const char *s, size_t w, struct buf *out)
{
	struct tx sub = {out, w, false};
	buf_clear(out);
	wrap(&sub, s, "", "");
	size_t n = 0;
	for (size_t i = 0; i < out->len; i++)
		n += out->data[i] == '\n';
	return n;
}

/* The next line of wrapped text (lines ending in '\n') at *at, padded to w
 * columns; *at moves past it (an empty line once the text is used up). */
static void put_line(struct buf *o, const char **at, size_t w, bool last)
{
	const char *p = *at;
	size_t n = *p ? (size_t)(strchr(p, '\n') - p) : 0;
	buf_append(o, p, n);
	*at = *p ? p + n + 1 : p;
	for (size_t d = dwidth(p, n); !last && d < w; d++)
		buf_putc(o, ' ');
}

/* Aligned columns; the widest shrink (their cells wrap) until the table fits.
 * When even that fails: one record per row, "Header: value". */
static void tx_table(void *ctx, const struct report_table *t)
{
	struct tx *w = ctx;
	block(w);
	size_t nc = t->ncols, n = t->nrows * nc;
	char **cell = xmalloc((n + nc) * sizeof(char *));
	size_t *cw = xcalloc(2 * nc, sizeof(size_t)), *minw = cw + nc; /* widths; longest words */
	for (size_t i = 0; i < n + nc; i++) {
		cell[i] = plain(i < nc ? t->head[i] : t->cells[i - nc]);
		size_t d = dwidth(cell[i], strlen(cell[i]));
		if (d > cw[i % nc])
			cw[i % nc] = d;
		for (const char *p = cell[i]; *p;) {
			size_t len = strcspn(p, " "), wd = dwidth(p, len);
			/* never narrower than a word: a table that cannot fit so is
			 * written as records instead */
			if (wd > minw[i % nc])
				minw[i % nc] = wd;
			p += len + (p[len] == ' ');
		}
	}
	size_t total = 2 * (nc - 1);
	for (size_t k = 0; k < nc; k++)
		total += cw[k];
	while (total > w->width) { /* narrow the widest column that can wrap further */
		size_t big = nc;
		for (size_t k = 0; k < nc; k++)
			if (cw[k] > minw[k] && (big == nc || cw[k] > cw[big]))
				big = k;
		if (big == nc)
			break;
		cw[big]--, total--;
	}
	if (total <= w->width) {
		struct buf *wr = xcalloc(nc, sizeof(struct buf));
		const char **at = xcalloc(nc, sizeof(char *));
		for (size_t r = 0; r < t->nrows + 2; r++) {
			size_t lines = 1;
			for (size_t k = 0; k < nc && r != 1; k++) {
				size_t l = cell_wrap(cell[(r ? r - 1 : 0) * nc + k], cw[k], &wr[k]);
				lines = l > lines ? l : lines;
				at[k] = wr[k].data ? wr[k].data : "";
			}
			for (size_t li = 0; li < lines; li++) {
				for (size_t k = 0; k < nc; k++) {
					buf_puts(w->out, k ? "  " : "");
					if (r == 1)
						for (size_t i = 0; i < cw[k]; i++)
							buf_putc(w->out, '-');
					else
						put_line(w->out, &at[k], cw[k], k + 1 == nc);
				}
				newline(w->out);
			}
		}
		for (size_t k = 0; k < nc; k++)
			buf_free(&wr[k]);
		free(wr);
		free(at);
	} else {
		for (size_t r = 0; r < t->nrows; r++) {
			for (size_t k = 0; k < nc; k++) {
				const char *s = cell[(r + 1) * nc + k];
				if (!*s)
					continue;
				char *line = xasprintf("%s: %s", cell[k], s);
				wrap(w, line, k ? "    " : "  ", k ? "      " : "    ");
				free(line);
			}
			if (r + 1 < t->nrows)
				buf_putc(w->out, '\n');
		}
	}
	buf_putc(w->out, '\n');
	for (size_t i = 0; i < n + nc; i++)
		free(cell[i]);
	free(cell);
	free(cw);
}

static void tx_quote(void *ctx, const char *cite, const char *note, const char *text)
{
	struct tx *w = ctx;
	block(w);
	char *n = note ? plain(note) : NULL;
	char *c = one_line(cite, false), *line = one_line(text, false);
	char *head = n ? xasprintf("%s: %s", c, n) : xstrdup(c);
	wrap(w, head, "  ", "    ");
	/* the log line whole, on its own line, however long: a reader copies it */
	buf_puts(w->out, "    > ");
	for (const char *q = line; *q; q++)
		buf_putc(w->out, *q == '\t' || *q == '\r' || *q == '\n' ? ' ' : *q);
	newline(w->out);
	buf_putc(w->out, '\n');
	free(head);
	free(line);
	free(c);
	free(n);
}

static void tx_done(void *ctx)
{
	struct tx *w = ctx;
	while (w->out->len >= 2 && w->out->data[w->out->len - 1] == '\n' && w->out->data[w->out->len - 2] == '\n')
		w->out->data[--w->out->len] = '\0';
}

void report_text(const struct report_model *m, int width, struct buf *out)
{
	struct tx w = {out, width < 20 ? 20 : (size_t)width, false};
	struct report_sink s = {&w, tx_title, tx_section, tx_para, tx_item, tx_table, tx_quote, NULL, tx_done, NULL};
	report_compose(m, &s);
}
