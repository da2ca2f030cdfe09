/* case_db.h: opening case databases and writing them during ingest.
 *
 * Ingest writes to a temporary file next to the target and renames it over
 * the target only when the whole case is written (case_writer_commit), so the
 * target path never holds a half-written case. */
#ifndef NF_CASE_DB_H
#define NF_CASE_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "atomic_file.h"
#include "util.h"

/* Opens an existing case (read-write unless readonly), registers the
 * functions and virtual tables the schema needs, and checks the schema
 * version: a case from a newer version is refused. */
sqlite3 *case_open(const char *path, bool readonly, struct errbuf *err);
/* case_open for a command: says why not on stderr ("ncclforensic: PATH: ..."). */
sqlite3 *case_open_or_say(const char *path, bool readonly);
/* Registers the `lines` virtual-table module and SQL helper functions. */
void case_register(sqlite3 *db);
void case_close(sqlite3 *db);

/* Runs SQL with no result rows; dies on error (the SQL is ours). */
void db_exec(sqlite3 *db, const char *sql);
/* Ends the command after a failed statement, with what the user can act on:
 * a full disk or an I/O error (exit 6), a read-only or damaged case (3);
 * anything else is an internal error (4). */
_Noreturn void db_fail(sqlite3 *db, const char *sql);
/* From now on a statement on db stops when nf_interrupted is set (SIGINT,
 * SIGTERM): db_fail then says so and exits 130. */
void db_stop_on_signal(sqlite3 *db);
sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql);
/* Binds text that may be NULL (as SQL NULL). */
void db_bind_text(sqlite3_stmt *st, int i, const char *s, int len);
void db_bind_int_or_null(sqlite3_stmt *st, int i, int64_t v, bool present);
/* Steps a statement that returns no rows, then resets it. */
void db_step_done(sqlite3_stmt *st);
/* Column i of the current row as an integer, def when it is NULL. */
int64_t db_column_int_or(sqlite3_stmt *st, int i, int64_t def);
/* A malloc'ed copy of a text column, NULL for SQL NULL; a NUL byte in the
 * value (a line of a half-written file) is shown as the two characters \0,
 * where a C string would end at it. */
char *db_column_text_dup(sqlite3_stmt *st, int i);
/* A text column into out (n bytes, cut to fit), "" for SQL NULL. */
void db_column_text_copy(sqlite3_stmt *st, int i, char *out, size_t n);
/* First column of the first row as an integer (def when no row / NULL). */
int64_t db_int(sqlite3 *db, const char *sql, int64_t def);
const char *db_meta_get(sqlite3 *db, const char *key, char *out, size_t n);
void db_meta_set(sqlite3 *db, const char *key, const char *value);

struct kind_summary;

struct case_writer {
	sqlite3 *db;
	struct atomic_file file; /* the temporary case, renamed at commit */
	sqlite3_stmt *ins_source, *upd_source, *ins_block, *ins_event, *ins_event_staged, *ins_console_nccl,
	    *ins_rank_nccl, *ins_meta, *ins_fr_entry;
	struct kind_summary *kinds; /* of the events written */
	struct event_keys *keys;    /* the processes they name */
	struct buf fr_fields;       /* what an fr_entry event keeps of its fields */
};

/* Creates the temporary case next to target. -1 with err on failure (for
 * example an unwritable directory). */
int case_writer_open(struct case_writer *w, const char *target, struct errbuf *err);
/* Builds indexes, commits, closes and renames over the target. */
int case_writer_commit(struct case_writer *w, struct errbuf *err);
/* Closes and removes the temporary file (no target is written). */
void case_writer_abort(struct case_writer *w);
/* The temporary path in use, for a signal handler to remove (or NULL). */
const char *case_writer_tmp_path(void);

#endif
