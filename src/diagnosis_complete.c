/* diagnosis_complete.c: jobs that did not fail: finished (with a straggler
 * when one rank was consistently the last to reach its collectives), or
 * ended without any sign of success or failure (unknown). */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "case_schema.h"
#include "util.h"

/* A rank is a straggler when it is the last to enqueue most collectives,
 * by a margin well above the others' jitter. Hosts' clocks differ: a rank
 * whose clock is ahead seems to enqueue every collective late, but it also
 * seems to see each one complete late by as much, where a straggler's
 * collectives complete with its peers' (everyone waited for it). Its
 * lateness is taken net of that lag of its completions. */

/* lateness of one rank over the collectives it shared with others */
struct lateness {
	long n, last;
	double late_sum;
	long n_done;     /* calls whose completion it logged, with another rank's */
	double lag_sum;  /* their completion after the first rank's */
};

/* one collective (pg, seq) as the ranks called it */
struct call {
	int rank;
	int64_t t;    /* flight-recorder creation time, INT64_MIN if none */
	int64_t done; /* its completion as the watchdog saw it, INT64_MIN if none */
	char op[32];
	int64_t in, out; /* -1 unknown */
	char dtype[16];  /* "" unknown */
};

/* adds one collective: the ranks' lateness, and whether they disagreed */
static void add_collective(struct lateness *per, int maxrank, const struct call *c, size_t n, bool *disagree)
{
	/* as GROUP BY pg, seq HAVING count(DISTINCT op|numel_in|numel_out|dtype) > 1
	 * would tell it: unknown values do not count */
	const char *op0 = NULL, *dtype0 = NULL;
	int64_t in0 = -1, out0 = -1;
	int64_t lo = INT64_MAX, hi = INT64_MIN, lo_done = INT64_MAX;
	size_t timed = 0, done = 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i].op[0] && !diag_op_uncompared(c[i].op)) {
			if (!op0)
				op0 = c[i].op;
			else if (strcmp(op0, c[i].op))
				*disagree = true;
			if (c[i].in >= 0 && in0 >= 0 && c[i].in != in0)
				*disagree = true;
			if (c[i].out >= 0 && out0 >= 0 && c[i].out != out0)
				*disagree = true;
			if (c[i].dtype[0] && dtype0 && strcmp(c[i].dtype, dtype0) != 0)
				*disagree = true;
			if (!dtype0 && c[i].dtype[0])
				dtype0 = c[i].dtype;
			if (in0 < 0)
				in0 = c[i].in;
			if (out0 < 0)
				out0 = c[i].out;
		}
		if (c[i].t == INT64_MIN || c[i].rank < 0 || c[i].rank > maxrank)
			continue;
		timed++;
		lo = c[i].t < lo ? c[i].t : lo;
		hi = c[i].t > hi ? c[i].t : hi;
		if (c[i].done != INT64_MIN) {
			done++;
			lo_done = c[i].done < lo_done ? c[i].done : lo_done;
		}
	}
	if (timed < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		if (c[i].t == INT64_MIN || c[i].rank < 0 || c[i].rank > maxrank)
			continue;
		struct lateness *l = &per[c[i].rank];
		l->n++;
		l->last += c[i].t == hi;
		l->late_sum += (double)(c[i].t - lo);
		if (done >= 2 && c[i].done != INT64_MIN) {
			l->n_done++;
			l->lag_sum += (double)(c[i].done - lo_done);
		}
	}
}

/* One ordered pass over the collectives (cheaper than a window or GROUP BY
 * query over them): the lateness of each rank from the flight-recorder
 * entries, and whether the ranks called different things somewhere. */
static struct lateness *scan_collectives(struct diagnosis *d, int *maxrank, bool *disagree)
{
	*disagree = false;
	*maxrank = (int)q_int(d->db, -1, "SELECT max(rank) FROM collectives");
	if (*maxrank < 0 || *maxrank > (1 << 24))
		return NULL;
	struct lateness *per = xcalloc((size_t)*maxrank + 1, sizeof(*per));
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT rank, pg, seq, CASE WHEN evidence = 'flight recorder' THEN time_created_us END, op,"
		" numel_in, numel_out, dtype, CASE WHEN evidence = 'flight recorder' THEN time_completed_us END"
		" FROM collectives NOT INDEXED"
		" WHERE pg IS NOT NULL AND seq IS NOT NULL ORDER BY pg, seq");
	struct call *calls = NULL;
	size_t n = 0, cap = 0;
	char pg[128] = "";
	int64_t seq = INT64_MIN;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(st, 1);
		int64_t s = sqlite3_column_int64(st, 2);
		if (s != seq || strcmp(p, pg) != 0) {
			add_collective(per, *maxrank, calls, n, disagree);
			n = 0;
			seq = s;
			snprintf(pg, sizeof(pg), "%s", p);
		}
		xgrow(&calls, &cap, n + 1, sizeof(*calls));
		struct call *c = &calls[n++];
		c->rank = (int)db_column_int_or(st, 0, -1);
		c->t = db_column_int_or(st, 3, INT64_MIN);
		db_column_text_copy(st, 4, c->op, sizeof(c->op));
		c->in = db_column_int_or(st, 5, -1);
		c->out = db_column_int_or(st, 6, -1);
		snprintf(c->dtype, sizeof(c->dtype), "%s",
			 sqlite3_column_text(st, 7) ? (const char *)sqlite3_column_text(st, 7) : "");
		c->done = db_column_int_or(st, 8, INT64_MIN);
	}
	add_collective(per, *maxrank, calls, n, disagree);
	sqlite3_finalize(st);
	free(calls);
	return per;
}

/* a rank's mean lateness, net of its completions' mean lag where it logged
 * enough of them (half its calls) */
static double net_lateness(const struct lateness *l, double *lag)
{
	*lag = l->n_done * 2 >= l->n && l->n_done > 0 ? l->lag_sum / (double)l->n_done : 0;
	return l->late_sum / (double)l->n - *lag;
}

struct late_rank {
	int rank;
	double late, lag;
	long n, last;
};

static int cmp_later(const void *a, const void *b)
{
	const struct late_rank *x = a, *y = b;
	if (x->late != y->late)
		return x->late > y->late ? -1 : 1;
	return x->rank - y->rank;
}

/* The share of the calls one of g ranks was the last to reach, from their
 * counts: each call has one last rank (ties count each, as clones of one
 * rank make them: at most all of them). */
static double group_share(size_t g, long last, long n)
{
	double share = (double)g * (double)last / (double)n;
	return share < 1 ? share : 1;
}

/* The stragglers: the fewest ranks, one or a minority, each late by far
 * more than every other rank (three times the next slowest), by at least
 * STRAGGLER_MIN_LATE_US over enough calls, and among them the last to
 * reach most of their collectives. A slow node holds up the job with all
 * its ranks at once (and every copy of a slow rank in a job that synth
 * made), and two alike stragglers each hide the other from a test of one
 * rank against the rest. */
static size_t straggler_group(struct late_rank *lr, size_t nr, double *next)
{
	xqsort(lr, nr, sizeof(*lr), cmp_later);
	long last = 0, n = 0;
	for (size_t g = 1; g <= nr && (g == 1 || diag_minority(g, nr)); g++) {
		const struct late_rank *r = &lr[g - 1];
		if (r->late < STRAGGLER_MIN_LATE_US || r->n < STRAGGLER_MIN_SAMPLES)
			return 0;
		last += r->last;
		n += r->n;
		*next = g < nr && lr[g].late > 0 ? lr[g].late : 0;
		if (r->late >= STRAGGLER_FACTOR * *next)
			return group_share(g, last, n) >= STRAGGLER_LAST_SHARE ? g : 0;
	}
	return 0;
}

static bool find_straggler(struct diagnosis *d, const struct lateness *per, int maxrank)
{
	struct verdict *v = &d->v;
	if (!per)
		return false;
	struct late_rank *lr = xmalloc(((size_t)maxrank + 1) * sizeof(*lr));
	size_t nr = 0;
	for (int r = 0; r <= maxrank; r++)
		if (per[r].n > 0) {
			lr[nr] = (struct late_rank){.rank = r, .n = per[r].n, .last = per[r].last};
			lr[nr].late = net_lateness(&per[r], &lr[nr].lag);
			nr++;
		}
	double next = 0;
	size_t g = straggler_group(lr, nr, &next);
	if (!g) {
		free(lr);
		return false;
	}
	v->cause = CAUSE(straggler);
	v->confidence = CONFIDENCE(medium);
	double late_sum = 0, lag_max = 0;
	long last = 0, n = 0;
	int *ranks = xmalloc(g * sizeof(*ranks));
	for (size_t i = 0; i < g; i++) {
		ranks[i] = lr[i].rank;
		late_sum += lr[i].late;
		last += lr[i].last;
		n += lr[i].n;
		if (lr[i].lag > lag_max || -lr[i].lag > lag_max)
			lag_max = lr[i].lag < 0 ? -lr[i].lag : lr[i].lag;
	}
	xqsort(ranks, g, sizeof(*ranks), cmp_int);
	for (size_t i = 0; i < g; i++)
		v_culprit(v, ranks[i]);
	struct buf who = {0};
	if (g == 1) {
		rank_desc(d, ranks[0], &who);
		buf_printf(&v->summary,
			   "The job completed, but %s was the last to reach %.0f%% of its collectives, on average %.0f ms"
			   " after the first rank of each (the next slowest: %.0f ms): the others waited for it at every step.",
			   who.data, 100.0 * (double)last / (double)n, late_sum / 1000, next / 1000);
		if (lag_max >= STRAGGLER_CLOCK_LAG_US)
			buf_printf(&v->summary, " (Net of its clock's offset: it also saw the collectives complete %.0f ms after"
						" the first rank, on average.)", lr[0].lag / 1000);
	} else {
		fmt_rank_list(ranks, g, &who);
		buf_printf(&v->summary,
			   "The job completed, but ranks %s held it up: one of them was the last to reach %.0f%% of the"
			   " collectives they made, each on average %.0f ms after the first rank of each (the next slowest:"
			   " %.0f ms): the others waited for them at every step.",
			   who.data, 100.0 * group_share(g, last, n), late_sum / (double)g / 1000, next / 1000);
		if (lag_max >= STRAGGLER_CLOCK_LAG_US)
			buf_puts(&v->summary, " (Net of their clocks' offsets.)");
	}
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT c.event_id FROM collectives c WHERE c.rank = %d AND c.evidence = 'flight recorder'"
			      " ORDER BY c.seq DESC LIMIT 1", ranks[0]),
		     "a late collective");
	buf_free(&who);
	free(ranks);
	free(lr);
	return true;
}

/* Every rank of the job took down every NCCL communicator it made ("Destroy
 * COMPLETE": destroy_process_group() at the end of a run; a failing process
 * aborts them instead, as PyTorch's ProcessGroupNCCL does at the exit of a
 * process that did not destroy it: "Abort COMPLETE" with no failure logged
 * is that exit), for a job whose launcher said nothing (its INFO
 * lines are off by default) and whose flight recorder did not dump at the
 * end. */
static bool all_destroyed(struct diagnosis *d)
{
	if (d->world <= 0)
		return false;
	return q_int(d->db, 0,
		"SELECT count(*) FROM ranks r WHERE EXISTS (SELECT 1 FROM events i WHERE i.kind = 'nccl_comm_init'"
		"   AND i.rank = r.rank)"
		" AND NOT EXISTS (SELECT 1 FROM events i WHERE i.kind = 'nccl_comm_init' AND i.rank = r.rank"
		"   AND NOT EXISTS (SELECT 1 FROM events t WHERE t.kind = 'nccl_comm_teardown' AND t.rank = r.rank"
		"     AND field(t.fields, 'comm') = field(i.fields, 'comm') AND field(t.fields, 'state') IN ('Destroy COMPLETE', 'Abort COMPLETE')))") ==
	       d->world;
}

/* The job ended, found once for the three rules that need it. */
bool diag_job_ended(struct diagnosis *d)
{
	if (d->ended < 0) {
		d->ended_final_dumps =
			q_int(d->db, 0, "SELECT count(*) FROM collectives WHERE evidence = 'flight recorder'") > 0 &&
			q_int(d->db, 0, "SELECT count(*) FROM collectives WHERE evidence = 'flight recorder'"
					" AND " COLL_NOT_COMPLETED("")) == 0;
		d->ended_destroyed = !d->completed && !d->ended_final_dumps && all_destroyed(d);
		d->ended = d->completed || d->ended_final_dumps || d->ended_destroyed;
	}
	return d->ended;
}

/* The pass over the collectives, kept for the completed rule (its lateness)
 * and for diag_calls_disagree. */
static void scan_once(struct diagnosis *d)
{
	if (d->disagree >= 0)
		return;
	bool disagree;
	d->collective_scan = scan_collectives(d, &d->scan_maxrank, &disagree);
	d->disagree = disagree;
}

bool diag_calls_disagree(struct diagnosis *d)
{
	scan_once(d);
	return d->disagree;
}

bool diag_completed(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (!diag_job_ended(d)) {
		v_decline(d, "the logs show no end of the job (no launcher's or app's success line, no final dump with"
			     " every collective completed, no rank that took down every communicator)");
		return false;
	}
	bool final_dumps = d->ended_final_dumps, destroyed = d->ended_destroyed;
	scan_once(d);
	struct lateness *per = d->collective_scan;
	int maxrank = d->scan_maxrank;
	d->collective_scan = NULL;
	d->disagree = -1;
	v->outcome = OUTCOME(completed);
	v->cause = CAUSE(none);
	v->confidence = destroyed ? CONFIDENCE(medium) : CONFIDENCE(high);
	bool straggler = find_straggler(d, per, maxrank);
	free(per);
	if (!straggler) {
		long steps = (long)q_int(d->db, -1, "SELECT max(last_step) FROM rank_status");
		buf_printf(&v->summary, "The job completed: %d rank%s finished", d->world, d->world == 1 ? "" : "s");
		if (steps >= 0)
			buf_printf(&v->summary, " %ld steps", steps + 1);
		buf_puts(&v->summary, " with no collective timeout, NCCL error or abnormal exit.");
	}
	v_cite_event(v, q_int(d->db, 0, "SELECT min(event_id) FROM (" JOB_SUCCESS_SQL ")"),
		     "the launcher saw the workers finish");
	if (final_dumps)
		v_cite_event(v, q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'fr_dump'"),
			     "a flight-recorder dump with every collective completed");
	if (destroyed)
		v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM events WHERE kind = 'nccl_comm_teardown'"),
			     "every rank took down its NCCL communicators");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT max(event_id) FROM events WHERE kind = 'app_step' AND rank ="
			      " (SELECT rank FROM rank_status WHERE last_step IS NOT NULL ORDER BY last_step DESC, rank LIMIT 1)"),
		     "the last step");
	return true;
}
