/* lines_vtab.h: the `lines` virtual table: every input line, read back from
 * the compressed blocks of line_blocks, with its source, line number, time,
 * clock, rank, local rank, pid, host and text. Constraints on source_id,
 * line_no and time_us are used to read only the blocks needed. */
#ifndef NF_LINES_VTAB_H
#define NF_LINES_VTAB_H

#include <sqlite3.h>

void lines_vtab_register(sqlite3 *db);

#endif
