/* lines_vtab.c: see lines_vtab.h. */
#include "lines_vtab.h"

#include <stdlib.h>
#include <string.h>

#include "line_dicts.h"
#include "line_store.h"
#include "timestamp.h"
#include "util.h"

enum {
	COL_SOURCE_ID,
	COL_LINE_NO,
	COL_TIME_US,
	COL_TIME,
	COL_CLOCK,
	COL_RANK,
	COL_LOCAL_RANK,
	COL_PID,
	COL_HOST,
	COL_TRUNCATED,
	COL_TEXT,
};

/* idxNum bits: which constraints are passed in argv, in this order */
enum {
	IX_SRC_EQ = 1,
	IX_LINE_LO = 2,
	IX_LINE_HI = 4,
	IX_TIME_LO = 8,
	IX_TIME_HI = 16,
	IX_LINE_EQ = 32, /* one argument fills both line bounds */
};

struct rank_key {
	char *host;
	long key; /* local rank or pid */
	int rank;
};

struct lines_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	struct line_dict_reader *dicts; /* made on the first scan */
};

struct source_info {
	int64_t source_id;
	char *host;
	int rank; /* -1 unknown */
};

struct lines_cursor {
	sqlite3_vtab_cursor base;
	sqlite3_stmt *blocks;
	struct decoded_block block;
	int64_t block_source;
	int64_t block_first_line;
	uint32_t i;
	bool eof;
	int64_t line_lo, line_hi, time_lo, time_hi;
	int idx;
	/* attribution maps, loaded once per cursor */
	struct rank_key *by_local, *by_pid;
	size_t n_local, n_pid;
	struct source_info cur_source;
	bool maps_loaded;
};

static int lv_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)aux;
	(void)argc;
	(void)argv;
	(void)err;
	int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(source_id INTEGER, line_no INTEGER, time_us INTEGER, "
					  "time TEXT, clock TEXT, rank INTEGER, local_rank INTEGER, pid INTEGER, "
					  "host TEXT, truncated INTEGER, text TEXT)");
	if (rc != SQLITE_OK)
		return rc;
	/* it only reads the case's own tables: usable from views where the
	 * client distrusts the schema (trusted_schema=OFF) */
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	struct lines_vtab *v = sqlite3_malloc(sizeof(*v));
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->db = db;
	*out = &v->base;
	return SQLITE_OK;
}

static int lv_disconnect(sqlite3_vtab *vt)
{
	line_dict_reader_free(((struct lines_vtab *)vt)->dicts);
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int lv_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	(void)vt;
	int slot[5] = {-1, -1, -1, -1, -1};
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		if (!c->usable)
			continue;
		if (c->iColumn == COL_SOURCE_ID && c->op == SQLITE_INDEX_CONSTRAINT_EQ)
			slot[0] = i;
		else if (c->iColumn == COL_LINE_NO &&
			 (c->op == SQLITE_INDEX_CONSTRAINT_EQ || c->op == SQLITE_INDEX_CONSTRAINT_GE ||
			  c->op == SQLITE_INDEX_CONSTRAINT_GT) && slot[1] < 0)
			slot[1] = i;
		else if (c->iColumn == COL_LINE_NO &&
			 (c->op == SQLITE_INDEX_CONSTRAINT_EQ || c->op == SQLITE_INDEX_CONSTRAINT_LE ||
			  c->op == SQLITE_INDEX_CONSTRAINT_LT) && slot[2] < 0)
			slot[2] = i;
		else if (c->iColumn == COL_TIME_US &&
			 (c->op == SQLITE_INDEX_CONSTRAINT_GE || c->op == SQLITE_INDEX_CONSTRAINT_GT) && slot[3] < 0)
			slot[3] = i;
		else if (c->iColumn == COL_TIME_US &&
			 (c->op == SQLITE_INDEX_CONSTRAINT_LE || c->op == SQLITE_INDEX_CONSTRAINT_LT) && slot[4] < 0)
			slot[4] = i;
	}
	int idx = 0, argn = 0;
	double cost = 1e9;
	/* an EQ on line_no fills both bounds with one argument */
	if (slot[1] >= 0 && info->aConstraint[slot[1]].op == SQLITE_INDEX_CONSTRAINT_EQ) {
		slot[2] = -1;
		idx |= IX_LINE_EQ;
	}
	for (int k = 0; k < 5; k++) {
		if (slot[k] < 0)
			continue;
		idx |= 1 << k;
		info->aConstraintUsage[slot[k]].argvIndex = ++argn;
	}
	if (idx & IX_SRC_EQ)
		cost = 1e5;
	if ((idx & IX_SRC_EQ) && (idx & (IX_LINE_LO | IX_LINE_HI)))
		cost = 100;
	if (idx & (IX_TIME_LO | IX_TIME_HI))
		cost /= 10;
	info->idxNum = idx;
	info->estimatedCost = cost;
	if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == COL_SOURCE_ID && !info->aOrderBy[0].desc)
		info->orderByConsumed = 1;
	if (info->nOrderBy == 2 && info->aOrderBy[0].iColumn == COL_SOURCE_ID && !info->aOrderBy[0].desc &&
	    info->aOrderBy[1].iColumn == COL_LINE_NO && !info->aOrderBy[1].desc)
		info->orderByConsumed = 1;
	return SQLITE_OK;
}

static int lv_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	(void)vt;
	struct lines_cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->block_source = -1;
	c->cur_source.source_id = -1;
	*out = &c->base;
	return SQLITE_OK;
}

static void free_maps(struct lines_cursor *c)
{
	for (size_t i = 0; i < c->n_local; i++)
		free(c->by_local[i].host);
	for (size_t i = 0; i < c->n_pid; i++)
		free(c->by_pid[i].host);
	free(c->by_local);
	free(c->by_pid);
	c->by_local = c->by_pid = NULL;
	c->n_local = c->n_pid = 0;
	free(c->cur_source.host);
	c->cur_source.host = NULL;
	c->cur_source.source_id = -1;
}

static int lv_close(sqlite3_vtab_cursor *cur)
{
	struct lines_cursor *c = (struct lines_cursor *)cur;
	sqlite3_finalize(c->blocks);
	decoded_block_free(&c->block);
	free_maps(c);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int cmp_key(const void *a, const void *b)
{
	const struct rank_key *x = a, *y = b;
	int r = strcmp(x->host ? x->host : "", y->host ? y->host : "");
	if (r)
		return r;
	return (x->key > y->key) - (x->key < y->key);
}

static void load_map(sqlite3 *db, const char *sql, struct rank_key **out, size_t *n)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return; /* table may not exist yet (during ingest) */
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(out, &cap, *n + 1, sizeof(**out));
		const char *h = (const char *)sqlite3_column_text(st, 0);
		(*out)[*n].host = xstrdup(h ? h : "");
		(*out)[*n].key = (long)sqlite3_column_int64(st, 1);
		(*out)[*n].rank = sqlite3_column_int(st, 2);
		(*n)++;
	}
	sqlite3_finalize(st);
	if (*n > 1) /* *out is NULL when there is no row */
		xqsort(*out, *n, sizeof(**out), cmp_key);
}

static void load_maps(struct lines_cursor *c, sqlite3 *db)
{
	if (c->maps_loaded)
		return;
	c->maps_loaded = true;
	load_map(db, "SELECT host, local_rank, rank FROM ranks WHERE host IS NOT NULL AND local_rank IS NOT NULL",
		 &c->by_local, &c->n_local);
	load_map(db, "SELECT host, pid, rank FROM procs WHERE host IS NOT NULL AND pid IS NOT NULL AND rank IS NOT NULL",
		 &c->by_pid, &c->n_pid);
}

static int lookup(const struct rank_key *m, size_t n, const char *host, long key)
{
	if (n == 0)
		return -1; /* m may be NULL */
	struct rank_key k = {.host = (char *)(host ? host : ""), .key = key};
	const struct rank_key *hit = bsearch(&k, m, n, sizeof(*m), cmp_key);
	return hit ? hit->rank : -1;
}

static void load_source(struct lines_cursor *c, sqlite3 *db, int64_t source_id)
{
	if (c->cur_source.source_id == source_id)
		return;
	free(c->cur_source.host);
	c->cur_source.host = NULL;
	c->cur_source.rank = -1;
	c->cur_source.source_id = source_id;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT host, rank FROM sources WHERE source_id=?", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, source_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *h = (const char *)sqlite3_column_text(st, 0);
		c->cur_source.host = h ? xstrdup(h) : NULL;
		c->cur_source.rank = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
}

/* Loads the next block; false at the end. */
static bool next_block(struct lines_cursor *c)
{
	decoded_block_free(&c->block);
	while (sqlite3_step(c->blocks) == SQLITE_ROW) {
		c->block_source = sqlite3_column_int64(c->blocks, 0);
		c->block_first_line = sqlite3_column_int64(c->blocks, 1);
		const void *data = sqlite3_column_blob(c->blocks, 2);
		int n = sqlite3_column_bytes(c->blocks, 2);
		struct lines_vtab *v = (struct lines_vtab *)c->base.pVtab;
		struct errbuf err;
		if (line_dict_decode(v->dicts, data, (size_t)n, sqlite3_column_int64(c->blocks, 3), &c->block, &err) < 0)
			continue; /* a corrupt block reads as no lines */
		c->i = 0;
		return true;
	}
	return false;
}

static bool line_wanted(struct lines_cursor *c)
{
	int64_t ln = c->block_first_line + c->i;
	if ((c->idx & IX_LINE_LO) && ln < c->line_lo)
		return false;
	if ((c->idx & IX_LINE_HI) && ln > c->line_hi)
		return false;
	const struct line_meta *m = &c->block.lines[c->i].meta;
	if ((c->idx & IX_TIME_LO) && (!m->has_time || m->t_us < c->time_lo))
		return false;
	if ((c->idx & IX_TIME_HI) && (!m->has_time || m->t_us > c->time_hi))
		return false;
	return true;
}

static void advance_to_wanted(struct lines_cursor *c)
{
	for (;;) {
		while (c->i < c->block.n_lines) {
			if (line_wanted(c))
				return;
			c->i++;
		}
		if (!next_block(c)) {
			c->eof = true;
			return;
		}
	}
}

static int lv_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc, sqlite3_value **argv)
{
	(void)idx_str;
	(void)argc;
	struct lines_cursor *c = (struct lines_cursor *)cur;
	struct lines_vtab *v = (struct lines_vtab *)cur->pVtab;
	sqlite3_finalize(c->blocks);
	c->blocks = NULL;
	decoded_block_free(&c->block);
	c->idx = idx;
	c->eof = false;
	load_maps(c, v->db);
	struct buf sql = {0};
	if (!v->dicts)
		v->dicts = line_dict_reader_new(v->db);
	buf_printf(&sql, "SELECT source_id, first_line, data, %s FROM line_blocks WHERE 1", line_dict_column(v->dicts));
	int a = 0;
	int64_t src = 0;
	if (idx & IX_SRC_EQ) {
		src = sqlite3_value_int64(argv[a++]);
		buf_puts(&sql, " AND source_id = :src");
	}
	c->line_lo = INT64_MIN;
	c->line_hi = INT64_MAX;
	if (idx & IX_LINE_LO) {
		c->line_lo = sqlite3_value_int64(argv[a++]);
		if (sqlite3_value_type(argv[a - 1]) == SQLITE_FLOAT)
			c->line_lo = (int64_t)sqlite3_value_double(argv[a - 1]);
		buf_puts(&sql, " AND first_line + n_lines > :llo");
		if (idx & IX_LINE_EQ) {
			c->line_hi = c->line_lo;
			idx |= IX_LINE_HI;
			c->idx = idx;
			buf_puts(&sql, " AND first_line <= :lhi");
		}
	}
	if ((idx & IX_LINE_HI) && !(idx & IX_LINE_EQ)) {
		c->line_hi = sqlite3_value_int64(argv[a++]);
		buf_puts(&sql, " AND first_line <= :lhi");
	}
	if (idx & IX_TIME_LO) {
		c->time_lo = sqlite3_value_int64(argv[a++]);
		buf_puts(&sql, " AND max_time_us >= :tlo");
	}
	if (idx & IX_TIME_HI) {
		c->time_hi = sqlite3_value_int64(argv[a++]);
		buf_puts(&sql, " AND min_time_us <= :thi");
	}
	buf_puts(&sql, " ORDER BY source_id, block_no");
	if (sqlite3_prepare_v2(v->db, sql.data, -1, &c->blocks, NULL) != SQLITE_OK) {
		buf_free(&sql);
		cur->pVtab->zErrMsg = sqlite3_mprintf("lines: %s", sqlite3_errmsg(v->db));
		return SQLITE_ERROR;
	}
	buf_free(&sql);
	int p;
	if ((p = sqlite3_bind_parameter_index(c->blocks, ":src")))
		sqlite3_bind_int64(c->blocks, p, src);
	if ((p = sqlite3_bind_parameter_index(c->blocks, ":llo")))
		sqlite3_bind_int64(c->blocks, p, c->line_lo);
	if ((p = sqlite3_bind_parameter_index(c->blocks, ":lhi")))
		sqlite3_bind_int64(c->blocks, p, c->line_hi);
	if ((p = sqlite3_bind_parameter_index(c->blocks, ":tlo")))
		sqlite3_bind_int64(c->blocks, p, c->time_lo);
	if ((p = sqlite3_bind_parameter_index(c->blocks, ":thi")))
		sqlite3_bind_int64(c->blocks, p, c->time_hi);
	c->block.n_lines = 0;
	c->i = 0;
	advance_to_wanted(c);
	return SQLITE_OK;
}

static int lv_next(sqlite3_vtab_cursor *cur)
{
	struct lines_cursor *c = (struct lines_cursor *)cur;
	c->i++;
	advance_to_wanted(c);
	return SQLITE_OK;
}

static int lv_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct lines_cursor *)cur)->eof;
}

static int resolve_rank(struct lines_cursor *c, const struct line_meta *m)
{
	if (m->rank >= 0)
		return m->rank;
	const char *host = c->cur_source.host;
	int r;
	if (m->local_rank >= 0 && (r = lookup(c->by_local, c->n_local, host, m->local_rank)) >= 0)
		return r;
	if (m->pid >= 0 && (r = lookup(c->by_pid, c->n_pid, host, m->pid)) >= 0)
		return r;
	return c->cur_source.rank;
}

static int lv_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct lines_cursor *c = (struct lines_cursor *)cur;
	struct lines_vtab *v = (struct lines_vtab *)cur->pVtab;
	const struct decoded_line *dl = &c->block.lines[c->i];
	const struct line_meta *m = &dl->meta;
	switch (col) {
	case COL_SOURCE_ID:
		sqlite3_result_int64(ctx, c->block_source);
		break;
	case COL_LINE_NO:
		sqlite3_result_int64(ctx, c->block_first_line + c->i);
		break;
	case COL_TIME_US:
		if (m->has_time)
			sqlite3_result_int64(ctx, m->t_us);
		break;
	case COL_TIME:
		if (m->has_time) {
			char iso[40];
			ts_format_iso(m->t_us, iso, sizeof(iso));
			sqlite3_result_text(ctx, iso, -1, SQLITE_TRANSIENT);
		}
		break;
	case COL_CLOCK:
		sqlite3_result_text(ctx, clock_name(m->clock), -1, SQLITE_STATIC);
		break;
	case COL_RANK: {
		load_source(c, v->db, c->block_source);
		int r = resolve_rank(c, m);
		if (r >= 0)
			sqlite3_result_int(ctx, r);
		break;
	}
	case COL_LOCAL_RANK:
		if (m->local_rank >= 0)
			sqlite3_result_int(ctx, m->local_rank);
		break;
	case COL_PID:
		if (m->pid >= 0)
			sqlite3_result_int64(ctx, m->pid);
		break;
	case COL_HOST:
		load_source(c, v->db, c->block_source);
		if (c->cur_source.host)
			sqlite3_result_text(ctx, c->cur_source.host, -1, SQLITE_TRANSIENT);
		break;
	case COL_TRUNCATED:
		sqlite3_result_int(ctx, m->truncated);
		break;
	case COL_TEXT:
		sqlite3_result_text(ctx, dl->text, (int)dl->len, SQLITE_TRANSIENT);
		break;
	}
	return SQLITE_OK;
}

static int lv_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct lines_cursor *c = (struct lines_cursor *)cur;
	*rowid = (c->block_source << 32) | (c->block_first_line + c->i);
	return SQLITE_OK;
}

static sqlite3_module lines_module = {
	.iVersion = 0,
	.xCreate = lv_connect,
	.xConnect = lv_connect,
	.xBestIndex = lv_best_index,
	.xDisconnect = lv_disconnect,
	.xDestroy = lv_disconnect,
	.xOpen = lv_open,
	.xClose = lv_close,
	.xFilter = lv_filter,
	.xNext = lv_next,
	.xEof = lv_eof,
	.xColumn = lv_column,
	.xRowid = lv_rowid,
};

void lines_vtab_register(sqlite3 *db)
{
	sqlite3_create_module(db, "ncclforensic_lines", &lines_module, NULL);
}
