/* diagnosis_signal.c: processes whose crash handler said they died of a
 * signal (UCX's "Caught signal 11 (Segmentation fault: ...)", Open MPI's
 * "Signal: Segmentation fault (11)"), printed by the process itself, with
 * its host and pid; the ranks come from the pids the launcher or NCCL tied
 * to them (procs).
 *
 * When every process of the job crashed alike, none is to single out: the
 * verdict names them all. A SIGABRT of a rank that had timed out is
 * PyTorch's watchdog taking the process down (a consequence), and so is a
 * crash of a rank after its own collective timeout: the hang rules judge. */
#include "diagnosis.h"
#include "diagnosis_limits.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"

/* Signals a crash handler reports for a process's own fault. */
#define FAULT_SIGNALS "(4, 6, 7, 8, 11)"

struct crashed {
	int rank;       /* -1: the pid is not tied to a rank */
	int signal;
	int64_t event;
	char where[160]; /* host:pid */
};

bool diag_crash_signal(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* one row a process: its first handler line, and its rank where known
	 * (the host as the handler prints it may be the short name) */
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT h, pid, sig, name, detail, ev,"
		" (SELECT min(p.rank) FROM procs p WHERE p.pid = CAST(c.pid AS INTEGER) AND p.rank IS NOT NULL"
		"   AND (p.host = c.h OR p.host LIKE c.h || '.%%' OR c.h LIKE p.host || '.%%'))"
		" FROM (SELECT field(fields, 'host') AS h, field(fields, 'pid') AS pid, CAST(field(fields, 'signal') AS INTEGER) AS sig,"
		"   coalesce(field(fields, 'signame'), '') AS name, coalesce(field(fields, 'detail'), '') AS detail,"
		"   min(event_id) AS ev FROM events WHERE kind = 'crash_signal' AND CAST(field(fields, 'signal') AS INTEGER) IN " FAULT_SIGNALS
		"   GROUP BY 1, 2) c ORDER BY ev");
	struct crashed *c = NULL;
	size_t n = 0, cap = 0;
	char name[64] = "", detail[160] = "";
	int signal = 0;
	bool alike = true;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			c = xrealloc(c, cap * sizeof(*c));
		}
		struct crashed *x = &c[n++];
		x->signal = sqlite3_column_int(st, 2);
		x->event = sqlite3_column_int64(st, 5);
		x->rank = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 6);
		snprintf(x->where, sizeof(x->where), "%s:%s", (const char *)sqlite3_column_text(st, 0),
			 (const char *)sqlite3_column_text(st, 1));
		if (n == 1) {
			signal = x->signal;
			db_column_text_copy(st, 3, name, sizeof(name));
			db_column_text_copy(st, 4, detail, sizeof(detail));
		} else if (x->signal != signal) {
			alike = false;
		}
	}
	sqlite3_finalize(st);
	if (!n) {
		v_decline(d, "no crash handler (UCX's \"Caught signal\", Open MPI's \"Signal:\") said a process died of a fault");
		free(c);
		return false;
	}
	/* a crash after the rank's own timeout, or PyTorch's abort, is the watchdog's doing */
	size_t after_timeout = 0, mapped = 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i].rank < 0)
			continue;
		mapped++;
		struct rank_facts *r = diag_rank(d, c[i].rank);
		if (r && (r->first_timeout_t != T_NONE || (c[i].signal == 6 && r->watchdog_abort)))
			after_timeout++;
	}
	if (after_timeout && after_timeout == mapped) {
		v_decline(d, "the processes that crashed had timed out in a collective first: the watchdog's teardown");
		free(c);
		return false;
	}
	bool every = d->world >= 2 && (int)n >= d->world && alike;
	v->outcome = OUTCOME(crash);
	v->cause = CAUSE(rank_exited);
	struct buf who = {0};
	if (every) {
		for (int r = 0; r < d->world; r++)
			v_culprit(v, r);
		fmt_rank_list(v->culprits, v->nculprits, &who);
		v->confidence = CONFIDENCE(medium);
		buf_printf(&v->summary,
			   "Every process of the job (%zu: ranks %s) crashed: each one's crash handler caught signal %d (%s%s%s)."
			   " They failed alike, none is to single out: the fault is in what they all ran (the"
			   " handler's backtrace, after its line, names the function).",
			   n, who.data, signal, name, *detail ? ": " : "", detail);
	} else {
		for (size_t i = 0; i < n; i++)
			if (c[i].rank >= 0)
				v_culprit(v, c[i].rank);
		v->confidence = v->nculprits ? CONFIDENCE(medium) : CONFIDENCE(low);
		if (v->nculprits) {
			fmt_rank_list(v->culprits, v->nculprits, &who);
			buf_printf(&v->summary, "Rank%s %s crashed: %s crash handler caught signal %d (%s%s%s)",
				   v->nculprits == 1 ? "" : "s", who.data, v->nculprits == 1 ? "its" : "their", signal, name,
				   *detail ? ": " : "", detail);
		} else {
			buf_printf(&v->summary, "A process (%s) crashed: its crash handler caught signal %d (%s%s%s)", c[0].where,
				   signal, name, *detail ? ": " : "", detail);
		}
		if (n > 1)
			buf_printf(&v->summary, "; %zu processes in all%s.", n, alike ? ", of the same signal" : "");
		else
			buf_puts(&v->summary, ".");
		if (!v->nculprits)
			buf_puts(&v->summary, " Which rank it was the logs do not say: no launcher or NCCL line ties its pid to a rank.");
	}
	int64_t first = T_NONE;
	for (size_t i = 0; i < v->nculprits; i++) {
		struct rank_facts *r = diag_rank(d, v->culprits[i]);
		if (r && r->exit_t != T_NONE && (first == T_NONE || r->exit_t < first))
			first = r->exit_t;
	}
	v->first_failure_t = first;
	v_cite_event(v, c[0].event, "the crash handler's line");
	if (!v->nculprits)
		v_missing(v, "the rank of the crashed process: the launcher's failure report, or NCCL's INFO lines (NCCL_DEBUG=INFO)");
	buf_free(&who);
	free(c);
	return true;
}
