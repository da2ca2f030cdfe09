/* line_store.h: every input line is kept, in compressed blocks per source
 * (table line_blocks), with per-line metadata (time, clock, wrappers' rank,
 * local rank, pid). The virtual table `lines` (lines_vtab.c) reads them back.
 *
 * Block payload before compression (zstd):
 *   varint n_lines, then per line: flags byte, [zigzag varint time delta µs],
 *   [varint rank], [varint local_rank], [varint pid]; then the lines' text,
 *   each followed by '\n'. */
#ifndef NF_LINE_STORE_H
#define NF_LINE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timestamp.h"
#include "util.h"

struct line_meta {
	bool has_time;
	int64_t t_us;
	enum clock_kind clock;
	bool truncated;
	int rank;        /* -1: none */
	int local_rank;  /* -1: none */
	long pid;        /* -1: none */
};

struct block_builder {
	struct buf meta;
	struct buf text;
	uint32_t n_lines;
	long first_line;
	int64_t prev_t;
	bool any_time;
	int64_t min_t, max_t;
	size_t target_bytes; /* seal when the text reaches this size */
};

struct block_info {
	long first_line;
	uint32_t n_lines;
	bool has_time;
	int64_t min_t, max_t;
	size_t raw_bytes;
};

void block_init(struct block_builder *b, size_t target_bytes);
void block_free(struct block_builder *b);
void block_add(struct block_builder *b, long line_no, const char *line, size_t len, const struct line_meta *m);
static inline bool block_full(const struct block_builder *b)
{
	return b->text.len >= b->target_bytes || b->n_lines >= 65536;
}
static inline bool block_empty(const struct block_builder *b)
{
	return b->n_lines == 0;
}
/* Compresses the block into out (replacing its content), fills info, and
 * empties the builder for the next block. */
void block_seal(struct block_builder *b, int zstd_level, struct buf *out, struct block_info *info);
/* block_seal in two steps, so that another thread can compress: appends the
 * uncompressed payload to out, fills info and empties the builder; then
 * block_compress() turns a payload into the bytes block_seal stores (the
 * same bytes). zctx (from block_zctx_new, reused across calls) may be NULL. */
void block_take(struct block_builder *b, struct buf *out, struct block_info *info);
void *block_zctx_new(void);
void block_zctx_free(void *zctx);
void block_compress(const void *payload, size_t n, int zstd_level, void *zctx, struct buf *out);

/* Decoded block: lines[i] points into text (not NUL-terminated). */
struct decoded_line {
	const char *text;
	size_t len;
	struct line_meta meta;
};
struct decoded_block {
	char *payload;
	size_t payload_len;
	uint32_t n_lines;
	struct decoded_line *lines;
};
int block_decode(const void *data, size_t n, struct decoded_block *out, struct errbuf *err);
/* The same for a block compressed with a dictionary: dctx a ZSTD_DCtx,
 * ddict the ZSTD_DDict (line_dicts.c). */
int block_decode_ddict(const void *data, size_t n, void *dctx, const void *ddict, struct decoded_block *out,
		       struct errbuf *err);
void decoded_block_free(struct decoded_block *d);

#endif
