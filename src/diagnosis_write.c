/* diagnosis_write.c: writes the verdict, its evidence (finding 0), the
 * cascade (every rank's failure in time order, with its role) and the
 * role of each rank in rank_status. */
#include "diagnosis.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "findings.h"

/* Sentences of the summary that begin with a rank's description ("rank 3
 * (gpu-node02, local rank 1) ...", built to sit mid-sentence too) get their
 * capital letter. */
static void capitalize_rank_sentences(char *s)
{
	for (size_t i = 0; s && s[i]; i++)
		if ((i == 0 || (i >= 2 && s[i - 2] == '.' && s[i - 1] == ' ')) && strncmp(s + i, "rank", 4) == 0)
			s[i] = 'R';
}

static void write_cascade(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* detectors: ranks others named in "dump signal ... from rank N" */
	sqlite3_stmt *st = db_prepare(d->db,
		"INSERT INTO cascade(rank, host, time_us, offset_ms, what, role, event_id)"
		" SELECT e.rank, e.host, e.time_us, (e.time_us - ?1) / 1000, e.kind, ?3, e.event_id"
		" FROM events e WHERE e.event_id = ?2");
	sqlite3_stmt *ex = db_prepare(d->db,
		"INSERT INTO cascade(rank, host, time_us, offset_ms, what, role, event_id) VALUES(?,?,?,?,?,?,?)");
	/* the ranks others named as the source of the dump signal */
	bool *detected = xcalloc(d->nranks + 1, sizeof(bool));
	sqlite3_stmt *dq = db_prepare(d->db, "SELECT DISTINCT field(fields, 'from_rank') FROM events"
					     " WHERE kind = 'pg_dump_signal' AND field(fields, 'from_rank') IS NOT NULL");
	while (sqlite3_step(dq) == SQLITE_ROW) {
		struct rank_facts *r = diag_rank(d, sqlite3_column_int(dq, 0));
		if (r)
			detected[r - d->ranks] = true;
	}
	sqlite3_finalize(dq);
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		bool culprit = v_has_culprit(v, r->rank);
		bool detector = !culprit && detected[i];
		const char *role = culprit ? "cause" : detector ? "detector" : "consequence";
		r->role = !r->events ? "absent" : (r->first_error_event || r->exited) ? role : (culprit ? "cause" : "healthy");
		if (r->first_error_event && r->first_error_t != T_NONE) {
			sqlite3_bind_int64(st, 1, d->v.first_failure_t != T_NONE ? d->v.first_failure_t : r->first_error_t);
			sqlite3_bind_int64(st, 2, r->first_error_event);
			sqlite3_bind_text(st, 3, role, -1, SQLITE_STATIC);
			db_step_done(st);
		}
		if (r->exited && r->exit_t != T_NONE) {
			char what[64];
			snprintf(what, sizeof(what), "exit %d%s%s", r->exit_code, r->exit_signal[0] ? " " : "", r->exit_signal);
			sqlite3_bind_int(ex, 1, r->rank);
			sqlite3_bind_text(ex, 2, r->host, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(ex, 3, r->exit_t);
			sqlite3_bind_int64(ex, 4, d->v.first_failure_t != T_NONE ? (r->exit_t - d->v.first_failure_t) / 1000 : 0);
			sqlite3_bind_text(ex, 5, what, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(ex, 6, r->sigterm_by_launcher ? "consequence" : role, -1, SQLITE_STATIC);
			db_step_done(ex);
			sqlite3_bind_null(ex, 7);
		}
		if (culprit && !r->first_error_event && r->last_t != T_NONE) {
			/* a silent or stalled culprit: its last sign of life */
			sqlite3_bind_int(ex, 1, r->rank);
			sqlite3_bind_text(ex, 2, r->host, -1, SQLITE_TRANSIENT);
			int64_t t = r->last_progress_t != T_NONE ? r->last_progress_t : r->last_t;
			sqlite3_bind_int64(ex, 3, t);
			sqlite3_bind_int64(ex, 4, d->v.first_failure_t != T_NONE ? (t - d->v.first_failure_t) / 1000 : 0);
			sqlite3_bind_text(ex, 5, "last progress", -1, SQLITE_STATIC);
			sqlite3_bind_text(ex, 6, "cause", -1, SQLITE_STATIC);
			db_step_done(ex);
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ex);
	free(detected);
	/* number the rows in time order */
	db_exec(d->db, "CREATE TEMP TABLE cascade_sorted AS SELECT rank, host, time_us, offset_ms, what, role, event_id"
		       " FROM cascade ORDER BY time_us, rank;"
		       "DELETE FROM cascade;"
		       "INSERT INTO cascade(ord, rank, host, time_us, offset_ms, what, role, event_id)"
		       " SELECT row_number() OVER (), * FROM cascade_sorted;"
		       "DROP TABLE cascade_sorted;");
	st = db_prepare(d->db, "UPDATE rank_status SET role = ? WHERE rank = ?");
	for (size_t i = 0; i < d->nranks; i++) {
		sqlite3_bind_text(st, 1, d->ranks[i].role, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, d->ranks[i].rank);
		db_step_done(st);
	}
	sqlite3_finalize(st);
}

static void note_missing(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	/* ranks the job had but the logs do not show */
	struct buf l = {0};
	int count = 0;
	for (int rank = 0; rank < d->world && count < 64; rank++) {
		if (diag_rank_absent(d, rank)) {
			if (l.len)
				buf_puts(&l, ", ");
			buf_printf(&l, "%d", rank);
			count++;
		}
	}
	if (count)
		v_missing(v, "logs of rank%s %s (not one line in the input)", count > 1 ? "s" : "", l.data);
	if (!d->any_dump && d->t0 != T_NONE && strcmp(v->outcome, OUTCOME(init_failure)) != 0)
		v_missing(v, "flight-recorder dumps (set TORCH_FR_BUFFER_SIZE to record each rank's collectives)");
	if (q_int(d->db, 0, "SELECT count(*) FROM (SELECT 1 FROM events WHERE kind >= 'nccl_' AND kind < 'nccl`' LIMIT 1)") == 0)
		v_missing(v, "NCCL debug output (NCCL_DEBUG=INFO)");
	buf_free(&l);
}

void diag_write(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	note_missing(d);
	if (v->nmissing && strcmp(v->confidence, CONFIDENCE(high)) == 0 && strcmp(v->outcome, OUTCOME(completed)) != 0 &&
	    q_int(d->db, 0, "SELECT count(*) FROM rank_status WHERE coalesce(events, 0) = 0") > 0)
		v->confidence = CONFIDENCE(medium);
	struct buf culprits = {0}, hosts = {0}, missing = {0};
	buf_putc(&culprits, '[');
	for (size_t i = 0; i < v->nculprits; i++)
		buf_printf(&culprits, "%s%d", i ? "," : "", v->culprits[i]);
	buf_putc(&culprits, ']');
	diag_hosts_json(d, v->culprits, v->nculprits, &hosts);
	buf_putc(&missing, '[');
	for (int i = 0; i < v->nmissing; i++) {
		if (i)
			buf_putc(&missing, ',');
		buf_json_str(&missing, v->missing[i], strlen(v->missing[i]));
	}
	buf_putc(&missing, ']');
	sqlite3_stmt *st = db_prepare(d->db,
		"INSERT INTO verdict(outcome, cause, culprit_ranks, culprit_hosts, process_group, seq, op,"
		" first_failure_us, confidence, summary, missing, rule) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
	sqlite3_bind_text(st, 1, v->outcome, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, v->cause, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, culprits.data, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, hosts.data, -1, SQLITE_STATIC);
	db_bind_text(st, 5, v->pg[0] ? v->pg : NULL, -1);
	db_bind_int_or_null(st, 6, v->seq, v->seq >= 0);
	db_bind_text(st, 7, v->op[0] ? v->op : NULL, -1);
	db_bind_int_or_null(st, 8, v->first_failure_t, v->first_failure_t != T_NONE);
	sqlite3_bind_text(st, 9, v->confidence, -1, SQLITE_STATIC);
	capitalize_rank_sentences(v->summary.data);
	sqlite3_bind_text(st, 10, v->summary.data ? v->summary.data : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, missing.data, -1, SQLITE_STATIC);
	db_bind_text(st, 12, v->rule, -1);
	db_step_done(st);
	sqlite3_finalize(st);
	for (size_t i = 0; i < v->nevidence; i++) {
		const struct cited *c = &v->evidence[i];
		if (c->event_id > 0)
			evidence_add(d->db, 0, c->event_id, c->note);
		else
			evidence_add_line(d->db, 0, c->source_id, c->line_no, c->note);
	}
	write_cascade(d);
	buf_free(&culprits);
	buf_free(&hosts);
	buf_free(&missing);
}
