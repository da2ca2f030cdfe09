/* line_dicts.h: zstd dictionaries of the line blocks (table line_dicts).
 *
 * Every rank writes nearly the same lines, yet each source is compressed on
 * its own, and most sources of a large job are small: a dictionary made of
 * the first block of one source compresses the blocks of its like (sources
 * whose names differ only by digits: every rank's stdout.log, every node's
 * console.log) to half their size or less. The writer makes one dictionary
 * per such name, from the first block of the first source of that name, and
 * writes its id with every block that used it; readers load the
 * dictionaries of a case when a block needs one. */
#ifndef NF_LINE_DICTS_H
#define NF_LINE_DICTS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "line_store.h"
#include "util.h"

/* Writer side (the ingest's writer thread), on the case being written. */
struct line_dict_writer;
struct line_dict_writer *line_dict_writer_new(sqlite3 *db, int zstd_level);
void line_dict_writer_free(struct line_dict_writer *w);
/* A source begins (its path names its dictionary). */
void line_dict_writer_source(struct line_dict_writer *w, int64_t source_id, const char *path, size_t path_len);
/* Compresses the payload of a block of source_id into out (reusing zctx);
 * returns the dictionary id it used, 0 for none. */
int64_t line_dict_writer_compress(struct line_dict_writer *w, int64_t source_id, const void *payload, size_t n,
				  void *zctx, struct buf *out);

/* Reader side: the dictionaries of one connection's case. */
struct line_dict_reader;
struct line_dict_reader *line_dict_reader_new(sqlite3 *db);
void line_dict_reader_free(struct line_dict_reader *r);
/* The column of line_blocks that names a block's dictionary, for a SELECT:
 * "dict_id", or "NULL" in a case written before dictionaries. */
const char *line_dict_column(const struct line_dict_reader *r);
/* block_decode() of a block compressed with dictionary dict_id (0: none). */
int line_dict_decode(struct line_dict_reader *r, const void *data, size_t n, int64_t dict_id, struct decoded_block *out,
		     struct errbuf *err);

#endif
