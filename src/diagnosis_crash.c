/* diagnosis_crash.c: causes that end in an error rather than a hang:
 * communicator init failure, an application exception, a process that died. */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "case_db.h"
#include "case_schema.h"


static int64_t others_first_failure(struct diagnosis *d, const struct verdict *v, int except_rank)
{
	int64_t t = T_NONE;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (r->rank == except_rank || v_has_culprit(v, r->rank) || r->first_error_t == T_NONE)
			continue;
		if (t == T_NONE || r->first_error_t < t)
			t = r->first_error_t;
	}
	return t;
}

/* ---- a death from outside (the init and exception rules defer to it) ---- */

/* The rank's process died from outside: a signal or an exit status that
 * neither PyTorch's own teardown nor an error of its own explains. */
static bool external_exit(const struct rank_facts *r)
{
	if (!r->exited || r->exit_code == 0 || r->sigterm_by_launcher || r->watchdog_abort)
		return false;
	/* an abort after its own collective failure is PyTorch tearing down */
	if (r->first_timeout_t != T_NONE && (r->exit_t == T_NONE || r->first_timeout_t <= r->exit_t))
		return false;
	if (strcmp(r->exit_signal, "SIGABRT") == 0 && r->first_error_t != T_NONE &&
	    (r->exit_t == T_NONE || r->first_error_t <= r->exit_t))
		return false;
	/* an exit status (not a signal) after an error of its own is that
	 * error's doing (Python exits 1 on an uncaught exception); a time on a
	 * whole second (the launcher's failure report) may be up to a second early */
	int64_t exit_by = r->exit_t != T_NONE && r->exit_t % 1000000 == 0 ? r->exit_t + 999999 : r->exit_t;
	if (r->exit_code > 0 && r->first_error_t != T_NONE && r->exit_t != T_NONE && r->first_error_t <= exit_by)
		return false;
	return true;
}

/* Killed from outside: a signal death external_exit() keeps. (An exit
 * status of 1 is what Python returns after an uncaught exception: in an init
 * failure, a rank whose own error is not in the bundle.) */
static bool killed_from_outside(const struct rank_facts *r)
{
	return external_exit(r) && r->exit_code < 0;
}

/* When the first rank killed from outside died; T_NONE if none was. */
static int64_t first_killed(struct diagnosis *d)
{
	int64_t first = T_NONE;
	for (size_t i = 0; i < d->nranks; i++) {
		const struct rank_facts *r = &d->ranks[i];
		if (killed_from_outside(r) && r->exit_t != T_NONE && (first == T_NONE || r->exit_t < first))
			first = r->exit_t;
	}
	return first;
}

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
	if (r && killed_from_outside(r)) {
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
	int64_t died = first_killed(d);
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

	buf_printf(&v->summary, "NCCL communicator init failed on %s (rank%s %s): \"%s\".",
		   host[0] ? host : "some hosts", v->nculprits > 1 ? "s" : "", list.data, what[0] ? what : "init error");
	if (ifname[0]) {
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

/* ---- application exception ---- */

/* Exceptions that report a communication failure are consequences. */
static bool consequence_exception(const char *type, const char *msg)
{
	static const char *const words[] = {
		"NCCL", "nccl", "Watchdog", "watchdog", "ProcessGroup", "timed out", "Timed out", "timeout",
		"remote process", "communicator", "TCPStore", "Connection reset", "Broken pipe", "Connection closed",
		"ChildFailedError", "DistBackendError", "DistNetworkError", "DistStoreError", "SIGTERM", "SignalException",
		"monitoredBarrier", "Detected mismatch between collectives", /* PyTorch's collective checks */
	};
	for (size_t i = 0; i < ARRAY_LEN(words); i++)
		if (strstr(type, words[i]) || strstr(msg, words[i]))
			return true;
	return false;
}

bool diag_app_exception(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* Python exceptions, and CUDA errors of a rank's own GPU work that may
	 * reach Python only as an NCCL error ("unhandled cuda error") */
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT * FROM (SELECT event_id, rank, time_us, coalesce(field(fields, 'type'),''),"
		" coalesce(field(fields, 'msg'),''), 0 FROM events"
		" WHERE kind = 'py_exception' AND rank IS NOT NULL"
		" UNION ALL SELECT event_id, rank, time_us, 'CUDA error', field(fields, 'msg'), 1 FROM events"
		" WHERE rank IS NOT NULL AND " DIAG_CUDA_STICKY
		/* an error line of the application, after which its process ended
		 * with a failure status (or without destroying its process group) */
		" UNION ALL SELECT e.event_id, e.rank, e.time_us, 'error', field(e.fields, 'msg'), 2 FROM events e"
		" WHERE e.kind = 'app_error' AND e.rank IS NOT NULL AND e.time_us IS NOT NULL AND EXISTS (SELECT 1"
		"  FROM events x WHERE x.rank = e.rank AND x.time_us >= e.time_us AND (x.kind = 'pg_destroy_warning'"
		"  OR (x.kind = 'torchrun_worker_failed' AND field(x.fields, 'exitcode') > 0))))"
		" ORDER BY time_us IS NULL, time_us, event_id");
	int64_t first_t = T_NONE, first_ev = 0;
	int first_rank = -1;
	int first_what = 0; /* 0 an exception, 1 a CUDA error, 2 an error line */
	char type[128] = "", msg[256] = "";
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *ty = (const char *)sqlite3_column_text(st, 3);
		const char *ms = (const char *)sqlite3_column_text(st, 4);
		int what = sqlite3_column_int(st, 5);
		bool cuda = what == 1;
		if (!cuda && consequence_exception(ty, ms))
			continue;
		int rank = sqlite3_column_int(st, 1);
		struct rank_facts *r = diag_rank(d, rank);
		int64_t t = sqlite3_column_type(st, 2) == SQLITE_NULL ? (r ? r->exit_t : T_NONE)
								     : sqlite3_column_int64(st, 2);
		if (first_rank < 0) {
			first_rank = rank;
			first_t = t;
			first_what = what;
			first_ev = sqlite3_column_int64(st, 0);
			snprintf(type, sizeof(type), "%s", ty);
			/* PyTorch's copy says "Cuda failure 'what'": the what */
			const char *q = cuda ? strchr(ms, '\'') : NULL;
			const char *q2 = q ? strchr(q + 1, '\'') : NULL;
			if (q2)
				snprintf(msg, sizeof(msg), "%.*s", (int)(q2 - q - 1), q + 1);
			else
				snprintf(msg, sizeof(msg), "%s", ms);
			v_culprit(v, rank);
		} else if (rank != first_rank && t != T_NONE && first_t != T_NONE && t - first_t < SAME_EXCEPTION_US &&
			   strcmp(ty, type) == 0) {
			v_culprit(v, rank); /* the same error at the same moment elsewhere */
		}
	}
	sqlite3_finalize(st);
	if (first_rank < 0) {
		v_decline(d, "no rank raised an exception of its own (one that is not a consequence of a "
			     "peer's failure)");
		return false;
	}
	int64_t others = others_first_failure(d, v, first_rank);
	if (first_t != T_NONE && others != T_NONE && first_t > others + SLACK_US) {
		v->nculprits = 0; /* it came after the others failed: a consequence */
		v_decline(d, "the first exception came after other ranks had failed: a consequence");
		return false;
	}
	struct rank_facts *r = diag_rank(d, first_rank);
	v->outcome = OUTCOME(crash);
	v->cause = CAUSE(app_exception);
	v->first_failure_t = first_t != T_NONE ? first_t : d->t0;
	v->confidence = CONFIDENCE(high);
	struct buf who = {0};
	rank_desc(d, first_rank, &who);
	if (first_what == 1)
		buf_printf(&v->summary, "%s hit a CUDA error in its own GPU work: \"%s\"", who.data, msg);
	else if (first_what == 2)
		buf_printf(&v->summary, "%s logged an error and ended: \"%s\"", who.data, msg);
	else
		buf_printf(&v->summary, "%s raised %s%s%s", who.data, type, msg[0] ? ": " : "", msg);
	if (r && r->last_step >= 0)
		buf_printf(&v->summary, " after step %ld", r->last_step);
	if (r && r->exited)
		buf_printf(&v->summary, " and exited with code %d", r->exit_code);
	buf_putc(&v->summary, '.');
	int64_t assert_ev = q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'cuda_device_assert' AND rank = %d",
				  first_rank);
	if (assert_ev) {
		sqlite3_stmt *a = db_prepare(d->db, "SELECT coalesce(field(fields, 'kernel'), ''),"
						    " coalesce(field(fields, 'assertion'), ''), coalesce(field(fields, 'file'), ''),"
						    " coalesce(field(fields, 'line'), '') FROM events WHERE event_id = ?");
		sqlite3_bind_int64(a, 1, assert_ev);
		if (sqlite3_step(a) == SQLITE_ROW) {
			const char *file = (const char *)sqlite3_column_text(a, 2);
			const char *base = strrchr(file, '/');
			buf_printf(&v->summary, " The GPU kernel %s failed its assertion `%s` (%s:%s): most often an index or"
						" a label out of range.", sqlite3_column_text(a, 0), sqlite3_column_text(a, 1),
				   base ? base + 1 : file, sqlite3_column_text(a, 3));
		}
		sqlite3_finalize(a);
		v_cite_event(v, assert_ev, "the failed assertion");
	}
	if (first_what == 1 || strstr(msg, "CUDA error"))
		buf_printf(&v->summary, " A CUDA error like this one is sticky: every later CUDA call of the process fails,"
					" NCCL's included.%s",
			   assert_ev ? ""
				     : " Most often a kernel read or wrote out of bounds (CUDA_LAUNCH_BLOCKING=1 or"
				       " compute-sanitizer finds which); a GPU fault shows as an Xid in the host's kernel log.");
	if (v->nculprits > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, " Ranks %s raised it too.", l.data);
		buf_free(&l);
	}
	if (others != T_NONE) {
		char t[32];
		fmt_time(others, t, sizeof(t));
		buf_printf(&v->summary, " The other ranks failed after it (first at %s): consequences.", t);
	}
	v_cite_event(v, first_ev, "the exception");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT max(event_id) FROM events WHERE kind = 'py_traceback' AND source_id ="
			      " (SELECT source_id FROM events WHERE event_id = %lld) AND event_id < %lld",
			      (long long)first_ev, (long long)first_ev),
		     "traceback");
	if (r && r->exit_event)
		v_cite_event(v, r->exit_event, "process exit");
	buf_free(&who);
	return true;
}

/* ---- a process that died ---- */

/* Whether the rank has a line of its own in the bundle, not only its
 * launcher's report of its end. */
static bool has_own_lines(struct diagnosis *d, int rank)
{
	return q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE rank = %d AND substr(kind, 1, 9) <> 'torchrun_')",
		     rank) != 0;
}

bool diag_rank_exited(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	struct rank_facts *first = NULL;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (!external_exit(r))
			continue;
		if (!first || (r->exit_t != T_NONE && (first->exit_t == T_NONE || r->exit_t < first->exit_t)))
			first = r;
	}
	if (!first) {
		v_decline(d, "no rank's process died of a signal or an exit code of its own (not one its "
			     "launcher sent)");
		return false;
	}
	int64_t others = others_first_failure(d, v, first->rank);
	if (first->exit_t != T_NONE && others != T_NONE && first->exit_t > others + SLACK_US) {
		v_decline(d, "the first death came after other ranks had failed: a consequence");
		return false;
	}
	/* a rank with no line of its own in the bundle (only its launcher's
	 * report): an exit reported after the others failed says nothing of
	 * who went first (an exit status of its own error, which is not here) */
	if (first->exit_t != T_NONE && others != T_NONE && first->exit_t > others &&
	    !has_own_lines(d, first->rank)) {
		v_decline(d, "the first death, of a rank with no line of its own, was reported after the "
			     "others failed: it says nothing of who went first");
		return false;
	}
	/* others that died with it: killed too, or with lines of their own
	 * that show no error (an exit status of a rank with only its
	 * launcher's report is most likely its own exception's, not here) */
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (external_exit(r) &&
		    (r == first || (r->exit_t != T_NONE && first->exit_t != T_NONE && r->exit_t - first->exit_t < DIED_TOGETHER_US &&
				    (killed_from_outside(r) || has_own_lines(d, r->rank)))))
			v_culprit(v, r->rank);
	}
	v->outcome = OUTCOME(crash);
	v->cause = CAUSE(rank_exited);
	v->first_failure_t = others != T_NONE && (first->exit_t == T_NONE || others < first->exit_t) ? others : first->exit_t;
	v->confidence = CONFIDENCE(high);
	struct buf who = {0};
	rank_desc(d, first->rank, &who);
	char t[32];
	fmt_time(first->exit_t, t, sizeof(t));
	buf_printf(&v->summary, "%s died: exit code %d%s%s%s", who.data, first->exit_code,
		   first->exit_signal[0] ? " (" : "", first->exit_signal, first->exit_signal[0] ? ")" : "");
	buf_printf(&v->summary, ", reported by its launcher at %s", t);
	if (first->last_step >= 0) {
		fmt_time(first->last_step_t, t, sizeof(t));
		buf_printf(&v->summary, "; its last step was %ld at %s", first->last_step, t);
	}
	/* the kernel's OOM killer, when the system messages caught it */
	int64_t oom = q_int(d->db, 0,
		"SELECT event_id FROM sysmsgs WHERE kind = 'oom_kill' AND rank = %d ORDER BY time_us LIMIT 1", first->rank);
	if (!oom)
		oom = q_int(d->db, 0,
			"SELECT s.event_id FROM sysmsgs s, ranks r WHERE s.kind = 'oom_kill' AND r.rank = %d"
			" AND s.code = CAST(r.pid AS TEXT) AND (s.host = r.host OR s.host IS NULL) ORDER BY s.time_us LIMIT 1",
			first->rank);
	if (oom) {
		buf_puts(&v->summary, ". The kernel's OOM killer killed it (host memory exhausted)");
		v_cite_event(v, oom, "the kernel killed it");
	} else {
		buf_puts(&v->summary, ". Nothing in its logs explains it (no error, no timeout before it died)");
		if (strcmp(first->exit_signal, "SIGKILL") == 0)
			buf_puts(&v->summary, ": it was killed from outside (OOM killer, scheduler, operator)");
	}
	buf_putc(&v->summary, '.');
	if (v->nculprits > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, " Ranks %s died at the same time", l.data);
		if (diag_culprits_whole_host(d, first->host))
			buf_printf(&v->summary, ": every rank of %s (the node, its launcher or its job step was killed)",
				   first->host);
		buf_putc(&v->summary, '.');
		buf_free(&l);
	}
	/* the peers' view: connections closed, remote errors */
	int64_t peer = q_int(d->db, 0,
		"SELECT event_id FROM events WHERE kind IN ('nccl_socket_closed','nccl_error_code','pg_async_exception',"
		" 'pg_failure_detected') AND rank IS NOT NULL AND rank <> %d ORDER BY time_us IS NULL, time_us, event_id"
		" LIMIT 1", first->rank);
	if (others != T_NONE) {
		fmt_time(others, t, sizeof(t));
		buf_printf(&v->summary, " Its peers lost it and failed from %s on.", t);
	}
	v_cite_event(v, first->exit_event, "the exit");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT e.event_id FROM events e WHERE e.kind = 'torchrun_failure_traceback'"
			      " AND field(e.fields, 'pid') = (SELECT pid FROM ranks WHERE rank = %d)"
			      " AND e.host = %Q ORDER BY e.event_id LIMIT 1",
			      first->rank, first->host),
		     "signal");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT max(event_id) FROM events WHERE kind = 'app_step' AND rank = %d", first->rank),
		     "last step");
	v_cite_event(v, peer, "a peer losing it");
	buf_free(&who);
	return true;
}

/* ---- a rank that left early, without an error ---- */

/* When each rank's process ended or began to: PyTorch's warning that
 * destroy_process_group() was not called before program exit, or NCCL
 * tearing down its communicator of the whole job (a subgroup destroyed on
 * purpose is not leaving); T_NONE where neither. when[i] and ev[i] are for
 * d->ranks[i]. A teardown without a time of its own (NCCL's lines in a
 * per-rank file, with no timed line around them) counts from the rank's last
 * timed line, and only for a rank that never failed or dumped: untimed[i]. */
static void left_at(struct diagnosis *d, int64_t *when, int64_t *ev, bool *untimed)
{
	for (size_t i = 0; i < d->nranks; i++) {
		when[i] = T_NONE;
		ev[i] = 0;
		untimed[i] = false;
	}
	char *sql = sqlite3_mprintf(
		"SELECT rank, CASE WHEN clock = 'inherited' THEN NULL ELSE time_us END, event_id FROM events"
		" WHERE kind IN ('pg_destroy_warning', 'nccl_comm_teardown')"
		" AND rank IS NOT NULL"
		" AND (kind = 'pg_destroy_warning' OR field(fields, 'nranks') = %d)", d->world);
	sqlite3_stmt *st = db_prepare(d->db, sql);
	sqlite3_free(sql);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct rank_facts *r = diag_rank(d, sqlite3_column_int(st, 0));
		if (!r)
			continue;
		size_t i = (size_t)(r - d->ranks);
		int64_t t = sqlite3_column_int64(st, 1), e = sqlite3_column_int64(st, 2);
		bool no_time = sqlite3_column_type(st, 1) == SQLITE_NULL;
		if (no_time) {
			if (r->first_error_t != T_NONE || r->first_timeout_t != T_NONE || r->has_dump || r->last_t == T_NONE)
				continue;
			t = r->last_t;
		}
		if (when[i] == T_NONE || t < when[i] || (t == when[i] && e < ev[i])) {
			when[i] = t;
			ev[i] = e;
			untimed[i] = no_time;
		}
	}
	sqlite3_finalize(st);
}

/* Whether the rank logged an error or a timeout of its own above line ev in
 * the same file: its clocks may say otherwise (a C++ warning stamped before
 * the exception printed above it), the order of its own lines does not. */
static bool error_before(struct diagnosis *d, int rank, int64_t ev)
{
	return ev && q_int(d->db, 0,
			   "SELECT EXISTS (SELECT 1 FROM events l JOIN events e ON e.source_id = l.source_id"
			   " AND e.line_no < l.line_no WHERE l.event_id = %lld AND e.rank = %d"
			   " AND e.class IN ('error', 'timeout'))",
			   (long long)ev, rank);
}

bool diag_rank_left(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE || d->completed) {
		v_decline(d, "no failure was logged, or the job said it ended");
		return false;
	}
	/* peers were left waiting in a collective (or in PyTorch's check of
	 * one, which runs before NCCL is called) */
	if (q_int(d->db, 0, "SELECT count(*) FROM collectives WHERE state IN ('timed_out', 'failed', 'scheduled', 'started')"
			" AND " COLL_NOT_COMPLETED("")) == 0 &&
	    q_int(d->db, 0, "SELECT count(*) FROM pg_status WHERE last_enqueued > last_completed") == 0 &&
	    !q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind IN ('pg_check_absent', 'pg_check_waited'))")) {
		v_decline(d, "every collective completed, and no check waited: no rank left its peers waiting");
		return false;
	}
	struct rank_facts *first = NULL;
	int64_t first_t = T_NONE, first_ev = 0;
	int64_t *when = xcalloc(d->nranks ? d->nranks : 1, sizeof(*when));
	int64_t *evs = xcalloc(d->nranks ? d->nranks : 1, sizeof(*evs));
	bool *untimed = xcalloc(d->nranks ? d->nranks : 1, sizeof(*untimed));
	left_at(d, when, evs, untimed);
	bool first_untimed = false;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		int64_t ev = evs[i];
		/* before anyone failed, and not after an error or a timeout of its own */
		if (when[i] == T_NONE || when[i] >= d->t0 || (r->first_error_t != T_NONE && r->first_error_t <= when[i]) ||
		    (r->first_timeout_t != T_NONE && r->first_timeout_t <= when[i]) || error_before(d, r->rank, ev)) {
			when[i] = T_NONE;
			continue;
		}
		if (!first || when[i] < first_t) {
			first = r;
			first_t = when[i];
			first_ev = ev;
			first_untimed = untimed[i];
		}
	}
	free(evs);
	free(untimed);
	if (!first) {
		free(when);
		v_decline(d, "no rank's process ended without an error before the first failure");
		return false;
	}
	for (size_t i = 0; i < d->nranks; i++)
		if (when[i] != T_NONE && when[i] - first_t < DIED_TOGETHER_US)
			v_culprit(v, d->ranks[i].rank);
	free(when);
	v->outcome = OUTCOME(crash);
	v->cause = CAUSE(rank_exited);
	v->first_failure_t = first_t;
	v->confidence = first->exited ? CONFIDENCE(high) : CONFIDENCE(medium);
	struct buf who = {0};
	rank_desc(d, first->rank, &who);
	char t[32], t0[32];
	fmt_time(first_t, t, sizeof(t));
	fmt_time(d->t0, t0, sizeof(t0));
	bool warned = q_int(d->db, 0, "SELECT count(*) FROM events WHERE event_id = %lld AND kind = 'pg_destroy_warning'",
			    (long long)first_ev) > 0;
	buf_printf(&v->summary, "%s left the job early, without an error: %s %s %s, before any rank failed (%s)",
		   who.data, first_untimed ? "after its last timed line at" : "at", t,
		   first_untimed ? "it tore its NCCL communicators down (those lines carry no time)"
		   : warned ? "its process exited (PyTorch warned that destroy_process_group() was not called before"
			       " program exit)"
			     : "it tore its NCCL communicators down",
		   t0);
	if (first->exited)
		buf_printf(&v->summary, "; it exited with code %d", first->exit_code);
	else if (q_int(d->db, 0, "SELECT count(*) FROM sources WHERE kind = 'console'") > 0)
		buf_puts(&v->summary, "; its launcher reported no failure for it, so it most likely ended normally"
				      " (status 0: a return or sys.exit that the other ranks did not make)");
	else
		buf_puts(&v->summary, "; the launcher's output is not in the logs, but with no error of its own it most"
				      " likely ended normally (a return or sys.exit that the other ranks did not make)");
	if (first->last_step >= 0)
		buf_printf(&v->summary, ", after step %ld", first->last_step);
	buf_printf(&v->summary, ". Its peers went on, waited for it in their next collective and failed from %s on.", t0);
	if (v->nculprits > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&v->summary, " Ranks %s left at the same time.", l.data);
		buf_free(&l);
	}
	v_cite_event(v, first_ev, "the rank leaving");
	v_cite_event(v, q_int(d->db, 0, "SELECT max(event_id) FROM events WHERE kind = 'app_step' AND rank = %d",
			      first->rank),
		     "last step");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT event_id FROM events WHERE class IN ('timeout', 'error') AND rank IS NOT NULL"
			      " AND rank <> %d AND time_us IS NOT NULL ORDER BY time_us, event_id LIMIT 1", first->rank),
		     "a peer failing");
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
			stuck_failed |= r && killed_from_outside(r);
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

/* ---- the same error on every rank ---- */

bool diag_common_error(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* every rank with logs, none timed out: the NCCL error text they all logged */
	size_t with_logs = 0;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (!r->events)
			continue;
		with_logs++;
		if (r->first_timeout_t != T_NONE || r->first_error_t == T_NONE)
			return false;
	}
	if (with_logs < 2)
		return false;
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT field(fields, 'msg') AS m, count(DISTINCT rank), min(event_id) FROM events"
		" WHERE kind IN ('nccl_last_error_text', 'nccl_warn') AND rank IS NOT NULL AND field(fields, 'msg') <> ''"
		" GROUP BY m ORDER BY count(DISTINCT rank) DESC, min(event_id) LIMIT 1");
	bool all = false;
	if (sqlite3_step(st) == SQLITE_ROW && (size_t)sqlite3_column_int64(st, 1) == with_logs) {
		all = true;
		v->outcome = OUTCOME(crash);
		const char *msg = (const char *)sqlite3_column_text(st, 0);
		if (strncmp(msg, "Error : ", 8) == 0) /* NCCL's "Error : <what>" */
			msg += 8;
		buf_clear(&v->summary);
		buf_printf(&v->summary,
			   "Every rank (%zu) failed with the same NCCL error, none before the others: \"%s\". A failure"
			   " common to all ranks comes from what they share (a setting such as NCCL_ALGO or NCCL_PROTO,"
			   " the code, the NCCL build), not from one rank.",
			   with_logs, msg);
		v_cite_event(v, sqlite3_column_int64(st, 2), "the error every rank logged");
	}
	sqlite3_finalize(st);
	return all;
}

