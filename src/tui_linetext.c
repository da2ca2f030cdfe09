/* tui_linetext.c: the text of single lines for the events view, read from
 * line_blocks and decoded with line_store, keeping the last few decoded
 * blocks: a screen of events mostly shares a handful of blocks. (The `lines`
 * table would do the same but loads its attribution maps per lookup, which
 * costs milliseconds per row on a 1,024-rank case.) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "line_dicts.h"
#include "line_prefix.h"
#include "line_store.h"
#include "tui_linetext.h"

#define CACHED_BLOCKS 8

struct cached {
	int64_t source_id, first_line;
	struct decoded_block block;
	bool used;
	unsigned age;
};

static struct cached cache[CACHED_BLOCKS];
static unsigned clock_tick;
static struct line_dict_reader *dicts; /* of dicts_db */
static sqlite3 *dicts_db;

void tui_linetext_free(void)
{
	line_dict_reader_free(dicts);
	dicts = NULL;
	dicts_db = NULL;
	for (int i = 0; i < CACHED_BLOCKS; i++) {
		if (cache[i].used)
			decoded_block_free(&cache[i].block);
		memset(&cache[i], 0, sizeof(cache[i]));
	}
}

static struct cached *find(int64_t source_id, int64_t line_no)
{
	for (int i = 0; i < CACHED_BLOCKS; i++) {
		struct cached *c = &cache[i];
		if (c->used && c->source_id == source_id && line_no >= c->first_line &&
		    line_no < c->first_line + (int64_t)c->block.n_lines) {
			c->age = ++clock_tick;
			return c;
		}
	}
	return NULL;
}

static struct cached *load(sqlite3 *db, int64_t source_id, int64_t line_no)
{
	if (dicts_db != db) {
		line_dict_reader_free(dicts);
		dicts = line_dict_reader_new(db);
		dicts_db = db;
	}
	sqlite3_stmt *st = NULL;
	char *sql = xasprintf("SELECT first_line, data, %s FROM line_blocks WHERE source_id = ?1 AND first_line <= ?2 "
			      "AND first_line + n_lines > ?2 LIMIT 1", line_dict_column(dicts));
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, source_id);
	sqlite3_bind_int64(st, 2, line_no);
	struct cached *slot = NULL;
	if (sqlite3_step(st) == SQLITE_ROW) {
		slot = &cache[0];
		for (int i = 1; i < CACHED_BLOCKS; i++)
			if (!cache[i].used || (slot->used && cache[i].age < slot->age))
				slot = &cache[i];
		if (slot->used)
			decoded_block_free(&slot->block);
		memset(slot, 0, sizeof(*slot));
		struct errbuf err;
		if (line_dict_decode(dicts, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1),
				     sqlite3_column_int64(st, 2), &slot->block, &err) == 0) {
			slot->used = true;
			slot->source_id = source_id;
			slot->first_line = sqlite3_column_int64(st, 0);
			slot->age = ++clock_tick;
		} else {
			slot = NULL;
		}
	}
	sqlite3_finalize(st);
	return slot;
}

char *tui_line_body(sqlite3 *db, int64_t source_id, int64_t line_no)
{
	struct cached *c = find(source_id, line_no);
	if (!c)
		c = load(db, source_id, line_no);
	if (!c || line_no < c->first_line || line_no >= c->first_line + (int64_t)c->block.n_lines)
		return NULL;
	const struct decoded_line *l = &c->block.lines[line_no - c->first_line];
	struct line_parts lp;
	line_parts_parse(l->text, l->len, false, &lp);
	return xstrndup(lp.msg, lp.msg_len);
}
