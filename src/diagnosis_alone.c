/* diagnosis_alone.c: a rank whose collective in a group of its own timed out.
 *
 * A collective of a process group with a single member waits for nobody:
 * NCCL runs it on that rank's GPU alone. When the watchdog times such a call
 * out, the rank's own GPU work never ended (a kernel that spins, a stream
 * blocked behind one), and the collectives it enqueued after it never started
 * either: its peers time out waiting for it in the groups they share, with
 * every rank's flight recorder showing the same calls enqueued and nobody
 * behind.
 *
 * It holds only where the call was the rank's oldest unfinished one: a call
 * queued behind a shared collective that itself waits for a peer times out
 * too. So nothing the rank enqueued before it in another group may be
 * unfinished: by the flight recorder's creation times, else by when the
 * watchdogs say the timed-out calls began. Tried before the rule of the
 * ranks without logs (diagnosis_absent.c): this one rests on what the rank
 * logged, that one on what is missing. */
#include "diagnosis.h"
#include "case_schema.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"


/* Each rank's timed-out collective in a group of one member that was its
 * oldest unfinished call: rank, group, seq, op, the timeout's event and time. */
static const char alone_sql[] =
	"SELECT c.rank, c.pg, c.seq, c.op, c.event_id, c.time_completed_us FROM collectives c"
	" JOIN process_groups g ON g.pg = c.pg"
	" WHERE c.state = 'timed_out' AND " COLL_NOT_COMPLETED("c.") " AND g.size = 1 AND c.rank IS NOT NULL"
	" AND c.time_completed_us IS NOT NULL"
	/* a group of one by its own word (the members seen are not enough: a
	 * member without logs leaves a group of two looking like one): the
	 * rank's communicator for it, or its flight recorder's list of members,
	 * and no communicator of the group with more */
	"  AND (EXISTS (SELECT 1 FROM comms m WHERE m.rank = c.rank AND m.pg = c.pg AND m.nranks = 1)"
	"   OR EXISTS (SELECT 1 FROM events e WHERE e.kind = 'fr_pg_config' AND e.rank = c.rank"
	"    AND CAST(field(e.fields, 'pg_name') AS TEXT) = c.pg AND json_valid(field(e.fields, 'ranks'))"
	"    AND json_array_length(field(e.fields, 'ranks')) = 1))"
	"  AND NOT EXISTS (SELECT 1 FROM comms m WHERE m.pg = c.pg AND m.nranks > 1)"
	/* no unfinished call of the rank in another group enqueued before it,
	 * by the flight recorder's creation times */
	"  AND NOT EXISTS (SELECT 1 FROM collectives s JOIN collectives o ON o.rank = s.rank AND o.pg <> s.pg"
	"   WHERE s.rank = c.rank AND s.pg = c.pg AND s.seq = c.seq AND s.evidence = 'flight recorder'"
	"   AND s.time_created_us IS NOT NULL"
	"   AND o.evidence = 'flight recorder' AND o.state <> 'completed' AND o.time_created_us < s.time_created_us)"
	/* without them, by when the watchdogs say the timed-out calls began
	 * (each group's watchdog reports on its own: their lines' order is not
	 * the calls' order) */
	"  AND (EXISTS (SELECT 1 FROM collectives s WHERE s.rank = c.rank AND s.pg = c.pg AND s.seq = c.seq"
	"    AND s.evidence = 'flight recorder' AND s.time_created_us IS NOT NULL)"
	"   OR NOT EXISTS (SELECT 1 FROM collectives o JOIN events oe ON oe.event_id = o.event_id, events ce"
	"    WHERE ce.event_id = c.event_id AND o.rank = c.rank AND o.pg <> c.pg AND o.state = 'timed_out'"
	"    AND oe.time_us - 1000 * coalesce(field(oe.fields, 'ran_ms'), 0)"
	"     < ce.time_us - 1000 * coalesce(field(ce.fields, 'ran_ms'), 0) - " BEGUN_MARGIN_US "))"
	" ORDER BY c.time_completed_us, c.rank";

struct alone_call {
	int rank;
	char pg[128], op[32];
	long seq;
	int64_t event_id, t;
};

/* The calls, one per rank (its first); their number. */
static size_t alone_calls(struct diagnosis *d, struct alone_call **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	sqlite3_stmt *st = db_prepare(d->db, alone_sql);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int rank = sqlite3_column_int(st, 0);
		bool seen = false;
		for (size_t i = 0; i < n && !seen; i++)
			seen = (*out)[i].rank == rank;
		if (seen)
			continue;
		xgrow(out, &cap, n + 1, sizeof(**out));
		struct alone_call *a = &(*out)[n++];
		a->rank = rank;
		db_column_text_copy(st, 1, a->pg, sizeof(a->pg));
		a->seq = sqlite3_column_int64(st, 2);
		db_column_text_copy(st, 3, a->op, sizeof(a->op));
		a->event_id = sqlite3_column_int64(st, 4);
		a->t = sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	return n;
}

bool diag_alone(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE) {
		v_decline(d, "no failure was logged");
		return false;
	}
	struct alone_call *calls;
	size_t n = alone_calls(d, &calls);
	size_t with_logs = diag_ranks_with_logs(d);
	/* more stuck GPUs than healthy ones: a cause they share is likelier */
	if (n == 0 || diag_majority(n, with_logs)) {
		free(calls);
		v_decline(d, "no timeout in a group of one member, or more such ranks than healthy ones (a "
			     "shared cause is likelier)");
		return false;
	}
	for (size_t i = 0; i < n; i++)
		v_culprit(v, calls[i].rank);
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(rank_stalled);
	v->confidence = CONFIDENCE(medium);
	v->first_failure_t = d->t0;
	const struct alone_call *a = &calls[0];
	diag_pg_display(d, a->pg, v->pg, sizeof(v->pg));
	v->seq = a->seq;
	snprintf(v->op, sizeof(v->op), "%s", a->op);

	struct buf who = {0}, ids = {0};
	rank_desc(d, a->rank, &who);
	for (size_t i = 0; i < n; i++)
		buf_printf(&ids, "%s%d", i ? "," : "", calls[i].rank);
	char t[32];
	fmt_time(a->t, t, sizeof(t));
	buf_printf(&v->summary,
		   "%s timed out in a collective of a group it is the only member of (%s #%ld of group %s, at %s):"
		   " such a call waits for no peer, so the rank's own GPU work never ended (a kernel that never"
		   " finishes, or its stream blocked behind one), and the collectives it enqueued after it never"
		   " started.",
		   who.data, a->op[0] ? a->op : "a collective", a->seq, v->pg, t);
	if (n > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l); /* the culprits, kept sorted */
		buf_printf(&v->summary, " The same holds for ranks %s.", l.data);
		buf_free(&l);
	}
	/* the peers' wait: the first timeout of a rank that is not a culprit */
	char *sql = xasprintf("SELECT c.pg, c.seq, c.op, c.event_id FROM collectives c WHERE c.state = 'timed_out' AND "
			      COLL_NOT_COMPLETED("c.")
			      " AND c.rank IS NOT NULL AND c.rank NOT IN (%s) ORDER BY c.time_completed_us, c.rank LIMIT 1",
			      ids.data);
	sqlite3_stmt *peer = db_prepare(d->db, sql);
	free(sql);
	int64_t peer_ev = 0;
	if (sqlite3_step(peer) == SQLITE_ROW) {
		char pg[128];
		diag_pg_display(d, (const char *)sqlite3_column_text(peer, 0), pg, sizeof(pg));
		const char *op = (const char *)sqlite3_column_text(peer, 2);
		buf_printf(&v->summary, " Its peers timed out waiting for it (%s #%lld of group %s).", op ? op : "a collective",
			   (long long)sqlite3_column_int64(peer, 1), pg);
		peer_ev = sqlite3_column_int64(peer, 3);
	}
	sqlite3_finalize(peer);
	v_cite_event(v, a->event_id, "its collective in a group of one member timing out");
	v_cite_event(v, peer_ev, "peers waiting");
	v_missing(v, "the GPU's state when the job hung (nvidia-smi, a py-spy or cuda-gdb stack of the rank)");
	buf_free(&who);
	buf_free(&ids);
	free(calls);
	return true;
}
