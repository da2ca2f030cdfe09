/* diagnosis_death.c: the model of a death from outside, which the init,
 * exception and exit rules defer to: a signal or an exit status that
 * neither PyTorch's own teardown nor an error of the rank's own explains,
 * and the first failure of the others. */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "case_db.h"
#include "case_schema.h"

int64_t diag_others_first_failure(struct diagnosis *d, const struct verdict *v, int except_rank)
{
	int64_t t = T_NONE;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (r->rank == except_rank || v_has_culprit(v, r->rank) || r->first_error_t == T_NONE)
			continue;
		if (t == T_NONE || r->first_error_t < t)
			t = r->first_error_t;
	}
	return t;
}

/* ---- a death from outside (the init and exception rules defer to it) ---- */

/* The rank's process died from outside: a signal or an exit status that
 * neither PyTorch's own teardown nor an error of its own explains. */
bool diag_external_exit(const struct rank_facts *r)
{
	if (!r->exited || r->exit_code == 0 || r->sigterm_by_launcher || r->watchdog_abort)
		return false;
	/* an abort after its own collective failure is PyTorch tearing down */
	if (r->first_timeout_t != T_NONE && (r->exit_t == T_NONE || r->first_timeout_t <= r->exit_t))
		return false;
	if (strcmp(r->exit_signal, "SIGABRT") == 0 && r->first_error_t != T_NONE &&
	    (r->exit_t == T_NONE || r->first_error_t <= r->exit_t))
		return false;
	/* an exit status (not a signal) after an error of its own is that
	 * error's doing (Python exits 1 on an uncaught exception); a time on a
	 * whole second (the launcher's failure report) may be up to a second early */
	int64_t exit_by = r->exit_t != T_NONE && r->exit_t % 1000000 == 0 ? r->exit_t + 999999 : r->exit_t;
	if (r->exit_code > 0 && r->first_error_t != T_NONE && r->exit_t != T_NONE && r->first_error_t <= exit_by)
		return false;
	return true;
}

/* Killed from outside: a signal death diag_external_exit() keeps. (An exit
 * status of 1 is what Python returns after an uncaught exception: in an init
 * failure, a rank whose own error is not in the bundle.) */
bool diag_killed_from_outside(const struct rank_facts *r)
{
	return diag_external_exit(r) && r->exit_code < 0;
}

/* When the first rank killed from outside died; T_NONE if none was. */
int64_t diag_first_killed(struct diagnosis *d)
{
	int64_t first = T_NONE;
	for (size_t i = 0; i < d->nranks; i++) {
		const struct rank_facts *r = &d->ranks[i];
		if (diag_killed_from_outside(r) && r->exit_t != T_NONE && (first == T_NONE || r->exit_t < first))
			first = r->exit_t;
	}
	return first;
}
