/* diagnosis_init_text.c: an NCCL set-up failure in lines that name no
 * rank: what a paste into a ticket usually holds ("NCCL error in: ...,
 * unhandled system error", NCCL's own WARN, its "bootstrap.cc:270 -> 2"
 * trace, "Bootstrap : no socket interface found", a store or rendezvous
 * error), with no sign that any collective ran (no training step, no
 * completed collective, no transfer's completion error) and no watchdog
 * timeout. The job failed setting up its communicators; which rank first
 * the lines cannot say, so none is named (the ranks that logged the error
 * are, when a wrapper or the message names them: init_failure, the rule
 * before, decides those). NCCL's result codes are explained from
 * data/nccl-results.tsv. */
#include "diagnosis.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <string.h>

#include "case_db.h"
#include "knowledge.h"

/* An error of the set-up, of lines of any rank or none; the most telling
 * first (NCCL's own words, then PyTorch's copy of them, then exceptions). */
#define INIT_ERROR_SQL                                                                                        \
	"SELECT event_id, CASE kind"                                                                          \
	"  WHEN 'nccl_no_socket_if' THEN field(fields, 'what') || ' : no socket interface found'"             \
	"  WHEN 'nccl_net_no_interface' THEN 'NET/' || field(fields, 'plugin') || ' : no interface found'"    \
	"  WHEN 'nccl_error_exception' THEN 'NCCL error: ' || field(fields, 'what')"                         \
	"  WHEN 'nccl_error_in' THEN 'NCCL error: ' || field(fields, 'what')"                                \
	"  WHEN 'nccl_error_code' THEN field(fields, 'code') || ': ' || field(fields, 'msg')"                 \
	"  WHEN 'py_exception' THEN field(fields, 'type') || ': ' || coalesce(field(fields, 'msg'), '')"      \
	"  WHEN 'c10d_connect_timeout' THEN 'the store at ' || field(fields, 'host') || ':' || field(fields, 'port')"  \
	"    || ' could not be reached in ' || field(fields, 'timeout_s') || ' s'"                            \
	"  ELSE coalesce(field(fields, 'msg'), kind) END,"                                                    \
	" CASE kind WHEN 'nccl_no_socket_if' THEN 0 WHEN 'nccl_net_no_interface' THEN 0 WHEN 'nccl_warn' THEN 1"  \
	"  WHEN 'nccl_cuda_failure' THEN 1 WHEN 'nccl_error_exception' THEN 2 WHEN 'nccl_error_in' THEN 2"         \
	"  WHEN 'nccl_error_code' THEN 4 ELSE 3 END AS prio"                                                  \
	" FROM events WHERE (kind IN ('nccl_no_socket_if', 'nccl_net_no_interface', 'nccl_warn', 'nccl_cuda_failure',"  \
	"   'nccl_error_exception', 'nccl_error_in', 'nccl_error_code')"                                        \
	"  OR kind IN ('nccl_tests_failure', 'c10d_connect_timeout')"                                         \
	"  OR (kind IN ('py_exception', 'c10_what') AND (field(fields, 'msg') LIKE '%NCCL%'"                  \
	"   OR field(fields, 'msg') LIKE 'Operation timed out%' OR field(fields, 'msg') LIKE '%socket has timed out%'"                  \
	"   OR field(fields, 'msg') LIKE '%ncclUniqueId%' OR field(fields, 'msg') LIKE '%Duplicate GPU%'"     \
	"   OR field(fields, 'msg') LIKE '%already checked in%' OR field(fields, 'type') LIKE '%Rendezvous%'" \
	"   OR field(fields, 'msg') LIKE '%rendezvous%' OR field(fields, 'msg') LIKE '%TCPStore%')))"          \
	"  AND coalesce(field(fields, 'msg'), '') NOT LIKE '%remote process exited%'"                         \
	"  AND coalesce(field(fields, 'what'), '') NOT LIKE 'remote process exited%'"                         \
	"  AND coalesce(field(fields, 'msg'), '') NOT LIKE 'Failed to open libibverbs%'"                      \
	" ORDER BY prio, source_id, line_no LIMIT 1"

/* NCCL's first "file.cc:N -> code" of the set-up, into where (its file and
 * line) and the code's name and meaning; 0 when there is none. */
static int first_trace(struct diagnosis *d, char *where, size_t wn, char *name, size_t nn, char *meaning, size_t mn)
{
	int code = (int)q_int(d->db, 0,
		"SELECT CAST(field(fields, 'code') AS INTEGER) FROM events WHERE kind = 'nccl_error_return'"
		" ORDER BY source_id, line_no LIMIT 1");
	if (!code)
		return 0;
	q_text(d->db, where, wn,
	       "SELECT field(fields, 'file') || ':' || field(fields, 'line') FROM events WHERE kind = 'nccl_error_return'"
	       " ORDER BY source_id, line_no LIMIT 1");
	if (!q_int(d->db, 0, "SELECT count(*) FROM sqlite_temp_master WHERE name = 'kb_nccl_results'")) {
		static const char *const cols[] = {"code", "name", "meaning", "source"};
		knowledge_load(d->db, "nccl-results.tsv", "kb_nccl_results", cols, 4);
	}
	q_text(d->db, name, nn, "SELECT name FROM temp.kb_nccl_results WHERE code = '%d'", code);
	q_text(d->db, meaning, mn, "SELECT meaning FROM temp.kb_nccl_results WHERE code = '%d'", code);
	return code;
}

bool diag_init_error_text(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* signs that the communicators were up */
	if (q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM collectives WHERE state = 'completed')"
			    " OR EXISTS (SELECT 1 FROM events WHERE kind IN ('nccl_ib_completion_error', 'pg_watchdog_timeout',"
			    "   'pg_watchdog_exception', 'nccl_tests_row', 'app_step'))")) {
		v_decline(d, "a collective ran (one completed, a transfer's completion failed, a watchdog timed out, a step"
			     " or a benchmark row was logged): not the set-up");
		return false;
	}
	/* NCCL's trace from its data path (the proxy thread, a transport's
	 * progress, an enqueue): a collective was running */
	if (q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind = 'nccl_error_return' AND"
			    " (field(fields, 'file') LIKE 'proxy%%' OR field(fields, 'file') LIKE 'transport/net%%'"
			    " OR field(fields, 'file') LIKE 'enqueue%%' OR field(fields, 'file') LIKE 'include/net.h'"
			    " OR coalesce(field(fields, 'thread'), '') LIKE '%%Progress%%' OR coalesce(field(fields, 'thread'), '') LIKE '%%Proxy%%'))")) {
		v_decline(d, "NCCL's trace comes from its data path (the proxy, a transport's progress): a collective was running");
		return false;
	}
	if (q_int(d->db, 0, "%s", "SELECT EXISTS (SELECT 1 FROM events WHERE " DIAG_CUDA_STICKY ")")) {
		v_decline(d, "a sticky CUDA error of the process's own work: the application's, not the set-up's");
		return false;
	}
	if (diag_declines_named_ranks(d))
		return false;
	sqlite3_stmt *st = db_prepare(d->db, INIT_ERROR_SQL);
	int64_t ev = 0;
	char what[320] = "";
	if (sqlite3_step(st) == SQLITE_ROW) {
		ev = sqlite3_column_int64(st, 0);
		db_column_text_copy(st, 1, what, sizeof(what));
	}
	sqlite3_finalize(st);
	/* two processes that took one rank (Lightning's "GLOBAL_RANK: r" twice) */
	if (!ev) {
		int64_t dup = q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'lightning_dist_init'"
					       " AND field(fields, 'rank') IN (SELECT field(fields, 'rank') FROM events"
					       "   WHERE kind = 'lightning_dist_init' GROUP BY 1 HAVING count(*) > 1)");
		if (dup) {
			ev = dup;
			q_text(d->db, what, sizeof(what),
			       "SELECT 'GLOBAL_RANK ' || field(fields, 'rank') || ' of ' || field(fields, 'world')"
			       " || ' was taken by two processes (each rank of the world must be one process: the launcher"
			       " and the scheduler both started the workers, or the task count is wrong)' FROM events WHERE"
			       " event_id = %lld", (long long)dup);
		}
	}
	char where[128] = "", name[48] = "", meaning[160] = "";
	int code = first_trace(d, where, sizeof(where), name, sizeof(name), meaning, sizeof(meaning));
	if (!ev && !code) {
		v_decline(d, "no error of NCCL's set-up (its WARN, PyTorch's \"NCCL error\", a trace of NCCL's, a missing"
			     " interface, a store's or rendezvous' error)");
		return false;
	}
	v->outcome = OUTCOME(init_failure);
	v->cause = CAUSE(init_failure);
	v->confidence = CONFIDENCE(low);
	v->first_failure_t = T_NONE;
	buf_puts(&v->summary, "The job failed setting up its NCCL communicators, before any collective ran");
	if (what[0])
		buf_printf(&v->summary, ": \"%s\"", what);
	if (code)
		buf_printf(&v->summary, "%s NCCL's own trace begins at %s with %s%s%s", what[0] ? "; " : ": ", where,
			   name[0] ? name : "error", meaning[0] ? " (" : "", meaning);
	if (code && meaning[0])
		buf_putc(&v->summary, ')');
	buf_puts(&v->summary, ". The lines name no rank, so none is singled out.");
	/* the collective the set-up ran in, by the traceback's torch.distributed frame */
	char op[32] = "";
	q_text(d->db, op, sizeof(op),
	       "SELECT upper(replace(field(fields, 'func'), '_', '')) FROM events WHERE kind = 'py_frame'"
	       " AND (field(fields, 'file') LIKE '%%distributed_c10d.py' OR field(fields, 'file') LIKE '%%torch/distributed/__init__.py')"
	       " AND field(fields, 'func') IN ('all_reduce',"
	       " 'broadcast', 'barrier', 'all_gather', 'all_gather_into_tensor', 'reduce_scatter', 'reduce_scatter_tensor',"
	       " 'all_to_all', 'all_to_all_single', 'reduce', 'gather', 'scatter', 'send', 'recv')"
	       " ORDER BY source_id, line_no DESC LIMIT 1");
	if (op[0]) {
		snprintf(v->op, sizeof(v->op), "%s", op);
		buf_printf(&v->summary, " It failed in the job's first %s (the traceback's call).", op);
	}
	if (ev)
		v_cite_event(v, ev, "the set-up's error");
	if (code)
		v_cite_event(v, q_int(d->db, 0, "SELECT event_id FROM events WHERE kind = 'nccl_error_return'"
						" ORDER BY source_id, line_no LIMIT 1"),
			     "where NCCL's trace of it begins");
	v_missing(v, "which rank failed first: each rank's own output (with its [rankN]: prefix or task label), and"
		     " NCCL_DEBUG=INFO for its WARN line");
	return true;
}
