/* fuzz_timestamp.c: ISO time parsing and formatting, calendar arithmetic and
 * the clocks of log line headers.
 * Checks: a parsed time formats and parses back to itself; a time formatted
 * from any 64-bit value parses back (years 0..9999); line header times are
 * computed without overflow for every hint the ingest can give. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "line_prefix.h"
#include "timestamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';

	int64_t t, t2;
	char out[64];
	if (ts_parse_iso(s, &t)) {
		ts_format_iso_us(t, out, sizeof(out));
		if (t >= ts_from_parts(0, 1, 1, 0, 0, 0, 0) && t < ts_from_parts(10000, 1, 1, 0, 0, 0, 0)) {
			if (!ts_parse_iso(out, &t2) || t2 != t)
				abort();
		}
		ts_format_iso(t, out, sizeof(out));
	}
	if (size >= 8) {
		memcpy(&t, data, 8);
		ts_format_iso(t, out, sizeof(out));
		ts_format_iso_us(t, out, sizeof(out));
		if (t >= ts_from_parts(0, 1, 1, 0, 0, 0, 0) && t < ts_from_parts(10000, 1, 1, 0, 0, 0, 0)) {
			if (!ts_parse_iso(out, &t2) || t2 != t)
				abort();
		}
	}
	month_from_abbrev(s);
	if (size >= 3) {
		int y = (int)(((unsigned)data[0] << 8 | data[1]) % 20000) - 10000;
		int m = data[2] % 12 + 1, d = data[2] / 12 % 31 + 1;
		days_from_civil(y, m, d);
		clock_name((enum clock_kind)(data[2] % (CLOCK_COUNT + 2)));
	}

	struct line_parts lp;
	line_parts_parse(s, size, true, &lp);
	line_parts_time(&lp, 0, INT64_MIN, &t);
	line_parts_time(&lp, 9999, 0, &t);
	line_parts_time(&lp, 1, (int64_t)253402300799 * 1000000, &t);
	free(s);
	return 0;
}
