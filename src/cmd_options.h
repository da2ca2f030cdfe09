/* cmd_options.h: what every command's option parsing shares. Each command
 * parses with getopt_long (optstring ":..." so a missing value comes back
 * as ':'), then reports its mistakes through these, in one wording:
 *   ncclforensic: sql: option '--format' needs a value
 *   ncclforensic: sql: unknown option '--frmat'
 *   ncclforensic: sql: unexpected argument 'x'
 * each followed by "try 'ncclforensic sql --help'", exit NF_EXIT_USAGE. */
#ifndef NF_CMD_OPTIONS_H
#define NF_CMD_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

/* -V / --version of every command: prints the version, returns 0. */
int cmd_version(void);
/* Before a command's first getopt_long: a fresh scan, no getopt messages. */
void cmd_getopt_begin(void);
/* argv with its options first (each with its value) and its other arguments
 * after a "--", in their order, for getopt_long with a "+" optstring:
 * options may follow the arguments (`sql CASE QUERY --tsv`), and an argument
 * that begins with '-' but holds a blank or a newline (a query that opens
 * with an SQL comment) is an argument, not an option. Returns the new argc;
 * *out holds the pointers (until the next call). */
int cmd_order_args(int argc, char **argv, const char *shortopts, const struct option *longopts, char ***out);
/* getopt_long returned c ('?' or ':') for argv: says which option and how. */
int cmd_option_error(const char *cmd, int c, char **argv);
/* Too few arguments (missing: what is missing) or too many (extra, nextra). */
int cmd_args_error(const char *cmd, const char *missing, char **extra, int nextra);

#endif
