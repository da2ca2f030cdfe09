/* sql_shell.h: `ncclforensic sql CASE` without a query: the sqlite3 shell
 * (line editing, history, .tables, .schema, .mode, multi-line statements)
 * on the case, with the extension (sqlite_ext.c) loaded. */
#ifndef NF_SQL_SHELL_H
#define NF_SQL_SHELL_H

#include <stdbool.h>
#include <stddef.h>

/* The SQLite extension's path (without ".so", as .load takes it) into out:
 * $NCCLFORENSIC_EXTENSION, else beside the binary (a source tree's build/,
 * an install's ../lib/ncclforensic/), else where `make install` put it.
 * False if none is readable. */
bool sql_extension_path(char *out, size_t n);

/* Replaces the process with sqlite3 on the case: read-only unless write,
 * PRAGMA trusted_schema=OFF, the extension loaded. Returns only on failure,
 * having said why: the exit code to return. */
int sql_shell_exec(const char *case_path, bool write);

#endif
