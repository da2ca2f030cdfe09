/* fuzz_ingest.c: the whole ingest pipeline on one input file (a log, a
 * pickle or an archive, by the name the first byte picks): walk, classify,
 * split, parse, match, store line blocks and events, write the case with
 * SQLite, attribution (no analysis). Needs grammars/ next to the binary
 * (make fuzz-build links it). Checks: the exit code is one of the
 * documented ones, and a written case keeps every line: rows of `lines` plus
 * skipped lines equal the lines the sources saw. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case_db.h"
#include "ingest.h"

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
	if (rc != NF_EXIT_OK && rc != NF_EXIT_INPUT && rc != NF_EXIT_NOTHING) {
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
		case_close(db);
	}
	unlink(out);
	unlink(in);
	return 0;
}
