/* fuzz_ingest.c: the whole ingest pipeline on one input file (a log, a
 * pickle or an archive, by the name the first byte picks): walk, classify,
 * split, parse, match, store line blocks and events, write the case with
 * SQLite, attribution (no analysis). Needs grammars/ next to the binary
 * (make fuzz-build links it). Checks: the exit code is one of the
 * documented ones, and a written case keeps every line: rows of `lines` plus
 * skipped lines equal the lines the sources saw; for an input that is one
 * plain file (no archive, no compression), they also equal the
 * physical lines of the input counted here, on its own ("\n", "\r\n" and
 * "\r" end a line; a last line without one counts; a pickle's or a binary
 * file's lines are counted so too), and each row of
 * `lines` is that physical line (cut at --max-line): whatever the parser
 * re-joins or splits is events, never a change to `lines`. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_walk.h"
#include "case_db.h"
#include "ingest.h"

/* The physical lines of a plain input, as a reader of the file sees them:
 * their count; *at (if not NULL) gets the start and length of each. */
static size_t physical_lines(const uint8_t *p, size_t n, size_t **starts, size_t **lens)
{
	size_t count = 0, cap = 0, begin = 0;
	*starts = *lens = NULL;
	for (size_t i = 0; i <= n; i++) {
		bool end = i == n ? begin < n : p[i] == '\n' || p[i] == '\r';
		if (!end)
			continue;
		if (count == cap) {
			cap = cap ? cap * 2 : 64;
			*starts = realloc(*starts, cap * sizeof(size_t));
			*lens = realloc(*lens, cap * sizeof(size_t));
		}
		(*starts)[count] = begin;
		(*lens)[count] = i - begin;
		count++;
		if (i < n && p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
			i++;
		begin = i + 1;
	}
	return count;
}

static char dir[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "/tmp/nf-fuzz-ingest-%ld", (long)getpid());
	mkdir(dir, 0700);
	diag_quiet = true;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"rank3.log", "console.log", "dmesg.txt", "nccl_trace_rank_2",
					    "job.tar.gz", "job.tar", "kern.log", "nccl_debug.0.txt"};
	if (size < 1)
		return 0;
	char in[128], out[128];
	snprintf(in, sizeof(in), "%s/%s", dir, names[data[0] % 8]);
	snprintf(out, sizeof(out), "%s/case.db", dir);
	FILE *f = fopen(in, "wb");
	if (!f)
		return 0;
	fwrite(data + 1, 1, size - 1, f);
	fclose(f);

	struct ingest_opts o;
	ingest_default_opts(&o);
	o.input = in;
	o.output = out;
	o.quiet = true;
	o.analyze = false;
	o.max_line = 512;
	o.limits.max_total_bytes = 8 << 20;
	struct ingest_summary sum;
	int rc = ingest_run(&o, &sum);
	if (rc != NF_EXIT_OK && rc != NF_EXIT_INPUT && rc != NF_EXIT_NOTHING && rc != NF_EXIT_UNRECOGNISED) {
		fprintf(stderr, "fuzz_ingest: exit code %d\n", rc);
		abort();
	}
	if (rc != NF_EXIT_NOTHING) {
		struct errbuf err;
		sqlite3 *db = case_open(out, true, &err);
		if (!db)
			abort();
		int64_t rows = db_int(db, "SELECT count(*) FROM lines", -1);
		int64_t stored = db_int(db, "SELECT coalesce(sum(stored_lines),0) FROM sources", -2);
		int64_t lines = db_int(db, "SELECT coalesce(sum(lines),0) FROM sources", -3);
		int64_t skipped = db_int(db, "SELECT coalesce(sum(skipped_lines),0) FROM sources", -4);
		if (rows != stored || rows + skipped != lines) {
			fprintf(stderr, "fuzz_ingest: rows %lld stored %lld skipped %lld lines %lld\n", (long long)rows,
				(long long)stored, (long long)skipped, (long long)lines);
			abort();
		}
		/* one plain file: the physical lines, counted and compared here */
		const uint8_t *body = data + 1;
		size_t n = size - 1;
		bool plain = !member_is_container(in, body, n < 4096 ? n : 4096) && n <= o.limits.max_total_bytes;
		if (plain) {
			size_t *starts, *lens;
			size_t phys = physical_lines(body, n, &starts, &lens);
			if ((int64_t)phys != rows + skipped) {
				fprintf(stderr, "fuzz_ingest: %zu physical lines, %lld rows + %lld skipped\n", phys,
					(long long)rows, (long long)skipped);
				abort();
			}
			if (rows > 0) {
				sqlite3_stmt *st = db_prepare(db, "SELECT line_no, text FROM lines ORDER BY line_no");
				size_t k = 0;
				while (sqlite3_step(st) == SQLITE_ROW) {
					int64_t no = sqlite3_column_int64(st, 0);
					size_t len = (size_t)sqlite3_column_bytes(st, 1);
					const void *t = sqlite3_column_blob(st, 1);
					size_t want = lens[k] < o.max_line ? lens[k] : o.max_line;
					if (no != (int64_t)k + 1 || len != want || (len && memcmp(t, body + starts[k], len) != 0)) {
						fprintf(stderr, "fuzz_ingest: line %zu of the input is not row %lld of lines\n",
							k + 1, (long long)no);
						abort();
					}
					k++;
				}
				sqlite3_finalize(st);
				if ((int64_t)k != rows)
					abort();
			}
			free(starts);
			free(lens);
		}
		case_close(db);
	}
	unlink(out);
	unlink(in);
	return 0;
}
