/* cmd_tui.c: `ncclforensic tui CASE.db` and `ncclforensic view ARCHIVE`
 * (ingest into a temporary case, browse it, remove it at exit). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static int tui_option(int argc, char **argv, int *i, struct tui_opts *o)
{
	const char *a = argv[*i];
	const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
	if (strcmp(a, "--ascii") == 0) {
		o->ascii = true;
	} else if (strcmp(a, "--no-color") == 0 || strcmp(a, "--no-colour") == 0) {
		o->no_color = true;
	} else if (strcmp(a, "--timing") == 0) {
		o->timing = true;
	} else if (strcmp(a, "--script") == 0 && val) {
		o->script = val;
		(*i)++;
	} else if (strcmp(a, "--dump-screen") == 0 && val) {
		o->dump_path = val;
		(*i)++;
	} else if (strcmp(a, "--size") == 0 && val) {
		if (!parse_size(val, &o->cols, &o->rows)) {
			fprintf(stderr, NF_PROG ": --size wants WxH, like 80x24 (at least 10x3)\n");
			return -1;
		}
		(*i)++;
	} else {
		return 0;
	}
	return 1;
}

static int check_opts(const struct tui_opts *o, bool view)
{
	if (o->dump_path && !o->script) {
		fprintf(stderr, NF_PROG ": --dump-screen needs --script (use --script '' for the first screen)\n");
		usage(stderr, view);
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

int cmd_tui(int argc, char **argv)
{
	struct tui_opts o;
	init_opts(&o);
	for (int i = 1; i < argc; i++) {
		int r = tui_option(argc, argv, &i, &o);
		if (r < 0)
			return NF_EXIT_USAGE;
		if (r)
			continue;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout, false);
			return NF_EXIT_OK;
		}
		if (argv[i][0] != '-' && !o.case_path) {
			o.case_path = argv[i];
			continue;
		}
		fprintf(stderr, NF_PROG " tui: bad argument '%s'\n", argv[i]);
		usage(stderr, false);
		return NF_EXIT_USAGE;
	}
	if (!o.case_path) {
		usage(stderr, false);
		return NF_EXIT_USAGE;
	}
	if (check_opts(&o, false) < 0)
		return NF_EXIT_USAGE;
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
	for (int i = 1; i < argc; i++) {
		int r = tui_option(argc, argv, &i, &o);
		if (r < 0)
			return NF_EXIT_USAGE;
		if (r)
			continue;
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout, true);
			return NF_EXIT_OK;
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			io.quiet = true;
		} else if (strcmp(a, "--grammar-dir") == 0 && i + 1 < argc && ndirs < ARRAY_LEN(dirs)) {
			dirs[ndirs++] = argv[++i];
		} else if (a[0] != '-' && !io.input) {
			io.input = a;
		} else {
			fprintf(stderr, NF_PROG " view: bad argument '%s'\n", a);
			usage(stderr, true);
			return NF_EXIT_USAGE;
		}
	}
	if (!io.input) {
		usage(stderr, true);
		return NF_EXIT_USAGE;
	}
	if (check_opts(&o, true) < 0)
		return NF_EXIT_USAGE;
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/" NF_PROG "-view-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, NF_PROG " view: cannot make a temporary directory %s: %s\n", dir, strerror(errno));
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
	int rc = ingest_run(&io, &sum);
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
