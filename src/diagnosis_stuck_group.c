/* diagnosis_stuck_group.c: every wait leads to one call of one small group
 * that all its members enqueued and none finished.
 *
 * With the flight recorder, each rank's oldest unfinished call is the one it
 * waits in first (the later ones queue behind it). When every member of a
 * group has the same call as its oldest unfinished one, each of them made
 * it and nothing of its own held it back; when it still never finished, one
 * of their GPUs never ran it (a kernel that never ends ahead of it on the
 * stream) or their link failed. If every other rank's oldest unfinished call
 * is in a group it shares with one of those members, the whole job waits on
 * that group. Without the flight recorder's "started" times (timing off, the
 * default) the members look alike: the verdict stays unknown, but names
 * the call and its group, and the members as the ranks to look at.
 * Tried last of the hang rules: a rank that never came back after the abort
 * (diagnosis_stuck.c) tells them apart where the logs allow. */
#include "diagnosis.h"
#include "case_schema.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"

/* Each rank's oldest unfinished call in its flight recorder, then the calls
 * that are the oldest unfinished one of every member of their group (two or
 * more members): pg, seq, op, members, the earliest member's timeout event. */
static const char held_sql[] =
	SQL_WITH_OLDEST_UNFINISHED
	" SELECT o.pg, o.seq, o.op, count(*) n,"
	"  (SELECT c.event_id FROM collectives c WHERE c.pg = o.pg AND c.seq = o.seq AND c.state = 'timed_out'"
	"   ORDER BY c.time_completed_us, c.rank LIMIT 1)"
	" FROM oldest o JOIN process_groups g ON g.pg = o.pg"
	" GROUP BY o.pg, o.seq HAVING n >= 2 AND n = max(g.size)"
	"  AND n = (SELECT count(*) FROM pg_members m WHERE m.pg = o.pg)";

/* The ranks with logs whose oldest unfinished call is in a group without a
 * member of group ?1 (they wait on someone else), or that have none. */
static const char elsewhere_sql[] =
	SQL_WITH_OLDEST_UNFINISHED
	" SELECT count(*) FROM ranks r LEFT JOIN oldest o ON o.rank = r.rank"
	" WHERE EXISTS (SELECT 1 FROM events e WHERE e.rank = r.rank)"
	"  AND (o.pg IS NULL OR NOT EXISTS (SELECT 1 FROM pg_members a JOIN pg_members b ON b.pg = ?1 AND b.rank = a.rank"
	"   WHERE a.pg = o.pg))";

/* The first timeout of a rank outside group ?1: what its peers waited in. */
static const char peer_sql[] =
	"SELECT c.pg, c.seq, c.op, c.event_id FROM collectives c WHERE c.state = 'timed_out' AND " COLL_NOT_COMPLETED("c.")
	" AND c.rank IS NOT NULL"
	" AND c.rank NOT IN (SELECT rank FROM pg_members WHERE pg = ?1) ORDER BY c.time_completed_us, c.rank LIMIT 1";

bool diag_stuck_group(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE || !d->has_fr || diag_ranks_absent(d) > 0) {
		v_decline(d, "no failure was logged, no flight-recorder dump, or ranks without any logs");
		return false;
	}
	size_t with_logs = diag_ranks_with_logs(d);

	sqlite3_stmt *st = db_prepare(d->db, held_sql);
	char pg[128] = "", op[32] = "";
	long seq = 0;
	int64_t members = 0, timeout_ev = 0;
	int found = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (found++)
			break;
		db_column_text_copy(st, 0, pg, sizeof(pg));
		seq = sqlite3_column_int64(st, 1);
		db_column_text_copy(st, 2, op, sizeof(op));
		members = sqlite3_column_int64(st, 3);
		timeout_ev = sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
	/* one such call, in a group of at most half the ranks (a group of
	 * every rank stuck together says nothing of who) */
	if (found != 1 || diag_majority((size_t)members, with_logs)) {
		v_decline(d, "no single call that every wait leads to, made by a group of at most half the ranks");
		return false;
	}
	st = db_prepare(d->db, elsewhere_sql);
	sqlite3_bind_text(st, 1, pg, -1, SQLITE_TRANSIENT);
	int64_t elsewhere = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 1;
	sqlite3_finalize(st);
	if (elsewhere > 0) {
		v_decline(d, "the group's call was held up elsewhere too");
		return false;
	}

	/* the members, as the ranks to look at (not culprits: one of them is) */
	struct buf l = {0}, hosts = {0};
	st = db_prepare(d->db, "SELECT m.rank, r.host FROM pg_members m LEFT JOIN ranks r USING(rank) WHERE m.pg = ?1"
			       " ORDER BY m.rank");
	sqlite3_bind_text(st, 1, pg, -1, SQLITE_TRANSIENT);
	int nhosts = 0;
	char host[128] = "";
	for (int i = 0; sqlite3_step(st) == SQLITE_ROW; i++) {
		buf_printf(&l, "%s%d", i ? ", " : "", sqlite3_column_int(st, 0));
		const char *h = (const char *)sqlite3_column_text(st, 1);
		if (h && strcmp(h, host) != 0) {
			buf_printf(&hosts, "%s%s", nhosts++ ? ", " : "", h);
			snprintf(host, sizeof(host), "%s", h);
		}
	}
	sqlite3_finalize(st);
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(unknown);
	v->confidence = CONFIDENCE(low);
	v->first_failure_t = d->t0;
	diag_pg_name(d, pg, v->pg, sizeof(v->pg)); /* with its members below */
	v->seq = seq;
	snprintf(v->op, sizeof(v->op), "%s", op);

	buf_printf(&v->summary,
		   "Every rank waited, in the end, on %s #%ld of group %s (ranks %s, on %s): each of its members enqueued"
		   " it with nothing of its own unfinished before it, and none of them finished it. One of their GPUs"
		   " never ran it (a kernel that never ends ahead of it on the stream, the calls queued behind it never"
		   " started) or their connection failed; the flight recorder, without its start times, does not tell"
		   " which member it was: look at those ranks.",
		   op[0] ? op : "a collective", seq, v->pg, l.data, hosts.len ? hosts.data : "unknown hosts");
	st = db_prepare(d->db, peer_sql);
	sqlite3_bind_text(st, 1, pg, -1, SQLITE_TRANSIENT);
	int64_t peer_ev = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		char ppg[128];
		diag_pg_display(d, (const char *)sqlite3_column_text(st, 0), ppg, sizeof(ppg));
		const char *pop = (const char *)sqlite3_column_text(st, 2);
		buf_printf(&v->summary, " The other ranks timed out waiting for them (%s #%lld of group %s).",
			   pop ? pop : "a collective", (long long)sqlite3_column_int64(st, 1), ppg);
		peer_ev = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	v_cite_event(v, timeout_ev, "the group's call timing out");
	v_cite_event(v, peer_ev, "peers waiting");
	v_missing(v, "which member's GPU stopped: the flight recorder's start times (TORCH_NCCL_ENABLE_TIMING=1),"
		     " or the GPUs' state when the job hung (nvidia-smi, a py-spy or cuda-gdb stack of each member)");
	buf_free(&l);
	buf_free(&hosts);
	return true;
}
