/* fuzz_line_split.c: the line splitter, fed in random chunks, then each line
 * through the prefix parser, the clock and the member classifier.
 * Checks: line numbers run 1..n, no line is longer than max_line, every kept
 * or dropped byte is accounted for, the number of lines equals the line
 * breaks ("\n", "\r\n", lone "\r") plus an unterminated last line, and every
 * pointer the prefix parser hands out lies inside the line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "line_prefix.h"
#include "line_split.h"
#include "member_classify.h"

struct ctx {
	long n;
	size_t max_line;
	uint64_t kept;
};

static void inside(const char *line, size_t len, const char *p, size_t n)
{
	if (n && (p < line || p + n > line + len))
		abort();
}

static void on_line(void *c, const char *line, size_t len, long line_no, bool truncated)
{
	struct ctx *x = c;
	(void)truncated;
	x->n++;
	if (line_no != x->n || len > x->max_line)
		abort();
	x->kept += len;
	for (int srun = 0; srun < 2; srun++) {
		struct line_parts lp;
		line_parts_parse(line, len, srun, &lp);
		inside(line, len, lp.body, lp.body_len);
		inside(line, len, lp.msg, lp.msg_len);
		inside(line, len, lp.host, lp.host_len);
		inside(line, len, lp.src, lp.src_len);
		if ((unsigned)lp.family >= FAM_COUNT)
			abort();
		int64_t t;
		line_parts_time(&lp, 2026, 0, &t);
		line_parts_time(&lp, 0, INT64_MIN, &t);
		line_parts_time(&lp, 1970, (int64_t)1795996482 * 1000000, &t);
	}
	line_has_srun_label(line, len);
}

/* lines as the splitter must count them */
static long reference_lines(const uint8_t *d, size_t n, uint64_t *content)
{
	long lines = 0;
	bool pending = false;
	*content = 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i] == '\r') {
			lines++;
			pending = false;
			if (i + 1 < n && d[i + 1] == '\n')
				i++;
		} else if (d[i] == '\n') {
			lines++;
			pending = false;
		} else {
			pending = true;
			(*content)++;
		}
	}
	return lines + (pending ? 1 : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t max_line = data[0] & 0x80 ? 65536 : (size_t)(data[0] & 0x7f) + 1;
	uint32_t seed = data[1];
	data += 2;
	size -= 2;

	struct line_splitter sp;
	splitter_init(&sp, max_line);
	struct ctx x = {.max_line = max_line};
	size_t off = 0;
	while (off < size) {
		seed = seed * 1103515245u + 12345u;
		size_t k = (seed >> 16) % 97; /* 0..96, zero-length feeds included */
		if (k > size - off)
			k = size - off;
		/* a private copy, so reads past the chunk are caught */
		char *chunk = malloc(k ? k : 1);
		memcpy(chunk, data + off, k);
		splitter_feed(&sp, chunk, k, on_line, &x);
		free(chunk);
		off += k;
	}
	splitter_finish(&sp, on_line, &x);
	uint64_t content;
	long want = reference_lines(data, size, &content);
	if (x.n != want || sp.line_no != want)
		abort();
	if (x.kept + sp.dropped_bytes != content)
		abort();
	splitter_free(&sp);

	struct member_class mc;
	member_classify("job/attempt_0/3/stderr.log", data, size < 4096 ? size : 4096, &mc);
	member_classify("rank7.log", data, size < 4096 ? size : 4096, &mc);
	member_classify("", data, size, &mc);
	looks_like_text(data, size);
	return 0;
}
