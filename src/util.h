/* util.h: the conventions every module shares.
 *
 * Allocation: the x-allocators never return NULL; on exhaustion they print one
 * line and exit with NF_EXIT_INTERNAL.
 *
 * Errors, one pattern everywhere:
 *   - a function that can fail because of its *input* returns -1 and fills a
 *     struct errbuf with a one-line message (no file name: the caller knows it);
 *   - the caller either reports it with diag_input(path, line, ...) and goes on,
 *     or gives up with die() when nothing sensible can follow;
 *   - die() is for internal errors and impossible states only (exit 4).
 */
#ifndef NF_UTIL_H
#define NF_UTIL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdbool.h>

enum nf_exit {
	NF_EXIT_OK = 0,        /* everything ingested / done */
	NF_EXIT_INPUT = 1,     /* case written, some input skipped */
	NF_EXIT_USAGE = 2,     /* bad command line */
	NF_EXIT_NOTHING = 3,   /* nothing could be ingested / case unreadable */
	NF_EXIT_INTERNAL = 4,  /* internal error */
	NF_EXIT_UNRECOGNISED = 5, /* case written, but nothing in the input was recognised */
	NF_EXIT_WRITE = 6,     /* the output could not be written (disk full, I/O error) */
};

#define NF_PROG "ncclforensic"

#include <signal.h>
/* Set by a command's SIGINT/SIGTERM handler: long loops and SQLite
 * statements (case_db.c's progress handler) stop when they see it. */
extern volatile sig_atomic_t nf_interrupted;
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* a macro's value as a string literal */
#define NF_STR_(x) #x
#define NF_STR(x) NF_STR_(x)

#if defined(__GNUC__)
#define NF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define NF_PRINTF(f, a)
#endif

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) NF_PRINTF(1, 2);
/* Grows *items (of item_size bytes each) so that it holds at least need items. */
void xgrow(void *items_ptr, size_t *cap, size_t need, size_t item_size);
/* Allocator settings for the whole process (called once from main). */
void xalloc_tune(void);

/* FNV-1a hash of n bytes, and of a string, for the open-addressing tables. */
uint32_t hash_mem(const void *p, size_t n);
uint32_t hash_str(const char *s);

/* qsort that accepts an empty (possibly NULL) array. */
void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* Ascending order of int64_t, for xqsort and bsearch. */
int cmp_i64(const void *a, const void *b);

_Noreturn void die(const char *fmt, ...) NF_PRINTF(1, 2);

/* A one-line error message from a function that failed on its input. */
struct errbuf {
	char msg[512];
};
/* Fills e (if not NULL) and returns -1, so callers can write
 * `return errbuf_set(err, "bad thing %d", x);`. */
int errbuf_set(struct errbuf *e, const char *fmt, ...) NF_PRINTF(2, 3);

/* Diagnostics about input, one line each: "ncclforensic: PATH:LINE: message".
 * line <= 0 leaves the line number out. Counted in diag_count(). Silenced (but
 * still counted) when diag_quiet is set. */
void diag_input(const char *path, long line, const char *fmt, ...) NF_PRINTF(3, 4);
void diag_warn(const char *fmt, ...) NF_PRINTF(1, 2);
/* "ncclforensic: MESSAGE" on standard error, even when quiet: for errors
 * that end a command. Like every diagnostic, bytes of the input in it are
 * shown as text (escape.h). */
void diag_error(const char *fmt, ...) NF_PRINTF(1, 2);
long diag_count(void);
/* While b is set (not NULL), the calling thread's diag_input, diag_warn and
 * diag_error lines are appended to b instead of written to stderr (the
 * load's jobs print theirs in order: ingest_jobs.h); die() still writes. */
struct buf;
void diag_capture(struct buf *b);
extern bool diag_quiet;

/* A growable byte buffer. Invariant: data is NULL only while cap == 0; when
 * data is not NULL it is NUL-terminated at len. */
/* A growing string. With drain set, what it holds is written there (and
 * the buffer emptied) once it would grow past drain_at bytes: for output
 * built front to back that nobody reads back, so that its size does not
 * bound memory; the owner writes the rest and checks drain for errors. */
struct buf {
	char *data;
	size_t len, cap;
	FILE *drain;
	size_t drain_at;
};
void buf_reserve(struct buf *b, size_t extra);
void buf_append(struct buf *b, const void *p, size_t n);
void buf_putc(struct buf *b, char c);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) NF_PRINTF(2, 3);
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
/* Appends v as a LEB128 varint (7 bits a byte, low first). */
void buf_varint(struct buf *b, uint64_t v);
/* Appends a decimal integer (no printf: this is on hot paths). */
void buf_int(struct buf *b, int64_t v);
void buf_clear(struct buf *b);
void buf_free(struct buf *b);
/* Appends s as a JSON string literal (with quotes), escaping as needed;
 * invalid UTF-8 bytes become U+FFFD. */
void buf_json_str(struct buf *b, const char *s, size_t n);

/* Length of the valid UTF-8 sequence at s (n > 0 bytes left), 0 if invalid
 * (overlong, surrogate, beyond U+10FFFF, cut short). */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/* Arithmetic on values that came from input (times, sizes in a crafted
 * case), saturating at the ends of the int64 range instead of overflowing. */
static inline int64_t i64_sub_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}
static inline int64_t i64_add_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}
static inline int64_t i64_mul_sat(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
	return r;
}

/* The directory of the running binary (/proc/self/exe) into out; false if
 * unknown. The built-in grammars, data and SQLite extension are found from it. */
bool exe_dir(char *out, size_t n);

/* Small string helpers. */
bool str_starts(const char *s, const char *prefix);
bool str_ends(const char *s, const char *suffix);
/* Parses a decimal integer at *p, advancing *p; returns false if none. */
bool parse_long(const char **p, const char *end, long *out);
const char *mem_find(const char *hay, size_t n, const char *needle, size_t m);

#endif
