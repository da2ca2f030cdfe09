/* diagnosis_network.c: a network error NCCL itself reported, when no
 * process death explains it and no watchdog timed out (the hang rules judge
 * those, with the error as the first failure): an InfiniBand/RoCE work
 * completion with an error ("NET/IB : Got completion from peer A with error
 * 12 ...", "with status=IBV_WC_RETRY_EXC_ERR(12)"), an asynchronous IB event,
 * a failed verbs call. The rank that reported it first is named, with its
 * host and the peer's address where the line gives it: the fault lies on
 * the path between them (a link, a switch, a NIC), which the rank's line is
 * the first to show. The job then hung (its peers waited) or crashed (a
 * process ended after it). Statuses are explained from
 * data/ibv-wc-status.tsv. */
#include "diagnosis.h"
#include "verdict_vocab.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "case_db.h"
#include "knowledge.h"

#define NET_ERROR_KINDS "('nccl_ib_completion_error', 'nccl_ib_async_event', 'nccl_ibv_failed', 'ibv_cqe_error')"
/* ... and a net plugin's own WARN about a transfer (aws-ofi-nccl: "NET/OFI Unexpected status") */
#define NET_WARN_SQL                                                                                  \
	"(kind = 'nccl_warn' AND field(fields, 'msg') LIKE 'NET/OFI%%' AND (field(fields, 'msg') LIKE '%%Unexpected%%'" \
	" OR field(fields, 'msg') LIKE '%%completion%%'))"

/* The status number of a completion error: status_num, else the digits of status. */
static int wc_status(struct diagnosis *d, int64_t ev)
{
	return (int)q_int(d->db, -1,
		"SELECT coalesce(CAST(field(fields, 'status_num') AS INTEGER),"
		" CASE WHEN field(fields, 'status') GLOB '[0-9]*' THEN CAST(field(fields, 'status') AS INTEGER) END,"
		" CAST(rtrim(substr(field(fields, 'status'), instr(field(fields, 'status'), '(') + 1), ')') AS INTEGER))"
		" FROM events WHERE event_id = %lld", (long long)ev);
}

bool diag_network_error(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->completed) {
		v_decline(d, "the job said it ended well: a network error it logged did not stop it");
		return false;
	}
	if (q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind = 'pg_watchdog_timeout')")) {
		v_decline(d, "a collective timed out: the hang rules judge, with the network error as a failure");
		return false;
	}
	/* the first report: by time, else by its place in its file */
	/* a rank's report first (by time, else by its place in its file), else a line that names none */
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT event_id, coalesce(rank, -1), kind, coalesce(field(fields, 'peer'), ''), coalesce(field(fields, 'hca'), ''),"
		" coalesce(host, ''), coalesce(field(fields, 'event'), field(fields, 'msg'), '')"
		" FROM events WHERE kind IN " NET_ERROR_KINDS " OR " NET_WARN_SQL
		" ORDER BY rank IS NULL, time_us IS NULL, time_us, source_id, line_no LIMIT 1");
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		v_decline(d, "no rank reported an InfiniBand/RoCE error of NCCL's (a completion with an error, an async event)");
		return false;
	}
	int64_t ev = sqlite3_column_int64(st, 0);
	int rank = sqlite3_column_int(st, 1);
	char kind[48], peer[128], hca[64], host[128], text[200];
	db_column_text_copy(st, 2, kind, sizeof(kind));
	db_column_text_copy(st, 3, peer, sizeof(peer));
	db_column_text_copy(st, 4, hca, sizeof(hca));
	db_column_text_copy(st, 5, host, sizeof(host));
	db_column_text_copy(st, 6, text, sizeof(text));
	sqlite3_finalize(st);
	/* a process that died before it explains it: the rules of deaths decided first, unless it came later */
	struct rank_facts *r = rank >= 0 ? diag_rank(d, rank) : NULL;
	for (size_t i = 0; i < d->nranks; i++) {
		const struct rank_facts *o = &d->ranks[i];
		if (o->exited && o->exit_code != 0 && o->exit_t != T_NONE && !o->sigterm_by_launcher &&
		    (!r || r->first_error_t == T_NONE || o->exit_t < r->first_error_t)) {
			v_decline(d, "rank %d's process ended before the network error: its death explains it", o->rank);
			return false;
		}
	}
	long reporters = (long)q_int(d->db, 0,
		"SELECT count(DISTINCT rank) FROM events WHERE (kind IN " NET_ERROR_KINDS " OR " NET_WARN_SQL ") AND rank IS NOT NULL");
	/* NCCL's communicator is broken after such an error: PyTorch takes the
	 * process down (crash), unless the job visibly went on waiting until
	 * it was stopped (NCCL without async error handling: a hang) */
	bool waited = q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind IN ('slurm_cancelled', 'torchrun_death_signal'))") &&
		      !q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind IN ('pg_taking_down', 'pg_terminating',"
				       " 'pg_async_exception', 'pg_watchdog_terminated', 'cxx_terminate', 'torchrun_worker_failed'))");
	v->outcome = waited ? OUTCOME(hang) : OUTCOME(crash);
	v->cause = CAUSE(network);
	v->confidence = rank >= 0 ? CONFIDENCE(medium) : CONFIDENCE(low);
	if (rank >= 0)
		v_culprit(v, rank);
	v->first_failure_t = r ? r->first_error_t : T_NONE;
	char meaning[256] = "", name[64] = "";
	int status = strcmp(kind, "nccl_ib_completion_error") == 0 ? wc_status(d, ev) : -1;
	if (status >= 0) {
		if (!q_int(d->db, 0, "SELECT count(*) FROM sqlite_temp_master WHERE name = 'kb_ibv_wc'")) {
			static const char *const cols[] = {"code", "name", "meaning", "source"};
			knowledge_load(d->db, "ibv-wc-status.tsv", "kb_ibv_wc", cols, 4);
		}
		q_text(d->db, name, sizeof(name), "SELECT name FROM temp.kb_ibv_wc WHERE code = '%d'", status);
		q_text(d->db, meaning, sizeof(meaning), "SELECT meaning FROM temp.kb_ibv_wc WHERE code = '%d'", status);
	}
	struct buf who = {0};
	if (rank >= 0)
		rank_desc(d, rank, &who);
	else
		buf_printf(&who, "a process%s%s (the lines name no rank)", host[0] ? " on " : "", host);
	if (status >= 0)
		buf_printf(&v->summary, "%c%s hit a network error: NCCL's InfiniBand transport got a work completion with"
			   " error %d%s%s%s%s%s", toupper((unsigned char)who.data[0]), who.data + 1, status,
			   name[0] ? " (" : "", name, name[0] ? ")" : "", meaning[0] ? ": " : "", meaning);
	else
		buf_printf(&v->summary, "%c%s hit a network error: %s%s%s%s", toupper((unsigned char)who.data[0]), who.data + 1,
			   strcmp(kind, "nccl_ib_async_event") == 0 ? "NCCL reported an asynchronous InfiniBand event"
			   : strcmp(kind, "ibv_cqe_error") == 0    ? "the InfiniBand driver reported a failed work completion"
			   : strcmp(kind, "nccl_warn") == 0        ? "NCCL's network plugin reported an error"
								   : "NCCL reported a failed verbs call",
			   text[0] ? " (\"" : "", text, text[0] ? "\")" : "");
	if (peer[0])
		buf_printf(&v->summary, ", talking to %s", peer);
	if (hca[0])
		buf_printf(&v->summary, " through %s", hca);
	buf_puts(&v->summary, ".");
	if (reporters > 1)
		buf_printf(&v->summary, " %ld ranks reported such errors; this one was the first.", reporters);
	buf_puts(&v->summary, waited ? " No process died and no watchdog timed out: its peers waited in the collective it"
				       " never finished, until the job was stopped."
				     : " NCCL's communicator cannot go on after it: the job ended with it.");
	v_cite_event(v, ev, "the network error");
	v_missing(v, "the state of the link at that time: the hosts' kernel logs (mlx5, link down) and the switch's counters");
	buf_free(&who);
	return true;
}
