/* diagnosis_exception.c: the exception rule: a rank's own exception
 * (Python, a sticky CUDA error, an application's ERROR line before a failed
 * exit), raised before the others failed. */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "case_db.h"
#include "case_schema.h"

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

/* Ranks that printed into one console without a prefix (torchrun without
 * --tee or --role, a docker exec): their exceptions have no rank. When
 * every rank of the job then ended with an exit status (Python's 1 after an
 * uncaught exception, not a signal) at the same moment, and the bundle
 * holds such exceptions and no other failure before, every rank raised: an
 * exception of all ranks, none to single out. */
static bool every_rank_raised(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->nranks < 2)
		return false;
	int64_t first_exit = T_NONE, last_exit = T_NONE;
	for (size_t i = 0; i < d->nranks; i++) {
		const struct rank_facts *r = &d->ranks[i];
		if (!r->exited || r->exit_code <= 0 || r->exit_t == T_NONE || r->first_timeout_t != T_NONE ||
		    (r->first_error_t != T_NONE && r->first_error_t < r->exit_t - DIED_TOGETHER_US))
			return false;
		first_exit = first_exit == T_NONE || r->exit_t < first_exit ? r->exit_t : first_exit;
		last_exit = last_exit == T_NONE || r->exit_t > last_exit ? r->exit_t : last_exit;
	}
	if (last_exit - first_exit > DIED_TOGETHER_US || (int)d->nranks < d->world)
		return false;
	/* the exception the unattributed lines show, the commonest first */
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT coalesce(field(fields, 'type'), ''), coalesce(field(fields, 'msg'), ''), count(*), min(event_id)"
		" FROM events WHERE kind = 'py_exception' AND rank IS NULL"
		" GROUP BY 1, 2 ORDER BY count(*) DESC, min(event_id)");
	bool found = false;
	char type[128] = "", msg[256] = "";
	int64_t n = 0, ev = 0;
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		const char *ty = (const char *)sqlite3_column_text(st, 0), *ms = (const char *)sqlite3_column_text(st, 1);
		if (consequence_exception(ty, ms) || !*ty)
			continue;
		snprintf(type, sizeof(type), "%s", ty);
		snprintf(msg, sizeof(msg), "%s", ms);
		n = sqlite3_column_int64(st, 2);
		ev = sqlite3_column_int64(st, 3);
		found = true;
	}
	sqlite3_finalize(st);
	if (!found)
		return false;
	for (size_t i = 0; i < d->nranks; i++)
		v_culprit(v, d->ranks[i].rank);
	v->outcome = OUTCOME(crash);
	v->cause = CAUSE(app_exception);
	v->confidence = CONFIDENCE(medium);
	v->first_failure_t = first_exit;
	struct buf l = {0};
	fmt_rank_list(v->culprits, v->nculprits, &l);
	char t[32];
	fmt_time(first_exit, t, sizeof(t));
	buf_printf(&v->summary,
		   "Every rank (%s) raised %s: %s (%lld time%s in the output, which the ranks shared without a prefix"
		   " that names them), and every rank ended with an exit status of its own at %s. The application"
		   " failed alike on all of them, before any collective timed out: none is to single out.",
		   l.data, type, msg, (long long)n, n == 1 ? "" : "s", t);
	v_cite_event(v, ev, "the exception");
	v_cite_event(v, d->ranks[0].exit_event, "a rank's exit status");
	buf_free(&l);
	return true;
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
		if (every_rank_raised(d))
			return true;
		v_decline(d, "no rank raised an exception of its own (one that is not a consequence of a "
			     "peer's failure)");
		return false;
	}
	int64_t others = diag_others_first_failure(d, v, first_rank);
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
