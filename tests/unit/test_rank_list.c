/* Unit tests of fmt_rank_list (diagnosis_model.c): how the verdicts write a
 * list of ranks: ranges, a stride of copies with its ordinal, long lists cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "diagnosis.h"
#include "util.h"

static void expect_list(const int *ranks, size_t n, const char *want)
{
	struct buf b = {0};
	buf_puts(&b, "");
	fmt_rank_list(ranks, n, &b);
	assert_string_equal(b.data, want);
	buf_free(&b);
}

static void test_short_lists(void **state)
{
	(void)state;
	expect_list((const int[]){2}, 1, "2");
	expect_list((const int[]){2, 3}, 2, "2, 3");
	expect_list((const int[]){0, 1, 2, 3, 4, 5, 8}, 7, "0-5, 8");
}

static void test_strides(void **state)
{
	(void)state;
	int r[8];
	for (int stride = 2; stride <= 23; stride++) {
		for (int i = 0; i < 8; i++)
			r[i] = 1 + i * stride;
		const char *sfx = stride == 2 || stride == 22 ? "nd" : stride == 3 || stride == 23 ? "rd"
				  : stride == 21 ? "st" : "th";
		char want[96];
		snprintf(want, sizeof(want), "1, %d, ..., %d (every %d%s, 8 ranks)", r[1], r[7], stride, sfx);
		expect_list(r, 8, want);
	}
	for (int i = 0; i < 8; i++)
		r[i] = i * 111;
	expect_list(r, 8, "0, 111, ..., 777 (every 111th, 8 ranks)");
}

static void test_long_irregular_list_is_cut(void **state)
{
	(void)state;
	int r[60];
	for (int i = 0; i < 60; i++)
		r[i] = i * i * 3; /* no stride, no runs */
	struct buf b = {0};
	buf_puts(&b, "");
	fmt_rank_list(r, 60, &b);
	assert_non_null(strstr(b.data, ", ... (60 ranks)"));
	assert_null(strstr(b.data, "10800")); /* the last rank is cut */
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_lists),
		cmocka_unit_test(test_strides),
		cmocka_unit_test(test_long_irregular_list_is_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
