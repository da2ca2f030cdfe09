/* diagnosis_init.c: the init rules: ranks that never reached their
 * communicators' init, and an init that failed (a missing interface, the
 * store lost, a unique id never published), with the ranks they waited on. */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "case_db.h"
#include "case_schema.h"

/* ---- init failure ---- */

/* The rank whose NCCL unique id this rank failed to fetch through the store
 * (PyTorch: "retrieving ncclUniqueId from [N] via c10d key-value store ...
 * keys: /default_pg/0//cuda//0"), -1 if its init errors say nothing of the
 * kind. N is the root's rank in the group whose keys these are: the global
 * rank for the default group; for another group, the member at N by
 * pg_members (matched by the group's name or description), else -1. */
static int unique_id_root(struct diagnosis *d, int rank)
{
	static const char marker[] = "retrieving ncclUniqueId from [";
	char msg[1024] = "";
	q_text(d->db, msg, sizeof(msg),
	       "SELECT m FROM (SELECT field(fields, 'msg') AS m FROM events WHERE rank = %d AND kind = 'py_exception')"
	       " WHERE instr(m, '%s') > 0 LIMIT 1",
	       rank, marker);
	const char *at = strstr(msg, marker);
	if (!at)
		return -1;
	int root = atoi(at + sizeof(marker) - 1);
	const char *keys = strstr(at, "keys: /");
	if (!keys)
		return root;
	keys += strlen("keys: /");
	size_t n = strcspn(keys, "/");
	if ((n == 10 && strncmp(keys, "default_pg", n) == 0) || (n == 1 && keys[0] == '0'))
		return root;
	char group[128];
	snprintf(group, sizeof(group), "%.*s", (int)(n < sizeof(group) ? n : sizeof(group) - 1), keys);
	return (int)q_int(d->db, -1,
		"SELECT m.rank FROM pg_members m JOIN process_groups g USING(pg)"
		" WHERE (g.name = %Q OR g.desc = %Q OR g.pg = %Q) AND m.pg_rank = %d LIMIT 1",
		group, group, group, root);
}

/* An init error that says the store (the launcher's TCPStore, served on
 * one node) could not be reached or went away: "The client socket has timed
 * out after 20000ms while trying to connect to (host, port)", "store->get('0')
 * got error: Failed to recv, got 0 bytes. Connection was likely closed". */
static const char store_lost_sql[] =
	"kind = 'py_exception' AND (field(fields, 'msg') LIKE '%trying to connect to%'"
	" OR field(fields, 'msg') LIKE '%failed to connect%'"
	" OR field(fields, 'msg') LIKE '%Connection was likely closed%')";

/* The rank's error saying the store was lost; 0 if none. */
static int64_t store_unreachable(struct diagnosis *d, int rank)
{
	return q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE rank = %d AND %s", rank, store_lost_sql);
}

/* Every rank with an init error lost the store, and every rank of some
 * hosts went silent without an error (or left no line at all): the store's
 * node was gone (its launcher serves the store and ends when the node's
 * processes do). Its ranks are named, low: which of them began it, only the
 * launcher's report (not in the bundle) would tell. */
static bool init_store_lost(struct diagnosis *d, int64_t ev)
{
	struct verdict *v = &d->v;
	if (!ev) {
		v_decline(d, "no rank failed its init, and none lost the store");
		return false;
	}
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (r->events && r->first_error_t == T_NONE && !r->init_complete && !r->exited)
			v_culprit(v, r->rank);
	}
	/* whole hosts only: a silent rank beside one that failed is that host's waiter */
	for (size_t i = 0; i < v->nculprits; i++) {
		struct rank_facts *r = diag_rank(d, v->culprits[i]);
		if (!r || !r->host[0] || !diag_culprits_whole_host(d, r->host)) {
			v->nculprits = 0;
			v_decline(d, "the store was lost with a rank killed from outside: its death is the "
				     "cause, for the rules that follow");
			return false;
		}
	}
	bool absent = v->nculprits == 0;
	for (int rank = 0; absent && rank < d->world; rank++)
		if (diag_rank_absent(d, rank))
			v_culprit(v, rank);
	if (v->nculprits == 0) {
		v_decline(d, "no rank failed its init but for the lost store, which no rank's failure explains");
		return false;
	}
	v->outcome = OUTCOME(crash);
	v->cause = CAUSE(rank_exited);
	v->confidence = CONFIDENCE(low);
	v->first_failure_t = d->t0;
	char what[512] = "";
	q_text(d->db, what, sizeof(what), "SELECT field(fields, 'msg') FROM events WHERE event_id = %lld",
	       (long long)ev);
	/* "... but store->get('0') got error: Failed to recv ...": the error */
	const char *err = strstr(what, "got error: ");
	err = err ? err + strlen("got error: ") : what;
	struct buf l = {0};
	fmt_rank_list(v->culprits, v->nculprits, &l);
	buf_printf(&v->summary, "The ranks that failed in init lost the store (\"%s\")", err);
	if (absent) {
		buf_printf(&v->summary, ", and rank%s %s left no line in the logs: the store's node is most likely among"
					" theirs (the launcher of one node serves the store and ends with it), and its processes"
					" ended (killed, crashed, or taken down by their launcher).",
			   v->nculprits > 1 ? "s" : "", l.data);
	} else {
		int64_t last = T_NONE;
		struct buf hosts = {0};
		for (size_t i = 0; i < v->nculprits; i++) {
			struct rank_facts *r = diag_rank(d, v->culprits[i]);
			if (r->last_t != T_NONE && (last == T_NONE || r->last_t > last))
				last = r->last_t;
			if (!strstr(hosts.data ? hosts.data : "", r->host))
				buf_printf(&hosts, "%s%s", hosts.len ? ", " : "", r->host);
		}
		char t[32];
		fmt_time(last, t, sizeof(t));
		buf_printf(&v->summary, ", and every rank of %s (rank%s %s) went silent after %s without an error of its"
					" own. The launcher of one node serves the store and ends with it: that node's processes"
					" ended (killed, crashed, or taken down by their launcher).",
			   hosts.data, v->nculprits > 1 ? "s" : "", l.data, t);
		buf_free(&hosts);
		for (size_t i = 0; i < v->nculprits && i < 4; i++)
			v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM events WHERE rank = %d"
							" AND time_us IS NOT NULL", v->culprits[i]),
				     "last sign of life");
	}
	buf_puts(&v->summary, " Which rank went first, only the launcher's report would tell (not in the logs).");
	v_cite_event(v, ev, "a rank losing the store");
	buf_free(&l);
	return true;
}

/* Every rank with an init error failed waiting for the unique id of one
 * rank, which has no init error of its own: that rank never published it
 * (it stalled before or in its init, or left no logs at all). */
static bool init_waited_on(struct diagnosis *d, int root, int64_t ev, bool store_lost)
{
	struct verdict *v = &d->v;
	if (root < 0) {
		v_decline(d, "no rank failed its init (NCCL's init errors, or errors of a rank that never "
			     "finished its init)");
		return false;
	}
	struct rank_facts *r = diag_rank(d, root);
	/* it was killed (the launcher saw it): the dead rank's rule */
	if (r && diag_killed_from_outside(r)) {
		v_decline(d, "the rank whose unique id the others waited for was killed from outside: its "
			     "death is the cause, for the rules that follow");
		return false;
	}
	bool logged = r && r->events;
	/* the store went away too: the root's node ended, it did not stall */
	bool ended = logged && store_lost;
	v_culprit(v, root);
	v->outcome = ended ? OUTCOME(crash) : OUTCOME(init_failure);
	v->cause = ended ? CAUSE(rank_exited) : logged ? CAUSE(rank_stalled) : CAUSE(init_failure);
	v->confidence = logged && !ended ? CONFIDENCE(medium) : CONFIDENCE(low);
	v->first_failure_t = d->t0;
	buf_printf(&v->summary,
		   "NCCL communicator init failed: the other ranks failed fetching the NCCL unique id of rank %d"
		   " through the store, which rank %d never published.",
		   root, root);
	if (ended)
		buf_printf(&v->summary,
			   " Their store connections were closed: the launcher of rank %d's node, which serves the store,"
			   " had ended, and with it rank %d's process (killed, crashed, or taken down by its launcher;"
			   " the launcher's report, not in the logs, would tell which rank of the node went first).",
			   root, root);
	else if (logged)
		buf_printf(&v->summary,
			   " Rank %d logged no init error of its own: it was stuck before or in init_process_group"
			   " (host code such as loading data, or a hang in its own init).", root);
	else
		buf_printf(&v->summary,
			   " The bundle has no line at all from rank %d: it failed or stalled before or during its own"
			   " init (a bad interface, an error, host code before init_process_group: its logs would tell).",
			   root);
	v_cite_event(v, ev, "a rank waiting for its unique id");
	if (logged)
		v_cite_event(v, q_int(d->db, 0, "SELECT event_id FROM events WHERE rank = %d AND time_us IS NOT NULL"
						" ORDER BY time_us DESC, event_id DESC LIMIT 1", root),
			     "its last line");
	return true;
}

bool diag_init_failure(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* a transfer's completion (failed or not) is past the set-up */
	if (q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind IN ('nccl_ib_completion_error', 'ibv_cqe_error'))")) {
		v_decline(d, "a transfer's work completion was reported (an IB completion error): the communicators were up");
		return false;
	}
	/* local init errors, or errors of a rank that never finished init */
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT rank, min(event_id), min(time_us) FROM events WHERE rank IS NOT NULL AND ("
		"  kind IN ('nccl_no_socket_if','nccl_net_no_interface')"
		"  OR (kind IN ('nccl_warn','nccl_cuda_failure','nccl_error_exception')"
		"      AND rank IN (SELECT rank FROM rank_status WHERE init_complete = 0)"
		"      AND NOT (kind = 'nccl_error_exception' AND field(fields, 'what') LIKE 'remote process exited%'))"
		/* an exception is an init error only when it speaks of communication */
		"  OR (kind = 'py_exception' AND rank IN (SELECT rank FROM rank_status WHERE init_complete = 0)"
		/* NCCL's "remote process exited or there was a network error": a peer's failure */
		"      AND rank NOT IN (SELECT rank FROM events WHERE kind = 'nccl_error_code' AND rank IS NOT NULL"
		"                       AND field(fields, 'code') = 'ncclRemoteError')"
		"      AND coalesce(field(fields, 'msg'), '') NOT LIKE '%remote process exited%'"
		"      AND (SELECT t LIKE '%nccl%' OR t LIKE '%Dist%Error%' OR t LIKE '%ProcessGroup%'"
		"           OR t LIKE '%init_process_group%' OR t LIKE '%rendezvous%' OR t LIKE '%TCPStore%'"
		"           OR t LIKE '%socket%' OR t LIKE '%communicator%'"
		"           FROM (SELECT coalesce(field(fields, 'type'), '') || ' ' || coalesce(field(fields, 'msg'), '') AS t)))"
		/* a CUDA error of the rank's own work breaks its init too: not an init failure */
		") AND rank NOT IN (SELECT rank FROM events WHERE rank IS NOT NULL AND " DIAG_CUDA_STICKY ")"
		" GROUP BY rank ORDER BY rank");
	int64_t first = T_NONE;
	int64_t first_event = 0;
	struct cand {
		int rank;
		int64_t ev, t;
	} *cands = NULL;
	size_t nc = 0, cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int rank = sqlite3_column_int(st, 0);
		struct rank_facts *r = diag_rank(d, rank);
		bool local_if = r && r->first_error_kind[0] && (strcmp(r->first_error_kind, "nccl_no_socket_if") == 0 ||
								 strcmp(r->first_error_kind, "nccl_net_no_interface") == 0);
		if (r && r->init_complete && r->first_error_kind[0] && !local_if)
			continue;
		/* a training step logged before the error: past init (NCCL's own
		 * lines, which tell init_complete, may be missing from the bundle) */
		int64_t t_err = db_column_int_or(st, 2, T_NONE);
		if (r && !local_if && r->last_step >= 0 && r->last_step_t != T_NONE && t_err != T_NONE &&
		    r->last_step_t <= t_err)
			continue;
		xgrow(&cands, &cap, nc + 1, sizeof(*cands));
		cands[nc].rank = rank;
		cands[nc].ev = sqlite3_column_int64(st, 1);
		cands[nc++].t = t_err;
	}
	sqlite3_finalize(st);
	/* a rank killed before any init error (or just after: the launcher
	 * polls): the others' errors (the store gone with its node, a unique id
	 * never published) are its consequences */
	int64_t died = diag_first_killed(d);
	int64_t first_err = T_NONE;
	for (size_t i = 0; i < nc; i++)
		if (cands[i].t != T_NONE && (first_err == T_NONE || cands[i].t < first_err))
			first_err = cands[i].t;
	if (died != T_NONE && first_err != T_NONE && died < first_err + LAUNCHER_LAG_US) {
		free(cands);
		v_decline(d, "a rank was killed before the first init error: the errors are its consequences");
		return false;
	}
	/* where some hosts lack the interface NCCL was told to use, the ranks of
	 * the other hosts fail only because those died (the store, the unique id
	 * they wait for): consequences, not culprits */
	static const char local_sql[] =
		"SELECT count(*) FROM events e JOIN sources s USING(source_id)"
		" WHERE e.kind IN ('nccl_no_socket_if','nccl_net_no_interface') AND e.rank IS NOT NULL";
	bool any_local = q_int(d->db, 0, "%s", local_sql) > 0;
	int waited_root = -1;
	int64_t waited_ev = 0, store_ev = 0;
	for (size_t i = 0; i < nc; i++) {
		struct rank_facts *r = diag_rank(d, cands[i].rank);
		if (any_local && r && r->host[0] &&
		    q_int(d->db, 0, "%s AND coalesce(e.host, s.host) = %Q", local_sql, r->host) == 0)
			continue;
		/* the store could not be reached, or went away: its node's
		 * failure, unless the rank's own interface is missing (any_local) */
		int64_t unreachable = any_local ? 0 : store_unreachable(d, cands[i].rank);
		if (unreachable && !store_ev)
			store_ev = unreachable;
		/* waiting for another rank's unique id: that rank's failure */
		int root = unique_id_root(d, cands[i].rank);
		if (root >= 0 && root != cands[i].rank) {
			waited_root = root;
			waited_ev = cands[i].ev;
			continue;
		}
		if (unreachable)
			continue;
		v_culprit(v, cands[i].rank);
		if (cands[i].t != T_NONE && (first == T_NONE || cands[i].t < first)) {
			first = cands[i].t;
			first_event = cands[i].ev;
		}
		v_cite_event(v, cands[i].ev, "init error");
	}
	free(cands);
	if (v->nculprits == 0 && waited_root < 0)
		return init_store_lost(d, store_ev);
	if (v->nculprits == 0)
		return init_waited_on(d, waited_root, waited_ev, store_ev != 0);

	v->outcome = OUTCOME(init_failure);
	v->cause = CAUSE(init_failure);
	v->first_failure_t = first != T_NONE ? first : d->t0;
	(void)first_event;
	struct buf hosts = {0}, list = {0}, who = {0};
	diag_hosts_json(d, v->culprits, v->nculprits, &hosts);
	fmt_rank_list(v->culprits, v->nculprits, &list);

	char what[256] = "", host[128] = "", ifname[128] = "", other_if[128] = "", other_hosts[256] = "";
	/* what failed: NCCL's own words when it said them, else the exception */
	int64_t what_ev = q_int(d->db, 0,
		"SELECT min(event_id) FROM events WHERE kind IN ('nccl_no_socket_if','nccl_net_no_interface')"
		" AND rank IS NOT NULL");
	if (!what_ev)
		what_ev = v->evidence[0].event_id;
	q_text(d->db, what, sizeof(what),
	       "SELECT CASE kind WHEN 'nccl_no_socket_if' THEN field(fields, 'what') || ' : no socket interface found'"
	       " WHEN 'nccl_net_no_interface' THEN 'NET/' || field(fields, 'plugin') || ' : no interface found'"
	       " ELSE coalesce(field(fields, 'msg'), kind) END FROM events WHERE event_id = %lld",
	       (long long)what_ev);
	struct rank_facts *c0 = diag_rank(d, v->culprits[0]);
	if (c0)
		snprintf(host, sizeof(host), "%s", c0->host);
	/* the interface setting on the failing host, and what the others used */
	int64_t env_ev = q_int(d->db, 0,
		"SELECT min(event_id) FROM events WHERE kind = 'nccl_env' AND host = %Q"
		" AND field(fields, 'name') = 'NCCL_SOCKET_IFNAME'", host);
	q_text(d->db, ifname, sizeof(ifname), "SELECT field(fields, 'value') FROM events WHERE event_id = %lld",
	       (long long)env_ev);
	int64_t other_ev = q_int(d->db, 0,
		"SELECT min(event_id) FROM events WHERE kind = 'nccl_bootstrap_if' AND host IS NOT NULL AND host <> %Q", host);
	q_text(d->db, other_if, sizeof(other_if),
	       "SELECT field(fields, 'ifname') FROM events WHERE event_id = %lld", (long long)other_ev);
	q_text(d->db, other_hosts, sizeof(other_hosts),
	       "SELECT group_concat(h, ', ') FROM (SELECT DISTINCT host AS h FROM events WHERE kind = 'nccl_bootstrap_if'"
	       " AND host <> %Q ORDER BY host)", host);

	/* the culprits' hosts: one, or each of several alike */
	char where[512] = "";
	struct buf in_list = {0};
	for (size_t i = 0; i < v->nculprits; i++)
		buf_printf(&in_list, "%s%d", i ? "," : "", v->culprits[i]);
	long nhosts = (long)q_int(d->db, 0, "SELECT count(DISTINCT host) FROM ranks WHERE rank IN (%s)", in_list.data);
	if (nhosts > 1)
		q_text(d->db, where, sizeof(where),
		       "SELECT '%ld hosts (' || group_concat(h, ', ') || ')' FROM (SELECT DISTINCT host AS h FROM ranks"
		       " WHERE rank IN (%s) AND host IS NOT NULL ORDER BY host)", nhosts, in_list.data);
	buf_free(&in_list);
	if (!where[0])
		snprintf(where, sizeof(where), "%s", host[0] ? host : "some hosts");
	/* the interface setting matters where the error is about an interface */
	bool about_if = strstr(what, "interface") != NULL;
	buf_printf(&v->summary, "NCCL communicator init failed on %s (rank%s %s): \"%s\".",
		   where, v->nculprits > 1 ? "s" : "", list.data, what[0] ? what : "init error");
	if (ifname[0] && about_if && nhosts <= 1) {
		buf_printf(&v->summary, " NCCL_SOCKET_IFNAME is set to %s there", ifname);
		if (strstr(what, "no socket interface") || strstr(what, "no interface"))
			buf_printf(&v->summary, ", an interface that host does not have");
		if (other_if[0])
			buf_printf(&v->summary, "; the other hosts (%s) bootstrapped on %s", other_hosts, other_if);
		buf_putc(&v->summary, '.');
		v_cite_event(v, env_ev, "interface setting on the failing host");
		if (other_ev)
			v_cite_event(v, other_ev, "interface the other hosts used");
	}
	/* who waited */
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (!v_has_culprit(v, r->rank) && r->events && !r->init_complete) {
			if (who.len)
				buf_puts(&who, ", ");
			buf_printf(&who, "%d", r->rank);
		}
	}
	if (who.len)
		buf_printf(&v->summary, " Rank%s %s waited in init for them.", strchr(who.data, ',') ? "s" : "", who.data);
	/* the Python side of the failure */
	int64_t exc = q_int(d->db, 0,
		"SELECT min(event_id) FROM events WHERE kind = 'py_exception' AND rank = %d", v->culprits[0]);
	v_cite_event(v, exc, "exception in init_process_group");
	v->confidence = env_ev || strstr(what, "interface") ? CONFIDENCE(high) : CONFIDENCE(medium);
	buf_free(&hosts);
	buf_free(&list);
	buf_free(&who);
	return true;
}

/* ---- a rank that never reached communicator init ---- */

/* No rank got past init, most began NCCL's communicator init (or failed
 * waiting for it), and a few never did: alive (they logged), but no NCCL
 * line at all. They were stuck before init_process_group (loading data,
 * say), and the others waited for them: for the unique id the first rank
 * publishes, or for every rank to join. */
bool diag_before_init(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->completed || d->past_init) {
		v_decline(d, "the job ended, or some rank got past its communicators' init");
		return false;
	}
	/* an init that failed on its own (no interface): the init failure's */
	if (q_int(d->db, 0, "SELECT count(*) FROM events WHERE kind IN ('nccl_no_socket_if', 'nccl_net_no_interface')") > 0) {
		v_decline(d, "a rank's network interface is missing: the init failure rule says so");
		return false;
	}
	/* the store went away with its node: the ranks there did not stall */
	if (q_int(d->db, 0, "SELECT count(*) FROM events WHERE %s", store_lost_sql) > 0) {
		v_decline(d, "a rank lost the store: the init failure rule says so");
		return false;
	}
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT r.rank, (SELECT count(*) FROM events e WHERE e.rank = r.rank AND e.kind >= 'nccl_' AND e.kind < 'nccl`'"
		/* NCCL's own lines (they carry its pid): PyTorch's copies of NCCL's errors say nothing of init */
		" AND e.pid IS NOT NULL AND e.level = 'I')"
		" AS nccl, r.events, r.first_error_time_us FROM rank_status r ORDER BY r.rank");
	size_t began = 0, stuck = 0;
	int *who = xcalloc(d->nranks ? d->nranks : 1, sizeof(int));
	bool stuck_failed = false;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, 1) > 0) {
			began++;
		} else if (sqlite3_column_int64(st, 2) > 0 && stuck < d->nranks) {
			int rank = sqlite3_column_int(st, 0);
			const struct rank_facts *r = diag_rank(d, rank);
			who[stuck++] = rank;
			stuck_failed |= sqlite3_column_type(st, 3) != SQLITE_NULL;
			/* one that was killed was not stuck: the dead rank's rule */
			stuck_failed |= r && diag_killed_from_outside(r);
		}
	}
	sqlite3_finalize(st);
	/* ranks without any file say nothing either way: the others must still outnumber the stuck */
	if (stuck == 0 || stuck_failed || began < stuck) {
		free(who);
		v_decline(d, "no rank stuck before init that its peers outnumber");
		return false;
	}
	for (size_t i = 0; i < stuck; i++)
		v_culprit(v, who[i]);
	free(who);
	v->outcome = d->t0 != T_NONE ? OUTCOME(init_failure) : OUTCOME(hang);
	v->cause = CAUSE(rank_stalled);
	v->confidence = CONFIDENCE(medium);
	v->first_failure_t = d->t0;
	struct buf l = {0}, first = {0};
	fmt_rank_list(v->culprits, v->nculprits, &l);
	rank_desc(d, v->culprits[0], &first);
	if (v->nculprits == 1)
		buf_printf(&v->summary, "%s never reached NCCL's communicator init", first.data);
	else
		buf_printf(&v->summary, "Ranks %s never reached NCCL's communicator init", l.data);
	buf_printf(&v->summary, ": alive (%s logged) but with no NCCL line at all, while the other %zu rank%s began it",
		   v->nculprits == 1 ? "it" : "they", began, began == 1 ? "" : "s");
	if (d->t0 != T_NONE) {
		char t[32];
		fmt_time(d->t0, t, sizeof(t));
		buf_printf(&v->summary, " and failed from %s on, waiting for %s (for the NCCL unique id that the group's"
					" first rank publishes, or for every rank to join)",
			   t, v->nculprits == 1 ? "it" : "them");
	} else {
		buf_printf(&v->summary, " and waited for %s: nothing timed out", v->nculprits == 1 ? "it" : "them");
	}
	buf_puts(&v->summary, ". Stuck in host code before init_process_group (loading data, a barrier of its own?).");
	v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM events WHERE rank = %d", v->culprits[0]),
		     "the culprit's last line");
	v_cite_event(v, q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'nccl_comm_init'"),
		     "a peer beginning init");
	if (d->t0 != T_NONE)
		v_cite_event(v, q_int(d->db, 0,
				      "SELECT event_id FROM events WHERE class IN ('error', 'timeout') AND rank IS NOT NULL"
				      " ORDER BY time_us IS NULL, time_us, event_id LIMIT 1"),
			     "a peer failing in init");
	buf_free(&l);
	buf_free(&first);
	return true;
}
