/* tui_linetext.h: one line's message: without its wrappers ([default0]:,
 * [rank3]:), for the events view. */
#ifndef NF_TUI_LINETEXT_H
#define NF_TUI_LINETEXT_H

#include <sqlite3.h>
#include <stdint.h>

/* A new string, or NULL when the line was not stored. */
char *tui_line_body(sqlite3 *db, int64_t source_id, int64_t line_no);
void tui_linetext_free(void);

#endif
