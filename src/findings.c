/* findings.c: see findings.h. */
#include "findings.h"

#include "case_db.h"

int64_t finding_add(sqlite3 *db, const char *kind, const char *severity, const char *ranks_json,
		    const char *hosts_json, const char *summary, const char *hint)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT INTO findings(kind, severity, ranks, hosts, summary, hint) "
					  "VALUES(?,?,?,?,?,?)");
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, severity, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, ranks_json ? ranks_json : "[]", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, hosts_json ? hosts_json : "[]", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, summary, -1, SQLITE_STATIC);
	db_bind_text(st, 6, hint, -1);
	db_step_done(st);
	sqlite3_finalize(st);
	return sqlite3_last_insert_rowid(db);
}

static int64_t next_ord(sqlite3 *db, int64_t finding_id)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT coalesce(max(ord), 0) + 1 FROM evidence WHERE finding_id = ?");
	sqlite3_bind_int64(st, 1, finding_id);
	int64_t ord = 1;
	if (sqlite3_step(st) == SQLITE_ROW)
		ord = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return ord;
}

void evidence_add(sqlite3 *db, int64_t finding_id, int64_t event_id, const char *note)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT INTO evidence(finding_id, ord, source_id, line_no, event_id, note) "
					  "SELECT ?, ?, source_id, line_no, event_id, ? FROM events WHERE event_id = ?");
	sqlite3_bind_int64(st, 1, finding_id);
	sqlite3_bind_int64(st, 2, next_ord(db, finding_id));
	db_bind_text(st, 3, note, -1);
	sqlite3_bind_int64(st, 4, event_id);
	db_step_done(st);
	sqlite3_finalize(st);
}

void evidence_add_line(sqlite3 *db, int64_t finding_id, int64_t source_id, int64_t line_no, const char *note)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT INTO evidence(finding_id, ord, source_id, line_no, event_id, note) "
					  "VALUES(?,?,?,?,NULL,?)");
	sqlite3_bind_int64(st, 1, finding_id);
	sqlite3_bind_int64(st, 2, next_ord(db, finding_id));
	sqlite3_bind_int64(st, 3, source_id);
	sqlite3_bind_int64(st, 4, line_no);
	db_bind_text(st, 5, note, -1);
	db_step_done(st);
	sqlite3_finalize(st);
}

void findings_dedup(sqlite3 *db)
{
	/* Same message in a console copy: the text after the wrappers is equal. */
	db_exec(db,
		"CREATE TEMP TABLE IF NOT EXISTS ev_text AS SELECT 0 AS finding_id, 0 AS ord, '' AS body LIMIT 0;"
		"DELETE FROM ev_text;"
		"INSERT INTO ev_text SELECT e.finding_id, e.ord,"
		"  (SELECT line_body(l.text) FROM lines l WHERE l.source_id = e.source_id AND l.line_no = e.line_no)"
		"  FROM evidence e WHERE e.line_no > 0;"
		"DELETE FROM evidence WHERE EXISTS (SELECT 1 FROM ev_text a, ev_text b"
		"  WHERE a.finding_id = evidence.finding_id AND a.ord = evidence.ord"
		"    AND b.finding_id = a.finding_id AND b.ord < a.ord AND b.body = a.body);");
}
