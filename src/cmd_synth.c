/* cmd_synth.c: `ncclforensic synth --from JOB --ranks N -o OUT.tar.gz`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return NF_EXIT_OK;
		} else if (strcmp(a, "--from") == 0 && val) {
			o.from = val;
			i++;
		} else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && val) {
			o.output = val;
			i++;
		} else if (strcmp(a, "--ranks") == 0 && val && (o.ranks = strtol(val, &end, 10)) > 0 && !*end) {
			i++;
		} else if (strcmp(a, "--seed") == 0 && val && (o.seed = strtoull(val, &end, 0), !*end)) {
			i++;
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			o.quiet = true;
		} else {
			fprintf(stderr, NF_PROG " synth: bad argument '%s'\n", a);
			usage(stderr);
			return NF_EXIT_USAGE;
		}
	}
	if (!o.from || !o.output || o.ranks <= 0) {
		usage(stderr);
		return NF_EXIT_USAGE;
	}
	return synth_run(&o);
}
