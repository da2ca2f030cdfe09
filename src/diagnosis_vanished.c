/* diagnosis_vanished.c: a process that ended without a word.
 *
 * No launcher reported its exit (the launcher's output was not collected, or
 * died with it); it logged no error and no timeout and left no flight-recorder
 * dump; it stopped logging at about the first failure while its peers lived
 * on; and that first failure is a peer losing a connection (closed by the
 * remote end, or NCCL's remote error). A process that hangs keeps its
 * sockets open until its peers time out; one whose sockets close died.
 *
 * When a rank logged NCCL's "[Service thread] Connection closed by localRank
 * N" about a silent rank of its host, that one went first: the silent ranks
 * seen going are named before those nobody saw go (which may have been taken
 * down by the launcher after them), and a silent reporter followed (the
 * launcher's cleanup of the node, or the same kill: without the launcher's
 * report the two cannot be told apart). */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdlib.h>
#include <string.h>

#include "case_db.h"


int64_t diag_first_lost_connection(struct diagnosis *d, int64_t *when)
{
	int64_t ev = q_int(d->db, 0,
		"SELECT event_id FROM events WHERE rank IS NOT NULL AND time_us BETWEEN %lld AND %lld"
		" AND (kind IN ('nccl_socket_closed', 'gloo_connection_lost')"
		"  OR (kind = 'nccl_error_code' AND field(fields, 'code') = 'ncclRemoteError')"
		/* a connection to the peer reset or refused: its process is gone */
		"  OR (kind IN ('nccl_socket_call_failed', 'nccl_socket_connect_failed', 'nccl_last_error_text')"
		"      AND (field(fields, 'msg') LIKE '%%Connection reset by peer%%'"
		"           OR field(fields, 'msg') LIKE '%%Connection refused%%')))"
		" ORDER BY time_us, event_id LIMIT 1",
		(long long)d->t0, (long long)(d->t0 + WHOLE_SECOND_US));
	if (!ev)
		return 0;
	*when = q_int(d->db, T_NONE, "SELECT time_us FROM events WHERE event_id = %lld", (long long)ev);
	if (q_int(d->db, 0, "SELECT count(*) FROM events WHERE kind = 'pg_watchdog_timeout' AND time_us < %lld",
		  (long long)*when) > 0)
		return 0;
	return ev;
}

/* Silent since the loss: logged, no dump, no launcher report, no error or
 * timeout of its own, last line within a second of the loss. */
static bool went_silent(const struct rank_facts *r, int64_t lost_t)
{
	return r->events > 0 && !r->has_dump && !r->exited && r->first_error_t == T_NONE &&
	       r->first_timeout_t == T_NONE && r->last_t != T_NONE && r->last_t < lost_t + SILENT_AT_LOSS_US;
}

/* The rank of host at NCCL local rank k: the k-th of the host's ranks. */
static struct rank_facts *host_local(struct diagnosis *d, const char *host, int k)
{
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (k >= 0 && strcmp(r->host, host) == 0 && k-- == 0)
			return r;
	}
	return NULL;
}

/* per rank (index into d->ranks): silent since the loss; saw a silent
 * node-mate go before it; seen going by a node-mate */
struct gone {
	bool silent, follower, seen;
};

/* The silent rank that y saw close its connection as NCCL local rank k.
 * NCCL counts local ranks per communicator (a communicator of some of a
 * host's ranks numbers them from 0), and the line does not say which: the
 * ranks of y's host that are local rank k in a communicator of y's (NCCL's
 * "comm ... localRank k" lines) must come down to one silent rank; without
 * those lines, the k-th rank of the host. NULL when none or several. */
static struct rank_facts *closed_peer(struct diagnosis *d, const struct rank_facts *y, int k,
				      const struct gone *g)
{
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT DISTINCT cx.rank FROM comms cy"
		" JOIN comms cx ON cx.comm_id = cy.comm_id AND cx.host = cy.host AND cx.rank <> cy.rank"
		" JOIN events ix ON ix.kind = 'nccl_comm_info' AND ix.rank = cx.rank AND ix.pid = cx.pid"
		"  AND field(ix.fields, 'comm') = cx.comm_ptr"
		" WHERE cy.rank = ?1 AND field(ix.fields, 'comm_local_rank') = ?2");
	sqlite3_bind_int(st, 1, y->rank);
	sqlite3_bind_int(st, 2, k);
	struct rank_facts *x = NULL;
	bool any = false, several = false;
	while (sqlite3_step(st) == SQLITE_ROW) {
		any = true;
		struct rank_facts *c = diag_rank(d, sqlite3_column_int(st, 0));
		if (!c || !g[c - d->ranks].silent)
			continue;
		several |= x != NULL;
		x = c;
	}
	sqlite3_finalize(st);
	if (!any)
		x = host_local(d, y->host, k);
	return several || !x || !g[x - d->ranks].silent ? NULL : x;
}

bool diag_rank_vanished(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE || d->completed) {
		v_decline(d, "no failure was logged, or the job said it ended");
		return false;
	}
	int64_t lost_t = T_NONE;
	int64_t lost_ev = diag_first_lost_connection(d, &lost_t);
	if (!lost_ev) {
		v_decline(d, "no rank lost its connections first (closed by the remote end, NCCL's remote "
			     "error) at the job's first failure");
		return false;
	}
	struct gone *g = xcalloc(d->nranks ? d->nranks : 1, sizeof(*g));
	size_t nsilent = 0, lived_on = 0;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		g[i].silent = went_silent(r, lost_t);
		nsilent += g[i].silent;
		if (!g[i].silent && (r->has_dump || (r->last_t != T_NONE && r->last_t >= lost_t)))
			lived_on++;
	}
	/* ranks without any logs could have ended first as well, unless a
	 * silent one was seen going (below) */
	size_t nabsent = diag_ranks_absent(d);
	if (!nsilent || !lived_on || diag_majority(nsilent, d->nranks)) {
		free(g);
		v_decline(d, "no rank went silent before the lost connections while others lived on (or more "
			     "than half went silent)");
		return false;
	}
	/* who saw whom go, on the same host */
	int64_t saw_ev = 0;
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT rank, field(fields, 'peer_local_rank'), event_id FROM events"
		" WHERE kind = 'nccl_service_closed' AND rank IS NOT NULL ORDER BY event_id");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct rank_facts *y = diag_rank(d, sqlite3_column_int(st, 0));
		if (!y || !y->host[0])
			continue;
		struct rank_facts *x = closed_peer(d, y, sqlite3_column_int(st, 1), g);
		if (!x || x == y)
			continue;
		g[x - d->ranks].seen = true;
		if (g[y - d->ranks].silent)
			g[y - d->ranks].follower = true;
		if (!saw_ev)
			saw_ev = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	/* those seen going first; else the silent ones that saw nobody go; else all */
	bool any_seen = false;
	for (size_t i = 0; i < d->nranks; i++)
		any_seen |= g[i].silent && g[i].seen && !g[i].follower;
	if (nabsent && !any_seen) {
		free(g);
		v_decline(d, "ranks without any logs could have died first as well, and none was seen going");
		return false;
	}
	struct rank_facts *first = NULL;
	for (int pass = 0; pass < 2 && !first; pass++)
		for (size_t i = 0; i < d->nranks; i++)
			if (g[i].silent && (pass == 1 || (!g[i].follower && (g[i].seen || !any_seen)))) {
				v_culprit(v, d->ranks[i].rank);
				if (!first)
					first = &d->ranks[i];
			}
	/* a whole host silent together is the host (or its launcher) going */
	bool whole_host = diag_culprits_whole_host(d, first->host);

	v->outcome = OUTCOME(crash);
	v->cause = CAUSE(rank_exited);
	v->first_failure_t = lost_t;
	/* a whole host gone at once: the node, or one rank whose launcher then
	 * took the others down; only the launcher's report tells which */
	v->confidence = v->nculprits == 1 ? CONFIDENCE(medium) : CONFIDENCE(low);
	struct buf who = {0}, l = {0};
	fmt_rank_list(v->culprits, v->nculprits, &l);
	if (v->nculprits == 1)
		rank_desc(d, first->rank, &who);
	else if (whole_host)
		buf_printf(&who, "every rank of %s (ranks %s)", first->host, l.data);
	else
		buf_printf(&who, "ranks %s", l.data);
	char t_last[32], t_lost[32];
	fmt_time(first->last_t, t_last, sizeof(t_last));
	fmt_time(lost_t, t_lost, sizeof(t_lost));
	buf_printf(&v->summary, "%s ended without a word: %s last line was at %s", who.data,
		   v->nculprits == 1 ? "its" : "the", t_last);
	if (v->nculprits == 1 && first->last_step >= 0)
		buf_printf(&v->summary, " (after step %ld)", first->last_step);
	buf_printf(&v->summary,
		   ", %s no error or timeout and left no flight-recorder dump, and %s peers lost their connections"
		   " to %s from %s on. A process that hangs keeps its connections open until its peers time out;"
		   " these closed, so %s died (killed, crashed without a trace, or %s node went down).",
		   v->nculprits == 1 ? "it logged" : "they logged", v->nculprits == 1 ? "its" : "their",
		   v->nculprits == 1 ? "it" : "them", t_lost, v->nculprits == 1 ? "it" : "they",
		   v->nculprits == 1 ? "its" : "their");
	size_t nfollow = 0;
	for (size_t i = 0; i < d->nranks; i++)
		nfollow += g[i].follower && !v_has_culprit(v, d->ranks[i].rank);
	if (nfollow) {
		struct buf f = {0};
		for (size_t i = 0; i < d->nranks; i++)
			if (g[i].follower && !v_has_culprit(v, d->ranks[i].rank))
				buf_printf(&f, "%s%d", f.len ? ", " : "", d->ranks[i].rank);
		buf_printf(&v->summary,
			   " Rank%s %s of the same host saw it go (NCCL's \"Connection closed by localRank\") and"
			   " ended right after (the launcher's cleanup, or the same kill).",
			   nfollow > 1 ? "s" : "", f.data);
		buf_free(&f);
	} else if (whole_host) {
		buf_puts(&v->summary, " Either the node went down or one of them died and its launcher took the others"
				      " down: the launcher's report would tell which.");
	} else if (v->nculprits > 1) {
		buf_puts(&v->summary, " The logs do not tell which of them ended first.");
	}
	v_missing(v, "the launcher's output (torchrun's console): it reports each worker's exit code or signal");
	v_cite_event(v, q_int(d->db, 0, "SELECT event_id FROM events WHERE rank = %d AND time_us IS NOT NULL"
					" ORDER BY time_us DESC, event_id DESC LIMIT 1", first->rank),
		     "its last line");
	v_cite_event(v, lost_ev, "a peer losing its connection");
	v_cite_event(v, saw_ev, "a rank of its host seeing it go");
	buf_free(&who);
	buf_free(&l);
	free(g);
	return true;
}
