/* verdict_print.c: see verdict_print.h. */
#include "verdict_print.h"

#include "escape.h"

/* Column c as text for a terminal (the summary quotes the logs). */
static void put_col(struct buf *b, sqlite3_stmt *st, int c)
{
	const char *s = (const char *)sqlite3_column_text(st, c);
	if (s)
		esc_term(b, s, (size_t)sqlite3_column_bytes(st, c), ESC_KEEP_TAB);
}

void verdict_print_summary(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT outcome, cause, confidence, summary FROM verdict", -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		struct buf b = {0};
		buf_puts(&b, "verdict: ");
		put_col(&b, st, 0);
		buf_puts(&b, " / ");
		put_col(&b, st, 1);
		buf_puts(&b, " (confidence ");
		put_col(&b, st, 2);
		buf_puts(&b, ")\n");
		put_col(&b, st, 3);
		buf_putc(&b, '\n');
		fwrite(b.data, 1, b.len, out);
		buf_free(&b);
	}
	sqlite3_finalize(st);
}
