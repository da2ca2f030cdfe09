/* tui_findings.c: the findings view: the verdict, the findings (Enter
 * unfolds their evidence, Enter on evidence opens its lines), the failure
 * cascade, the network table and the system messages. Each section is one
 * query (a table of sections below); empty tables say so. Enter on the
 * verdict goes back to the timeline at the culprit and first failure. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "tui.h"
#include "tui_colors.h"
#include "tui_draw.h"
#include "tui_view.h"

#define SECTION_MAX_ROWS 2000

enum item_type { IT_HEADER, IT_NOTE, IT_VERDICT, IT_FINDING, IT_EVIDENCE, IT_ROW };

struct item {
	enum item_type type;
	char *text;
	int64_t finding_id, source_id, line_no, event_id; /* 0: none */
	int rank;                                         /* -1: none */
	char *host;
	bool expanded;
};

struct findings {
	struct item *items;
	size_t n, cap;
	size_t sel, top;
};

/* A section: its rows as (text, source_id, line_no, event_id, rank, host). */
struct section {
	const char *title;
	const char *table;
	const char *columns; /* the column headers, aligned as the rows' printf */
	const char *sql;
};

static const struct section sections[] = {
	{"Cascade (the order in which ranks failed)", "cascade",
	 "  #  time         rank       offset  role        what",
	 "SELECT printf('%3d  %-12s %-6s %10s  %-11s %s', ord, substr(iso_time(time_us), 12, 12), "
	 "'r' || coalesce(rank, '-'), "
	 "coalesce(offset_text(offset_ms), '-'), coalesce(role, ''), coalesce(what, '')), NULL, NULL, event_id, rank, host "
	 "FROM cascade ORDER BY ord"},
	{"Network", "network",
	 "host         rank   bootstrap  address            network    GDR      transports",
	 "SELECT printf('%-12s %-6s %-10s %-18s %-10s %-8s %s', coalesce(host, '-'), 'r' || coalesce(rank, '-'), "
	 "coalesce(bootstrap_if, '-'), coalesce(bootstrap_addr, '-'), coalesce(network, '-'), coalesce(gdr, '-'), "
	 "coalesce(transports, '')), NULL, NULL, NULL, rank, host FROM network ORDER BY rank, host"},
	{"System messages", "sysmsgs",
	 "time         host         kind       code     text",
	 "SELECT printf('%-12s %-12s %-10s %-8s %s', substr(iso_time(time_us), 12, 12), coalesce(host, '-'), "
	 "coalesce(kind, ''), "
	 "coalesce(code, ''), coalesce(text, '')), NULL, NULL, event_id, rank, host FROM sysmsgs ORDER BY time_us"},
};

static struct item *add(struct findings *f, enum item_type type, const char *text)
{
	xgrow(&f->items, &f->cap, f->n + 1, sizeof(*f->items));
	struct item *it = &f->items[f->n++];
	memset(it, 0, sizeof(*it));
	it->type = type;
	it->text = xstrdup(text ? text : "");
	it->rank = -1;
	return it;
}

static void add_verdict(struct findings *f, const struct tui *t)
{
	const struct tui_verdict *v = &t->verdict;
	add(f, IT_HEADER, "Verdict");
	if (!v->present) {
		add(f, IT_NOTE, "  (no verdict yet: the verdict table is empty)");
		return;
	}
	char buf[1024], tb[32];
	snprintf(buf, sizeof(buf), "  outcome         %s", v->outcome ? v->outcome : "-");
	add(f, IT_VERDICT, buf);
	snprintf(buf, sizeof(buf), "  cause           %s", v->cause ? v->cause : "-");
	add(f, IT_VERDICT, buf);
	struct buf b = {0};
	buf_puts(&b, "  culprit         ");
	for (size_t i = 0; i < v->n_culprits; i++)
		buf_printf(&b, "%sr%d", i ? ", " : "", v->culprits[i]);
	if (!v->n_culprits)
		buf_puts(&b, "-");
	if (v->culprit_hosts && *v->culprit_hosts)
		buf_printf(&b, " on %s", v->culprit_hosts);
	add(f, IT_VERDICT, b.data);
	buf_free(&b);
	if (v->has_seq)
		snprintf(buf, sizeof(buf), "  collective      %s seq %lld %s", v->process_group ? v->process_group : "-",
			 (long long)v->seq, v->op ? v->op : "");
	else
		snprintf(buf, sizeof(buf), "  collective      %s %s", v->process_group ? v->process_group : "-",
			 v->op ? v->op : "");
	add(f, IT_VERDICT, buf);
	if (v->has_first_failure) {
		tui_fmt_time(v->first_failure_us, TP_US, tb, sizeof(tb));
		char date[16];
		tui_fmt_date(v->first_failure_us, date, sizeof(date));
		snprintf(buf, sizeof(buf), "  first failure   %s %s", date, tb);
	} else {
		snprintf(buf, sizeof(buf), "  first failure   -");
	}
	add(f, IT_VERDICT, buf);
	/* and the rule that decided, on the same row (analyze --explain says why) */
	snprintf(buf, sizeof(buf), "  confidence      %s%s%s%s", v->confidence ? v->confidence : "-",
		 v->rule ? " (decided by rule " : "", v->rule ? v->rule : "", v->rule ? ")" : "");
	add(f, IT_VERDICT, buf);
	if (v->summary) {
		snprintf(buf, sizeof(buf), "  summary         %s", v->summary);
		add(f, IT_VERDICT, buf);
	}
}

static size_t add_evidence(struct findings *f, struct tui *t, size_t at, int64_t finding_id);

static void add_findings(struct findings *f, struct tui *t)
{
	int64_t n = db_int(t->db, "SELECT count(*) FROM findings", 0);
	char buf[128];
	snprintf(buf, sizeof(buf), "Findings (%lld)", (long long)n);
	add(f, IT_HEADER, buf);
	sqlite3_stmt *st = NULL;
	if (!n || sqlite3_prepare_v2(t->db,
				     "SELECT finding_id, printf('%-8s %-24s %-10s %s', coalesce(severity, '-'), "
				     "coalesce(kind, '-'), coalesce(ranks, ''), coalesce(summary, '')) FROM findings "
				     "ORDER BY finding_id LIMIT " NF_STR(SECTION_MAX_ROWS),
				     -1, &st, NULL) != SQLITE_OK) {
		add(f, IT_NOTE, "  (none yet)");
		return;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct item *it = add(f, IT_FINDING, NULL);
		free(it->text);
		it->text = xasprintf("+ %s", (const char *)sqlite3_column_text(st, 1));
		it->finding_id = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
}

static void add_section(struct findings *f, struct tui *t, const struct section *s)
{
	char *q = sqlite3_mprintf("SELECT count(*) FROM %w", s->table);
	int64_t n = db_int(t->db, q, 0);
	sqlite3_free(q);
	char buf[160];
	snprintf(buf, sizeof(buf), "%s (%lld)", s->title, (long long)n);
	add(f, IT_HEADER, buf);
	sqlite3_stmt *st = NULL;
	char *sql = sqlite3_mprintf("%s LIMIT %d", s->sql, SECTION_MAX_ROWS);
	int rc = n ? sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) : SQLITE_ERROR;
	sqlite3_free(sql);
	if (rc != SQLITE_OK) {
		add(f, IT_NOTE, "  (none yet)");
		return;
	}
	snprintf(buf, sizeof(buf), "  %s", s->columns);
	add(f, IT_NOTE, buf);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct item *it = add(f, IT_ROW, NULL);
		free(it->text);
		it->text = xasprintf("  %s", sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
		it->source_id = sqlite3_column_int64(st, 1);
		it->line_no = sqlite3_column_int64(st, 2);
		it->event_id = sqlite3_column_int64(st, 3);
		it->rank = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 4);
		it->host = sqlite3_column_text(st, 5) ? xstrdup((const char *)sqlite3_column_text(st, 5)) : NULL;
	}
	sqlite3_finalize(st);
	if (n > SECTION_MAX_ROWS) {
		snprintf(buf, sizeof(buf), "  ... %lld more (use the SQL prompt)", (long long)(n - SECTION_MAX_ROWS));
		add(f, IT_NOTE, buf);
	}
}

static void *fi_open(struct tui *t, const void *arg)
{
	(void)arg;
	struct findings *f = xcalloc(1, sizeof(*f));
	add_verdict(f, t);
	if (t->verdict.present && db_int(t->db, "SELECT count(*) FROM evidence WHERE finding_id = 0", 0) > 0) {
		add(f, IT_NOTE, "  evidence (Enter opens the line):");
		add_evidence(f, t, f->n, 0);
	}
	add_findings(f, t);
	for (size_t i = 0; i < ARRAY_LEN(sections); i++)
		add_section(f, t, &sections[i]);
	/* start on the first thing Enter can open */
	for (size_t i = 0; i < f->n; i++)
		if (f->items[i].type != IT_HEADER && f->items[i].type != IT_NOTE) {
			f->sel = i;
			break;
		}
	return f;
}

static void free_item(struct item *it)
{
	free(it->text);
	free(it->host);
}

static void fi_close(void *state)
{
	struct findings *f = state;
	for (size_t i = 0; i < f->n; i++)
		free_item(&f->items[i]);
	free(f->items);
	free(f);
}

static int page_rows(const struct tui *t)
{
	return tui_page_rows(t, 1);
}

static void fi_draw(void *state, struct tui *t)
{
	struct findings *f = state;
	int h = page_rows(t);
	if (f->sel < f->top)
		f->top = f->sel;
	if (f->sel >= f->top + (size_t)h)
		f->top = f->sel - (size_t)h + 1;
	tui_title(t, "findings", "verdict, findings, cascade, network | Enter opens");
	for (int i = 0; i < h && f->top + (size_t)i < f->n; i++) {
		const struct item *it = &f->items[f->top + (size_t)i];
		int y = 1 + i;
		bool sel = f->top + (size_t)i == f->sel;
		attr_t a = sel ? tui_attr(R_SELECTED) : it->type == IT_HEADER ? tui_attr(R_HEADER) : A_NORMAL;
		if (sel)
			tui_fill(y, 0, t->cols, a);
		if (sel)
			tui_glyph(y, 0, G_SELECT, a);
		tui_text(y, 1, t->cols - 1, it->text, -1, a, true);
	}
}

/* Inserts the evidence rows of a finding at index `at`; returns how many. */
static size_t add_evidence(struct findings *f, struct tui *t, size_t at, int64_t finding_id)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db,
			       "SELECT coalesce(v.source_id, e.source_id), coalesce(v.line_no, e.line_no), v.event_id, "
			       "printf('    %s:%s  %s', coalesce(s.path, '?'), coalesce(v.line_no, e.line_no, '?'), "
			       "coalesce(v.note, '')) FROM evidence v LEFT JOIN events e ON e.event_id = v.event_id "
			       "LEFT JOIN sources s ON s.source_id = coalesce(v.source_id, e.source_id) "
			       "WHERE v.finding_id = ?1 ORDER BY v.ord LIMIT " NF_STR(SECTION_MAX_ROWS),
			       -1, &st, NULL) != SQLITE_OK) {
		tui_error(t, "evidence: %s", sqlite3_errmsg(t->db));
		return 0;
	}
	sqlite3_bind_int64(st, 1, finding_id);
	struct item *found = NULL;
	size_t n_found = 0, cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&found, &cap, n_found + 1, sizeof(*found));
		struct item *it = &found[n_found++];
		memset(it, 0, sizeof(*it));
		it->type = IT_EVIDENCE;
		it->source_id = sqlite3_column_int64(st, 0);
		it->line_no = sqlite3_column_int64(st, 1);
		it->event_id = sqlite3_column_int64(st, 2);
		it->rank = -1;
		it->text = xstrdup((const char *)sqlite3_column_text(st, 3));
	}
	sqlite3_finalize(st);
	if (!n_found) {
		xgrow(&found, &cap, 1, sizeof(*found));
		memset(found, 0, sizeof(*found));
		found[0].type = IT_EVIDENCE;
		found[0].rank = -1;
		found[0].text = xstrdup("    (no evidence recorded)");
		n_found = 1;
	}
	xgrow(&f->items, &f->cap, f->n + n_found, sizeof(*f->items));
	memmove(f->items + at + n_found, f->items + at, (f->n - at) * sizeof(*f->items));
	memcpy(f->items + at, found, n_found * sizeof(*found));
	f->n += n_found;
	free(found);
	return n_found;
}

/* Unfolds the evidence of finding i under it. */
static void expand(struct findings *f, struct tui *t, size_t i)
{
	add_evidence(f, t, i + 1, f->items[i].finding_id);
	f->items[i].expanded = true;
	f->items[i].text[0] = '-';
}

static void collapse(struct findings *f, size_t i)
{
	size_t j = i + 1;
	while (j < f->n && f->items[j].type == IT_EVIDENCE)
		free_item(&f->items[j++]);
	memmove(f->items + i + 1, f->items + j, (f->n - j) * sizeof(*f->items));
	f->n -= j - i - 1;
	f->items[i].expanded = false;
	f->items[i].text[0] = '+';
}

/* Where a row's lines are: its own, its event's, or the first network
 * event of its rank or host. */
static bool locate(struct tui *t, const struct item *it, struct tui_lines_arg *a)
{
	a->event_id = it->event_id;
	if (it->source_id > 0) {
		a->source_id = it->source_id;
		a->line_no = it->line_no;
		return true;
	}
	sqlite3_stmt *st = NULL;
	const char *sql = it->event_id > 0 ? "SELECT source_id, line_no, event_id FROM events WHERE event_id = ?1"
			: it->rank >= 0 ? "SELECT source_id, line_no, event_id FROM events WHERE rank = ?2 AND class = 'network' "
					  "ORDER BY time_us LIMIT 1"
					: "SELECT source_id, line_no, event_id FROM events WHERE host = ?3 AND class = 'network' LIMIT 1";
	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK)
		return false;
	if (it->event_id > 0)
		sqlite3_bind_int64(st, 1, it->event_id);
	else if (it->rank >= 0)
		sqlite3_bind_int(st, 2, it->rank);
	else
		sqlite3_bind_text(st, 3, it->host ? it->host : "", -1, SQLITE_STATIC);
	bool ok = sqlite3_step(st) == SQLITE_ROW;
	if (ok) {
		a->source_id = sqlite3_column_int64(st, 0);
		a->line_no = sqlite3_column_int64(st, 1);
		a->event_id = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	return ok;
}

static void enter(struct findings *f, struct tui *t)
{
	if (f->sel >= f->n)
		return;
	struct item *it = &f->items[f->sel];
	switch (it->type) {
	case IT_VERDICT: {
		const struct tui_verdict *v = &t->verdict;
		int rank = v->n_culprits && tui_rank_index(t, v->culprits[0]) >= 0 ? v->culprits[0] : t->cur.rank;
		int host = rank >= 0 ? t->ranks[tui_rank_index(t, rank)].host : t->cur.host;
		tui_set_cursor(t, rank, host, v->has_first_failure ? v->first_failure_us : t->cur.time_us);
		tui_pop_to_root(t);
		return;
	}
	case IT_FINDING:
		if (it->expanded)
			collapse(f, f->sel);
		else
			expand(f, t, f->sel);
		return;
	case IT_EVIDENCE:
	case IT_ROW: {
		struct tui_lines_arg a = {0};
		if (!locate(t, it, &a)) {
			tui_error(t, "no line to show for this row");
			return;
		}
		tui_push(t, &tui_lines_view, &a);
		return;
	}
	default:
		return;
	}
}

static bool fi_key(void *state, struct tui *t, enum tui_req req, int key)
{
	(void)key;
	struct findings *f = state;
	long sel = (long)f->sel;
	if (tui_list_move(req, page_rows(t), (long)f->n, &sel)) {
		f->sel = (size_t)sel;
		return true;
	}
	if (req != REQ_ENTER)
		return false;
	enter(f, t);
	return true;
}

const struct view_ops tui_findings_view = {
	.name = "findings",
	.open = fi_open,
	.close = fi_close,
	.draw = fi_draw,
	.key = fi_key,
};
