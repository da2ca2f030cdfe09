/* commands.h: the subcommands; each lives in its own cmd_*.c file. */
#ifndef NF_COMMANDS_H
#define NF_COMMANDS_H

struct command {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
	const char *args;                  /* one-line synopsis of the arguments */
	const char *summary;
};

int cmd_ingest(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_tui(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_grammar(int argc, char **argv);
int cmd_schema(int argc, char **argv);
int cmd_synth(int argc, char **argv);

/* Shared by commands: --grammar-dir options gathered here. */
#define NF_VERSION "0.1.0"

#endif
