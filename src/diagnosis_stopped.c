/* diagnosis_stopped.c: a job stopped from outside while it ran.
 *
 * A scheduler's cancel, a preemption, a time limit or an operator sends the
 * whole job SIGTERM: every launcher logs that it got a death signal and
 * shuts its workers down, whose peers then lose their connections. When no
 * rank had failed before it and every rank was still logging just before
 * it, nothing in the job broke: it was stopped. No rank is to blame; what
 * failed after it was the teardown. (A job stopped after its ranks had gone
 * silent was hung first: diagnosis_model.c's teardown, then the hang rules.) */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>

#include "case_db.h"


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
	v->outcome = OUTCOME(crash);
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
