/* cmd_options.c: see cmd_options.h. */
#include "cmd_options.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util.h"

int cmd_version(void)
{
	printf(NF_PROG " " NF_VERSION "\n");
	return NF_EXIT_OK;
}

void cmd_getopt_begin(void)
{
	optind = 0; /* glibc: 0 starts a whole new scan */
	opterr = 0;
}

static int hint(const char *cmd)
{
	fprintf(stderr, "try '" NF_PROG " %s --help'\n", cmd);
	return NF_EXIT_USAGE;
}

int cmd_option_error(const char *cmd, int c, char **argv)
{
	const char *opt = optind > 0 ? argv[optind - 1] : "?";
	char shortopt[3] = {'-', (char)optopt, '\0'};
	/* a short option inside a cluster (-qx): the letter, not the cluster */
	if (optopt > 0 && optopt < 128 && !(opt[0] == '-' && opt[1] == '-'))
		opt = shortopt;
	if (c == ':')
		diag_error("%s: option '%s' needs a value", cmd, opt);
	else
		diag_error("%s: unknown option '%s'", cmd, opt);
	return hint(cmd);
}

int cmd_args_error(const char *cmd, const char *missing, char **extra, int nextra)
{
	if (missing) {
		diag_error("%s: missing %s", cmd, missing);
	} else {
		struct buf b = {0};
		for (int i = 0; i < nextra; i++)
			buf_printf(&b, "%s'%s'", i ? ", " : "", extra[i]);
		diag_error("%s: unexpected argument%s %s", cmd, nextra == 1 ? "" : "s", b.data ? b.data : "");
		buf_free(&b);
	}
	return hint(cmd);
}

/* Whether option text a ("--name", "--name=v", "-o", "-qo") wants the next argument as its value. */
static bool wants_value(const char *a, const char *shortopts, const struct option *longopts)
{
	if (a[1] == '-') {
		const char *name = a + 2;
		if (strchr(name, '='))
			return false;
		size_t n = strlen(name);
		const struct option *hit = NULL;
		for (const struct option *o = longopts; o && o->name; o++) {
			if (strncmp(o->name, name, n) != 0)
				continue;
			if (strlen(o->name) == n)
				return o->has_arg == required_argument; /* exact */
			hit = hit ? hit : o; /* an abbreviation: the first it fits */
		}
		return hit && hit->has_arg == required_argument;
	}
	for (const char *c = a + 1; *c; c++) {
		const char *p = *c != ':' ? strchr(shortopts, *c) : NULL;
		if (p && p[1] == ':')
			return c[1] == '\0'; /* "-o" alone; "-ovalue" carries it */
	}
	return false;
}

static char **ordered; /* the last ordering: kept for the process's life */

int cmd_order_args(int argc, char **argv, const char *shortopts, const struct option *longopts, char ***out)
{
	free(ordered);
	char **opts = xcalloc((size_t)argc + 2, sizeof(char *)), **rest = xcalloc((size_t)argc + 1, sizeof(char *));
	int no = 0, nr = 0;
	opts[no++] = argv[0];
	bool done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!done && strcmp(a, "--") == 0) {
			done = true;
		} else if (!done && a[0] == '-' && a[1] && !strpbrk(a, " \t\n\r")) {
			opts[no++] = argv[i];
			if (wants_value(a, shortopts, longopts)) {
				if (i + 1 == argc) {
					/* its value is missing: left last, getopt says so */
					opts[no] = NULL;
					free(rest);
					*out = ordered = opts;
					return no;
				}
				opts[no++] = argv[++i];
			}
		} else {
			rest[nr++] = argv[i];
		}
	}
	opts[no++] = "--";
	memcpy(opts + no, rest, (size_t)nr * sizeof(char *));
	free(rest);
	opts[no + nr] = NULL;
	*out = ordered = opts;
	return no + nr;
}
