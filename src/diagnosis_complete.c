/* diagnosis_complete.c: jobs that did not fail: finished (with a straggler
 * when one rank was consistently the last to reach its collectives), or
 * ended without any sign of success or failure (unknown). */
#include "diagnosis.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "util.h"

/* A rank is a straggler when it is the last to enqueue most collectives,
 * by a margin well above the others' jitter. */
#define STRAGGLER_MIN_SAMPLES 20
#define STRAGGLER_MIN_LATE_US 50000

/* lateness of one rank over the collectives it shared with others */
struct lateness {
	long n, last;
	double late_sum;
};

/* adds one collective (pg, seq) that n ranks enqueued at t[] */
static void add_collective(struct lateness *per, const int *rank, const int64_t *t, size_t n)
{
	if (n < 2)
		return;
	int64_t lo = t[0], hi = t[0];
	for (size_t i = 1; i < n; i++) {
		lo = t[i] < lo ? t[i] : lo;
		hi = t[i] > hi ? t[i] : hi;
	}
	for (size_t i = 0; i < n; i++) {
		struct lateness *l = &per[rank[i]];
		l->n++;
		l->last += t[i] == hi;
		l->late_sum += (double)(t[i] - lo);
	}
}

static bool find_straggler(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* one ordered pass over the flight-recorder entries, summed per rank here
	 * (a window query over them costs several times more) */
	int maxrank = (int)q_int(d->db, -1, "SELECT max(rank) FROM collectives WHERE evidence = 'flight recorder'");
	if (maxrank < 0 || maxrank > (1 << 24))
		return false;
	struct lateness *per = xcalloc((size_t)maxrank + 1, sizeof(*per));
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT rank, pg, seq, time_created_us FROM collectives WHERE evidence = 'flight recorder'"
		" AND time_created_us IS NOT NULL AND rank >= 0 AND pg IS NOT NULL ORDER BY pg, seq");
	int *ranks = NULL;
	int64_t *ts = NULL;
	size_t n = 0, cap = 0, tcap = 0;
	char pg[128] = "";
	int64_t seq = INT64_MIN;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(st, 1);
		int64_t s = sqlite3_column_int64(st, 2);
		if (s != seq || strcmp(p, pg) != 0) {
			add_collective(per, ranks, ts, n);
			n = 0;
			seq = s;
			snprintf(pg, sizeof(pg), "%s", p);
		}
		xgrow(&ranks, &cap, n + 1, sizeof(*ranks));
		xgrow(&ts, &tcap, n + 1, sizeof(*ts));
		ranks[n] = sqlite3_column_int(st, 0);
		ts[n++] = sqlite3_column_int64(st, 3);
	}
	add_collective(per, ranks, ts, n);
	sqlite3_finalize(st);
	free(ranks);
	free(ts);
	int best = -1;
	double best_late = 0, second_late = 0, best_share = 0;
	long best_n = 0;
	for (int r = 0; r <= maxrank; r++) {
		if (per[r].n == 0)
			continue;
		double late = per[r].late_sum / (double)per[r].n;
		if (best < 0 || late > best_late) {
			if (best >= 0 && best_late > second_late)
				second_late = best_late;
			best = r;
			best_late = late;
			best_n = per[r].n;
			best_share = (double)per[r].last / (double)per[r].n;
		} else if (late > second_late) {
			second_late = late;
		}
	}
	free(per);
	if (best < 0 || best_n < STRAGGLER_MIN_SAMPLES || best_late < STRAGGLER_MIN_LATE_US ||
	    best_late < 3 * second_late || best_share < 0.5)
		return false;
	v_culprit(v, best);
	v->cause = "straggler";
	v->confidence = "medium";
	struct buf who = {0};
	rank_desc(d, best, &who);
	buf_printf(&v->summary,
		   "The job completed, but %s was the last to reach %.0f%% of its collectives, on average %.0f ms after"
		   " the first rank of each (the next slowest: %.0f ms): the others waited for it at every step.",
		   who.data, best_share * 100, best_late / 1000, second_late / 1000);
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT c.event_id FROM collectives c WHERE c.rank = %d AND c.evidence = 'flight recorder'"
			      " ORDER BY c.seq DESC LIMIT 1", best),
		     "a late collective");
	buf_free(&who);
	return true;
}

bool diag_completed(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	bool final_dumps = q_int(d->db, 0,
		"SELECT count(*) FROM collectives WHERE evidence = 'flight recorder'") > 0 &&
		q_int(d->db, 0, "SELECT count(*) FROM collectives WHERE evidence = 'flight recorder'"
				" AND state <> 'completed'") == 0;
	if (!d->completed && !final_dumps)
		return false;
	/* ranks that disagreed on a collective NCCL happened to complete */
	if (q_int(d->db, 0,
		  "SELECT count(*) FROM (SELECT 1 FROM collectives WHERE pg IS NOT NULL AND seq IS NOT NULL"
		  " AND op NOT IN ('SEND','RECV','ALLTOALL','GATHER','SCATTER','COALESCED')"
		  " GROUP BY pg, seq HAVING count(DISTINCT op) > 1 OR count(DISTINCT numel_in) > 1"
		  "   OR count(DISTINCT numel_out) > 1 LIMIT 1)") > 0 &&
	    diag_mismatch(d) && strcmp(v->cause, "collective_mismatch") == 0)
		return true;
	v_reset(v);
	v->outcome = "completed";
	v->cause = "none";
	v->confidence = "high";
	if (!find_straggler(d)) {
		long steps = (long)q_int(d->db, -1, "SELECT max(last_step) FROM rank_status");
		buf_printf(&v->summary, "The job completed: %d rank%s finished", d->world, d->world == 1 ? "" : "s");
		if (steps >= 0)
			buf_printf(&v->summary, " %ld steps", steps + 1);
		buf_puts(&v->summary, " with no collective timeout, NCCL error or abnormal exit.");
	}
	v_cite_event(v, q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'torchrun_group_finished'"),
		     "the launcher saw the workers finish");
	if (final_dumps)
		v_cite_event(v, q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'fr_dump'"),
			     "a flight-recorder dump with every collective completed");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT max(event_id) FROM events WHERE kind = 'app_step' AND rank ="
			      " (SELECT rank FROM rank_status WHERE last_step IS NOT NULL ORDER BY last_step DESC, rank LIMIT 1)"),
		     "the last step");
	return true;
}
