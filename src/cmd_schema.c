/* cmd_schema.c: `ncclforensic schema`: prints the case database schema. */
#include <stdio.h>
#include <string.h>

#include "case_schema.h"
#include "commands.h"
#include "util.h"

int cmd_schema(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		printf("usage: " NF_PROG " schema\n  prints the SQL schema of a case database (see docs/schema.md)\n");
		return NF_EXIT_OK;
	}
	(void)argv;
	printf("-- ncclforensic case database, schema version %d (docs/schema.md describes every column)\n\n"
	       "-- written by ingest\n%s\n-- indexes\n%s\n-- written by the analyses\n%s",
	       NF_SCHEMA_VERSION, case_schema_ingest_sql, case_schema_index_sql, case_schema_analysis_sql);
	return NF_EXIT_OK;
}
