/* line_split.c: see line_split.h. The fast path hands out lines straight from
 * the caller's buffer; only a line that spans two chunks is copied. */
#include "line_split.h"

#include <string.h>

void splitter_init(struct line_splitter *s, size_t max_line)
{
	memset(s, 0, sizeof(*s));
	s->max_line = max_line ? max_line : 65536;
}

void splitter_free(struct line_splitter *s)
{
	buf_free(&s->partial);
}

static void partial_add(struct line_splitter *s, const char *p, size_t n)
{
	size_t room = s->max_line > s->partial.len ? s->max_line - s->partial.len : 0;
	if (n > room) {
		s->dropped_bytes += n - room;
		s->partial_truncated = true;
		n = room;
	}
	if (n)
		buf_append(&s->partial, p, n);
}

static void emit(struct line_splitter *s, const char *line, size_t len, bool truncated, line_fn fn, void *ctx)
{
	if (len > s->max_line) {
		s->dropped_bytes += len - s->max_line;
		len = s->max_line;
		truncated = true;
	}
	if (truncated)
		s->truncated_lines++;
	s->line_no++;
	fn(ctx, line, len, s->line_no, truncated);
}

/* Ends the line made of the partial buffer plus p[0..n). */
static void finish_line(struct line_splitter *s, const char *p, size_t n, line_fn fn, void *ctx)
{
	if (s->partial.len == 0 && !s->partial_truncated) {
		emit(s, p, n, false, fn, ctx);
		return;
	}
	partial_add(s, p, n);
	emit(s, s->partial.data ? s->partial.data : "", s->partial.len, s->partial_truncated, fn, ctx);
	buf_clear(&s->partial);
	s->partial_truncated = false;
}

void splitter_feed(struct line_splitter *s, const char *data, size_t n, line_fn fn, void *ctx)
{
	const char *p = data, *end = data + n;
	if (n == 0)
		return; /* keeps after_cr: the "\n" of a "\r\n" may come next */
	if (s->after_cr && *p == '\n')
		p++; /* second half of a "\r\n" split across chunks */
	s->after_cr = false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *seg_end = nl ? nl : end;
		const char *cr = memchr(p, '\r', (size_t)(seg_end - p));
		if (cr) {
			/* a "\r" ends a line: "\r\n" counts once, a lone "\r" is a break */
			finish_line(s, p, (size_t)(cr - p), fn, ctx);
			p = cr + 1;
			if (p == end) {
				s->after_cr = true;
				return;
			}
			if (*p == '\n')
				p++;
			continue;
		}
		if (!nl) {
			partial_add(s, p, (size_t)(end - p));
			return;
		}
		finish_line(s, p, (size_t)(nl - p), fn, ctx);
		p = nl + 1;
	}
}

void splitter_finish(struct line_splitter *s, line_fn fn, void *ctx)
{
	if (s->partial.len || s->partial_truncated) {
		emit(s, s->partial.data ? s->partial.data : "", s->partial.len, s->partial_truncated, fn, ctx);
		buf_clear(&s->partial);
		s->partial_truncated = false;
	}
	s->after_cr = false;
}

void line_counter_feed(struct line_counter *c, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ch = data[i];
		if (ch == '\n' && c->after_cr) {
			c->after_cr = false; /* the LF of a CRLF: the same line end */
			continue;
		}
		c->after_cr = ch == '\r';
		if (ch == '\n' || ch == '\r') {
			c->lines++;
			c->open = false;
		} else {
			c->open = true;
		}
	}
}

long line_counter_total(const struct line_counter *c)
{
	return c->lines + (c->open ? 1 : 0);
}
