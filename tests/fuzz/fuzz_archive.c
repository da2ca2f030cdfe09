/* fuzz_archive.c: the archive walker on in-memory archives (any format and
 * compression libarchive reads, nested archives included), each member
 * classified and read to its end as the ingest does.
 * Checks: the walk ends, within its limits; members have paths and sane
 * depths; byte counts agree with what the sink read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "archive_walk.h"
#include "line_split.h"
#include "member_classify.h"

struct mem {
	const uint8_t *d;
	size_t n, off;
};

static long mem_read(struct member_stream *ms, void *buf, size_t n)
{
	struct mem *m = ms->impl;
	size_t k = m->n - m->off;
	if (k > n)
		k = n;
	/* short reads, to exercise the buffering above */
	if (k > 3000)
		k = 3000;
	memcpy(buf, m->d + m->off, k);
	m->off += k;
	return (long)k;
}

struct ctx {
	struct walk_limits lim;
	struct walk_stats stats;
	const struct walk_sink *sink;
	uint64_t read_bytes;
	long errors;
};

static void count_line(void *c, const char *line, size_t len, long line_no, bool truncated)
{
	(void)c;
	(void)line;
	(void)len;
	(void)line_no;
	(void)truncated;
}

static int on_member(void *c, const struct member_info *mi, struct member_stream *ms)
{
	struct ctx *x = c;
	if (!mi->path || mi->depth < 0 || mi->depth > x->lim.max_depth)
		abort();
	if (mi->type != MT_FILE)
		return 0;
	size_t n;
	const unsigned char *head = member_peek(ms, &n);
	if (n > sizeof(ms->peek))
		abort();
	if (member_is_container(mi->path, head, n)) {
		walk_nested(ms, mi, &x->lim, x->sink, &x->stats);
		return x->stats.limit_hit ? -1 : 0;
	}
	struct member_class mc;
	member_classify(mi->path, head, n, &mc);
	struct line_splitter sp;
	splitter_init(&sp, 4096);
	char buf[8192];
	long r;
	uint64_t got = 0;
	while ((r = member_read(ms, buf, sizeof(buf))) > 0) {
		splitter_feed(&sp, buf, (size_t)r, count_line, NULL);
		got += (uint64_t)r;
	}
	splitter_finish(&sp, count_line, NULL);
	splitter_free(&sp);
	if (got != ms->bytes)
		abort();
	x->read_bytes += got;
	return 0;
}

static void on_error(void *c, const char *path, const char *msg)
{
	struct ctx *x = c;
	if (!path || !msg)
		abort();
	x->errors++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx x = {0};
	walk_default_limits(&x.lim);
	x.lim.max_total_bytes = 8 << 20;
	x.lim.max_member_bytes = 4 << 20;
	x.stats.input_bytes = size;
	struct walk_sink sink = {.member = on_member, .error = on_error, .ctx = &x};
	x.sink = &sink;
	struct mem m = {.d = data, .n = size};
	struct member_stream ms = {.read_impl = mem_read, .impl = &m};
	struct member_info outer = {.path = "fuzz.tar.gz", .type = MT_FILE, .size = (int64_t)size};
	member_is_container(outer.path, data, size < 4096 ? size : 4096);
	walk_nested(&ms, &outer, &x.lim, &sink, &x.stats);
	if (x.read_bytes > x.lim.max_total_bytes + (1 << 20))
		abort();
	return 0;
}
