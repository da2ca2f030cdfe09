/* diagnosis_wait.c: the model of a hang's waits, shared by its rules: which
 * ranks answered around the first failure (diag_responsiveness), the call
 * the culprits' peers waited on first and what a group's own history
 * predicts at a sequence number (the calls' signatures), and the order of
 * a rank's calls across its groups. */
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
	"   AND (field(fields, 'ran_ms') > " THAW_RATIO " * field(fields, 'timeout_ms') + " THAW_EXTRA_MS          \
	"    OR (time_us = (SELECT t FROM first f WHERE f.rank = w.rank)"                                    \
	"     AND field(fields, 'ran_ms') > field(fields, 'timeout_ms') + " THAW_FIRST_LATE_MS "))"            \
	"   GROUP BY rank)"


/* The rank's last line of the application's own (step, message), 0 if none. */
int64_t hang_last_app_line(struct diagnosis *d, int rank)
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
void hang_among_add(struct buf *among, int *k, const char *pg)
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

void hang_next_group_by_history(struct diagnosis *d, int rank, char *pg, size_t pgn)
{
	hang_next_group_by_history_in(d, rank, NULL, pg, pgn);
}

/* The same from the rank's last collective in the groups of among (an SQL
 * list of group keys; NULL: any group): where the rank went on to something
 * else (a skip), its last collective says nothing about what it missed, its
 * last one in the groups it is missing from does. */
void hang_next_group_by_history_in(struct diagnosis *d, int rank, const char *among, char *pg, size_t pgn)
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
		hang_next_group_by_history(d, d->v.culprits[0], next, sizeof(next));
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

void hang_set_pg(struct diagnosis *d, const char *pg)
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
		hang_set_pg(d, pg);
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

bool hang_sig_eq(const struct sig *a, const struct sig *b)
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
void hang_sig_text(const struct sig *s, bool with_dtype, char *out, size_t n)
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

void hang_sig_dtype(struct sig *g, sqlite3_stmt *st, int col)
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
			if (!hang_sig_eq(&h[i], &h[i - p])) {
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
bool hang_predict(struct diagnosis *d, const char *pg, long seq, struct sig *expect)
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
		db_column_text_copy(st, 1, hist[i].op, sizeof(hist[i].op));
		hist[i].in = db_column_int_or(st, 2, -1);
		hist[i].out = db_column_int_or(st, 3, -1);
		hang_sig_dtype(&hist[i], st, 5);
	}
	sqlite3_finalize(st);
	return repeating_period(hist, known, expect);
}

/* The signature the group's later calls predict at seq, where its past is
 * too short to (a flight-recorder ring that starts just before it): the
 * shortest period that repeats over the calls after it on which every rank
 * agreed (NCCL matched a different call and the job ran on). false if none. */
bool hang_predict_from_later(struct diagnosis *d, const char *pg, long seq, struct sig *expect)
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
		db_column_text_copy(st, 1, fut[j].op, sizeof(fut[j].op));
		fut[j].in = db_column_int_or(st, 2, -1);
		fut[j].out = db_column_int_or(st, 3, -1);
		hang_sig_dtype(&fut[j], st, 4);
	}
	sqlite3_finalize(st);
	return repeating_period(fut, known, expect);
}

bool diag_predict_call(struct diagnosis *d, const char *pg, long seq, char *op, size_t opn, int64_t *numel_in,
		       char *dtype, size_t dn)
{
	struct sig expect;
	if (!hang_predict(d, pg, seq, &expect))
		return false;
	snprintf(op, opn, "%s", expect.op);
	*numel_in = expect.in;
	snprintf(dtype, dn, "%s", expect.dtype);
	return true;
}

/* One place where ranks disagree: each rank's call and who deviated. */
