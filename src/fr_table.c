/* fr_table.c: the typed table of flight-recorder entries (see fr_table.h). */
#include "fr_table.h"

#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "case_schema.h"
#include "json_field.h"
#include "util.h"

/* the keys of an fr_entry event's fields (flight_recorder.c), in the order
 * of the table's columns after event_id */
static const char *const columns[] = {
	"record_id", "pg_id", "pg_name", "pg_desc", "seq", "p2p_seq", "is_p2p", "op", "numel_in", "numel_out",
	"dtype", "state", "time_created_us", "time_started_us", "time_completed_us", "duration_ms", "timeout_ms",
	"frame",
};

sqlite3_stmt *fr_table_insert_prepare(sqlite3 *db)
{
	struct buf sql = {0};
	buf_printf(&sql, "INSERT INTO fr_entries(event_id, rank");
	for (size_t c = 0; c < ARRAY_LEN(columns); c++)
		buf_printf(&sql, ", %s", columns[c]);
	buf_printf(&sql, ") VALUES(?, ?");
	for (size_t c = 0; c < ARRAY_LEN(columns); c++)
		buf_printf(&sql, ", ?");
	buf_putc(&sql, ')');
	sqlite3_stmt *st = db_prepare(db, sql.data);
	buf_free(&sql);
	return st;
}

static void bind_value(sqlite3_stmt *st, int i, const struct json_value *v)
{
	long long n;
	double d;
	switch (v ? v->kind : JSON_ABSENT) {
	case JSON_STRING:
		if (!v->escaped) {
			sqlite3_bind_text(st, i, v->start, (int)v->len, SQLITE_TRANSIENT);
		} else {
			char *buf = xmalloc(v->len + 1);
			size_t k = json_unescape(v->start, v->len, buf);
			sqlite3_bind_text(st, i, buf, (int)k, free);
		}
		break;
	case JSON_NUMBER:
		switch (json_number(v, &n, &d)) {
		case JSON_NUMBER_INT: sqlite3_bind_int64(st, i, n); break;
		case JSON_NUMBER_REAL: sqlite3_bind_double(st, i, d); break;
		default: sqlite3_bind_null(st, i); break;
		}
		break;
	case JSON_TRUE: sqlite3_bind_int(st, i, 1); break;
	case JSON_FALSE: sqlite3_bind_int(st, i, 0); break;
	case JSON_NESTED: sqlite3_bind_text(st, i, v->start, (int)v->len, SQLITE_TRANSIENT); break;
	default: sqlite3_bind_null(st, i); break;
	}
}

void fr_table_insert(sqlite3_stmt *ins, int64_t event_id, int rank, const char *fields, size_t len)
{
	struct json_member m[64];
	int n = json_members(fields, len, m, 64);
	sqlite3_bind_int64(ins, 1, event_id);
	db_bind_int_or_null(ins, 2, rank, rank >= 0);
	for (size_t c = 0; c < ARRAY_LEN(columns); c++) {
		const struct json_value *v = NULL;
		struct json_value found;
		if (n >= 0)
			v = json_member_get(m, n, columns[c], strlen(columns[c]));
		else if (json_field_find(fields, len, columns[c], strlen(columns[c]), &found))
			v = &found;
		if (!v && strcmp(columns[c], "is_p2p") == 0)
			sqlite3_bind_int(ins, (int)c + 3, 0);
		else
			bind_value(ins, (int)c + 3, v);
	}
	db_step_done(ins);
}

static bool is_column(const char *key, size_t len)
{
	for (size_t c = 0; c < ARRAY_LEN(columns); c++)
		if (strlen(columns[c]) == len && memcmp(columns[c], key, len) == 0)
			return true;
	return false;
}

void fr_table_residual(const char *fields, size_t len, struct buf *out)
{
	struct json_member m[64];
	int n = json_members(fields, len, m, 64);
	buf_clear(out);
	if (n < 0) { /* not ours: kept whole */
		buf_append(out, fields, len);
		return;
	}
	buf_putc(out, '{');
	bool first = true;
	for (int i = 0; i < n; i++) {
		if (!m[i].key_escaped && is_column(m[i].key, m[i].key_len))
			continue;
		if (!first)
			buf_putc(out, ',');
		first = false;
		/* the member as written: from its key's opening quote to its value's end */
		const char *from = m[i].key - 1;
		const struct json_value *v = &m[i].value;
		const char *to = v->start + v->len + (v->kind == JSON_STRING ? 1 : 0);
		buf_append(out, from, (size_t)(to - from));
	}
	buf_putc(out, '}');
}

void fr_table_ensure(sqlite3 *db, bool readonly)
{
	if (db_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'fr_entries'", 0) > 0 ||
	    db_int(db, "SELECT count(*) FROM sqlite_temp_master WHERE type = 'table' AND name = 'fr_entries'", 0) > 0)
		return;
	if (db_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'events'", 0) == 0)
		return;
	if (readonly) {
		/* the same table, in the connection's temporary schema */
		char *ddl = xasprintf("CREATE TEMP TABLE%s", strstr(NF_FR_ENTRIES_DDL, "TABLE") + 5);
		db_exec(db, ddl);
		free(ddl);
	} else {
		db_exec(db, NF_FR_ENTRIES_DDL);
	}
	sqlite3_stmt *sel = db_prepare(db, "SELECT event_id, rank, fields FROM events WHERE kind = 'fr_entry' ORDER BY event_id");
	sqlite3_stmt *ins = fr_table_insert_prepare(db);
	while (sqlite3_step(sel) == SQLITE_ROW)
		fr_table_insert(ins, sqlite3_column_int64(sel, 0), (int)db_column_int_or(sel, 1, -1),
				(const char *)sqlite3_column_text(sel, 2), (size_t)sqlite3_column_bytes(sel, 2));
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
}
