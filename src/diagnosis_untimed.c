/* diagnosis_untimed.c: going past a call (a rank ahead of its group and
 * behind elsewhere, a transfer one end never matched, by the order of a
 * peer's lines), which the stall rule and a hang no watchdog reported
 * share; and the untimed hang's rule: the rank behind the others. */
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

/* ---- a hang no watchdog reported ---- */

/* Starts a hang verdict of cause and confidence; untimed (no rank timed out,
 * failed or exited): the summary opens saying so, and
 * untimed_verdict_end() closes it. */
static void hang_verdict_begin(struct diagnosis *d, const char *cause, const char *confidence, bool timed)
{
	struct verdict *v = &d->v;
	v->outcome = OUTCOME(hang);
	v->cause = cause;
	v->confidence = confidence;
	v->first_failure_t = timed ? d->t0 : T_NONE;
	if (!timed)
		buf_puts(&v->summary, "No rank timed out, failed or exited, and the job did not finish: the logs end"
				      " while the ranks wait. ");
}

static void untimed_verdict_end(struct diagnosis *d)
{
	buf_puts(&d->v.summary, " No watchdog timeout was logged (blocking wait, a long timeout, or logs taken before"
				" it fired).");
	if (!d->any_dump)
		v_missing(&d->v, "a watchdog timeout or flight-recorder dumps: they would show where each rank waited");
}

/* A peer of rank that enqueued pg #seq (preferring one whose operation is
 * known): its rank (-1: none), its event in *ev, the operation into the
 * verdict's op. */
static int peer_that_made(struct diagnosis *d, const char *pg, long seq, int rank, int64_t *ev)
{
	int peer = -1;
	sqlite3_stmt *st = db_prepare(d->db, "SELECT rank, op, event_id FROM collectives WHERE pg = ?1 AND seq = ?2"
					     " AND rank <> ?3 ORDER BY op IS NULL, rank LIMIT 1");
	sqlite3_bind_text(st, 1, pg, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, seq);
	sqlite3_bind_int(st, 3, rank);
	if (sqlite3_step(st) == SQLITE_ROW) {
		peer = sqlite3_column_int(st, 0);
		snprintf(d->v.op, sizeof(d->v.op), "%s",
			 sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1) : "");
		*ev = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	return peer;
}

/* A rank behind its peers in some group while alone ahead of all of them in
 * another group of three or more: it went on past a call it never made (a
 * skipped collective, a rank that left the loop for the final barrier). Its
 * peers, behind it only there, are waiting for it. The call it skipped: in
 * the group its own order of calls says came next, among those it is
 * behind in. le_sql: the CTEs le (each rank's last seq per group), ext and
 * cmp (with the group's extremes) of AHEAD_LE_SQL. timed: the job timed
 * out, and the rank must have timed out too (waiting where it went on). */
bool hang_skipped_ahead(struct diagnosis *d, const char *le_sql, bool timed)
{
	struct verdict *v = &d->v;
	/* ranks missing from the bundle, and no dumps to list each group's
	 * members: a group's known members are only those with logs, and one
	 * without may be ahead as well */
	if (diag_ranks_absent(d) > 0 && !d->has_fr)
		return false;
	char *sql = sqlite3_mprintf(
		"%s, lead AS (SELECT pg, count(*) AS members, sum(le = mx) AS at_max FROM le JOIN ext USING(pg)"
		"   GROUP BY pg)"
		" SELECT c.rank, c.pg, c.le FROM cmp c JOIN lead l USING(pg)"
		" WHERE l.members >= 3 AND (l.at_max = 1 OR 2 * l.at_max < l.members) AND c.le = c.peer_max"
		"   AND c.peer_max > c.peer_min"
		"   AND EXISTS (SELECT 1 FROM cmp b WHERE b.rank = c.rank AND b.le < b.peer_max)"
		/* alone ahead only among members with logs: a member without any
		 * may be ahead as well */
		"   AND NOT EXISTS (SELECT 1 FROM pg_members pm WHERE pm.pg = c.pg"
		"     AND pm.rank NOT IN (SELECT rank FROM rank_status WHERE events > 0))"
		" ORDER BY c.rank", le_sql);
	sqlite3_stmt *st = db_prepare(d->db, sql);
	sqlite3_free(sql);
	int rank = -1, last = -1;
	size_t n = 0, cap = 0;
	int *ahead = NULL;
	char ahead_pg[128] = "";
	long ahead_le = -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int r = sqlite3_column_int(st, 0);
		if (r != last) {
			xgrow(&ahead, &cap, n + 1, sizeof(*ahead));
			ahead[n++] = last = r;
		}
		if (rank < 0) {
			rank = r;
			db_column_text_copy(st, 1, ahead_pg, sizeof(ahead_pg));
			ahead_le = (long)sqlite3_column_int64(st, 2);
		}
	}
	sqlite3_finalize(st);
	/* one rank, or a few that went on alike (a node's ranks, every rank
	 * that took the same branch): more would be no one's odd move */
	bool alike = n == 1 || (n > 1 && diag_few(d, n));
	for (size_t i = 0; alike && timed && i < n; i++) {
		struct rank_facts *f = diag_rank(d, ahead[i]);
		alike = f && f->first_timeout_t != T_NONE && !diag_waits_in_transfer(d, ahead[i]);
	}
	if (!alike) {
		free(ahead);
		return false;
	}
	struct rank_facts *rf = diag_rank(d, rank);
	/* the groups it is behind in, and which of them its history says came next */
	struct buf among = {0};
	char *q = sqlite3_mprintf("%s SELECT pg FROM cmp WHERE rank = %d AND le < peer_max ORDER BY pg", le_sql, rank);
	st = db_prepare(d->db, q);
	sqlite3_free(q);
	int k = 0;
	char first_pg[128] = "";
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *g = (const char *)sqlite3_column_text(st, 0);
		if (!k)
			snprintf(first_pg, sizeof(first_pg), "%s", g);
		hang_among_add(&among, &k, g);
	}
	sqlite3_finalize(st);
	buf_putc(&among, ')');
	char next[128] = "";
	if (k > 1)
		hang_next_group_by_history_in(d, rank, among.data, next, sizeof(next));
	buf_free(&among);
	const char *pg = next[0] ? next : first_pg;
	q = sqlite3_mprintf("%s SELECT le FROM cmp WHERE rank = %d AND pg = %Q", le_sql, rank, pg);
	long le = (long)q_int(d->db, -1, "%s", q);
	sqlite3_free(q);
	int64_t peer_ev = 0;
	int peer = peer_that_made(d, pg, le + 1, rank, &peer_ev);
	for (size_t i = 0; i < n; i++)
		v_culprit(v, ahead[i]);
	free(ahead);
	hang_verdict_begin(d, CAUSE(collective_mismatch), CONFIDENCE(medium), timed);
	hang_set_pg(d, pg);
	v->seq = le + 1;
	q_text(d->db, v->op, sizeof(v->op),
	       "SELECT op FROM collectives WHERE pg = %Q AND seq = %ld AND op IS NOT NULL LIMIT 1", pg, le + 1);
	struct buf who = {0};
	rank_desc(d, rank, &who);
	char other[128];
	diag_pg_display(d, ahead_pg, other, sizeof(other));
	buf_printf(&v->summary,
		   "%s skipped %s #%ld of group %s (its last there was #%ld%s) and went on: it%s enqueued"
		   " %s #%ld, where %s its peers there are behind it. The ranks called different sequences of"
		   " collectives, and the others wait for it.",
		   who.data, v->op[0] ? v->op : "collective", v->seq, v->pg, le,
		   peer >= 0 ? "; its peers enqueued it" : "", n == 1 ? " alone" : "", other, ahead_le,
		   n == 1 ? "all" : "the rest of");
	if (timed) {
		char t[32];
		fmt_time(rf->first_timeout_t, t, sizeof(t));
		buf_printf(&v->summary, " It timed out waiting where it went on (from %s on); the others' failures follow"
					" from it.", t);
	}
	v_say_culprits(v, "went on ahead of their peers the same way");
	v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM collectives WHERE rank = %d AND pg = %Q AND seq = %ld",
			      rank, pg, le),
		     "the culprit's last collective in that group");
	v_cite_event(v, peer_ev, "a peer that enqueued it");
	v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM collectives WHERE rank = %d AND pg = %Q AND seq = %ld",
			      rank, ahead_pg, ahead_le),
		     "the culprit went on");
	if (!timed)
		untimed_verdict_end(d);
	buf_free(&who);
	return true;
}

/* The ranks behind their peers (the verdict's culprits so far) all wait in
 * a transfer with one rank that is not behind anyone, by NCCL's Send/Recv
 * lines: that rank never posted the matching end, or posted it only after
 * calls the waiters never reached (a later step's). It went on past the
 * transfer: it skipped it. */
static bool skipped_transfer(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (!q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind = 'nccl_p2p')"))
		return false;
	int skipper = -1;
	struct transfer_wait w = {0};
	for (size_t i = 0; i < v->nculprits; i++) {
		struct transfer_wait wi;
		int r = diag_transfer_skipper(d, v->culprits[i], &wi);
		if (r == -2 && !v_has_culprit(v, wi.peer))
			r = wi.peer;
		if (r < 0 || v_has_culprit(v, r) || (skipper >= 0 && r != skipper))
			return false;
		if (skipper < 0)
			w = wi;
		skipper = r;
	}
	if (skipper < 0)
		return false;
	struct buf waiters = {0}, who = {0};
	fmt_rank_list(v->culprits, v->nculprits, &waiters);
	size_t nw = v->nculprits;
	v->nculprits = 0;
	v_culprit(v, skipper);
	hang_verdict_begin(d, CAUSE(collective_mismatch), CONFIDENCE(medium), false);
	hang_set_pg(d, w.pg);
	v->seq = -1;
	bool send = w.recvs > 0; /* the waiter receives: the skipped end is a send */
	int64_t k = send ? w.recvs : w.sends, theirs = send ? w.peer_sends : w.peer_recvs;
	snprintf(v->op, sizeof(v->op), "%s", send ? "SEND" : "RECV");
	rank_desc(d, skipper, &who);
	buf_printf(&v->summary,
		   "Rank%s %s, behind %s peers in every group, wait%s in a transfer with %s in group %s: by NCCL's"
		   " Send/Recv lines rank %d's last call was its %s #%lld %s rank %d (counted from its first), ",
		   nw > 1 ? "s" : "", waiters.data, nw > 1 ? "their" : "its", nw > 1 ? "" : "s", who.data, v->pg,
		   w.waiter, send ? "receive" : "send", (long long)k, send ? "from" : "to", skipper);
	if (theirs < k)
		buf_printf(&v->summary, "and rank %d posted only %lld %s %s it", skipper, (long long)theirs,
			   send ? "sends" : "receives", send ? "to" : "from");
	else
		buf_printf(&v->summary, "and rank %d posted its %s #%lld only after collectives that rank %d never"
					" reached (a later step's)", skipper, send ? "send" : "receive", (long long)k, w.waiter);
	buf_printf(&v->summary, ". Rank %d is behind none of its peers: it went on without the %s the others wait for"
				" (a skipped %s: the ranks called different sequences of transfers).",
		   skipper, send ? "send" : "receive", send ? "send" : "receive");
	v_cite_event(v, w.event, "the waiting rank's last transfer");
	v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM events WHERE rank = %d AND kind = 'nccl_p2p'", skipper),
		     "the skipping rank's last transfer");
	v_cite_event(v, hang_last_app_line(d, skipper),
		     "it went on");
	untimed_verdict_end(d);
	buf_free(&waiters);
	buf_free(&who);
	return true;
}

/* A rank behind its peers in one group (it never made call S there) that
 * yet made a call of another group which a peer made only after S, by the
 * order of that peer's lines (the COLL lines of one file are in the order it
 * enqueued them; by line number, as kept events are written per stream):
 * it went past S without making it, a skipped call. The ranks that wait in
 * S are behind elsewhere too, but only in calls that come after it. The only such rank is the verdict. le_sql: AHEAD_LE_SQL. */
/* The ranks that went past a call by a peer's order of lines (a rank x
 * that never made pg #s, which a peer made before a call that x made). */
#define SKIPPED_BY_ORDER_SQL                                                                             \
	"%s, miss AS (SELECT rank AS x, pg, le + 1 AS s FROM cmp WHERE le < peer_max)"                      \
	" SELECT DISTINCT %s FROM miss m"                                                                    \
	" JOIN collectives a ON a.rank = m.x AND a.pg <> m.pg"                                               \
	" JOIN collectives b ON b.pg = a.pg AND b.seq = a.seq AND b.rank <> m.x"                             \
	" JOIN collectives p ON p.pg = m.pg AND p.seq = m.s AND p.rank = b.rank"                             \
	" JOIN events pe ON pe.event_id = p.event_id JOIN events be ON be.event_id = b.event_id"             \
	" WHERE be.source_id = pe.source_id AND be.line_no > pe.line_no"                                     \
	" ORDER BY m.x%s LIMIT %d"

static bool skipped_by_order(struct diagnosis *d, const char *le_sql)
{
	struct verdict *v = &d->v;
	char *sql = sqlite3_mprintf(SKIPPED_BY_ORDER_SQL, le_sql, "m.x, m.pg, m.s, p.rank, p.event_id, b.event_id",
				    ", m.pg, m.s", 1);
	sqlite3_stmt *st = db_prepare(d->db, sql);
	sqlite3_free(sql);
	int rank = -1, peer = -1;
	char pg[128] = "";
	long seq = -1;
	int64_t peer_ev = 0, later_ev = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		rank = sqlite3_column_int(st, 0);
		db_column_text_copy(st, 1, pg, sizeof(pg));
		seq = (long)sqlite3_column_int64(st, 2);
		peer = sqlite3_column_int(st, 3);
		peer_ev = sqlite3_column_int64(st, 4);
		later_ev = sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	if (rank < 0)
		return false;
	/* one rank, or a few that went past calls alike (a node's ranks, every
	 * rank that took the same branch): more say nothing of who started it */
	int limit = (int)(d->nranks / 3) + 1;
	sql = sqlite3_mprintf(SKIPPED_BY_ORDER_SQL, le_sql, "m.x", "", limit);
	st = db_prepare(d->db, sql);
	sqlite3_free(sql);
	while (sqlite3_step(st) == SQLITE_ROW)
		v_culprit(v, sqlite3_column_int(st, 0));
	sqlite3_finalize(st);
	if (v->nculprits > 1 && !diag_few(d, v->nculprits)) {
		v->nculprits = 0;
		return false;
	}
	v_culprit(v, rank);
	hang_verdict_begin(d, CAUSE(collective_mismatch), CONFIDENCE(medium), false);
	hang_set_pg(d, pg);
	v->seq = seq;
	q_text(d->db, v->op, sizeof(v->op),
	       "SELECT op FROM collectives WHERE pg = %Q AND seq = %ld AND op IS NOT NULL LIMIT 1", pg, seq);
	char later_pg[128] = "";
	q_text(d->db, later_pg, sizeof(later_pg), "SELECT pg FROM collectives WHERE event_id = %lld", (long long)later_ev);
	long later_seq = (long)q_int(d->db, -1, "SELECT seq FROM collectives WHERE event_id = %lld", (long long)later_ev);
	char later_disp[128];
	diag_pg_display(d, later_pg, later_disp, sizeof(later_disp));
	struct buf who = {0};
	rank_desc(d, rank, &who);
	buf_printf(&v->summary,
		   "%s never enqueued %s #%ld of group %s, which its peers did, and yet enqueued %s #%ld, which rank %d"
		   " enqueued only after it (the order of rank %d's lines): it went past the call without making it (a"
		   " skipped call), and its peers wait in it.",
		   who.data, v->op[0] ? v->op : "collective", seq, v->pg, later_disp, later_seq, peer, peer);
	v_say_culprits(v, "went past a call the same way");
	v_cite_event(v, peer_ev, "a peer's call that it never made");
	v_cite_event(v, later_ev, "the peer's later call, which it made");
	v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM collectives WHERE rank = %d AND pg = %Q AND seq = %ld",
			      rank, later_pg, later_seq),
		     "the culprit's own call, past the one it skipped");
	untimed_verdict_end(d);
	buf_free(&who);
	return true;
}

/* No rank timed out, failed or exited, and the job did not finish: the logs
 * end while the ranks wait (blocking wait, a very long timeout, or logs taken
 * from a job still hung). What the ranks enqueued tells who stopped: a rank
 * behind its peers in some group and ahead of none in any. */
bool diag_silent_hang(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* a group that carries point-to-point transfers (a pipeline's) counts
	 * them by stage: its counters differ between ranks that all kept up */
	static const char le_sql[] =
		AHEAD_LE_SQL("(SELECT * FROM pg_status WHERE pg NOT IN (SELECT pg_name FROM fr_entries WHERE is_p2p))",
			     "(SELECT * FROM collectives WHERE pg NOT IN (SELECT pg_name FROM fr_entries WHERE is_p2p))");
	/* who is behind whom says nothing when some ranks left no line at all:
	 * the ranks with logs may all be waiting on them */
	if (diag_ranks_absent(d)) {
		v_decline(d, "ranks without any logs may be the cause: the ranks with logs may all wait on them");
		return false;
	}
	if (hang_skipped_ahead(d, le_sql, false) || skipped_by_order(d, le_sql))
		return true;
	char *sql = sqlite3_mprintf("%s SELECT rank, max(peer_max - le) FROM cmp GROUP BY rank"
				    " HAVING sum(le < peer_max) > 0 AND sum(le > peer_min) = 0 ORDER BY rank", le_sql);
	sqlite3_stmt *st = db_prepare(d->db, sql);
	sqlite3_free(sql);
	long lag = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		v_culprit(v, sqlite3_column_int(st, 0));
		if (sqlite3_column_int64(st, 1) > lag)
			lag = (long)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (v->nculprits && v->nculprits * 2 <= d->nranks && skipped_transfer(d))
		return true;
	/* behind as well: a rank that waits in a receive from another of them
	 * (a pipeline stage after a stalled one) */
	struct buf waiters = {0};
	size_t nwaiters = diag_drop_transfer_waiters(d, &waiters);
	if (!v->nculprits || diag_majority(v->nculprits, d->nranks)) {
		v_decline(d, v->nculprits ? "most ranks are behind in some group: no few ranks stand out"
					  : "no rank is behind its peers in a group and ahead of none");
		return (buf_free(&waiters), v->nculprits = 0, false);
	}
	int rank = v->culprits[0];
	/* the call it missed: in the group its own order of calls says comes next */
	char next[128] = "", pg[128] = "";
	hang_next_group_by_history(d, rank, next, sizeof(next));
	char *q = sqlite3_mprintf("%s SELECT pg, le FROM cmp WHERE rank = %d AND le < peer_max"
				  " ORDER BY pg IS %Q DESC, peer_max - le DESC, pg LIMIT 1",
				  le_sql, rank, next[0] ? next : NULL);
	st = db_prepare(d->db, q);
	sqlite3_free(q);
	long le = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		db_column_text_copy(st, 0, pg, sizeof(pg));
		le = (long)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	int64_t peer_ev = 0;
	int peer = -1;
	if (pg[0]) {
		peer = peer_that_made(d, pg, le + 1, rank, &peer_ev);
		hang_set_pg(d, pg);
		v->seq = le + 1;
	}
	hang_verdict_begin(d, CAUSE(rank_stalled), lag >= 2 ? CONFIDENCE(medium) : CONFIDENCE(low), false);
	struct buf who = {0}, l = {0};
	rank_desc(d, rank, &who);
	if (v->nculprits > 1) {
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, "Ranks %s are behind their peers in every group they share. ", l.data);
	}
	buf_printf(&v->summary, "%s is behind its peers", who.data);
	if (pg[0] && peer >= 0)
		buf_printf(&v->summary, ": it never enqueued %s #%ld of group %s, which rank %d did (its last there was"
					" #%ld)", v->op[0] ? v->op : "collective", v->seq, v->pg, peer, le);
	buf_puts(&v->summary, ", and ahead of none of them in any group: it most likely stopped in host code before"
			      " that call.");
	if (nwaiters)
		buf_printf(&v->summary, " Rank%s %s, behind as well, wait%s on %s transfers, directly or down the"
					" pipeline (NCCL's Send/Recv lines: transfers posted that the other end did not"
					" match, or receives from a rank that waits in turn).",
			   nwaiters > 1 ? "s" : "", waiters.data, nwaiters > 1 ? "" : "s",
			   v->nculprits > 1 ? "their" : "its");
	buf_free(&waiters);
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT max(event_id) FROM collectives WHERE rank = %d AND pg = %Q AND seq = %ld", rank, pg, le),
		     "the culprit's last collective in that group");
	v_cite_event(v, peer_ev, "a peer that went further");
	v_cite_event(v, hang_last_app_line(d, rank),
		     "last application line");
	untimed_verdict_end(d);
	buf_free(&who);
	buf_free(&l);
	return true;
}
