/* Unit tests for src/pickle_read.c.
 *
 * Build and run from the repository root:
 *   cc -std=c11 -Wall -Wextra -Isrc tests/unit/test_pickle_read.c src/pickle_read.c src/util.c \
 *      $(pkg-config --cflags --libs cmocka) -o test_pickle_read && ./test_pickle_read
 * (NF_SRCDIR=/path/to/repo runs it from elsewhere.) The corpus test extracts
 * the tarballs of testdata/corpus with tar(1) into a temporary directory.
 *
 * Expected values of the hand-written pickles and of the corpus were checked
 * against Python's pickle module when the test was written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pickle_read.h"
#include "util.h"

/* ---- helpers ----------------------------------------------------------- */

static char *path_of(const char *rel)
{
	const char *top = getenv("NF_SRCDIR");
	return xasprintf("%s/%s", top && *top ? top : ".", rel);
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		fail_msg("cannot open %s (run the test from the repository root or set NF_SRCDIR)", path);
	struct buf b = {0};
	char tmp[8192];
	size_t k;
	while ((k = fread(tmp, 1, sizeof(tmp), fp)) > 0)
		buf_append(&b, tmp, k);
	assert_false(ferror(fp));
	fclose(fp);
	*n = b.len;
	if (!b.data)
		return xcalloc(1, 1);
	return (unsigned char *)b.data;
}

/* A pk_read_fn over a FILE, at most chunk bytes a call. */
struct file_src {
	FILE *fp;
	size_t chunk;
};

static long file_read(void *ctx, void *buf, size_t n)
{
	struct file_src *s = ctx;
	if (s->chunk && n > s->chunk)
		n = s->chunk;
	size_t k = fread(buf, 1, n, s->fp);
	if (k == 0 && ferror(s->fp))
		return -1;
	return (long)k;
}

/* A pk_read_fn over memory, at most chunk bytes a call, failing after fail_at bytes. */
struct mem_src {
	const unsigned char *data;
	size_t n, off, chunk, fail_at;
};

static long mem_read(void *ctx, void *buf, size_t n)
{
	struct mem_src *s = ctx;
	if (s->fail_at && s->off >= s->fail_at)
		return -1;
	size_t k = s->n - s->off;
	if (k > n)
		k = n;
	if (s->chunk && k > s->chunk)
		k = s->chunk;
	if (s->fail_at && k > s->fail_at - s->off)
		k = s->fail_at - s->off;
	memcpy(buf, s->data + s->off, k);
	s->off += k;
	return (long)k;
}

static struct pk_doc *load_stream_path(const char *path, const struct pk_limits *lim, struct errbuf *err,
				       size_t chunk)
{
	struct file_src s = { fopen(path, "rb"), chunk };
	if (!s.fp)
		fail_msg("cannot open %s (run the test from the repository root or set NF_SRCDIR)", path);
	struct pk_doc *d = pickle_read(file_read, &s, lim, err);
	fclose(s.fp);
	return d;
}

static struct pk_doc *load_mem_path(const char *path, const struct pk_limits *lim, struct errbuf *err)
{
	size_t n;
	unsigned char *data = slurp(path, &n);
	struct pk_doc *d = pickle_read_mem(data, n, lim, err);
	free(data);
	return d;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A canonical text of a value: the same format as a small Python script
 * used to produce the expected strings (sets sorted, strings in hex). */
static void canon(struct buf *o, const struct pk_value *v)
{
	size_t n;
	const char *s;
	int64_t i;
	double f;
	switch (pk_type(v)) {
	case PK_NONE:
		buf_puts(o, "N");
		break;
	case PK_BOOL:
		assert_true(pk_int(v, &i));
		buf_puts(o, i ? "T" : "F");
		break;
	case PK_INT:
		assert_true(pk_int(v, &i));
		buf_printf(o, "i%lld", (long long)i);
		break;
	case PK_FLOAT:
		assert_true(pk_float(v, &f));
		buf_printf(o, "f%.17g", f);
		break;
	case PK_STR:
	case PK_BYTES:
		s = pk_str(v, &n);
		assert_non_null(s);
		assert_int_equal(s[n], '\0');
		buf_putc(o, pk_type(v) == PK_STR ? 's' : 'b');
		for (size_t k = 0; k < n; k++)
			buf_printf(o, "%02x", (unsigned char)s[k]);
		break;
	case PK_LIST:
	case PK_TUPLE:
		if (pk_is_set(v)) {
			size_t len = pk_len(v);
			char **items = xcalloc(len + 1, sizeof(*items));
			for (size_t k = 0; k < len; k++) {
				struct buf t = {0};
				canon(&t, pk_item(v, k));
				items[k] = t.data;
			}
			qsort(items, len, sizeof(*items), cmp_str);
			buf_putc(o, '<');
			for (size_t k = 0; k < len; k++) {
				buf_puts(o, items[k]);
				buf_putc(o, ',');
				free(items[k]);
			}
			buf_putc(o, '>');
			free(items);
			break;
		}
		buf_putc(o, pk_type(v) == PK_LIST ? '[' : '(');
		for (size_t k = 0; k < pk_len(v); k++) {
			canon(o, pk_item(v, k));
			buf_putc(o, ',');
		}
		buf_putc(o, pk_type(v) == PK_LIST ? ']' : ')');
		break;
	case PK_DICT:
		buf_putc(o, '{');
		for (size_t k = 0; k < pk_len(v); k++) {
			canon(o, pk_key(v, k));
			buf_putc(o, ':');
			canon(o, pk_item(v, k));
			buf_putc(o, ',');
		}
		buf_putc(o, '}');
		break;
	}
}

static char *canon_doc(const struct pk_doc *d)
{
	struct buf o = {0};
	canon(&o, pk_root(d));
	return o.data ? o.data : xstrdup("");
}

static const char *str_of(const struct pk_value *v)
{
	const char *s = pk_str(v, NULL);
	assert_non_null(s);
	return s;
}

static int64_t int_of(const struct pk_value *v)
{
	int64_t i = 0;
	assert_true(pk_int(v, &i));
	return i;
}

/* Parses bytes both ways (memory, and streamed a few bytes a call) and checks
 * that both give the expected canonical text. */
static void expect_canon(const char *data, size_t n, const char *want)
{
	struct errbuf err = {{0}};
	struct pk_doc *d = pickle_read_mem(data, n, NULL, &err);
	if (!d)
		fail_msg("parse failed: %s", err.msg);
	char *got = canon_doc(d);
	assert_string_equal(got, want);
	assert_int_equal(pk_doc_bytes(d), n);
	free(got);
	pk_doc_free(d);

	for (size_t chunk = 1; chunk <= 7; chunk += 3) {
		struct mem_src s = { (const unsigned char *)data, n, 0, chunk, 0 };
		d = pickle_read(mem_read, &s, NULL, &err);
		if (!d)
			fail_msg("streamed parse failed: %s", err.msg);
		got = canon_doc(d);
		assert_string_equal(got, want);
		free(got);
		pk_doc_free(d);
	}
}

/* Expects both ways to fail with the same message. */
static void expect_error_bytes(const char *data, size_t n, const struct pk_limits *lim, const char *want)
{
	struct errbuf err = {{0}};
	struct pk_doc *d = pickle_read_mem(data, n, lim, &err);
	assert_null(d);
	assert_string_equal(err.msg, want);

	struct mem_src s = { (const unsigned char *)data, n, 0, 3, 0 };
	memset(&err, 0, sizeof(err));
	d = pickle_read(mem_read, &s, lim, &err);
	assert_null(d);
	assert_string_equal(err.msg, want);
}

#define BYTES(lit) lit, sizeof(lit) - 1

/* ---- the real samples -------------------------------------------------- */

static void test_stall_sample(void **state)
{
	(void)state;
	char *path = path_of("testdata/pickles/stall_nccl_trace_rank_2");
	struct errbuf err = {{0}};
	struct pk_doc *d = load_stream_path(path, NULL, &err, 0);
	if (!d)
		fail_msg("%s: %s", path, err.msg);
	const struct pk_value *root = pk_root(d);
	assert_int_equal(pk_type(root), PK_DICT);
	assert_int_equal(pk_len(root), 5);
	const char *keys[] = { "version", "pg_config", "comm_lib_version", "pg_status", "entries" };
	for (size_t i = 0; i < ARRAY_LEN(keys); i++)
		assert_string_equal(str_of(pk_key(root, i)), keys[i]);
	assert_string_equal(str_of(pk_get(root, "version")), "2.10");
	assert_string_equal(str_of(pk_get(root, "comm_lib_version")), "2.28.9");
	assert_int_equal(pk_doc_bytes(d), 6258);

	const struct pk_value *cfg = pk_get(root, "pg_config");
	assert_int_equal(pk_type(cfg), PK_DICT);
	assert_int_equal(pk_len(cfg), 3);
	assert_string_equal(str_of(pk_get(pk_get(cfg, "2"), "desc")), "tp1");
	assert_string_equal(str_of(pk_get(pk_get(cfg, "2"), "ranks")), "[2, 3]");
	assert_string_equal(str_of(pk_get(pk_get(cfg, "0"), "desc")), "default_pg");

	const struct pk_value *st = pk_get(root, "pg_status");
	assert_int_equal(int_of(pk_get(pk_get(st, "0"), "last_started_collective")), -1);
	assert_int_equal(int_of(pk_get(pk_get(st, "2"), "last_completed_collective")), 21);
	assert_int_equal(int_of(pk_get(pk_get(st, "1"), "last_enqueued_collective")), 14);

	const struct pk_value *entries = pk_get(root, "entries");
	assert_int_equal(pk_type(entries), PK_LIST);
	assert_false(pk_is_set(entries));
	assert_int_equal(pk_len(entries), 36);

	const struct pk_value *e = pk_item(entries, 0);
	assert_int_equal(pk_type(e), PK_DICT);
	assert_int_equal(int_of(pk_get(e, "collective_seq_id")), 1);
	assert_int_equal(int_of(pk_get(e, "record_id")), 0);
	assert_string_equal(str_of(pk_get(e, "profiling_name")), "nccl:_all_gather_base");
	assert_string_equal(str_of(pk_get(e, "state")), "completed");
	assert_string_equal(str_of(pk_get(e, "thread_id")), "139813893128512");
	assert_true(pk_get(e, "time_created_ns") != NULL);
	assert_true(int_of(pk_get(e, "time_created_ns")) == INT64_C(1795996544180883433));
	assert_true(int_of(pk_get(e, "time_discovered_completed_ns")) == INT64_C(1795996545900156543));
	assert_true(pk_is_none(pk_get(e, "time_discovered_started_ns")));
	assert_null(pk_get(e, "duration_ms"));
	assert_int_equal(int_of(pk_get(e, "timeout_ms")), 20000);
	assert_int_equal(pk_type(pk_get(e, "retired")), PK_BOOL);
	assert_int_equal(int_of(pk_get(e, "retired")), 1);
	assert_int_equal(int_of(pk_get(e, "is_p2p")), 0);

	const struct pk_value *sizes = pk_get(e, "input_sizes");
	assert_int_equal(pk_type(sizes), PK_LIST);
	assert_int_equal(pk_len(sizes), 1);
	assert_int_equal(pk_len(pk_item(sizes, 0)), 1);
	assert_int_equal(int_of(pk_item(pk_item(sizes, 0), 0)), 65536);
	assert_int_equal(int_of(pk_item(pk_item(pk_get(e, "output_sizes"), 0), 0)), 131072);
	assert_string_equal(str_of(pk_item(pk_get(e, "input_dtypes"), 0)), "Float");

	const struct pk_value *pg = pk_get(e, "process_group");
	assert_int_equal(pk_type(pg), PK_TUPLE);
	assert_int_equal(pk_len(pg), 2);
	assert_string_equal(str_of(pk_item(pg, 0)), "2");
	assert_string_equal(str_of(pk_item(pg, 1)), "tp1");

	const struct pk_value *frames = pk_get(e, "frames");
	assert_int_equal(pk_len(frames), 3);
	assert_string_equal(str_of(pk_get(pk_item(frames, 0), "name")), "all_gather_into_tensor");
	assert_int_equal(int_of(pk_get(pk_item(frames, 0), "line")), 4186);
	assert_string_equal(str_of(pk_get(pk_item(frames, 2), "filename")), "/srv/mlops/jobs/pretrain/train.py");

	e = pk_item(entries, 35);
	assert_int_equal(int_of(pk_get(e, "collective_seq_id")), 21);
	assert_string_equal(str_of(pk_get(e, "profiling_name")), "nccl:all_reduce");
	assert_int_equal(int_of(pk_item(pk_item(pk_get(e, "input_sizes"), 0), 0)), 4096);
	assert_string_equal(str_of(pk_item(pk_get(e, "process_group"), 1)), "dp0");
	assert_null(pk_item(entries, 36));

	/* the same bytes from memory give the same tree */
	struct pk_doc *d2 = load_mem_path(path, NULL, &err);
	assert_non_null(d2);
	char *a = canon_doc(d), *b = canon_doc(d2);
	assert_string_equal(a, b);
	free(a);
	free(b);
	pk_doc_free(d2);
	pk_doc_free(d);
	free(path);
}

static void test_straggler_sample(void **state)
{
	(void)state;
	char *path = path_of("testdata/pickles/straggler_final_trace_rank_0");
	struct errbuf err = {{0}};
	struct pk_doc *d = load_mem_path(path, NULL, &err);
	if (!d)
		fail_msg("%s: %s", path, err.msg);
	const struct pk_value *entries = pk_get(pk_root(d), "entries");
	assert_int_equal(pk_len(entries), 103);

	const struct pk_value *e = pk_item(entries, 0);
	double ms = 0;
	assert_int_equal(pk_type(pk_get(e, "duration_ms")), PK_FLOAT);
	assert_true(pk_float(pk_get(e, "duration_ms"), &ms));
	assert_true(ms == 691.5904541015625);
	assert_false(pk_int(pk_get(e, "duration_ms"), NULL));
	assert_true(int_of(pk_get(e, "time_discovered_started_ns")) == INT64_C(1795996660758516138));
	assert_string_equal(str_of(pk_item(pk_get(e, "process_group"), 1)), "tp0");

	size_t with_duration = 0;
	for (size_t i = 0; i < pk_len(entries); i++) {
		const struct pk_value *dm = pk_get(pk_item(entries, i), "duration_ms");
		if (dm) {
			assert_true(pk_float(dm, &ms));
			assert_true(ms >= 0);
			with_duration++;
		}
	}
	assert_int_equal(with_duration, 102);

	e = pk_item(entries, 102);
	assert_null(pk_get(e, "duration_ms"));
	assert_string_equal(str_of(pk_get(e, "profiling_name")), "nccl:all_reduce_barrier");
	assert_int_equal(int_of(pk_get(e, "retired")), 0);
	assert_int_equal(int_of(pk_item(pk_item(pk_get(e, "input_sizes"), 0), 0)), 1);
	pk_doc_free(d);
	free(path);
}

/* Entries per dump, from Python's pickle.load on the corpus. */
static const struct {
	const char *path;
	size_t entries;
} corpus_files[] = {
	{ "job-big/gpu-node01/fr/final_trace_rank_0", 766 },
	{ "job-big/gpu-node01/fr/final_trace_rank_1", 766 },
	{ "job-big/gpu-node02/fr/final_trace_rank_2", 766 },
	{ "job-big/gpu-node02/fr/final_trace_rank_3", 766 },
	{ "job-big/gpu-node03/fr/final_trace_rank_4", 766 },
	{ "job-big/gpu-node03/fr/final_trace_rank_5", 766 },
	{ "job-big/gpu-node04/fr/final_trace_rank_6", 766 },
	{ "job-big/gpu-node04/fr/final_trace_rank_7", 766 },
	{ "job-exception/gpu-node01/fr/nccl_trace_rank_0", 36 },
	{ "job-exception/gpu-node01/fr/nccl_trace_rank_1", 36 },
	{ "job-exception/gpu-node03/fr/nccl_trace_rank_4", 36 },
	{ "job-exception/gpu-node03/fr/nccl_trace_rank_5", 36 },
	{ "job-exception/gpu-node04/fr/nccl_trace_rank_6", 36 },
	{ "job-exception/gpu-node04/fr/nccl_trace_rank_7", 36 },
	{ "job-freeze/gpu-node01/fr/nccl_trace_rank_0", 31 },
	{ "job-freeze/gpu-node01/fr/nccl_trace_rank_1", 31 },
	{ "job-freeze/gpu-node02/fr/nccl_trace_rank_2", 31 },
	{ "job-freeze/gpu-node02/fr/nccl_trace_rank_3", 31 },
	{ "job-freeze/gpu-node03/fr/nccl_trace_rank_4", 31 },
	{ "job-freeze/gpu-node03/fr/nccl_trace_rank_5", 31 },
	{ "job-healthy/gpu-node01/fr/final_trace_rank_0", 154 },
	{ "job-healthy/gpu-node01/fr/final_trace_rank_1", 154 },
	{ "job-healthy/gpu-node02/fr/final_trace_rank_2", 154 },
	{ "job-healthy/gpu-node02/fr/final_trace_rank_3", 154 },
	{ "job-kill/gpu-node01/fr/nccl_trace_rank_0", 67 },
	{ "job-kill/gpu-node01/fr/nccl_trace_rank_1", 67 },
	{ "job-kill/gpu-node02/fr/nccl_trace_rank_2", 67 },
	{ "job-kill/gpu-node02/fr/nccl_trace_rank_3", 67 },
	{ "job-kill/gpu-node03/fr/nccl_trace_rank_4", 67 },
	{ "job-kill/gpu-node03/fr/nccl_trace_rank_5", 67 },
	{ "job-mismatch_op/gpu-node01/fr/nccl_trace_rank_0", 26 },
	{ "job-mismatch_op/gpu-node01/fr/nccl_trace_rank_1", 26 },
	{ "job-mismatch_op/gpu-node02/fr/nccl_trace_rank_2", 26 },
	{ "job-mismatch_op/gpu-node02/fr/nccl_trace_rank_3", 26 },
	{ "job-skip/gpu-node01/fr/nccl_trace_rank_0", 51 },
	{ "job-skip/gpu-node01/fr/nccl_trace_rank_1", 57 },
	{ "job-skip/gpu-node02/fr/nccl_trace_rank_2", 51 },
	{ "job-skip/gpu-node02/fr/nccl_trace_rank_3", 57 },
	{ "job-skip/gpu-node03/fr/nccl_trace_rank_4", 50 },
	{ "job-skip/gpu-node03/fr/nccl_trace_rank_5", 57 },
	{ "job-stall/gpu-node01/fr/nccl_trace_rank_0", 41 },
	{ "job-stall/gpu-node01/fr/nccl_trace_rank_1", 41 },
	{ "job-stall/gpu-node02/fr/nccl_trace_rank_2", 36 },
	{ "job-stall/gpu-node02/fr/nccl_trace_rank_3", 41 },
	{ "job-stall/gpu-node03/fr/nccl_trace_rank_4", 41 },
	{ "job-stall/gpu-node03/fr/nccl_trace_rank_5", 41 },
	{ "job-straggler/gpu-node01/fr/final_trace_rank_0", 103 },
	{ "job-straggler/gpu-node01/fr/final_trace_rank_1", 103 },
	{ "job-straggler/gpu-node02/fr/final_trace_rank_2", 103 },
	{ "job-straggler/gpu-node02/fr/final_trace_rank_3", 103 },
	{ "job-straggler/gpu-node03/fr/final_trace_rank_4", 103 },
	{ "job-straggler/gpu-node03/fr/final_trace_rank_5", 103 },
};

static void check_dump_shape(const char *name, const struct pk_doc *d, size_t want_entries)
{
	const struct pk_value *root = pk_root(d);
	assert_int_equal(pk_type(root), PK_DICT);
	assert_string_equal(str_of(pk_get(root, "version")), "2.10");
	assert_int_equal(pk_type(pk_get(root, "pg_config")), PK_DICT);
	assert_int_equal(pk_type(pk_get(root, "pg_status")), PK_DICT);
	const struct pk_value *entries = pk_get(root, "entries");
	assert_int_equal(pk_type(entries), PK_LIST);
	if (pk_len(entries) != want_entries)
		fail_msg("%s: %zu entries, expected %zu", name, pk_len(entries), want_entries);
	for (size_t i = 0; i < pk_len(entries); i++) {
		const struct pk_value *e = pk_item(entries, i);
		assert_int_equal(pk_type(e), PK_DICT);
		assert_true(int_of(pk_get(e, "collective_seq_id")) >= 0);
		assert_true(int_of(pk_get(e, "time_created_ns")) > INT64_C(1700000000000000000));
		assert_non_null(pk_str(pk_get(e, "profiling_name"), NULL));
		assert_non_null(pk_str(pk_get(e, "state"), NULL));
		assert_int_equal(pk_type(pk_get(e, "input_sizes")), PK_LIST);
		assert_int_equal(pk_type(pk_get(e, "process_group")), PK_TUPLE);
		const struct pk_value *ts = pk_get(e, "time_discovered_started_ns");
		assert_true(pk_is_none(ts) || pk_type(ts) == PK_INT);
	}
}

static void test_corpus(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_pickle_read.XXXXXX";
	if (!mkdtemp(dir))
		fail_msg("mkdtemp failed");
	char *corpus = path_of("testdata/corpus");
	char *cmd = xasprintf("for t in '%s'/*.tar.gz; do tar xzf \"$t\" -C '%s' || exit 1; done", corpus, dir);
	int rc = system(cmd);
	free(cmd);
	if (rc != 0) {
		cmd = xasprintf("rm -rf '%s'", dir);
		if (system(cmd) != 0)
			print_error("could not remove %s\n", dir);
		free(cmd);
		fail_msg("could not extract %s/*.tar.gz", corpus);
	}

	size_t seen = 0;
	for (size_t i = 0; i < ARRAY_LEN(corpus_files); i++) {
		char *path = xasprintf("%s/%s", dir, corpus_files[i].path);
		struct errbuf err = {{0}};
		struct pk_doc *ds = load_stream_path(path, NULL, &err, 0);
		if (!ds)
			fail_msg("%s: %s", corpus_files[i].path, err.msg);
		struct pk_doc *dm = load_mem_path(path, NULL, &err);
		if (!dm)
			fail_msg("%s: %s", corpus_files[i].path, err.msg);
		check_dump_shape(corpus_files[i].path, ds, corpus_files[i].entries);
		char *a = canon_doc(ds), *b = canon_doc(dm);
		assert_string_equal(a, b);
		free(a);
		free(b);
		pk_doc_free(ds);
		pk_doc_free(dm);
		free(path);
		seen++;
	}

	/* no dump in the corpus is left out of the table */
	cmd = xasprintf("find '%s' -type f -name '*_trace_rank_*' ! -name '*.json' | wc -l", dir);
	FILE *fp = popen(cmd, "r");
	free(cmd);
	assert_non_null(fp);
	unsigned long found = 0;
	assert_int_equal(fscanf(fp, "%lu", &found), 1);
	pclose(fp);
	assert_int_equal(found, seen);

	cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(corpus);
}

/* ---- hand-written pickles (expected values from Python) ---------------- */

static void test_protocol0_text(void **state)
{
	(void)state;
	/* STRING escapes, INT booleans, INT base prefix, LONG, FLOAT, NONE,
	 * TUPLE, UNICODE (latin-1, \u, \U, escaped backslash), PUT/GET, DICT,
	 * LIST, SETITEM, APPEND */
	expect_canon(BYTES("(dp0\012S'a\134n\134x41\134101\134'b\134q'\012p1\012(lp2\012I01\012aI00\012aI-5\012"
			   "aI0x10\012aL123456789012345678L\012aL-9223372036854775808\012aF1.5\012aF-inf\012"
			   "aNa(I1\012I2\012tp3\012aVcaf\351 \134u20ac \134U0001f600 \134\134u0041\012p4\012"
			   "ag1\012ag4\012asS\042dq\042\012I7\012s."),
		     "{s610a414127625c71:[T,F,i-5,i16,i123456789012345678,i-9223372036854775808,f1.5,"
		     "f-inf,N,(i1,i2,),s636166c3a920e282ac20f09f9880205c5c7530303431,s610a414127625c71,"
		     "s636166c3a920e282ac20f09f9880205c5c7530303431,],s6471:i7,}");
}

static void test_stack_ops(void **state)
{
	(void)state;
	/* POP, MARK/POP_MARK, DUP, TUPLE2, and POP of an empty MARK frame */
	expect_canon(BYTES("\200\002]K\001K\0020a(K\005K\0061K\0032\206a(0."), "[i1,(i3,i3,),]");
}

static void test_binary_scalars(void **state)
{
	(void)state;
	/* BINSTRING, SHORT_BINSTRING, LONG4, BINUNICODE8, BINBYTES8, BINBYTES,
	 * SHORT_BINBYTES, LONG1 edges, BININT, BININT2, BININT1, BINFLOAT -0.0,
	 * NEWTRUE/NEWFALSE, EMPTY_TUPLE, TUPLE1, TUPLE3, TUPLE */
	expect_canon(BYTES("\200\003(T\003\000\000\000abcU\002hi\213\004\000\000\000\376\377\377\377\213\000\000"
			   "\000\000\215\002\000\000\000\000\000\000\000xy\216\001\000\000\000\000\000\000\000z"
			   "B\002\000\000\000\000\001C\000\212\000\212\001\377\212\010\000\000\000\000\000\000\000"
			   "\200\212\010\377\377\377\377\377\377\377\177\212\002\377\000J\000\000\000\200M\377\377"
			   "K\377G\200\000\000\000\000\000\000\000\210\211)\205\207t."),
		     "(s616263,s6869,i-2,i0,s7879,b7a,b0001,b,i0,i-1,i-9223372036854775808,"
		     "i9223372036854775807,i255,i-2147483648,i65535,i255,f-0,(T,F,((),),),)");
}

static void test_protocol5_sets(void **state)
{
	(void)state;
	/* pickle.dumps({'s': {1, 'a'}, 'f': frozenset({2}), 'e': set(),
	 * 'ba': bytearray(b'\0\1'), 'k': {frozenset({3}): 1, (1, 'x'): 2}}, 5):
	 * FRAME, MEMOIZE, EMPTY_SET, ADDITEMS, FROZENSET, BYTEARRAY8 */
	static const char p[] =
		"\200\005\225L\000\000\000\000\000\000\000}\224(\214\001s\224\217\224(K\001\214\001a\224\220"
		"\214\001f\224(K\002\221\224\214\001e\224\217\224\214\002ba\224\226\002\000\000\000\000\000"
		"\000\000\000\001\224\214\001k\224}\224((K\003\221\224K\001K\001\214\001x\224\206\224K\002uu.";
	expect_canon(p, sizeof(p) - 1,
		     "{s73:<i1,s61,>,s66:<i2,>,s65:<>,s6261:b0001,s6b:{<i3,>:i1,(i1,s78,):i2,},}");
	struct errbuf err;
	struct pk_doc *d = pickle_read_mem(p, sizeof(p) - 1, NULL, &err);
	assert_non_null(d);
	const struct pk_value *s = pk_get(pk_root(d), "s");
	assert_int_equal(pk_type(s), PK_LIST);
	assert_true(pk_is_set(s));
	assert_int_equal(pk_len(s), 2);
	assert_true(pk_is_set(pk_get(pk_root(d), "f")));
	assert_int_equal(pk_type(pk_get(pk_root(d), "ba")), PK_BYTES);
	pk_doc_free(d);
}

static void test_shared_and_dup_keys(void **state)
{
	(void)state;
	/* x = [1, 2]; {'a': x, 'b': x, 'c': [x, x]} with protocol 2 */
	static const char shared[] =
		"\200\002}q\000(X\001\000\000\000aq\001]q\002(K\001K\002eX\001\000\000\000bq\003h\002X\001"
		"\000\000\000cq\004]q\005(h\002h\002eu.";
	expect_canon(shared, sizeof(shared) - 1, "{s61:[i1,i2,],s62:[i1,i2,],s63:[[i1,i2,],[i1,i2,],],}");
	struct errbuf err;
	struct pk_doc *d = pickle_read_mem(shared, sizeof(shared) - 1, NULL, &err);
	assert_non_null(d);
	assert_ptr_equal(pk_get(pk_root(d), "a"), pk_get(pk_root(d), "b"));
	pk_doc_free(d);

	/* a key given twice: both pairs kept, pk_get finds the last */
	static const char dup[] =
		"\200\002}(X\001\000\000\000aK\001X\001\000\000\000bK\002X\001\000\000\000aK\003u.";
	expect_canon(dup, sizeof(dup) - 1, "{s61:i1,s62:i2,s61:i3,}");
	d = pickle_read_mem(dup, sizeof(dup) - 1, NULL, &err);
	assert_non_null(d);
	assert_int_equal(pk_len(pk_root(d)), 3);
	assert_int_equal(int_of(pk_get(pk_root(d), "a")), 3);
	assert_null(pk_get(pk_root(d), "c"));
	pk_doc_free(d);
}

static void test_strings_long_bodies(void **state)
{
	(void)state;
	/* a 20 KiB and a 200 KiB BINUNICODE, read whole and streamed */
	size_t sizes[] = { 20 * 1024, 200 * 1024, 0 };
	for (size_t k = 0; k < ARRAY_LEN(sizes); k++) {
		size_t n = sizes[k];
		struct buf b = {0};
		buf_append(&b, "\200\002X", 3);
		unsigned char len[4] = { (unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16), 0 };
		buf_append(&b, len, 4);
		for (size_t i = 0; i < n; i++)
			buf_putc(&b, (char)('a' + i % 26));
		buf_putc(&b, '.');
		struct errbuf err;
		struct pk_doc *d = pickle_read_mem(b.data, b.len, NULL, &err);
		assert_non_null(d);
		size_t got;
		const char *s = pk_str(pk_root(d), &got);
		assert_int_equal(got, n);
		assert_int_equal(pk_len(pk_root(d)), n);
		assert_int_equal(s[n], '\0');
		if (n)
			assert_int_equal(s[n - 1], 'a' + (n - 1) % 26);
		pk_doc_free(d);

		struct mem_src src = { (const unsigned char *)b.data, b.len, 0, 999, 0 };
		d = pickle_read(mem_read, &src, NULL, &err);
		assert_non_null(d);
		s = pk_str(pk_root(d), &got);
		assert_int_equal(got, n);
		assert_true(memcmp(s, b.data + 7, n) == 0);
		pk_doc_free(d);
		buf_free(&b);
	}
}

static void test_depth_limit_edge(void **state)
{
	(void)state;
	/* 64 nested lists are fine, 65 are not */
	for (int depth = 64; depth <= 65; depth++) {
		struct buf b = {0};
		buf_append(&b, "\200\002", 2);
		for (int i = 0; i < depth; i++)
			buf_putc(&b, ']');
		for (int i = 0; i < depth - 1; i++)
			buf_putc(&b, 'a');
		buf_putc(&b, '.');
		struct errbuf err;
		struct pk_doc *d = pickle_read_mem(b.data, b.len, NULL, &err);
		if (depth == 64) {
			assert_non_null(d);
			const struct pk_value *v = pk_root(d);
			int levels = 0;
			for (; v; v = pk_item(v, 0))
				levels++;
			assert_int_equal(levels, 64);
		} else {
			assert_null(d);
			assert_string_equal(err.msg, "APPEND (0x61) at byte 130: values nested deeper than the limit "
						     "of 64 containers");
		}
		pk_doc_free(d);
		buf_free(&b);
	}
}

/* ---- errors ------------------------------------------------------------ */

static void test_small_errors(void **state)
{
	(void)state;
	expect_error_bytes(BYTES("\200\006N."), NULL,
			   "PROTO (0x80) at byte 0: unsupported pickle protocol 6 (this reader knows 0 to 5)");
	expect_error_bytes(BYTES("\200\002}(]K\001u."), NULL,
			   "SETITEMS (0x75) at byte 7: unhashable dict key of type list");
	expect_error_bytes(BYTES("\200\002]K\001s."), NULL,
			   "SETITEM (0x73) at byte 5: stack underflow (too few items above the last MARK)");
	expect_error_bytes(BYTES("\200\002}K\001a."), NULL,
			   "APPEND (0x61) at byte 5: target is of type dict, not list");
	expect_error_bytes(BYTES("\200\004\217K\001a."), NULL,
			   "APPEND (0x61) at byte 5: target is of type set, not list");
	expect_error_bytes(BYTES("\200\002]K\001K\002s."), NULL,
			   "SETITEM (0x73) at byte 7: target is of type list, not dict");
	expect_error_bytes(BYTES("\200\002e."), NULL, "APPENDS (0x65) at byte 2: no MARK on the stack");
	expect_error_bytes(BYTES("\200\002(K\001e."), NULL,
			   "APPENDS (0x65) at byte 5: stack underflow (too few items above the last MARK)");
	expect_error_bytes(BYTES("\200\002."), NULL, "STOP (0x2e) at byte 2: 0 items left on the stack (expected 1)");
	expect_error_bytes(BYTES("\200\002N(."), NULL, "STOP (0x2e) at byte 4: 1 MARK(s) still open");
	expect_error_bytes(BYTES("\200\0020."), NULL,
			   "POP (0x30) at byte 2: stack underflow (too few items above the last MARK)");
	expect_error_bytes(BYTES("I99999999999999999999\012."), NULL,
			   "INT (0x49) at byte 0: integer 99999999999999999999 does not fit in 64 bits");
	expect_error_bytes(BYTES("L9223372036854775808L\012."), NULL,
			   "LONG (0x4c) at byte 0: integer 9223372036854775808 does not fit in 64 bits");
	expect_error_bytes(BYTES("Ifoo\012."), NULL, "INT (0x49) at byte 0: not an integer: \"foo\"");
	expect_error_bytes(BYTES("F1,5\012."), NULL, "FLOAT (0x46) at byte 0: not a float: \"1,5\"");
	expect_error_bytes(BYTES("Sabc\012."), NULL, "STRING (0x53) at byte 0: the STRING argument must be quoted");
	expect_error_bytes(BYTES("S'\134x4'\012."), NULL,
			   "STRING (0x53) at byte 0: bad \134x escape in the string at offset 0");
	expect_error_bytes(BYTES("V\134u12\012."), NULL,
			   "UNICODE (0x56) at byte 0: bad \134u escape in the string at offset 0");
	expect_error_bytes(BYTES("\200\002T\377\377\377\377."), NULL, "BINSTRING (0x54) at byte 2: negative length");
	expect_error_bytes(BYTES("\200\002g-1\012."), NULL, "GET (0x67) at byte 2: negative memo index -1");
	expect_error_bytes(BYTES("\200\002N\222."), NULL,
			   "refused opcode NEWOBJ_EX (0x92) at byte 3: pickles that import or call code are not read");
	expect_error_bytes(BYTES("\200\002N\000"), NULL, "unknown opcode 0x00 at byte 3");
	expect_error_bytes(BYTES("\200\002I12"), NULL, "input ends inside INT (0x49) at byte 2: truncated pickle");
	/* a list stored in another one may not change afterwards */
	expect_error_bytes(BYTES("\200\002]q\000](h\000e0h\000K\001a."), NULL,
			   "APPEND (0x61) at byte 15: the list is already stored inside another container: "
			   "changing it (a recursive or self-referencing structure) is not supported");
}

static void test_limits(void **state)
{
	(void)state;
	char *path = path_of("testdata/pickles/stall_nccl_trace_rank_2");
	size_t n;
	unsigned char *data = slurp(path, &n);
	struct errbuf err;
	struct pk_limits lim;

	pk_default_limits(&lim);
	assert_int_equal(lim.max_input_bytes, (size_t)256 << 20);
	assert_int_equal(lim.max_depth, 64);
	assert_int_equal(lim.max_values, 50000000);
	assert_int_equal(lim.max_string_bytes, (size_t)64 << 20);

	memset(&lim, 0, sizeof(lim)); /* zero fields mean the defaults */
	struct pk_doc *d = pickle_read_mem(data, n, &lim, &err);
	assert_non_null(d);
	pk_doc_free(d);

	lim.max_values = 100;
	assert_null(pickle_read_mem(data, n, &lim, &err));
	assert_non_null(strstr(err.msg, "more than the limit of 100 values"));

	memset(&lim, 0, sizeof(lim));
	lim.max_input_bytes = 1000;
	assert_null(pickle_read_mem(data, n, &lim, &err));
	assert_non_null(strstr(err.msg, "limit of 1000 bytes"));
	struct mem_src src = { data, n, 0, 0, 0 };
	assert_null(pickle_read(mem_read, &src, &lim, &err));
	assert_non_null(strstr(err.msg, "limit of 1000 bytes"));

	memset(&lim, 0, sizeof(lim));
	lim.max_input_bytes = n; /* exactly enough */
	d = pickle_read_mem(data, n, &lim, &err);
	assert_non_null(d);
	pk_doc_free(d);

	memset(&lim, 0, sizeof(lim));
	lim.max_string_bytes = 16;
	assert_null(pickle_read_mem(data, n, &lim, &err));
	assert_string_equal(err.msg, "BINUNICODE (0x58) at byte 110: declared length 18 exceeds the string "
				     "limit of 16 bytes");

	memset(&lim, 0, sizeof(lim));
	lim.max_depth = 4; /* the dump nests 5 deep: root, entries, entry, frames, frame */
	assert_null(pickle_read_mem(data, n, &lim, &err));
	assert_non_null(strstr(err.msg, "nested deeper than the limit of 4"));
	lim.max_depth = 5;
	d = pickle_read_mem(data, n, &lim, &err);
	assert_non_null(d);
	pk_doc_free(d);

	/* bytes after STOP are not read */
	unsigned char *more = xmalloc(n + 5);
	memcpy(more, data, n);
	memcpy(more + n, "junk!", 5);
	d = pickle_read_mem(more, n + 5, NULL, &err);
	assert_non_null(d);
	assert_int_equal(pk_doc_bytes(d), n);
	pk_doc_free(d);
	free(more);

	/* an I/O error in the middle */
	struct mem_src bad = { data, n, 0, 100, 1000 };
	assert_null(pickle_read(mem_read, &bad, NULL, &err));
	assert_string_equal(err.msg, "read error at byte 1000");

	/* one byte a call */
	struct mem_src slow = { data, n, 0, 1, 0 };
	d = pickle_read(mem_read, &slow, NULL, &err);
	assert_non_null(d);
	assert_int_equal(pk_len(pk_get(pk_root(d), "entries")), 36);
	pk_doc_free(d);

	free(data);
	free(path);
}

static void test_accessors_null_safe(void **state)
{
	(void)state;
	int64_t i = 42;
	double f = 4.2;
	size_t n = 7;
	assert_null(pk_root(NULL));
	assert_int_equal(pk_doc_bytes(NULL), 0);
	pk_doc_free(NULL);
	assert_int_equal(pk_type(NULL), PK_NONE);
	assert_int_equal(pk_len(NULL), 0);
	assert_null(pk_item(NULL, 0));
	assert_null(pk_key(NULL, 0));
	assert_null(pk_get(NULL, "x"));
	assert_false(pk_int(NULL, &i));
	assert_int_equal(i, 42);
	assert_false(pk_float(NULL, &f));
	assert_true(f == 4.2);
	assert_null(pk_str(NULL, &n));
	assert_int_equal(n, 7);
	assert_false(pk_is_none(NULL));
	assert_false(pk_is_set(NULL));
	assert_string_equal(pk_type_name(PK_DICT), "dict");

	/* wrong types */
	struct errbuf err;
	struct pk_doc *d = pickle_read_mem(BYTES("\200\002K\007."), NULL, &err);
	assert_non_null(d);
	const struct pk_value *v = pk_root(d);
	assert_int_equal(pk_len(v), 0);
	assert_null(pk_item(v, 0));
	assert_null(pk_key(v, 0));
	assert_null(pk_get(v, "x"));
	assert_null(pk_str(v, NULL));
	assert_true(pk_float(v, &f));
	assert_true(f == 7.0);
	assert_false(pk_is_none(v));
	pk_doc_free(d);

	assert_null(pickle_read_mem(NULL, 0, NULL, &err));
	assert_string_equal(err.msg, "empty input: not a pickle");
	assert_null(pickle_read_mem("(", 1, NULL, NULL)); /* err may be NULL */
}

/* ---- the committed hostile files --------------------------------------- */

static const struct {
	const char *file;
	const char *mem_msg;    /* pickle_read_mem */
	const char *stream_msg; /* pickle_read; NULL: the same */
} hostile[] = {
	{ "global_reduce.pickle",
	  "refused opcode GLOBAL (0x63) at byte 2: pickles that import or call code are not read", NULL },
	{ "stack_global.pickle",
	  "refused opcode STACK_GLOBAL (0x93) at byte 25: pickles that import or call code are not read", NULL },
	{ "build.pickle", "refused opcode BUILD (0x62) at byte 8: pickles that import or call code are not read",
	  NULL },
	{ "inst.pickle", "refused opcode INST (0x69) at byte 15: pickles that import or call code are not read",
	  NULL },
	{ "obj.pickle", "refused opcode OBJ (0x6f) at byte 4: pickles that import or call code are not read", NULL },
	{ "persid.pickle",
	  "refused opcode PERSID (0x50) at byte 2: persistent references to outside objects are not read", NULL },
	{ "binpersid.pickle",
	  "refused opcode BINPERSID (0x51) at byte 10: persistent references to outside objects are not read",
	  NULL },
	{ "ext1.pickle", "refused opcode EXT1 (0x82) at byte 2: pickles that import or call code are not read",
	  NULL },
	{ "next_buffer.pickle", "refused opcode NEXT_BUFFER (0x97) at byte 2: out-of-band buffers are not read",
	  NULL },
	{ "deep_nest.pickle", "APPEND (0x61) at byte 100065: values nested deeper than the limit of 64 containers",
	  NULL },
	{ "deep_marks.pickle", "MARK (0x28) at byte 66: MARKs nested deeper than the limit of 64", NULL },
	{ "binunicode_huge.pickle",
	  "BINUNICODE (0x58) at byte 2: declared length 2147483647 exceeds the string limit of 67108864 bytes",
	  NULL },
	{ "binbytes8_huge.pickle",
	  "BINBYTES8 (0x8e) at byte 2: declared length 9223372036854775808 exceeds the string limit of "
	  "67108864 bytes",
	  NULL },
	{ "truncated.pickle", "input ends at byte 3129 without STOP: truncated pickle", NULL },
	{ "truncated_mid.pickle", "input ends inside LONG1 (0x8a) at byte 3146: truncated pickle", NULL },
	{ "empty.pickle", "empty input: not a pickle", NULL },
	{ "not_a_pickle.pickle", "unknown opcode 0x5b ('[') at byte 0: not a pickle", NULL },
	{ "memo_get_unset.pickle", "BINGET (0x68) at byte 5: memo index 5 was never stored", NULL },
	{ "memo_far.pickle",
	  "LONG_BINPUT (0x72) at byte 3: memo index 4294967295 is far beyond the 0 entries stored so far", NULL },
	{ "setitems_odd.pickle",
	  "SETITEMS (0x75) at byte 20: odd number of items (3) after MARK: keys and values must pair up", NULL },
	{ "long1_wide.pickle", "LONG1 (0x8a) at byte 2: integer of 9 bytes does not fit in 64 bits", NULL },
	{ "long4_wide.pickle", "LONG4 (0x8b) at byte 2: integer of 100 bytes does not fit in 64 bits", NULL },
	{ "stop_multi.pickle", "STOP (0x2e) at byte 6: 2 items left on the stack (expected 1)", NULL },
	{ "recursive.pickle",
	  "APPEND (0x61) at byte 7: a container stored inside itself (recursive structure) is not supported",
	  NULL },
	{ "unknown_op.pickle", "unknown opcode 0xff at byte 3", NULL },
};

static void test_hostile_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(hostile); i++) {
		char *rel = xasprintf("testdata/hostile/pickles/%s", hostile[i].file);
		char *path = path_of(rel);
		struct errbuf err = {{0}};

		struct pk_doc *d = load_mem_path(path, NULL, &err);
		if (d)
			fail_msg("%s: read, should have been refused", hostile[i].file);
		if (strcmp(err.msg, hostile[i].mem_msg) != 0)
			fail_msg("%s (memory): got \"%s\"", hostile[i].file, err.msg);
		assert_null(strchr(err.msg, '\n'));

		const char *want = hostile[i].stream_msg ? hostile[i].stream_msg : hostile[i].mem_msg;
		for (size_t chunk = 0; chunk <= 1; chunk++) {
			memset(&err, 0, sizeof(err));
			d = load_stream_path(path, NULL, &err, chunk ? 1 : 0);
			if (d)
				fail_msg("%s: read, should have been refused", hostile[i].file);
			if (strcmp(err.msg, want) != 0)
				fail_msg("%s (stream): got \"%s\"", hostile[i].file, err.msg);
		}
		free(path);
		free(rel);
	}
}

/* The huge declared BINUNICODE with limits raised far enough that only the
 * missing body stops it: no 2 GiB allocation, a clean truncation error. */
static void test_hostile_huge_string_raised_limits(void **state)
{
	(void)state;
	char *path = path_of("testdata/hostile/pickles/binunicode_huge.pickle");
	struct errbuf err;
	struct pk_limits lim = {0};

	lim.max_string_bytes = (size_t)UINT32_MAX;
	assert_null(load_mem_path(path, &lim, &err));
	assert_string_equal(err.msg, "BINUNICODE (0x58) at byte 2: declared length 2147483647 but only 10 bytes "
				     "are left: truncated pickle");
	assert_null(load_stream_path(path, &lim, &err, 0));
	assert_string_equal(err.msg, "BINUNICODE (0x58) at byte 2: declared length 2147483647 goes beyond the "
				     "input limit of 268435456 bytes");

	lim.max_input_bytes = (size_t)UINT32_MAX;
	assert_null(load_stream_path(path, &lim, &err, 0));
	assert_string_equal(err.msg, "input ends inside BINUNICODE (0x58) at byte 2: truncated pickle");
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stall_sample),
		cmocka_unit_test(test_straggler_sample),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_protocol0_text),
		cmocka_unit_test(test_stack_ops),
		cmocka_unit_test(test_binary_scalars),
		cmocka_unit_test(test_protocol5_sets),
		cmocka_unit_test(test_shared_and_dup_keys),
		cmocka_unit_test(test_strings_long_bodies),
		cmocka_unit_test(test_depth_limit_edge),
		cmocka_unit_test(test_small_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_accessors_null_safe),
		cmocka_unit_test(test_hostile_files),
		cmocka_unit_test(test_hostile_huge_string_raised_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
