/* diagnosis_benchmark.c: the benchmark rule: a bundle whose runs are
 * nccl-tests (the bandwidth table, analysis_bandwidth.c), with no failure
 * logged. A run that ended (its "Avg bus bandwidth" summary) completed;
 * its checks say whether the data was right: #wrong elements in a row, or
 * "Out of bounds values : N FAILED". Either way no rank is named: nccl-tests
 * does not say whose data was wrong. */
#include "diagnosis.h"
#include "verdict_vocab.h"

#include <stdio.h>

#include "case_db.h"

/* 1048576 -> "1 MiB", 4294967296 -> "4 GiB", 17179869180 -> "16 GiB" */
static void fmt_size(int64_t b, char *out, size_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double x = (double)b;
	int u = 0;
	while (u < 4 && x >= 1024)
		x /= 1024, u++;
	snprintf(out, n, "%.4g %s", x, units[u]);
}

bool diag_benchmark(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	int64_t runs = q_int(d->db, 0, "SELECT count(DISTINCT run) FROM bandwidth");
	if (runs == 0) {
		v_decline(d, "no nccl-tests run in the bundle (no rows of the bandwidth table)");
		return false;
	}
	/* a run that ended prints its summary; runs cut short are no end */
	int64_t ended = q_int(d->db, 0, "SELECT count(DISTINCT run) FROM bandwidth WHERE avg_busbw_gbs IS NOT NULL");
	if (ended == 0) {
		v_decline(d, "no nccl-tests run printed its summary (Avg bus bandwidth): none is known to have ended");
		return false;
	}
	/* a training job beside a benchmark is the job's to diagnose */
	if (q_int(d->db, 0, "SELECT EXISTS (SELECT 1 FROM events WHERE kind IN ('app_step', 'torchrun_group_finished',"
			    " 'pg_watchdog_timeout'))")) {
		v_decline(d, "the bundle holds a training job's lines too: the other rules judge it");
		return false;
	}
	int64_t wrong = q_int(d->db, 0, "SELECT coalesce(sum(wrong), 0) FROM bandwidth WHERE wrong > 0");
	int64_t oob = q_int(d->db, 0, "SELECT coalesce(max(oob), 0) FROM bandwidth");
	v->outcome = OUTCOME(completed);
	v->cause = CAUSE(none);
	v->confidence = ended == runs ? CONFIDENCE(high) : CONFIDENCE(medium);
	v->first_failure_t = T_NONE;
	char what[200] = "";
	q_text(d->db, what, sizeof(what),
	       "SELECT group_concat(c, ', ') FROM (SELECT DISTINCT collective AS c FROM bandwidth"
	       " WHERE collective IS NOT NULL ORDER BY run)");
	int64_t gpus = q_int(d->db, 0, "SELECT max(gpus) FROM bandwidth");
	int64_t hosts = q_int(d->db, 0, "SELECT max(json_array_length(hosts)) FROM bandwidth WHERE json_valid(hosts)");
	buf_printf(&v->summary, "The nccl-tests run%s", runs == 1 ? "" : "s");
	if (what[0] || gpus > 0) {
		buf_printf(&v->summary, " (%s%s", what, what[0] && gpus > 0 ? ", " : "");
		if (gpus > 0)
			buf_printf(&v->summary, "%lld GPUs", (long long)gpus);
		if (gpus > 0 && hosts > 0)
			buf_printf(&v->summary, " on %lld host%s", (long long)hosts, hosts == 1 ? "" : "s");
		buf_putc(&v->summary, ')');
	}
	buf_printf(&v->summary, " %s", ended == runs ? "completed" : "ran");
	if (ended < runs)
		buf_printf(&v->summary, " (%lld of %lld printed their summary)", (long long)ended, (long long)runs);
	sqlite3_stmt *st = db_prepare(d->db,
		"SELECT run, coalesce(collective || ' ', ''), avg_busbw_gbs,"
		" (SELECT max(busbw_gbs) FROM bandwidth p WHERE p.run = b.run),"
		" (SELECT size_bytes FROM bandwidth p WHERE p.run = b.run ORDER BY busbw_gbs DESC LIMIT 1)"
		" FROM bandwidth b WHERE avg_busbw_gbs IS NOT NULL GROUP BY run ORDER BY run LIMIT 8");
	int k = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		char sz[32];
		fmt_size(sqlite3_column_int64(st, 4), sz, sizeof(sz));
		buf_printf(&v->summary, "%s%saverage bus bandwidth %.4g GB/s, peak %.4g GB/s at %s",
			   k++ ? "; " : ": ", (const char *)sqlite3_column_text(st, 1), sqlite3_column_double(st, 2),
			   sqlite3_column_double(st, 3), sz);
	}
	sqlite3_finalize(st);
	buf_putc(&v->summary, '.');
	if (wrong > 0 || oob > 0) {
		buf_puts(&v->summary, " But its checks failed: the data was wrong");
		if (wrong > 0) {
			char rows[400] = "";
			q_text(d->db, rows, sizeof(rows),
			       "SELECT group_concat(w, '; ') FROM (SELECT wrong || ' wrong elements at ' || size_bytes || ' bytes, '"
			       " || coalesce(placement, '?') AS w FROM bandwidth WHERE wrong > 0 ORDER BY run, size_bytes,"
			       " placement DESC LIMIT 6)");
			buf_printf(&v->summary, " (%s)", rows);
		}
		if (oob > 0)
			buf_printf(&v->summary, "%s Out of bounds values: %lld FAILED", wrong > 0 ? ";" : ":", (long long)oob);
		buf_puts(&v->summary, ". nccl-tests does not say whose data was wrong: a GPU, a link or the network of one"
				      " of the ranks; run the sizes that failed on halves of the hosts to find it.");
		v_cite_event(v, q_int(d->db, 0, "SELECT event_id FROM bandwidth WHERE wrong > 0 ORDER BY run, size_bytes LIMIT 1"),
			     "a row with wrong elements");
		v_cite_event(v, q_int(d->db, 0, "SELECT event_id FROM events WHERE kind = 'nccl_tests_oob'"
						" AND field(fields, 'status') = 'FAILED' ORDER BY event_id LIMIT 1"),
			     "the out-of-bounds check failed");
	} else {
		buf_puts(&v->summary, " Its checks passed (no wrong element, no value out of bounds).");
	}
	v_cite_event(v, q_int(d->db, 0, "SELECT event_id FROM events WHERE kind = 'nccl_tests_avg_busbw' ORDER BY event_id LIMIT 1"),
		     "the run's summary");
	return true;
}
