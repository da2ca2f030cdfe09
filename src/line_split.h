/* line_split.h: turns a byte stream into lines, in bounded memory.
 *
 * Lines end at "\n", "\r\n" or a lone "\r". A line longer than max_line bytes
 * keeps its first max_line bytes and is flagged truncated (the rest is
 * counted in dropped_bytes, never held in memory). NUL bytes and invalid
 * UTF-8 are passed through as they are. */
#ifndef NF_LINE_SPLIT_H
#define NF_LINE_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef void (*line_fn)(void *ctx, const char *line, size_t len, long line_no, bool truncated);

struct line_splitter {
	struct buf partial;   /* the current unfinished line (at most max_line bytes) */
	size_t max_line;
	bool partial_truncated;
	bool after_cr;        /* the previous byte was a '\r' that ended a line */
	long line_no;         /* lines emitted so far */
	uint64_t dropped_bytes;
	long truncated_lines;
};

void splitter_init(struct line_splitter *s, size_t max_line);
void splitter_feed(struct line_splitter *s, const char *data, size_t n, line_fn fn, void *ctx);
/* Emits the last line if the input did not end with a line break. */
void splitter_finish(struct line_splitter *s, line_fn fn, void *ctx);
void splitter_free(struct line_splitter *s);

/* Counts lines by the same rules without keeping them (binary members,
 * pickles: their lines are counted, not stored). */
struct line_counter {
	long lines;    /* line ends seen */
	bool open;     /* bytes after the last line end */
	bool after_cr; /* the last line end was a '\r' */
};
void line_counter_feed(struct line_counter *c, const char *data, size_t n);
/* The lines, with a last one that has no line break. */
long line_counter_total(const struct line_counter *c);

#endif
