/* cmd_report.c: `ncclforensic report CASE.db [--format md|text|json|html]
 * [-o FILE] [--redact] [--width N]`: a report for an incident ticket, built
 * from the case only (same case, same bytes: no current time in it). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "atomic_file.h"
#include "case_db.h"
#include "cmd_options.h"
#include "commands.h"
#include "report_model.h"
#include "util.h"

/* the report is written out each time it would grow past this */
#define REPORT_DRAIN_AT (1 << 20)

enum fmt { FMT_MD, FMT_TEXT, FMT_JSON, FMT_HTML };

static void usage(FILE *out)
{
	fprintf(out, "usage: " NF_PROG " report CASE.db [--format md|text|json|html] [-o FILE] [--redact] [--width N]\n"
		     "  -f, --format FMT   md (Markdown, the default; also 'markdown'), text (plain, wrapped),\n"
		     "                     json (docs/report-json.md), html (one self-contained file with a timeline)\n"
		     "  -o, --output FILE  write there instead of standard output\n"
		     "  --redact           replace host names, IP addresses, user paths and pids by stable aliases\n"
		     "  --width N          line width of --format text (default: the terminal's, else 80)\n");
}

static bool parse_format(const char *s, enum fmt *f)
{
	static const struct {
		const char *name;
		enum fmt f;
	} names[] = {{"md", FMT_MD}, {"markdown", FMT_MD}, {"text", FMT_TEXT}, {"txt", FMT_TEXT},
		     {"json", FMT_JSON}, {"html", FMT_HTML}};
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		if (strcmp(s, names[i].name) == 0) {
			*f = names[i].f;
			return true;
		}
	return false;
}

static int term_width(bool to_file)
{
	struct winsize ws;
	if (!to_file && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	return 80;
}

/* Writes what the report's buffer still holds to f (where the buffer
 * drained the rest as it grew); for a file (af), renames it into place once
 * it is whole, or leaves the target as it was. */
static int write_out(FILE *f, struct atomic_file *af, const struct buf *b)
{
	size_t n = b->len ? fwrite(b->data, 1, b->len, f) : 0;
	int bad = n != b->len || fflush(f) != 0 || ferror(f) || (b->drain && ferror(b->drain));
	int why = errno;
	if (af)
		bad |= fclose(f) != 0;
	if (bad) {
		diag_error("cannot write %s: %s", af ? af->target : "the report", why ? strerror(why) : "write error");
		if (af)
			atomic_file_abort(af);
		return NF_EXIT_WRITE;
	}
	struct errbuf err;
	if (af && atomic_file_commit(af, &err) < 0) {
		diag_error("%s", err.msg);
		return NF_EXIT_WRITE;
	}
	return NF_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	const char *path = NULL, *output = NULL;
	enum fmt fmt = FMT_MD;
	struct report_opts o = {0};
	int width = 0;
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
		{"redact", no_argument, NULL, 'r'},       {"width", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;
	char **av;
	argc = cmd_order_args(argc, argv, "f:o:hV", opts, &av);
	argv = av;
	cmd_getopt_begin();
	while ((c = getopt_long(argc, argv, "+:f:o:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!parse_format(optarg, &fmt)) {
				diag_error("report: unknown format '%s' (md, text, json or html)", optarg);
				return NF_EXIT_USAGE;
			}
			break;
		case 'o': output = optarg; break;
		case 'r': o.redact = true; break;
		case 'w': {
			char *end;
			long w = strtol(optarg, &end, 10);
			if (*end || w < 20 || w > 1000) {
				diag_error("report: --width wants a number from 20 to 1000");
				return NF_EXIT_USAGE;
			}
			width = (int)w;
			break;
		}
		case 'h': usage(stdout); return NF_EXIT_OK;
		case 'V': return cmd_version();
		default: return cmd_option_error("report", c, argv);
		}
	}
	if (argc - optind != 1)
		return cmd_args_error("report", optind >= argc ? "the case to report on (CASE.db)" : NULL,
				      argv + optind + 1, argc - optind - 1);
	path = argv[optind];
	sqlite3 *db = case_open_or_say(path, true);
	if (!db)
		return NF_EXIT_NOTHING;
	struct errbuf err;
	o.timeline = fmt == FMT_HTML;
	struct report_model m;
	if (report_model_load(db, &o, &m, &err) != 0) {
		diag_error("%s: %s", path, err.msg);
		case_close(db);
		return NF_EXIT_NOTHING;
	}
	case_close(db);
	/* a file is written beside the target and renamed over it when whole:
	 * never through a symlink there, never cut short under its name */
	struct atomic_file af;
	FILE *f = stdout;
	if (output) {
		int fd = -1;
		if (atomic_file_begin(&af, output, "the report", &err) < 0 || (fd = dup(af.fd)) < 0 ||
		    !(f = fdopen(fd, "wb"))) {
			diag_error("%s", err.msg);
			if (fd >= 0)
				close(fd);
			report_model_free(&m);
			return NF_EXIT_WRITE;
		}
		atomic_file_default_mode(&af);
	}
	/* written as it is built (the text format trims what it wrote: whole) */
	struct buf out = {.drain = fmt == FMT_TEXT ? NULL : f, .drain_at = REPORT_DRAIN_AT};
	switch (fmt) {
	case FMT_MD: report_md(&m, &out); break;
	case FMT_TEXT: report_text(&m, width ? width : term_width(output != NULL), &out); break;
	case FMT_JSON: report_json(&m, &out); break;
	case FMT_HTML: report_html(&m, &out); break;
	}
	report_model_free(&m);
	errno = 0;
	int rc = write_out(f, output ? &af : NULL, &out);
	buf_free(&out);
	return rc;
}
