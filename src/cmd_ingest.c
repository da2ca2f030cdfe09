/* cmd_ingest.c: `ncclforensic ingest INPUT [-o CASE.db]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case_db.h"
#include "commands.h"
#include "ingest.h"
#include "util.h"
#include "verdict_print.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: " NF_PROG " ingest INPUT [-o CASE.db] [options]\n"
		"  INPUT                 a job's logs: .tar, .tar.gz/.zst/.xz, .zip, a directory or a single file\n"
		"  -o, --output FILE     the case database (default: INPUT's name with .db, next to it)\n"
		"  -q, --quiet           no progress line, no summary; errors still go to stderr\n"
		"  --force               replace CASE.db even when it is not a case\n"
		"  --grammar-dir DIR     more .rules files (repeatable; also $NCCLFORENSIC_GRAMMARS)\n"
		"  --no-analyze          load only; run '" NF_PROG " analyze' later\n"
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

int cmd_ingest(int argc, char **argv)
{
	struct ingest_opts o;
	ingest_default_opts(&o);
	o.progress = true;
	const char *dirs[64];
	size_t ndirs = 0;
	char *output = NULL;
	bool force = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t n;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return NF_EXIT_OK;
		} else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && val) {
			output = xstrdup(val);
			i++;
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			o.quiet = true;
		} else if (strcmp(a, "--force") == 0) {
			force = true;
		} else if (strcmp(a, "--no-analyze") == 0) {
			o.analyze = false;
		} else if (strcmp(a, "--grammar-dir") == 0 && val && ndirs < ARRAY_LEN(dirs)) {
			dirs[ndirs++] = val;
			i++;
		} else if (strcmp(a, "--max-line") == 0 && val && parse_size(val, &n) && n > 0) {
			if (n > INGEST_MAX_LINE_CAP) {
				/* a line is stored in a block and read back as one SQLite
				 * value, whose limit is 10^9 bytes */
				fprintf(stderr, NF_PROG " ingest: --max-line %s is above the largest line a case can "
						"store (%u MiB)\n", val, INGEST_MAX_LINE_CAP >> 20);
				free(output);
				return NF_EXIT_USAGE;
			}
			o.max_line = (size_t)n;
			i++;
		} else if (strcmp(a, "--max-total-bytes") == 0 && val && parse_size(val, &n)) {
			o.limits.max_total_bytes = n;
			i++;
		} else if (strcmp(a, "--max-member-bytes") == 0 && val && parse_size(val, &n)) {
			o.limits.max_member_bytes = n;
			i++;
		} else if (strcmp(a, "--max-ratio") == 0 && val && atof(val) > 0) {
			o.limits.max_ratio = atof(val);
			i++;
		} else if (strcmp(a, "--max-depth") == 0 && val && atoi(val) >= 0) {
			o.limits.max_depth = atoi(val);
			i++;
		} else if (a[0] != '-' && !o.input) {
			o.input = a;
		} else {
			fprintf(stderr, NF_PROG " ingest: bad argument '%s'\n", a);
			usage(stderr);
			free(output);
			return NF_EXIT_USAGE;
		}
	}
	if (!o.input) {
		usage(stderr);
		return NF_EXIT_USAGE;
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
	return rc;
}
