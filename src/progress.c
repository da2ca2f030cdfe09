/* progress.c: see progress.h. Redraws at most five times a second. */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_init(struct progress *p, bool wanted)
{
	p->on = wanted && isatty(2);
	p->bytes = p->members = 0;
	p->start = p->last = now();
	p->shown = false;
}

void progress_update(struct progress *p, uint64_t add_bytes, uint64_t add_members)
{
	p->bytes += add_bytes;
	p->members += add_members;
	if (!p->on)
		return;
	if ((p->bytes & 0xfffff) > add_bytes && !add_members)
		return; /* cheap gate: look at the clock about once a MiB */
	double t = now();
	if (t - p->last < 0.2)
		return;
	p->last = t;
	double mb = (double)p->bytes / 1e6;
	fprintf(stderr, "\r  ingest: %llu members, %.1f MB, %.1f MB/s   ", (unsigned long long)p->members, mb,
		mb / (t - p->start > 1e-3 ? t - p->start : 1e-3));
	p->shown = true;
}

void progress_done(struct progress *p)
{
	if (p->on && p->shown)
		fputs("\r\033[K", stderr);
}
