/* diagnosis_absent.c: the failure began where the logs are missing.
 *
 * The last resort before "unknown", for bundles that lack some ranks
 * entirely (a dead node whose files could not be collected, say): when no
 * rank with logs stands out, and either
 *  - the job's first failure is a lost connection (the remote end closed it,
 *    NCCL's remote error) and no rank with logs went silent: the processes
 *    without logs are the ones that ended; or
 *  - the first sign of a failure is a rank without logs asking every rank
 *    for its flight-recorder dump (it timed out or failed first); or
 *  - whole nodes are missing, and a group timed out in a collective that
 *    every one of its members with logs had entered: a member without logs
 *    never did;
 * every rank without logs is named, with low confidence: what each did (and
 * which waited on which) is not in the bundle. */
#include "diagnosis.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "case_schema.h"

/* Every rank of the job without a line in the bundle as a culprit. */
static void name_absent(struct diagnosis *d)
{
	for (int rank = 0; rank < d->world; rank++)
		if (diag_rank_absent(d, rank))
			v_culprit(&d->v, rank);
}

/* The first group that timed out in a collective every member with logs
 * entered and that has members without logs: its group and seq into pg and
 * *seq; returns the event of its first timeout (0: no such group). */
static int64_t absent_wait(struct diagnosis *d, char *pg_out, size_t pg_size, long *seq_out)
{
	int64_t first_ev = 0;
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT c.pg, min(c.seq) FROM collectives c WHERE c.state IN ('timed_out', 'failed') AND " COLL_NOT_COMPLETED("c.")
		" AND c.pg IS NOT NULL AND c.op NOT IN ('SEND', 'RECV') GROUP BY c.pg");
	while (!first_ev && sqlite3_step(st) == SQLITE_ROW) {
		const char *pg = (const char *)sqlite3_column_text(st, 0);
		long seq = sqlite3_column_int64(st, 1);
		/* members with logs that did not enter it: the group's hang is theirs to explain */
		int64_t behind = q_int(d->db, 0,
			"SELECT count(*) FROM pg_members m WHERE m.pg = %Q AND m.rank IN (SELECT rank FROM rank_status"
			"   WHERE events > 0)"
			" AND coalesce((SELECT max(v) FROM (SELECT max(last_enqueued) AS v FROM pg_status s"
			"     WHERE s.rank = m.rank AND s.pg = m.pg"
			"   UNION ALL SELECT max(seq) FROM collectives c WHERE c.rank = m.rank AND c.pg = m.pg)), -1) < %ld",
			pg, seq);
		if (behind)
			continue;
		int64_t absent_members = 0;
		sqlite3_stmt *m = db_prepare(d->db, "SELECT rank FROM pg_members WHERE pg = ? ORDER BY rank");
		sqlite3_bind_text(m, 1, pg, -1, SQLITE_STATIC);
		while (sqlite3_step(m) == SQLITE_ROW)
			absent_members += diag_rank_absent(d, sqlite3_column_int(m, 0));
		sqlite3_finalize(m);
		if (!absent_members)
			continue;
		snprintf(pg_out, pg_size, "%s", pg);
		*seq_out = seq;
		first_ev = q_int(d->db, 0,
				 "SELECT event_id FROM collectives WHERE pg = %Q AND seq = %ld"
				 " AND state IN ('timed_out', 'failed') ORDER BY event_id LIMIT 1",
				 pg, seq);
	}
	sqlite3_finalize(st);
	return first_ev;
}

/* A group that timed out in a collective every member with logs entered
 * has its hang explained by its members without logs: then every rank
 * without logs is a culprit. The first such collective's group, seq and
 * operation go into the verdict; returns its event (0: no such group). */
static int64_t waited_on_absent(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	char pg[128] = "";
	long seq = -1;
	int64_t first_ev = absent_wait(d, pg, sizeof(pg), &seq);
	if (!first_ev)
		return 0;
	diag_pg_display(d, pg, v->pg, sizeof(v->pg));
	v->seq = seq;
	q_text(d->db, v->op, sizeof(v->op),
	       "SELECT op FROM collectives WHERE pg = %Q AND seq = %ld AND op IS NOT NULL LIMIT 1", pg, seq);
	/* an absent member may itself have waited on another absent rank:
	 * which of them began it is not in the bundle */
	name_absent(d);
	return first_ev;
}

/* Whole nodes missing: the job-wide communicator spans more nodes (NCCL's
 * nNodes) than the hosts of the ranks with logs. A rank missing beside
 * node-mates that logged is more likely a partial collection than where
 * the hang began, and is not blamed for a wait. */
static bool nodes_missing(struct diagnosis *d)
{
	int64_t hosts = q_int(d->db, 0,
		"SELECT count(DISTINCT host) FROM rank_status WHERE events > 0 AND host IS NOT NULL");
	int64_t nnodes = q_int(d->db, 0,
		"SELECT max(field(fields, 'nnodes')) FROM events WHERE kind = 'nccl_comm_info'"
		" AND field(fields, 'nranks') = %d", d->world);
	if (nnodes > 0)
		return hosts < nnodes;
	/* without NCCL's word: every host with logs has the same number of
	 * ranks, and the world needs more hosts of that size */
	int64_t per_host = q_int(d->db, 0,
		"SELECT CASE WHEN min(n) = max(n) THEN max(n) END FROM (SELECT count(*) AS n FROM rank_status"
		" WHERE events > 0 AND host IS NOT NULL GROUP BY host)");
	return per_host > 0 && d->world % per_host == 0 && hosts < d->world / per_host;
}

bool diag_waits_on_absent(struct diagnosis *d)
{
	char pg[128];
	long seq;
	return diag_ranks_absent(d) && nodes_missing(d) && absent_wait(d, pg, sizeof(pg), &seq);
}

bool diag_absent(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE || d->completed) {
		v_decline(d, "no failure was logged, or the job said it ended");
		return false;
	}
	if (!diag_ranks_absent(d)) {
		v_decline(d, "every rank of the job has lines in the input");
		return false;
	}
	int64_t lost_t = T_NONE;
	int64_t lost_ev = diag_first_lost_connection(d, &lost_t);
	int64_t wait_ev = 0;
	if (lost_ev) {
		/* a rank with logs that went silent at the loss may be the one that
		 * ended: then the absent ones are not the only candidates */
		for (size_t i = 0; i < d->nranks; i++) {
			struct rank_facts *r = &d->ranks[i];
			if (r->events && !r->has_dump && r->first_error_t == T_NONE && r->first_timeout_t == T_NONE) {
				v_decline(d, "a rank with logs went silent at the lost connections: it may be "
					     "the one that ended, not only the ranks without logs");
				return false;
			}
		}
	}
	if (lost_ev || d->absent_request_ev) {
		name_absent(d);
	} else if (nodes_missing(d)) {
		wait_ev = waited_on_absent(d);
	}
	if (!v->nculprits) {
		v_decline(d, "the ranks with logs did not wait on the ranks without any (no lost connection, "
			     "no dump request from them, no missing node they waited on)");
		return false;
	}
	v->outcome = lost_ev ? OUTCOME(crash) : OUTCOME(hang);
	v->cause = lost_ev ? CAUSE(rank_exited) : CAUSE(rank_stalled);
	v->confidence = CONFIDENCE(low);
	v->first_failure_t = lost_ev ? lost_t : d->t0;
	struct buf l = {0};
	fmt_rank_list(v->culprits, v->nculprits, &l);
	char t[32];
	fmt_time(v->first_failure_t, t, sizeof(t));
	const char *who = v->nculprits > 1 ? "ranks" : "rank";
	if (lost_ev)
		buf_printf(&v->summary,
			   "No rank with logs stands out: from %s on they lost their connections (closed by the remote"
			   " end) and failed after it. The bundle has no line at all from %s %s, so the failure most"
			   " likely began there: %s process%s ended first (killed, crashed, or %s node went down).",
			   t, who, l.data, v->nculprits > 1 ? "their" : "its", v->nculprits > 1 ? "es" : "",
			   v->nculprits > 1 ? "their" : "its");
	else if (d->absent_request_ev)
		buf_printf(&v->summary,
			   "No rank with logs stands out: the first sign of a failure is rank %lld asking every rank for"
			   " its flight-recorder dump at %s (it timed out or failed first), and the bundle has no line"
			   " at all from %s %s: the failure most likely began there (their logs would tell).",
			   (long long)q_int(d->db, -1, "SELECT field(fields, 'from_rank') FROM events WHERE event_id = %lld",
					    (long long)d->absent_request_ev),
			   t, who, l.data);
	else
		buf_printf(&v->summary,
			   "No rank with logs stands out: every member with logs of the group that timed out first had"
			   " entered %s #%ld of group %s, and they timed out from %s on. The bundle has no line at all"
			   " from %s %s: the failure most likely began there (a stall, a frozen node or a dead"
			   " process: their logs would tell).",
			   v->op[0] ? v->op : "collective", v->seq, v->pg, t, who, l.data);
	if (lost_ev)
		v_cite_event(v, lost_ev, "a peer losing its connection");
	else if (d->absent_request_ev)
		v_cite_event(v, d->absent_request_ev, "the dump request of a rank without logs");
	else
		v_cite_event(v, wait_ev, "a peer waiting");
	buf_free(&l);
	return true;
}
