/* case_db.c: see case_db.h. */
#include "case_db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case_schema.h"
#include "fr_table.h"
#include "event_keys.h"
#include "kind_summary.h"
#include "lines_vtab.h"
#include "sql_functions.h"

/* NCCLFORENSIC_PROFILE_SQL=1 prints the time of every statement run by db_exec */
static int profile_cb(unsigned type, void *ctx, void *p, void *x)
{
	(void)ctx;
	if (type == SQLITE_TRACE_PROFILE) {
		sqlite3_int64 ns = *(sqlite3_int64 *)x;
		char *sql = sqlite3_expanded_sql((sqlite3_stmt *)p);
		if (ns > 20000000)
			fprintf(stderr, "[sql %7.1f ms] %.160s\n", ns / 1e6, sql ? sql : "?");
		sqlite3_free(sql);
	}
	return 0;
}

void db_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	static int profile = -1;
	if (profile < 0)
		profile = getenv("NCCLFORENSIC_PROFILE_SQL") != NULL;
	if (profile)
		sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, profile_cb, NULL);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		sqlite3_free(msg);
		db_fail(db, sql);
	}
}

_Noreturn void db_fail(sqlite3 *db, const char *sql)
{
	int code = sqlite3_extended_errcode(db);
	const char *path = sqlite3_db_filename(db, "main");
	const char *what = sqlite3_errmsg(db);
	if (!path || !*path)
		path = "the case";
	switch (code & 0xff) {
	case SQLITE_FULL:
		diag_error("%s: cannot write: the disk is full (%s); nothing was written under its name", path, what);
		exit(NF_EXIT_WRITE);
	case SQLITE_IOERR:
		diag_error("%s: input/output error (%s); nothing was written under its name", path, what);
		exit(NF_EXIT_WRITE);
	case SQLITE_READONLY:
		diag_error("%s: the case is read-only (%s): this command writes to it; copy it somewhere writable",
			   path, what);
		exit(NF_EXIT_NOTHING);
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		diag_error("%s: the case is damaged (%s); ingest the logs again", path, what);
		exit(NF_EXIT_NOTHING);
	case SQLITE_INTERRUPT:
		diag_error("interrupted; no case written");
		exit(130);
	case SQLITE_CANTOPEN:
		diag_error("%s: cannot open the case's files (%s)", path, what);
		exit(NF_EXIT_NOTHING);
	default:
		die("SQL error: %s (in: %.300s)", what, sql ? sql : "?");
	}
}

sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		db_fail(db, sql);
	return st;
}

void db_bind_text(sqlite3_stmt *st, int i, const char *s, int len)
{
	if (s)
		sqlite3_bind_text(st, i, s, len, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

void db_bind_int_or_null(sqlite3_stmt *st, int i, int64_t v, bool present)
{
	if (present)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

void db_step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		db_fail(sqlite3_db_handle(st), sqlite3_sql(st));
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

void db_column_text_copy(sqlite3_stmt *st, int i, char *out, size_t n)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	snprintf(out, n, "%s", s ? s : "");
}

char *db_column_text_dup(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	if (!s)
		return NULL;
	size_t n = (size_t)sqlite3_column_bytes(st, i);
	if (!memchr(s, '\0', n))
		return xstrndup(s, n);
	struct buf b = {0};
	for (size_t k = 0; k < n; k++) {
		if (s[k])
			buf_putc(&b, s[k]);
		else
			buf_puts(&b, "\\0");
	}
	return b.data;
}

int64_t db_column_int_or(sqlite3_stmt *st, int i, int64_t def)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? def : sqlite3_column_int64(st, i);
}

int64_t db_int(sqlite3 *db, const char *sql, int64_t def)
{
	sqlite3_stmt *st = db_prepare(db, sql);
	int64_t v = def;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

const char *db_meta_get(sqlite3 *db, const char *key, char *out, size_t n)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key=?", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	const char *res = NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
		res = out;
	}
	sqlite3_finalize(st);
	return res;
}

void db_meta_set(sqlite3 *db, const char *key, const char *value)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	db_bind_text(st, 2, value, -1);
	db_step_done(st);
	sqlite3_finalize(st);
}

void case_register(sqlite3 *db)
{
	lines_vtab_register(db);
	sql_functions_register(db);
}

sqlite3 *case_open(const char *path, bool readonly, struct errbuf *err)
{
	if (access(path, F_OK) != 0) {
		errbuf_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	sqlite3 *db = NULL;
	int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
		errbuf_set(err, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
		sqlite3_close(db);
		return NULL;
	}
	case_register(db);
	sqlite3_busy_timeout(db, 2000);
	sqlite3_exec(db, "PRAGMA temp_store=FILE; PRAGMA cache_size=-32768;", NULL, NULL, NULL);
	char buf[64];
	if (!db_meta_get(db, "schema_version", buf, sizeof(buf))) {
		errbuf_set(err, "%s: not a case database (no schema_version in meta)", path);
		sqlite3_close(db);
		return NULL;
	}
	long v = strtol(buf, NULL, 10);
	if (v > NF_SCHEMA_VERSION) {
		errbuf_set(err, "%s: case written by a newer ncclforensic (schema %ld, this one reads up to %d); "
				"upgrade ncclforensic or ingest again",
			   path, v, NF_SCHEMA_VERSION);
		sqlite3_close(db);
		return NULL;
	}
	fr_table_ensure(db, readonly);
	return db;
}

sqlite3 *case_open_or_say(const char *path, bool readonly)
{
	struct errbuf err;
	sqlite3 *db = case_open(path, readonly, &err);
	if (!db)
		diag_error("%s", err.msg);
	return db;
}

void case_close(sqlite3 *db)
{
	sqlite3_close(db);
}

static const char *tmp_in_use;

/* An exit in the middle of an ingest (die(), an internal error) leaves no
 * temporary file behind. */
static void remove_tmp_at_exit(void)
{
	if (tmp_in_use)
		unlink(tmp_in_use);
}

const char *case_writer_tmp_path(void)
{
	return tmp_in_use;
}

static int stop_on_signal(void *ctx)
{
	(void)ctx;
	return nf_interrupted != 0;
}

void db_stop_on_signal(sqlite3 *db)
{
	sqlite3_progress_handler(db, 100000, stop_on_signal, NULL);
}

int case_writer_open(struct case_writer *w, const char *target, struct errbuf *err)
{
	memset(w, 0, sizeof(*w));
	if (atomic_file_begin(&w->file, target, "the case", err) < 0)
		return -1;
	const char *tmpl = w->file.tmp;
	static bool registered;
	if (!registered) {
		atexit(remove_tmp_at_exit);
		registered = true;
	}
	tmp_in_use = tmpl;
	if (sqlite3_open(tmpl, &w->db) != SQLITE_OK) {
		int rc = errbuf_set(err, "%s: %s", tmpl, sqlite3_errmsg(w->db));
		case_writer_abort(w);
		return rc;
	}
	case_register(w->db);
	/* temp_store=FILE: the sorts of CREATE INDEX and of the analyses spill
	 * to temporary files past the cache, so memory stays bounded whatever
	 * the input size (in memory, a 1,024-rank job's sorts alone grew the
	 * process past 250 MB). A 32 MiB cache (and so sorter) costs the load
	 * nothing measurable against 64 MiB and keeps ingest's own memory under
	 * 100 MiB up to 4,096 ranks (bench/run.sh). */
	db_exec(w->db, "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		       "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-32768; PRAGMA temp_store=FILE;");
	db_exec(w->db, "BEGIN");
	db_exec(w->db, case_schema_ingest_sql);
	db_exec(w->db, case_schema_analysis_sql);
	w->ins_source = db_prepare(w->db, "INSERT INTO sources(source_id, path, container, kind, mtime) VALUES(?,?,?,?,?)");
	w->upd_source = db_prepare(w->db,
				   "UPDATE sources SET kind=?, rank=?, local_rank=?, pid=?, content_host=?, bytes=?, lines=?, "
				   "stored_lines=?, skipped_lines=?, skip_reason=?, truncated_lines=?, events=?, first_time_us=?, "
				   "last_time_us=?, year_used=?, error=? WHERE source_id=?");
	w->ins_block = db_prepare(w->db, "INSERT INTO line_blocks(source_id, block_no, first_line, n_lines, min_time_us, "
					 "max_time_us, raw_bytes, dict_id, data) VALUES(?,?,?,?,?,?,?,?,?)");
	w->ins_event = db_prepare(w->db, "INSERT INTO events(source_id, line_no, kind, class, host, rank, local_rank, pid, "
					 "tid, dev, level, time_us, clock, fields) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	w->ins_meta = db_prepare(w->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
	w->ins_fr_entry = fr_table_insert_prepare(w->db);
	w->kinds = kind_summary_new();
	w->keys = event_keys_new();
	/* events of console copies wait here (in the temporary file, not the
	 * case) until the load tells which per-rank files they duplicate */
	db_exec(w->db, "CREATE TEMP TABLE events_staged AS SELECT *, 0 AS staged, 0 AS nccl_line FROM main.events WHERE 0;"
		       "CREATE TEMP TABLE console_nccl_lines(source_id INTEGER, local_rank INTEGER, lines INTEGER);"
		       "CREATE TEMP TABLE rank_nccl_lines(source_id INTEGER PRIMARY KEY, srun_labels INTEGER, lines INTEGER)");
	w->ins_event_staged = db_prepare(w->db, "INSERT INTO temp.events_staged(source_id, line_no, kind, class, host,"
						 " rank, local_rank, pid, tid, dev, level, time_us, clock, fields, staged,"
						 " nccl_line) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	w->ins_console_nccl = db_prepare(w->db, "INSERT INTO temp.console_nccl_lines VALUES(?,?,?)");
	w->ins_rank_nccl = db_prepare(w->db, "INSERT INTO temp.rank_nccl_lines VALUES(?,?,?)");
	char v[16];
	snprintf(v, sizeof(v), "%d", NF_SCHEMA_VERSION);
	db_meta_set(w->db, "schema_version", v);
	return 0;
}

static void finalize_all(struct case_writer *w)
{
	sqlite3_stmt *sts[] = {w->ins_source, w->upd_source, w->ins_block, w->ins_event,
			       w->ins_event_staged, w->ins_console_nccl, w->ins_rank_nccl, w->ins_meta,
			       w->ins_fr_entry};
	for (size_t i = 0; i < ARRAY_LEN(sts); i++)
		sqlite3_finalize(sts[i]);
	w->ins_source = w->upd_source = w->ins_block = w->ins_event = w->ins_event_staged = w->ins_meta = NULL;
	w->ins_console_nccl = w->ins_rank_nccl = NULL;
	w->ins_fr_entry = NULL;
	kind_summary_free(w->kinds);
	event_keys_free(w->keys);
	w->keys = NULL;
	w->kinds = NULL;
	buf_free(&w->fr_fields);
}

int case_writer_commit(struct case_writer *w, struct errbuf *err)
{
	finalize_all(w);
	db_exec(w->db, "COMMIT");
	if (sqlite3_close(w->db) != SQLITE_OK) {
		int rc = errbuf_set(err, "%s: %s", w->file.tmp, sqlite3_errmsg(w->db));
		case_writer_abort(w);
		return rc;
	}
	w->db = NULL;
	tmp_in_use = NULL;
	return atomic_file_commit(&w->file, err);
}

void case_writer_abort(struct case_writer *w)
{
	finalize_all(w);
	if (w->db) {
		sqlite3_close(w->db);
		w->db = NULL;
	}
	tmp_in_use = NULL;
	atomic_file_abort(&w->file);
}
