/* diagnosis_reported.c: collective timeouts the watchdogs reported in lines
 * that carry no time (PyTorch before 2.3 printed "[E ProcessGroupNCCL.cpp:N]"
 * without one; a paste into a ticket often loses the rest): the job hung,
 * at the call they name. Without times the rules that order failures cannot
 * run; what the watchdogs' own rows say still holds:
 *   - the ranks that timed out at the lowest sequence number of a group
 *     waited in that call;
 *   - where they name different operations or sizes at that number, the
 *     ranks called different collectives (the fewer, at most a third, are
 *     named, else none);
 *   - where every rank of the job timed out in the same call, every rank
 *     had entered it: none was missing, and the transfer between them never
 *     completed;
 *   - ranks that logged but did not time out, and ranks with no line at
 *     all, are said, not blamed. */
#include "diagnosis.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"

struct waiter {
	int rank;
	long seq;
	char pg[64], op[32];
	long long numel_in;
	int64_t event;
	long timeout_ms;
};

/* The first timeout of each rank, with its group (the watchdog's own
 * description, else the id its "Timeout at NCCL work" line names). */
static struct waiter *read_waiters(struct diagnosis *d, size_t *n)
{
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT w.rank, CAST(field(w.fields, 'seq') AS INTEGER), coalesce(field(w.fields, 'pg_desc'),"
		"   CASE field(w.fields, 'pg_id') WHEN 0 THEN 'default_pg' ELSE 'PG ' || field(w.fields, 'pg_id') END, ''),"
		" coalesce(field(w.fields, 'op'), ''), coalesce(CAST(field(w.fields, 'numel_in') AS INTEGER), -1), w.event_id,"
		" coalesce(CAST(field(w.fields, 'timeout_ms') AS INTEGER), 0)"
		" FROM events w WHERE w.kind IN ('pg_watchdog_timeout', 'pg_watchdog_exception', 'pg_watchdog_terminated') AND w.rank IS NOT NULL"
		"   AND field(w.fields, 'seq') IS NOT NULL AND w.event_id = (SELECT min(x.event_id) FROM events x"
		"     WHERE x.kind IN ('pg_watchdog_timeout', 'pg_watchdog_exception', 'pg_watchdog_terminated')"
		"       AND field(x.fields, 'seq') IS NOT NULL AND x.rank = w.rank)"
		" ORDER BY w.rank");
	struct waiter *w = NULL;
	size_t cap = 0;
	*n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&w, &cap, *n + 1, sizeof(*w));
		struct waiter *x = &w[(*n)++];
		x->rank = sqlite3_column_int(st, 0);
		x->seq = (long)sqlite3_column_int64(st, 1);
		db_column_text_copy(st, 2, x->pg, sizeof(x->pg));
		db_column_text_copy(st, 3, x->op, sizeof(x->op));
		x->numel_in = sqlite3_column_int64(st, 4);
		x->event = sqlite3_column_int64(st, 5);
		x->timeout_ms = (long)sqlite3_column_int64(st, 6);
	}
	sqlite3_finalize(st);
	/* the group a line of the rank names about that call (its "Timeout at
	 * NCCL work", "failure detected by watchdog" line), else about any */
	for (size_t i = 0; i < *n; i++)
		if (!w[i].pg[0])
			q_text(d->db, w[i].pg, sizeof(w[i].pg),
			       "SELECT coalesce(field(fields, 'pg_desc'), CASE field(fields, 'pg_id') WHEN 0 THEN 'default_pg'"
			       " ELSE 'PG ' || field(fields, 'pg_id') END) FROM events WHERE kind BETWEEN 'pg_' AND 'pg_~'"
			       " AND rank = %d AND (field(fields, 'pg_id') IS NOT NULL OR field(fields, 'pg_desc') IS NOT NULL)"
			       " ORDER BY coalesce(CAST(field(fields, 'seq') AS INTEGER) = %ld, 0) DESC, abs(event_id - %lld) LIMIT 1",
			       w[i].rank, w[i].seq, (long long)w[i].event);
	/* a row that names no group (the exception's copy): the one group the others name */
	const char *only = NULL;
	for (size_t i = 0; i < *n; i++)
		if (w[i].pg[0]) {
			if (only && strcmp(only, w[i].pg) != 0) {
				only = NULL;
				break;
			}
			only = w[i].pg;
		}
	for (size_t i = 0; only && i < *n; i++)
		if (!w[i].pg[0])
			snprintf(w[i].pg, sizeof(w[i].pg), "%s", only);
	return w;
}

static bool same_call(const struct waiter *a, const struct waiter *b)
{
	return strcmp(a->op, b->op) == 0 && (a->numel_in < 0 || b->numel_in < 0 || a->numel_in == b->numel_in);
}

/* The call most ranks timed out in: the group most of them name, at its
 * lowest sequence number among them. */
static const struct waiter *pick_site(const struct waiter *w, size_t n)
{
	const struct waiter *site = &w[0];
	size_t best = 0;
	for (size_t i = 0; i < n; i++) {
		size_t c = 0;
		for (size_t j = 0; j < n; j++)
			c += strcmp(w[i].pg, w[j].pg) == 0;
		if (c > best || (c == best && w[i].seq < site->seq && strcmp(w[i].pg, site->pg) == 0)) {
			best = c;
			site = &w[i];
		}
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(w[i].pg, site->pg) == 0 && w[i].seq < site->seq)
			site = &w[i];
	return site;
}

/* For a verdict that names no call: the one the watchdogs timed out in. */
void diag_note_timeout_site(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	size_t n = 0;
	struct waiter *w = read_waiters(d, &n);
	if (n && v->seq < 0) {
		const struct waiter *site = pick_site(w, n);
		int *at = xcalloc(n, sizeof(int));
		size_t nat = 0;
		for (size_t i = 0; i < n; i++)
			if (strcmp(w[i].pg, site->pg) == 0 && w[i].seq == site->seq)
				at[nat++] = w[i].rank;
		struct buf l = {0};
		fmt_rank_list(at, nat, &l);
		v->seq = site->seq;
		snprintf(v->pg, sizeof(v->pg), "%s", site->pg);
		snprintf(v->op, sizeof(v->op), "%s", site->op);
		buf_printf(&v->summary, " The watchdogs timed out in %s call %ld of %s (rank%s %s).", site->op, site->seq,
			   site->pg[0] ? site->pg : "its group", nat == 1 ? "" : "s", l.data);
		buf_free(&l);
		free(at);
	}
	free(w);
}

bool diag_untimed_timeouts(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	size_t n = 0;
	struct waiter *w = read_waiters(d, &n);
	if (!n) {
		v_decline(d, "no watchdog reported a collective timeout with its sequence number");
		free(w);
		return false;
	}
	const struct waiter *site = pick_site(w, n);
	/* the ranks at that call, and whether they called the same collective */
	int *at = xcalloc(n, sizeof(int)), *odd = xcalloc(n, sizeof(int));
	size_t nat = 0, nodd = 0, nmajor = 0;
	const struct waiter *major = NULL;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(w[i].pg, site->pg) != 0 || w[i].seq != site->seq)
			continue;
		at[nat++] = w[i].rank;
		size_t c = 0;
		for (size_t j = 0; j < n; j++)
			c += strcmp(w[j].pg, site->pg) == 0 && w[j].seq == site->seq && same_call(&w[i], &w[j]);
		if (c > nmajor) {
			nmajor = c;
			major = &w[i];
		}
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(w[i].pg, site->pg) == 0 && w[i].seq == site->seq && !same_call(&w[i], major))
			odd[nodd++] = w[i].rank;
	struct buf list = {0}, odds = {0}, absent = {0}, quiet = {0};
	fmt_rank_list(at, nat, &list);
	/* ranks of the job with no line, and ranks that logged but did not time out */
	int *none = xcalloc((size_t)(d->world > 0 ? d->world : 1), sizeof(int));
	size_t nnone = 0;
	for (int r = 0; r < d->world; r++)
		if (diag_rank_absent(d, r))
			none[nnone++] = r;
	fmt_rank_list(none, nnone, &absent);
	int *calm = xcalloc(d->nranks + 1, sizeof(int));
	size_t ncalm = 0;
	for (size_t i = 0; i < d->nranks; i++) {
		bool timed_out = false;
		for (size_t j = 0; j < n; j++)
			timed_out |= w[j].rank == d->ranks[i].rank;
		if (!timed_out && d->ranks[i].events)
			calm[ncalm++] = d->ranks[i].rank;
	}
	fmt_rank_list(calm, ncalm, &quiet);

	v->outcome = OUTCOME(hang);
	v->seq = site->seq;
	snprintf(v->pg, sizeof(v->pg), "%s", site->pg);
	snprintf(v->op, sizeof(v->op), "%s", major->op);
	v->first_failure_t = T_NONE;
	const char *grp = site->pg[0] ? site->pg : "its group";
	if (nodd) {
		fmt_rank_list(odd, nodd, &odds);
		v->cause = CAUSE(collective_mismatch);
		bool few = 3 * nodd <= nat;
		if (few)
			for (size_t i = 0; i < nodd; i++)
				v_culprit(v, odd[i]);
		v->confidence = few ? CONFIDENCE(medium) : CONFIDENCE(low);
		buf_printf(&v->summary,
			   "The job hung at call %ld of %s, where the ranks called different collectives: %zu rank%s timed out"
			   " in %s (NumelIn %lld), while rank%s %s called another. ",
			   site->seq, grp, nmajor, nmajor == 1 ? "" : "s", major->op, major->numel_in, nodd == 1 ? "" : "s",
			   odds.data);
		buf_puts(&v->summary, few ? "The fewer are named: they deviated." :
					    "Neither side is few enough to say which deviated.");
		v_cite_event(v, major->event, "a watchdog's timeout");
	} else if (nat == 1 && q_int(d->db, 0, "SELECT count(DISTINCT rank) FROM events WHERE kind = 'app_rank_done'"
					    " AND rank <> %d", at[0]) >= 2) {
		/* one rank waited while the others said they reached their end:
		 * they had left the call it waited in, matched by NCCL with another */
		long done = (long)q_int(d->db, 0, "SELECT count(DISTINCT rank) FROM events WHERE kind = 'app_rank_done'"
						  " AND rank <> %d", at[0]);
		v->cause = CAUSE(collective_mismatch);
		v->confidence = CONFIDENCE(medium);
		v_culprit(v, at[0]);
		buf_printf(&v->summary,
			   "Rank %d alone timed out, in %s call %ld of %s, while %ld other ranks said they had finished: they"
			   " had gone past the call it waited in, so it called something they did not (another collective,"
			   " or one of other sizes that NCCL matched with theirs).",
			   at[0], major->op, site->seq, grp, done);
		v_cite_event(v, major->event, "its watchdog's timeout");
		v_cite_event(v, q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'app_rank_done'"),
			     "a peer's end");
	} else {
		v->cause = CAUSE(unknown);
		v->confidence = CONFIDENCE(low);
		/* every rank of a world the logs state (not only the ranks seen) */
		bool stated = q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind IN ('nccl_comm_init',"
					      " 'app_rank_identity', 'lightning_dist_init', 'launcher_world_info'))"
					      " OR EXISTS (SELECT 1 FROM process_groups WHERE size > 1)") != 0;
		bool every = stated && nat >= 2 && d->world > 0 && (int)nat >= d->world;
		buf_printf(&v->summary, "The job hung in %s call %ld of %s: %s%s%s timed out in it after %ld s",
			   major->op, site->seq, grp, every ? "every rank (" : nat == 1 ? "rank " : "ranks ", list.data,
			   every ? ")" : "", major->timeout_ms / 1000);
		if (every) {
			char net[64] = "";
			q_text(d->db, net, sizeof(net),
			       "SELECT field(fields, 'network') FROM events WHERE kind = 'nccl_using_network' LIMIT 1");
			buf_printf(&v->summary, ". Every rank had entered the call, so none was missing: the transfer between"
						" them never completed (the transport%s%s, its network path, the GPUs' memory"
						" registration); no rank is to single out.",
				   net[0] ? ", NET/" : "", net);
		} else {
			buf_puts(&v->summary, ".");
		}
		if (!stated)
			buf_puts(&v->summary, " The logs do not say how many ranks the job had: whether the others entered"
					      " the call they cannot tell.");
		if (ncalm)
			buf_printf(&v->summary, " Rank%s %s logged but did not time out: %s may not have entered it.",
				   ncalm == 1 ? "" : "s", quiet.data, ncalm == 1 ? "it" : "they");
		if (nnone)
			buf_printf(&v->summary, " Rank%s %s %s no line in the logs.", nnone == 1 ? "" : "s", absent.data,
				   nnone == 1 ? "has" : "have");
		v_cite_event(v, major->event, "a watchdog's timeout");
		if (ncalm || nnone)
			v_missing(v, "the logs of the ranks that did not time out, or the ranks' flight-recorder dumps"
				     " (TORCH_NCCL_TRACE_BUFFER_SIZE): which call each was in");
	}
	v_missing(v, "times on the lines (PyTorch 2.3+ prints them; a paste keeps them when copied whole): the order of"
		     " the failures");
	buf_free(&list);
	buf_free(&odds);
	buf_free(&absent);
	buf_free(&quiet);
	free(none);
	free(calm);
	free(at);
	free(odd);
	free(w);
	return true;
}
