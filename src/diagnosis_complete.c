/* diagnosis_complete.c: jobs that did not fail: finished (with a straggler
 * when one rank was consistently the last to reach its collectives), or
 * ended without any sign of success or failure (unknown). */
#include "diagnosis.h"

#include <stdio.h>
#include <string.h>

#include "case_db.h"

/* A rank is a straggler when it is the last to enqueue most collectives,
 * by a margin well above the others' jitter. */
#define STRAGGLER_MIN_SAMPLES 20
#define STRAGGLER_MIN_LATE_US 50000

static bool find_straggler(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	sqlite3_stmt *st = db_prepare(d->db,
		"WITH c AS (SELECT rank, pg, seq, time_created_us,"
		"   time_created_us - min(time_created_us) OVER w AS late,"
		"   time_created_us = max(time_created_us) OVER w AS is_last,"
		"   count(*) OVER w AS n"
		"  FROM collectives WHERE evidence = 'flight recorder' AND time_created_us IS NOT NULL"
		"  WINDOW w AS (PARTITION BY pg, seq))"
		" SELECT rank, count(*), sum(is_last), avg(late) FROM c WHERE n >= 2 GROUP BY rank ORDER BY avg(late) DESC");
	int best = -1;
	double best_late = 0, second_late = 0, best_share = 0;
	long best_n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		double late = sqlite3_column_double(st, 3);
		long n = sqlite3_column_int64(st, 1);
		if (best < 0) {
			best = sqlite3_column_int(st, 0);
			best_late = late;
			best_n = n;
			best_share = n ? (double)sqlite3_column_int64(st, 2) / (double)n : 0;
		} else if (late > second_late) {
			second_late = late;
		}
	}
	sqlite3_finalize(st);
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
