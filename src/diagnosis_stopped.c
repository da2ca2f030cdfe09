/* diagnosis_stopped.c: a job stopped from outside while it ran.
 *
 * A scheduler's cancel, a preemption, a time limit or an operator sends the
 * whole job SIGTERM: every launcher logs that it got a death signal and
 * shuts its workers down, whose peers then lose their connections. When no
 * rank had failed before it and every rank was still logging just before
 * it, nothing in the job broke: it was stopped. No rank is to blame; what
 * failed after it was the teardown. (A job stopped after its ranks had gone
 * silent was hung first: diagnosis_model.c's teardown, then the hang rules.)
 *
 * The scheduler may say so itself: Slurm's "*** JOB N ON HOST CANCELLED AT
 * T DUE TO TIME LIMIT ***" (or PREEMPTION, JOB REQUEUE, or nothing for an
 * scancel). With no failure before it, the job was cancelled (a node
 * failure is a failure: the other rules judge it). */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <string.h>

#include "case_db.h"
#include "failure_kinds.h"


bool diag_stopped(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->stopped_t == T_NONE || d->completed || d->teardown_t != T_NONE) {
		v_decline(d, "no launcher was told to stop from outside before a failure (or the job ended, "
			     "or it had hung before)");
		return false;
	}
	/* no failure before it */
	if (d->t0 != T_NONE && d->t0 < d->stopped_t - WHOLE_SECOND_US) {
		v_decline(d, "a rank failed before the launchers were told to stop");
		return false;
	}
	int64_t shortest, longest;
	diag_silence_at(d, d->stopped_t, &shortest, &longest);
	if (longest == T_NONE || longest > RUNNING_SILENCE_US) {
		v_decline(d, "some rank had been silent for more than 10 s when the launchers were told to "
			     "stop: the job was not running then");
		return false;
	}
	v->outcome = OUTCOME(cancelled);
	v->cause = CAUSE(none);
	v->confidence = CONFIDENCE(medium);
	v->first_failure_t = d->stopped_t;
	char t[32];
	fmt_time(d->stopped_t, t, sizeof(t));
	long hosts = (long)q_int(d->db, 0, "SELECT count(DISTINCT host) FROM events WHERE kind = 'torchrun_death_signal'");
	buf_printf(&v->summary,
		   "The job was stopped from outside: every launcher (%ld host%s) got a death signal from %s on (a"
		   " scheduler's cancel or preemption, a time limit, an operator), while every rank was still running"
		   " (each logged less than %lld s before it). No rank failed before that, so none is to blame; what"
		   " failed after it was the teardown.",
		   hosts, hosts == 1 ? "" : "s", t, RUNNING_SILENCE_US / 1000000);
	v_cite_event(v, q_int(d->db, 0, "SELECT event_id FROM events WHERE kind = 'torchrun_death_signal'"
					" ORDER BY time_us, event_id LIMIT 1"),
		     "the launcher told to stop");
	v_missing(v, "why the job was stopped: the scheduler's record of the job (sacct, the cluster's event log)");
	return true;
}

/* The scheduler's words for why it cancelled the job, in a sentence. */
static const char *cancel_reason(const char *reason)
{
	if (!reason || !*reason)
		return "a cancel (scancel, an operator or a dependency)";
	if (strcmp(reason, "TIME LIMIT") == 0)
		return "its time limit";
	if (strcmp(reason, "PREEMPTION") == 0)
		return "a preemption";
	if (strcmp(reason, "JOB REQUEUE") == 0)
		return "a requeue";
	return NULL;
}

bool diag_cancelled(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT event_id, source_id, line_no, coalesce(field(fields, 'reason'), ''), field(fields, 'at'),"
		" CAST(strftime('%s', replace(field(fields, 'at'), 'T', ' ')) AS INTEGER) * 1000000,"
		" coalesce(field(fields, 'job'), ''), coalesce(field(fields, 'host'), '')"
		" FROM events WHERE kind = 'slurm_cancelled' ORDER BY 6, event_id LIMIT 1");
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		v_decline(d, "no scheduler's line says it cancelled the job (Slurm's \"CANCELLED AT\")");
		return false;
	}
	int64_t ev = sqlite3_column_int64(st, 0), src = sqlite3_column_int64(st, 1), line = sqlite3_column_int64(st, 2);
	char reason[64], at[32], job[64], host[128];
	db_column_text_copy(st, 3, reason, sizeof(reason));
	db_column_text_copy(st, 4, at, sizeof(at));
	int64_t t = sqlite3_column_type(st, 5) == SQLITE_NULL ? T_NONE : sqlite3_column_int64(st, 5);
	db_column_text_copy(st, 6, job, sizeof(job));
	db_column_text_copy(st, 7, host, sizeof(host));
	sqlite3_finalize(st);
	const char *why = cancel_reason(reason);
	if (!why) {
		v_decline(d, "the scheduler cancelled the job for %s: a failure, which the other rules judge", reason);
		return false;
	}
	if (d->teardown_t != T_NONE) {
		v_decline(d, "every rank had gone silent before the job was torn down: it had hung first");
		return false;
	}
	/* a failure before the cancel, by time, or by its place in the
	 * scheduler's own file when the lines have no time */
	if (d->t0 != T_NONE && t != T_NONE && d->t0 < t - WHOLE_SECOND_US) {
		v_decline(d, "a rank failed before the scheduler cancelled the job");
		return false;
	}
	int64_t before = q_int(d->db, 0,
		"SELECT count(*) FROM events WHERE (kind IN " FAILURE_KINDS " OR kind IN ('crash_signal', 'slurm_oom')"
		"  OR (class = 'exit' AND kind NOT IN ('launcher_worker_ok', 'torchrun_group_finished', 'mlperf_run_stop')))"
		" AND ((source_id = %lld AND line_no < %lld) OR (time_us IS NOT NULL AND %lld <> %lld AND time_us < %lld))",
		(long long)src, (long long)line, (long long)t, (long long)T_NONE, (long long)(t - WHOLE_SECOND_US));
	if (before > 0) {
		v_decline(d, "%lld failure line%s (a timeout, an error, an exit) came before the scheduler's cancel",
			  (long long)before, before == 1 ? "" : "s");
		return false;
	}
	int64_t shortest = T_NONE, longest = T_NONE;
	if (t != T_NONE)
		diag_silence_at(d, t, &shortest, &longest);
	if (shortest != T_NONE && shortest > RUNNING_SILENCE_US) {
		v_decline(d, "no rank had logged for %lld s when the scheduler cancelled the job: it was not running then",
			  (long long)(shortest / 1000000));
		return false;
	}
	v->outcome = OUTCOME(cancelled);
	v->cause = CAUSE(none);
	v->confidence = shortest != T_NONE ? CONFIDENCE(medium) : CONFIDENCE(low);
	v->first_failure_t = t;
	buf_printf(&v->summary, "The scheduler stopped the job: Slurm cancelled %s%s%s at %s due to %s, with no"
		   " collective timeout, NCCL error or failed process before it. No rank is to blame; what failed"
		   " after it was the teardown.",
		   *job ? job : "the job", *host ? " on " : "", host, *at ? at : "a time the line does not give", why);
	if (shortest == T_NONE)
		buf_puts(&v->summary, " Whether it was still making progress then the logs cannot tell: their lines"
				      " before it have no times.");
	v_cite_event(v, ev, "the scheduler's cancel");
	if (strcmp(reason, "TIME LIMIT") == 0)
		v_missing(v, "whether the job was slow or stuck before its time ran out: timed step lines, or the"
			     " ranks' flight-recorder dumps");
	else
		v_missing(v, "why the job was cancelled: the scheduler's record of the job (sacct, the cluster's event log)");
	return true;
}
