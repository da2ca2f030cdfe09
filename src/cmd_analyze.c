/* cmd_analyze.c: `ncclforensic analyze CASE.db`: re-runs the analyses on an
 * existing case and prints the verdict (--reattribute: the attribution of
 * sources and events to hosts and ranks too). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "escape.h"
#include "attribution.h"
#include "case_db.h"
#include "cmd_options.h"
#include "commands.h"
#include "util.h"
#include "verdict_print.h"

/* --explain: what every rule said, in order, with the rows of the tables it
 * reasons on (the same facts `ncclforensic sql` shows). */
static void explain(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT ord, rule, family, state, reason, reads FROM diagnosis_rules ORDER BY ord");
	struct buf b = {0};
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *reason = (const char *)sqlite3_column_text(st, 4);
		const char *reads = (const char *)sqlite3_column_text(st, 5);
		buf_clear(&b);
		buf_printf(&b, "%2d %-18s %-8s %s", sqlite3_column_int(st, 0), (const char *)sqlite3_column_text(st, 1),
			   (const char *)sqlite3_column_text(st, 2), (const char *)sqlite3_column_text(st, 3));
		if (reason)
			buf_printf(&b, ": %s", reason);
		buf_putc(&b, '\n');
		if (reads && *reads && strcmp((const char *)sqlite3_column_text(st, 3), "not reached") != 0) {
			buf_puts(&b, "   reads");
			char *copy = xstrdup(reads), *save = NULL;
			for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
				char *q = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", t);
				long long n = (long long)db_int(db, q, -1);
				buf_printf(&b, " %s (%lld row%s)", t, n, n == 1 ? "" : "s");
				sqlite3_free(q);
			}
			free(copy);
			buf_putc(&b, '\n');
		}
		esc_term_fputs(out, b.data, b.len, ESC_KEEP_NEWLINE);
	}
	sqlite3_finalize(st);
	buf_free(&b);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: " NF_PROG " analyze CASE.db [-q] [--explain] [--rules-only] [--reattribute]\n"
		     "  re-runs every analysis, replacing the verdict, findings and derived tables,\n"
		     "  and prints the verdict\n"
		     "  -q, --quiet      print nothing\n"
		     "  --explain        then every rule of the diagnosis in order: decided, declined\n"
		     "                   (and why), not tried or not reached, with the rows of the\n"
		     "                   tables it reasons on\n"
		     "  --rules-only     run the diagnosis alone, on the tables as they are (after\n"
		     "                   editing rank_status, collectives ... by hand: what if)\n"
		     "  --reattribute    also redo the attribution of sources and events to hosts\n"
		     "                   and ranks (ingest did it; needed after editing them by hand)\n");
}

int cmd_analyze(int argc, char **argv)
{
	const char *path = NULL;
	bool quiet = false, reattribute = false, explaining = false, rules_only = false;
	static const struct option opts[] = {
		{"quiet", no_argument, NULL, 'q'},        {"explain", no_argument, NULL, 'e'},
		{"rules-only", no_argument, NULL, 'r'},   {"reattribute", no_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;
	char **av;
	argc = cmd_order_args(argc, argv, "qhV", opts, &av);
	argv = av;
	cmd_getopt_begin();
	while ((c = getopt_long(argc, argv, "+:qhV", opts, NULL)) != -1) {
		switch (c) {
		case 'q': quiet = true; break;
		case 'e': explaining = true; break;
		case 'r': rules_only = true; break;
		case 'a': reattribute = true; break;
		case 'h': usage(stdout); return NF_EXIT_OK;
		case 'V': return cmd_version();
		default: return cmd_option_error("analyze", c, argv);
		}
	}
	if (argc - optind != 1)
		return cmd_args_error("analyze", optind >= argc ? "the case to analyse (CASE.db)" : NULL,
				      argv + optind + 1, argc - optind - 1);
	path = argv[optind];
	sqlite3 *db = case_open_or_say(path, false);
	if (!db)
		return NF_EXIT_NOTHING;
	db_exec(db, "BEGIN IMMEDIATE");
	if (reattribute)
		attribution_run(db);
	if (rules_only)
		analysis_run_diagnosis(db);
	else
		analysis_run(db);
	db_exec(db, "COMMIT");
	if (!quiet)
		verdict_print_summary(db, stdout);
	if (explaining) {
		if (!quiet)
			putchar('\n');
		explain(db, stdout);
	}
	case_close(db);
	return NF_EXIT_OK;
}
