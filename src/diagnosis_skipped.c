/* diagnosis_skipped.c: a call some members completed and another never
 * made, though it went on past it.
 *
 * Some collectives finish on some ranks without every member: a broadcast's
 * root and the ranks upstream of the one that never joined, when the message
 * fits in NCCL's buffers. A rank that skipped such a call leaves nobody
 * waiting for it in that group but the ranks downstream, and where their
 * logs are missing, every rank with logs waits elsewhere (in the next
 * collective of another group, for those ranks). The flight recorder still
 * shows the skip in the order of calls: the rank never enqueued call S of
 * group P (its last enqueued there is below S), which a peer completed, and
 * yet it made a later call of another group that this peer made only after
 * creating S: it went past S without making it. Tried before the rule of the
 * ranks without logs (diagnosis_absent.c). */
#include "diagnosis.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <string.h>

#include "case_db.h"

/* The first such call: the rank that skipped it, the group, seq and
 * operation, the peer that completed it, and the later call both made
 * (group, seq, operation), with the events that show them. */
static const char skipped_sql[] =
	"WITH st AS (SELECT rank, pg, max(last_enqueued) AS enq, max(last_completed) AS done FROM pg_status"
	"   WHERE pg IS NOT NULL AND rank IS NOT NULL GROUP BY rank, pg),"
	" cand AS (SELECT x.rank AS x, x.pg AS pg, x.enq + 1 AS seq FROM st x JOIN st w ON w.pg = x.pg"
	"   AND w.rank <> x.rank AND w.done > x.enq"
	"   WHERE x.enq IS NOT NULL AND x.rank IN (SELECT rank FROM rank_status WHERE events > 0)"
	"   GROUP BY x.rank, x.pg)"
	" SELECT c.x, c.pg, c.seq, wc.op, wc.rank, wl.pg, wl.seq, wl.op, wc.event_id, xl.event_id FROM cand c"
	" JOIN collectives wc ON wc.pg = c.pg AND wc.seq = c.seq AND wc.rank <> c.x"
	"  AND wc.evidence = 'flight recorder' AND wc.state = 'completed' AND wc.op NOT IN ('SEND', 'RECV')"
	" JOIN collectives wl ON wl.rank = wc.rank AND wl.pg <> c.pg AND wl.evidence = 'flight recorder'"
	"  AND wl.time_created_us > wc.time_created_us AND wl.seq IS NOT NULL"
	" JOIN collectives xl ON xl.rank = c.x AND xl.pg = wl.pg AND xl.seq = wl.seq AND xl.evidence = 'flight recorder'"
	" ORDER BY wc.time_created_us, c.x, wl.time_created_us LIMIT 1";

bool diag_skipped_call(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE || !d->has_fr) {
		v_decline(d, "no failure was logged, or no flight-recorder dump");
		return false;
	}
	sqlite3_stmt *st = db_prepare(d->db, skipped_sql);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		v_decline(d, "no rank went on past a call its peers completed");
		return false;
	}
	int rank = sqlite3_column_int(st, 0), peer = sqlite3_column_int(st, 4);
	char op[32], later_pg[128], later_op[32];
	db_column_text_copy(st, 3, op, sizeof(op));
	snprintf(later_op, sizeof(later_op), "%s",
		 sqlite3_column_text(st, 7) ? (const char *)sqlite3_column_text(st, 7) : "");
	diag_pg_display(d, (const char *)sqlite3_column_text(st, 5), later_pg, sizeof(later_pg));
	long later_seq = sqlite3_column_int64(st, 6);
	v_culprit(v, rank);
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(collective_mismatch);
	v->confidence = CONFIDENCE(medium);
	v->first_failure_t = d->t0;
	diag_pg_display(d, (const char *)sqlite3_column_text(st, 1), v->pg, sizeof(v->pg));
	v->seq = sqlite3_column_int64(st, 2);
	snprintf(v->op, sizeof(v->op), "%s", op);
	struct buf who = {0};
	rank_desc(d, rank, &who);
	buf_printf(&v->summary,
		   "%s never made %s #%ld of group %s, which rank %d completed (a call that can finish on some ranks"
		   " without every member, as a broadcast upstream of the rank that never joined), and yet it made %s"
		   " #%ld of group %s, which rank %d made only after it: it went past that call without making it (a"
		   " skipped collective). The ranks that needed its part waited for it, and the others then waited for"
		   " them.",
		   who.data, *op ? op : "collective", v->seq, v->pg, peer, *later_op ? later_op : "collective", later_seq,
		   later_pg, peer);
	v_cite_event(v, sqlite3_column_int64(st, 8), "a peer completing the call");
	v_cite_event(v, sqlite3_column_int64(st, 9), "the rank's later call");
	sqlite3_finalize(st);
	buf_free(&who);
	return true;
}
