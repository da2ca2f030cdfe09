/* main.c: dispatches to the subcommands (cmd_*.c). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "util.h"

static const struct command commands[] = {
	{"ingest", cmd_ingest, "ARCHIVE|DIR|FILE [-o CASE.db] [-q] [--grammar-dir DIR]",
	 "read a job's logs into a case database, analyse it and print the verdict"},
	{"analyze", cmd_analyze, "CASE.db", "re-run the analysis of a case"},
	{"report", cmd_report, "CASE.db [--format md|text|json|html] [-o FILE] [--redact]",
	 "write a report for an incident ticket"},
	{"sql", cmd_sql, "CASE.db [QUERY]", "run SQL on a case (interactive without QUERY)"},
	{"tui", cmd_tui, "CASE.db", "browse the case timeline in the terminal"},
	{"view", cmd_view, "ARCHIVE|DIR", "ingest to a temporary case and open the TUI"},
	{"grammar", cmd_grammar, "test|list [--grammar-dir DIR]", "self-test or list the log grammars"},
	{"schema", cmd_schema, "", "print the case database schema"},
	{"synth", cmd_synth, "--from JOB.tar.gz --ranks N -o OUT.tar.gz [--seed S]",
	 "build a large job by cloning the nodes of a real one"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: " NF_PROG " COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		fprintf(out, "  %-8s %s\n           %s\n", commands[i].name, commands[i].args,
			commands[i].summary);
	fprintf(out, "\n" NF_PROG " COMMAND --help shows a command's options; man ncclforensic has it all.\n");
}

int main(int argc, char **argv)
{
	xalloc_tune();
	if (argc < 2) {
		usage(stderr);
		return NF_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
		usage(stdout);
		return NF_EXIT_OK;
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0 || strcmp(name, "version") == 0) {
		printf(NF_PROG " " NF_VERSION "\n");
		return NF_EXIT_OK;
	}
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		if (strcmp(name, commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	diag_error("unknown command '%s'", name);
	fprintf(stderr, "try '" NF_PROG " --help' for the commands\n");
	return NF_EXIT_USAGE;
}
