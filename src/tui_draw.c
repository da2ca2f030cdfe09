/* tui_draw.c: see tui_draw.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tui_draw.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

static bool ascii_mode = true;

static const struct {
	wchar_t utf8;
	char ascii;
} glyphs[G_COUNT] = {
	[G_HLINE] = {0x2500, '-'},  [G_VLINE] = {0x2502, '|'},   [G_OPEN] = {0x25BE, '-'},
	[G_CLOSED] = {0x25B8, '+'}, [G_MORE] = {0x2026, '~'},    [G_CURSOR] = {0x25BC, 'v'},
	[G_FAIL] = {0x2503, '|'},   [G_CURLINE] = {0x2506, ':'}, [G_TICK] = {0x252C, '+'},
	[G_SELECT] = {0x25B6, '>'},
};

void tui_draw_init(bool ascii)
{
	ascii_mode = ascii;
}

static void put_cell(int y, int x, wchar_t wc, attr_t attr)
{
	if (wc < 128) {
		mvaddch(y, x, (chtype)wc | attr);
		return;
	}
	wchar_t w[2] = {wc, 0};
	cchar_t cc;
	setcchar(&cc, w, attr & ~A_COLOR, (short)PAIR_NUMBER(attr), NULL);
	mvadd_wch(y, x, &cc);
}

void tui_glyph(int y, int x, enum tui_glyph g, attr_t attr)
{
	put_cell(y, x, ascii_mode ? (wchar_t)glyphs[g].ascii : glyphs[g].utf8, attr);
}

/* Decodes one UTF-8 character at s (n bytes left); 0xFFFD and 1 byte when
 * invalid. Returns the bytes used. */
static size_t utf8_decode(const unsigned char *s, size_t n, wchar_t *out)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80) {
		*out = (wchar_t)c;
		return 1;
	} else if ((c & 0xE0) == 0xC0) {
		len = 2, c &= 0x1F, min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3, c &= 0x0F, min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		len = 4, c &= 0x07, min = 0x10000;
	} else {
		*out = 0xFFFD;
		return 1;
	}
	if (len > n) {
		*out = 0xFFFD;
		return 1;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*out = 0xFFFD;
			return 1;
		}
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
		*out = 0xFFFD;
		return 1;
	}
	*out = (wchar_t)c;
	return len;
}

/* The next printable character of s and its width (0: nothing printable). */
static size_t next_char(const char *s, size_t n, wchar_t *wc, int *width)
{
	size_t used = utf8_decode((const unsigned char *)s, n, wc);
	if (*wc == '\t') {
		*wc = ' ';
	} else if (*wc < 32 || *wc == 127 || (*wc >= 0x80 && *wc < 0xA0)) {
		*wc = '?';
	} else if (*wc >= 128 && ascii_mode) {
		*wc = '?';
	}
	int w = *wc < 128 ? 1 : wcwidth(*wc);
	if (w < 0) {
		*wc = '?';
		w = 1;
	}
	*width = w;
	return used;
}

int tui_text_width(const char *s, long n)
{
	if (!s)
		return 0;
	size_t len = n < 0 ? strlen(s) : (size_t)n;
	int cols = 0;
	for (size_t i = 0; i < len;) {
		wchar_t wc;
		int w;
		i += next_char(s + i, len - i, &wc, &w);
		cols += w;
	}
	return cols;
}

int tui_text(int y, int x, int w, const char *s, long n, attr_t attr, bool more)
{
	if (!s || w <= 0)
		return 0;
	size_t len = n < 0 ? strlen(s) : (size_t)n;
	int limit = w;
	bool cut = more && tui_text_width(s, (long)len) > w;
	if (cut)
		limit = w - 1; /* the last column shows G_MORE */
	int col = 0;
	for (size_t i = 0; i < len;) {
		wchar_t wc;
		int cw;
		size_t used = next_char(s + i, len - i, &wc, &cw);
		i += used;
		if (cw == 0) /* combining: dropped, keeps columns predictable */
			continue;
		if (col + cw > limit)
			break;
		put_cell(y, x + col, wc, attr);
		col += cw;
	}
	if (cut) {
		tui_glyph(y, x + col, G_MORE, attr);
		col++;
	}
	return col;
}

int tui_printf(int y, int x, int w, attr_t attr, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return tui_text(y, x, w, buf, -1, attr, true);
}

void tui_fill(int y, int x, int w, attr_t attr)
{
	for (int i = 0; i < w; i++)
		mvaddch(y, x + i, ' ' | attr);
}

void tui_title(struct tui *t, const char *view, const char *fmt, ...)
{
	char info[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(info, sizeof(info), fmt, ap);
	va_end(ap);
	attr_t a = tui_attr(R_TITLE);
	tui_fill(0, 0, t->cols, a);
	char buf[768];
	snprintf(buf, sizeof(buf), " %s | %s%s%s", view, t->case_name, info[0] ? " | " : "", info);
	tui_text(0, 0, t->cols, buf, -1, a, true);
}

static void split_time(int64_t us, struct tm *tm, long *frac)
{
	int64_t s = us / 1000000, f = us % 1000000;
	if (f < 0) {
		f += 1000000;
		s--;
	}
	time_t tt = (time_t)s;
	gmtime_r(&tt, tm);
	*frac = (long)f;
}

void tui_fmt_time(int64_t us, enum tui_time_prec p, char *out, size_t n)
{
	struct tm tm;
	long f;
	split_time(us, &tm, &f);
	if (p == TP_S)
		snprintf(out, n, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
	else if (p == TP_MS)
		snprintf(out, n, "%02d:%02d:%02d.%03ld", tm.tm_hour, tm.tm_min, tm.tm_sec, f / 1000);
	else
		snprintf(out, n, "%02d:%02d:%02d.%06ld", tm.tm_hour, tm.tm_min, tm.tm_sec, f);
}

void tui_fmt_date(int64_t us, char *out, size_t n)
{
	struct tm tm;
	long f;
	split_time(us, &tm, &f);
	snprintf(out, n, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

void tui_fmt_span(int64_t us, char *out, size_t n)
{
	if (us < 0)
		us = -us;
	if (us < 1000)
		snprintf(out, n, "%ldus", (long)us);
	else if (us < 1000000)
		snprintf(out, n, "%ldms", (long)(us / 1000));
	else if (us < 60000000) {
		if (us % 1000000)
			snprintf(out, n, "%.1fs", (double)us / 1e6);
		else
			snprintf(out, n, "%lds", (long)(us / 1000000));
	} else if (us < 3600 * 1000000LL) {
		long s = (long)(us / 1000000);
		if (s % 60)
			snprintf(out, n, "%ldm%02lds", s / 60, s % 60);
		else
			snprintf(out, n, "%ldm", s / 60);
	} else if (us < 86400 * 1000000LL) {
		long m = (long)(us / 60000000);
		if (m % 60)
			snprintf(out, n, "%ldh%02ldm", m / 60, m % 60);
		else
			snprintf(out, n, "%ldh", m / 60);
	} else {
		snprintf(out, n, "%ldd", (long)(us / 86400000000LL));
	}
}
