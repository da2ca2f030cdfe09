/* Unit tests of struct buf (util.c): growth, and the drain that writes what
 * it holds to a file once it would pass its threshold, so that output built
 * front to back is the same bytes whether it drains or not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util.h"

/* Writes the same mixed output into b. */
static void fill(struct buf *b)
{
	for (int i = 0; i < 200; i++) {
		buf_printf(b, "row %d: ", i);
		buf_json_str(b, "a \"quoted\"\n value", 18);
		buf_putc(b, ',');
		buf_puts(b, i % 7 ? "short" : "a somewhat longer piece of text, longer than the threshold itself");
		buf_append(b, "\n", 1);
	}
}

/* What a drained buffer wrote to its file, followed by what it still holds. */
static char *drained_output(size_t drain_at, size_t *max_len)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	struct buf b = {.drain = f, .drain_at = drain_at};
	*max_len = 0;
	fill(&b);
	*max_len = b.cap;
	fwrite(b.data, 1, b.len, f);
	buf_free(&b);
	long n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	char *s = calloc((size_t)n + 1, 1);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

static void test_drain_same_bytes(void **state)
{
	(void)state;
	struct buf whole = {0};
	fill(&whole);
	size_t sizes[] = {1, 2, 16, 64, 1000, 1 << 20};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t cap;
		char *s = drained_output(sizes[i], &cap);
		assert_string_equal(s, whole.data);
		free(s);
	}
	buf_free(&whole);
}

static void test_drain_bounds_memory(void **state)
{
	(void)state;
	struct buf whole = {0};
	fill(&whole);
	size_t cap;
	char *s = drained_output(256, &cap);
	free(s);
	/* the buffer never held much more than the threshold and one write */
	assert_true(cap <= 512);
	assert_true(whole.cap > 8192);
	buf_free(&whole);
}

static void test_no_drain_keeps_all(void **state)
{
	(void)state;
	struct buf b = {.drain_at = 1}; /* no file: the threshold is ignored */
	fill(&b);
	assert_true(b.len > 8192);
	assert_int_equal(strlen(b.data), b.len);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drain_same_bytes),
		cmocka_unit_test(test_drain_bounds_memory),
		cmocka_unit_test(test_no_drain_keeps_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
