/* diagnosis_stall.c: the stall rules: a rank that never enqueued the call
 * its peers waited in (from the flight recorder's and the watchdogs' view of
 * the hang: the hang views), one that woke too late (a late arrival, a late
 * start), and one that went past the call instead (a skip). */
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

/* ---- a rank that never enqueued what its peers waited on ---- */

/* What last_enqueued() returns when nothing tells (-1 is PyTorch's "none
 * enqueued yet", which a dump's pg_status may well say). */
#define LE_UNKNOWN (-2)

/* last enqueued seq of rank in pg, LE_UNKNOWN if unknown */
static long last_enqueued(struct diagnosis *d, int rank, const char *pg, int64_t *ev)
{
	/* hang_le holds it for every (rank, group) the hang views show; the
	 * event is the rank's dump status in the group, where it has one */
	long le = LE_UNKNOWN;
	sqlite3_stmt *st = diag_stmt(d, DS_LAST_ENQUEUED,
		"SELECT le, (SELECT event_id FROM hang_pg_status WHERE rank = ?1 AND pg = ?2"
		"   AND evidence = 'flight-recorder pg_status' LIMIT 1) FROM hang_le WHERE rank = ?1 AND pg = ?2");
	sqlite3_bind_int(st, 1, rank);
	sqlite3_bind_text(st, 2, pg, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		le = sqlite3_column_int64(st, 0);
		*ev = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	return le;
}

/* The count in the first column of a cached statement, run for one rank (?1). */
static int64_t rank_count(struct diagnosis *d, enum diag_stmt_slot slot, const char *sql, int rank)
{
	sqlite3_stmt *st = diag_stmt(d, slot, sql);
	sqlite3_bind_int(st, 1, rank);
	int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	return n;
}

/* The rank's watchdog timed out in a point-to-point transfer: it was
 * waiting for a peer's send or receive (with no flight recorder to say
 * which, diagnosis_p2p.c cannot follow it). Counted whenever it was seen:
 * the wait it reports began a whole timeout earlier. */
/* Whether the rank timed out or failed in a transfer, among the calls of
 * table coll (collectives, or the hang view). */
#define WAITS_IN_TRANSFER_SQL(coll)                                                                       \
	"SELECT count(*) FROM " coll " WHERE rank = ?1 AND state IN ('timed_out', 'failed')"                 \
	" AND (op IN ('SEND', 'RECV') OR (op = 'COALESCED' AND (EXISTS (SELECT 1 FROM collectives c"          \
	"   WHERE c.rank = ?1 AND c.op IN ('SEND', 'RECV')) OR EXISTS (SELECT 1 FROM fr_entries f"            \
	"   JOIN events e ON e.event_id = f.event_id WHERE e.rank = ?1 AND f.is_p2p = 1))))"

static bool waits_in_transfer_in(struct diagnosis *d, int rank, bool hang_view)
{
	/* a batch of transfers times out as COALESCED, like a batch of collectives:
	 * it is the former when the rank made transfers */
	if (hang_view)
		return rank_count(d, DS_TRANSFER_HANG, WAITS_IN_TRANSFER_SQL("hang_coll"), rank) > 0;
	return rank_count(d, DS_TRANSFER_COLL, WAITS_IN_TRANSFER_SQL("collectives"), rank) > 0;
}

bool diag_waits_in_transfer(struct diagnosis *d, int rank)
{
	return waits_in_transfer_in(d, rank, false);
}

/* true if the rank has a collective of its own pending (waiting on others) */
static bool has_pending(struct diagnosis *d, int rank)
{
	if (waits_in_transfer_in(d, rank, true))
		return true;
	return rank_count(d, DS_PENDING_HANG,
			  "SELECT count(*) FROM hang_coll WHERE rank = ?1 AND state IN ('timed_out','failed','started')",
			  rank) > 0 ||
	       rank_count(d, DS_PENDING_STATUS,
			  "SELECT count(*) FROM hang_pg_status WHERE rank = ?1 AND last_enqueued > last_completed", rank) > 0;
}

struct blocked {
	int rank;
	char pg[128];
	long seq, le;
	int64_t status_ev, wait_ev, wait_t;
	bool wait_t_known; /* wait_ev, wait_t and op looked up */
	char op[32];
};

/* Whether the wait of bl[i] was taken already from another culprit's entry
 * at the same group and seq (the same call: the peers' wait on it is one),
 * and copies it: a big group's stuck call reads its members' rows once, not
 * once per culprit (thousands of copies of a stalled rank at 16,384 ranks). */
static bool wait_known(struct blocked *bl, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (bl[j].wait_t_known && bl[j].seq == bl[i].seq && strcmp(bl[j].pg, bl[i].pg) == 0) {
			snprintf(bl[i].op, sizeof(bl[i].op), "%s", bl[j].op);
			bl[i].wait_ev = bl[j].wait_ev;
			bl[i].wait_t = bl[j].wait_t;
			bl[i].wait_t_known = true;
			return true;
		}
	return false;
}

/* The call the peers of b waited on at its group and seq (op, event) and
 * since when: the earliest start among them. */
static void wait_look_up(struct diagnosis *d, struct blocked *b)
{
	sqlite3_stmt *w = db_prepare(d->db,
		"SELECT c.op, c.event_id, coalesce(c.time_created_us, e.time_us - coalesce(field(e.fields,"
		" 'ran_ms'), 0) * 1000) AS t FROM hang_coll c JOIN events e ON e.event_id = c.event_id"
		" WHERE c.pg = ?1 AND c.seq = ?2 ORDER BY c.state IN ('timed_out','failed') DESC, t LIMIT 1");
	sqlite3_bind_text(w, 1, b->pg, -1, SQLITE_STATIC);
	sqlite3_bind_int64(w, 2, b->seq);
	if (sqlite3_step(w) == SQLITE_ROW) {
		db_column_text_copy(w, 0, b->op, sizeof(b->op));
		b->wait_ev = sqlite3_column_int64(w, 1);
		b->wait_t = sqlite3_column_int64(w, 2);
	}
	sqlite3_finalize(w);
	/* the earliest collective the peers started and the culprit never did */
	int64_t tstart = q_int(d->db, T_NONE,
		"SELECT min(time_created_us) FROM hang_coll WHERE pg = %Q AND seq = %ld", b->pg, b->seq);
	if (tstart != T_NONE)
		b->wait_t = tstart;
	b->wait_t_known = true;
}

/* PyTorch's desync report (TORCH_NCCL_DESYNC_DEBUG=1) names the lagging
 * ranks itself; it is taken at its word, with its own evidence. */
static bool desync_report(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	int64_t ev = q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'pg_desync_lagging'");
	if (!ev)
		return false;
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT DISTINCT CAST(value AS INTEGER) FROM events, json_each('[' || field(fields, 'ranks') || ']')"
		" WHERE event_id = ?");
	sqlite3_bind_int64(st, 1, ev);
	while (sqlite3_step(st) == SQLITE_ROW)
		v_culprit(v, sqlite3_column_int(st, 0));
	sqlite3_finalize(st);
	if (!v->nculprits)
		return false;
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(rank_stalled);
	v->confidence = CONFIDENCE(high);
	v->first_failure_t = d->t0;
	int64_t at = q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'pg_desync_timeout_at'");
	if (at) {
		q_text(d->db, v->op, sizeof(v->op), "SELECT norm_op(field(fields, 'op')) FROM events WHERE event_id = %lld",
		       (long long)at);
		v->seq = (long)q_int(d->db, -1, "SELECT field(fields, 'seq') FROM events WHERE event_id = %lld",
				     (long long)at);
	}
	int64_t wev = diag_wait_into_verdict(d);
	struct buf l = {0};
	fmt_rank_list(v->culprits, v->nculprits, &l);
	buf_printf(&v->summary, "PyTorch's desync report names rank%s %s as lagging", v->nculprits > 1 ? "s" : "", l.data);
	if (v->seq >= 0)
		buf_printf(&v->summary, " at %s #%ld", v->op, v->seq);
	buf_puts(&v->summary, ": they never reached the collective their peers waited on.");
	v_cite_event(v, ev, "desync report");
	v_cite_event(v, at, "the collective");
	v_cite_event(v, wev, "peers waiting");
	buf_free(&l);
	return true;
}

/* A rank that never enqueued G #N may have skipped it rather than stopped
 * before it: it did if it went on to a collective of another group H that a
 * peer already waiting in G #N has not reached. That peer enqueued G #N, so in
 * its program H's next collective comes after G #N; the rank called them in
 * another order. Fills the group, the two positions in it and the peer. */
struct moved_on {
	char pg[128];
	long mine, peers;
	int peer;
	int64_t event_id; /* the rank's collective there */
	bool by_order;    /* told from the peer's order of calls, not its progress */
};

/* Runs one of the queries below (columns: the other group, the rank's seq
 * there, the peer, the peer's seq, the rank's event); true with m filled. */
static bool moved_on_query(struct diagnosis *d, const char *sql, int rank, const char *pg, long seq,
			   struct moved_on *m)
{
	sqlite3_stmt *st = db_prepare(d->db, sql);
	sqlite3_bind_int(st, 1, rank);
	sqlite3_bind_text(st, 2, pg, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, seq);
	bool found = sqlite3_step(st) == SQLITE_ROW;
	if (found) {
		db_column_text_copy(st, 0, m->pg, sizeof(m->pg));
		m->mine = sqlite3_column_int64(st, 1);
		m->peer = sqlite3_column_int(st, 2);
		m->peers = sqlite3_column_int64(st, 3);
		m->event_id = sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
	return found;
}

/* Where the rank ?1 shows it went past pg ?2 #?3 (the joins and conditions
 * of moved_on's two queries, in the order that starts from the rank's few
 * groups): a peer waiting in pg #seq (h, p, g) had
 * reached less of another group than the rank (a peer alone behind every
 * other member of a group of three or more made the odd move there: it
 * skipped that group's call, no sign of the rank's) ... */
#define WENT_PAST_AHEAD_SQL                                                                              \
	" FROM le h CROSS JOIN le p ON p.pg = h.pg AND p.rank <> h.rank"                                    \
	"  CROSS JOIN le g ON g.rank = p.rank AND g.pg = ?2 AND g.le >= ?3"                                 \
	" WHERE h.rank = ?1 AND h.pg <> ?2 AND h.le > p.le"                                                  \
	"  AND NOT EXISTS (SELECT 1 FROM hang_le_pg x WHERE x.pg = h.pg AND x.n >= 3 AND x.mn = p.le"   \
	"   AND x.at_min = 1)"
/* ... or the rank made a call H #k (h) that a peer (ph, g), by its flight
 * recorder, made only after pg #seq: in that peer's order of calls the rank
 * went past the collective it never made */
#define WENT_PAST_BY_ORDER_SQL                                                                           \
	" FROM hang_coll h"                                                                                  \
	" JOIN hang_coll ph ON ph.pg = h.pg AND ph.seq = h.seq AND ph.rank <> h.rank"                       \
	"  AND ph.time_created_us IS NOT NULL"                                                               \
	" JOIN hang_coll g ON g.rank = ph.rank AND g.pg = ?2 AND g.seq = ?3 AND g.time_created_us IS NOT NULL" \
	" WHERE h.rank = ?1 AND h.pg <> ?2 AND g.time_created_us < ph.time_created_us"

static bool moved_on(struct diagnosis *d, int rank, const char *pg, long seq, struct moved_on *m)
{
	m->by_order = false;
	if (moved_on_query(d,
		HANG_LE_SQL
		" SELECT h.pg, h.le, p.rank, p.le,"
		"  (SELECT min(event_id) FROM hang_coll c WHERE c.rank = h.rank AND c.pg = h.pg AND c.seq = h.le)"
		WENT_PAST_AHEAD_SQL " ORDER BY h.le - p.le DESC, h.pg, p.rank LIMIT 1",
		rank, pg, seq, m))
		return true;
	m->by_order = true;
	return moved_on_query(d,
		"SELECT h.pg, h.seq, g.rank, ?3, h.event_id" WENT_PAST_BY_ORDER_SQL
		" ORDER BY h.seq DESC, h.pg, g.rank LIMIT 1",
		rank, pg, seq, m);
}

/* Whether moved_on() would find something (its queries as prepared
 * statements that stop at the first match: run for many ranks). */
struct went_past {
	sqlite3_stmt *ahead, *by_order;
};

static void went_past_open(struct diagnosis *d, struct went_past *w)
{
	w->ahead = db_prepare(d->db, HANG_LE_SQL " SELECT EXISTS (SELECT 1" WENT_PAST_AHEAD_SQL ")");
	w->by_order = db_prepare(d->db, "SELECT EXISTS (SELECT 1" WENT_PAST_BY_ORDER_SQL ")");
}

static void went_past_close(struct went_past *w)
{
	sqlite3_finalize(w->ahead);
	sqlite3_finalize(w->by_order);
}

static bool went_past(struct went_past *w, int rank, const char *pg, long seq)
{
	sqlite3_stmt *q[2] = {w->ahead, w->by_order};
	for (int i = 0; i < 2; i++) {
		sqlite3_reset(q[i]);
		sqlite3_bind_int(q[i], 1, rank);
		sqlite3_bind_text(q[i], 2, pg, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q[i], 3, seq);
		if (sqlite3_step(q[i]) == SQLITE_ROW && sqlite3_column_int(q[i], 0))
			return true;
	}
	return false;
}

/* The other culprits found blocked (the roots, or every blocked rank) that
 * went past a call they were blocked in too, as pick did: ranks that did the
 * same (a node's ranks, every rank that took the same branch) are each a
 * culprit. Went past it is symmetric between a rank that skipped a call and
 * a peer left waiting for it elsewhere (which never makes the skipper's next
 * call either): a rank that made a call in which pick, or an earlier-waited
 * such rank, is blocked waits for them. So the ranks are taken in the order
 * their earliest blocked call was waited on (pick's first), and each one that
 * made none of the calls blocking those taken before it (temp.skip_calls) is
 * taken. Each blocked entry's wait is known (the pick's loop looked them
 * up). At most SKIP_ALIKE_CHECKS ranks are checked; the rest are left out. */
#define SKIP_ALIKE_CHECKS 4096

struct skip_cand {
	int rank;
	int64_t wait_t;
};

static int cmp_skip_cand(const void *a, const void *b)
{
	const struct skip_cand *x = a, *y = b;
	if (x->wait_t != y->wait_t)
		return x->wait_t < y->wait_t ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* adds the calls in which rank is blocked to temp.skip_calls (statement ins) */
static void add_blocking_calls(sqlite3_stmt *ins, const struct blocked *bl, size_t nb, int rank)
{
	for (size_t i = 0; i < nb; i++) {
		if (bl[i].rank != rank)
			continue;
		sqlite3_reset(ins);
		sqlite3_bind_text(ins, 1, bl[i].pg, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 2, bl[i].seq);
		sqlite3_step(ins);
	}
}

static bool made_blocking_call(sqlite3_stmt *made, int rank)
{
	sqlite3_reset(made);
	sqlite3_bind_int(made, 1, rank);
	return sqlite3_step(made) == SQLITE_ROW && sqlite3_column_int(made, 0);
}

static size_t skipped_alike(struct diagnosis *d, const struct blocked *pick, const struct blocked *bl, size_t nb,
			    int **alike)
{
	struct verdict *v = &d->v;
	db_exec(d->db, "DROP TABLE IF EXISTS temp.skip_calls;"
		       "CREATE TEMP TABLE skip_calls(pg TEXT, seq INTEGER, PRIMARY KEY(pg, seq));");
	sqlite3_stmt *ins = db_prepare(d->db, "INSERT OR IGNORE INTO temp.skip_calls VALUES(?1, ?2)");
	sqlite3_stmt *made = db_prepare(d->db,
		"SELECT EXISTS (SELECT 1 FROM hang_le l CROSS JOIN temp.skip_calls s ON s.pg = l.pg AND s.seq <= l.le"
		" WHERE l.rank = ?1)");
	add_blocking_calls(ins, bl, nb, pick->rank);
	struct went_past w;
	went_past_open(d, &w);
	struct skip_cand *cand = xcalloc(v->nculprits + 1, sizeof(*cand));
	size_t nc = 0;
	for (size_t c = 0; c < v->nculprits && nc < SKIP_ALIKE_CHECKS; c++) {
		int rank = v->culprits[c];
		/* pick first: a rank waiting in a call pick skipped is no skipper */
		if (rank == pick->rank || made_blocking_call(made, rank))
			continue;
		/* its earliest-waited blocked call that it went past */
		const struct blocked *best = NULL;
		for (size_t i = 0; i < nb; i++)
			if (bl[i].rank == rank && bl[i].wait_t_known && (!best || bl[i].wait_t < best->wait_t) &&
			    went_past(&w, rank, bl[i].pg, bl[i].seq))
				best = &bl[i];
		if (best)
			cand[nc++] = (struct skip_cand){rank, best->wait_t};
	}
	went_past_close(&w);
	xqsort(cand, nc, sizeof(*cand), cmp_skip_cand);
	*alike = xcalloc(nc + 1, sizeof(**alike));
	size_t n = 0;
	for (size_t i = 0; i < nc; i++) {
		if (made_blocking_call(made, cand[i].rank))
			continue;
		(*alike)[n++] = cand[i].rank;
		add_blocking_calls(ins, bl, nb, cand[i].rank);
	}
	sqlite3_finalize(ins);
	sqlite3_finalize(made);
	db_exec(d->db, "DROP TABLE temp.skip_calls;");
	free(cand);
	return n;
}

/* The verdict for a rank that skipped the collective its peers waited on
 * (with the other roots in bl that skipped one too). */
static void skipped_verdict(struct diagnosis *d, const struct blocked *b, const struct moved_on *m,
			    const struct blocked *bl, size_t nb)
{
	struct verdict *v = &d->v;
	int *alike = NULL;
	size_t nalike = skipped_alike(d, b, bl, nb, &alike);
	v->nculprits = 0;
	v_culprit(v, b->rank);
	for (size_t i = 0; i < nalike; i++)
		v_culprit(v, alike[i]);
	free(alike);
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(collective_mismatch);
	v->confidence = CONFIDENCE(high);
	v->first_failure_t = d->t0;
	hang_set_pg(d, b->pg);
	v->seq = b->seq;
	snprintf(v->op, sizeof(v->op), "%s", b->op);
	struct buf who = {0};
	rank_desc(d, b->rank, &who);
	char other[128], t[32];
	diag_pg_display(d, m->pg, other, sizeof(other));
	fmt_time(d->t0, t, sizeof(t));
	buf_printf(&v->summary,
		   "%s skipped %s #%ld of group %s: its peers enqueued it and waited for it (they timed out from %s"
		   " on), but it went on without it (its last there was #%ld): ",
		   who.data, b->op[0] ? b->op : "collective", b->seq, v->pg, t, b->le);
	if (m->by_order)
		buf_printf(&v->summary, "it enqueued %s #%ld, which rank %d enqueued only after %s #%ld.", other, m->mine,
			   m->peer, v->pg, b->seq);
	else
		buf_printf(&v->summary, "it enqueued %s #%ld while rank %d, waiting in %s #%ld, had reached %s #%ld.",
			   other, m->mine, m->peer, v->pg, b->seq, other, m->peers);
	buf_puts(&v->summary, " The ranks called different sequences of collectives; the others' failures follow from it.");
	v_say_culprits(v, "went past a call their peers waited in the same way");
	v_cite_event(v, b->status_ev, "the culprit's last enqueued collective in that group");
	v_cite_event(v, b->wait_ev, "a peer waiting for it");
	v_cite_event(v, m->event_id, "the culprit went on to a later collective");
	buf_free(&who);
}

/* The collectives and group states as they were when the job hung: what was
 * observed after the first death or abort that followed the first timeout
 * belongs to the teardown (a survivor's stream runs on once a peer's death
 * fails its stuck collective) and would blur who was where. */
static void hang_views(struct diagnosis *d)
{
	int64_t cut = d->t0 == T_NONE ? INT64_MAX : q_int(d->db, INT64_MAX,
		"SELECT min(t) FROM (SELECT exit_time_us AS t FROM rank_status WHERE exit_time_us > %lld"
		" UNION ALL SELECT time_us FROM events WHERE kind IN ('pg_taking_down','pg_watchdog_terminated',"
		" 'pg_terminating') AND time_us > %lld)",
		(long long)d->t0, (long long)d->t0);
	/* A rank that answered the dump request after the first timeout: its
	 * dump says where it was then. Calls it logged later beyond what the
	 * dump had enqueued in the group, it made once its peers had already
	 * timed out (a rank late by more than the timeout goes on when it
	 * wakes up), and they would show it ahead of the peers it held up.
	 * Only the (rank, group) pairs with such later calls are kept: the
	 * views test every row against them. */
/* A row of collectives c (its event e) or of pg_status p that a rank logged
 * after its dump h, beyond what the dump had enqueued in the group. */
#define AFTER_DUMP_COLL "h.rank = c.rank AND h.pg = c.pg AND c.seq > h.le AND coalesce(c.time_created_us, e.time_us, 0) > h.t"
#define AFTER_DUMP_STATUS "h.rank = p.rank AND h.pg = p.pg AND p.last_enqueued > h.le AND coalesce(p.time_us, 0) > h.t"
	/* the views hang_coll and hang_pg_status (case_schema.h) read the cut
	 * and the dumps' rows from the case: what the rules see, a user sees */
	db_exec(d->db, "DELETE FROM hang_dump; DELETE FROM hang_le; DELETE FROM hang_le_pg;");
	char *sql = sqlite3_mprintf(
		"INSERT OR REPLACE INTO diagnosis_facts(fact, value, meaning) VALUES('hang_cut_us', %lld,"
		" 'the hang as the ranks had it ends here: the first death or teardown after the first failure"
		" (hang_coll and hang_pg_status show what was logged before it)');"
		"INSERT OR IGNORE INTO hang_dump SELECT p.rank, p.pg, p.last_enqueued, s.t FROM pg_status p"
		"  JOIN (SELECT rank, min(time_us) AS t FROM events WHERE kind = 'pg_dump_signal' AND rank IS NOT NULL"
		"        AND time_us >= %lld GROUP BY rank) s USING(rank)"
		"  WHERE p.evidence = 'flight-recorder pg_status' AND p.last_enqueued IS NOT NULL AND p.pg IS NOT NULL;"
		"DELETE FROM hang_dump AS h WHERE NOT EXISTS (SELECT 1 FROM pg_status p WHERE " AFTER_DUMP_STATUS ")"
		" AND NOT EXISTS (SELECT 1 FROM collectives c LEFT JOIN events e ON e.event_id = c.event_id"
		"   WHERE " AFTER_DUMP_COLL ");"
		/* without such rows the views skip their test (a probe per row) */
		"INSERT OR REPLACE INTO diagnosis_facts(fact, value, meaning) SELECT 'hang_dump_rows', count(*),"
		" 'rows of hang_dump: (rank, group) pairs with calls logged after the rank''s dump' FROM hang_dump;",
		(long long)cut, (long long)(d->t0 == T_NONE ? INT64_MAX : d->t0));
	db_exec(d->db, sql);
	sqlite3_free(sql);
	/* the last seq each rank enqueued per group, as the views show it, read
	 * once: the rules look it up per rank and group (thousands of times
	 * where many ranks are blocked) */
	db_exec(d->db,
		"INSERT INTO hang_le SELECT rank, pg, max(v) FROM ("
		"   SELECT rank, pg, last_enqueued AS v FROM hang_pg_status WHERE last_enqueued IS NOT NULL"
		"   UNION ALL SELECT rank, pg, seq FROM hang_coll) WHERE pg IS NOT NULL AND rank IS NOT NULL"
		"  GROUP BY rank, pg;"
		"INSERT INTO hang_le_pg SELECT pg, count(*), min(le), NULL FROM hang_le GROUP BY pg;"
		"UPDATE hang_le_pg SET at_min = (SELECT count(*) FROM hang_le l WHERE l.pg = hang_le_pg.pg AND l.le = hang_le_pg.mn);");
	d->hang_views_built = true;
#undef AFTER_DUMP_COLL
#undef AFTER_DUMP_STATUS
}

bool diag_any_behind(struct diagnosis *d)
{
	if (!d->hang_views_built)
		hang_views(d);
	return q_int(d->db, 0,
		HANG_LE_SQL
		" SELECT EXISTS (SELECT 1 FROM le a JOIN le b ON b.pg = a.pg AND b.le > a.le)") != 0;
}
/* Without dumps (diag_late_start): each rank's timed-out calls (w), when
 * each rank's first of them began by its watchdog line less ran_ms (first),
 * and the ranks whose first began after the time bound in (late). */
#define LATE_START_SQL                                                                                   \
	"WITH w AS (SELECT c.rank, c.pg, c.seq, c.op, c.event_id, e.time_us AS t,"                           \
	"   e.time_us - field(e.fields, 'ran_ms') * 1000 AS t_start FROM collectives c"                      \
	"   JOIN events e ON e.event_id = c.event_id"                                                        \
	"   WHERE c.state = 'timed_out' AND " COLL_NOT_COMPLETED("c.") " AND c.rank IS NOT NULL AND c.pg IS NOT NULL" \
	"   AND e.time_us IS NOT NULL" \
	"   AND field(e.fields, 'ran_ms') IS NOT NULL),"                                                     \
	" first AS (SELECT rank, min(t_start) AS t_start FROM w GROUP BY rank),"                             \
	" late AS (SELECT rank, t_start FROM first WHERE t_start > %lld)"

/* The verdict of a rank that stalled in host code and went on too late, and
 * the sentence that says so: stuck (with its last step) and how it ended. */
static void late_verdict(struct diagnosis *d, int rank, const char *confidence)
{
	struct verdict *v = &d->v;
	v_culprit(v, rank);
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(rank_stalled);
	v->confidence = confidence;
	v->first_failure_t = d->t0;
}

static void late_sentence(struct diagnosis *d, int rank, const char *stuck, const char *then)
{
	struct verdict *v = &d->v;
	buf_puts(&v->summary, stuck);
	struct rank_facts *r = diag_rank(d, rank);
	if (r && r->last_step >= 0)
		buf_printf(&v->summary, " (after step %ld)", r->last_step);
	buf_puts(&v->summary, then);
}

/* A rank that made the call its peers timed out on only after they had
 * timed out (the flight recorder keeps when each rank created each call),
 * and the only one: it was stuck in host code while they waited, and went
 * on when it woke up, too late (its dump, taken after that, shows it ahead
 * of them). */
static bool late_arrival(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE)
		return false;
	/* calls made after the first timeout (a wait timed out no earlier),
	 * then the waits they came too late for: most jobs have none (a group
	 * of the whole job has as many rows per call as ranks) */
	if (!q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM collectives NOT INDEXED WHERE evidence = 'flight recorder'"
			     " AND time_created_us > %lld)", (long long)(d->t0 + LATE_MARGIN_US)))
		return false;
	char *sql = sqlite3_mprintf(
		"DROP TABLE IF EXISTS temp.late_rows;"
		"CREATE TEMP TABLE late_rows AS"
		" WITH made AS MATERIALIZED (SELECT rank, pg, seq, op, time_created_us AS t_made, event_id FROM collectives"
		"   WHERE evidence = 'flight recorder' AND time_created_us > %lld AND pg IS NOT NULL)"
		" SELECT f.rank AS rank, f.pg AS pg, f.seq AS seq, f.op AS op, f.t_made AS t_made, e.time_us AS t_out,"
		"  w.rank AS waiter, f.event_id AS made_ev,"
		"  (SELECT min(m.time_created_us) FROM collectives m WHERE m.pg = f.pg AND m.seq = f.seq"
		"    AND m.rank = w.rank AND m.evidence = 'flight recorder') AS t_waited"
		" FROM made f CROSS JOIN collectives w ON w.pg = f.pg AND w.seq = f.seq AND w.rank <> f.rank"
		"  JOIN events e ON e.event_id = w.event_id"
		" WHERE w.state = 'timed_out' AND e.time_us IS NOT NULL AND f.t_made > e.time_us + %lld"
		/* every member with logs made that call: one that never did is
		 * the first suspect (one without logs is checked below) */
		"  AND NOT EXISTS (SELECT 1 FROM pg_members p WHERE p.pg = f.pg AND NOT EXISTS (SELECT 1"
		"    FROM collectives o WHERE o.pg = f.pg AND o.seq = f.seq AND o.rank = p.rank)"
		"    AND p.rank IN (SELECT rank FROM rank_status WHERE events > 0))",
		(long long)(d->t0 + LATE_MARGIN_US), (long long)LATE_MARGIN_US);
	db_exec(d->db, sql);
	sqlite3_free(sql);
	sqlite3_stmt *st = db_prepare(d->db, "SELECT rank, pg, seq, op, t_made, t_out, waiter, made_ev, t_waited"
					     " FROM temp.late_rows ORDER BY t_made, t_out LIMIT 1");
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return false;
	}
	int rank = sqlite3_column_int(st, 0);
	char pg[128], op[sizeof(v->op)];
	db_column_text_copy(st, 1, pg, sizeof(pg));
	long seq = sqlite3_column_int64(st, 2);
	db_column_text_copy(st, 3, op, sizeof(op));
	int64_t t_made = sqlite3_column_int64(st, 4), t_out = sqlite3_column_int64(st, 5);
	int waiter = sqlite3_column_int(st, 6);
	int64_t made_ev = sqlite3_column_int64(st, 7);
	int64_t t_waited = db_column_int_or(st, 8, T_NONE);
	sqlite3_finalize(st);
	/* the only rank that came too late, or the few that all woke at once
	 * (the ranks of a node that was paused, the copies of one in a job
	 * synth made), a minority: a rank late by more may have waited on them,
	 * and past LATE_MAX_CALLS late calls they are too many to tell */
	enum { LATE_MAX_CALLS = 256 };
	st = db_prepare(d->db, "SELECT rank, pg, min(t_made) FROM temp.late_rows GROUP BY rank, pg"
			       " ORDER BY 3, rank LIMIT ?1");
	sqlite3_bind_int(st, 1, LATE_MAX_CALLS + 1);
	struct late_call { int rank; char pg[128]; } *late = NULL;
	size_t nlate = 0, cap = 0, ranks_late = 0;
	bool one = true;
	while (one && sqlite3_step(st) == SQLITE_ROW) {
		int r = sqlite3_column_int(st, 0);
		bool new_rank = true;
		for (size_t i = 0; i < nlate; i++)
			new_rank = new_rank && late[i].rank != r;
		if (nlate == LATE_MAX_CALLS || (r != rank && sqlite3_column_int64(st, 2) > t_made + LATE_MARGIN_US))
			one = false;
		xgrow(&late, &cap, nlate + 1, sizeof(*late));
		late[nlate].rank = r;
		db_column_text_copy(st, 1, late[nlate].pg, sizeof(late[nlate].pg));
		nlate++;
		ranks_late += new_rank;
	}
	sqlite3_finalize(st);
	db_exec(d->db, "DROP TABLE temp.late_rows");
	one = one && (ranks_late == 1 || 2 * ranks_late <= (size_t)d->nranks);
	/* a member without a line in the bundle may have been late too: the
	 * rank stays the culprit only if it was in host code when its peers
	 * timed out (its dump has no call of before then unfinished then: it
	 * was waiting on nobody, that member included) */
	bool unseen = false;
	for (size_t i = 0; i < nlate && one; i++) {
		bool u = q_int(d->db, 0,
			"SELECT EXISTS (SELECT 1 FROM pg_members p WHERE p.pg = %Q AND p.rank NOT IN"
			" (SELECT rank FROM rank_status WHERE events > 0))", late[i].pg);
		if (u)
			one = !q_int(d->db, 0,
				"SELECT EXISTS (SELECT 1 FROM collectives WHERE rank = %d AND evidence = 'flight recorder'"
				" AND time_created_us < %lld AND (state <> 'completed' OR time_completed_us > %lld))",
				late[i].rank, (long long)t_out, (long long)t_out);
		unseen = unseen || u;
	}
	if (!one) {
		free(late);
		return false;
	}
	for (size_t i = 0; i < nlate; i++)
		v_culprit(v, late[i].rank);
	free(late);
	late_verdict(d, rank, unseen ? CONFIDENCE(medium) : CONFIDENCE(high));
	hang_set_pg(d, pg);
	v->seq = seq;
	snprintf(v->op, sizeof(v->op), "%s", op);
	struct buf who = {0};
	rank_desc(d, rank, &who);
	char tm[32], to[32];
	fmt_time(t_made, tm, sizeof(tm));
	fmt_time(t_out, to, sizeof(to));
	buf_printf(&v->summary, "%s made %s #%ld of group %s only at %s, %.1f s after rank %d had timed out"
				" waiting for it (%s)", who.data, *op ? op : "collective", seq, v->pg, tm,
		   (double)(t_made - t_out) / 1e6, waiter, to);
	if (t_waited != T_NONE)
		buf_printf(&v->summary, "; rank %d had made it %.1f s earlier", waiter, (double)(t_made - t_waited) / 1e6);
	late_sentence(d, rank, ". It was stuck in host code before that call",
		      " and went on when its peers had given up: its dump shows it ahead of them.");
	if (ranks_late > 1) {
		buf_printf(&v->summary, " %zu ranks came as late, at once: ", ranks_late);
		fmt_rank_list(v->culprits, v->nculprits, &v->summary);
		buf_putc(&v->summary, '.');
	}
	v_cite_event(v, made_ev, "the culprit making the call late");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT c.event_id FROM collectives c WHERE c.rank = %d AND c.pg = %Q AND c.seq = %ld"
			      " AND c.state = 'timed_out' LIMIT 1", waiter, pg, seq),
		     "a peer that timed out waiting for it");
	buf_free(&who);
	return true;
}

/* Without the flight recorder's creation times, the watchdogs' own: every
 * rank's first timed-out call began before the first timeout but one
 * rank's, which began after it (its line's time less the time it ran). That
 * rank was not waiting in any call when the others timed out: it was in
 * host code, came back when they had given up, and what it then called
 * timed out in turn. */
bool diag_late_start(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE) {
		v_decline(d, "no failure was logged");
		return false;
	}
	char *sql = sqlite3_mprintf(LATE_START_SQL
		" SELECT w.rank, w.pg, w.seq, w.op, w.event_id, w.t_start, w.t FROM w JOIN late USING(rank)"
		/* one rank, or the few (a minority) whose late calls began within a
		 * second of each other: a node's ranks stuck at once */
		" WHERE (SELECT count(*) FROM first) > 1"
		" AND ((SELECT count(*) FROM late) = 1 OR (2 * (SELECT count(*) FROM late) < (SELECT count(*) FROM first)"
		"  AND (SELECT max(t_start) - min(t_start) FROM late) <= %lld))"
		/* every other rank with logs timed out waiting when it did not */
		" AND NOT EXISTS (SELECT 1 FROM rank_status r WHERE r.rank NOT IN (SELECT rank FROM first))"
		" ORDER BY w.t_start, w.t LIMIT 1",
		(long long)(d->t0 + LATE_MARGIN_US), (long long)LATE_MARGIN_US);
	sqlite3_stmt *st = db_prepare(d->db, sql);
	sqlite3_free(sql);
	bool found = false;
	if (sqlite3_step(st) == SQLITE_ROW) {
		int rank = sqlite3_column_int(st, 0);
		const char *pg = (const char *)sqlite3_column_text(st, 1);
		long seq = sqlite3_column_int64(st, 2);
		const char *op = (const char *)sqlite3_column_text(st, 3);
		int64_t ev = sqlite3_column_int64(st, 4), t_start = sqlite3_column_int64(st, 5);
		found = true;
		late_verdict(d, rank, CONFIDENCE(medium));
		struct buf who = {0};
		rank_desc(d, rank, &who);
		char t0s[32], ts[32], pgd[128];
		fmt_time(d->t0, t0s, sizeof(t0s));
		fmt_time(t_start, ts, sizeof(ts));
		diag_pg_display(d, pg, pgd, sizeof(pgd));
		/* the ranks as late as it (itself included) */
		int *late = NULL;
		size_t nlate = 0, cap = 0;
		char *late_sql = sqlite3_mprintf(LATE_START_SQL " SELECT rank FROM late ORDER BY rank",
						 (long long)(d->t0 + LATE_MARGIN_US));
		sqlite3_stmt *ls = db_prepare(d->db, late_sql);
		sqlite3_free(late_sql);
		while (sqlite3_step(ls) == SQLITE_ROW) {
			xgrow(&late, &cap, nlate + 1, sizeof(*late));
			late[nlate++] = sqlite3_column_int(ls, 0);
		}
		sqlite3_finalize(ls);
		if (nlate > 1)
			buf_printf(&v->summary, "Every rank but %zu", nlate);
		else
			buf_puts(&v->summary, "Every other rank");
		buf_printf(&v->summary, " timed out in a call it had begun before %s (the first timeout);"
					" %s was in none: the first call of it that timed out (%s #%ld of group %s) began"
					" only at %s, %.1f s after the others had given up.", t0s, who.data,
			   op && *op ? op : "collective", seq, pgd, ts, (double)(t_start - d->t0) / 1e6);
		/* the wait it held up (the culprit is set: a peer's, in a group of its own) */
		int64_t wev = diag_wait_into_verdict(d);
		if (wev) {
			buf_printf(&v->summary, " Rank %d waited for it at %s #%ld of group %s.",
				   (int)q_int(d->db, -1, "SELECT rank FROM collectives WHERE event_id = %lld", (long long)wev),
				   v->op[0] ? v_peer_op(v) : "collective", v->seq, v->pg);
			v_cite_event(v, wev, "a peer that timed out waiting for it");
		}
		late_sentence(d, rank, " It was stuck in host code while they waited", " and went on too late.");
		for (size_t i = 0; i < nlate; i++)
			v_culprit(v, late[i]);
		free(late);
		v_say_culprits(v, "came as late, at once");
		v_cite_event(v, ev, "the culprit's first call that timed out, begun after the first timeout");
		v_cite_event(v, q_int(d->db, 0, "SELECT e.event_id FROM events e WHERE e.kind = 'pg_watchdog_timeout'"
						" ORDER BY e.time_us LIMIT 1"),
			     "the first timeout");
		buf_free(&who);
	}
	sqlite3_finalize(st);
	if (!found)
		v_decline(d, "no rank's first timed-out call began after the first timeout (by its watchdog's ran_ms), or"
			     " more ranks than a few did");
	return found;
}

bool diag_stalled(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (desync_report(d))
		return true;
	if (late_arrival(d))
		return true;
	hang_views(d);
	/* a rank alone ahead in a big group and behind elsewhere went on past
	 * a call: the waits of the others (some alone behind it) follow from it.
	 * On the flight recorder's word, or where NCCL logged no transfer (its
	 * COLL lines count transfers and collectives alike per communicator;
	 * PyTorch's own counts, collectives only) */
	if ((d->has_fr || !q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind = 'nccl_p2p')")) &&
	    hang_skipped_ahead(d, AHEAD_LE_SQL("hang_pg_status", "hang_coll"), true))
		return true;
	/* each group with a timeout, at its first stuck seq */
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT c.pg, min(c.seq) FROM hang_coll c WHERE c.state IN ('timed_out','failed') AND " COLL_NOT_COMPLETED("c.")
		" AND c.pg IS NOT NULL"
		" GROUP BY c.pg");
	struct blocked *bl = NULL;
	size_t nb = 0, cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *pg = (const char *)sqlite3_column_text(st, 0);
		long seq = sqlite3_column_int64(st, 1);
		sqlite3_stmt *m = db_prepare(d->db, "SELECT rank FROM pg_members WHERE pg = ? ORDER BY rank");
		sqlite3_bind_text(m, 1, pg, -1, SQLITE_STATIC);
		while (sqlite3_step(m) == SQLITE_ROW) {
			int rank = sqlite3_column_int(m, 0);
			int64_t sev = 0;
			long le = last_enqueued(d, rank, pg, &sev);
			if (le == LE_UNKNOWN || le >= seq)
				continue;
			xgrow(&bl, &cap, nb + 1, sizeof(*bl));
			struct blocked *b = &bl[nb++];
			memset(b, 0, sizeof(*b));
			b->rank = rank;
			snprintf(b->pg, sizeof(b->pg), "%s", pg);
			b->seq = seq;
			b->le = le;
			b->status_ev = sev;
		}
		sqlite3_finalize(m);
	}
	sqlite3_finalize(st);
	if (nb == 0) {
		free(bl);
		v_decline(d, "every rank of each group with a timeout had enqueued the call its group timed "
			     "out in (none is behind)");
		return false;
	}
	/* roots: blocked ranks that are not themselves waiting on someone */
	bool any_root = false;
	for (size_t i = 0; i < nb; i++)
		if (!has_pending(d, bl[i].rank)) {
			v_culprit(v, bl[i].rank);
			any_root = true;
		}
	/* many ranks stuck in host code at once, with nothing pending, did not
	 * each stall on their own: they wait on something the collectives do
	 * not show (a call one rank skipped, say, which left them blocked at the
	 * next synchronization) */
	if (v->nculprits > 2 && !diag_few(d, v->nculprits)) {
		v->nculprits = 0;
		free(bl);
		v_decline(d, "many ranks were behind at once with nothing pending: they wait on something the "
			     "collectives do not show");
		return false;
	}
	if (!any_root) {
		/* all of them wait in transfers: the cause is down a chain of
		 * sends and receives that only the flight recorder shows */
		size_t in_transfer = 0;
		for (size_t i = 0; i < nb; i++)
			in_transfer += diag_waits_in_transfer(d, bl[i].rank);
		if (in_transfer == nb) {
			free(bl);
			v_decline(d, "every rank behind waits in a transfer: the cause is down a chain of "
				     "sends and receives");
			return false;
		}
		for (size_t i = 0; i < nb; i++)
			v_culprit(v, bl[i].rank);
	}
	/* the wait to report: the earliest peer start among the culprits' groups */
	struct blocked *pick = NULL;
	for (size_t i = 0; i < nb; i++) {
		struct blocked *b = &bl[i];
		if (!v_has_culprit(v, b->rank))
			continue;
		if (!wait_known(bl, i))
			wait_look_up(d, b);
		if (!pick || b->wait_t < pick->wait_t || (b->wait_t == pick->wait_t && b->rank < pick->rank))
			pick = b;
	}
	/* where the rank waits in several groups, its own history says which
	 * call it never made first (the peers' clocks are too close to tell) */
	char next[128] = "";
	hang_next_group_by_history(d, pick->rank, next, sizeof(next));
	bool next_blocked = false;
	for (size_t i = 0; next[0] && i < nb; i++)
		next_blocked |= bl[i].rank == pick->rank && strcmp(bl[i].pg, next) == 0;
	if (!next_blocked) {
		/* its last call was elsewhere (a skip): from its last one in the groups it misses */
		struct buf among = {0};
		int k = 0;
		for (size_t i = 0; i < nb; i++)
			if (bl[i].rank == pick->rank)
				hang_among_add(&among, &k, bl[i].pg);
		buf_putc(&among, ')');
		if (k > 1)
			hang_next_group_by_history_in(d, pick->rank, among.data, next, sizeof(next));
		buf_free(&among);
	}
	for (size_t i = 0; next[0] && i < nb; i++)
		if (bl[i].rank == pick->rank && strcmp(bl[i].pg, next) == 0) {
			pick = &bl[i];
			break;
		}
	struct moved_on m;
	if (moved_on(d, pick->rank, pick->pg, pick->seq, &m)) {
		skipped_verdict(d, pick, &m, bl, nb);
		free(bl);
		return true;
	}
	/* every rank that missed a call was itself waiting on someone: the
	 * chain ends at a rank that cannot say where it is (silent, no dump),
	 * which the unresponsive diagnosis names */
	if (!any_root && hang_any_unresponsive(d)) {
		v->nculprits = 0;
		free(bl);
		v_decline(d, "every rank behind was itself waiting on someone, and the chain ends at a rank "
			     "that answered nothing: the unresponsive rule says so");
		return false;
	}
	/* roots whose watchdog could not run and that never answered were not
	 * scheduled at all (a frozen host, stopped processes): how far each got
	 * before is luck, the silence is the cause, which the unresponsive
	 * diagnosis names for all of them */
	bool all_frozen = any_root;
	for (size_t i = 0; i < v->nculprits && all_frozen; i++) {
		struct rank_facts *f = diag_rank(d, v->culprits[i]);
		all_frozen = f && f->frozen && !f->responsive;
	}
	if (all_frozen || hang_all_hosts_silent(d)) {
		v->nculprits = 0;
		free(bl);
		v_decline(d, "the ranks behind were frozen (their watchdogs could not run) or every host went "
			     "silent: the unresponsive rule says so");
		return false;
	}
	/* a cycle of waits with no skip to explain it: which rank started it
	 * cannot be told from what the logs say of the groups */
	if (!any_root) {
		v->nculprits = 0;
		free(bl);
		v_decline(d, "the waits form a cycle with no skip to explain it");
		return false;
	}
	v->outcome = OUTCOME(hang);
	v->cause = CAUSE(rank_stalled);
	v->first_failure_t = d->t0;
	v->confidence = d->any_dump ? CONFIDENCE(high) : CONFIDENCE(medium);
	hang_set_pg(d, pick->pg);
	v->seq = pick->seq;
	snprintf(v->op, sizeof(v->op), "%s", pick->op);
	struct rank_facts *r = diag_rank(d, pick->rank);
	struct buf who = {0};
	rank_desc(d, pick->rank, &who);
	/* what it logged in that group after its dump (hang_views left it out) */
	long later_seq = -1;
	int64_t later_ev = 0, later_t = T_NONE;
	sqlite3_stmt *lt = db_prepare(d->db,
		"SELECT c.seq, c.event_id, e.time_us FROM collectives c JOIN events e ON e.event_id = c.event_id"
		" WHERE c.rank = ?1 AND c.pg = ?2 AND c.seq >= ?3 AND e.time_us IS NOT NULL ORDER BY c.seq DESC LIMIT 1");
	sqlite3_bind_int(lt, 1, pick->rank);
	sqlite3_bind_text(lt, 2, pick->pg, -1, SQLITE_STATIC);
	sqlite3_bind_int64(lt, 3, pick->seq);
	if (sqlite3_step(lt) == SQLITE_ROW) {
		later_seq = sqlite3_column_int64(lt, 0);
		later_ev = sqlite3_column_int64(lt, 1);
		later_t = sqlite3_column_int64(lt, 2);
	}
	sqlite3_finalize(lt);
	buf_printf(&v->summary, "%s %s %s #%ld of group %s (its last there was #%ld)", who.data,
		   later_seq >= 0 ? "had not enqueued" : "never enqueued", pick->op[0] ? pick->op : "collective",
		   pick->seq, v->pg, pick->le);
	char t[32];
	fmt_time(d->t0, t, sizeof(t));
	buf_printf(&v->summary, "; its peers waited for it and timed out from %s on.", t);
	if (later_seq >= 0) {
		char lts[32];
		fmt_time(later_t, lts, sizeof(lts));
		buf_printf(&v->summary, " It went on only later, when they had given up (it logged #%ld of that group"
					" at %s).", later_seq, lts);
	}
	if (r && r->responsive && !r->exited)
		buf_printf(&v->summary, " It was alive and idle (%s and had no collective pending), so it was stuck in"
					" host code before that call", diag_alive_sign(r));
	else if (r && r->responsive)
		buf_printf(&v->summary, " It was alive (%s), so it was stuck in host code before that call",
			   diag_alive_sign(r));
	else
		buf_puts(&v->summary, " It never reached that call");
	if (r && r->last_step >= 0)
		buf_printf(&v->summary, ", after step %ld", r->last_step);
	buf_putc(&v->summary, '.');
	v_say_culprits(v, "were stuck the same way");
	v_cite_event(v, pick->status_ev, "the culprit's last enqueued collective in that group");
	v_cite_event(v, pick->wait_ev, "a peer waiting for it");
	if (later_seq >= 0)
		v_cite_event(v, later_ev, "the culprit going on after its peers timed out");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT event_id FROM events WHERE rank = %d AND class IN ('step','info') AND kind LIKE 'app_%%'"
			      " ORDER BY time_us DESC, source_id, line_no DESC LIMIT 1", pick->rank),
		     "the culprit's last application line");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT min(event_id) FROM events WHERE rank = %d AND kind = 'pg_dump_signal'", pick->rank),
		     "the culprit was alive");
	buf_free(&who);
	free(bl);
	return true;
}
