/* verdict_print.c: see verdict_print.h. */
#include "verdict_print.h"

void verdict_print_summary(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT outcome, cause, confidence, summary FROM verdict", -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW)
		fprintf(out, "verdict: %s / %s (confidence %s)\n%s\n", sqlite3_column_text(st, 0),
			sqlite3_column_text(st, 1), sqlite3_column_text(st, 2), sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
}
