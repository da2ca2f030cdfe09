/* fr_table.h: the typed table of flight-recorder entries (fr_entries).
 *
 * Every fr_entry event also gets a row of fr_entries with its values in
 * columns, so the analyses (and users) read them without parsing JSON. The
 * ingest writes the row right after the event; a case written before the
 * table existed gets it filled from the events on first analysis. */
#ifndef NF_FR_TABLE_H
#define NF_FR_TABLE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The INSERT statement to prepare for fr_table_insert. */
extern const char fr_table_insert_sql[];
/* Inserts the row of event event_id (rank < 0: unknown yet) from its fields
 * (JSON, len bytes). */
void fr_table_insert(sqlite3_stmt *ins, int64_t event_id, int rank, const char *fields, size_t len);
/* Creates and fills fr_entries from the events when the case lacks it. */
void fr_table_ensure(sqlite3 *db);

#endif
