/* analysis_diagnosis.c: names the rank(s) and the collective that failed
 * first, and why. The rules of diagnosis_rules.h are tried in their order,
 * from those that end in an error (init, exception, death) to those that end
 * in a hang (mismatch, stall, silence); the first that the evidence supports
 * decides. What every rule said is kept in diagnosis_rules (analyze
 * --explain prints it). */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "diagnosis.h"
#include "findings.h"

static const struct diag_rule {
	const char *id;
	enum diag_family family;
	bool (*fn)(struct diagnosis *d);
	const char *reads, *what;
} rules[] = {
#define DIAG_RULE_ROW(id, family, fn, reads, what) {#id, family, fn, reads, what},
	DIAG_RULES(DIAG_RULE_ROW)
#undef DIAG_RULE_ROW
};

static const char *family_name(enum diag_family f)
{
	switch (f) {
	case DIAG_CRASH: return "crash";
	case DIAG_HANG: return "hang";
	case DIAG_END: return "end";
	case DIAG_UNTIMED: return "untimed";
	case DIAG_LAST: return "last";
	}
	return "?";
}

/* Whether a family's rules are tried; if not, why (into why). */
static bool family_applies(struct diagnosis *d, enum diag_family f, const char **why)
{
	switch (f) {
	case DIAG_CRASH:
	case DIAG_LAST:
		return true;
	case DIAG_HANG:
		*why = "no failure was logged (no timeout, error or exit): the hang rules need one";
		return d->t0 != T_NONE;
	case DIAG_END:
		*why = "a failure was logged: the job did not just end";
		return d->t0 == T_NONE;
	case DIAG_UNTIMED:
		*why = d->t0 != T_NONE ? "a failure was logged: the hang was reported" : "the job said it ended";
		return d->t0 == T_NONE && !d->completed;
	}
	return false;
}

struct rule_said {
	const char *state; /* "decided", "declined", "not tried", "not reached" */
	char *reason;
};

static void write_rules(struct diagnosis *d, const struct rule_said *said)
{
	sqlite3_stmt *st = db_prepare(d->db, "INSERT INTO diagnosis_rules(ord, rule, family, state, reason, reads)"
					     " VALUES(?,?,?,?,?,?)");
	for (size_t i = 0; i < ARRAY_LEN(rules); i++) {
		sqlite3_bind_int(st, 1, (int)i + 1);
		sqlite3_bind_text(st, 2, rules[i].id, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, family_name(rules[i].family), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, said[i].state, -1, SQLITE_STATIC);
		db_bind_text(st, 5, said[i].reason, -1);
		sqlite3_bind_text(st, 6, rules[i].reads, -1, SQLITE_STATIC);
		db_step_done(st);
	}
	sqlite3_finalize(st);
}

/* The model's facts the rules reasoned on, beside the hang's (hang_views). */
static void write_facts(struct diagnosis *d)
{
	static const char sql[] = "INSERT OR REPLACE INTO diagnosis_facts(fact, value, meaning) VALUES(?,?,?)";
	sqlite3_stmt *st = db_prepare(d->db, sql);
	const struct {
		const char *fact;
		int64_t value;
		bool known;
		const char *meaning;
	} facts[] = {
		{"first_failure_us", d->t0, d->t0 != T_NONE,
		 "the job's first failure (t0): its earliest error or timeout, else its earliest abnormal exit"},
		{"stopped_us", d->stopped_t, d->stopped_t != T_NONE,
		 "when every launcher was told to stop from outside (a death signal)"},
		{"teardown_us", d->teardown_t, d->teardown_t != T_NONE,
		 "the teardown of a silent hang: every rank had been silent for a while before it (first_failure_us is then NULL)"},
		{"completed", d->completed, true, "1 when the launcher or the application said the job finished"},
		{"world", d->world, true, "the job's ranks, as the logs state them (else as many as have logs)"},
		{"ranks_with_logs", (int64_t)diag_ranks_with_logs(d), true, "ranks with at least one line in the input"},
		{"past_init", d->past_init, true, "1 when some rank got past its communicators' init"},
		{"any_dump", d->any_dump, true, "1 when some rank wrote a flight-recorder dump"},
	};
	for (size_t i = 0; i < ARRAY_LEN(facts); i++) {
		sqlite3_bind_text(st, 1, facts[i].fact, -1, SQLITE_STATIC);
		db_bind_int_or_null(st, 2, facts[i].value, facts[i].known);
		sqlite3_bind_text(st, 3, facts[i].meaning, -1, SQLITE_STATIC);
		db_step_done(st);
	}
	sqlite3_finalize(st);
}

void analysis_diagnosis(sqlite3 *db)
{
	struct diagnosis d;
	diag_load(&d, db);
	diag_responsiveness(&d);
	struct rule_said said[ARRAY_LEN(rules)];
	bool done = false;
	for (size_t i = 0; i < ARRAY_LEN(rules); i++) {
		said[i] = (struct rule_said){"not reached", NULL};
		if (done)
			continue;
		const char *why = NULL;
		if (!family_applies(&d, rules[i].family, &why)) {
			said[i] = (struct rule_said){"not tried", xstrdup(why)};
			continue;
		}
		v_reset(&d.v);
		buf_clear(&d.decline);
		done = rules[i].fn(&d);
		if (done) {
			said[i].state = "decided";
			d.v.rule = rules[i].id;
		} else {
			/* a rule that gives no reason of its own: what it looks for
			 * is not what the logs show */
			said[i] = (struct rule_said){"declined", d.decline.len ? xstrdup(d.decline.data)
									  : xasprintf("not found: %s", rules[i].what)};
		}
	}
	if (d.teardown_t != T_NONE) {
		char t[32];
		fmt_time(d.teardown_t, t, sizeof(t));
		buf_printf(&d.v.summary, " What failed from %s on, after every rank had been silent for a while, was"
					 " the job's teardown (killed from outside), not its cause.", t);
		v_cite_event(&d.v,
			     q_int(db, 0,
				   "SELECT event_id FROM (SELECT event_id, time_us FROM events WHERE kind = 'torchrun_death_signal'"
				   " UNION ALL SELECT first_error_event, first_error_time_us FROM rank_status"
				   " WHERE first_error_event IS NOT NULL) ORDER BY time_us, event_id LIMIT 1"),
			     "the teardown");
	}
	/* a restarted job: the analyses saw its first attempt (analysis_attempts.c) */
	if (q_int(db, 0, "SELECT count(*) FROM sqlite_temp_master WHERE name = 'rank_restart'") > 0) {
		int64_t n = q_int(db, 0, "SELECT count(*) FROM temp.rank_restart");
		buf_printf(&d.v.summary,
			   "%sThe launcher restarted the workers (%lld rank%s ran again in new processes): this is the"
			   " first attempt's failure; the later attempts' lines are left out of the analysis (they stay"
			   " in the case).",
			   d.v.summary.len ? " " : "", (long long)n, n == 1 ? "" : "s");
	}
	diag_write(&d);
	write_rules(&d, said);
	write_facts(&d);
	for (size_t i = 0; i < ARRAY_LEN(rules); i++)
		free(said[i].reason);
	findings_dedup(db);
	diag_free(&d);
}
