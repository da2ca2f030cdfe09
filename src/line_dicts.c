/* line_dicts.c: see line_dicts.h; the reader side (the writer is in
 * line_dicts_write.c), also built into the SQLite extension. */
#include "line_dicts.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

struct ddict {
	int64_t id;
	ZSTD_DDict *d; /* NULL: missing or unreadable */
};

struct line_dict_reader {
	sqlite3 *db;
	bool has_dicts;
	ZSTD_DCtx *dctx;
	struct ddict *items;
	size_t n, cap;
};

struct line_dict_reader *line_dict_reader_new(sqlite3 *db)
{
	struct line_dict_reader *r = xcalloc(1, sizeof(*r));
	r->db = db;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_info('line_blocks') WHERE name = 'dict_id'", -1,
			       &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		r->has_dicts = sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	return r;
}

void line_dict_reader_free(struct line_dict_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		ZSTD_freeDDict(r->items[i].d);
	free(r->items);
	ZSTD_freeDCtx(r->dctx);
	free(r);
}

const char *line_dict_column(const struct line_dict_reader *r)
{
	return r->has_dicts ? "dict_id" : "NULL";
}

static ZSTD_DDict *ddict_get(struct line_dict_reader *r, int64_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->items[i].id == id)
			return r->items[i].d;
	ZSTD_DDict *d = NULL;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, "SELECT data FROM line_dicts WHERE dict_id = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) > 0)
			d = ZSTD_createDDict(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0));
	}
	sqlite3_finalize(st);
	xgrow(&r->items, &r->cap, r->n + 1, sizeof(*r->items));
	r->items[r->n++] = (struct ddict){.id = id, .d = d};
	return d;
}

int line_dict_decode(struct line_dict_reader *r, const void *data, size_t n, int64_t dict_id, struct decoded_block *out,
		     struct errbuf *err)
{
	if (dict_id <= 0)
		return block_decode(data, n, out, err);
	ZSTD_DDict *d = ddict_get(r, dict_id);
	if (!d) {
		memset(out, 0, sizeof(*out));
		return errbuf_set(err, "line block needs dictionary %lld, which the case lacks", (long long)dict_id);
	}
	if (!r->dctx && !(r->dctx = ZSTD_createDCtx()))
		die("zstd: out of memory");
	return block_decode_ddict(data, n, r->dctx, d, out, err);
}
