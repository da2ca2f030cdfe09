/* diagnosis_unknown.c: the last rule, when no other decided: the verdict
 * says what the logs show (a failure no rank stands out in, a hang every
 * rank went silent in, or neither) and where to look. */
#include "diagnosis.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "failure_kinds.h"

/* Where no rank stands out: the ranks that logged the lowest last training
 * step, when every rank with logs logged steps and the others got further.
 * The rank that stopped first is among them (the ones it held up directly
 * never finished that step either; the others could finish one more), so
 * they are where to look. */
static void lagging_step_hint(struct diagnosis *d)
{
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT group_concat(rank, ', '), min(last_step), count(*), (SELECT count(*) FROM rank_status WHERE events > 0),"
		"  (SELECT count(*) FROM rank_status WHERE events > 0 AND last_step IS NOT NULL)"
		" FROM (SELECT rank, last_step FROM rank_status WHERE events > 0 AND last_step ="
		"  (SELECT min(last_step) FROM rank_status WHERE events > 0) ORDER BY rank)");
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		int64_t n = sqlite3_column_int64(st, 2), with_logs = sqlite3_column_int64(st, 3),
			with_steps = sqlite3_column_int64(st, 4);
		if (with_steps == with_logs && n < with_logs) {
			buf_printf(&d->v.summary,
				   " Ranks %s logged step %lld last, every other rank a later one: the rank that stopped"
				   " first is among them.",
				   (const char *)sqlite3_column_text(st, 0), (long long)sqlite3_column_int64(st, 1));
			v_cite_event(&d->v,
				     q_int(d->db, 0,
					   "SELECT e.event_id FROM events e JOIN rank_status r USING(rank) WHERE e.kind = 'app_step'"
					   " AND r.events > 0 AND r.last_step = %lld AND e.time_us = r.last_step_time_us"
					   " ORDER BY e.rank, e.event_id LIMIT 1",
					   (long long)sqlite3_column_int64(st, 1)),
				     "a last step of the ranks behind");
		}
	}
	sqlite3_finalize(st);
}

/* The same error on every rank: a shared setting or build (the verdict
 * says so). */

bool diag_common_error(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* every rank with logs, none timed out: the NCCL error text they all logged */
	size_t with_logs = 0;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (!r->events)
			continue;
		with_logs++;
		if (r->first_timeout_t != T_NONE || r->first_error_t == T_NONE)
			return false;
	}
	if (with_logs < 2)
		return false;
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT field(fields, 'msg') AS m, count(DISTINCT rank), min(event_id) FROM events"
		" WHERE kind IN ('nccl_last_error_text', 'nccl_warn') AND rank IS NOT NULL AND field(fields, 'msg') <> ''"
		" GROUP BY m ORDER BY count(DISTINCT rank) DESC, min(event_id) LIMIT 1");
	bool all = false;
	if (sqlite3_step(st) == SQLITE_ROW && (size_t)sqlite3_column_int64(st, 1) == with_logs) {
		all = true;
		v->outcome = OUTCOME(crash);
		const char *msg = (const char *)sqlite3_column_text(st, 0);
		if (strncmp(msg, "Error : ", 8) == 0) /* NCCL's "Error : <what>" */
			msg += 8;
		buf_clear(&v->summary);
		buf_printf(&v->summary,
			   "Every rank (%zu) failed with the same NCCL error, none before the others: \"%s\". A failure"
			   " common to all ranks comes from what they share (a setting such as NCCL_ALGO or NCCL_PROTO,"
			   " the code, the NCCL build), not from one rank.",
			   with_logs, msg);
		v_cite_event(v, sqlite3_column_int64(st, 2), "the error every rank logged");
	}
	sqlite3_finalize(st);
	return all;
}

/* Failure lines without a time (an excerpt, PyTorch before 2.3): said in
 * the summary, the first of them cited; false when there are none. */
static bool untimed_failures(struct diagnosis *d)
{
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT count(*), min(event_id), count(DISTINCT kind) FROM events WHERE time_us IS NULL"
		" AND (kind IN " FAILURE_KINDS " OR kind IN ('crash_signal', 'torchrun_worker_failed', 'launcher_worker_failed',"
		" 'slurm_task_exit', 'pals_rank_end', 'launcher_killing', 'torchrun_child_failed'))");
	int64_t n = 0, first = 0, kinds = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		n = sqlite3_column_int64(st, 0);
		first = sqlite3_column_int64(st, 1);
		kinds = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (!n)
		return false;
	char line[300] = "";
	q_text(d->db, line, sizeof(line), "SELECT coalesce(field(fields, 'msg'), kind) FROM events WHERE event_id = %lld",
	       (long long)first);
	buf_printf(&d->v.summary,
		   "The logs show %lld failure line%s (%lld kind%s), without times to order them, and no rule could tell"
		   " what failed first or where; the first of them: \"%s\".",
		   (long long)n, n == 1 ? "" : "s", (long long)kinds, kinds == 1 ? "" : "s", line);
	v_cite_event(&d->v, first, "the first failure line");
	v_missing(&d->v, "times on the lines, or more of the job's logs: which rank failed first");
	return true;
}

bool diag_unknown(struct diagnosis *d)
{
	sqlite3 *db = d->db;
	d->v.outcome = d->t0 != T_NONE ? OUTCOME(hang) : OUTCOME(unknown);
	d->v.cause = CAUSE(unknown);
	d->v.confidence = CONFIDENCE(low);
	d->v.first_failure_t = d->t0;
	if (d->t0 != T_NONE) {
		buf_puts(&d->v.summary, "The job failed, but the logs do not tell which rank started it: no rank"
				       " stands out (all timed out, none died first, no mismatch recorded).");
		v_cite_event(&d->v, q_int(db, 0, "SELECT first_error_event FROM rank_status"
						" WHERE first_error_event IS NOT NULL ORDER BY first_error_time_us, rank LIMIT 1"),
			     "the first failure");
	}
	bool common = d->t0 != T_NONE && diag_common_error(d);
	bool in_transfer = false;
	for (size_t i = 0; i < d->nranks && d->t0 != T_NONE && !common && !in_transfer; i++)
		in_transfer = diag_waits_in_transfer(d, d->ranks[i].rank);
	if (in_transfer)
		buf_puts(&d->v.summary,
			 q_int(db, 0, "SELECT count(*) FROM fr_entries WHERE is_p2p = 1") > 0
				 ? " Ranks timed out in point-to-point transfers (SEND/RECV), and the flight recorder's"
				   " transfers (fr_entries with is_p2p = 1) do not lead to one rank."
				 : " Ranks timed out in point-to-point transfers (SEND/RECV): which rank waited for"
				   " which is in the flight-recorder dumps, which this case lacks.");
	else if (d->teardown_t != T_NONE) {
		d->v.outcome = OUTCOME(hang);
		buf_puts(&d->v.summary, "The job hung: every rank went silent, with no timeout logged, and no rank"
				       " stands out (none behind the others in the calls the logs show).");
	} else if (d->t0 == T_NONE && untimed_failures(d)) {
		/* failures whose lines have no time: said, not ordered */
	} else if (d->t0 == T_NONE) {
		buf_puts(&d->v.summary, "The logs show neither a failure nor a successful end of the job.");
		/* where they end: a job killed with SIGKILL, logs taken mid-run */
		int64_t last = q_int(db, 0, "SELECT event_id FROM events WHERE time_us IS NOT NULL"
					    " AND coalesce(clock, '') <> 'inherited' AND kind NOT LIKE 'fr\\_%%' ESCAPE '\\'"
					    " AND rank IS NOT NULL ORDER BY time_us DESC, event_id DESC LIMIT 1");
		if (last) {
			char t[32];
			fmt_time(q_int(db, T_NONE, "SELECT time_us FROM events WHERE event_id = %lld", (long long)last),
				 t, sizeof(t));
			buf_printf(&d->v.summary, " The ranks' last lines with a time of their own end at %s.", t);
			v_cite_event(&d->v, last, "where the ranks' logs end");
		}
	}
	if (!common && !in_transfer && (d->t0 != T_NONE || d->teardown_t != T_NONE))
		lagging_step_hint(d);
	if (strcmp(d->v.outcome, "hang") == 0)
		diag_note_timeout_site(d);
	return true;
}
