/* cmd_synth.c: `ncclforensic synth --from JOB --ranks N -o OUT.tar.gz`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_options.h"
#include "commands.h"
#include "synth.h"
#include "util.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: " NF_PROG " synth --from JOB --ranks N -o OUT.tar.gz [--seed S] [-q]\n"
		"  --from JOB        a real job's logs (.tar.gz or a directory: <job>/<host>/...)\n"
		"  --ranks N         ranks of the job to build: whole nodes (a copy of the job holds\n"
		"                    all its ranks; the last copy may hold only its first nodes)\n"
		"  -o, --output FILE the .tar.gz written\n"
		"  --seed S          varies new communicator ids, pointers and run ids (default 1);\n"
		"                    the same input, N and seed give the same bytes\n"
		"  -q, --quiet       no summary line\n"
		"Each node of JOB is cloned: copy c of global rank r is rank r + c*W (W the job's\n"
		"ranks), with new host names, pids, node-local groups and communicators; groups\n"
		"that span nodes (default_pg, dp) span all copies. Every copy behaves like the\n"
		"original, so a fault in rank r shows in every copy of r.\n");
}

int cmd_synth(int argc, char **argv)
{
	struct synth_opts o = {.seed = 1, .ranks = -1};
	static const struct option opts[] = {
		{"from", required_argument, NULL, 'f'},   {"output", required_argument, NULL, 'o'},
		{"ranks", required_argument, NULL, 'r'},  {"seed", required_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},        {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
	};
	char **av;
	argc = cmd_order_args(argc, argv, "o:qhV", opts, &av);
	argv = av;
	cmd_getopt_begin();
	int c;
	while ((c = getopt_long(argc, argv, "+:o:qhV", opts, NULL)) != -1) {
		char *end = NULL;
		switch (c) {
		case 'f': o.from = optarg; break;
		case 'o': o.output = optarg; break;
		case 'r':
			if ((o.ranks = strtol(optarg, &end, 10)) <= 0 || *end) {
				diag_error("synth: --ranks '%s': wants a number above 0", optarg);
				return NF_EXIT_USAGE;
			}
			break;
		case 's':
			o.seed = strtoull(optarg, &end, 0);
			if (*end) {
				diag_error("synth: --seed '%s': wants a number", optarg);
				return NF_EXIT_USAGE;
			}
			break;
		case 'q': o.quiet = true; break;
		case 'h': usage(stdout); return NF_EXIT_OK;
		case 'V': return cmd_version();
		default: return cmd_option_error("synth", c, argv);
		}
	}
	if (optind < argc)
		return cmd_args_error("synth", NULL, argv + optind, argc - optind);
	if (!o.from || !o.output || o.ranks <= 0)
		return cmd_args_error("synth", !o.from ? "--from JOB" : !o.output ? "-o OUT.tar.gz" : "--ranks N", NULL, 0);
	return synth_run(&o);
}
