/* escape.c: see escape.h. */
#include "escape.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of the next character at s that may be shown as they are, or 0 if
 * it must be replaced. */
static size_t shown_len(const unsigned char *s, size_t n, unsigned flags)
{
	unsigned c = s[0];
	if (c == '\t')
		return flags & ESC_KEEP_TAB ? 1 : 0;
	if (c == '\n')
		return flags & ESC_KEEP_NEWLINE ? 1 : 0;
	if (c < 0x20 || c == 0x7f)
		return 0;
	if (c < 0x80)
		return 1;
	size_t len = utf8_seq_len(s, n);
	if (len == 2 && c == 0xc2 && s[1] < 0xa0)
		return 0; /* U+0080..U+009F: the C1 controls (CSI, OSC, ...) */
	return len;
}

void esc_term(struct buf *o, const char *s, size_t n, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t run = i;
		size_t k;
		while (run < n && (k = shown_len(p + run, n - run, flags)) > 0)
			run += k;
		buf_append(o, p + i, run - i);
		if (run >= n)
			break;
		buf_puts(o, p[run] == 0 ? "\\0" : "?");
		/* a C1 control in UTF-8 is one character of two bytes: one '?' */
		i = run + (p[run] == 0xc2 && run + 1 < n && p[run + 1] >= 0x80 && p[run + 1] < 0xa0 ? 2 : 1);
	}
}

bool esc_term_needed(const char *s, size_t n, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0, k; i < n; i += k)
		if ((k = shown_len(p + i, n - i, flags)) == 0)
			return true;
	return false;
}

void esc_term_fputs(FILE *f, const char *s, size_t n, unsigned flags)
{
	if (!esc_term_needed(s, n, flags)) {
		fwrite(s, 1, n, f);
		return;
	}
	struct buf b = {0};
	esc_term(&b, s, n, flags);
	fwrite(b.data, 1, b.len, f);
	buf_free(&b);
}

char *esc_term_dup(const char *s, size_t n, unsigned flags)
{
	struct buf b = {0};
	buf_reserve(&b, n + 1);
	esc_term(&b, s, n, flags);
	buf_putc(&b, '\0');
	return b.data;
}

void esc_tsv(struct buf *o, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t run = i;
		while (run < n && !memchr("\\\t\n\r", s[run], 4))
			run++;
		esc_term(o, s + i, run - i, 0);
		if (run >= n)
			break;
		buf_puts(o, s[run] == '\\' ? "\\\\" : s[run] == '\t' ? "\\t" : s[run] == '\n' ? "\\n" : "\\r");
		i = run + 1;
	}
}

void esc_csv(struct buf *o, const char *s, size_t n, bool text)
{
	/* a spreadsheet runs a cell that starts with one of these as a formula */
	bool formula = text && n > 0 && memchr("=+-@\t\r", s[0], 6);
	bool quote = formula || memchr(s, ',', n) || memchr(s, '"', n) || memchr(s, '\n', n) || memchr(s, '\r', n);
	if (quote)
		buf_putc(o, '"');
	if (formula)
		buf_putc(o, '\'');
	size_t i = 0;
	while (i < n) {
		const char *q = memchr(s + i, '"', n - i);
		size_t run = q ? (size_t)(q - s) : n;
		esc_term(o, s + i, run - i, ESC_KEEP_TAB | ESC_KEEP_NEWLINE);
		if (!q)
			break;
		buf_puts(o, "\"\"");
		i = run + 1;
	}
	if (quote)
		buf_putc(o, '"');
}
