/* cmd_sql.c: `ncclforensic sql CASE.db [QUERY]`: runs SQL on a case with the
 * `lines` table and the helper functions registered, read-only unless
 * --write. Without QUERY, the sqlite3 shell on the case (sql_shell.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "cmd_options.h"
#include "commands.h"
#include "escape.h"
#include "sql_shell.h"
#include "util.h"

enum out_mode { OUT_TABLE, OUT_TSV, OUT_CSV, OUT_JSON };

static void usage(FILE *out)
{
	fprintf(out, "usage: " NF_PROG " sql CASE.db [QUERY] [--tsv|--csv|--json] [--header] [--write]\n"
		     "  runs QUERY and prints the rows; without QUERY, opens the sqlite3 shell on\n"
		     "  the case (statements from standard input when it is not a terminal).\n"
		     "  The case is read-only unless --write.\n"
		     "  The default output is an aligned table with a header. Control bytes\n"
		     "  show as ? (a NUL as \\0) in every output but --json, which is exact;\n"
		     "  --tsv writes \\ tab newline CR as \\\\ \\t \\n \\r, --csv puts a ' before\n"
		     "  a text cell that starts with = + - @.\n");
}

/* Appends column c of the row as text for the table, TSV or CSV output:
 * escaped so that nothing of a log acts on a terminal (escape.h); NULL is
 * empty. */
static void put_value(struct buf *b, sqlite3_stmt *st, int c, enum out_mode mode)
{
	const char *v = (const char *)sqlite3_column_text(st, c);
	if (!v)
		return;
	size_t n = (size_t)sqlite3_column_bytes(st, c);
	int type = sqlite3_column_type(st, c);
	if (mode == OUT_CSV)
		esc_csv(b, v, n, type == SQLITE_TEXT || type == SQLITE_BLOB);
	else if (mode == OUT_TSV)
		esc_tsv(b, v, n);
	else
		esc_term(b, v, n, 0);
}

static int run_query(sqlite3 *db, const char *sql, enum out_mode mode, bool header, bool write)
{
	const char *tail = sql;
	while (tail && *tail) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
			diag_error("sql: %s", sqlite3_errmsg(db));
			return NF_EXIT_USAGE;
		}
		if (!st)
			break; /* whitespace or comment */
		if (!write && !sqlite3_stmt_readonly(st)) {
			diag_error("sql: the statement would change the case (%.60s); the case is read-only unless --write",
				   sqlite3_sql(st));
			sqlite3_finalize(st);
			return NF_EXIT_USAGE;
		}
		int ncol = sqlite3_column_count(st);
		/* table mode: buffer the rows to size the columns */
		char ***rows = NULL;
		size_t nrows = 0, cap = 0;
		int *width = xcalloc((size_t)ncol + 1, sizeof(int));
		if (header && mode != OUT_TABLE && mode != OUT_JSON) {
			struct buf b = {0};
			for (int c = 0; c < ncol; c++) {
				const char *name = sqlite3_column_name(st, c);
				if (c)
					buf_putc(&b, mode == OUT_CSV ? ',' : '\t');
				if (mode == OUT_CSV)
					esc_csv(&b, name, strlen(name), false);
				else
					esc_tsv(&b, name, strlen(name));
			}
			buf_putc(&b, '\n');
			fwrite(b.data, 1, b.len, stdout);
			buf_free(&b);
		}
		int rc;
		bool first = true;
		if (mode == OUT_JSON)
			putchar('[');
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (mode == OUT_TABLE) {
				xgrow(&rows, &cap, nrows + 1, sizeof(*rows));
				rows[nrows] = xcalloc((size_t)ncol + 1, sizeof(char *));
				for (int c = 0; c < ncol; c++) {
					struct buf v = {0};
					put_value(&v, st, c, mode);
					buf_putc(&v, '\0');
					rows[nrows][c] = v.data;
					int w = (int)v.len - 1;
					if (w > width[c])
						width[c] = w;
				}
				nrows++;
			} else if (mode == OUT_JSON) {
				struct buf b = {0};
				buf_puts(&b, first ? "\n{" : ",\n{");
				for (int c = 0; c < ncol; c++) {
					if (c)
						buf_putc(&b, ',');
					const char *name = sqlite3_column_name(st, c);
					buf_json_str(&b, name, strlen(name));
					buf_putc(&b, ':');
					switch (sqlite3_column_type(st, c)) {
					case SQLITE_NULL:
						buf_puts(&b, "null");
						break;
					case SQLITE_INTEGER:
						buf_printf(&b, "%lld", (long long)sqlite3_column_int64(st, c));
						break;
					case SQLITE_FLOAT:
						buf_printf(&b, "%.17g", sqlite3_column_double(st, c));
						break;
					default: {
						const char *v = (const char *)sqlite3_column_text(st, c);
						buf_json_str(&b, v, (size_t)sqlite3_column_bytes(st, c));
					}
					}
				}
				buf_putc(&b, '}');
				fwrite(b.data, 1, b.len, stdout);
				buf_free(&b);
				first = false;
			} else {
				struct buf b = {0};
				for (int c = 0; c < ncol; c++) {
					if (c)
						buf_putc(&b, mode == OUT_CSV ? ',' : '\t');
					put_value(&b, st, c, mode);
				}
				buf_putc(&b, '\n');
				fwrite(b.data, 1, b.len, stdout);
				buf_free(&b);
			}
		}
		if (mode == OUT_JSON)
			puts(first ? "]" : "\n]");
		if (mode == OUT_TABLE && ncol > 0) {
			char **names = xcalloc((size_t)ncol, sizeof(char *));
			for (int c = 0; c < ncol; c++) {
				const char *name = sqlite3_column_name(st, c);
				names[c] = esc_term_dup(name, strlen(name), 0);
				int w = (int)strlen(names[c]);
				if (w > width[c])
					width[c] = w;
			}
			for (int c = 0; c < ncol; c++) {
				printf("%s%-*s", c ? "  " : "", c == ncol - 1 ? 0 : width[c], names[c]);
				free(names[c]);
			}
			free(names);
			putchar('\n');
			for (int c = 0; c < ncol; c++) {
				printf("%s", c ? "  " : "");
				for (int k = 0; k < width[c]; k++)
					putchar('-');
			}
			putchar('\n');
			for (size_t r = 0; r < nrows; r++) {
				for (int c = 0; c < ncol; c++) {
					const char *v = rows[r][c] ? rows[r][c] : "";
					printf("%s%-*s", c ? "  " : "", c == ncol - 1 ? 0 : width[c], v);
					free(rows[r][c]);
				}
				putchar('\n');
				free(rows[r]);
			}
		}
		free(rows);
		free(width);
		if (rc != SQLITE_DONE) {
			diag_error("sql: %s", sqlite3_errmsg(db));
			sqlite3_finalize(st);
			return NF_EXIT_USAGE;
		}
		sqlite3_finalize(st);
	}
	return NF_EXIT_OK;
}

int cmd_sql(int argc, char **argv)
{
	enum out_mode mode = OUT_TABLE;
	bool header = false, write = false;
	static const struct option opts[] = {
		{"tsv", no_argument, NULL, 't'},    {"csv", no_argument, NULL, 'c'},
		{"json", no_argument, NULL, 'j'},   {"header", no_argument, NULL, 'H'},
		{"write", no_argument, NULL, 'w'},  {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0},
	};
	int c, rc;
	char **av;
	argc = cmd_order_args(argc, argv, "hV", opts, &av);
	argv = av;
	cmd_getopt_begin();
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (c) {
		case 't': mode = OUT_TSV; break;
		case 'c': mode = OUT_CSV; break;
		case 'j': mode = OUT_JSON; break;
		case 'H': header = true; break;
		case 'w': write = true; break;
		case 'h': usage(stdout); return NF_EXIT_OK;
		case 'V': return cmd_version();
		default: return cmd_option_error("sql", c, argv);
		}
	}
	int nargs = argc - optind;
	if (nargs < 1 || nargs > 2)
		return cmd_args_error("sql", nargs < 1 ? "the case to read (CASE.db)" : NULL, argv + optind + 2,
				      nargs > 2 ? nargs - 2 : 0);
	const char *path = argv[optind], *query = nargs == 2 ? argv[optind + 1] : NULL;
	if (!query)
		return sql_shell_exec(path, write);
	sqlite3 *db = case_open_or_say(path, !write);
	if (!db)
		return NF_EXIT_NOTHING;
	sqlite3_exec(db, "PRAGMA trusted_schema=OFF", NULL, NULL, NULL);
	rc = run_query(db, query, mode, header, write);
	case_close(db);
	return rc;
}
