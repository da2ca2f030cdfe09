/* sqlite_ext.c: the case's SQL in every SQLite client. A loadable extension
 * (build/ncclforensic.so, installed in <prefix>/lib/ncclforensic/) that
 * registers what the binary registers on its own connections: the `lines`
 * virtual table and the helper functions (sql_functions.h). It is built from
 * the same sources, with sqlite_ext_api.h forced in; it is not part of the
 * binary.
 *
 *   sqlite3 case.db -cmd '.load /usr/local/lib/ncclforensic/ncclforensic'
 *   python3: con.enable_load_extension(True); con.load_extension(path) */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "lines_vtab.h"
#include "sql_functions.h"

int sqlite3_ncclforensic_init(sqlite3 *db, char **err, const sqlite3_api_routines *api);

int sqlite3_ncclforensic_init(sqlite3 *db, char **err, const sqlite3_api_routines *api)
{
	(void)err;
	SQLITE_EXTENSION_INIT2(api);
	lines_vtab_register(db);
	sql_functions_register(db);
	return SQLITE_OK;
}
