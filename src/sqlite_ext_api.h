/* sqlite_ext_api.h: forced in (-include) when the sources the loadable
 * extension shares with the binary (the `lines` table, the SQL functions)
 * are compiled for it: their sqlite3_* calls then go through the API table
 * the loading client hands over (sqlite_ext.c), so the extension works in
 * any client, whichever SQLite library it carries. */
#ifndef NF_SQLITE_EXT_API_H
#define NF_SQLITE_EXT_API_H

#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#endif
