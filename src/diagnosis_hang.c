/* diagnosis_hang.c: causes of a hang, compared rank against rank within each
 * process group: a collective mismatch at the same sequence number, a rank
 * that never enqueued what its peers waited on, ranks (or a whole host) that
 * went silent without exiting. */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "case_schema.h"


/* Each rank's last seq per group (le), the groups' extremes (ext) and both
 * together (cmp), from a pg_status and a collectives table. A member of a
 * group or communicator that shows nothing there is at 0. Behind some peer:
 * below the group's maximum; ahead of some peer: above its minimum (per
 * group, not per pair of ranks). */
#define AHEAD_LE_SQL(pg_status, collectives)                                                              \
	"WITH le AS (SELECT rank, pg, max(v) AS le FROM ("                                                  \
	"   SELECT rank, pg, last_enqueued AS v FROM " pg_status " WHERE last_enqueued IS NOT NULL"         \
	"   UNION ALL SELECT rank, pg, seq FROM " collectives                                                \
	"   UNION ALL SELECT rank, pg, 0 FROM pg_members"                                                    \
	"   UNION ALL SELECT rank, coalesce(pg, comm_id), 0 FROM comms)"                                     \
	"   WHERE pg IS NOT NULL AND rank IS NOT NULL GROUP BY rank, pg),"                                   \
	" ext AS (SELECT pg, max(le) AS mx, min(le) AS mn FROM le GROUP BY pg),"                            \
	" cmp AS (SELECT l.rank, l.pg, l.le, x.mx AS peer_max, x.mn AS peer_min FROM le l JOIN ext x USING(pg))"
/* The CTE le of each rank's last seq per group as the hang views show it
 * (only the groups a rank shows something in): temp.hang_le, which
 * hang_views() fills, with each group's members, lowest seq and how many
 * members are at it in temp.hang_le_pg. */
#define HANG_LE_SQL "WITH le AS NOT MATERIALIZED (SELECT rank, pg, le FROM temp.hang_le)"

/* The CTE thawed(rank, t, ev): ranks whose watchdog was not running until
 * it reported (the process stopped, its host frozen), the report's time and
 * event: one that reports far more than its timeout, or a rank's first
 * report 5 s or more late (watchdogs report within a second of the timeout;
 * a later report of the same rank may come late for other reasons). */
#define THAWED_SQL                                                                                          \
	"WITH first AS (SELECT rank, min(time_us) AS t FROM events WHERE kind = 'pg_watchdog_timeout'"      \
	"   AND rank IS NOT NULL GROUP BY rank),"                                                            \
	" thawed AS (SELECT rank, min(time_us) AS t, min(event_id) AS ev FROM events w"                     \
	"   WHERE kind = 'pg_watchdog_timeout' AND rank IS NOT NULL"                                         \
	"   AND (field(fields, 'ran_ms') > 1.5 * field(fields, 'timeout_ms') + 10000"                        \
	"    OR (time_us = (SELECT t FROM first f WHERE f.rank = w.rank)"                                    \
	"     AND field(fields, 'ran_ms') > field(fields, 'timeout_ms') + 5000))"                            \
	"   GROUP BY rank)"

/* The rank's last line of the application's own (step, message), 0 if none. */
static int64_t last_app_line(struct diagnosis *d, int rank)
{
	return q_int(d->db, 0,
		     "SELECT event_id FROM events WHERE rank = %d AND kind LIKE 'app_%%'"
		     " ORDER BY time_us DESC, source_id, line_no DESC LIMIT 1", rank);
}

/* ---- responsiveness ---- */

void diag_responsiveness(struct diagnosis *d)
{
	if (d->t0 == T_NONE)
		return;
	/* what a rank whose watchdog was not running logged from its report on
	 * came after it thawed, not during the hang */
	sqlite3_stmt *st = db_prepare(d->db,
		THAWED_SQL
		" SELECT e.rank, count(*) FROM events e LEFT JOIN thawed w ON w.rank = e.rank"
		" WHERE e.rank IS NOT NULL AND e.time_us BETWEEN ?1 AND ?2"
		" AND coalesce(e.clock, '') <> 'inherited' AND e.kind NOT LIKE 'fr\\_%' ESCAPE '\\'"
		" AND (w.t IS NULL OR e.time_us < w.t - ?3)"
		" GROUP BY e.rank");
	sqlite3_bind_int64(st, 1, d->t0 - ALIVE_BEFORE_US);
	sqlite3_bind_int64(st, 2, d->t0 + ALIVE_WINDOW_US);
	sqlite3_bind_int64(st, 3, THAW_MARGIN_US);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct rank_facts *r = diag_rank(d, sqlite3_column_int(st, 0));
		if (r && sqlite3_column_int64(st, 1) > 0)
			r->responsive = true;
	}
	sqlite3_finalize(st);
	st = db_prepare(d->db, THAWED_SQL " SELECT rank, ev FROM thawed");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct rank_facts *r = diag_rank(d, sqlite3_column_int(st, 0));
		if (r) {
			r->frozen = true;
			r->frozen_event = sqlite3_column_int64(st, 1);
		}
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < d->nranks; i++)
		if (d->ranks[i].has_dump)
			d->ranks[i].responsive = true;
	/* only NCCL's own debug file of the rank (its output and dump not in
	 * the bundle): NCCL writes nothing there while a rank waits */
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		r->nccl_file_only = r->events && !r->responsive &&
				    !q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events e JOIN sources s USING(source_id)"
						     " WHERE e.rank = %d AND s.kind <> 'nccl_debug')", r->rank);
	}
}

/* Appends group pg to the condition `pg IN (...)` of next_group_by_history_in
 * that among builds (k: the groups so far; the caller closes it with ')'). */
static void among_add(struct buf *among, int *k, const char *pg)
{
	char *q = sqlite3_mprintf("%s%Q", (*k)++ ? "," : "pg IN (", pg);
	buf_puts(among, q);
	sqlite3_free(q);
}

/* The group a rank's own history says it would have used next: after its
 * last collective L, what followed the previous collective like L (same
 * group, operation and size) in the order it created them (flight recorder)
 * or logged them (NCCL's COLL lines). Peers may wait in
 * several groups at once; program order tells which wait the rank missed
 * first, where the watchdogs' clocks are too close to tell. */
static void next_group_by_history_in(struct diagnosis *d, int rank, const char *among, char *pg, size_t pgn);

static void next_group_by_history(struct diagnosis *d, int rank, char *pg, size_t pgn)
{
	next_group_by_history_in(d, rank, NULL, pg, pgn);
}

/* The same from the rank's last collective in the groups of among (an SQL
 * list of group keys; NULL: any group): where the rank went on to something
 * else (a skip), its last collective says nothing about what it missed, its
 * last one in the groups it is missing from does. */
static void next_group_by_history_in(struct diagnosis *d, int rank, const char *among, char *pg, size_t pgn)
{
	pg[0] = '\0';
	q_text(d->db, pg, pgn,
	       "WITH mine AS (SELECT pg, op, numel_in, row_number() OVER (ORDER BY t, ev) AS r FROM"
	       "   (SELECT c.pg, c.seq, max(c.op) AS op, max(c.numel_in) AS numel_in, min(c.time_created_us) AS t,"
	       "    min(e.source_id * 1000000000 + e.line_no) AS ev"
	       "    FROM collectives c JOIN events e ON e.event_id = c.event_id WHERE c.rank = %d AND c.pg IS NOT NULL"
	       "    AND (c.time_created_us IS NOT NULL OR c.evidence = 'nccl coll')"
	       "    GROUP BY c.pg, c.seq)),"
	       " last AS (SELECT * FROM mine WHERE %s ORDER BY r DESC LIMIT 1),"
	       " prev AS (SELECT max(m.r) AS r FROM mine m, last l"
	       "   WHERE m.r < l.r AND m.pg = l.pg AND m.op IS l.op AND m.numel_in IS l.numel_in)"
	       " SELECT m.pg FROM mine m, prev p WHERE m.r = p.r + 1",
	       rank, among ? among : "1");
}

/* Two calls of one group whose seqs count alike: collectives (one count per
 * group), or transfers of one rank (each rank counts its own) */
#define SEQ_COMPARABLE(a, b)                                                                              \
	"(" a ".op NOT IN ('SEND','RECV') AND " b ".op NOT IN ('SEND','RECV') OR " a ".op IN ('SEND','RECV')" \
	" AND " b ".op IN ('SEND','RECV') AND " a ".rank = " b ".rank)"

/* The collective the culprits' peers waited on first: a timed-out
 * collective reported by a rank that is not a culprit (a frozen rank's own
 * watchdog, once it runs again, reports what it was doing, not what the
 * others waited on), in a group a culprit belongs to when the logs tell the
 * groups' members; among those, the group the culprit's own history says it
 * would have used next; then the first seq waited on in its group, not
 * entered after another such call by most ranks that waited on both, and
 * the earliest start. */
void diag_first_wait(struct diagnosis *d, char *pg, size_t pgn, long *seq, char *op, size_t opn, int64_t *ev)
{
	struct buf ranks = {0};
	for (size_t i = 0; i < d->v.nculprits; i++)
		buf_printf(&ranks, "%s%d", i ? "," : "", d->v.culprits[i]);
	char next[128] = "";
	if (d->v.nculprits > 0)
		next_group_by_history(d, d->v.culprits[0], next, sizeof(next));
	/* w: the waits, with when each began (its report less the time it ran);
	 * first: those of others (not culprits) with no earlier seq waited on in
	 * their group; cand: those of the culprits' groups (all of them where the
	 * logs do not tell the culprits' groups). A rank waiting on two of them
	 * entered one first: ranks run one program, so its order is the
	 * program's. Across ranks clocks and pace differ by more than the gap
	 * between two calls, so only orders within a rank count, and the
	 * watchdogs' reports are late by up to a millisecond or so: each rank
	 * votes, and a call that more ranks entered after another of them than
	 * before is not the first; the rest go by their start. */
	const char *culprits = ranks.len ? ranks.data : "-1";
	char *sql = sqlite3_mprintf(
		"WITH w AS (SELECT c.rank, c.pg, c.seq, c.op, c.numel_in, c.event_id, e.time_us,"
		"   e.time_us - coalesce(field(e.fields, 'ran_ms'), 0) * 1000 AS start"
		"   FROM collectives c JOIN events e ON e.event_id = c.event_id"
		"   WHERE c.state IN ('timed_out','failed') AND " COLL_NOT_COMPLETED("c.") " AND c.pg IS NOT NULL),"
		" ours AS (SELECT * FROM w WHERE rank NOT IN (%s)),"
		" first AS (SELECT * FROM ours o WHERE NOT EXISTS (SELECT 1 FROM ours x WHERE x.pg = o.pg AND x.seq < o.seq"
		"   AND " SEQ_COMPARABLE("x", "o") ")),"
		" mine AS (SELECT * FROM first WHERE pg IN (SELECT pg FROM pg_members WHERE rank IN (%s))),"
		" cand AS (SELECT * FROM mine UNION ALL SELECT * FROM first WHERE NOT EXISTS (SELECT 1 FROM mine))"
		" SELECT c.pg, c.seq, c.op, c.event_id FROM w c"
		" ORDER BY c.rank IN (%s), c.pg IN (SELECT pg FROM pg_members WHERE rank IN (%s)) DESC,"
		" c.pg IS %Q DESC,"
		" EXISTS (SELECT 1 FROM ours x WHERE x.pg = c.pg AND x.seq < c.seq AND " SEQ_COMPARABLE("x", "c") "),"
		" (SELECT coalesce(sum(CASE WHEN a.start < b.start THEN 1 WHEN a.start > b.start THEN -1 ELSE 0 END), 0) > 0"
		"   FROM first b JOIN first a ON a.rank = b.rank AND (a.seq, a.op, a.numel_in) IS NOT (b.seq, b.op, b.numel_in)"
		"   WHERE (b.seq, b.op, b.numel_in) IS (c.seq, c.op, c.numel_in)"
		"   AND EXISTS (SELECT 1 FROM cand m WHERE (m.seq, m.op, m.numel_in) IS (a.seq, a.op, a.numel_in))),"
		" c.start, c.time_us LIMIT 1",
		culprits, culprits, culprits, culprits, next[0] ? next : NULL);
	sqlite3_stmt *st = db_prepare(d->db, sql);
	sqlite3_free(sql);
	buf_free(&ranks);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(pg, pgn, "%s", (const char *)sqlite3_column_text(st, 0));
		*seq = sqlite3_column_int64(st, 1);
		snprintf(op, opn, "%s", sqlite3_column_text(st, 2) ? (const char *)sqlite3_column_text(st, 2) : "");
		*ev = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
}

static void set_pg(struct diagnosis *d, const char *pg)
{
	diag_pg_display(d, pg, d->v.pg, sizeof(d->v.pg));
}

/* Puts the collective the culprits' peers waited on into the verdict, where
 * the verdict has not said otherwise; returns the event that shows it. */
int64_t diag_wait_into_verdict(struct diagnosis *d)
{
	char pg[128] = "", op[32] = "";
	long seq = -1;
	int64_t ev = 0;
	diag_first_wait(d, pg, sizeof(pg), &seq, op, sizeof(op), &ev);
	if (pg[0] && !d->v.pg[0])
		set_pg(d, pg);
	if (pg[0] && d->v.seq < 0)
		d->v.seq = seq;
	if (pg[0] && !d->v.op[0]) {
		/* a peer waiting in a point-to-point call waited for the other
		 * side: the culprit's missing call is the SEND to its RECV (and the
		 * other way round) */
		bool peer = !v_has_culprit(&d->v, (int)q_int(d->db, -1, "SELECT rank FROM collectives WHERE event_id = %lld",
							  (long long)ev));
		const char *other = strcmp(op, "SEND") == 0 ? "RECV" : strcmp(op, "RECV") == 0 ? "SEND" : NULL;
		snprintf(d->v.op, sizeof(d->v.op), "%s", peer && other ? other : op);
		if (peer && other)
			snprintf(d->v.peer_op, sizeof(d->v.peer_op), "%s", op);
	}
	return ev;
}

/* ---- collective mismatch ---- */

struct sig {
	int rank;
	char op[32];
	int64_t in, out; /* -1 unknown */
	char dtype[16];  /* "" unknown */
	int64_t event_id;
	bool not_fr;     /* told by NCCL's lines or a watchdog, not the flight recorder */
};

/* The same operation: a barrier is an ALLREDUCE to NCCL and to the
 * watchdog, which only the flight recorder names BARRIER */
static bool op_eq(const struct sig *a, const struct sig *b)
{
	if (strcmp(a->op, b->op) == 0)
		return true;
	bool barrier_pair = (strcmp(a->op, "BARRIER") == 0 && strcmp(b->op, "ALLREDUCE") == 0) ||
			    (strcmp(a->op, "ALLREDUCE") == 0 && strcmp(b->op, "BARRIER") == 0);
	return barrier_pair && (a->not_fr || b->not_fr);
}

static bool sig_eq(const struct sig *a, const struct sig *b)
{
	if (!op_eq(a, b))
		return false;
	if (a->in >= 0 && b->in >= 0 && a->in != b->in)
		return false;
	if (a->out >= 0 && b->out >= 0 && a->out != b->out)
		return false;
	if (a->dtype[0] && b->dtype[0] && strcmp(a->dtype, b->dtype) != 0)
		return false;
	return true;
}

/* with_dtype: name the element type (where types differ, not otherwise) */
static void sig_text(const struct sig *s, bool with_dtype, char *out, size_t n)
{
	const char *dt = with_dtype ? s->dtype : "";
	const char *sp = dt[0] ? " " : "";
	if (s->in >= 0 && s->out >= 0 && s->in != s->out)
		snprintf(out, n, "%s of %lld -> %lld%s%s elements", s->op, (long long)s->in, (long long)s->out, sp, dt);
	else if (s->in >= 0)
		snprintf(out, n, "%s of %lld%s%s elements", s->op, (long long)s->in, sp, dt);
	else if (dt[0])
		snprintf(out, n, "%s of %s elements", s->op, dt);
	else
		snprintf(out, n, "%s", s->op);
}

static void sig_dtype(struct sig *g, sqlite3_stmt *st, int col)
{
	const char *t = (const char *)sqlite3_column_text(st, col);
	snprintf(g->dtype, sizeof(g->dtype), "%s", t ? t : "");
}

enum { PERIOD_SPAN = 48 }; /* calls looked at on one side of a site */

/* The call a run of calls predicts next, h[PERIOD_SPAN - 1] being the one
 * nearest the site (known: which are): the shortest period that repeats,
 * seen twice over (p >= 2) or three times alike (p = 1). false if none. */
static bool repeating_period(const struct sig *h, const bool *known, struct sig *expect)
{
	for (int p = 1; p <= 16; p++) {
		int checks = 0;
		bool ok = true;
		for (int i = PERIOD_SPAN - 1; i - p >= 0 && checks < 3 * p + 2; i--) {
			if (!known[i] || !known[i - p])
				continue;
			if (!sig_eq(&h[i], &h[i - p])) {
				ok = false;
				break;
			}
			checks++;
		}
		if (ok && checks >= (p > 2 ? p : 2) && known[PERIOD_SPAN - p]) {
			*expect = h[PERIOD_SPAN - p];
			return true;
		}
	}
	return false;
}

/* The signature the group's history predicts at seq: the shortest period
 * that repeats over the known past. false if none. */
static bool predict(struct diagnosis *d, const char *pg, long seq, struct sig *expect)
{
	enum { HIST = PERIOD_SPAN };
	struct sig hist[HIST];
	bool known[HIST] = {false};
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT seq, op, numel_in, numel_out, count(*) AS n, max(dtype) FROM collectives"
		" WHERE pg = ?1 AND seq BETWEEN ?2 AND ?3 AND op IS NOT NULL"
		" GROUP BY seq, op, numel_in, numel_out ORDER BY seq, n DESC");
	sqlite3_bind_text(st, 1, pg, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, seq - HIST);
	sqlite3_bind_int64(st, 3, seq - 1);
	while (sqlite3_step(st) == SQLITE_ROW) {
		long s = sqlite3_column_int64(st, 0);
		int i = (int)(s - (seq - HIST));
		if (i < 0 || i >= HIST || known[i])
			continue;
		known[i] = true;
		snprintf(hist[i].op, sizeof(hist[i].op), "%s", (const char *)sqlite3_column_text(st, 1));
		hist[i].in = db_column_int_or(st, 2, -1);
		hist[i].out = db_column_int_or(st, 3, -1);
		sig_dtype(&hist[i], st, 5);
	}
	sqlite3_finalize(st);
	return repeating_period(hist, known, expect);
}

/* The signature the group's later calls predict at seq, where its past is
 * too short to (a flight-recorder ring that starts just before it): the
 * shortest period that repeats over the calls after it on which every rank
 * agreed (NCCL matched a different call and the job ran on). false if none. */
static bool predict_from_later(struct diagnosis *d, const char *pg, long seq, struct sig *expect)
{
	/* nearest first from the end, as repeating_period reads them */
	struct sig fut[PERIOD_SPAN];
	bool known[PERIOD_SPAN] = {false};
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT seq, min(op), min(numel_in), min(numel_out), max(dtype) FROM collectives"
		" WHERE pg = ?1 AND seq BETWEEN ?2 AND ?3 AND op IS NOT NULL GROUP BY seq"
		" HAVING count(DISTINCT op || '/' || coalesce(numel_in, '') || '/' || coalesce(numel_out, '')) = 1"
		"   AND count(DISTINCT rank) > 1");
	sqlite3_bind_text(st, 1, pg, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, seq + 1);
	sqlite3_bind_int64(st, 3, seq + PERIOD_SPAN);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int j = PERIOD_SPAN - 1 - (int)(sqlite3_column_int64(st, 0) - (seq + 1));
		if (j < 0 || j >= PERIOD_SPAN)
			continue;
		known[j] = true;
		snprintf(fut[j].op, sizeof(fut[j].op), "%s", (const char *)sqlite3_column_text(st, 1));
		fut[j].in = db_column_int_or(st, 2, -1);
		fut[j].out = db_column_int_or(st, 3, -1);
		sig_dtype(&fut[j], st, 4);
	}
	sqlite3_finalize(st);
	return repeating_period(fut, known, expect);
}

bool diag_predict_call(struct diagnosis *d, const char *pg, long seq, char *op, size_t opn, int64_t *numel_in,
		       char *dtype, size_t dn)
{
	struct sig expect;
	if (!predict(d, pg, seq, &expect))
		return false;
	snprintf(op, opn, "%s", expect.op);
	*numel_in = expect.in;
	snprintf(dtype, dn, "%s", expect.dtype);
	return true;
}

/* One place where ranks disagree: each rank's call and who deviated. */
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
		matching += sig_eq(&site->s[i], &site->expect);
	return matching;
}

/* Whether the group's later calls tell the deviants (some ranks, not all,
 * made the call they predict); sets the site's expectation if so. */
static bool later_told(struct diagnosis *d, struct site *site)
{
	struct sig later;
	if (site->n < 2 || !predict_from_later(d, site->pg, site->seq, &later))
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
		snprintf(g->op, sizeof(g->op), "%s", (const char *)sqlite3_column_text(st, 1));
		g->in = db_column_int_or(st, 2, -1);
		g->out = db_column_int_or(st, 3, -1);
		g->event_id = sqlite3_column_int64(st, 4);
		sig_dtype(g, st, 5);
		g->not_fr = sqlite3_column_int(st, 6);
	}
	sqlite3_finalize(st);
	size_t n = site->n;
	site->deviant = xcalloc(n ? n : 1, sizeof(bool));
	site->have_expect = predict(d, site->pg, site->seq, &site->expect);
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
				c += sig_eq(&site->s[i], &site->s[j]);
			if (c > best_count) {
				best = i;
				best_count = c;
				tie = false;
			} else if (c == best_count && !sig_eq(&site->s[i], &site->s[best])) {
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
		site->deviant[i] = site->how ? !sig_eq(&site->s[i], &site->expect) : true;
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
		snprintf(site.pg, sizeof(site.pg), "%s", (const char *)sqlite3_column_text(st, 0));
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
	set_pg(d, f->pg);
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
			sig_text(&f->s[i], types, a, sizeof(a));
			sig_text(&f->expect, types, b, sizeof(b));
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
			sig_text(&f->s[i], types, a, sizeof(a));
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

/* ---- a rank that never enqueued what its peers waited on ---- */

/* What last_enqueued() returns when nothing tells (-1 is PyTorch's "none
 * enqueued yet", which a dump's pg_status may well say). */
#define LE_UNKNOWN (-2)

/* last enqueued seq of rank in pg, LE_UNKNOWN if unknown */
static long last_enqueued(struct diagnosis *d, int rank, const char *pg, int64_t *ev)
{
	long le = LE_UNKNOWN;
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT max(v), (SELECT event_id FROM hang_pg_status WHERE rank = ?1 AND pg = ?2"
		"   AND evidence = 'flight-recorder pg_status' LIMIT 1) FROM ("
		" SELECT max(last_enqueued) AS v FROM hang_pg_status WHERE rank = ?1 AND pg = ?2"
		" UNION ALL SELECT max(seq) FROM hang_coll WHERE rank = ?1 AND pg = ?2)");
	sqlite3_bind_int(st, 1, rank);
	sqlite3_bind_text(st, 2, pg, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		le = sqlite3_column_int64(st, 0);
		*ev = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return le;
}

/* true if the rank has a collective of its own pending (waiting on others) */
/* The rank's watchdog timed out in a point-to-point transfer: it was
 * waiting for a peer's send or receive (with no flight recorder to say
 * which, diagnosis_p2p.c cannot follow it). Counted whenever it was seen:
 * the wait it reports began a whole timeout earlier. */
/* Whether the rank timed out or failed in a transfer, among the calls of
 * table coll (collectives, or the hang view). */
static bool waits_in_transfer_in(struct diagnosis *d, int rank, const char *coll)
{
	/* a batch of transfers times out as COALESCED, like a batch of collectives:
	 * it is the former when the rank made transfers */
	return q_int(d->db, 0,
		     "SELECT count(*) FROM %s WHERE rank = %d AND state IN ('timed_out', 'failed')"
		     " AND (op IN ('SEND', 'RECV') OR (op = 'COALESCED' AND (EXISTS (SELECT 1 FROM collectives c"
		     "   WHERE c.rank = %d AND c.op IN ('SEND', 'RECV')) OR EXISTS (SELECT 1 FROM fr_entries f"
		     "   JOIN events e ON e.event_id = f.event_id WHERE e.rank = %d AND f.is_p2p = 1))))",
		     coll, rank, rank, rank) > 0;
}

bool diag_waits_in_transfer(struct diagnosis *d, int rank)
{
	return waits_in_transfer_in(d, rank, "collectives");
}

static bool has_pending(struct diagnosis *d, int rank)
{
	if (waits_in_transfer_in(d, rank, "hang_coll"))
		return true;
	return q_int(d->db, 0,
		     "SELECT count(*) FROM hang_coll WHERE rank = %d AND state IN ('timed_out','failed','started')",
		     rank) > 0 ||
	       q_int(d->db, 0,
		     "SELECT count(*) FROM hang_pg_status WHERE rank = %d AND last_enqueued > last_completed", rank) > 0;
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
		snprintf(b->op, sizeof(b->op), "%s", sqlite3_column_text(w, 0) ? (const char *)sqlite3_column_text(w, 0) : "");
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
		snprintf(m->pg, sizeof(m->pg), "%s", (const char *)sqlite3_column_text(st, 0));
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
	"  AND NOT EXISTS (SELECT 1 FROM temp.hang_le_pg x WHERE x.pg = h.pg AND x.n >= 3 AND x.mn = p.le"   \
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
		"SELECT EXISTS (SELECT 1 FROM temp.hang_le l CROSS JOIN temp.skip_calls s ON s.pg = l.pg AND s.seq <= l.le"
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
	set_pg(d, b->pg);
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
	char *sql = sqlite3_mprintf(
		"DROP VIEW IF EXISTS temp.hang_coll; DROP VIEW IF EXISTS temp.hang_pg_status;"
		"DROP TABLE IF EXISTS temp.hang_dump;"
		"CREATE TEMP TABLE hang_dump(rank INTEGER, pg TEXT, le INTEGER, t INTEGER, PRIMARY KEY(rank, pg));"
		"INSERT OR IGNORE INTO hang_dump SELECT p.rank, p.pg, p.last_enqueued, s.t FROM pg_status p"
		"  JOIN (SELECT rank, min(time_us) AS t FROM events WHERE kind = 'pg_dump_signal' AND rank IS NOT NULL"
		"        AND time_us >= %lld GROUP BY rank) s USING(rank)"
		"  WHERE p.evidence = 'flight-recorder pg_status' AND p.last_enqueued IS NOT NULL AND p.pg IS NOT NULL;"
		"DELETE FROM temp.hang_dump AS h WHERE NOT EXISTS (SELECT 1 FROM pg_status p WHERE " AFTER_DUMP_STATUS ")"
		" AND NOT EXISTS (SELECT 1 FROM collectives c LEFT JOIN events e ON e.event_id = c.event_id"
		"   WHERE " AFTER_DUMP_COLL ");",
		(long long)(d->t0 == T_NONE ? INT64_MAX : d->t0));
	db_exec(d->db, sql);
	sqlite3_free(sql);
	bool later = q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM temp.hang_dump)") != 0;
	sql = sqlite3_mprintf(
		"CREATE TEMP VIEW hang_coll AS SELECT c.* FROM collectives c LEFT JOIN events e ON e.event_id = c.event_id"
		"  WHERE coalesce(c.time_created_us, e.time_us, 0) <= %lld%s;"
		"CREATE TEMP VIEW hang_pg_status AS SELECT * FROM pg_status p WHERE coalesce(time_us, 0) <= %lld%s;",
		(long long)cut,
		later ? " AND NOT EXISTS (SELECT 1 FROM temp.hang_dump h WHERE " AFTER_DUMP_COLL ")" : "",
		(long long)cut,
		later ? " AND NOT EXISTS (SELECT 1 FROM temp.hang_dump h WHERE " AFTER_DUMP_STATUS ")" : "");
	db_exec(d->db, sql);
	sqlite3_free(sql);
	/* the last seq each rank enqueued per group, as the views show it, read
	 * once: the rules look it up per rank and group (thousands of times
	 * where many ranks are blocked) */
	db_exec(d->db,
		"DROP TABLE IF EXISTS temp.hang_le; DROP TABLE IF EXISTS temp.hang_le_pg;"
		"CREATE TEMP TABLE hang_le(rank INTEGER, pg TEXT, le INTEGER, PRIMARY KEY(rank, pg));"
		"INSERT INTO hang_le SELECT rank, pg, max(v) FROM ("
		"   SELECT rank, pg, last_enqueued AS v FROM hang_pg_status WHERE last_enqueued IS NOT NULL"
		"   UNION ALL SELECT rank, pg, seq FROM hang_coll) WHERE pg IS NOT NULL AND rank IS NOT NULL"
		"  GROUP BY rank, pg;"
		"CREATE INDEX temp.hang_le_pg_le ON hang_le(pg, le);"
		"CREATE TEMP TABLE hang_le_pg(pg TEXT PRIMARY KEY, n INTEGER, mn INTEGER, at_min INTEGER);"
		"INSERT INTO hang_le_pg SELECT pg, count(*), min(le), NULL FROM hang_le GROUP BY pg;"
		"UPDATE hang_le_pg SET at_min = (SELECT count(*) FROM hang_le l WHERE l.pg = hang_le_pg.pg AND l.le = hang_le_pg.mn);");
#undef AFTER_DUMP_COLL
#undef AFTER_DUMP_STATUS
}

bool diag_any_behind(struct diagnosis *d)
{
	if (!q_int(d->db, 0, "SELECT count(*) FROM sqlite_temp_master WHERE name = 'hang_pg_status'"))
		hang_views(d);
	return q_int(d->db, 0,
		HANG_LE_SQL
		" SELECT EXISTS (SELECT 1 FROM le a JOIN le b ON b.pg = a.pg AND b.le > a.le)") != 0;
}

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
		if (silent) {
			xgrow(silent, &cap, ns + 1, sizeof(**silent));
			(*silent)[ns] = r->rank;
		}
		ns++;
	}
	return ns;
}

static bool any_unresponsive(struct diagnosis *d)
{
	size_t responsive;
	return silent_ranks(d, NULL, &responsive) > 0 && responsive > 0;
}

static bool skipped_ahead(struct diagnosis *d, const char *le_sql, bool timed);

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
static bool all_hosts_silent(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	for (size_t i = 0; i < v->nculprits; i++) {
		struct rank_facts *f = diag_rank(d, v->culprits[i]);
		if (!f || !host_silent(d, f->host))
			return false;
	}
	return v->nculprits > 0;
}

/* Without dumps (diag_late_start): each rank's timed-out calls (w), when
 * each rank's first of them began by its watchdog line less ran_ms (first),
 * and the ranks whose first began after the time bound in (late). */
#define LATE_START_SQL                                                                                   \
	"WITH w AS (SELECT c.rank, c.pg, c.seq, c.op, c.event_id, e.time_us AS t,"                           \
	"   e.time_us - field(e.fields, 'ran_ms') * 1000 AS t_start FROM collectives c"                      \
	"   JOIN events e ON e.event_id = c.event_id"                                                        \
	"   WHERE c.state = 'timed_out' AND c.rank IS NOT NULL AND c.pg IS NOT NULL AND e.time_us IS NOT NULL" \
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
	snprintf(pg, sizeof(pg), "%s", (const char *)sqlite3_column_text(st, 1));
	long seq = sqlite3_column_int64(st, 2);
	snprintf(op, sizeof(op), "%s", sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
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
		snprintf(late[nlate].pg, sizeof(late[nlate].pg), "%s", (const char *)sqlite3_column_text(st, 1));
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
	set_pg(d, pg);
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
	    skipped_ahead(d, AHEAD_LE_SQL("hang_pg_status", "hang_coll"), true))
		return true;
	/* each group with a timeout, at its first stuck seq */
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT c.pg, min(c.seq) FROM hang_coll c WHERE c.state IN ('timed_out','failed') AND c.pg IS NOT NULL"
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
	next_group_by_history(d, pick->rank, next, sizeof(next));
	bool next_blocked = false;
	for (size_t i = 0; next[0] && i < nb; i++)
		next_blocked |= bl[i].rank == pick->rank && strcmp(bl[i].pg, next) == 0;
	if (!next_blocked) {
		/* its last call was elsewhere (a skip): from its last one in the groups it misses */
		struct buf among = {0};
		int k = 0;
		for (size_t i = 0; i < nb; i++)
			if (bl[i].rank == pick->rank)
				among_add(&among, &k, bl[i].pg);
		buf_putc(&among, ')');
		if (k > 1)
			next_group_by_history_in(d, pick->rank, among.data, next, sizeof(next));
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
	if (!any_root && any_unresponsive(d)) {
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
	if (all_frozen || all_hosts_silent(d)) {
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
	set_pg(d, pick->pg);
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
	if (!v->nculprits || (v->nculprits > 2 && !diag_few(d, v->nculprits)))
		return (v->nculprits = 0, false);
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
		v_cite_event(v, last_app_line(d, rank),
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
static bool skipped_ahead(struct diagnosis *d, const char *le_sql, bool timed)
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
			snprintf(ahead_pg, sizeof(ahead_pg), "%s", (const char *)sqlite3_column_text(st, 1));
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
		among_add(&among, &k, g);
	}
	sqlite3_finalize(st);
	buf_putc(&among, ')');
	char next[128] = "";
	if (k > 1)
		next_group_by_history_in(d, rank, among.data, next, sizeof(next));
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
	set_pg(d, pg);
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
	set_pg(d, w.pg);
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
	v_cite_event(v, last_app_line(d, skipper),
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
		snprintf(pg, sizeof(pg), "%s", (const char *)sqlite3_column_text(st, 1));
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
	set_pg(d, pg);
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
	static const char le_sql[] = AHEAD_LE_SQL("pg_status", "collectives");
	/* who is behind whom says nothing when some ranks left no line at all:
	 * the ranks with logs may all be waiting on them */
	if (diag_ranks_absent(d)) {
		v_decline(d, "ranks without any logs may be the cause: the ranks with logs may all wait on them");
		return false;
	}
	if (skipped_ahead(d, le_sql, false) || skipped_by_order(d, le_sql))
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
	if (!v->nculprits || diag_majority(v->nculprits, d->nranks))
		return (buf_free(&waiters), v->nculprits = 0, false);
	int rank = v->culprits[0];
	/* the call it missed: in the group its own order of calls says comes next */
	char next[128] = "", pg[128] = "";
	next_group_by_history(d, rank, next, sizeof(next));
	char *q = sqlite3_mprintf("%s SELECT pg, le FROM cmp WHERE rank = %d AND le < peer_max"
				  " ORDER BY pg IS %Q DESC, peer_max - le DESC, pg LIMIT 1",
				  le_sql, rank, next[0] ? next : NULL);
	st = db_prepare(d->db, q);
	sqlite3_free(q);
	long le = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(pg, sizeof(pg), "%s", (const char *)sqlite3_column_text(st, 0));
		le = (long)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	int64_t peer_ev = 0;
	int peer = -1;
	if (pg[0]) {
		peer = peer_that_made(d, pg, le + 1, rank, &peer_ev);
		set_pg(d, pg);
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
	v_cite_event(v, last_app_line(d, rank),
		     "last application line");
	untimed_verdict_end(d);
	buf_free(&who);
	buf_free(&l);
	return true;
}
