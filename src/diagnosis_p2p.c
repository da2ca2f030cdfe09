/* diagnosis_p2p.c: hangs that start at a point-to-point transfer (pipeline
 * parallelism: dist.send / dist.recv).
 *
 * The collectives say little here: a rank that waits in a receive blocks its
 * host at the next synchronization, so the peers that time out are those of
 * its next collective, far from the cause. The flight recorder keeps the
 * transfers ("send 0->2", "recv 2<-0", with their own sequence numbers), so
 * the diagnosis follows who waits for whom: a rank whose earliest unfinished
 * entry is a transfer waits for that transfer's peer. The peer either
 *  - had nothing pending and its own history says the transfer was its next
 *    call: it stalled in host code before posting it (rank_stalled);
 *  - went on to a collective of a group the waiting rank belongs to and has
 *    not reached: it skipped the transfer (collective_mismatch);
 *  - waits in a transfer itself: the chain goes on from it.
 * Anything else (no dump, a pair both waiting on each other) is left to the
 * other causes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "diagnosis.h"
#include "verdict_vocab.h"
#include "flight_recorder.h"

/* what one rank's flight recorder says: its latest dump */
struct fr_rank {
	bool dump;           /* it has one */
	bool pending;        /* an entry not completed */
	int64_t event;       /* the earliest such entry */
	char op[64], pg[64], desc[64];
	long seq, p2p_seq;
	int dir, peer;       /* transfers: direction and peer (global rank) */
};

struct p2p {
	struct diagnosis *d;
	struct fr_rank *r;
	int n;               /* ranks 0 .. n-1 */
};

/* The global rank of rank pg_rank of group pg (the same in the default group). */
static int global_rank(struct diagnosis *d, const char *pg, int pg_rank)
{
	return (int)q_int(d->db, pg_rank, "SELECT rank FROM pg_members WHERE pg = %Q AND pg_rank = %d", pg, pg_rank);
}

/* each rank's latest dump (each dump ends with its fr_kept event): the
 * transfers to follow, and the transfer counts to compare */
static const char latest_sql[] =
	"DROP TABLE IF EXISTS temp.p2p_dump;"
	"CREATE TEMP TABLE p2p_dump(rank INTEGER PRIMARY KEY, source_id INTEGER);"
	"INSERT INTO temp.p2p_dump SELECT rank, max(source_id) FROM events"
	"  WHERE kind = 'fr_kept' AND rank IS NOT NULL GROUP BY rank;";

static const char dumps_sql[] =
	"SELECT e.rank, f.event_id, f.op, f.pg_name, f.pg_desc, f.seq, f.p2p_seq, f.is_p2p, f.state"
	" FROM fr_entries f JOIN events e ON e.event_id = f.event_id"
	" JOIN temp.p2p_dump p ON p.rank = e.rank AND p.source_id = e.source_id"
	" WHERE e.rank >= 0 AND e.rank < ?1"
	" ORDER BY e.rank, f.record_id";

static bool load(struct p2p *p)
{
	/* nothing to follow without transfers: most jobs */
	if (!q_int(p->d->db, 0, "SELECT EXISTS (SELECT 1 FROM fr_entries WHERE is_p2p = 1)"))
		return false;
	db_exec(p->d->db, latest_sql);
	p->n = (int)q_int(p->d->db, -1, "SELECT max(rank) FROM temp.p2p_dump") + 1;
	if (p->n <= 0 || p->n > (1 << 22))
		return false;
	p->r = xcalloc((size_t)p->n, sizeof(*p->r));
	bool any = false;
	sqlite3_stmt *st = db_prepare(p->d->db, dumps_sql);
	sqlite3_bind_int(st, 1, p->n);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct fr_rank *r = &p->r[sqlite3_column_int(st, 0)];
		r->dump = true;
		const char *state = (const char *)sqlite3_column_text(st, 8);
		const char *op = (const char *)sqlite3_column_text(st, 2);
		int peer;
		/* the entry that closes a batch of transfers stands for them: they come first */
		bool closer = sqlite3_column_int(st, 7) && fr_transfer_of(op ? op : "", &peer) == FR_NOT_TRANSFER;
		if (r->pending || closer || (state && strcmp(state, "completed") == 0))
			continue;
		r->pending = true;
		r->event = sqlite3_column_int64(st, 1);
		db_column_text_copy(st, 2, r->op, sizeof(r->op));
		db_column_text_copy(st, 3, r->pg, sizeof(r->pg));
		db_column_text_copy(st, 4, r->desc, sizeof(r->desc));
		r->seq = (long)db_column_int_or(st, 5, -1);
		r->p2p_seq = (long)db_column_int_or(st, 6, -1);
		r->peer = -1;
		if (sqlite3_column_int(st, 7)) {
			r->dir = fr_transfer_of(r->op, &peer);
			if (r->dir != FR_NOT_TRANSFER) {
				r->peer = global_rank(p->d, r->pg, peer);
				any = true;
			}
		}
	}
	sqlite3_finalize(st);
	return any;
}

/* What the rank's program does next, from its history: the calls that
 * followed, the last time, the call it made last. True when the transfers
 * that came first there (before any collective) include one to or from peer
 * in that direction: a rank that stalls before a receive never makes the
 * send that follows it either. */
#define HISTORY_ROWS 400
struct hist_row {
	char op[64], pg[64];
	int64_t numel;
	bool p2p;
};

static bool next_is_transfer_with(struct p2p *p, int rank, int dir, int peer)
{
	sqlite3_stmt *st = db_prepare(p->d->db,
		"SELECT f.op, f.pg_name, coalesce(f.numel_in, -1), f.is_p2p FROM fr_entries f"
		" JOIN events e ON e.event_id = f.event_id WHERE e.rank = ?1 AND e.source_id ="
		"  (SELECT source_id FROM temp.p2p_dump WHERE rank = ?1)"
		" ORDER BY f.record_id DESC LIMIT 400");
	sqlite3_bind_int(st, 1, rank);
	struct hist_row *h = xcalloc(HISTORY_ROWS, sizeof(*h)); /* latest first */
	int n = 0, prev = -1;
	while (n < HISTORY_ROWS && sqlite3_step(st) == SQLITE_ROW) {
		struct hist_row *r = &h[n];
		db_column_text_copy(st, 0, r->op, sizeof(r->op));
		db_column_text_copy(st, 1, r->pg, sizeof(r->pg));
		r->numel = sqlite3_column_int64(st, 2);
		r->p2p = sqlite3_column_int(st, 3) != 0;
		if (n > 0 && !strcmp(r->op, h[0].op) && !strcmp(r->pg, h[0].pg) && r->numel == h[0].numel) {
			prev = n; /* the previous time: what followed it is at prev - 1, prev - 2, ... */
			break;
		}
		n++;
	}
	sqlite3_finalize(st);
	bool hit = false;
	for (int i = prev - 1; prev > 0 && i >= 0 && h[i].p2p && !hit; i--) {
		int pr, d = fr_transfer_of(h[i].op, &pr);
		hit = d == dir && global_rank(p->d, h[i].pg, pr) == peer;
	}
	free(h);
	return hit;
}

/* The highest sequence number rank enqueued in group pg (-1: none). */
static long last_enqueued(struct p2p *p, int rank, const char *pg)
{
	return (long)q_int(p->d->db, -1,
		"SELECT max(f.seq) FROM fr_entries f JOIN events e ON e.event_id = f.event_id"
		" WHERE e.rank = %d AND f.pg_name = %Q AND f.is_p2p = 0 AND e.source_id ="
		"  (SELECT source_id FROM temp.p2p_dump WHERE rank = %d)",
		rank, pg, rank);
}

enum root_kind { ROOT_NONE, ROOT_STALLED, ROOT_SKIPPED };

struct root {
	enum root_kind kind;
	int rank;            /* the culprit */
	int waiter;          /* the rank that waits for it */
};

/* Follows the waits from rank w; fills *out when they end at a cause. */
static bool follow(struct p2p *p, int w, struct root *out)
{
	for (int hops = 0; hops < p->n; hops++) {
		struct fr_rank *wr = &p->r[w];
		if (!wr->pending || wr->dir == FR_NOT_TRANSFER || wr->peer < 0 || wr->peer >= p->n || wr->peer == w)
			return false;
		int peer = wr->peer;
		struct fr_rank *pr = &p->r[peer];
		if (!pr->dump)
			return false;
		int want = wr->dir == FR_RECV ? FR_SEND : FR_RECV;
		if (!pr->pending) {
			if (!next_is_transfer_with(p, peer, want, w))
				return false;
			*out = (struct root){ROOT_STALLED, peer, w};
			return true;
		}
		if (pr->dir == FR_NOT_TRANSFER) {
			long le = last_enqueued(p, w, pr->pg);
			bool member = q_int(p->d->db, 0, "SELECT count(*) FROM pg_members WHERE pg = %Q AND rank = %d",
					    pr->pg, w) > 0;
			if (!member || le >= pr->seq)
				return false;
			*out = (struct root){ROOT_SKIPPED, peer, w};
			return true;
		}
		if (pr->peer == w)
			return false; /* both wait on each other's transfer: not a program fault we can name */
		w = peer;
	}
	return false;
}

static const char *dir_name(int dir)
{
	return dir == FR_SEND ? "SEND" : "RECV";
}

static void write_verdict(struct p2p *p, const struct root *roots, size_t n)
{
	struct diagnosis *d = p->d;
	struct verdict *v = &d->v;
	const struct root *r0 = &roots[0];
	const struct fr_rank *w = &p->r[r0->waiter];
	int missed = w->dir == FR_RECV ? FR_SEND : FR_RECV;
	for (size_t i = 0; i < n; i++)
		if (!v_has_culprit(v, roots[i].rank))
			v_culprit(v, roots[i].rank);
	v->outcome = OUTCOME(hang);
	v->cause = r0->kind == ROOT_STALLED ? CAUSE(rank_stalled) : CAUSE(collective_mismatch);
	v->confidence = CONFIDENCE(high);
	v->first_failure_t = d->t0;
	diag_pg_display(d, w->pg, v->pg, sizeof(v->pg));
	v->seq = -1;
	snprintf(v->op, sizeof(v->op), "%s", dir_name(missed));
	struct buf who = {0}, waiter = {0};
	rank_desc(d, r0->rank, &who);
	rank_desc(d, r0->waiter, &waiter);
	const char *verb = missed == FR_SEND ? "send to" : "receive from";
	if (r0->kind == ROOT_STALLED) {
		buf_printf(&v->summary,
			   "%s never posted its %s rank %d: %s waited in \"%s\" (transfer #%ld of group %s) and blocked"
			   " the collectives after it. Rank %d had nothing pending and, by its own history, that transfer"
			   " came next,",
			   who.data, verb, r0->waiter, waiter.data, w->op, w->p2p_seq, v->pg, r0->rank);
		struct rank_facts *rf = diag_rank(d, r0->rank);
		if (rf && rf->responsive)
			buf_printf(&v->summary, " and it was alive (%s): it was stuck in host code before it",
				   diag_alive_sign(rf));
		else
			buf_puts(&v->summary, " so it was stuck before it");
		if (rf && rf->last_step >= 0)
			buf_printf(&v->summary, ", after step %ld", rf->last_step);
		buf_putc(&v->summary, '.');
	} else {
		const struct fr_rank *cr = &p->r[r0->rank];
		char g[128];
		diag_pg_display(d, cr->pg, g, sizeof(g));
		buf_printf(&v->summary,
			   "%s skipped its %s rank %d: %s waited in \"%s\" (transfer #%ld of group %s), but rank %d went on"
			   " to %s #%ld of group %s, which rank %d never reached, and the two waited for each other.",
			   who.data, verb, r0->waiter, waiter.data, w->op, w->p2p_seq, v->pg, r0->rank, cr->op, cr->seq, g,
			   r0->waiter);
	}
	if (n > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, " The same for %zu ranks: %s.", v->nculprits, l.data);
		buf_free(&l);
	}
	v_cite_event(v, w->event, "the transfer a peer waited in");
	if (r0->kind == ROOT_SKIPPED)
		v_cite_event(v, p->r[r0->rank].event, "where the culprit went instead");
	else
		v_cite_event(v, q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE rank = %d AND kind = 'pg_dump_signal'",
				      r0->rank),
			     "the culprit was alive");
	buf_free(&who);
	buf_free(&waiter);
}

bool diag_p2p(struct diagnosis *d)
{
	struct p2p p = {.d = d};
	if (!load(&p)) {
		free(p.r);
		v_decline(d, "no rank waits in a transfer the flight recorder shows (no dump, or no unfinished SEND or RECV)");
		return false;
	}
	struct root *roots = NULL;
	size_t n = 0, cap = 0;
	for (int w = 0; w < p.n; w++) {
		struct root r;
		if (!follow(&p, w, &r))
			continue;
		bool seen = false;
		for (size_t i = 0; i < n; i++)
			seen |= roots[i].rank == r.rank;
		if (seen)
			continue;
		xgrow(&roots, &cap, n + 1, sizeof(*roots));
		roots[n++] = r;
	}
	bool done = n > 0;
	if (done)
		write_verdict(&p, roots, n);
	else
		v_decline(d, "the waits in transfers lead to no rank that never posted or went past its end of one");
	free(roots);
	free(p.r);
	return done;
}

/* ---- who waits on whose transfer, from NCCL's own lines ---- */

/* NCCL's lines (events e) with the communicator (comms c) their pointer
 * names in that process */
#define COMM_LINES_SQL "events e JOIN comms c ON c.rank = e.rank AND c.comm_ptr = field(e.fields, 'comm')"

/* The transfers each rank posted per communicator and peer (global ranks),
 * from NCCL's Send/Recv INFO lines (NCCL_DEBUG_SUBSYS=COLL), where the
 * rank's stream on that communicator was kept whole (its first line kept
 * has ordinal 1); then the pairs where one end posted more than the other
 * end matched: that end waits on its peer. Columns: waiter, peer, the
 * communicator's group (or its id), the waiter's receives from the peer and
 * the peer's sends to it, the waiter's sends and the peer's receives, the
 * waiter's last transfer with the peer. */
static const char transfer_waits_sql[] =
	"WITH t AS MATERIALIZED (SELECT e.rank, e.event_id, c.comm_id, field(e.fields, 'op') AS op,"
	"   field(e.fields, 'n') AS n,"
	"   (SELECT m.rank FROM comms m WHERE m.comm_id = c.comm_id AND m.comm_rank = field(e.fields, 'peer')) AS peer"
	"   FROM " COMM_LINES_SQL
	"   WHERE e.kind = 'nccl_p2p' AND e.rank IS NOT NULL),"
	" whole AS (SELECT rank, comm_id FROM t GROUP BY rank, comm_id HAVING min(n) = 1),"
	" n AS (SELECT rank, comm_id, peer, sum(op = 'Send') AS sends, sum(op = 'Recv') AS recvs,"
	"   max(event_id) AS last_ev FROM t"
	"   WHERE peer IS NOT NULL AND peer <> rank AND (rank, comm_id) IN (SELECT rank, comm_id FROM whole)"
	"   GROUP BY rank, comm_id, peer)"
	" SELECT a.rank, a.peer, coalesce((SELECT pg FROM comms c WHERE c.comm_id = a.comm_id AND pg IS NOT NULL"
	"   LIMIT 1), a.comm_id), a.recvs, coalesce(b.sends, 0), a.sends, coalesce(b.recvs, 0), a.last_ev"
	" FROM n a LEFT JOIN n b ON b.rank = a.peer AND b.peer = a.rank AND b.comm_id = a.comm_id"
	" WHERE (a.peer, a.comm_id) IN (SELECT rank, comm_id FROM whole)"
	"   AND (a.recvs > coalesce(b.sends, 0) OR a.sends > coalesce(b.recvs, 0))"
	" ORDER BY a.rank, a.peer";

size_t diag_transfer_waits(struct diagnosis *d, struct transfer_wait **out)
{
	*out = NULL;
	if (!q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind = 'nccl_p2p')"))
		return 0;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st = db_prepare(d->db, transfer_waits_sql);
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(out, &cap, n + 1, sizeof(**out));
		struct transfer_wait *w = &(*out)[n++];
		w->waiter = sqlite3_column_int(st, 0);
		w->peer = sqlite3_column_int(st, 1);
		db_column_text_copy(st, 2, w->pg, sizeof(w->pg));
		w->recvs = sqlite3_column_int64(st, 3);
		w->peer_sends = sqlite3_column_int64(st, 4);
		w->sends = sqlite3_column_int64(st, 5);
		w->peer_recvs = sqlite3_column_int64(st, 6);
		w->event = sqlite3_column_int64(st, 7);
	}
	sqlite3_finalize(st);
	return n;
}

/* The peer (global rank) of rank's last transfer by NCCL's Send/Recv lines
 * where that is a receive (it waits for the peer's data), -1 otherwise. */
static int last_transfer_peer(struct diagnosis *d, int rank)
{
	return (int)q_int(d->db, -1,
		"SELECT (SELECT m.rank FROM comms m WHERE m.comm_id = c.comm_id AND m.comm_rank = field(e.fields, 'peer'))"
		" FROM " COMM_LINES_SQL
		" WHERE e.kind = 'nccl_p2p' AND e.rank = %d AND field(e.fields, 'op') = 'Recv'"
		" AND e.line_no = (SELECT max(x.line_no) FROM events x WHERE x.kind = 'nccl_p2p' AND x.rank = e.rank"
		"   AND x.source_id = e.source_id)"
		" ORDER BY e.source_id DESC LIMIT 1",
		rank);
}

static bool is_waiter(const struct transfer_wait *tw, size_t n, int rank)
{
	for (size_t k = 0; k < n; k++)
		if (tw[k].waiter == rank)
			return true;
	return false;
}

bool diag_last_call_is_transfer(struct diagnosis *d, int rank)
{
	return q_int(d->db, 0,
		"SELECT kind = 'nccl_p2p' FROM events WHERE rank = %d AND kind IN ('nccl_p2p', 'nccl_coll')"
		" ORDER BY source_id DESC, line_no DESC LIMIT 1", rank) == 1 ||
	       q_int(d->db, 0,
		"SELECT EXISTS (SELECT 1 FROM fr_entries f JOIN events e ON e.event_id = f.event_id"
		" WHERE e.rank = %d AND f.is_p2p = 1 AND f.state <> 'completed')", rank) == 1;
}

size_t diag_drop_transfer_waiters(struct diagnosis *d, struct buf *dropped)
{
	struct verdict *v = &d->v;
	if (v->nculprits < 2)
		return 0;
	struct transfer_wait *tw;
	size_t ntw = diag_transfer_waits(d, &tw);
	bool *waits = xcalloc(v->nculprits, sizeof(*waits));
	/* directly, or through ranks that wait in turn (a pipeline's later
	 * stages wait on the stage before them) */
	for (size_t i = 0; i < v->nculprits; i++) {
		int cur = v->culprits[i];
		for (size_t steps = 0; steps <= ntw && !waits[i]; steps++) {
			size_t k = 0;
			while (k < ntw && tw[k].waiter != cur)
				k++;
			int next = k < ntw ? tw[k].peer : last_transfer_peer(d, cur);
			/* counts that match do not mean the transfer ran: the peer's
			 * end may be queued behind a transfer of its own that waits */
			if (k == ntw && next >= 0 && !v_has_culprit(v, next) && !is_waiter(tw, ntw, next))
				next = -1;
			if (next < 0 || next == v->culprits[i])
				break;
			if (v_has_culprit(v, next))
				waits[i] = true;
			cur = next;
		}
	}
	free(tw);
	size_t kept = 0;
	for (size_t i = 0; i < v->nculprits; i++)
		kept += !waits[i];
	size_t n = v->nculprits - kept;
	if (kept > 0 && n > 0) {
		int *gone = xcalloc(n, sizeof(*gone));
		size_t k = 0, g = 0;
		for (size_t i = 0; i < v->nculprits; i++)
			if (!waits[i])
				v->culprits[k++] = v->culprits[i];
			else
				gone[g++] = v->culprits[i];
		v->nculprits = k;
		fmt_rank_list(gone, g, dropped);
		free(gone);
	} else {
		n = 0;
	}
	free(waits);
	return n;
}

/* The k-th transfer of rank's stream on communicator comm_id with peer (a
 * comm rank) in direction op ('Send', 'Recv'), the stream kept whole: its
 * event and source into *ev and *src; false if it posted fewer. */
static bool kth_transfer(struct diagnosis *d, int rank, const char *comm_id, int peer, const char *op, int64_t k,
			 int64_t *ev, int64_t *src)
{
	sqlite3_stmt *st = db_prepare(d->db,
		"WITH t AS (SELECT e.event_id, e.source_id, field(e.fields, 'n') AS n, field(e.fields, 'op') AS op,"
		"   field(e.fields, 'peer') AS peer FROM " COMM_LINES_SQL
		"   WHERE e.kind = 'nccl_p2p' AND e.rank = ?1 AND c.comm_id = ?2)"
		" SELECT event_id, source_id FROM t WHERE (SELECT min(n) FROM t) = 1 AND op = ?3 AND peer = ?4"
		" ORDER BY n LIMIT 1 OFFSET ?5");
	sqlite3_bind_int(st, 1, rank);
	sqlite3_bind_text(st, 2, comm_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, op, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, peer);
	sqlite3_bind_int64(st, 5, k - 1);
	bool found = sqlite3_step(st) == SQLITE_ROW;
	if (found) {
		*ev = sqlite3_column_int64(st, 0);
		*src = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return found;
}

/* How far rank had got in each communicator of NCCL's COLL lines when it
 * posted event ev (earlier lines of the same file: kept events are written
 * per stream, so not in event_id order): (comm_id, last ordinal) rows of
 * temp.pos_<tag>. */
static void positions_before(struct diagnosis *d, const char *tag, int rank, int64_t ev, int64_t src)
{
	char *sql = sqlite3_mprintf(
		"DROP TABLE IF EXISTS temp.pos_%s;"
		"CREATE TEMP TABLE pos_%s AS SELECT c.comm_id, max(field(e.fields, 'n')) AS n FROM " COMM_LINES_SQL
		" WHERE e.kind = 'nccl_coll' AND e.rank = %d AND e.source_id = %lld"
		" AND e.line_no < (SELECT line_no FROM events WHERE event_id = %lld)"
		" GROUP BY c.comm_id;",
		tag, tag, rank, (long long)src, (long long)ev);
	db_exec(d->db, sql);
	sqlite3_free(sql);
}

int diag_transfer_skipper(struct diagnosis *d, int waiter, struct transfer_wait *w)
{
	/* the waiter's last transfer: the one it waits in */
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT e.event_id, e.source_id, c.comm_id, c.comm_rank, field(e.fields, 'op'), field(e.fields, 'peer'),"
		"  (SELECT m.rank FROM comms m WHERE m.comm_id = c.comm_id AND m.comm_rank = field(e.fields, 'peer')),"
		"  coalesce((SELECT pg FROM comms g WHERE g.comm_id = c.comm_id AND g.pg IS NOT NULL LIMIT 1), c.comm_id)"
		" FROM " COMM_LINES_SQL
		" WHERE e.kind = 'nccl_p2p' AND e.rank = ?1 ORDER BY e.source_id DESC, e.line_no DESC LIMIT 1");
	sqlite3_bind_int(st, 1, waiter);
	if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 6) == SQLITE_NULL) {
		sqlite3_finalize(st);
		return -1;
	}
	int64_t ev = sqlite3_column_int64(st, 0), src = sqlite3_column_int64(st, 1);
	char comm_id[128], op[16];
	db_column_text_copy(st, 2, comm_id, sizeof(comm_id));
	int my_comm_rank = sqlite3_column_int(st, 3);
	db_column_text_copy(st, 4, op, sizeof(op));
	int peer_comm_rank = sqlite3_column_int(st, 5);
	int peer = sqlite3_column_int(st, 6);
	memset(w, 0, sizeof(*w));
	w->waiter = waiter;
	w->peer = peer;
	db_column_text_copy(st, 7, w->pg, sizeof(w->pg));
	w->event = ev;
	sqlite3_finalize(st);
	bool recv = strcmp(op, "Recv") == 0;
	if (peer == waiter || (!recv && strcmp(op, "Send") != 0))
		return -1;
	/* which of its transfers with the peer that was (its stream kept whole) */
	int64_t k = q_int(d->db, 0,
		"WITH t AS (SELECT e.event_id, field(e.fields, 'n') AS n, field(e.fields, 'op') AS op,"
		"   field(e.fields, 'peer') AS peer FROM " COMM_LINES_SQL
		"   WHERE e.kind = 'nccl_p2p' AND e.rank = %d AND c.comm_id = %Q)"
		" SELECT CASE WHEN (SELECT min(n) FROM t) = 1 THEN (SELECT count(*) FROM t WHERE op = %Q AND peer = %d"
		"   AND n <= (SELECT n FROM t WHERE event_id = %lld)) ELSE 0 END",
		waiter, comm_id, op, peer_comm_rank, (long long)ev);
	if (k <= 0)
		return -1;
	if (recv)
		w->recvs = k;
	else
		w->sends = k;
	int64_t pev, psrc;
	if (!kth_transfer(d, peer, comm_id, my_comm_rank, recv ? "Send" : "Recv", k, &pev, &psrc)) {
		/* it never posted the k-th: fewer than the waiter, by the counts */
		int64_t posted = q_int(d->db, -1,
			"SELECT count(*) FROM " COMM_LINES_SQL
			" WHERE e.kind = 'nccl_p2p' AND e.rank = %d AND c.comm_id = %Q AND field(e.fields, 'op') = %Q"
			" AND field(e.fields, 'peer') = %d",
			peer, comm_id, recv ? "Send" : "Recv", my_comm_rank);
		if (recv)
			w->peer_sends = posted;
		else
			w->peer_recvs = posted;
		return -2; /* the caller decides: it may be behind too, or stalled */
	}
	if (recv)
		w->peer_sends = k;
	else
		w->peer_recvs = k;
	/* the peer posted its end only after calls of a shared communicator
	 * that the waiter had not reached when it posted its own: the peer's
	 * end belongs to a later step, and the one matching the waiter's was
	 * never posted */
	positions_before(d, "waiter", waiter, ev, src);
	positions_before(d, "peer", peer, pev, psrc);
	bool later = q_int(d->db, 0,
		"SELECT EXISTS (SELECT 1 FROM temp.pos_waiter a JOIN temp.pos_peer b USING(comm_id)"
		" WHERE a.comm_id <> %Q AND b.n > a.n)", comm_id) != 0;
	db_exec(d->db, "DROP TABLE IF EXISTS temp.pos_waiter; DROP TABLE IF EXISTS temp.pos_peer;");
	return later ? peer : -1;
}

/* ---- a completed job whose two ends of a pair did not count the same ---- */

/* The transfers each rank made, per group, direction and peer, from its
 * latest dump (flight_recorder.c counts them where the ring never wrapped);
 * pairs whose sender and receiver disagree. */
static const char pair_counts_sql[] =
	"WITH t AS (SELECT e.rank, e.event_id, CAST(json_extract(j.value, '$.pg_name') AS TEXT) AS pg,"
	"   json_extract(j.value, '$.dir') AS dir, json_extract(j.value, '$.peer') AS peer,"
	"   json_extract(j.value, '$.n') AS n"
	"  FROM events e, json_each(e.fields, '$.transfers') j"
	"  WHERE e.kind = 'fr_kept' AND e.rank IS NOT NULL AND json_valid(e.fields) AND e.source_id ="
	"   (SELECT source_id FROM temp.p2p_dump d WHERE d.rank = e.rank)),"
	" g AS (SELECT t.*, coalesce((SELECT m.rank FROM pg_members m WHERE m.pg = t.pg AND m.pg_rank = t.peer),"
	"   t.peer) AS gpeer FROM t)"
	" SELECT s.rank, r.rank, s.pg, s.n, r.n, s.event_id, r.event_id FROM g s JOIN g r"
	"  ON s.dir = 'send' AND r.dir = 'recv' AND s.pg = r.pg AND s.gpeer = r.rank AND r.gpeer = s.rank"
	" WHERE s.n <> r.n ORDER BY s.pg, s.rank, r.rank LIMIT 64";

bool diag_transfer_counts(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (!diag_job_ended(d)) {
		v_decline(d, "the logs show no end of the job");
		return false;
	}
	db_exec(d->db, latest_sql);
	sqlite3_stmt *st = db_prepare(d->db, pair_counts_sql);
	size_t n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int sender = sqlite3_column_int(st, 0), receiver = sqlite3_column_int(st, 1);
		int64_t sends = sqlite3_column_int64(st, 3), recvs = sqlite3_column_int64(st, 4);
		bool recv_skipped = sends > recvs;
		int culprit = recv_skipped ? receiver : sender;
		if (!v_has_culprit(v, culprit))
			v_culprit(v, culprit);
		if (n++ > 0)
			continue;
		v->outcome = OUTCOME(completed);
		v->cause = CAUSE(collective_mismatch);
		v->confidence = CONFIDENCE(medium);
		v->first_failure_t = T_NONE;
		diag_pg_display(d, (const char *)sqlite3_column_text(st, 2), v->pg, sizeof(v->pg));
		v->seq = -1;
		snprintf(v->op, sizeof(v->op), "%s", recv_skipped ? "RECV" : "SEND");
		struct buf who = {0};
		rank_desc(d, culprit, &who);
		buf_printf(&v->summary,
			   "The job completed, but the two ends of a transfer did not count the same: rank %d sent %lld"
			   " transfers to rank %d in group %s, and rank %d received %lld: %s skipped a %s, NCCL matched"
			   " each later %s with an earlier %s, and from there on the data was one transfer off",
			   sender, (long long)sends, receiver, v->pg, receiver, (long long)recvs, who.data,
			   recv_skipped ? "receive" : "send", recv_skipped ? "receive" : "send",
			   recv_skipped ? "send" : "receive");
		if (recv_skipped)
			buf_puts(&v->summary, " (the sends were small enough to complete without their receive)");
		buf_putc(&v->summary, '.');
		v_cite_event(v, sqlite3_column_int64(st, 5), "the sender's count (its final dump)");
		v_cite_event(v, sqlite3_column_int64(st, 6), "the receiver's count (its final dump)");
		buf_free(&who);
	}
	sqlite3_finalize(st);
	if (n > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, " %zu pairs disagree; ranks named: %s.", n, l.data);
		buf_free(&l);
	}
	if (n == 0)
		v_decline(d, "every pair of ranks counted the same transfers between them (or no final dump counts them)");
	return n > 0;
}
