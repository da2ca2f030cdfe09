/* diagnosis_mismatch.c: the mismatch rules: the ranks of a group called
 * different collectives at one sequence number (after a failure, in a hang
 * nobody reported, in a job that ended), told from the group's history,
 * its later calls or the majority; NCCL's "message truncated" alone. */
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

struct site {
	char pg[128];
	long seq;
	struct sig *s;
	size_t n;
	bool *deviant;
	struct sig expect;
	bool have_expect;
	const char *how; /* how the deviants were told, NULL when they could not be */
	const char *confidence;
};

static void site_free(struct site *st)
{
	free(st->s);
	free(st->deviant);
}

static size_t count_matching(const struct site *site)
{
	size_t matching = 0;
	for (size_t i = 0; i < site->n; i++)
		matching += hang_sig_eq(&site->s[i], &site->expect);
	return matching;
}

/* Whether the group's later calls tell the deviants (some ranks, not all,
 * made the call they predict); sets the site's expectation if so. */
static bool later_told(struct diagnosis *d, struct site *site)
{
	struct sig later;
	if (site->n < 2 || !hang_predict_from_later(d, site->pg, site->seq, &later))
		return false;
	struct sig saved = site->expect;
	site->expect = later;
	size_t matching = count_matching(site);
	if (matching > 0 && matching < site->n) {
		site->have_expect = true;
		return true;
	}
	site->expect = saved;
	return false;
}

/* Loads each rank's call at (pg, seq), flight recorder first, then a row
 * that names the element type (NCCL's COLL line beside the watchdog's), and
 * tells the deviants: from the group's own history, else from the majority. */
static void judge_site(struct diagnosis *d, struct site *site)
{
	size_t cap = 0;
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT rank, op, numel_in, numel_out, event_id, dtype, evidence <> 'flight recorder'"
		" FROM collectives WHERE pg = ?1 AND seq = ?2"
		" ORDER BY rank, evidence <> 'flight recorder', dtype IS NULL, event_id");
	sqlite3_bind_text(st, 1, site->pg, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, site->seq);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int rank = sqlite3_column_int(st, 0);
		if (site->n && site->s[site->n - 1].rank == rank)
			continue;
		xgrow(&site->s, &cap, site->n + 1, sizeof(*site->s));
		struct sig *g = &site->s[site->n++];
		g->rank = rank;
		db_column_text_copy(st, 1, g->op, sizeof(g->op));
		g->in = db_column_int_or(st, 2, -1);
		g->out = db_column_int_or(st, 3, -1);
		g->event_id = sqlite3_column_int64(st, 4);
		hang_sig_dtype(g, st, 5);
		g->not_fr = sqlite3_column_int(st, 6);
	}
	sqlite3_finalize(st);
	size_t n = site->n;
	site->deviant = xcalloc(n ? n : 1, sizeof(bool));
	site->have_expect = hang_predict(d, site->pg, site->seq, &site->expect);
	size_t matching = site->have_expect ? count_matching(site) : 0;
	if (site->have_expect && matching > 0 && matching < n) {
		site->how = "the group's own history";
		site->confidence = CONFIDENCE(high);
	} else if (!site->have_expect && later_told(d, site)) {
		site->how = "the group's later calls, which every rank made alike";
		site->confidence = CONFIDENCE(medium);
	} else {
		size_t best = 0, best_count = 0;
		bool tie = false;
		for (size_t i = 0; i < n; i++) {
			size_t c = 0;
			for (size_t j = 0; j < n; j++)
				c += hang_sig_eq(&site->s[i], &site->s[j]);
			if (c > best_count) {
				best = i;
				best_count = c;
				tie = false;
			} else if (c == best_count && !hang_sig_eq(&site->s[i], &site->s[best])) {
				tie = true;
			}
		}
		if (!tie && best_count * 2 > n) {
			site->expect = site->s[best];
			site->have_expect = true;
			site->how = "the majority of the group";
			site->confidence = CONFIDENCE(medium);
		} else {
			site->how = NULL;
			site->confidence = CONFIDENCE(low);
		}
	}
	for (size_t i = 0; i < n; i++)
		site->deviant[i] = site->how ? !hang_sig_eq(&site->s[i], &site->expect) : true;
}

/* NCCL's "message truncated": the ranks' sizes differed, which calls
 * exactly no two ranks recorded at the same seq. */
static bool truncated_message(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	int64_t ev = q_int(d->db, 0,
		"SELECT event_id FROM events WHERE kind = 'nccl_socket_truncated' AND rank IS NOT NULL"
		" ORDER BY time_us IS NULL, time_us LIMIT 1");
	if (!ev)
		return false;
	int rank = (int)q_int(d->db, -1, "SELECT rank FROM events WHERE event_id = %lld", (long long)ev);
	/* the receiver saw it; the sender may as well be the one that deviated */
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(collective_mismatch);
	v->confidence = CONFIDENCE(low);
	v->first_failure_t = d->t0;
	int64_t wev = diag_wait_into_verdict(d);
	struct buf who = {0};
	rank_desc(d, rank, &who);
	buf_printf(&v->summary,
		   "%s received a message of the wrong size from a peer (NCCL: \"message truncated\"): the ranks"
		   " called collectives of different sizes or in a different order. Which rank deviated cannot be told"
		   " from these logs (the receiver may be the one that called the right size).",
		   who.data);
	if (v->pg[0])
		buf_printf(&v->summary, " Its peers then timed out on %s #%ld of group %s.", v_peer_op(v), v->seq, v->pg);
	v_cite_event(v, ev, "size mismatch seen by NCCL");
	v_cite_event(v, wev, "peers waiting");
	v_missing(v, "flight-recorder entries of the ranks at that sequence number (to see each rank's collective)");
	buf_free(&who);
	return true;
}

static bool any_timeout(const struct diagnosis *d)
{
	for (size_t i = 0; i < d->nranks; i++)
		if (d->ranks[i].first_timeout_t != T_NONE)
			return true;
	return false;
}

/* When the mismatch rule is tried: a failure was logged, none was and the
 * job did not end (a hang nobody reported), or the job ended. */
enum mismatch_when { MM_FAILED, MM_UNTIMED, MM_ENDED };

static bool mismatch_rule(struct diagnosis *d, enum mismatch_when when)
{
	struct verdict *v = &d->v;
	/* every (group, seq) where ranks disagree on op or size, earliest first */
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT pg, seq FROM collectives WHERE pg IS NOT NULL AND seq IS NOT NULL"
		" AND op NOT IN (" DIAG_UNCOMPARED_OPS ")"
		" GROUP BY pg, seq HAVING count(DISTINCT op) > 1 OR count(DISTINCT numel_in) > 1"
		"   OR count(DISTINCT numel_out) > 1 OR count(DISTINCT dtype) > 1"
		" ORDER BY min(time_created_us) IS NULL, min(time_created_us), seq LIMIT 4096");
	struct site first = {0};
	size_t sites = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct site site = {0};
		db_column_text_copy(st, 0, site.pg, sizeof(site.pg));
		site.seq = sqlite3_column_int64(st, 1);
		judge_site(d, &site);
		/* rows of one rank that differ by their evidence (a barrier is an
		 * ALLREDUCE to the watchdog) are no disagreement between ranks */
		size_t deviants = 0;
		for (size_t i = 0; i < site.n; i++)
			deviants += site.deviant[i];
		if (site.n < 2 || deviants == 0) {
			site_free(&site);
			continue;
		}
		/* the first site is the verdict's; the others (other copies of the
		 * same mistake, in other groups) add their deviants when decided */
		if (sites == 0 || site.how)
			for (size_t i = 0; i < site.n; i++)
				if (site.deviant[i])
					v_culprit(v, site.s[i].rank);
		if (sites++ == 0)
			first = site;
		else
			site_free(&site);
	}
	sqlite3_finalize(st);
	if (sites == 0) {
		/* a job that ended has no "message truncated" to explain */
		if (when != MM_ENDED && truncated_message(d))
			return true;
		v_decline(d, "no group has ranks that called a different collective (op, size or type) at one"
			     " sequence number%s", when != MM_ENDED ? ", and NCCL reported no truncated message" : "");
		return false;
	}

	struct site *f = &first;
	/* no timeout: NCCL matched the different calls anyway and the job ran on */
	v->outcome = when == MM_ENDED ? OUTCOME(completed) : OUTCOME(hang);
	v->cause = CAUSE(collective_mismatch);
	v->confidence = f->confidence;
	v->first_failure_t = d->t0;
	hang_set_pg(d, f->pg);
	v->seq = f->seq;
	snprintf(v->op, sizeof(v->op), "%.31s", f->have_expect ? f->expect.op : f->s[0].op);

	struct buf who = {0};
	char a[96], b[96];
	if (f->how) {
		for (size_t i = 0; i < f->n; i++) {
			if (!f->deviant[i])
				continue;
			buf_clear(&who);
			rank_desc(d, f->s[i].rank, &who);
			bool types = f->s[i].dtype[0] && f->expect.dtype[0] && strcmp(f->s[i].dtype, f->expect.dtype) != 0;
			hang_sig_text(&f->s[i], types, a, sizeof(a));
			hang_sig_text(&f->expect, types, b, sizeof(b));
			buf_printf(&v->summary, "%s%s called %s as collective #%ld of group %s, where the other ranks called %s.",
				   v->summary.len ? " " : "", who.data, a, f->seq, v->pg, b);
			v_cite_event(v, f->s[i].event_id, "the deviating call");
		}
		/* every rank's call there completed: NCCL matched them, and the
		 * failure came later */
		bool ran_on = d->t0 != T_NONE &&
			      q_int(d->db, 0, "SELECT count(*) = sum(state = 'completed') AND count(*) > 0 FROM collectives"
					      " WHERE pg = %Q AND seq = %ld AND state IS NOT NULL", f->pg, f->seq);
		buf_printf(&v->summary, " The deviation was told from %s; %s", f->how,
			   ran_on ? "NCCL matched the different calls and the group ran on past them, with wrong data,"
				    " until the job hung later."
			   : d->t0 != T_NONE && any_timeout(d) ? "the group hung there and its peers timed out."
			   : d->t0 != T_NONE ? "the group hung there."
			   : when == MM_UNTIMED ? "the group hung there (no watchdog timeout was logged: blocking wait, a long"
					       " timeout, or logs taken before it fired)."
					     : "nothing failed: NCCL does not check that the ranks make the same call, so the"
					       " job ran on to its end, with wrong data from that collective on.");
		for (size_t i = 0; i < f->n; i++)
			if (!f->deviant[i]) {
				v_cite_event(v, f->s[i].event_id, "what the others called");
				break;
			}
	} else {
		buf_printf(&v->summary, "The ranks of group %s called different collectives as #%ld:", v->pg, f->seq);
		bool types = false;
		for (size_t i = 0; i < f->n; i++)
			for (size_t j = 0; j < i; j++)
				types |= f->s[i].dtype[0] && f->s[j].dtype[0] && strcmp(f->s[i].dtype, f->s[j].dtype) != 0;
		for (size_t i = 0; i < f->n; i++) {
			hang_sig_text(&f->s[i], types, a, sizeof(a));
			buf_printf(&v->summary, "%s rank %d %s", i ? ";" : "", f->s[i].rank, a);
			v_cite_event(v, f->s[i].event_id, "a rank's call");
		}
		buf_puts(&v->summary, ". Which one deviated cannot be told from these logs (no history of the group"
				      " and no majority).");
		v_missing(v, "flight-recorder entries of earlier collectives of the group (to tell which rank deviated)");
	}
	if (sites > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, " The same happened in %zu more places; all deviating ranks: %s.", sites - 1, l.data);
		buf_free(&l);
	}
	buf_free(&who);
	site_free(&first);
	return true;
}

bool diag_mismatch(struct diagnosis *d)
{
	return mismatch_rule(d, MM_FAILED);
}

bool diag_untimed_mismatch(struct diagnosis *d)
{
	return mismatch_rule(d, MM_UNTIMED);
}

/* A job that ended though its ranks disagreed on a collective NCCL happened
 * to complete (it does not compare them). */
bool diag_completed_mismatch(struct diagnosis *d)
{
	if (!diag_job_ended(d)) {
		v_decline(d, "the logs show no end of the job (no launcher's or app's success line, no final dump with"
			     " every collective completed, no rank that took down every communicator)");
		return false;
	}
	if (!diag_calls_disagree(d)) {
		v_decline(d, "the ranks' calls agree at every sequence number of every group");
		return false;
	}
	if (!mismatch_rule(d, MM_ENDED))
		return false;
	return true;
}
