/* fuzz_pickle.c: the pickle reader (from memory and streamed in random
 * pieces) and the flight-recorder reader on top of it.
 * Checks: both reads agree on success and on the bytes consumed; the tree is
 * walked through every accessor (bounded by the depth limit); fr_ingest
 * never fails without a message and counts every input byte and line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flight_recorder.h"
#include "pickle_read.h"

static const struct pk_limits limits = {
	.max_input_bytes = 1 << 20,
	.max_depth = 64,
	.max_values = 1 << 20,
	.max_string_bytes = 1 << 20,
};

static size_t walk(const struct pk_value *v, size_t depth)
{
	if (depth > limits.max_depth + 1)
		abort();
	size_t n = 1, len = pk_len(v);
	int64_t i;
	double d;
	size_t sl;
	const char *s = pk_str(v, &sl);
	if (s && (s[sl] != '\0' || sl != len))
		abort();
	pk_int(v, &i);
	pk_float(v, &d);
	pk_is_none(v);
	pk_is_set(v);
	pk_type_name(pk_type(v));
	if (pk_type(v) == PK_LIST || pk_type(v) == PK_TUPLE || pk_type(v) == PK_DICT) {
		for (size_t k = 0; k < len; k++) {
			n += walk(pk_item(v, k), depth + 1);
			if (pk_type(v) == PK_DICT)
				n += walk(pk_key(v, k), depth + 1);
		}
		if (pk_item(v, len) || (pk_type(v) == PK_DICT && pk_key(v, len)))
			abort();
		pk_get(v, "entries");
	}
	return n;
}

struct stream {
	const uint8_t *d;
	size_t n, off;
	uint32_t seed;
};

static long stream_read(void *ctx, void *buf, size_t n)
{
	struct stream *s = ctx;
	s->seed = s->seed * 1103515245u + 12345u;
	size_t k = 1 + (s->seed >> 16) % 700;
	if (k > n)
		k = n;
	if (k > s->n - s->off)
		k = s->n - s->off;
	memcpy(buf, s->d + s->off, k);
	s->off += k;
	return (long)k;
}

static long ms_read(struct member_stream *ms, void *buf, size_t n)
{
	return stream_read(ms->impl, buf, n);
}

static void on_event(void *ctx, const struct event_rec *e)
{
	long *count = ctx;
	if (!e->kind || !e->class_name || !e->fields_json || e->fields_json[0] != '{')
		abort();
	(*count)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct errbuf e1 = {{0}}, e2 = {{0}};
	struct pk_doc *a = pickle_read_mem(data, size, &limits, &e1);
	struct stream st = {.d = data, .n = size, .seed = size > 0 ? data[0] : 7};
	struct pk_doc *b = pickle_read(stream_read, &st, &limits, &e2);
	if ((a == NULL) != (b == NULL)) {
		/* the streamed read may refuse a declared length the in-memory
		 * read can check against the bytes left, never the reverse */
		if (a && !b)
			abort();
	}
	if (!a && !e1.msg[0])
		abort();
	if (!b && !e2.msg[0])
		abort();
	if (a && b && pk_doc_bytes(a) != pk_doc_bytes(b))
		abort();
	if (a)
		walk(pk_root(a), 1);
	pk_doc_free(a);
	pk_doc_free(b);

	struct stream ss = {.d = data, .n = size, .seed = 99};
	struct member_stream ms = {.read_impl = ms_read, .impl = &ss};
	long events = 0, lines = 0;
	uint64_t bytes = 0;
	struct errbuf err = {{0}};
	int rc = fr_ingest(&ms, "nccl_trace_rank_3", 3, 1, on_event, &events, &lines, &bytes, &err);
	if (rc < 0 && !err.msg[0])
		abort();
	if (bytes != size)
		abort();
	return 0;
}
