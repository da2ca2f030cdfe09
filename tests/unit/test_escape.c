/* Unit tests of escape.c: input bytes shown in a terminal, TSV and CSV
 * (controls, the 8-bit and UTF-8 C1 controls, bytes that are not UTF-8, NUL;
 * TSV's escapes; CSV's quoting and formula guard). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "escape.h"
#include "util.h"

static void expect_term(const char *in, size_t n, unsigned flags, const char *want)
{
	struct buf b = {0};
	buf_puts(&b, "");
	esc_term(&b, in, n, flags);
	assert_string_equal(b.data, want);
	assert_int_equal(esc_term_needed(in, n, flags), n != strlen(want) || memcmp(in, want, n) != 0);
	buf_free(&b);
}

/* a literal's bytes, NULs included */
#define TERM(in, flags, want) expect_term(in, sizeof(in) - 1, flags, want)

static void test_term(void **state)
{
	(void)state;
	TERM("plain text", 0, "plain text");
	TERM("\x1b]52;c;ZWNobw==\x07 end", 0, "?]52;c;ZWNobw==? end");
	TERM("csi \x1b[2J", 0, "csi ?[2J");
	TERM("c1 \xc2\x9b" "2J", 0, "c1 ?2J");
	TERM("del \x7f", 0, "del ?");
	TERM("nul\0in", 0, "nul\\0in");
	TERM("tab\there", 0, "tab?here");
	TERM("tab\there", ESC_KEEP_TAB, "tab\there");
	TERM("a\nb\rc", ESC_KEEP_NEWLINE, "a\nb?c");
	/* UTF-8 stays; what is not UTF-8 (a raw 8-bit CSI, overlong, cut) does not */
	TERM("caf\xc3\xa9 \xe2\x94\x80", 0, "caf\xc3\xa9 \xe2\x94\x80");
	TERM("raw \x9b" "2J", 0, "raw ?2J");
	TERM("over \xc0\xaf", 0, "over ??");
	TERM("cut \xe2\x94", 0, "cut ??");
}

static void expect_tsv(const char *in, const char *want)
{
	struct buf b = {0};
	buf_puts(&b, "");
	esc_tsv(&b, in, strlen(in));
	assert_string_equal(b.data, want);
	buf_free(&b);
}

static void test_tsv(void **state)
{
	(void)state;
	expect_tsv("a\tb\nc\\d\re", "a\\tb\\nc\\\\d\\re");
	expect_tsv("esc \x1b[31m", "esc ?[31m");
}

static void expect_csv(const char *in, bool text, const char *want)
{
	struct buf b = {0};
	buf_puts(&b, "");
	esc_csv(&b, in, strlen(in), text);
	assert_string_equal(b.data, want);
	buf_free(&b);
}

static void test_csv(void **state)
{
	(void)state;
	expect_csv("plain", true, "plain");
	expect_csv("a,b", true, "\"a,b\"");
	expect_csv("say \"hi\"", true, "\"say \"\"hi\"\"\"");
	expect_csv("=HYPERLINK(\"x\")", true, "\"'=HYPERLINK(\"\"x\"\")\"");
	expect_csv("+1", true, "\"'+1\"");
	expect_csv("-x", true, "\"'-x\"");
	expect_csv("@SUM(A1)", true, "\"'@SUM(A1)\"");
	expect_csv("-5", false, "-5"); /* a number is never guarded */
	expect_csv("two\nlines", true, "\"two\nlines\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term),
		cmocka_unit_test(test_tsv),
		cmocka_unit_test(test_csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
