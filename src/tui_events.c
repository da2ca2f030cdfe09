/* tui_events.c: the events view: the events of the selected rank (or host,
 * or all ranks with a) around the cursor time, in time order, with time,
 * rank, kind and the text of their line. It pages with keyset queries on
 * (time_us, event_id) through the events_rank_time / events_time indexes,
 * so only the rows on the screen are read. Enter opens the raw lines. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "fr_table.h"
#include "tui.h"
#include "tui_colors.h"
#include "tui_draw.h"
#include "tui_linetext.h"
#include "tui_view.h"

struct ev_row {
	int64_t id, time_us, source_id, line_no;
	int rank; /* -1 none */
	char *host, *kind, *class_name, *text;
};

struct events {
	bool all;
	int rank, host;       /* the scope when !all: a rank, or a host (rank -1) */
	int64_t key_t, key_id; /* the selected event, or where to start */
	bool exact;           /* key is an event (else the first event at or after) */
	int sel_pos;          /* its row on the screen */
	int hscroll;
	unsigned seen_gen;
	struct ev_row *rows;  /* as drawn: rows[sel_pos] is the selected one */
	size_t n_rows;
	size_t sel;
};

static const char COLUMNS[] =
	"SELECT e.event_id, e.time_us, e.rank, e.host, e.kind, e.class, e.source_id, e.line_no, " EVENT_FIELDS("e")
	" FROM events e ";

static void free_rows(struct events *ev)
{
	for (size_t i = 0; i < ev->n_rows; i++) {
		free(ev->rows[i].host);
		free(ev->rows[i].kind);
		free(ev->rows[i].class_name);
		free(ev->rows[i].text);
	}
	free(ev->rows);
	ev->rows = NULL;
	ev->n_rows = 0;
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	char *s = db_column_text_dup(st, i);
	return s ? s : xstrdup("");
}

/* Runs COLUMNS + the scope, filter and `cond` ordered by `order`; rows
 * appended to out, with the text of their line when with_text (else the
 * fields). */
static size_t fetch(struct events *ev, struct tui *t, const char *cond, const char *order, int64_t kt, int64_t kid,
		    long limit, bool with_text, struct ev_row **out, size_t *n_out, size_t *cap)
{
	char *filter = tui_kind_filter_sql(t, "e.kind");
	char *scope;
	if (ev->all) {
		scope = sqlite3_mprintf("1");
	} else if (ev->rank >= 0) {
		scope = sqlite3_mprintf("e.rank = %d", ev->rank);
	} else if (ev->host >= 0) { /* the host's ranks and its rank-less lines, both through an index */
		const struct tui_host *h = &t->hosts[ev->host];
		sqlite3_str *b = sqlite3_str_new(NULL);
		sqlite3_str_appendf(b, "(e.rank IN (");
		for (size_t i = 0; i < h->n_ranks; i++)
			sqlite3_str_appendf(b, "%s%d", i ? "," : "", h->ranks[i]);
		if (strcmp(h->name, "(no host)") == 0)
			sqlite3_str_appendf(b, ") OR (e.rank IS NULL AND e.host IS NULL))");
		else /* by source: events_source is an index, host is not */
			sqlite3_str_appendf(b, ") OR (+e.rank IS NULL AND +e.host = %Q AND e.source_id IN "
					    "(SELECT source_id FROM sources WHERE host = %Q)))", h->name, h->name);
		scope = sqlite3_str_finish(b);
	} else {
		scope = sqlite3_mprintf("0");
	}
	char *sql = sqlite3_mprintf("%s WHERE e.time_us IS NOT NULL AND %s AND %s AND %s ORDER BY %s LIMIT %ld", COLUMNS,
				    scope, filter, cond, order, limit);
	sqlite3_free(filter);
	sqlite3_free(scope);
	sqlite3_stmt *st = NULL;
	size_t got = 0;
	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK) {
		tui_error(t, "events: %s", sqlite3_errmsg(t->db));
		sqlite3_free(sql);
		return 0;
	}
	sqlite3_free(sql);
	sqlite3_bind_int64(st, 1, kt);
	sqlite3_bind_int64(st, 2, kid);
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(out, cap, *n_out + 1, sizeof(**out));
		struct ev_row *r = &(*out)[(*n_out)++];
		r->id = sqlite3_column_int64(st, 0);
		r->time_us = tui_time(sqlite3_column_int64(st, 1));
		r->rank = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 2);
		r->host = dup_col(st, 3);
		r->kind = dup_col(st, 4);
		r->class_name = dup_col(st, 5);
		r->source_id = sqlite3_column_int64(st, 6);
		r->line_no = sqlite3_column_int64(st, 7);
		r->text = with_text ? tui_line_body(t->db, r->source_id, r->line_no) : NULL;
		if (!r->text)
			r->text = dup_col(st, 8);
		got++;
	}
	sqlite3_finalize(st);
	return got;
}

#define AFTER "(e.time_us, e.event_id) >= (?1, ?2)"
#define AFTER_STRICT "(e.time_us, e.event_id) > (?1, ?2)"
#define BEFORE "(e.time_us, e.event_id) < (?1, ?2)"
#define ASC "e.time_us, e.event_id"
#define DESC "e.time_us DESC, e.event_id DESC"

static int page_rows(const struct tui *t)
{
	return tui_page_rows(t, 2); /* title, column header */
}

static void sync_scope(struct events *ev, struct tui *t)
{
	ev->rank = t->cur.rank;
	ev->host = t->cur.host;
	ev->key_t = t->cur.time_us;
	ev->key_id = INT64_MIN;
	ev->exact = false;
	ev->sel_pos = page_rows(t) / 2;
	ev->seen_gen = t->cur.gen;
}

/* Tells the other views where the selection is. */
static void publish(struct events *ev, struct tui *t)
{
	if (ev->sel >= ev->n_rows)
		return;
	const struct ev_row *r = &ev->rows[ev->sel];
	int rank = ev->all ? (r->rank >= 0 && tui_rank_index(t, r->rank) >= 0 ? r->rank : -1) : ev->rank;
	int host = rank >= 0 ? t->ranks[tui_rank_index(t, rank)].host : ev->all ? tui_host_index(t, r->host) : ev->host;
	if (host < 0)
		host = t->cur.host;
	tui_set_cursor(t, rank, host, r->time_us);
	ev->seen_gen = t->cur.gen;
}

static void load(struct events *ev, struct tui *t)
{
	free_rows(ev);
	int h = page_rows(t);
	if (ev->sel_pos >= h)
		ev->sel_pos = h - 1;
	if (ev->sel_pos < 0)
		ev->sel_pos = 0;
	struct ev_row *after = NULL, *before = NULL;
	size_t n_after = 0, n_before = 0, cap_a = 0, cap_b = 0;
	fetch(ev, t, AFTER, ASC, ev->key_t, ev->key_id, h - ev->sel_pos, true, &after, &n_after, &cap_a);
	if (!n_after) /* past the end: the last event */
		fetch(ev, t, "1", DESC, 0, 0, 1, true, &after, &n_after, &cap_a);
	if (n_after) {
		ev->key_t = after[0].time_us;
		ev->key_id = after[0].id;
		ev->exact = true;
		long want = ev->sel_pos;
		if ((long)n_after < h - ev->sel_pos)
			want = h - (long)n_after; /* near the end: fill the screen from above */
		fetch(ev, t, BEFORE, DESC, ev->key_t, ev->key_id, want, true, &before, &n_before, &cap_b);
	}
	ev->sel_pos = (int)n_before;
	ev->rows = xcalloc(n_before + n_after + 1, sizeof(*ev->rows));
	for (size_t i = 0; i < n_before; i++)
		ev->rows[i] = before[n_before - 1 - i];
	for (size_t i = 0; i < n_after; i++)
		ev->rows[n_before + i] = after[i];
	ev->n_rows = n_before + n_after;
	ev->sel = n_before;
	free(after);
	free(before);
}

static void *ev_open(struct tui *t, const void *arg)
{
	const struct tui_events_arg *a = arg;
	struct events *ev = xcalloc(1, sizeof(*ev));
	ev->all = a && a->all;
	sync_scope(ev, t);
	if (!ev->all && ev->rank < 0 && ev->host < 0)
		ev->all = true;
	return ev;
}

static void ev_close(void *state)
{
	struct events *ev = state;
	free_rows(ev);
	free(ev);
}

static bool is_match(const struct tui *t, const struct ev_row *r)
{
	for (size_t i = 0; i < t->n_matches; i++) /* matches are few next to a screen of events */
		if (t->matches[i].source_id == r->source_id && t->matches[i].line_no == r->line_no)
			return true;
	return false;
}

static void ev_draw(void *state, struct tui *t)
{
	struct events *ev = state;
	if (ev->seen_gen != t->cur.gen) { /* moved elsewhere (n, N, marks) */
		bool all = ev->all;
		sync_scope(ev, t);
		ev->all = all || (ev->rank < 0 && ev->host < 0);
	}
	load(ev, t);
	char scope[160], tb[32];
	if (ev->all)
		snprintf(scope, sizeof(scope), "all ranks");
	else if (ev->rank >= 0)
		snprintf(scope, sizeof(scope), "r%d%s%s", ev->rank, ev->host >= 0 ? "@" : "",
			 ev->host >= 0 ? t->hosts[ev->host].name : "");
	else
		snprintf(scope, sizeof(scope), "host %s", t->hosts[ev->host].name);
	tui_fmt_time(ev->n_rows ? ev->rows[ev->sel].time_us : ev->key_t, TP_MS, tb, sizeof(tb));
	size_t hidden = tui_hidden_kinds(t);
	char hb[48] = "";
	if (hidden)
		snprintf(hb, sizeof(hb), " | %zu kinds hidden", hidden);
	tui_title(t, "events", "%s (a: %s) | %s%s", scope, ev->all ? "one rank" : "all ranks", tb, hb);
	int wtime = 12, wwho = ev->all ? 12 : 6, wkind = 24;
	int x_who = 2 + wtime + 1, x_kind = x_who + wwho + 1, x_text = x_kind + wkind + 1;
	attr_t ha = tui_attr(R_HEADER);
	tui_fill(1, 0, t->cols, ha);
	tui_text(1, 2, wtime, "time", -1, ha, false);
	tui_text(1, x_who, wwho, ev->all ? "rank/host" : "rank", -1, ha, false);
	tui_text(1, x_kind, wkind, "kind", -1, ha, false);
	tui_text(1, x_text, t->cols - x_text, ev->hscroll ? "text (scrolled)" : "text", -1, ha, false);
	if (!ev->n_rows) {
		tui_text(2, 2, t->cols - 2, hidden ? "no events (some kinds are hidden: F)" : "no timed events here", -1,
			 A_NORMAL, true);
		return;
	}
	for (size_t i = 0; i < ev->n_rows && (int)i < page_rows(t); i++) {
		const struct ev_row *r = &ev->rows[i];
		int y = 2 + (int)i;
		bool sel = i == ev->sel;
		attr_t a = sel ? tui_attr(R_SELECTED) : A_NORMAL;
		tui_fill(y, 0, t->cols, a);
		if (sel)
			tui_glyph(y, 0, G_SELECT, a);
		if (tui_mark_at(t, r->rank >= 0 ? r->rank : -1, r->time_us))
			mvaddch(y, 1, '@' | a | tui_attr(R_MARK));
		else if (t->n_matches && is_match(t, r))
			mvaddch(y, 1, '/' | a | tui_attr(R_MATCH));
		tui_fmt_time(r->time_us, TP_MS, tb, sizeof(tb));
		tui_text(y, 2, wtime, tb, -1, a | (sel ? 0 : tui_attr(R_DIM)), false);
		{
			char who[96];
			if (r->rank >= 0)
				snprintf(who, sizeof(who), "r%d", r->rank);
			else
				snprintf(who, sizeof(who), "%s", r->host[0] ? r->host : "-");
			tui_text(y, x_who, wwho, who, -1, a | (r->rank >= 0 && tui_is_culprit(t, r->rank) ? tui_attr(R_CULPRIT) : 0), true);
		}
		const struct tui_marker *m = &tui_markers[tui_marker_index(r->class_name)];
		mvaddch(y, x_kind, (chtype)m->ch | a | (sel ? 0 : tui_attr(m->role)));
		tui_text(y, x_kind + 2, wkind - 2, r->kind, -1, a, true);
		const char *text = r->text;
		size_t len = strlen(text), skip = (size_t)ev->hscroll;
		if (skip > len)
			skip = len;
		tui_text(y, x_text, t->cols - x_text, text + skip, -1, a, true);
	}
}

/* The key of the event `n` rows away from the selection (+ later, - earlier),
 * or the last one that way. */
static bool key_at(struct events *ev, struct tui *t, long n, int64_t *kt, int64_t *kid)
{
	struct ev_row *rows = NULL;
	size_t nr = 0, cap = 0;
	if (n > 0)
		fetch(ev, t, AFTER_STRICT, ASC, ev->key_t, ev->key_id, n, false, &rows, &nr, &cap);
	else
		fetch(ev, t, BEFORE, DESC, ev->key_t, ev->key_id, -n, false, &rows, &nr, &cap);
	bool ok = nr > 0;
	if (ok) {
		*kt = rows[nr - 1].time_us;
		*kid = rows[nr - 1].id;
	}
	for (size_t i = 0; i < nr; i++) {
		free(rows[i].host);
		free(rows[i].kind);
		free(rows[i].class_name);
		free(rows[i].text);
	}
	free(rows);
	return ok;
}

static void move_sel(struct events *ev, struct tui *t, long n)
{
	int64_t kt, kid;
	if (!key_at(ev, t, n, &kt, &kid)) {
		tui_message(t, n > 0 ? "last event" : "first event");
		return;
	}
	ev->key_t = kt;
	ev->key_id = kid;
	long pos = ev->sel_pos + (n > 0 ? (n > 1 ? 0 : 1) : (n < -1 ? 0 : -1));
	ev->sel_pos = (int)pos;
	load(ev, t);
	publish(ev, t);
}

static bool ev_key(void *state, struct tui *t, enum tui_req req, int key)
{
	(void)key;
	struct events *ev = state;
	int h = page_rows(t);
	switch (req) {
	case REQ_UP: move_sel(ev, t, -1); break;
	case REQ_DOWN: move_sel(ev, t, 1); break;
	case REQ_PAGE_UP: move_sel(ev, t, -h); break;
	case REQ_PAGE_DOWN: move_sel(ev, t, h); break;
	case REQ_HOME:
		ev->key_t = INT64_MIN;
		ev->key_id = INT64_MIN;
		ev->sel_pos = 0;
		load(ev, t);
		publish(ev, t);
		break;
	case REQ_END:
		ev->key_t = INT64_MAX;
		ev->key_id = INT64_MAX;
		ev->sel_pos = h - 1;
		load(ev, t);
		publish(ev, t);
		break;
	case REQ_LEFT: ev->hscroll = ev->hscroll > 16 ? ev->hscroll - 16 : 0; break;
	case REQ_RIGHT: ev->hscroll += 16; break;
	case REQ_SCOPE:
		if (!ev->all) {
			ev->all = true;
		} else if (t->cur.rank >= 0 || t->cur.host >= 0) {
			ev->all = false;
			ev->rank = t->cur.rank;
			ev->host = t->cur.host;
		}
		load(ev, t);
		publish(ev, t);
		break;
	case REQ_ENTER: {
		if (ev->sel >= ev->n_rows)
			break;
		const struct ev_row *r = &ev->rows[ev->sel];
		struct tui_lines_arg a = {r->source_id, r->line_no, r->id};
		tui_push(t, &tui_lines_view, &a);
		break;
	}
	default:
		return false;
	}
	return true;
}

const struct view_ops tui_events_view = {
	.name = "events",
	.open = ev_open,
	.close = ev_close,
	.draw = ev_draw,
	.key = ev_key,
};
