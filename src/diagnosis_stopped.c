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
#include <stdlib.h>
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

/* The scheduler's first cancel of the job (Slurm's "CANCELLED AT"). */
struct cancel {
	int64_t ev, src, line, t;
	char reason[64], at[32], job[64], host[128];
};

static bool read_cancel(struct diagnosis *d, struct cancel *c)
{
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT event_id, source_id, line_no, coalesce(field(fields, 'reason'), ''), field(fields, 'at'),"
		" CAST(strftime('%s', replace(field(fields, 'at'), 'T', ' ')) AS INTEGER) * 1000000,"
		" coalesce(field(fields, 'job'), ''), coalesce(field(fields, 'host'), '')"
		" FROM events WHERE kind = 'slurm_cancelled' ORDER BY 6, event_id LIMIT 1");
	bool found = sqlite3_step(st) == SQLITE_ROW;
	if (found) {
		c->ev = sqlite3_column_int64(st, 0);
		c->src = sqlite3_column_int64(st, 1);
		c->line = sqlite3_column_int64(st, 2);
		db_column_text_copy(st, 3, c->reason, sizeof(c->reason));
		db_column_text_copy(st, 4, c->at, sizeof(c->at));
		c->t = sqlite3_column_type(st, 5) == SQLITE_NULL ? T_NONE : sqlite3_column_int64(st, 5);
		db_column_text_copy(st, 6, c->job, sizeof(c->job));
		db_column_text_copy(st, 7, c->host, sizeof(c->host));
	}
	sqlite3_finalize(st);
	return found;
}

/* Failure lines before the cancel: by time, or by their place in the
 * scheduler's own file when the lines have no time. */
static int64_t failures_before(struct diagnosis *d, const struct cancel *c)
{
	return q_int(d->db, 0,
		"SELECT count(*) FROM events WHERE (kind IN " FAILURE_KINDS " OR kind IN ('crash_signal', 'slurm_oom')"
		"  OR (class = 'exit' AND kind NOT IN ('launcher_worker_ok', 'torchrun_group_finished', 'mlperf_run_stop')))"
		" AND ((source_id = %lld AND line_no < %lld) OR (time_us IS NOT NULL AND %lld <> %lld AND time_us < %lld))",
		(long long)c->src, (long long)c->line, (long long)c->t, (long long)T_NONE,
		(long long)(c->t - WHOLE_SECOND_US));
}

static void say_cancel(struct buf *b, const struct cancel *c, const char *why)
{
	buf_printf(b, "Slurm cancelled %s%s%s at %s due to %s", *c->job ? c->job : "the job", *c->host ? " on " : "",
		   c->host, *c->at ? c->at : "a time the line does not give", why);
}

/* A time limit that came after some ranks had stopped. Each rank prints a
 * line per step (srun -l's label or the message names the rank, a `keep`
 * rule counts them: field n); a few ranks whose count stops short of the
 * others', which all agree on theirs, stopped while their peers waited for
 * them in the next step's collectives, and the job hung until its time ran
 * out (no watchdog fired first: a long or no collective timeout). */
bool diag_steps_behind(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	struct cancel c;
	if (!read_cancel(d, &c) || strcmp(c.reason, "TIME LIMIT") != 0) {
		v_decline(d, "no scheduler's line says the job ran out of time (Slurm's \"CANCELLED AT ... DUE TO TIME LIMIT\")");
		return false;
	}
	int64_t before = failures_before(d, &c);
	if (before > 0) {
		v_decline(d, "%lld failure line%s came before the time limit: the other rules judge them",
			  (long long)before, before == 1 ? "" : "s");
		return false;
	}
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT rank, max(CAST(field(fields, 'n') AS INTEGER)), max(time_us), max(event_id) FROM events"
		" WHERE kind = 'app_step' AND rank IS NOT NULL GROUP BY rank ORDER BY rank");
	size_t nsteppers = 0, cap = 0;
	struct stepper { int rank; int64_t n, t, ev; } *r = NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&r, &cap, nsteppers + 1, sizeof(*r));
		r[nsteppers++] = (struct stepper){ sqlite3_column_int(st, 0), sqlite3_column_int64(st, 1),
			sqlite3_column_type(st, 2) == SQLITE_NULL ? T_NONE : sqlite3_column_int64(st, 2),
			sqlite3_column_int64(st, 3) };
	}
	sqlite3_finalize(st);
	int64_t most = 0, behind_n = 0, last_t = T_NONE;
	for (size_t i = 0; i < nsteppers; i++) {
		if (r[i].n > most)
			most = r[i].n;
		if (r[i].t != T_NONE && (last_t == T_NONE || r[i].t > last_t))
			last_t = r[i].t;
	}
	for (size_t i = 0; i < nsteppers; i++)
		if (r[i].n < most) {
			v_culprit(v, r[i].rank);
			if (r[i].n > behind_n)
				behind_n = r[i].n;
		}
	size_t nbehind = v->nculprits;
	const char *no = NULL;
	if (nsteppers < 4 || nsteppers < diag_ranks_with_logs(d))
		no = "fewer than four ranks, or not every rank with logs, printed step lines";
	else if (!nbehind)
		no = "every rank printed as many step lines as the others";
	else if (!diag_few(d, nbehind) || nbehind * 4 > nsteppers)
		no = "too many ranks printed fewer step lines than the most: no few ranks stand out";
	else if (last_t != T_NONE && c.t != T_NONE && c.t - last_t < RUNNING_SILENCE_US)
		no = "the ranks still printed steps just before the time limit: a job cut while it ran";
	if (no) {
		free(r);
		v->nculprits = 0;
		v_decline(d, "%s", no);
		return false;
	}
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(rank_stalled);
	v->confidence = last_t != T_NONE ? CONFIDENCE(medium) : CONFIDENCE(low);
	int64_t culprit_ev = 0, culprit_t = T_NONE;
	for (size_t i = 0; i < nsteppers; i++)
		if (r[i].rank == v->culprits[0]) {
			culprit_ev = r[i].ev;
			culprit_t = r[i].t;
		}
	v->first_failure_t = culprit_t;
	free(r);
	buf_puts(&v->summary, nbehind == 1 ? "Rank " : "Ranks ");
	fmt_rank_list(v->culprits, nbehind, &v->summary);
	buf_printf(&v->summary, " stopped first: %s %lld step line%s where the other %zu ranks printed %lld,"
		   " and nothing followed until ", nbehind == 1 ? "it printed" : "each printed at most",
		   (long long)behind_n, behind_n == 1 ? "" : "s", nsteppers - nbehind, (long long)most);
	say_cancel(&v->summary, &c, "its time limit");
	buf_puts(&v->summary, ". The others waited for them in the next step's collectives; no watchdog timeout"
			      " fired before the limit.");
	if (last_t == T_NONE)
		buf_puts(&v->summary, " The lines have no times: how long the job had hung the logs cannot tell.");
	v_cite_event(v, culprit_ev, "the last step line of the rank that stopped");
	v_cite_event(v, c.ev, "the scheduler's cancel");
	v_missing(v, "what the stopped ranks were doing: their flight-recorder dumps or a stack dump (py-spy dump)"
		     " taken while the job hung, or a collective timeout shorter than the time limit");
	return true;
}

bool diag_cancelled(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	struct cancel c;
	if (!read_cancel(d, &c)) {
		v_decline(d, "no scheduler's line says it cancelled the job (Slurm's \"CANCELLED AT\")");
		return false;
	}
	const char *why = cancel_reason(c.reason);
	if (!why) {
		v_decline(d, "the scheduler cancelled the job for %s: a failure, which the other rules judge", c.reason);
		return false;
	}
	if (d->teardown_t != T_NONE) {
		v_decline(d, "every rank had gone silent before the job was torn down: it had hung first");
		return false;
	}
	if (d->t0 != T_NONE && c.t != T_NONE && d->t0 < c.t - WHOLE_SECOND_US) {
		v_decline(d, "a rank failed before the scheduler cancelled the job");
		return false;
	}
	int64_t before = failures_before(d, &c);
	if (before > 0) {
		v_decline(d, "%lld failure line%s (a timeout, an error, an exit) came before the scheduler's cancel",
			  (long long)before, before == 1 ? "" : "s");
		return false;
	}
	int64_t shortest = T_NONE, longest = T_NONE;
	if (c.t != T_NONE)
		diag_silence_at(d, c.t, &shortest, &longest);
	if (shortest != T_NONE && shortest > RUNNING_SILENCE_US) {
		v_decline(d, "no rank had logged for %lld s when the scheduler cancelled the job: it was not running then",
			  (long long)(shortest / 1000000));
		return false;
	}
	v->outcome = OUTCOME(cancelled);
	v->cause = CAUSE(none);
	v->confidence = shortest != T_NONE ? CONFIDENCE(medium) : CONFIDENCE(low);
	v->first_failure_t = c.t;
	buf_puts(&v->summary, "The scheduler stopped the job: ");
	say_cancel(&v->summary, &c, why);
	buf_puts(&v->summary, ", with no collective timeout, NCCL error or failed process before it. No rank is to"
			      " blame; what failed after it was the teardown.");
	if (shortest == T_NONE)
		buf_puts(&v->summary, " Whether it was still making progress then the logs cannot tell: their lines"
				      " before it have no times.");
	v_cite_event(v, c.ev, "the scheduler's cancel");
	if (strcmp(c.reason, "TIME LIMIT") == 0)
		v_missing(v, "whether the job was slow or stuck before its time ran out: timed step lines, or the"
			     " ranks' flight-recorder dumps");
	else
		v_missing(v, "why the job was cancelled: the scheduler's record of the job (sacct, the cluster's event log)");
	return true;
}
