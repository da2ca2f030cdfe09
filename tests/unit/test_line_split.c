/* Unit tests of the line splitter: line ends, chunk boundaries, long lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "line_split.h"

struct got {
	char text[16][64];
	bool trunc[16];
	long line_no[16];
	int n;
};

static void collect(void *ctx, const char *line, size_t len, long line_no, bool truncated)
{
	struct got *g = ctx;
	if (g->n >= 16)
		return;
	snprintf(g->text[g->n], sizeof(g->text[0]), "%.*s", (int)len, line);
	g->trunc[g->n] = truncated;
	g->line_no[g->n] = line_no;
	g->n++;
}

/* feeds s in chunks of k bytes */
static void split(const char *s, size_t n, size_t k, size_t max_line, struct got *g)
{
	struct line_splitter sp;
	splitter_init(&sp, max_line);
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < n; i += k)
		splitter_feed(&sp, s + i, n - i < k ? n - i : k, collect, g);
	splitter_finish(&sp, collect, g);
	splitter_free(&sp);
}

static void test_line_ends(void **state)
{
	(void)state;
	const char in[] = "a\nbb\r\nccc\rd\n\ne";
	for (size_t k = 1; k <= sizeof(in); k++) {
		struct got g;
		split(in, sizeof(in) - 1, k, 100, &g);
		assert_int_equal(g.n, 6);
		assert_string_equal(g.text[0], "a");
		assert_string_equal(g.text[1], "bb");
		assert_string_equal(g.text[2], "ccc");
		assert_string_equal(g.text[3], "d");
		assert_string_equal(g.text[4], "");
		assert_string_equal(g.text[5], "e");
		assert_int_equal(g.line_no[5], 6);
	}
}

static void test_crlf_across_chunks(void **state)
{
	(void)state;
	struct got g;
	split("x\r\ny\r\n", 6, 2, 100, &g); /* "x\r" | "\ny" | "\r\n" */
	assert_int_equal(g.n, 2);
	assert_string_equal(g.text[0], "x");
	assert_string_equal(g.text[1], "y");
}

static void test_long_line(void **state)
{
	(void)state;
	char in[300];
	memset(in, 'z', sizeof(in));
	in[250] = '\n';
	for (size_t k = 1; k <= 300; k += 37) {
		struct got g;
		split(in, sizeof(in), k, 10, &g);
		assert_int_equal(g.n, 2);
		assert_int_equal(strlen(g.text[0]), 10);
		assert_true(g.trunc[0]);
		assert_true(g.trunc[1]); /* 49 bytes after the break */
	}
}

static void test_nul_and_empty(void **state)
{
	(void)state;
	struct got g;
	split("", 0, 1, 10, &g);
	assert_int_equal(g.n, 0);
	split("a\0b\n", 4, 1, 10, &g);
	assert_int_equal(g.n, 1);
	assert_false(g.trunc[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_ends),
		cmocka_unit_test(test_crlf_across_chunks),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_nul_and_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
