/* analysis_clocks.c: how far each host's clock is from the others' (table
 * clocks), judged by when the collectives that span hosts completed on each,
 * and a finding when they disagree by CLOCK_SPREAD_US or more. A collective
 * completes at about the same moment on all its members (each waits for the
 * last one), and each rank's watchdog notes it within its polling interval:
 * averaged over many collectives, what a host notes consistently late or
 * early is its clock (medians: a call noted late by one rank's stuck
 * watchdog does not move it). Needs the flight recorder's completion times;
 * reads the first CLOCK_SAMPLES calls of each group (index seeks, not a
 * scan of every collective). */
#include "analysis_internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "diagnosis.h"
#include "findings.h"
#include "util.h"

#define CLOCK_SAMPLES 8
#define CLOCK_MIN_CALLS 8
#define CLOCK_SPREAD_US 150000

/* The first calls of each group (the dump's steady state; the last ones,
 * near a failure, are often noted late), with their ranks' hosts */
static const char calls_sql[] =
	"WITH first AS MATERIALIZED (SELECT p.pg, (SELECT min(c.seq) FROM collectives c WHERE c.pg = p.pg) AS mn\n"
	"  FROM process_groups p)\n"
	/* the groups first, then each one's calls through the index (left to
	 * itself, SQLite scans every collective) */
	"SELECT c.pg, c.seq, c.rank, c.time_completed_us FROM first f\n"
	"  CROSS JOIN collectives c ON c.pg = f.pg AND c.seq < f.mn + %d\n"
	"  WHERE c.evidence = 'flight recorder' AND c.time_completed_us IS NOT NULL AND c.rank >= 0\n"
	"  ORDER BY c.pg, c.seq";

struct host_offset {
	char *host;
	int64_t *dev; /* its notes' deviations from each call's median */
	size_t n, cap;
	double off;
};

static int by_offset(const void *a, const void *b)
{
	const struct host_offset *x = a, *y = b;
	return (x->off > y->off) - (x->off < y->off);
}

static double median_i64(int64_t *v, size_t n)
{
	xqsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

struct note {
	size_t host;
	int64_t done;
};

/* The hosts (numbered in name order) and each rank's, -1 where unknown. */
static struct host_offset *load_hosts(sqlite3 *db, size_t *nh, long **host_of, int64_t *maxrank)
{
	*maxrank = db_int(db, "SELECT max(rank) FROM ranks", -1);
	if (*maxrank < 0 || *maxrank > (1 << 24))
		*maxrank = -1;
	*host_of = xmalloc(((size_t)*maxrank + 1) * sizeof(**host_of));
	for (int64_t r = 0; r <= *maxrank; r++)
		(*host_of)[r] = -1;
	struct host_offset *h = NULL;
	size_t cap = 0;
	*nh = 0;
	sqlite3_stmt *st = db_prepare(db, "SELECT rank, host FROM ranks WHERE host IS NOT NULL AND rank >= 0 ORDER BY host");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		if (!*nh || strcmp(h[*nh - 1].host, name) != 0) {
			xgrow(&h, &cap, *nh + 1, sizeof(*h));
			memset(&h[*nh], 0, sizeof(*h));
			h[*nh].host = xstrdup(name);
			(*nh)++;
		}
		int64_t r = sqlite3_column_int64(st, 0);
		if (r <= *maxrank)
			(*host_of)[r] = (long)*nh - 1;
	}
	sqlite3_finalize(st);
	return h;
}

/* one call's notes: each host's deviation from their median, where the call
 * was noted on two hosts or more */
static void add_call(struct host_offset *h, const struct note *notes, size_t k, int64_t *scratch)
{
	bool two = false;
	for (size_t i = 1; i < k && !two; i++)
		two = notes[i].host != notes[0].host;
	if (!two)
		return;
	for (size_t i = 0; i < k; i++)
		scratch[i] = notes[i].done;
	double med = median_i64(scratch, k);
	for (size_t i = 0; i < k; i++) {
		struct host_offset *x = &h[notes[i].host];
		xgrow(&x->dev, &x->cap, x->n + 1, sizeof(*x->dev));
		x->dev[x->n++] = notes[i].done - (int64_t)med;
	}
}

/* a host the finding names: off the hosts' median by half the spread it needs */
static bool off_median(double rel)
{
	return rel >= CLOCK_SPREAD_US / 2 || rel <= -CLOCK_SPREAD_US / 2;
}

static void clock_finding(sqlite3 *db, const struct host_offset *h, size_t n, double median)
{
	struct buf hosts = {0}, sum = {0}, list = {0};
	double lo = h[0].off - median, hi = h[n - 1].off - median;
	buf_putc(&hosts, '[');
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		double rel = h[i].off - median;
		if (!off_median(rel))
			continue;
		if (k)
			buf_putc(&hosts, ',');
		buf_json_str(&hosts, h[i].host, strlen(h[i].host));
		buf_printf(&list, "%s%s %s%.0f ms", k ? ", " : "", h[i].host, rel > 0 ? "+" : "", rel / 1000);
		k++;
	}
	buf_putc(&hosts, ']');
	buf_printf(&sum,
		   "The hosts' clocks disagree by about %.0f ms, judged by when the collectives that span hosts"
		   " completed on each: %s, against the hosts' median. Times of lines and flight-recorder entries"
		   " from different hosts cannot be compared closer than that.",
		   (hi - lo) / 1000, list.data);
	int64_t f = finding_add(db, "clock_offset", "warning", NULL, hosts.data, sum.data,
				"synchronize the hosts' clocks (NTP or PTP); read cross-host orders of events with the"
				" offsets in table clocks in mind");
	/* a call each host off the median saw complete, and one of the median host's */
	for (size_t i = 0; i < n; i++) {
		bool off = off_median(h[i].off - median);
		if (!off && i != n / 2)
			continue;
		/* of the largest group (one that spans hosts) */
		int64_t ev = q_int(db, 0, "SELECT c.event_id FROM collectives c JOIN ranks r USING(rank)"
					  " WHERE r.host = %Q AND c.evidence = 'flight recorder' AND c.time_completed_us IS NOT NULL"
					  " ORDER BY (SELECT g.size FROM process_groups g WHERE g.pg = c.pg) DESC, c.event_id LIMIT 1",
				   h[i].host);
		if (ev)
			evidence_add(db, f, ev, off ? "a collective this host saw complete, by its clock"
						    : "the same on a host near the median");
	}
	buf_free(&hosts);
	buf_free(&sum);
	buf_free(&list);
}

void analysis_clocks(sqlite3 *db)
{
	db_exec(db, "CREATE TABLE IF NOT EXISTS clocks(host TEXT PRIMARY KEY, offset_us INTEGER, collectives INTEGER);"
		    "DELETE FROM clocks;");
	size_t nh;
	long *host_of;
	int64_t maxrank;
	struct host_offset *h = load_hosts(db, &nh, &host_of, &maxrank);
	struct note *notes = NULL;
	int64_t *scratch = NULL;
	size_t k = 0, ncap = 0, scap = 0;
	char pg[128] = "";
	int64_t seq = INT64_MIN;
	char *sql = sqlite3_mprintf(calls_sql, CLOCK_SAMPLES);
	sqlite3_stmt *st = db_prepare(db, sql);
	sqlite3_free(sql);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(st, 0);
		int64_t s = sqlite3_column_int64(st, 1);
		if (s != seq || strcmp(p, pg) != 0) {
			add_call(h, notes, k, scratch);
			k = 0;
			seq = s;
			snprintf(pg, sizeof(pg), "%s", p);
		}
		int64_t rank = sqlite3_column_int64(st, 2);
		if (rank > maxrank || host_of[rank] < 0)
			continue;
		xgrow(&notes, &ncap, k + 1, sizeof(*notes));
		xgrow(&scratch, &scap, k + 1, sizeof(*scratch));
		notes[k].host = (size_t)host_of[rank];
		notes[k].done = sqlite3_column_int64(st, 3);
		k++;
	}
	add_call(h, notes, k, scratch);
	sqlite3_finalize(st);
	free(notes);
	free(scratch);
	free(host_of);
	/* each host's median deviation; hosts with too few calls left out */
	size_t n = 0;
	for (size_t i = 0; i < nh; i++) {
		if (h[i].n < CLOCK_MIN_CALLS) {
			free(h[i].host);
			free(h[i].dev);
			continue;
		}
		h[i].off = median_i64(h[i].dev, h[i].n);
		h[n++] = h[i];
	}
	if (n >= 2) {
		xqsort(h, n, sizeof(*h), by_offset);
		double median = n % 2 ? h[n / 2].off : (h[n / 2 - 1].off + h[n / 2].off) / 2;
		st = db_prepare(db, "INSERT INTO clocks(host, offset_us, collectives) VALUES(?,?,?)");
		for (size_t i = 0; i < n; i++) {
			sqlite3_bind_text(st, 1, h[i].host, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, (int64_t)(h[i].off - median));
			sqlite3_bind_int64(st, 3, (int64_t)h[i].n);
			db_step_done(st);
		}
		sqlite3_finalize(st);
		if (h[n - 1].off - h[0].off >= CLOCK_SPREAD_US)
			clock_finding(db, h, n, median);
	}
	for (size_t i = 0; i < n; i++) {
		free(h[i].host);
		free(h[i].dev);
	}
	free(h);
}
