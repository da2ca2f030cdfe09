/* report_md.c: what a report says and in which order (report_compose, shared
 * by the Markdown, text and HTML writers), the sections about the diagnosis,
 * and the Markdown sink. The sections about the job's facts are in
 * report_sections.c.
 *
 * Long lists are collapsed so a 1,024-rank job stays readable: cascade rows
 * of the same kind become one row per group, network and configuration rows
 * are grouped by identical values, ranks and sources are listed only for
 * small jobs (the JSON report always has everything). */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "escape.h"
#include "report_bandwidth.h"
#include "report_model.h"
#include "verdict_vocab.h"

enum {
	CASCADE_ALL = 24,   /* up to this many rows, every cascade row is shown */
	CASCADE_GROUP = 3,  /* groups larger than this collapse into one row */
	CASCADE_LINES = 60, /* rows of the cascade table at most */
	EVIDENCE_MAX = 20,  /* verdict evidence lines quoted */
	FINDING_EV_MAX = 3, /* evidence lines quoted per finding */
	FINDINGS_MAX = 30,
	CULPRITS_MAX = 16,
};

/* ---- words ---- */

static const char *outcome_word(const char *o)
{
	return vocab_outcome_words(o, 0);
}

static const char *outcome_sentence(const char *o)
{
	return vocab_outcome_words(o, 1);
}

static const char *cause_words(const char *cause, int sentence)
{
	return vocab_cause_words(cause, sentence);
}

static void put_culprits(struct rcomp *c, bool with_hosts)
{
	const struct report_model *m = c->m;
	rc_ranks(&c->b, m->culprit_ranks.v, m->culprit_ranks.n, 6);
	if (with_hosts && m->culprit_hosts.n) {
		buf_puts(&c->b, " on ");
		for (size_t i = 0; i < m->culprit_hosts.n && i < 4; i++) {
			buf_puts(&c->b, i ? ", " : "");
			rc_text(&c->b, m->culprit_hosts.v[i]);
		}
		if (m->culprit_hosts.n > 4)
			buf_printf(&c->b, " and %zu more hosts", m->culprit_hosts.n - 4);
	}
}

static void put_collective(struct rcomp *c)
{
	const struct report_model *m = c->m;
	if (m->process_group) {
		buf_puts(&c->b, " in process group ");
		rc_code(&c->b, m->process_group);
	}
	if (m->op || m->seq != RM_NONE) {
		buf_puts(&c->b, " at ");
		rc_text(&c->b, m->op ? m->op : "collective");
		if (m->seq != RM_NONE)
			buf_printf(&c->b, " (sequence number %lld)", (long long)m->seq);
	}
}

/* ---- sections ---- */

static void title(struct rcomp *c)
{
	const struct report_model *m = c->m;
	if (!m->has_verdict) {
		rc_text(&c->b, "No verdict: the case has not been analysed");
	} else if (strcmp(m->cause, "none") == 0 || !m->culprit_ranks.n) {
		rc_text(&c->b, outcome_word(m->outcome));
		buf_puts(&c->b, ": ");
		rc_text(&c->b, strcmp(m->cause, "none") == 0 ? "no failing rank" : m->cause);
	} else {
		rc_text(&c->b, outcome_word(m->outcome));
		buf_puts(&c->b, ": ");
		put_culprits(c, true);
		buf_printf(&c->b, " %s", cause_words(m->cause, 0));
		if (m->process_group || m->op) {
			buf_puts(&c->b, " (");
			rc_text(&c->b, m->process_group ? m->process_group : "");
			buf_puts(&c->b, m->process_group && m->op ? " " : "");
			rc_text(&c->b, m->op ? m->op : "");
			if (m->seq != RM_NONE)
				buf_printf(&c->b, " seq %lld", (long long)m->seq);
			buf_puts(&c->b, ")");
		}
	}
	c->s->title(c->s->ctx, c->b.data);
	buf_clear(&c->b);
	buf_puts(&c->b, RI_BOLD "Verdict:" RI_BOLD " ");
	rc_code(&c->b, m->outcome);
	buf_puts(&c->b, " / ");
	rc_code(&c->b, m->cause);
	buf_puts(&c->b, ", confidence ");
	rc_text(&c->b, m->confidence);
	if (m->first_failure_us != RM_NONE) {
		buf_puts(&c->b, ". First failure at ");
		buf_puts(&c->b, RI_CODE);
		rm_fmt_time(&c->b, m->first_failure_us);
		buf_puts(&c->b, RI_CODE);
	}
	buf_puts(&c->b, ".");
	rc_para(c);
}

static void what_happened(struct rcomp *c)
{
	const struct report_model *m = c->m;
	c->s->section(c->s->ctx, "What happened", "what-happened");
	if (!m->has_verdict) {
		rc_text(&c->b, "This case has no verdict: the analysis has not run on it or found nothing. "
				"What follows is what the logs themselves say.");
		rc_para(c);
		return;
	}
	rc_text(&c->b, outcome_sentence(m->outcome));
	if (m->culprit_ranks.n && strcmp(m->cause, "none") != 0) {
		bool one = m->culprit_ranks.n == 1, done = strcmp(m->outcome, "completed") == 0;
		buf_puts(&c->b, done ? ", but " : one ? ". The first rank to fail was " : ". The first ranks to fail were ");
		put_culprits(c, true);
		buf_printf(&c->b, done ? " %s%s" : ": %s %s", done ? "" : one ? "it" : "they", cause_words(m->cause, 1));
		put_collective(c);
	} else if (strcmp(m->cause, "none") == 0) {
		buf_puts(&c->b, "; no rank failed");
	}
	buf_puts(&c->b, ".");
	/* what followed: ranks of the cascade other than the culprits */
	int64_t *after = NULL;
	size_t n_after = 0, cap = 0;
	int64_t last_ms = RM_NONE;
	for (size_t i = 0; i < m->n_cascade; i++) {
		const struct rm_cascade *k = &m->cascade[i];
		if ((k->role && strcmp(k->role, "cause") == 0) || k->rank == RM_NONE)
			continue;
		const struct rm_rank *r = rm_rank_find(m, k->rank);
		if (r && r->culprit)
			continue;
		bool seen = false;
		for (size_t j = 0; j < n_after && !seen; j++)
			seen = after[j] == k->rank;
		if (!seen) {
			xgrow(&after, &cap, n_after + 1, sizeof(*after));
			after[n_after++] = k->rank;
		}
		if (k->offset_ms != RM_NONE && (last_ms == RM_NONE || k->offset_ms > last_ms))
			last_ms = k->offset_ms;
	}
	if (m->first_failure_us != RM_NONE) {
		buf_puts(&c->b, " The first failure was seen at ");
		buf_puts(&c->b, RI_CODE);
		rm_fmt_time(&c->b, m->first_failure_us);
		buf_puts(&c->b, n_after ? RI_CODE ";" : RI_CODE ".");
	}
	if (n_after) {
		buf_printf(&c->b, "%s%zu other rank%s (", m->first_failure_us != RM_NONE ? " after it, " : " Then ",
			   n_after, n_after == 1 ? "" : "s");
		rm_fmt_ranks(&c->b, after, n_after, 8);
		buf_puts(&c->b, ") timed out, failed or exited");
		if (last_ms != RM_NONE && last_ms > 0) {
			buf_puts(&c->b, " over ");
			rm_fmt_duration(&c->b, i64_mul_sat(last_ms, 1000));
		}
		buf_puts(&c->b, " (see the cascade).");
	}
	free(after);
	rc_para(c);
	if (m->summary) {
		rc_text(&c->b, m->summary);
		rc_para(c);
	}
}

static void culprit(struct rcomp *c)
{
	const struct report_model *m = c->m;
	if (!m->culprit_ranks.n && !m->culprit_hosts.n)
		return;
	c->s->section(c->s->ctx, "Culprit", "culprit");
	static const char *const head[] = {"Rank", "Host", "Local rank", "GPU", "PCI", "PID", "Last step", "Role"};
	struct rc_tb t = {.ncols = ARRAY_LEN(head), .head = head};
	for (size_t i = 0; i < m->culprit_ranks.n && i < CULPRITS_MAX; i++) {
		int64_t rk = m->culprit_ranks.v[i];
		const struct rm_rank *r = rm_rank_find(m, rk);
		if (!r) { /* a rank with no line in the input */
			rc_row(&t, true, rc_int(rk, "-"), xstrdup("(no logs)"), xstrdup("?"), xstrdup("?"), xstrdup("?"),
			       xstrdup("?"), xstrdup("-"), xstrdup("-"));
			continue;
		}
		char *gpu = r->cuda_dev == RM_NONE ? xstrdup("-") : xasprintf("cuda:%lld", (long long)r->cuda_dev);
		struct buf pci = {0};
		rc_text(&pci, r->pci ? r->pci : "-");
		if (r->bus_id) {
			buf_puts(&pci, " (busId ");
			rc_text(&pci, r->bus_id);
			buf_puts(&pci, ")");
		}
		rc_row(&t, true, rc_int(rk, "-"), rc_str(r->host, "?"), rc_int(r->local_rank, "-"), gpu, rc_take(&pci),
		       rc_str(r->pid_str, "-"), rc_int(r->last_step, "-"), rc_str(r->role, "-"));
	}
	rc_table(c, &t);
	if (m->culprit_ranks.n > CULPRITS_MAX) {
		buf_printf(&c->b, "And %zu more culprit ranks (see the JSON report).", m->culprit_ranks.n - CULPRITS_MAX);
		rc_para(c);
	}
	if (!m->culprit_ranks.n) {
		buf_puts(&c->b, RI_BOLD "Hosts:" RI_BOLD " ");
		for (size_t i = 0; i < m->culprit_hosts.n; i++) {
			buf_puts(&c->b, i ? ", " : "");
			rc_text(&c->b, m->culprit_hosts.v[i]);
		}
		rc_item(c);
	}
	buf_puts(&c->b, RI_BOLD "Process group:" RI_BOLD " ");
	rc_text(&c->b, m->process_group ? m->process_group : "not known");
	rc_item(c);
	buf_puts(&c->b, RI_BOLD "Collective:" RI_BOLD " ");
	rc_text(&c->b, m->op ? m->op : "not known");
	if (m->seq != RM_NONE)
		buf_printf(&c->b, ", sequence number %lld", (long long)m->seq);
	rc_item(c);
	buf_puts(&c->b, RI_BOLD "First failure:" RI_BOLD " ");
	rm_fmt_time(&c->b, m->first_failure_us);
	rc_item(c);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Cascade rows alike except for numbers (ranks, times) belong together. */
static char *norm_what(const char *role, const char *what)
{
	struct buf b = {0};
	buf_puts(&b, role ? role : "");
	buf_putc(&b, '\t');
	for (const char *p = what ? what : ""; *p; p++) {
		if (*p >= '0' && *p <= '9') {
			buf_putc(&b, '#');
			while (p[1] >= '0' && p[1] <= '9')
				p++;
		} else {
			buf_putc(&b, *p);
		}
	}
	return rc_take(&b);
}

static void cascade_row(struct rcomp *c, struct rc_tb *t, const size_t *rows, size_t n)
{
	const struct report_model *m = c->m;
	const struct rm_cascade *k0 = &m->cascade[rows[0]];
	if (n == 1) {
		struct buf off = {0};
		rm_fmt_offset(&off, k0->offset_ms);
		rc_row(t, k0->role && strcmp(k0->role, "cause") == 0, rc_take(&off), rc_tod(k0->time_us),
		       rc_int(k0->rank, "-"), rc_str(k0->host, "-"), rc_str(k0->role, "-"), rc_str(k0->what, "-"));
		return;
	}
	int64_t lo = INT64_MAX, hi = INT64_MIN, t0 = RM_NONE;
	int64_t *ranks = xmalloc(n * sizeof(*ranks));
	const char **hosts = xmalloc(n * sizeof(*hosts));
	size_t nr = 0, nh = 0, nhosts = 0, nranks = 0;
	bool same = true;
	for (size_t i = 0; i < n; i++) {
		const struct rm_cascade *k = &m->cascade[rows[i]];
		if (k->offset_ms != RM_NONE) {
			lo = k->offset_ms < lo ? k->offset_ms : lo;
			hi = k->offset_ms > hi ? k->offset_ms : hi;
		}
		if (t0 == RM_NONE)
			t0 = k->time_us;
		if (k->rank != RM_NONE)
			ranks[nr++] = k->rank;
		if (k->host)
			hosts[nh++] = k->host;
		same = same && (k->what ? k0->what && strcmp(k->what, k0->what) == 0 : !k0->what);
	}
	xqsort(ranks, nr, sizeof(*ranks), cmp_i64);
	xqsort(hosts, nh, sizeof(*hosts), cmp_strp);
	for (size_t i = 0; i < nr; i++)
		nranks += i == 0 || ranks[i] != ranks[i - 1];
	for (size_t i = 0; i < nh; i++)
		nhosts += i == 0 || strcmp(hosts[i], hosts[i - 1]) != 0;
	free(hosts);
	struct buf off = {0}, rk = {0}, what = {0};
	rm_fmt_offset(&off, lo == INT64_MAX ? RM_NONE : lo);
	if (hi != lo && lo != INT64_MAX) {
		buf_puts(&off, " to ");
		rm_fmt_offset(&off, hi);
	}
	rm_fmt_ranks(&rk, ranks, nr, 4);
	buf_printf(&rk, " (%zu ranks)", nranks);
	rc_text(&what, k0->what ? k0->what : "-");
	if (!same)
		buf_puts(&what, " (and similar)");
	rc_row(t, k0->role && strcmp(k0->role, "cause") == 0, rc_take(&off), rc_tod(t0), rc_take(&rk),
	       xasprintf("%zu hosts", nhosts), rc_str(k0->role, "-"),
	       rc_take(&what));
	free(ranks);
}

/* Each row i's group: the first row whose key equals its own (rows without
 * a key stay alone), through a sort of the keys (a job of thousands of
 * ranks has as many cascade rows). */
struct keyed_row {
	const char *key;
	size_t row;
};

static int cmp_keyed_row(const void *a, const void *b)
{
	const struct keyed_row *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->row > y->row) - (x->row < y->row);
}

static void group_rows_by_key(char *const *key, size_t *group, size_t n)
{
	struct keyed_row *order = xmalloc((n ? n : 1) * sizeof(*order));
	size_t nk = 0;
	for (size_t i = 0; i < n; i++)
		if (key[i])
			order[nk++] = (struct keyed_row){key[i], i};
	xqsort(order, nk, sizeof(*order), cmp_keyed_row);
	for (size_t i = 1; i < nk; i++)
		if (strcmp(order[i].key, order[i - 1].key) == 0)
			group[order[i].row] = group[order[i - 1].row];
	free(order);
}

static void cascade(struct rcomp *c)
{
	const struct report_model *m = c->m;
	c->s->section(c->s->ctx, "Cascade", "cascade");
	if (!m->n_cascade) {
		rc_text(&c->b, "No cascade is recorded in this case.");
		rc_para(c);
		return;
	}
	rc_text(&c->b, "Who failed, timed out or exited, in order; offsets from the first failure.");
	if (m->n_cascade > CASCADE_ALL)
		buf_printf(&c->b, " Rows of the same kind are collapsed (%zu rows in all; the JSON report has each).",
			   m->n_cascade);
	rc_para(c);
	static const char *const head[] = {"Offset", "Time", "Rank", "Host", "Role", "What"};
	struct rc_tb t = {.ncols = ARRAY_LEN(head), .head = head};
	size_t n = m->n_cascade, ng = 0;
	char **key = xcalloc(n, sizeof(char *));
	size_t *group = xcalloc(n, sizeof(size_t)), *rows = xmalloc(n * sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		const struct rm_cascade *k = &m->cascade[i];
		key[i] = n <= CASCADE_ALL ? NULL : norm_what(k->role, k->what);
		group[i] = i;
	}
	group_rows_by_key(key, group, n);
	/* each group's rows in order: a list through next from first[leader] */
	size_t *first = xmalloc((n ? n : 1) * sizeof(size_t)), *next = xmalloc((n ? n : 1) * sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		first[i] = SIZE_MAX;
	for (size_t j = n; j-- > 0;) {
		next[j] = first[group[j]];
		first[group[j]] = j;
	}
	size_t lines = 0, left = 0;
	for (size_t i = 0; i < n; i++) {
		if (group[i] != i)
			continue;
		size_t nrow = 0;
		for (size_t j = first[i]; j != SIZE_MAX; j = next[j])
			rows[nrow++] = j;
		size_t need = nrow > CASCADE_GROUP ? 1 : nrow;
		if (lines + need > CASCADE_LINES) {
			left += nrow;
			continue;
		}
		if (nrow > CASCADE_GROUP)
			cascade_row(c, &t, rows, nrow);
		else
			for (size_t j = 0; j < nrow; j++)
				cascade_row(c, &t, rows + j, 1);
		lines += need, ng++;
	}
	rc_table(c, &t);
	if (left) {
		buf_printf(&c->b, "And %zu more rows (see the JSON report).", left);
		rc_para(c);
	}
	for (size_t i = 0; i < n; i++)
		free(key[i]);
	free(key);
	free(group);
	free(first);
	free(next);
	free(rows);
}

static void quote_ev(struct rcomp *c, const struct rm_evidence *e)
{
	char *cite = e->line == RM_NONE ? xstrdup(e->source ? e->source : "?")
					: xasprintf("%s:%lld", e->source ? e->source : "?", (long long)e->line);
	c->s->quote(c->s->ctx, cite, e->note, e->text ? e->text : "(line not stored)");
	free(cite);
}

static void evidence(struct rcomp *c)
{
	const struct report_model *m = c->m;
	c->s->section(c->s->ctx, "Evidence", "evidence");
	if (!m->n_ev) {
		rc_text(&c->b, "No evidence lines are recorded for the verdict.");
		rc_para(c);
		return;
	}
	rc_text(&c->b, "The lines the verdict rests on, with their sources:");
	rc_para(c);
	for (size_t i = 0; i < m->n_ev && i < EVIDENCE_MAX; i++)
		quote_ev(c, &m->ev[i]);
	if (m->n_ev > EVIDENCE_MAX) {
		buf_printf(&c->b, "And %zu more lines (see the JSON report).", m->n_ev - EVIDENCE_MAX);
		rc_para(c);
	}
}

static void finding(struct rcomp *c, const struct rm_finding *f)
{
	buf_puts(&c->b, RI_BOLD);
	rc_text(&c->b, f->severity ? f->severity : "info");
	buf_puts(&c->b, RI_BOLD " ");
	rc_code(&c->b, f->kind);
	if (f->ranks.n || f->hosts.n) {
		buf_puts(&c->b, " (");
		if (f->ranks.n)
			rc_ranks(&c->b, f->ranks.v, f->ranks.n, 6);
		for (size_t i = 0; i < f->hosts.n && i < 4; i++) {
			buf_puts(&c->b, i ? ", " : f->ranks.n ? "; " : "");
			rc_text(&c->b, f->hosts.v[i]);
		}
		if (f->hosts.n > 4)
			buf_printf(&c->b, " and %zu more hosts", f->hosts.n - 4);
		buf_puts(&c->b, ")");
	}
	buf_puts(&c->b, ": ");
	rc_text(&c->b, f->summary ? f->summary : "");
	rc_para(c);
	for (size_t j = 0; j < f->n_ev && j < FINDING_EV_MAX; j++)
		quote_ev(c, &f->ev[j]);
	if (f->n_ev > FINDING_EV_MAX) {
		buf_printf(&c->b, "And %zu more lines.", f->n_ev - FINDING_EV_MAX);
		rc_para(c);
	}
}

void rc_findings(struct rcomp *c, bool config)
{
	const struct report_model *m = c->m;
	size_t shown = 0, total = 0;
	for (int sev = 0; sev <= 3; sev++)
		for (size_t i = 0; i < m->n_findings; i++) {
			const struct rm_finding *f = &m->findings[i];
			if (rc_severity(f->severity) != sev || rc_is_config(f->kind) != config)
				continue;
			total++;
			if (shown < FINDINGS_MAX) {
				finding(c, f);
				shown++;
			}
		}
	if (total > shown) {
		buf_printf(&c->b, "And %zu more findings (see the JSON report).", total - shown);
		rc_para(c);
	}
	bool others = false;
	for (size_t i = 0; i < m->n_findings; i++)
		others |= rc_is_config(m->findings[i].kind) != config;
	if (!total && !config) {
		rc_text(&c->b, others ? "The only findings are about the configuration (see below)."
				      : "No findings are recorded in this case.");
		rc_para(c);
	}
}


void report_compose(const struct report_model *m, const struct report_sink *s)
{
	struct rcomp c = {.m = m, .s = s};
	title(&c);
	what_happened(&c);
	if (s->timeline) {
		s->section(s->ctx, "Timeline", "timeline");
		s->timeline(s->ctx, m);
	}
	culprit(&c);
	cascade(&c);
	evidence(&c);
	c.s->section(c.s->ctx, "Findings", "findings");
	rc_findings(&c, false);
	rc_network(&c);
	rc_bandwidth(&c);
	rc_sysmsgs(&c);
	rc_config(&c);
	rc_remediation(&c);
	rc_missing(&c);
	rc_job(&c);
	s->done(s->ctx);
	buf_free(&c.b);
}

/* ---- the Markdown sink ---- */

struct md {
	struct buf *out;
	bool in_list;
};

static void md_block(struct md *w)
{
	if (w->in_list)
		buf_putc(w->out, '\n');
	w->in_list = false;
}

/* The longest run of backticks in n bytes of s. */
static size_t longest_ticks(const char *s, size_t n)
{
	size_t run = 0, longest = 0;
	for (size_t i = 0; i < n; i++) {
		run = s[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest;
}

/* A code span of n bytes of s: fenced with one backtick more than the
 * longest run inside, padded with a space when it starts or ends with one
 * (CommonMark strips one space each side), safe for a terminal; '|' is
 * escaped, which GFM tables need even inside code. */
static void md_code(struct buf *o, const char *s, size_t n)
{
	size_t fence = longest_ticks(s, n) + 1;
	bool pad = n && (s[0] == '`' || s[n - 1] == '`' || s[0] == ' ');
	for (size_t i = 0; i < fence; i++)
		buf_putc(o, '`');
	if (pad)
		buf_putc(o, ' ');
	for (size_t i = 0; i < n;) {
		size_t run = i;
		while (run < n && s[run] != '|')
			run++;
		esc_term(o, s + i, run - i, 0);
		if (run < n)
			buf_puts(o, "\\|");
		i = run + 1;
	}
	if (pad)
		buf_putc(o, ' ');
	for (size_t i = 0; i < fence; i++)
		buf_putc(o, '`');
}

/* Text that is not code: every character Markdown could read as markup is
 * escaped ('|' too, for tables), and so are what would start a block at
 * the start of one (a heading, a quote, a list) and what GFM would make a
 * link of (scheme://, www.). */
static void md_plain(struct buf *o, const char *s, size_t n, bool at_start)
{
	size_t i = 0;
	if (at_start) {
		while (i < n && s[i] == ' ')
			buf_putc(o, s[i++]);
		size_t d = i;
		while (d < n && isdigit((unsigned char)s[d]))
			d++;
		if (i < n && strchr("#>+-=", s[i]) && s[i])
			buf_putc(o, '\\');
		else if (d > i && d < n && (s[d] == '.' || s[d] == ')')) {
			buf_append(o, s + i, d - i);
			buf_putc(o, '\\');
			i = d;
		}
	}
	struct buf text = {0};
	for (; i < n; i++) {
		char ch = s[i];
		bool edge = ch == '_' && (i == 0 || !isalnum((unsigned char)s[i - 1]) || i + 1 >= n ||
					  !isalnum((unsigned char)s[i + 1]));
		bool link = (ch == ':' && i + 2 < n && s[i + 1] == '/' && s[i + 2] == '/') ||
			    (ch == '.' && i >= 3 && strncasecmp(s + i - 3, "www", 3) == 0);
		if ((ch && strchr("\\`*[]<>|", ch)) || edge || link)
			buf_putc(&text, '\\');
		buf_putc(&text, ch);
	}
	esc_term(o, text.data ? text.data : "", text.len, 0);
	buf_free(&text);
}

/* Inline text: markup to Markdown, data escaped for Markdown and for a
 * terminal (a .md file is often read with cat); block: it starts a block
 * (a paragraph, an item), where a leading # or - would make one. */
static void md_text(struct buf *o, const char *s, bool block)
{
	struct buf flat = {0};
	for (const char *p = s; *p; p++)
		buf_putc(&flat, *p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p);
	const char *t = flat.data ? flat.data : "";
	size_t n = flat.len;
	for (size_t i = 0; i < n;) {
		if (t[i] == RI_BOLD[0]) {
			buf_puts(o, "**");
			i++;
		} else if (t[i] == RI_CODE[0]) {
			const char *end = memchr(t + i + 1, RI_CODE[0], n - i - 1);
			size_t e = end ? (size_t)(end - t) : n;
			md_code(o, t + i + 1, e - i - 1);
			i = e < n ? e + 1 : n;
		} else {
			size_t e = i;
			while (e < n && t[e] != RI_BOLD[0] && t[e] != RI_CODE[0])
				e++;
			md_plain(o, t + i, e - i, block && i == 0);
			i = e;
		}
	}
	buf_free(&flat);
}

static void md_inline(struct buf *o, const char *s)
{
	md_text(o, s, true);
}

static void md_title(void *ctx, const char *s)
{
	struct md *w = ctx;
	buf_puts(w->out, "# ");
	md_inline(w->out, s);
	buf_puts(w->out, "\n\n");
}

static void md_section(void *ctx, const char *name, const char *id)
{
	struct md *w = ctx;
	(void)id;
	md_block(w);
	buf_printf(w->out, "## %s\n\n", name);
}

static void md_para(void *ctx, const char *s)
{
	struct md *w = ctx;
	md_block(w);
	md_inline(w->out, s);
	buf_puts(w->out, "\n\n");
}

static void md_item(void *ctx, const char *s)
{
	struct md *w = ctx;
	w->in_list = true;
	buf_puts(w->out, "- ");
	md_inline(w->out, s);
	buf_putc(w->out, '\n');
}

static void md_table(void *ctx, const struct report_table *t)
{
	struct md *w = ctx;
	md_block(w);
	for (size_t r = 0; r < t->nrows + 2; r++) {
		for (size_t k = 0; k < t->ncols; k++) {
			buf_puts(w->out, k ? " | " : "| ");
			if (r == 0)
				md_text(w->out, t->head[k], false);
			else if (r == 1)
				buf_puts(w->out, "---");
			else if (*t->cells[(r - 2) * t->ncols + k])
				md_text(w->out, t->cells[(r - 2) * t->ncols + k], false);
		}
		buf_puts(w->out, " |\n");
	}
	buf_putc(w->out, '\n');
}

static void md_quote(void *ctx, const char *cite, const char *note, const char *text)
{
	struct md *w = ctx;
	md_block(w);
	size_t n = strlen(text);
	size_t longest = longest_ticks(text, n);
	size_t fence = longest >= 3 ? longest + 1 : 3;
	md_code(w->out, cite, strlen(cite));
	if (note) {
		buf_puts(w->out, ": ");
		md_inline(w->out, note);
	}
	buf_puts(w->out, "\n\n");
	for (size_t i = 0; i < fence; i++)
		buf_putc(w->out, '`');
	buf_putc(w->out, '\n');
	struct buf flat = {0};
	for (const char *p = text; *p; p++)
		buf_putc(&flat, *p == '\n' || *p == '\r' ? ' ' : *p);
	esc_term(w->out, flat.data ? flat.data : "", flat.len, ESC_KEEP_TAB);
	buf_free(&flat);
	buf_putc(w->out, '\n');
	for (size_t i = 0; i < fence; i++)
		buf_putc(w->out, '`');
	buf_puts(w->out, "\n\n");
}

static void md_done(void *ctx)
{
	md_block(ctx);
}

void report_md(const struct report_model *m, struct buf *out)
{
	struct md w = {out, false};
	struct report_sink s = {&w, md_title, md_section, md_para, md_item, md_table, md_quote, NULL, md_done, NULL};
	report_compose(m, &s);
}

