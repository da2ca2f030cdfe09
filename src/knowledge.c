/* knowledge.c: see knowledge.h. */
#include "knowledge.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case_db.h"
#include "grammar.h"
#include "util.h"

#ifndef NF_GRAMMAR_INSTALL_DIR
#define NF_GRAMMAR_INSTALL_DIR ""
#endif

static char data_dir[PATH_MAX];
static bool searched;

static bool try_dir(const char *fmt, const char *base)
{
	if (!base || !*base)
		return false;
	snprintf(data_dir, sizeof(data_dir), fmt, base);
	return access(data_dir, R_OK) == 0;
}

const char *knowledge_dir(void)
{
	if (searched)
		return data_dir[0] ? data_dir : NULL;
	searched = true;
	/* the grammars found by this run (ingest), then the same places the
	 * grammar loader looks at (analyze runs without loading grammars) */
	if (try_dir("%s/../data", grammar_builtin_dir()))
		return data_dir;
	char exe[PATH_MAX - 64];
	if (exe_dir(exe, sizeof(exe)) &&
	    (try_dir("%s/grammars/../data", exe) || try_dir("%s/../share/ncclforensic/data", exe) ||
	     try_dir("%s/../data", exe)))
		return data_dir;
	if (try_dir("%s/../data", NF_GRAMMAR_INSTALL_DIR))
		return data_dir;
	data_dir[0] = '\0';
	return NULL;
}

/* files already warned about */
static char warned[8][64];

static void warn_once(const char *file)
{
	for (size_t i = 0; i < ARRAY_LEN(warned); i++) {
		if (strcmp(warned[i], file) == 0)
			return;
		if (!warned[i][0]) {
			snprintf(warned[i], sizeof(warned[i]), "%s", file);
			break;
		}
	}
	diag_warn("warning: knowledge file data/%s not found (looked next to the grammars); the analyses that need it"
		  " are skipped", file);
}

int knowledge_load(sqlite3 *db, const char *file, const char *table, const char *const *cols, int ncols)
{
	struct buf sql = {0};
	buf_printf(&sql, "DROP TABLE IF EXISTS temp.%s; CREATE TEMP TABLE %s(", table, table);
	for (int i = 0; i < ncols; i++)
		buf_printf(&sql, "%s%s", i ? ", " : "", cols[i]);
	buf_puts(&sql, ");");
	db_exec(db, sql.data);

	const char *dir = knowledge_dir();
	FILE *f = NULL;
	if (dir) {
		char *path = xasprintf("%s/%s", dir, file);
		f = fopen(path, "r");
		free(path);
	}
	if (!f) {
		warn_once(file);
		buf_free(&sql);
		return -1;
	}
	buf_clear(&sql);
	buf_printf(&sql, "INSERT INTO temp.%s VALUES(", table);
	for (int i = 0; i < ncols; i++)
		buf_puts(&sql, i ? ",?" : "?");
	buf_putc(&sql, ')');
	sqlite3_stmt *st = db_prepare(db, sql.data);
	buf_free(&sql);

	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rows = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		const char *p = line;
		while (*p == ' ')
			p++;
		if (!*p || *p == '#')
			continue;
		char *cell = line;
		for (int i = 0; i < ncols; i++) {
			char *tab = cell ? strchr(cell, '\t') : NULL;
			if (tab)
				*tab = '\0';
			if (!cell || !*cell || strcmp(cell, "-") == 0)
				sqlite3_bind_null(st, i + 1);
			else
				sqlite3_bind_text(st, i + 1, cell, -1, SQLITE_TRANSIENT);
			cell = tab ? tab + 1 : NULL;
		}
		db_step_done(st);
		rows++;
	}
	free(line);
	fclose(f);
	sqlite3_finalize(st);
	return rows;
}
