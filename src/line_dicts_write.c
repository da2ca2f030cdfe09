/* line_dicts_write.c: the writer side of line_dicts.h: one dictionary per
 * family of sources, made from its first block, written to line_dicts. */
#include "line_dicts.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "case_db.h"

#define DICT_MAX_BYTES (128 << 10) /* of the first block's payload */
#define DICT_MIN_BYTES 512         /* less is not worth a dictionary */
#define DICT_MAX_NAMES 32          /* dictionaries per case (each holds a few hundred KiB while writing) */
#define DICT_NAME_MAX 96

/* zstd reads a buffer that starts with this magic number as a structured
 * dictionary, not as raw content: such a block does not make one */
static const unsigned char zstd_dict_magic[4] = {0x37, 0xA4, 0x30, 0xEC};

struct dict_slot {
	char name[DICT_NAME_MAX];
	int64_t dict_id;  /* 0: not made yet */
	ZSTD_CDict *cdict;
};

struct line_dict_writer {
	sqlite3 *db;
	sqlite3_stmt *ins;
	int level;
	struct dict_slot slots[DICT_MAX_NAMES];
	int nslots;
	int *slot_of;     /* source_id -> slot + 1 (0: none) */
	size_t slot_of_cap;
};

struct line_dict_writer *line_dict_writer_new(sqlite3 *db, int zstd_level)
{
	struct line_dict_writer *w = xcalloc(1, sizeof(*w));
	w->db = db;
	w->level = zstd_level;
	w->ins = db_prepare(db, "INSERT INTO line_dicts(name, data) VALUES(?, ?)");
	return w;
}

void line_dict_writer_free(struct line_dict_writer *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nslots; i++)
		ZSTD_freeCDict(w->slots[i].cdict);
	sqlite3_finalize(w->ins);
	free(w->slot_of);
	free(w);
}

/* The name sources share a dictionary under: the base name without digits */
static void dict_name(const char *path, size_t len, char *out, size_t cap)
{
	const char *base = path;
	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	size_t n = 0;
	for (const char *p = base; p < path + len && n + 1 < cap; p++)
		if (*p < '0' || *p > '9')
			out[n++] = *p;
	out[n] = '\0';
}

void line_dict_writer_source(struct line_dict_writer *w, int64_t source_id, const char *path, size_t path_len)
{
	if (source_id < 0 || source_id > (1 << 28))
		return;
	char name[DICT_NAME_MAX];
	dict_name(path, path_len, name, sizeof(name));
	int slot = -1;
	for (int i = 0; i < w->nslots; i++)
		if (strcmp(w->slots[i].name, name) == 0)
			slot = i;
	if (slot < 0) {
		if (w->nslots == DICT_MAX_NAMES)
			return;
		slot = w->nslots++;
		memcpy(w->slots[slot].name, name, strlen(name) + 1);
	}
	size_t need = (size_t)source_id + 1;
	if (need > w->slot_of_cap) {
		size_t old = w->slot_of_cap;
		xgrow(&w->slot_of, &w->slot_of_cap, need, sizeof(*w->slot_of));
		memset(w->slot_of + old, 0, (w->slot_of_cap - old) * sizeof(*w->slot_of));
	}
	w->slot_of[source_id] = slot + 1;
}

static void make_dict(struct line_dict_writer *w, struct dict_slot *s, const void *payload, size_t n)
{
	size_t len = n < DICT_MAX_BYTES ? n : DICT_MAX_BYTES;
	if (len < DICT_MIN_BYTES || memcmp(payload, zstd_dict_magic, 4) == 0)
		return;
	s->cdict = ZSTD_createCDict(payload, len, w->level);
	if (!s->cdict)
		die("zstd: cannot make a dictionary");
	sqlite3_bind_text(w->ins, 1, s->name, -1, SQLITE_STATIC);
	sqlite3_bind_blob(w->ins, 2, payload, (int)len, SQLITE_STATIC);
	db_step_done(w->ins);
	s->dict_id = sqlite3_last_insert_rowid(w->db);
}

int64_t line_dict_writer_compress(struct line_dict_writer *w, int64_t source_id, const void *payload, size_t n,
				  void *zctx, struct buf *out)
{
	struct dict_slot *s = NULL;
	if (source_id >= 0 && (size_t)source_id < w->slot_of_cap && w->slot_of[source_id])
		s = &w->slots[w->slot_of[source_id] - 1];
	if (!s || !s->cdict) {
		block_compress(payload, n, w->level, zctx, out);
		if (s && !s->dict_id)
			make_dict(w, s, payload, n);
		return 0;
	}
	size_t bound = ZSTD_compressBound(n);
	buf_clear(out);
	buf_reserve(out, bound);
	size_t z = ZSTD_compress_usingCDict(zctx, out->data, bound, payload, n, s->cdict);
	if (ZSTD_isError(z))
		die("zstd: %s", ZSTD_getErrorName(z));
	out->len = z;
	return s->dict_id;
}
