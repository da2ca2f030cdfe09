/* diagnosis_exit.c: the exit rules: a rank's process that died of a signal
 * or an exit code of its own first, and one that ended without an error
 * before the failure, leaving its peers waiting. */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "case_db.h"
#include "case_schema.h"

/* ---- a process that died ---- */

/* Whether the rank has a line of its own in the bundle, not only its
 * launcher's report of its end. */
static bool has_own_lines(struct diagnosis *d, int rank)
{
	return q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE rank = %d AND substr(kind, 1, 9) <> 'torchrun_')",
		     rank) != 0;
}

bool diag_rank_exited(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	struct rank_facts *first = NULL;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (!diag_external_exit(r))
			continue;
		if (!first || (r->exit_t != T_NONE && (first->exit_t == T_NONE || r->exit_t < first->exit_t)))
			first = r;
	}
	if (!first) {
		v_decline(d, "no rank's process died of a signal or an exit code of its own (not one its "
			     "launcher sent)");
		return false;
	}
	int64_t others = diag_others_first_failure(d, v, first->rank);
	if (first->exit_t != T_NONE && others != T_NONE && first->exit_t > others + SLACK_US) {
		v_decline(d, "the first death came after other ranks had failed: a consequence");
		return false;
	}
	/* a rank with no line of its own in the bundle (only its launcher's
	 * report): an exit reported after the others failed says nothing of
	 * who went first (an exit status of its own error, which is not here) */
	if (first->exit_t != T_NONE && others != T_NONE && first->exit_t > others &&
	    !has_own_lines(d, first->rank)) {
		v_decline(d, "the first death, of a rank with no line of its own, was reported after the "
			     "others failed: it says nothing of who went first");
		return false;
	}
	/* others that died with it: killed too, or with lines of their own
	 * that show no error (an exit status of a rank with only its
	 * launcher's report is most likely its own exception's, not here) */
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (diag_external_exit(r) &&
		    (r == first || (r->exit_t != T_NONE && first->exit_t != T_NONE && r->exit_t - first->exit_t < DIED_TOGETHER_US &&
				    (diag_killed_from_outside(r) || has_own_lines(d, r->rank)))))
			v_culprit(v, r->rank);
	}
	v->outcome = OUTCOME(crash);
	v->cause = CAUSE(rank_exited);
	v->first_failure_t = others != T_NONE && (first->exit_t == T_NONE || others < first->exit_t) ? others : first->exit_t;
	v->confidence = CONFIDENCE(high);
	struct buf who = {0};
	rank_desc(d, first->rank, &who);
	char t[32];
	fmt_time(first->exit_t, t, sizeof(t));
	buf_printf(&v->summary, "%s died: exit code %d%s%s%s", who.data, first->exit_code,
		   first->exit_signal[0] ? " (" : "", first->exit_signal, first->exit_signal[0] ? ")" : "");
	buf_printf(&v->summary, ", reported by its launcher at %s", t);
	if (first->last_step >= 0) {
		fmt_time(first->last_step_t, t, sizeof(t));
		buf_printf(&v->summary, "; its last step was %ld at %s", first->last_step, t);
	}
	/* the kernel's OOM killer, when the system messages caught it */
	int64_t oom = q_int(d->db, 0,
		"SELECT event_id FROM sysmsgs WHERE kind = 'oom_kill' AND rank = %d ORDER BY time_us LIMIT 1", first->rank);
	if (!oom)
		oom = q_int(d->db, 0,
			"SELECT s.event_id FROM sysmsgs s, ranks r WHERE s.kind = 'oom_kill' AND r.rank = %d"
			" AND s.code = CAST(r.pid AS TEXT) AND (s.host = r.host OR s.host IS NULL) ORDER BY s.time_us LIMIT 1",
			first->rank);
	if (oom) {
		buf_puts(&v->summary, ". The kernel's OOM killer killed it (host memory exhausted)");
		v_cite_event(v, oom, "the kernel killed it");
	} else {
		buf_puts(&v->summary, ". Nothing in its logs explains it (no error, no timeout before it died)");
		if (strcmp(first->exit_signal, "SIGKILL") == 0)
			buf_puts(&v->summary, ": it was killed from outside (OOM killer, scheduler, operator)");
	}
	buf_putc(&v->summary, '.');
	if (v->nculprits > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, " Ranks %s died at the same time", l.data);
		if (diag_culprits_whole_host(d, first->host))
			buf_printf(&v->summary, ": every rank of %s (the node, its launcher or its job step was killed)",
				   first->host);
		buf_putc(&v->summary, '.');
		buf_free(&l);
	}
	/* the peers' view: connections closed, remote errors */
	int64_t peer = q_int(d->db, 0,
		"SELECT event_id FROM events WHERE kind IN ('nccl_socket_closed','nccl_error_code','pg_async_exception',"
		" 'pg_failure_detected') AND rank IS NOT NULL AND rank <> %d ORDER BY time_us IS NULL, time_us, event_id"
		" LIMIT 1", first->rank);
	if (others != T_NONE) {
		fmt_time(others, t, sizeof(t));
		buf_printf(&v->summary, " Its peers lost it and failed from %s on.", t);
	}
	v_cite_event(v, first->exit_event, "the exit");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT e.event_id FROM events e WHERE e.kind = 'torchrun_failure_traceback'"
			      " AND field(e.fields, 'pid') = (SELECT pid FROM ranks WHERE rank = %d)"
			      " AND e.host = %Q ORDER BY e.event_id LIMIT 1",
			      first->rank, first->host),
		     "signal");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT max(event_id) FROM events WHERE kind = 'app_step' AND rank = %d", first->rank),
		     "last step");
	v_cite_event(v, peer, "a peer losing it");
	buf_free(&who);
	return true;
}

/* ---- a rank that left early, without an error ---- */

/* When each rank's process ended or began to: PyTorch's warning that
 * destroy_process_group() was not called before program exit, or NCCL
 * tearing down its communicator of the whole job (a subgroup destroyed on
 * purpose is not leaving); T_NONE where neither. when[i] and ev[i] are for
 * d->ranks[i]. A teardown without a time of its own (NCCL's lines in a
 * per-rank file, with no timed line around them) counts from the rank's last
 * timed line, and only for a rank that never failed or dumped: untimed[i]. */
static void left_at(struct diagnosis *d, int64_t *when, int64_t *ev, bool *untimed)
{
	for (size_t i = 0; i < d->nranks; i++) {
		when[i] = T_NONE;
		ev[i] = 0;
		untimed[i] = false;
	}
	char *sql = sqlite3_mprintf(
		"SELECT rank, CASE WHEN clock = 'inherited' THEN NULL ELSE time_us END, event_id FROM events"
		" WHERE kind IN ('pg_destroy_warning', 'nccl_comm_teardown')"
		" AND rank IS NOT NULL"
		" AND (kind = 'pg_destroy_warning' OR field(fields, 'nranks') = %d)", d->world);
	sqlite3_stmt *st = db_prepare(d->db, sql);
	sqlite3_free(sql);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct rank_facts *r = diag_rank(d, sqlite3_column_int(st, 0));
		if (!r)
			continue;
		size_t i = (size_t)(r - d->ranks);
		int64_t t = sqlite3_column_int64(st, 1), e = sqlite3_column_int64(st, 2);
		bool no_time = sqlite3_column_type(st, 1) == SQLITE_NULL;
		if (no_time) {
			if (r->first_error_t != T_NONE || r->first_timeout_t != T_NONE || r->has_dump || r->last_t == T_NONE)
				continue;
			t = r->last_t;
		}
		if (when[i] == T_NONE || t < when[i] || (t == when[i] && e < ev[i])) {
			when[i] = t;
			ev[i] = e;
			untimed[i] = no_time;
		}
	}
	sqlite3_finalize(st);
}

/* Whether the rank logged an error or a timeout of its own above line ev in
 * the same file: its clocks may say otherwise (a C++ warning stamped before
 * the exception printed above it), the order of its own lines does not. */
static bool error_before(struct diagnosis *d, int rank, int64_t ev)
{
	return ev && q_int(d->db, 0,
			   "SELECT EXISTS (SELECT 1 FROM events l JOIN events e ON e.source_id = l.source_id"
			   " AND e.line_no < l.line_no WHERE l.event_id = %lld AND e.rank = %d"
			   " AND e.class IN ('error', 'timeout'))",
			   (long long)ev, rank);
}

bool diag_rank_left(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE || d->completed) {
		v_decline(d, "no failure was logged, or the job said it ended");
		return false;
	}
	/* peers were left waiting in a collective (or in PyTorch's check of
	 * one, which runs before NCCL is called) */
	if (q_int(d->db, 0, "SELECT count(*) FROM collectives WHERE state IN ('timed_out', 'failed', 'scheduled', 'started')"
			" AND " COLL_NOT_COMPLETED("")) == 0 &&
	    q_int(d->db, 0, "SELECT count(*) FROM pg_status WHERE last_enqueued > last_completed") == 0 &&
	    !q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind IN ('pg_check_absent', 'pg_check_waited'))")) {
		v_decline(d, "every collective completed, and no check waited: no rank left its peers waiting");
		return false;
	}
	struct rank_facts *first = NULL;
	int64_t first_t = T_NONE, first_ev = 0;
	int64_t *when = xcalloc(d->nranks ? d->nranks : 1, sizeof(*when));
	int64_t *evs = xcalloc(d->nranks ? d->nranks : 1, sizeof(*evs));
	bool *untimed = xcalloc(d->nranks ? d->nranks : 1, sizeof(*untimed));
	left_at(d, when, evs, untimed);
	bool first_untimed = false;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		int64_t ev = evs[i];
		/* before anyone failed, and not after an error or a timeout of its own */
		if (when[i] == T_NONE || when[i] >= d->t0 || (r->first_error_t != T_NONE && r->first_error_t <= when[i]) ||
		    (r->first_timeout_t != T_NONE && r->first_timeout_t <= when[i]) || error_before(d, r->rank, ev)) {
			when[i] = T_NONE;
			continue;
		}
		if (!first || when[i] < first_t) {
			first = r;
			first_t = when[i];
			first_ev = ev;
			first_untimed = untimed[i];
		}
	}
	free(evs);
	free(untimed);
	if (!first) {
		free(when);
		v_decline(d, "no rank's process ended without an error before the first failure");
		return false;
	}
	for (size_t i = 0; i < d->nranks; i++)
		if (when[i] != T_NONE && when[i] - first_t < DIED_TOGETHER_US)
			v_culprit(v, d->ranks[i].rank);
	free(when);
	v->outcome = OUTCOME(crash);
	v->cause = CAUSE(rank_exited);
	v->first_failure_t = first_t;
	v->confidence = first->exited ? CONFIDENCE(high) : CONFIDENCE(medium);
	struct buf who = {0};
	rank_desc(d, first->rank, &who);
	char t[32], t0[32];
	fmt_time(first_t, t, sizeof(t));
	fmt_time(d->t0, t0, sizeof(t0));
	bool warned = q_int(d->db, 0, "SELECT count(*) FROM events WHERE event_id = %lld AND kind = 'pg_destroy_warning'",
			    (long long)first_ev) > 0;
	buf_printf(&v->summary, "%s left the job early, without an error: %s %s %s, before any rank failed (%s)",
		   who.data, first_untimed ? "after its last timed line at" : "at", t,
		   first_untimed ? "it tore its NCCL communicators down (those lines carry no time)"
		   : warned ? "its process exited (PyTorch warned that destroy_process_group() was not called before"
			       " program exit)"
			     : "it tore its NCCL communicators down",
		   t0);
	if (first->exited)
		buf_printf(&v->summary, "; it exited with code %d", first->exit_code);
	else if (q_int(d->db, 0, "SELECT count(*) FROM sources WHERE kind = 'console'") > 0)
		buf_puts(&v->summary, "; its launcher reported no failure for it, so it most likely ended normally"
				      " (status 0: a return or sys.exit that the other ranks did not make)");
	else
		buf_puts(&v->summary, "; the launcher's output is not in the logs, but with no error of its own it most"
				      " likely ended normally (a return or sys.exit that the other ranks did not make)");
	if (first->last_step >= 0)
		buf_printf(&v->summary, ", after step %ld", first->last_step);
	buf_printf(&v->summary, ". Its peers went on, waited for it in their next collective and failed from %s on.", t0);
	if (v->nculprits > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, " Ranks %s left at the same time.", l.data);
		buf_free(&l);
	}
	v_cite_event(v, first_ev, "the rank leaving");
	v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM events WHERE kind = 'app_step' AND rank = %d",
			      first->rank),
		     "last step");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT event_id FROM events WHERE class IN ('timeout', 'error') AND rank IS NOT NULL"
			      " AND rank <> %d AND time_us IS NOT NULL ORDER BY time_us, event_id LIMIT 1", first->rank),
		     "a peer failing");
	buf_free(&who);
	return true;
}
