/* fr_table.h: the typed table of flight-recorder entries (fr_entries).
 *
 * Every fr_entry event also gets a row of fr_entries with its values in
 * columns, so the analyses (and users) read them without parsing JSON. The
 * ingest writes the row right after the event; a case written before the
 * table existed gets it filled from the events on first analysis. */
#ifndef NF_FR_TABLE_H
#define NF_FR_TABLE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The SQL of an fr_entry event's whole fields (what its JSON held before
 * the typed columns took the values out): the row f of fr_entries as JSON,
 * keys of NULL values left out, with the event's own fields (rest) after. */
#define FR_ENTRY_JSON(f, rest)                                                                           \
	"json_patch(json_patch('{}', json_object('record_id', " f ".record_id, 'pg_id', " f ".pg_id,"        \
	" 'pg_name', " f ".pg_name, 'pg_desc', " f ".pg_desc, 'seq', " f ".seq, 'p2p_seq', " f ".p2p_seq,"      \
	" 'is_p2p', nullif(" f ".is_p2p, 0), 'op', " f ".op, 'numel_in', " f ".numel_in,"                    \
	" 'numel_out', " f ".numel_out, 'dtype', " f ".dtype, 'state', " f ".state,"                        \
	" 'time_created_us', " f ".time_created_us, 'time_started_us', " f ".time_started_us,"              \
	" 'time_completed_us', " f ".time_completed_us, 'duration_ms', " f ".duration_ms,"                  \
	" 'timeout_ms', " f ".timeout_ms, 'frame', " f ".frame)), " rest ")"
/* The whole fields of any event e (a row of events with event_id, kind and
 * fields): those of a flight-recorder entry joined back from fr_entries. */
#define EVENT_FIELDS(e)                                                                                  \
	"(CASE WHEN " e ".kind = 'fr_entry' THEN coalesce((SELECT " FR_ENTRY_JSON("f_", e ".fields")          \
	" FROM fr_entries f_ WHERE f_.event_id = " e ".event_id), " e ".fields) ELSE " e ".fields END)"

/* The INSERT statement of fr_table_insert, prepared on db. */
sqlite3_stmt *fr_table_insert_prepare(sqlite3 *db);
/* Inserts the row of event event_id (rank < 0: unknown yet) from its fields
 * (JSON, len bytes). */
void fr_table_insert(sqlite3_stmt *ins, int64_t event_id, int rank, const char *fields, size_t len);
/* The fields an fr_entry event keeps (what no column of fr_entries holds:
 * the tensor shapes), from its whole fields, into out. */
void fr_table_residual(const char *fields, size_t len, struct buf *out);
/* Creates and fills fr_entries from the events when the case lacks it (a
 * case written by an older version): in the case, or for a read-only
 * connection in its temporary schema. */
void fr_table_ensure(sqlite3 *db, bool readonly);

#endif
