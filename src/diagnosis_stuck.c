/* diagnosis_stuck.c: the rank that never came back after the abort.
 *
 * A rank whose GPU is stuck in a kernel that never ends (or whose main
 * thread is blocked in a call nothing interrupts) enqueues its collectives
 * like everyone else: they wait on its stream behind the stuck work and
 * never start. Its peers wait for it in those collectives, every watchdog
 * times out, the flight recorder shows every rank with the same calls
 * enqueued, and nobody is behind. What tells it apart comes after: once the
 * watchdogs abort NCCL, the blocked calls of every other rank return with an
 * error, and their Python code goes on (a step logged, an exception raised),
 * while the stuck rank's main thread stays where it was (its watchdog still
 * logs and dumps: the process is alive).
 *
 * Tried last among the hang causes: only when every rank with logs timed
 * out, the ranks' Python code logged after the first timeout, and a few
 * ranks (fewer than half) did not though they lived long enough to. */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdlib.h>
#include <string.h>

#include "case_db.h"

/* Lines of the ranks' Python code (the application's own lines, tracebacks,
 * exceptions): the main thread at work. */
#define PYTHON_KINDS "(substr(kind, 1, 4) = 'app_' OR substr(kind, 1, 3) = 'py_')"

/* A rank whose Python code did not go on was stuck only if it had the time
 * to: it still logged (NCCL's threads, its watchdog) a while after some rank
 * that timed out (or was aborted, where NCCL logged it) no earlier than it
 * went on. Its launcher's report of its end
 * does not count: a node-mate's abort may have had the launcher kill it
 * before its own abort was due (the rank that signalled the dump, say, waits
 * for the others' dumps first). */

/* A line of the rank's own (not its launcher's report of its end, which may
 * come from a kill before its own abort was due): its last one, and its time
 * in *t (an untimed line has the time of the timed line before it: it came
 * later). 0 if none. */
static int64_t last_own_line(struct diagnosis *d, int rank, int64_t *t)
{
	sqlite3_stmt *st = db_prepare(d->db, "SELECT event_id, time_us FROM events WHERE rank = ?"
					     " AND substr(kind, 1, 9) <> 'torchrun_' ORDER BY time_us DESC, event_id DESC LIMIT 1");
	sqlite3_bind_int(st, 1, rank);
	int64_t ev = 0;
	*t = T_NONE;
	if (sqlite3_step(st) == SQLITE_ROW) {
		ev = sqlite3_column_int64(st, 0);
		*t = db_column_int_or(st, 1, T_NONE);
	}
	sqlite3_finalize(st);
	return ev;
}

/* When NCCL began aborting the rank's communicators (its first "Abort
 * START" line); T_NONE if it logged none. */
static int64_t abort_start(struct diagnosis *d, int rank)
{
	return q_int(d->db, T_NONE,
		     "SELECT min(time_us) FROM events WHERE rank = %d AND kind = 'nccl_comm_teardown'"
		     " AND field(fields, 'state') = 'Abort START'", rank);
}

/* The ranks whose Python code did not go on after the first timeout, into
 * *stuck; their number, 0 when the rule does not apply. A rank's blocked
 * call can return only once NCCL aborted its communicators, which comes a
 * while after its timeout (the watchdog waits for the dumps first) and not
 * at the same moment on every rank: the time each rank had is counted from
 * its own abort where NCCL logged it (else from its timeout), and a rank
 * that never logged one while others did was never aborted at all (its
 * launcher ended it first). */
static size_t stuck_ranks(struct diagnosis *d, int **stuck, bool *aborts_logged)
{
	size_t with_logs = 0, went_on = 0, n = 0, cap = 0;
	*stuck = NULL;
	/* when each rank's Python code went on (T_NONE: it did not), and
	 * when its wait could end (its abort, else its timeout) */
	int64_t *resumed = xcalloc(d->nranks ? d->nranks : 1, sizeof(*resumed));
	int64_t *freed = xcalloc(d->nranks ? d->nranks : 1, sizeof(*freed));
	bool any_abort = false;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		resumed[i] = freed[i] = T_NONE;
		if (!r->events)
			continue;
		with_logs++;
		if (r->first_timeout_t == T_NONE) {
			free(resumed);
			free(freed);
			return 0; /* a rank that never timed out: the other rules' case */
		}
		resumed[i] = q_int(d->db, T_NONE,
			"SELECT min(time_us) FROM events WHERE rank = %d AND time_us > %lld AND " PYTHON_KINDS, r->rank,
			(long long)d->t0);
		went_on += resumed[i] != T_NONE;
		freed[i] = abort_start(d, r->rank);
		any_abort |= freed[i] != T_NONE;
	}
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *x = &d->ranks[i];
		if (!x->events || resumed[i] != T_NONE)
			continue;
		if (any_abort && freed[i] == T_NONE)
			continue; /* never aborted: its calls could not return */
		int64_t alive;
		last_own_line(d, x->rank, &alive);
		int64_t from_x = freed[i] != T_NONE ? freed[i] : x->first_timeout_t;
		/* it lived on, past its own abort, longer than some rank took
		 * from its abort to going on, and past that rank's going on */
		bool had_time = false;
		for (size_t j = 0; j < d->nranks && !had_time; j++) {
			if (resumed[j] == T_NONE)
				continue;
			int64_t from_y = freed[j] != T_NONE ? freed[j] : d->ranks[j].first_timeout_t;
			int64_t due = from_x + (resumed[j] - from_y);
			if (due < resumed[j])
				due = resumed[j];
			had_time = alive != T_NONE && alive > due + STUCK_MARGIN_US;
		}
		if (!had_time)
			continue;
		xgrow(stuck, &cap, n + 1, sizeof(**stuck));
		(*stuck)[n++] = x->rank;
	}
	free(resumed);
	free(freed);
	*aborts_logged = any_abort;
	if (n == 0 || went_on < 2 || 2 * n >= with_logs) {
		free(*stuck);
		*stuck = NULL;
		return 0;
	}
	return n;
}

bool diag_stuck(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE) {
		v_decline(d, "no failure was logged");
		return false;
	}
	/* its premise: every rank had enqueued the same calls (a rank behind
	 * the others missed one, which the other rules did not make out) */
	if (diag_any_behind(d)) {
		v_decline(d, "a rank is behind the others in a group: a stuck rank is not the premise");
		return false;
	}
	int *stuck;
	bool aborts_logged = false;
	size_t nstuck = stuck_ranks(d, &stuck, &aborts_logged);
	if (!nstuck) {
		v_decline(d, "no rank stayed stuck after the abort");
		return false;
	}
	for (size_t i = 0; i < nstuck; i++)
		v_culprit(v, stuck[i]);
	free(stuck);
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(rank_stalled);
	/* without the flight recorder nothing shows that every rank had made
	 * the same calls: a call of another rank that did not match (a
	 * different element type, say) leaves a kernel stuck the same way.
	 * Without NCCL's abort lines, who had the time to come back is
	 * measured from the timeouts, while the aborts come up to a minute
	 * later and not together: a rank its launcher ended as its abort began
	 * looks the same */
	v->confidence = d->has_fr && aborts_logged ? CONFIDENCE(medium) : CONFIDENCE(low);
	v->first_failure_t = d->t0;
	int64_t wev = diag_wait_into_verdict(d);

	int first = v->culprits[0];
	struct rank_facts *r0 = diag_rank(d, first);
	struct buf who = {0}, l = {0};
	rank_desc(d, first, &who);
	fmt_rank_list(v->culprits, v->nculprits, &l);
	char t0[32], last[32] = "";
	fmt_time(d->t0, t0, sizeof(t0));
	/* the stuck rank's last line of Python code */
	int64_t last_ev = q_int(d->db, 0,
		"SELECT event_id FROM events WHERE rank = %d AND time_us IS NOT NULL AND " PYTHON_KINDS
		" ORDER BY time_us DESC, event_id DESC LIMIT 1", first);
	int64_t last_t = q_int(d->db, T_NONE, "SELECT time_us FROM events WHERE event_id = %lld", (long long)last_ev);
	if (last_t != T_NONE)
		fmt_time(last_t, last, sizeof(last));
	if (v->nculprits == 1)
		buf_printf(&v->summary, "%s never came back after the watchdogs fired", who.data);
	else
		buf_printf(&v->summary, "Ranks %s never came back after the watchdogs fired", l.data);
	buf_printf(&v->summary, ": every rank timed out (from %s on) and none was seen behind the others, but once"
				" NCCL was aborted every other rank's Python code went on (it logged or raised), and %s did"
				" not: %s main thread stayed blocked",
		   t0, v->nculprits == 1 ? "this one" : "these", v->nculprits == 1 ? "its" : "their");
	if (last[0])
		buf_printf(&v->summary, " (%s last Python line at %s)", v->nculprits == 1 ? "its" : "the first one's",
			   last);
	buf_printf(&v->summary, ". %s work was stuck on %s GPU (a kernel that never ends: the collectives queued behind"
				" it never started) or in a call the abort could not interrupt, and %s peers waited for it.",
		   v->nculprits == 1 ? "Its" : "Their", v->nculprits == 1 ? "its" : "their",
		   v->nculprits == 1 ? "its" : "their");
	int64_t alive_t;
	int64_t alive_ev = last_own_line(d, first, &alive_t);
	char alive[32] = "";
	if (alive_t != T_NONE) {
		fmt_time(alive_t, alive, sizeof(alive));
		buf_printf(&v->summary, " The process was alive: its other threads (NCCL's, the watchdog) still logged at"
					" %s, after the others' code had gone on.", alive);
	}
	if (r0 && r0->exited && r0->sigterm_by_launcher)
		buf_puts(&v->summary, " Its own watchdog never took it down either: its launcher ended it (SIGTERM).");
	v_cite_event(v, last_ev, "its last line of Python code");
	v_cite_event(v, alive_ev, "its process still alive");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT event_id FROM events WHERE rank = %d AND class = 'timeout' ORDER BY time_us, event_id"
			      " LIMIT 1", first),
		     "its watchdog timing out (the process was alive)");
	struct buf ids = {0};
	for (size_t i = 0; i < v->nculprits; i++)
		buf_printf(&ids, "%s%d", i ? "," : "", v->culprits[i]);
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT event_id FROM events WHERE rank IS NOT NULL AND rank NOT IN (%s) AND time_us > %lld"
			      " AND " PYTHON_KINDS " ORDER BY time_us, event_id LIMIT 1",
			      ids.data, (long long)d->t0),
		     "a peer's code going on after the abort");
	buf_free(&ids);
	v_cite_event(v, wev, "peers waiting");
	buf_free(&who);
	buf_free(&l);
	return true;
}
