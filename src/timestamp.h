/* timestamp.h: calendar arithmetic and the clock vocabulary of log lines.
 * All times in the case are microseconds since the Unix epoch, UTC
 * (naive local times in logs are taken as UTC; see docs/schema.md). */
#ifndef NF_TIMESTAMP_H
#define NF_TIMESTAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which clock a line's time came from (stored in lines.clock / events.clock). */
enum clock_kind {
	CLOCK_NONE = 0,   /* no time on the line */
	CLOCK_FULL,       /* full date and time on the line */
	CLOCK_NOYEAR,     /* month, day and time; year inferred */
	CLOCK_BOOT,       /* seconds since boot (dmesg); placed with the boot time */
	CLOCK_EPOCH,      /* epoch ns/s (flight recorder, error.json) */
	CLOCK_INHERITED,  /* no time of its own: taken from a neighbouring line (approximate) */
	CLOCK_COUNT
};
const char *clock_name(enum clock_kind c);

/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t days_from_civil(int y, int m, int d);
/* Microseconds since the epoch; no range checks beyond what the caller did. */
int64_t ts_from_parts(int y, int mon, int d, int h, int mi, int s, long usec);
/* Formats t (µs, UTC) as 2026-11-29T23:50:42.457Z (millisecond precision)
 * into out (at least 32 bytes). */
void ts_format_iso(int64_t t_us, char *out, size_t n);
/* Same, microsecond precision: 2026-11-29T23:50:42.457198Z */
void ts_format_iso_us(int64_t t_us, char *out, size_t n);
/* Parses "2026-11-29T23:50:42.457Z"-like text back (for tests and options). */
bool ts_parse_iso(const char *s, int64_t *t_us);

/* A span of ms milliseconds as the reports write it: "54 ms", "46.8 s",
 * "3 min 12 s", "2 h 5 min" (ms >= 0), into out. */
void ts_format_span(int64_t ms, char *out, size_t n);

/* 1..12 from a three-letter English month name, 0 if none. */
int month_from_abbrev(const char *s);

#endif
