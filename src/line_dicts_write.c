/* line_dicts_write.c: the writer side of line_dicts.h: one dictionary per
 * family of sources, made from the first block of the first of its sources
 * (in the load's order) whose first block can be one; the load's threads
 * compress, the writer thread stores. */
#include "line_dicts.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "case_db.h"

#define DICT_MAX_BYTES (128 << 10) /* of the first block's payload */
#define DICT_MIN_BYTES 512         /* less is not worth a dictionary */
#define DICT_MAX_NAMES DICT_SLOTS_MAX
#define DICT_NAME_MAX 96

/* zstd reads a buffer that starts with this magic number as a structured
 * dictionary, not as raw content: such a block does not make one */
static const unsigned char zstd_dict_magic[4] = {0x37, 0xA4, 0x30, 0xEC};

struct dict_slot {
	char name[DICT_NAME_MAX];
	ZSTD_CDict *cdict;  /* once made */
	int64_t *srcs;      /* its sources, in the load's order */
	size_t n, cap;
	size_t scan;        /* srcs before this one gave no dictionary */
};

enum { SRC_OPEN, SRC_NONE, SRC_GAVE }; /* what a source's first block did */

struct line_dict_writer {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int level;
	struct dict_slot slots[DICT_MAX_NAMES];
	int nslots;
	int *slot_of;       /* source_id -> slot + 1 (0: none) */
	unsigned char *state; /* source_id -> SRC_* */
	size_t cap;
};

struct line_dict_writer *line_dict_writer_new(int zstd_level)
{
	struct line_dict_writer *w = xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->level = zstd_level;
	return w;
}

void line_dict_writer_free(struct line_dict_writer *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->nslots; i++) {
		ZSTD_freeCDict(w->slots[i].cdict);
		free(w->slots[i].srcs);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cond);
	free(w->slot_of);
	free(w->state);
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
	pthread_mutex_lock(&w->mu);
	int slot = -1;
	for (int i = 0; i < w->nslots; i++)
		if (strcmp(w->slots[i].name, name) == 0)
			slot = i;
	if (slot < 0 && w->nslots < DICT_MAX_NAMES) {
		slot = w->nslots++;
		memcpy(w->slots[slot].name, name, strlen(name) + 1);
	}
	if (slot >= 0) {
		size_t need = (size_t)source_id + 1;
		if (need > w->cap) {
			size_t old = w->cap, cap = w->cap;
			xgrow(&w->slot_of, &cap, need, sizeof(*w->slot_of));
			w->state = xrealloc(w->state, cap);
			memset(w->slot_of + old, 0, (cap - old) * sizeof(*w->slot_of));
			memset(w->state + old, SRC_OPEN, cap - old);
			w->cap = cap;
		}
		w->slot_of[source_id] = slot + 1;
		struct dict_slot *s = &w->slots[slot];
		xgrow(&s->srcs, &s->cap, s->n + 1, sizeof(*s->srcs));
		s->srcs[s->n++] = source_id;
	}
	pthread_mutex_unlock(&w->mu);
}

void line_dict_writer_done(struct line_dict_writer *w, int64_t source_id)
{
	pthread_mutex_lock(&w->mu);
	if (source_id >= 0 && (size_t)source_id < w->cap && w->state[source_id] == SRC_OPEN) {
		w->state[source_id] = SRC_NONE;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->mu);
}

static bool gives_dict(const void *payload, size_t n)
{
	return n >= DICT_MIN_BYTES && memcmp(payload, zstd_dict_magic, 4) != 0;
}

int line_dict_writer_compress(struct line_dict_writer *w, int64_t source_id, bool first, const void *payload,
			      size_t n, void *zctx, struct buf *out, int *made_slot, size_t *made_len)
{
	*made_len = 0;
	*made_slot = 0;
	pthread_mutex_lock(&w->mu);
	int slot = source_id >= 0 && (size_t)source_id < w->cap ? w->slot_of[source_id] - 1 : -1;
	struct dict_slot *s = slot >= 0 ? &w->slots[slot] : NULL;
	const ZSTD_CDict *cd = NULL;
	while (s && !s->cdict) {
		/* the sources of the name before this one: the first whose first
		 * block can be a dictionary gives it; until each has said, wait
		 * (an earlier source is an earlier job of the load, never one
		 * that waits on this one) */
		while (s->scan < s->n && s->srcs[s->scan] != source_id && w->state[s->srcs[s->scan]] == SRC_NONE)
			s->scan++;
		if (s->scan < s->n && s->srcs[s->scan] != source_id) {
			pthread_cond_wait(&w->cond, &w->mu);
			continue;
		}
		/* none before it gave one: this block, if it is the source's first */
		if (first && gives_dict(payload, n)) {
			size_t len = n < DICT_MAX_BYTES ? n : DICT_MAX_BYTES;
			s->cdict = ZSTD_createCDict(payload, len, w->level);
			if (!s->cdict)
				die("zstd: cannot make a dictionary");
			w->state[source_id] = SRC_GAVE;
			*made_len = len;
			*made_slot = slot + 1;
			pthread_cond_broadcast(&w->cond);
		} else if (first) {
			w->state[source_id] = SRC_NONE;
			pthread_cond_broadcast(&w->cond);
		}
		s = NULL; /* compressed alone */
	}
	if (s)
		cd = s->cdict;
	pthread_mutex_unlock(&w->mu);
	if (!cd) {
		block_compress(payload, n, w->level, zctx, out);
		return 0;
	}
	size_t bound = ZSTD_compressBound(n);
	buf_clear(out);
	buf_reserve(out, bound);
	size_t z = ZSTD_compress_usingCDict(zctx, out->data, bound, payload, n, cd);
	if (ZSTD_isError(z))
		die("zstd: %s", ZSTD_getErrorName(z));
	out->len = z;
	return slot + 1;
}

const char *line_dict_writer_name(struct line_dict_writer *w, int slot)
{
	/* a slot's name is written once, before any block of it is compressed */
	pthread_mutex_lock(&w->mu);
	const char *name = slot > 0 && slot <= w->nslots ? w->slots[slot - 1].name : "";
	pthread_mutex_unlock(&w->mu);
	return name;
}

int64_t line_dict_store(sqlite3_stmt *ins, const char *name, const void *data, size_t n)
{
	sqlite3_bind_text(ins, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_blob(ins, 2, data, (int)n, SQLITE_STATIC);
	db_step_done(ins);
	return sqlite3_last_insert_rowid(sqlite3_db_handle(ins));
}
