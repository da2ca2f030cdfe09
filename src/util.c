/* util.c: x-allocators, diagnostics, byte buffers. See util.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "util.h"

#include "escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

bool diag_quiet;
volatile sig_atomic_t nf_interrupted;
static long diag_counter; /* atomic: any thread may add */
/* a thread's lines go here instead of stderr while set (diag_capture) */
static _Thread_local struct buf *diag_captured;

static _Noreturn void out_of_memory(size_t n)
{
	fprintf(stderr, NF_PROG ": fatal: out of memory (%zu bytes)\n", n);
	exit(NF_EXIT_INTERNAL);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		out_of_memory(count * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

uint32_t hash_mem(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

uint32_t hash_str(const char *s)
{
	return hash_mem(s, strlen(s));
}

char *xasprintf(const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (!b.data)
		return xstrdup("");
	return b.data;
}

void xgrow(void *items_ptr, size_t *cap, size_t need, size_t item_size)
{
	void **items = items_ptr;
	if (need <= *cap)
		return;
	size_t n = *cap ? *cap : 8;
	while (n < need)
		n *= 2;
	*items = xrealloc(*items, n * item_size);
	*cap = n;
}

void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (base && n > 1)
		qsort(base, n, size, cmp);
}

int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Writes one diagnostic line: paths and messages hold bytes of the input,
 * shown as nothing but text (escape.h). */
static void diag_line_to(struct buf *out, const char *prefix, const char *fmt, va_list ap)
{
	struct buf b = {0};
	buf_puts(&b, prefix);
	buf_vprintf(&b, fmt, ap);
	struct buf safe = {0};
	esc_term(&safe, b.data, b.len, ESC_KEEP_TAB);
	buf_putc(&safe, '\n');
	if (out)
		buf_append(out, safe.data, safe.len);
	else
		fwrite(safe.data, 1, safe.len, stderr);
	buf_free(&safe);
	buf_free(&b);
}

static void diag_line(const char *prefix, const char *fmt, va_list ap)
{
	diag_line_to(diag_captured, prefix, fmt, ap);
}

void diag_capture(struct buf *b)
{
	diag_captured = b;
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_line_to(NULL, NF_PROG ": fatal: ", fmt, ap);
	va_end(ap);
	exit(NF_EXIT_INTERNAL);
}

int errbuf_set(struct errbuf *e, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

void diag_input(const char *path, long line, const char *fmt, ...)
{
	__atomic_add_fetch(&diag_counter, 1, __ATOMIC_RELAXED);
	if (diag_quiet)
		return;
	struct buf where = {0};
	if (line > 0)
		buf_printf(&where, NF_PROG ": %s:%ld: ", path ? path : "-", line);
	else
		buf_printf(&where, NF_PROG ": %s: ", path ? path : "-");
	va_list ap;
	va_start(ap, fmt);
	diag_line(where.data, fmt, ap);
	va_end(ap);
	buf_free(&where);
}

void diag_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_line(NF_PROG ": ", fmt, ap);
	va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
	if (diag_quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	diag_line(NF_PROG ": ", fmt, ap);
	va_end(ap);
}

long diag_count(void)
{
	return __atomic_load_n(&diag_counter, __ATOMIC_RELAXED);
}

void buf_reserve(struct buf *b, size_t extra)
{
	if (b->drain && b->len && b->len + extra + 1 > b->drain_at) {
		fwrite(b->data, 1, b->len, b->drain);
		b->len = 0;
		b->data[0] = '\0';
	}
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t n = b->cap ? b->cap : 64;
	while (n < need)
		n *= 2;
	b->data = xrealloc(b->data, n);
	b->cap = n;
}

void buf_append(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_putc(struct buf *b, char c)
{
	buf_reserve(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	if (!fmt)
		return;
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	buf_reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_varint(struct buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;
	do {
		unsigned char c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		tmp[n++] = c;
	} while (v);
	buf_append(b, tmp, n);
}

void buf_int(struct buf *b, int64_t v)
{
	char tmp[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[n++] = '-';
	buf_reserve(b, (size_t)n);
	while (n)
		b->data[b->len++] = tmp[--n];
	b->data[b->len] = '\0';
}

void buf_clear(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if ((c & 0xE0) == 0xC0) {
		len = 2;
		min = 0x80;
		c &= 0x1F;
	} else if ((c & 0xF0) == 0xE0) {
		len = 3;
		min = 0x800;
		c &= 0x0F;
	} else if ((c & 0xF8) == 0xF0) {
		len = 4;
		min = 0x10000;
		c &= 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	return len;
}

void buf_json_str(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	buf_reserve(b, n + 2);
	buf_putc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		if (c == '"' || c == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, (char)c);
			i++;
		} else if (c == '\n') {
			buf_puts(b, "\\n");
			i++;
		} else if (c == '\t') {
			buf_puts(b, "\\t");
			i++;
		} else if (c == '\r') {
			buf_puts(b, "\\r");
			i++;
		} else if (c < 0x20 || c == 0x7F) {
			buf_printf(b, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			buf_putc(b, (char)c);
			i++;
		} else {
			size_t len = utf8_seq_len(p + i, n - i);
			if (len == 0) {
				buf_puts(b, "\xEF\xBF\xBD");
				i++;
			} else if (len == 2 && c == 0xC2 && p[i + 1] < 0xA0) {
				buf_printf(b, "\\u%04x", 0x80u + (p[i + 1] & 0x1Fu)); /* a C1 control */
				i += 2;
			} else {
				buf_append(b, p + i, len);
				i += len;
			}
		}
	}
	buf_putc(b, '"');
}

bool str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool parse_long(const char **p, const char *end, long *out)
{
	const char *s = *p;
	bool neg = false;
	long v = 0;
	if (s < end && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++;
	}
	const char *digits = s;
	while (s < end && *s >= '0' && *s <= '9') {
		if (v > (LONG_MAX / 10 - 1))
			return false;
		v = v * 10 + (*s - '0');
		s++;
	}
	if (s == digits)
		return false;
	*out = neg ? -v : v;
	*p = s;
	return true;
}

const char *mem_find(const char *hay, size_t n, const char *needle, size_t m)
{
	return memmem(hay, n, needle, m);
}

/* glibc gives the heap's free top back to the system once 128 KiB are free,
 * and serves blocks above 128 KiB with their own mappings: the arena of each
 * flight-recorder dump (64 KiB chunks, freed when the dump is done) then costs
 * a page fault for every page, dump after dump (a fifth of the time of
 * reading 1,024 dumps). Keep freed memory for reuse instead: what is kept is
 * what the largest single dump needed, so memory stays bounded. */
void xalloc_tune(void)
{
#ifdef __GLIBC__
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

bool exe_dir(char *out, size_t n)
{
	if (n < 2)
		return false;
	ssize_t len = readlink("/proc/self/exe", out, n - 1);
	if (len <= 0)
		return false;
	out[len] = '\0';
	char *slash = strrchr(out, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return true;
}
