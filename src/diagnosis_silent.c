/* diagnosis_silent.c: the silence rules: ranks, or a whole host, that went
 * silent and answered nothing (unresponsive), and a live rank that never
 * timed out while the others did (by the logs' text, without dumps). */
#include "diagnosis.h"
#include "diagnosis_hang.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "case_schema.h"

/* The ranks that went silent at the hang (no line, no dump after it, and no
 * exit well before it), into *silent (NULL: only counted); their number.
 * *responsive: the ranks that did answer. */
static size_t silent_ranks(struct diagnosis *d, int **silent, size_t *responsive)
{
	size_t ns = 0, cap = 0;
	*responsive = 0;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (!r->events)
			continue;
		if (r->responsive) {
			(*responsive)++;
			continue;
		}
		if (r->exited && r->exit_t != T_NONE && r->exit_t < d->t0 - SLACK_US)
			continue;
		if (r->nccl_file_only)
			continue;
		/* lines without a time (an excerpt's): when it went quiet is unknown */
		if (r->last_t == T_NONE)
			continue;
		if (silent) {
			xgrow(silent, &cap, ns + 1, sizeof(**silent));
			(*silent)[ns] = r->rank;
		}
		ns++;
	}
	return ns;
}

bool hang_any_unresponsive(struct diagnosis *d)
{
	size_t responsive;
	return silent_ranks(d, NULL, &responsive) > 0 && responsive > 0;
}


/* Every rank with logs of host (two or more) silent since the failure (no
 * line, no dump: not responsive). */
static bool host_silent(struct diagnosis *d, const char *host)
{
	int on_host = 0;
	for (size_t j = 0; j < d->nranks; j++)
		if (d->ranks[j].events && strcmp(d->ranks[j].host, host) == 0) {
			on_host++;
			if (d->ranks[j].responsive)
				return false;
		}
	return on_host >= 2;
}

/* Every culprit so far on a host gone silent whole: whole hosts stopped
 * (frozen, their launchers' copies of the last lines lost with them), which
 * the unresponsive diagnosis names, every rank of them; how far each rank
 * got is luck. */
bool hang_all_hosts_silent(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	for (size_t i = 0; i < v->nculprits; i++) {
		struct rank_facts *f = diag_rank(d, v->culprits[i]);
		if (!f || !host_silent(d, f->host))
			return false;
	}
	return v->nculprits > 0;
}

/* ---- silent ranks: a frozen host or a hard-hung process ---- */

bool diag_unresponsive(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	int *silent = NULL;
	size_t responsive;
	size_t ns = silent_ranks(d, &silent, &responsive);
	/* most ranks silent: the few that went on logging are the odd ones
	 * (a teardown no line shows, say), not the many */
	if (ns == 0 || responsive == 0 || diag_majority(ns, diag_ranks_with_logs(d))) {
		free(silent);
		v_decline(d, "no rank went silent while others answered, or most ranks did");
		return false;
	}
	/* no rank got past NCCL's init: a rank waiting there for a peer logs
	 * nothing (bootstrap), so silence tells nothing of who stopped */
	if (!d->past_init) {
		free(silent);
		v_decline(d, "no rank got past NCCL's init: silence there tells nothing of who stopped");
		return false;
	}
	/* whole hosts gone silent */
	bool whole_host = true;
	for (size_t i = 0; i < ns && whole_host; i++)
		whole_host = host_silent(d, diag_rank(d, silent[i])->host);
	for (size_t i = 0; i < ns; i++)
		v_culprit(v, silent[i]);
	v->outcome = OUTCOME(hang);
	v->cause = whole_host ? CAUSE(node_unresponsive) : CAUSE(rank_stalled);
	v->first_failure_t = d->t0;
	bool frozen = false;
	int64_t last_t = T_NONE;
	long last_step = -1;
	/* silent ranks that the launcher started again: their first processes ended */
	size_t ran_again = 0;
	bool restarts = q_int(d->db, 0, "SELECT count(*) FROM sqlite_temp_master WHERE name = 'rank_restart'") > 0;
	for (size_t i = 0; i < ns; i++) {
		struct rank_facts *r = diag_rank(d, silent[i]);
		frozen |= r->frozen;
		if (restarts && q_int(d->db, 0, "SELECT count(*) FROM temp.rank_restart WHERE rank = %d", r->rank) > 0)
			ran_again++;
		if (r->last_t != T_NONE && (last_t == T_NONE || (r->last_progress_t != T_NONE ? r->last_progress_t : r->last_t) > last_t))
			last_t = r->last_progress_t != T_NONE ? r->last_progress_t : r->last_t;
		if (r->last_step > last_step)
			last_step = r->last_step;
	}
	v->confidence = frozen || d->any_dump ? CONFIDENCE(high) : CONFIDENCE(medium);
	/* a whole host silent, without its launcher's console: one rank's
	 * death, after which the launcher stops the host's other ranks, leaves
	 * the same silence (the exit report is in the console only) */
	bool no_console = false;
	if (whole_host && !frozen)
		for (size_t i = 0; i < ns && !no_console; i++)
			no_console = !q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM sources WHERE kind = 'console' AND host = %Q)",
					    diag_rank(d, silent[i])->host);
	if (no_console)
		v->confidence = CONFIDENCE(low);
	bool ended = !frozen && ran_again == ns;
	if (ended) {
		v->outcome = OUTCOME(crash);
		v->cause = CAUSE(rank_exited);
		v->confidence = CONFIDENCE(low);
	}
	struct buf hosts = {0}, l = {0};
	fmt_rank_list(silent, ns, &l);
	diag_hosts_json(d, silent, ns, &hosts);
	char t[32], t0[32];
	fmt_time(last_t, t, sizeof(t));
	fmt_time(d->t0, t0, sizeof(t0));
	struct rank_facts *r0 = diag_rank(d, silent[0]);
	/* TORCH_DISTRIBUTED_DEBUG=DETAIL: the others gave up in the checks'
	 * barriers (diagnosis_checks.c), not in NCCL's watchdog */
	int64_t checks = q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'pg_check_absent'");
	if (whole_host)
		buf_printf(&v->summary, "Every rank of %s (rank%s %s) went silent", r0->host, ns > 1 ? "s" : "", l.data);
	else
		buf_printf(&v->summary, "Rank%s %s went silent", ns > 1 ? "s" : "", l.data);
	buf_printf(&v->summary, " after %s", t);
	if (last_step >= 0)
		buf_printf(&v->summary, " (step %ld)", last_step);
	if (ended)
		buf_printf(&v->summary, " while the other ranks timed out from %s on; the launcher started %s again in new"
					" processes, so %s first process%s ended (killed or crashed without a trace)%s",
			   t0, ns > 1 ? "them" : "it", ns > 1 ? "their" : "its", ns > 1 ? "es" : "",
			   ns > 1 ? ": which of them went first, only the launcher's report would tell" : "");
	else
		buf_printf(&v->summary, " without exiting: nothing from %s while the other ranks %s from %s on and %s",
			   ns > 1 ? "them" : "it",
			   !checks ? "timed out"
			   : ns > 1 ? "failed PyTorch's collective checks (barriers they never reached)"
				    : "failed PyTorch's collective checks (barriers it never reached)",
			   t0,
			   d->any_dump ? "answered the dump request" : "went on logging");
	if (d->any_dump && !ended)
		buf_printf(&v->summary, ", and no flight-recorder dump from %s", ns > 1 ? "them" : "it");
	buf_putc(&v->summary, '.');
	if (no_console)
		buf_puts(&v->summary, " Without the launcher's console of that host, one rank dying (its launcher then"
				      " stopping the others) would look the same.");
	if (frozen) {
		for (size_t i = 0; i < ns; i++) {
			struct rank_facts *r = diag_rank(d, silent[i]);
			if (r->frozen) {
				char ran[64] = "";
				q_text(d->db, ran, sizeof(ran),
				       "SELECT field(fields, 'ran_ms') || ' ms against a ' ||"
				       " field(fields, 'timeout_ms') || ' ms timeout' FROM events WHERE event_id = %lld",
				       (long long)r->frozen_event);
				buf_printf(&v->summary, " When it came back, rank %d's watchdog reported a collective"
							" running for %s: the process%s not scheduled at all (%s).",
					   r->rank, ran, whole_host ? "es were" : " was",
					   whole_host ? "host frozen or processes stopped" : "process stopped");
				v_cite_event(v, r->frozen_event, "watchdog that could not run");
				break;
			}
		}
	}
	int64_t wev = diag_wait_into_verdict(d);
	for (size_t i = 0; i < ns && i < 4; i++)
		v_cite_event(v, q_int(d->db, 0,
				      "SELECT event_id FROM events WHERE rank = %d AND coalesce(clock,'') <> 'inherited'"
				      " AND time_us <= %lld ORDER BY time_us DESC, source_id, line_no DESC LIMIT 1",
				      silent[i], (long long)d->t0),
			     "last sign of life");
	v_cite_event(v, wev, "peers waiting");
	v_cite_event(v, checks, "a check's barrier that gave up waiting");
	if (d->any_dump)
		v_missing(v, "flight-recorder dumps of ranks %s (they never wrote one)", l.data);
	buf_free(&hosts);
	buf_free(&l);
	free(silent);
	return true;
}

/* ---- without dumps: a live rank that never timed out while the others did ---- */

bool diag_stalled_text(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	size_t timed_out = 0;
	for (size_t i = 0; i < d->nranks; i++)
		if (d->ranks[i].first_timeout_t != T_NONE)
			timed_out++;
	if (!timed_out) {
		v_decline(d, "no rank's watchdog timed out");
		return false;
	}
	/* with ranks of the job missing from the bundle, failures that are not
	 * a watchdog's timeout (an NCCL error, a peer lost) point at those: a
	 * dead one took its connections down, and a live rank that had no
	 * transfer with it then has nothing to report; so does a job whose
	 * first failure is a lost connection (a peer's process gone), or a
	 * group whose members with logs all entered the call they timed out in
	 * (its members without logs never did) */
	int64_t lost_t;
	if (diag_ranks_absent(d) > 0 &&
	    (!q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind = 'pg_watchdog_timeout')") ||
	     diag_first_lost_connection(d, &lost_t) || diag_waits_on_absent(d))) {
		v_decline(d, "ranks without any logs may be the cause: the failures point at them (an NCCL "
			     "error, a lost connection, a call every member with logs entered)");
		return false;
	}
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (!r->events || !r->responsive || r->first_timeout_t != T_NONE)
			continue;
		if (r->first_error_t != T_NONE && r->first_error_t < d->t0 + SLACK_US)
			continue;
		if (r->exited && r->exit_t != T_NONE && r->exit_t < d->t0)
			continue;
		v_culprit(v, r->rank);
	}
	/* many ranks idle in host code at once did not each stall on their
	 * own (as in diag_stalled): they wait on something no line shows */
	if (!v->nculprits || (v->nculprits > 2 && !diag_few(d, v->nculprits))) {
		v_decline(d, v->nculprits ? "too many ranks never timed out while alive: they wait on something no line shows"
					  : "every rank that answered timed out too: none stands out by the logs' text");
		return (v->nculprits = 0, false);
	}
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(rank_stalled);
	v->first_failure_t = d->t0;
	/* ranks of several hosts, each stuck outside any collective: as likely
	 * the consequence of a fault no line shows (a call the others made
	 * differently, matched by NCCL) as several stalls at once */
	const char *host0 = diag_rank(d, v->culprits[0])->host;
	v->confidence = CONFIDENCE(medium);
	for (size_t i = 1; i < v->nculprits; i++)
		if (strcmp(diag_rank(d, v->culprits[i])->host, host0) != 0)
			v->confidence = CONFIDENCE(low);
	/* half the job or more without a line (an excerpt, one host's files):
	 * the few that timed out say nothing of what the others did */
	if (d->world > 0 && 2 * diag_ranks_absent(d) >= (size_t)d->world) {
		v_decline(d, "half the job's ranks or more have no line: the few that timed out say nothing of the others");
		return (v->nculprits = 0, false);
	}
	int64_t wev = diag_wait_into_verdict(d);
	struct buf l = {0}, who = {0};
	fmt_rank_list(v->culprits, v->nculprits, &l);
	if (v->nculprits == 1)
		rank_desc(d, v->culprits[0], &who);
	else
		buf_printf(&who, "ranks %s", l.data);
	char t0[32];
	fmt_time(d->t0, t0, sizeof(t0));
	bool dumped = true;
	for (size_t i = 0; i < v->nculprits; i++) {
		struct rank_facts *c = diag_rank(d, v->culprits[i]);
		dumped &= c && c->has_dump;
	}
	buf_printf(&v->summary, "%s never timed out while every other rank did (from %s on): %s alive (%s %s) but"
				" not inside any collective, so %s in host code before the collective %s peers waited on",
		   who.data, t0, v->nculprits == 1 ? "it was" : "they were", v->nculprits == 1 ? "it" : "they",
		   dumped ? "answered the dump request" : "logged after the first failure",
		   v->nculprits == 1 ? "it stopped" : "they stopped", v->nculprits == 1 ? "its" : "their");
	if (v->pg[0] && v->peer_op[0])
		buf_printf(&v->summary, " (probably the %s its peers' %s #%ld of group %s waited for)", v->op, v->peer_op,
			   v->seq, v->pg);
	else if (v->pg[0])
		buf_printf(&v->summary, " (probably %s #%ld of group %s)", v->op, v->seq, v->pg);
	buf_putc(&v->summary, '.');
	for (size_t i = 0; i < v->nculprits && i < 4; i++) {
		int rank = v->culprits[i];
		v_cite_event(v, hang_last_app_line(d, rank),
			     "last application line");
		v_cite_event(v, q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE rank = %d AND kind = 'pg_dump_signal'",
				      rank),
			     "alive after the failure");
	}
	v_cite_event(v, wev, "peers waiting");
	if (!d->any_dump)
		v_missing(v, "flight-recorder dumps (TORCH_FR_BUFFER_SIZE): they would show each rank's last enqueued collective");
	buf_free(&l);
	buf_free(&who);
	return true;
}
