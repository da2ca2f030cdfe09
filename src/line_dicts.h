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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "line_store.h"
#include "util.h"

/* Writer side: the load's threads compress, the writer thread stores. The
 * dictionary of a name is made from the first block of the first of its
 * sources, in the load's order, whose first block can be one (512 bytes or
 * more); whichever thread compresses which block, the bytes are those of a
 * serial load. */
struct line_dict_writer;
#define DICT_SLOTS_MAX 32 /* dictionaries per case (each holds a few hundred KiB while writing) */
struct line_dict_writer *line_dict_writer_new(int zstd_level);
void line_dict_writer_free(struct line_dict_writer *w);
/* A source begins (its path names its dictionary); in the load's order. */
void line_dict_writer_source(struct line_dict_writer *w, int64_t source_id, const char *path, size_t path_len);
/* The source has no (more) blocks: if its first block did not come, it
 * gives no dictionary (the sources after it then no longer wait for it). */
void line_dict_writer_done(struct line_dict_writer *w, int64_t source_id);
/* Compresses the payload of a block of source_id (first: its first block)
 * into out (reusing zctx), with its name's dictionary once there is one;
 * may wait until the sources of the name before it have said whether they
 * give it. Returns the slot of the dictionary it used (0: none). *made_slot
 * > 0: this block (compressed alone) made that slot's dictionary, which is
 * the payload's first *made_len bytes (the writer stores them:
 * line_dict_store; names: line_dict_writer_name). */
int line_dict_writer_compress(struct line_dict_writer *w, int64_t source_id, bool first, const void *payload,
			      size_t n, void *zctx, struct buf *out, int *made_slot, size_t *made_len);
const char *line_dict_writer_name(struct line_dict_writer *w, int slot);
/* Stores a dictionary (ins: INSERT INTO line_dicts(name, data) VALUES(?, ?));
 * returns its dict_id. */
int64_t line_dict_store(sqlite3_stmt *ins, const char *name, const void *data, size_t n);

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
