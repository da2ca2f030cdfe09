/* cmd_schema.c: `ncclforensic schema`: prints the case database schema. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "case_schema.h"
#include "cmd_options.h"
#include "commands.h"
#include "util.h"

int cmd_schema(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	char **av;
	argc = cmd_order_args(argc, argv, "hV", opts, &av);
	argv = av;
	cmd_getopt_begin();
	int c;
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			printf("usage: " NF_PROG " schema\n  prints the SQL schema of a case database (see docs/schema.md)\n");
			return NF_EXIT_OK;
		case 'V': return cmd_version();
		default: return cmd_option_error("schema", c, argv);
		}
	}
	if (optind < argc)
		return cmd_args_error("schema", NULL, argv + optind, argc - optind);
	printf("-- ncclforensic case database, schema version %d (docs/schema.md describes every column)\n\n"
	       "-- written by ingest\n%s\n-- indexes\n%s\n-- written by the analyses\n%s",
	       NF_SCHEMA_VERSION, case_schema_ingest_sql, case_schema_index_sql, case_schema_analysis_sql);
	return NF_EXIT_OK;
}
