/* cmd_ingest.c: `ncclforensic ingest INPUT [-o CASE.db]`. */
#include <getopt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case_db.h"
#include "cmd_options.h"
#include "commands.h"
#include "ingest.h"
#include "util.h"
#include "verdict_print.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: " NF_PROG " ingest INPUT [-o CASE.db] [options]\n"
		"  INPUT                 a job's logs: .tar, .tar.gz/.zst/.xz, .zip, a directory or a single file;\n"
		"                        - reads standard input (an archive or a log; then -o is needed)\n"
		"  -o, --output FILE     the case database (default: INPUT's name with .db, next to it)\n"
		"  -q, --quiet           no progress line, no summary; errors still go to stderr\n"
		"  --force               replace CASE.db even when it is not a case\n"
		"  --grammar-dir DIR     more .rules files (repeatable; also $NCCLFORENSIC_GRAMMARS)\n"
		"  --no-analyze          load only; run '" NF_PROG " analyze' later\n"
		"  -j, --jobs N          threads that read members (default: the CPUs this process may use;\n"
		"                        1: the reading thread alone); the case is the same whatever N\n"
		"  --max-line BYTES      bytes kept of one line (default 65536, at most 256M; the rest is counted)\n"
		"  --max-total-bytes N   stop reading past N uncompressed bytes (default 256 GiB)\n"
		"  --max-member-bytes N  largest member read (default 64 GiB)\n"
		"  --max-ratio R         stop when the input expands more than R times (default 1000)\n"
		"  --max-depth N         archives nested in archives, levels (default 3)\n");
}

/* job123.tar.gz -> job123.db next to it; a directory named "." or ".."
 * (or ending so) is named after its real name: `ingest .` in /x/job7 writes
 * /x/job7.db */
static char *default_output(const char *input)
{
	static const char *const sufs[] = {".tar.gz", ".tar.zst", ".tar.xz", ".tar.bz2", ".tgz", ".tzst",
					   ".txz", ".tar", ".zip", ".gz", ".zst", ".xz", ".log", ".txt"};
	char *base = xstrdup(input);
	size_t n = strlen(base);
	while (n > 1 && base[n - 1] == '/')
		base[--n] = '\0';
	const char *last = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;
	if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0) {
		char *real = realpath(base, NULL);
		free(base);
		if (!real || strcmp(real, "/") == 0) {
			free(real);
			return NULL; /* no name to give it: the caller asks for -o */
		}
		base = real;
	}
	for (size_t i = 0; i < ARRAY_LEN(sufs); i++)
		if (str_ends(base, sufs[i]) && strlen(base) > strlen(sufs[i])) {
			base[strlen(base) - strlen(sufs[i])] = '\0';
			break;
		}
	char *out = xasprintf("%s.db", base);
	free(base);
	return out;
}

/* Whether path holds a case (an SQLite file with a schema version), read
 * without the case's functions (nothing of it runs). */
static bool is_case(const char *path)
{
	sqlite3 *db = NULL;
	bool yes = false;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		sqlite3_stmt *st = NULL;
		yes = sqlite3_prepare_v2(db, "SELECT 1 FROM meta WHERE key = 'schema_version'", -1, &st, NULL) ==
			      SQLITE_OK &&
		      sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return yes;
}

/* The evidence is never harmed: the output may replace a case, not the
 * input nor any other file (unless force). 0, or an exit code. */
static int check_output(const char *input, const char *output, bool force)
{
	struct stat out_st, in_st;
	if (stat(output, &out_st) != 0)
		return 0; /* nothing there (or a dangling link, which the rename replaces) */
	if (stat(input, &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
		diag_error("%s is the input: it is not replaced by the case (name the case with -o)", output);
		return NF_EXIT_USAGE;
	}
	if (S_ISDIR(out_st.st_mode)) {
		diag_error("%s is a directory: name the case file with -o DIR/NAME.db", output);
		return NF_EXIT_USAGE;
	}
	if (!force && !is_case(output)) {
		diag_error("%s exists and is not a case: not replaced (--force to replace it)", output);
		return NF_EXIT_USAGE;
	}
	return 0;
}

static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return false;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	case 't': case 'T': v <<= 40; end++; break;
	default: break;
	}
	if (*end)
		return false;
	*out = v;
	return true;
}

/* Standard input into TMPDIR/ncclforensic-stdin-XXXXXX/stdin; its path, or
 * NULL having said why. */
static char *spool_stdin(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/" NF_PROG "-stdin-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		diag_error("ingest -: cannot make a temporary directory %s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	char *path = xasprintf("%s/stdin", dir);
	free(dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	bool ok = fd >= 0;
	char buf[1 << 16];
	ssize_t n;
	while (ok && (n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ok = false;
			break;
		}
		for (ssize_t off = 0; ok && off < n;) {
			ssize_t w = write(fd, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			ok = w > 0;
			off += w > 0 ? w : 0;
		}
	}
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (!ok) {
		diag_error("ingest -: cannot keep standard input in %s: %s", path, strerror(errno));
		unlink(path);
		*strrchr(path, '/') = '\0';
		rmdir(path);
		free(path);
		return NULL;
	}
	return path;
}

static int bad_value(const char *opt, const char *val, const char *want)
{
	diag_error("ingest: %s '%s': wants %s", opt, val, want);
	fprintf(stderr, "try '" NF_PROG " ingest --help'\n");
	return NF_EXIT_USAGE;
}

int cmd_ingest(int argc, char **argv)
{
	struct ingest_opts o;
	ingest_default_opts(&o);
	o.progress = true;
	const char *dirs[64];
	size_t ndirs = 0;
	char *output = NULL;
	bool force = false;
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},        {"quiet", no_argument, NULL, 'q'},
		{"force", no_argument, NULL, 'F'},               {"no-analyze", no_argument, NULL, 'N'},
		{"grammar-dir", required_argument, NULL, 'g'},   {"max-line", required_argument, NULL, 'L'},
		{"max-total-bytes", required_argument, NULL, 'T'}, {"max-member-bytes", required_argument, NULL, 'M'},
		{"max-ratio", required_argument, NULL, 'R'},     {"max-depth", required_argument, NULL, 'D'},
		{"jobs", required_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},                {"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	char **av;
	argc = cmd_order_args(argc, argv, "o:qhVj:", opts, &av);
	argv = av;
	cmd_getopt_begin();
	int c;
	while ((c = getopt_long(argc, argv, "+:o:qhVj:", opts, NULL)) != -1) {
		uint64_t n;
		char *end;
		switch (c) {
		case 'o':
			free(output);
			output = xstrdup(optarg);
			break;
		case 'q': o.quiet = true; break;
		case 'j': {
			long j = strtol(optarg, &end, 10);
			if (*end || end == optarg || j < 1 || j > 1024) {
				free(output);
				return bad_value("--jobs", optarg, "a number from 1 to 1024");
			}
			o.jobs = (int)j;
			break;
		}
		case 'F': force = true; break;
		case 'N': o.analyze = false; break;
		case 'g':
			if (ndirs == ARRAY_LEN(dirs)) {
				diag_error("ingest: more than %zu --grammar-dir", ARRAY_LEN(dirs));
				free(output);
				return NF_EXIT_USAGE;
			}
			dirs[ndirs++] = optarg;
			break;
		case 'L':
			if (!parse_size(optarg, &n) || n == 0) {
				free(output);
				return bad_value("--max-line", optarg, "a size (64K, 1M)");
			}
			if (n > INGEST_MAX_LINE_CAP) {
				/* a line is stored in a block and read back as one SQLite
				 * value, whose limit is 10^9 bytes */
				diag_error("ingest: --max-line %s is above the largest line a case can store (%u MiB)", optarg,
					   INGEST_MAX_LINE_CAP >> 20);
				free(output);
				return NF_EXIT_USAGE;
			}
			o.max_line = (size_t)n;
			break;
		case 'T':
		case 'M':
			if (!parse_size(optarg, &n)) {
				free(output);
				return bad_value(c == 'T' ? "--max-total-bytes" : "--max-member-bytes", optarg, "a size (10G, 512M)");
			}
			if (c == 'T')
				o.limits.max_total_bytes = n;
			else
				o.limits.max_member_bytes = n;
			break;
		case 'R': {
			double r = strtod(optarg, &end);
			if (*end || !(r > 0)) {
				free(output);
				return bad_value("--max-ratio", optarg, "a number above 0");
			}
			o.limits.max_ratio = r;
			break;
		}
		case 'D': {
			long d = strtol(optarg, &end, 10);
			if (*end || d < 0 || d > 1000) {
				free(output);
				return bad_value("--max-depth", optarg, "a number from 0 to 1000");
			}
			o.limits.max_depth = (int)d;
			break;
		}
		case 'h': usage(stdout); free(output); return NF_EXIT_OK;
		case 'V': free(output); return cmd_version();
		default: free(output); return cmd_option_error("ingest", c, argv);
		}
	}
	if (argc - optind != 1) {
		free(output);
		return cmd_args_error("ingest", optind >= argc ? "the logs to read (an archive, a directory or a file)" : NULL,
				      argv + optind + 1, argc - optind - 1);
	}
	o.input = argv[optind];
	/* "-": standard input (an archive or a log), spooled to a file first:
	 * the archive reader needs to bid on its first bytes, and the case
	 * names it "stdin" */
	char *spool = NULL;
	if (strcmp(o.input, "-") == 0) {
		if (!output) {
			diag_error("ingest -: name the case with -o CASE.db");
			return NF_EXIT_USAGE;
		}
		if (!(spool = spool_stdin())) {
			free(output);
			return NF_EXIT_NOTHING;
		}
		o.input = spool;
	}
	if (!output && !(output = default_output(o.input))) {
		diag_error("%s: no name for the case: name it with -o CASE.db", o.input);
		return NF_EXIT_USAGE;
	}
	int bad = check_output(o.input, output, force);
	if (bad) {
		free(output);
		return bad;
	}
	o.output = output;
	o.grammar_dirs = dirs;
	o.n_grammar_dirs = ndirs;
	diag_quiet = false;
	struct ingest_summary sum;
	int rc = ingest_run(&o, &sum);
	if (rc == NF_EXIT_OK || rc == NF_EXIT_INPUT) {
		if (!o.quiet) {
			fprintf(stderr, "%s: %llu members, %llu lines (%llu skipped, %llu truncated), %llu events",
				o.output, (unsigned long long)sum.members, (unsigned long long)sum.lines,
				(unsigned long long)sum.skipped_lines, (unsigned long long)sum.truncated_lines,
				(unsigned long long)sum.events);
			if (sum.input_errors)
				fprintf(stderr, ", %ld input problem(s) reported above", sum.input_errors);
			fputc('\n', stderr);
		}
		if (sum.unrecognised) {
			/* said plainly, not as a verdict of "unknown" */
			diag_error("%s: nothing in it was recognised as a job's logs (no NCCL, PyTorch, launcher or "
				   "kernel line, no flight-recorder dump); the case %s holds its lines",
				   o.input, o.output);
			/* unless input was cut: what was recognisable may be what was lost */
			if (!sum.input_cut)
				rc = NF_EXIT_UNRECOGNISED;
		} else if (o.analyze) {
			struct errbuf err;
			sqlite3 *db = case_open(o.output, true, &err);
			if (db) {
				verdict_print_summary(db, stdout);
				case_close(db);
			}
		}
	}
	free(output);
	if (spool) {
		unlink(spool);
		char *slash = strrchr(spool, '/');
		*slash = '\0';
		rmdir(spool);
		free(spool);
	}
	return rc;
}
