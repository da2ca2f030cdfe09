/* diagnosis_not_started.c: a rank whose GPU never reached a call its peers
 * started.
 *
 * With the flight recorder's start times (TORCH_NCCL_ENABLE_TIMING=1) a call
 * is "started" once the GPU reached it on the stream. A rank whose oldest
 * unfinished call is still only "scheduled" while a peer in that same call
 * started it made the call (it is no host stall: the call is enqueued) but
 * its GPU never got to it: work ahead of it on the stream never ended (a
 * kernel that spins), and every call queued after it waited too. Its peers
 * wait for it in the call they started, and the others in the groups they
 * share with them. Without the start times every member looks alike
 * (diagnosis_stuck.c, diagnosis_stuck_group.c). */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"

/* Each rank's oldest unfinished call in its dump, when still only scheduled
 * and started by a peer, or with no peer in the bundle to compare with (the
 * group's other members left no line) while the rank's own dump has start
 * times (timing was on: its GPU started earlier calls): rank, pg, seq, op,
 * the peer's row (its event; NULL without a peer) and when the peer's GPU
 * started it, the rank's own timeout of that call. */
static const char not_started_sql[] =
	SQL_WITH_OLDEST_UNFINISHED
	" SELECT o.rank, o.pg, o.seq, o.op, p.event_id, min(p.time_started_us),"
	"  (SELECT c.event_id FROM collectives c WHERE c.rank = o.rank AND c.pg = o.pg AND c.seq = o.seq"
	"   AND c.state = 'timed_out' LIMIT 1)"
	" FROM oldest o LEFT JOIN collectives p ON p.pg = o.pg AND p.seq = o.seq AND p.rank <> o.rank"
	"  AND p.evidence = 'flight recorder' AND p.time_started_us IS NOT NULL"
	" WHERE o.state = 'scheduled'"
	" GROUP BY o.rank"
	" HAVING p.event_id IS NOT NULL"
	"  OR (EXISTS (SELECT 1 FROM pg_members m WHERE m.pg = o.pg AND m.rank <> o.rank)"
	"   AND NOT EXISTS (SELECT 1 FROM pg_members m WHERE m.pg = o.pg AND m.rank <> o.rank"
	"     AND m.rank IN (SELECT rank FROM rank_status WHERE events > 0))"
	"   AND EXISTS (SELECT 1 FROM collectives c WHERE c.rank = o.rank AND c.evidence = 'flight recorder'"
	"     AND c.time_started_us IS NOT NULL))"
	" ORDER BY o.t, o.rank";

bool diag_not_started(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE || !d->has_fr) {
		v_decline(d, "no failure was logged, or no flight-recorder dump");
		return false;
	}
	size_t with_logs = diag_ranks_with_logs(d);
	sqlite3_stmt *st = db_prepare(d->db, not_started_sql);
	size_t n = 0;
	char pg[128] = "", op[32] = "";
	long seq = 0;
	int first = -1;
	int64_t peer_ev = 0, peer_t = T_NONE, own_ev = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int rank = sqlite3_column_int(st, 0);
		v_culprit(v, rank);
		if (n++ == 0) {
			first = rank;
			db_column_text_copy(st, 1, pg, sizeof(pg));
			seq = sqlite3_column_int64(st, 2);
			snprintf(op, sizeof(op), "%s",
				 sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
			peer_ev = sqlite3_column_int64(st, 4);
			peer_t = sqlite3_column_int64(st, 5);
			own_ev = sqlite3_column_int64(st, 6);
		}
	}
	sqlite3_finalize(st);
	/* more ranks than healthy ones held up: a cause they share is likelier */
	if (n == 0 || diag_majority(n, with_logs)) {
		v_decline(d, "no call that a peer's GPU started and a rank's never did, or more such ranks "
			     "than healthy ones");
		return false;
	}
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(rank_stalled);
	v->confidence = n == 1 && peer_ev ? CONFIDENCE(high) : CONFIDENCE(medium);
	v->first_failure_t = d->t0;
	diag_pg_display(d, pg, v->pg, sizeof(v->pg));
	v->seq = seq;
	snprintf(v->op, sizeof(v->op), "%s", op);

	struct buf who = {0};
	rank_desc(d, first, &who);
	char t[32];
	fmt_time(peer_t, t, sizeof(t));
	buf_printf(&v->summary, "%s enqueued %s #%ld of group %s, its oldest unfinished call, but its GPU never started it, ",
		   who.data, op[0] ? op : "a collective", seq, v->pg);
	if (peer_ev)
		buf_printf(&v->summary, "while a peer's GPU started it at %s (the flight recorder's start times)", t);
	else
		buf_puts(&v->summary, "though it had started earlier calls (the flight recorder's start times;"
				      " its peers in that group left no logs to compare with)");
	buf_puts(&v->summary, ": work ahead of it on the rank's stream never ended (a kernel that never finishes), and the"
			      " calls it enqueued after it never started either. Its peers waited for it in that call,"
			      " and the other ranks in the groups they share with them.");
	if (n > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l); /* the culprits, kept sorted */
		buf_printf(&v->summary, " The same holds for ranks %s.", l.data);
		buf_free(&l);
	}
	v_cite_event(v, own_ev, "its call timing out, never started");
	v_cite_event(v, peer_ev, "a peer's GPU started the same call");
	v_missing(v, "the GPU's state when the job hung (nvidia-smi, a py-spy or cuda-gdb stack of the rank)");
	buf_free(&who);
	return true;
}
