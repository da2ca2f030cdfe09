/* cmd_analyze.c: `ncclforensic analyze CASE.db`: re-runs the analyses on an
 * existing case and prints the verdict (--reattribute: the attribution of
 * sources and events to hosts and ranks too). */
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "attribution.h"
#include "case_db.h"
#include "commands.h"
#include "util.h"
#include "verdict_print.h"

int cmd_analyze(int argc, char **argv)
{
	const char *path = NULL;
	bool quiet = false, reattribute = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("usage: " NF_PROG " analyze CASE.db [-q] [--reattribute]\n"
			       "  re-runs every analysis, replacing the verdict, findings and derived tables,\n"
			       "  and prints the verdict\n"
			       "  -q, --quiet      print nothing\n"
			       "  --reattribute    also redo the attribution of sources and events to hosts\n"
			       "                   and ranks (ingest did it; needed after editing them by hand)\n");
			return NF_EXIT_OK;
		} else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) {
			quiet = true;
		} else if (strcmp(argv[i], "--reattribute") == 0) {
			reattribute = true;
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
		} else {
			fprintf(stderr, "usage: " NF_PROG " analyze CASE.db [-q] [--reattribute]\n");
			return NF_EXIT_USAGE;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: " NF_PROG " analyze CASE.db [-q] [--reattribute]\n");
		return NF_EXIT_USAGE;
	}
	sqlite3 *db = case_open_or_say(path, false);
	if (!db)
		return NF_EXIT_NOTHING;
	db_exec(db, "BEGIN IMMEDIATE");
	if (reattribute)
		attribution_run(db);
	analysis_run(db);
	db_exec(db, "COMMIT");
	if (!quiet)
		verdict_print_summary(db, stdout);
	case_close(db);
	return NF_EXIT_OK;
}
