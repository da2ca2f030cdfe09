/* timestamp.c: calendar arithmetic; see timestamp.h. */
#include "timestamp.h"

#include <stdio.h>
#include <string.h>

static const char *const clock_names[CLOCK_COUNT] = {
	"none", "full", "noyear", "boot", "epoch", "inherited",
};

const char *clock_name(enum clock_kind c)
{
	return (unsigned)c < CLOCK_COUNT ? clock_names[c] : "none";
}

/* Howard Hinnant's days_from_civil algorithm (public domain description). */
int64_t days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (unsigned)((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1);
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t yy = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yy + (*m <= 2));
}

int64_t ts_from_parts(int y, int mon, int d, int h, int mi, int s, long usec)
{
	int64_t days = days_from_civil(y, mon, d);
	return ((days * 86400 + h * 3600 + mi * 60 + s) * 1000000) + usec;
}

static void split_time(int64_t t_us, int *y, int *mo, int *d, int *h, int *mi, int *s, long *us)
{
	int64_t secs = t_us / 1000000;
	long rem = (long)(t_us % 1000000);
	if (rem < 0) {
		rem += 1000000;
		secs--;
	}
	int64_t days = secs / 86400;
	int64_t sod = secs % 86400;
	if (sod < 0) {
		sod += 86400;
		days--;
	}
	civil_from_days(days, y, mo, d);
	*h = (int)(sod / 3600);
	*mi = (int)(sod / 60 % 60);
	*s = (int)(sod % 60);
	*us = rem;
}

void ts_format_iso(int64_t t_us, char *out, size_t n)
{
	int y, mo, d, h, mi, s;
	long us;
	split_time(t_us, &y, &mo, &d, &h, &mi, &s, &us);
	snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", y, mo, d, h, mi, s, us / 1000);
}

void ts_format_iso_us(int64_t t_us, char *out, size_t n)
{
	int y, mo, d, h, mi, s;
	long us;
	split_time(t_us, &y, &mo, &d, &h, &mi, &s, &us);
	snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", y, mo, d, h, mi, s, us);
}

bool ts_parse_iso(const char *s, int64_t *t_us)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3)
		return false;
	s += n;
	long us = 0;
	if (*s == 'T' || *s == ' ') {
		if (sscanf(s + 1, "%2d:%2d:%2d%n", &h, &mi, &sec, &n) != 3)
			return false;
		s += 1 + n;
		if (*s == '.' || *s == ',') {
			long scale = 100000;
			for (s++; *s >= '0' && *s <= '9'; s++) {
				us += (*s - '0') * scale;
				scale /= 10;
			}
		}
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return false;
	*t_us = ts_from_parts(y, mo, d, h, mi, sec, us);
	return true;
}

int month_from_abbrev(const char *s)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	for (int i = 0; i < 12; i++)
		if (strncmp(s, names + 3 * i, 3) == 0)
			return i + 1;
	return 0;
}

void ts_format_span(int64_t ms, char *out, size_t n)
{
	if (ms < 1000)
		snprintf(out, n, "%lld ms", (long long)ms);
	else if (ms < 60000)
		snprintf(out, n, "%lld.%lld s", (long long)(ms / 1000), (long long)(ms % 1000 / 100));
	else if (ms < 3600000)
		snprintf(out, n, "%lld min %lld s", (long long)(ms / 60000), (long long)(ms % 60000 / 1000));
	else
		snprintf(out, n, "%lld h %lld min", (long long)(ms / 3600000), (long long)(ms % 3600000 / 60000));
}
