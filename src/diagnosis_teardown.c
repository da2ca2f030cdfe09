/* diagnosis_teardown.c: a launcher that took its workers down after one
 * of them failed, when the lines name no rank for it: torchrun's "failed
 * (exitcode: -9) local_rank: 0 (pid: N)" then its SIGTERMs to the others,
 * the DeepSpeed launcher's "Killing subprocess N" for each worker (and
 * "... exits with return code = N"), torch.distributed.launch's kills. A
 * worker's process died, so the job crashed; which rank it was the lines do
 * not say (a local rank is not a global one without the node's place), so
 * none is named; the rules of deaths before name it where they can. */
#include "diagnosis.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"

bool diag_launcher_teardown(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->completed) {
		v_decline(d, "the job said it ended well");
		return false;
	}
	if (diag_declines_named_ranks(d))
		return false;
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT event_id, kind, coalesce(field(fields, 'exitcode'), ''), coalesce(field(fields, 'local_rank'), ''),"
		" coalesce(field(fields, 'pid'), '') FROM events WHERE (kind = 'torchrun_worker_failed'"
		"   AND CAST(field(fields, 'exitcode') AS INTEGER) <> 0) OR kind IN ('launcher_worker_failed', 'nccl_tests_failure')"
		" ORDER BY source_id, line_no LIMIT 1");
	int64_t ev = 0;
	char kind[48] = "", code[16] = "", local[16] = "", pid[24] = "";
	if (sqlite3_step(st) == SQLITE_ROW) {
		ev = sqlite3_column_int64(st, 0);
		db_column_text_copy(st, 1, kind, sizeof(kind));
		db_column_text_copy(st, 2, code, sizeof(code));
		db_column_text_copy(st, 3, local, sizeof(local));
		db_column_text_copy(st, 4, pid, sizeof(pid));
	}
	sqlite3_finalize(st);
	long kills = (long)q_int(d->db, 0, "SELECT count(*) FROM events WHERE kind = 'launcher_killing'");
	long sigterms = (long)q_int(d->db, 0, "SELECT count(*) FROM events WHERE kind = 'torchrun_sending_signal'");
	if (!ev && !kills) {
		v_decline(d, "no launcher reported a worker's failure or killed its workers");
		return false;
	}
	v->outcome = OUTCOME(crash);
	v->cause = ev ? CAUSE(rank_exited) : CAUSE(unknown);
	v->confidence = CONFIDENCE(low);
	v->first_failure_t = T_NONE;
	if (ev && strcmp(kind, "torchrun_worker_failed") == 0) {
		long c = strtol(code, NULL, 10);
		const char *sig = c == -9 ? " (SIGKILL: the kernel's OOM killer, the scheduler or an operator)"
				 : c == -6 ? " (SIGABRT: an abort, PyTorch's watchdog's after a timeout or an NCCL error)"
				 : c == -11 ? " (SIGSEGV: a crash)"
				 : c == -15 ? " (SIGTERM)"
				 : c > 0 ? " (its own exit status: most often an uncaught exception)" : "";
		buf_printf(&v->summary, "A worker's process died: torchrun saw local rank %s (pid %s) end with exit code %s%s",
			   local, pid, code, sig);
		if (sigterms)
			buf_printf(&v->summary, ", and sent the other %ld worker%s SIGTERM", sigterms, sigterms == 1 ? "" : "s");
		buf_puts(&v->summary, ".");
	} else if (ev && strcmp(kind, "nccl_tests_failure") == 0) {
		char msg[200] = "", host[128] = "";
		q_text(d->db, msg, sizeof(msg), "SELECT field(fields, 'msg') FROM events WHERE event_id = %lld", (long long)ev);
		q_text(d->db, host, sizeof(host), "SELECT field(fields, 'host') FROM events WHERE event_id = %lld", (long long)ev);
		buf_printf(&v->summary, "The nccl-tests run failed on %s after it began its transfers: \"%s\"", host, msg);
		char cuda[200] = "";
		q_text(d->db, cuda, sizeof(cuda), "SELECT field(fields, 'msg') FROM events WHERE kind = 'nccl_cuda_failure'"
						 " ORDER BY source_id, line_no LIMIT 1");
		if (cuda[0])
			buf_printf(&v->summary, ", after NCCL's \"Cuda failure '%s'\"", cuda);
		buf_puts(&v->summary, ".");
		v->cause = CAUSE(unknown);
	} else if (ev) {
		buf_printf(&v->summary, "A worker's process failed: its launcher saw it exit with return code %s", code);
		if (kills)
			buf_printf(&v->summary, " and killed the %ld worker%s", kills, kills == 1 ? "" : "s");
		buf_puts(&v->summary, ".");
	} else {
		buf_printf(&v->summary, "The launcher killed its %ld worker%s (\"Killing subprocess\"): it does so once one of"
					" them failed, or when it was told to stop.", kills, kills == 1 ? "" : "s");
	}
	buf_puts(&v->summary, " Which global rank failed first the lines do not say: none is named.");
	v_cite_event(v, ev ? ev : q_int(d->db, 0, "SELECT min(event_id) FROM events WHERE kind = 'launcher_killing'"),
		     ev ? "the launcher's report of the failed worker" : "the launcher killing its workers");
	v_missing(v, "the workers' own output (with their ranks), and the launcher's failure report (torchrun's"
		     " ChildFailedError table names the global rank)");
	return true;
}
