/* cmd_tui.c: `ncclforensic tui CASE.db` and `ncclforensic view ARCHIVE`
 * (ingest into a temporary case, browse it, remove it at exit). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <locale.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_options.h"
#include "commands.h"
#include "ingest.h"
#include "tui_run.h"
#include "tui_term.h"
#include "util.h"

static void usage(FILE *out, bool view)
{
	if (view)
		fprintf(out, "usage: " NF_PROG " view ARCHIVE|DIR|FILE [options]\n"
			     "  ingests the logs into a temporary case, opens it like 'tui', removes it at exit\n"
			     "  -q, --quiet          no ingest progress or summary\n"
			     "  --grammar-dir DIR    more .rules files (repeatable)\n");
	else
		fprintf(out, "usage: " NF_PROG " tui CASE.db [options]\n"
			     "  browses a case: timeline, events, lines, findings, SQL (? in the UI lists the keys)\n");
	fprintf(out, "  --ascii              ASCII line drawing (the default outside UTF-8 locales)\n"
		     "  --no-color           no colours (so does NO_COLOR=1)\n"
		     "  --script KEYS        headless: press KEYS (docs/tui.md: <Enter>, <Down>, <PgDn>, \\n ...)\n"
		     "  --dump-screen FILE   with --script: write the final screen as text to FILE (- for stdout)\n"
		     "  --size WxH           with --script: the screen size (default 80x24)\n"
		     "  --timing             with --script: report the time per key on stderr\n");
}

static bool parse_size(const char *s, int *cols, int *rows)
{
	int w, h, n = 0;
	if (sscanf(s, "%dx%d%n", &w, &h, &n) != 2 || s[n] || w < 10 || h < 3 || w > 1000 || h > 1000)
		return false;
	*cols = w;
	*rows = h;
	return true;
}

/* Options shared by tui and view; returns 1 if argv[*i] was one, 0 if not,
 * -1 on a bad value. */
static int check_opts(const struct tui_opts *o, bool view)
{
	if (o->dump_path && !o->script) {
		diag_error("%s: --dump-screen needs --script (use --script '' for the first screen)", view ? "view" : "tui");
		fprintf(stderr, "try '" NF_PROG " %s --help'\n", view ? "view" : "tui");
		return -1;
	}
	return 0;
}

static void init_opts(struct tui_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cols = 80;
	o->rows = 24;
	setlocale(LC_ALL, "");
}

/* The options of tui and view (view also: -q, --grammar-dir, and ARCHIVE
 * where tui has CASE.db). Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, bool view, struct tui_opts *o, struct ingest_opts *io, const char **dirs,
		      size_t max_dirs, size_t *ndirs)
{
	const char *cmd = view ? "view" : "tui";
	static const struct option opts[] = {
		{"ascii", no_argument, NULL, 'a'},           {"no-color", no_argument, NULL, 'C'},
		{"no-colour", no_argument, NULL, 'C'},       {"timing", no_argument, NULL, 't'},
		{"script", required_argument, NULL, 's'},    {"dump-screen", required_argument, NULL, 'd'},
		{"size", required_argument, NULL, 'S'},      {"quiet", no_argument, NULL, 'q'},
		{"grammar-dir", required_argument, NULL, 'g'}, {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},         {NULL, 0, NULL, 0},
	};
	char **av;
	argc = cmd_order_args(argc, argv, "qhV", opts, &av);
	argv = av;
	cmd_getopt_begin();
	int c;
	while ((c = getopt_long(argc, argv, "+:qhV", opts, NULL)) != -1) {
		if (!view && (c == 'q' || c == 'g')) {
			optopt = 0;
			c = '?';
		}
		switch (c) {
		case 'a': o->ascii = true; break;
		case 'C': o->no_color = true; break;
		case 't': o->timing = true; break;
		case 's': o->script = optarg; break;
		case 'd': o->dump_path = optarg; break;
		case 'S':
			if (!parse_size(optarg, &o->cols, &o->rows)) {
				diag_error("%s: --size wants WxH, like 80x24 (at least 10x3)", cmd);
				return NF_EXIT_USAGE;
			}
			break;
		case 'q': io->quiet = true; break;
		case 'g':
			if (*ndirs == max_dirs) {
				diag_error("view: more than %zu --grammar-dir", max_dirs);
				return NF_EXIT_USAGE;
			}
			dirs[(*ndirs)++] = optarg;
			break;
		case 'h': usage(stdout, view); return NF_EXIT_OK;
		case 'V': return cmd_version();
		default: return cmd_option_error(cmd, c, argv);
		}
	}
	if (argc - optind != 1)
		return cmd_args_error(cmd, optind < argc ? NULL : view ? "the logs to view (an archive, a directory or a file)"
									: "the case to browse (CASE.db)",
				      argv + optind + 1, argc - optind - 1);
	if (view)
		io->input = argv[optind];
	else
		o->case_path = argv[optind];
	return check_opts(o, view) < 0 ? NF_EXIT_USAGE : -1;
}

int cmd_tui(int argc, char **argv)
{
	struct tui_opts o;
	init_opts(&o);
	struct ingest_opts unused;
	ingest_default_opts(&unused);
	size_t ndirs = 0;
	int rc = parse_args(argc, argv, false, &o, &unused, NULL, 0, &ndirs);
	if (rc >= 0)
		return rc;
	return tui_run(&o);
}

int cmd_view(int argc, char **argv)
{
	struct tui_opts o;
	init_opts(&o);
	struct ingest_opts io;
	ingest_default_opts(&io);
	const char *dirs[64];
	size_t ndirs = 0;
	int rc = parse_args(argc, argv, true, &o, &io, dirs, ARRAY_LEN(dirs), &ndirs);
	if (rc >= 0)
		return rc;
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/" NF_PROG "-view-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		diag_error("view: cannot make a temporary directory %s: %s", dir, strerror(errno));
		free(dir);
		return NF_EXIT_INTERNAL;
	}
	char *case_path = xasprintf("%s/case.db", dir);
	/* removed at exit and on fatal signals: the case, then its directory */
	tui_term_remove_at_exit(case_path);
	tui_term_remove_at_exit(dir);
	io.output = case_path;
	io.grammar_dirs = dirs;
	io.n_grammar_dirs = ndirs;
	io.progress = !io.quiet && isatty(STDERR_FILENO);
	diag_quiet = io.quiet;
	struct ingest_summary sum;
	rc = ingest_run(&io, &sum);
	if (rc == NF_EXIT_OK || rc == NF_EXIT_INPUT) {
		const char *slash = strrchr(io.input, '/');
		o.case_path = case_path;
		o.case_name = slash && slash[1] ? slash + 1 : io.input;
		rc = tui_run(&o);
	}
	unlink(case_path);
	rmdir(dir);
	free(case_path);
	free(dir);
	return rc;
}
