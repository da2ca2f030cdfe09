/* tui_marks.c: marks: places (a rank or host row at a time) set with m and
 * visited in time order with ' and ". Kept sorted by time. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "tui_draw.h"

static void row_name(const struct tui *t, int rank, int host, char *out, size_t n)
{
	if (rank >= 0)
		snprintf(out, n, "r%d", rank);
	else if (host >= 0 && (size_t)host < t->n_hosts)
		snprintf(out, n, "%s", t->hosts[host].name);
	else
		snprintf(out, n, "-");
}

void tui_mark_toggle(struct tui *t)
{
	char tb[32], rb[128];
	tui_fmt_time(t->cur.time_us, TP_MS, tb, sizeof(tb));
	row_name(t, t->cur.rank, t->cur.host, rb, sizeof(rb));
	for (size_t i = 0; i < t->n_marks; i++) {
		struct tui_mark *m = &t->marks[i];
		if (m->rank == t->cur.rank && m->host == t->cur.host && m->time_us == t->cur.time_us) {
			memmove(m, m + 1, (t->n_marks - i - 1) * sizeof(*m));
			t->n_marks--;
			tui_message(t, "mark removed at %s %s (%zu left)", rb, tb, t->n_marks);
			return;
		}
	}
	size_t at = 0;
	while (at < t->n_marks && t->marks[at].time_us <= t->cur.time_us)
		at++;
	xgrow(&t->marks, &t->cap_marks, t->n_marks + 1, sizeof(*t->marks));
	memmove(t->marks + at + 1, t->marks + at, (t->n_marks - at) * sizeof(*t->marks));
	t->marks[at] = (struct tui_mark){.rank = t->cur.rank, .host = t->cur.host, .time_us = t->cur.time_us};
	t->n_marks++;
	tui_message(t, "mark set at %s %s (%zu marks; ' and \" visit them)", rb, tb, t->n_marks);
}

void tui_mark_step(struct tui *t, int dir)
{
	if (!t->n_marks) {
		tui_error(t, "no marks: m sets one at the cursor");
		return;
	}
	long n = (long)t->n_marks, i = -1;
	/* the mark the cursor is on, if any, then its neighbour in time order */
	for (long k = 0; k < n; k++)
		if (t->marks[k].time_us == t->cur.time_us && t->marks[k].rank == t->cur.rank &&
		    t->marks[k].host == t->cur.host)
			i = k;
	if (i >= 0) {
		i = (i + dir + n) % n;
	} else if (dir > 0) {
		i = 0;
		while (i < n && t->marks[i].time_us <= t->cur.time_us)
			i++;
		if (i == n)
			i = 0;
	} else {
		i = n - 1;
		while (i >= 0 && t->marks[i].time_us >= t->cur.time_us)
			i--;
		if (i < 0)
			i = n - 1;
	}
	const struct tui_mark *m = &t->marks[i];
	tui_set_cursor(t, m->rank, m->host, m->time_us);
	char tb[32], rb[128];
	tui_fmt_time(m->time_us, TP_MS, tb, sizeof(tb));
	row_name(t, m->rank, m->host, rb, sizeof(rb));
	tui_message(t, "mark %ld of %ld: %s %s", i + 1, n, rb, tb);
}

void tui_mark_cells(const struct tui *t, int rank, int host, bool whole_host, int64_t t0, int64_t scale, int ncols,
		    unsigned char *cells, unsigned char bit)
{
	if (scale <= 0)
		return;
	for (size_t i = 0; i < t->n_marks; i++) {
		const struct tui_mark *m = &t->marks[i];
		bool mine = whole_host ? m->host == host : rank >= 0 ? m->rank == rank : m->rank < 0 && m->host == host;
		if (!mine || m->time_us < t0 || m->time_us >= t0 + scale * ncols)
			continue;
		cells[(m->time_us - t0) / scale] |= bit;
	}
}

bool tui_mark_at(const struct tui *t, int rank, int64_t time_us)
{
	for (size_t i = 0; i < t->n_marks; i++)
		if (t->marks[i].rank == rank && t->marks[i].time_us == time_us)
			return true;
	return false;
}

void tui_marks_free(struct tui *t)
{
	free(t->marks);
	t->marks = NULL;
	t->n_marks = t->cap_marks = 0;
}
