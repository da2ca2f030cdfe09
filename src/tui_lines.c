/* tui_lines.c: the raw lines of one source file around a line, with the
 * source path and line numbers; the line an event came from is marked and
 * search matches are highlighted. Reads only the lines on the screen (the
 * `lines` table seeks to the block holding them). n and N follow the
 * search across files. */
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
#include "tui_view.h"

struct line_row {
	int64_t line_no, time_us;
	bool has_time;
	char *text;
};

struct lines {
	int64_t source_id, target, event_id;
	char *path, *kind, *host;
	int rank;
	int64_t max_line, stored;
	int64_t top, cur;      /* line numbers: first on screen, cursor */
	int hscroll;
	bool wrap;             /* long lines continue on the rows below (w) */
	struct line_row *rows;
	size_t n_rows;
	char *fields;          /* the event's fields when the source kept no text */
	pcre2_match_data *md;
};

static void free_rows(struct lines *lv)
{
	for (size_t i = 0; i < lv->n_rows; i++)
		free(lv->rows[i].text);
	free(lv->rows);
	lv->rows = NULL;
	lv->n_rows = 0;
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	return db_column_text_dup(st, i);
}

static int page_rows(const struct tui *t)
{
	return tui_page_rows(t, 1);
}

/* Loads what is known about the source; false if there is no such source. */
static bool set_source(struct lines *lv, struct tui *t, int64_t source_id, int64_t line_no, int64_t event_id)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db, "SELECT path, kind, host, rank, lines, stored_lines FROM sources WHERE source_id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_int64(st, 1, source_id);
	bool ok = sqlite3_step(st) == SQLITE_ROW;
	if (ok) {
		free(lv->path);
		free(lv->kind);
		free(lv->host);
		lv->path = col_dup(st, 0);
		lv->kind = col_dup(st, 1);
		lv->host = col_dup(st, 2);
		lv->rank = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 3);
		lv->max_line = sqlite3_column_int64(st, 4);
		lv->stored = sqlite3_column_int64(st, 5);
		lv->source_id = source_id;
		lv->target = line_no;
		lv->cur = line_no;
		lv->top = line_no - page_rows(t) / 2;
		if (lv->top < 1)
			lv->top = 1;
		lv->event_id = event_id;
		free(lv->fields);
		lv->fields = NULL;
		if (event_id > 0) {
			sqlite3_stmt *f = NULL;
			if (sqlite3_prepare_v2(t->db, "SELECT " EVENT_FIELDS("e") " FROM events e WHERE e.event_id = ?1", -1, &f, NULL) == SQLITE_OK) {
				sqlite3_bind_int64(f, 1, event_id);
				if (sqlite3_step(f) == SQLITE_ROW)
					lv->fields = col_dup(f, 0);
				sqlite3_finalize(f);
			}
		}
	}
	sqlite3_finalize(st);
	return ok;
}

static void load(struct lines *lv, struct tui *t)
{
	free_rows(lv);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db, "SELECT line_no, time_us, text FROM lines WHERE source_id = ?1 AND line_no >= ?2 "
				      "ORDER BY source_id, line_no LIMIT ?3", -1, &st, NULL) != SQLITE_OK) {
		tui_error(t, "lines: %s", sqlite3_errmsg(t->db));
		return;
	}
	sqlite3_bind_int64(st, 1, lv->source_id);
	sqlite3_bind_int64(st, 2, lv->top);
	sqlite3_bind_int(st, 3, page_rows(t));
	lv->rows = xcalloc((size_t)page_rows(t) + 1, sizeof(*lv->rows));
	while (sqlite3_step(st) == SQLITE_ROW && lv->n_rows < (size_t)page_rows(t)) {
		struct line_row *r = &lv->rows[lv->n_rows++];
		r->line_no = sqlite3_column_int64(st, 0);
		r->has_time = sqlite3_column_type(st, 1) != SQLITE_NULL;
		r->time_us = tui_time(sqlite3_column_int64(st, 1));
		r->text = db_column_text_dup(st, 2);
		if (!r->text)
			r->text = xstrdup("");
	}
	sqlite3_finalize(st);
}

static void *lv_open(struct tui *t, const void *arg)
{
	const struct tui_lines_arg *a = arg;
	struct lines *lv = xcalloc(1, sizeof(*lv));
	if (!a || !set_source(lv, t, a->source_id, a->line_no, a->event_id)) {
		tui_error(t, "no source %lld in this case", a ? (long long)a->source_id : 0LL);
		free(lv);
		return NULL;
	}
	return lv;
}

static void lv_close(void *state)
{
	struct lines *lv = state;
	free_rows(lv);
	free(lv->path);
	free(lv->kind);
	free(lv->host);
	free(lv->fields);
	pcre2_match_data_free(lv->md);
	free(lv);
}

/* Draws text from byte `skip` with the search matches highlighted. */
static void draw_text(struct lines *lv, struct tui *t, int y, int x, const char *s, size_t skip, attr_t a)
{
	size_t len = strlen(s);
	if (skip > len)
		skip = len;
	size_t pos = skip;
	if (t->re) {
		if (!lv->md)
			lv->md = pcre2_match_data_create(4, NULL);
		size_t from = 0;
		for (int k = 0; k < 32 && x < t->cols && from <= len; k++) {
			if (pcre2_match(t->re, (PCRE2_SPTR)s, len, from, 0, lv->md, NULL) < 0)
				break;
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(lv->md);
			size_t ms = ov[0], me = ov[1];
			if (me <= pos) {
				from = me > from ? me : from + 1;
				continue;
			}
			if (ms < pos)
				ms = pos;
			x += tui_text(y, x, t->cols - x, s + pos, (long)(ms - pos), a, false);
			x += tui_text(y, x, t->cols - x, s + ms, (long)(me - ms), a | tui_attr(R_MATCH), false);
			pos = me;
			from = me > ov[0] ? me : me + 1;
		}
	}
	if (x < t->cols)
		tui_text(y, x, t->cols - x, s + pos, -1, a, true);
}

/* Bytes of s (len) that fill at most w screen columns, not splitting a
 * UTF-8 character; at least one character. */
static size_t chunk_bytes(const char *s, size_t len, int w)
{
	size_t k = len < (size_t)w ? len : (size_t)w;
	while (k < len && k > 1 && ((unsigned char)s[k] & 0xC0) == 0x80)
		k--;
	return k ? k : (len ? 1 : 0);
}

/* The wrap mode: each line on as many rows as it needs; the cursor's line
 * is on the screen (it becomes the first one when the lines before it
 * would push it off). */
static void draw_wrapped(struct lines *lv, struct tui *t, int digits, int x_text, int h)
{
	int w = t->cols - x_text > 8 ? t->cols - x_text : 8;
	for (int pass = 0; pass < 2; pass++) {
		int y = 1;
		bool cur_seen = false;
		for (size_t i = 0; i < lv->n_rows && y <= h; i++) {
			const struct line_row *r = &lv->rows[i];
			bool cur = r->line_no == lv->cur;
			attr_t a = cur ? tui_attr(R_SELECTED) : r->line_no == lv->target ? tui_attr(R_TARGET) : A_NORMAL;
			const char *p = r->text;
			size_t len = strlen(p);
			bool first = true;
			do {
				size_t k = chunk_bytes(p, len, w);
				tui_fill(y, 0, t->cols, a);
				if (first) {
					if (r->line_no == lv->target)
						tui_glyph(y, 0, G_SELECT, a);
					tui_printf(y, 1, digits + 1, a | (a ? 0 : tui_attr(R_DIM)), "%*lld", digits,
						   (long long)r->line_no);
				}
				char *piece = xstrndup(p, k);
				draw_text(lv, t, y, x_text, piece, 0, a);
				free(piece);
				p += k, len -= k, y++, first = false;
			} while (len && y <= h);
			cur_seen |= cur && !len;
		}
		if (cur_seen || pass || lv->top == lv->cur)
			break;
		/* the cursor's line did not fit: it starts the screen */
		lv->top = lv->cur;
		for (int yy = 1; yy <= h; yy++)
			tui_fill(yy, 0, t->cols, A_NORMAL);
		load(lv, t);
	}
	if (!lv->n_rows)
		tui_text(1, 0, t->cols, "no stored lines here", -1, A_NORMAL, true);
}

static void lv_draw(void *state, struct tui *t)
{
	struct lines *lv = state;
	int h = page_rows(t);
	if (lv->cur < lv->top)
		lv->top = lv->cur;
	if (lv->cur >= lv->top + h)
		lv->top = lv->cur - h + 1;
	if (lv->top < 1)
		lv->top = 1;
	load(lv, t);
	char who[160] = "";
	if (lv->rank >= 0)
		snprintf(who, sizeof(who), ", r%d", lv->rank);
	tui_title(t, "lines", "%s:%lld (%s%s%s%s)", lv->path, (long long)lv->cur, lv->kind, lv->host ? ", " : "",
		  lv->host ? lv->host : "", who);
	if (!lv->stored) {
		tui_text(1, 0, t->cols, "This source kept no text lines (a binary or skipped file).", -1, A_NORMAL, true);
		if (lv->fields) {
			tui_text(3, 0, t->cols, "The event's fields:", -1, tui_attr(R_HEADER), true);
			/* the JSON, cut into screen lines */
			const char *s = lv->fields;
			size_t len = strlen(s);
			int w = t->cols - 2;
			for (int y = 4; y < h + 1 && len; y++) {
				size_t n = len < (size_t)w ? len : (size_t)w;
				tui_text(y, 2, w, s, (long)n, A_NORMAL, false);
				s += n;
				len -= n;
			}
		}
		return;
	}
	int digits = 1;
	for (int64_t m = lv->max_line; m >= 10; m /= 10)
		digits++;
	int x_text = digits + 3;
	if (lv->wrap) {
		draw_wrapped(lv, t, digits, x_text, h);
		return;
	}
	for (size_t i = 0; i < lv->n_rows; i++) {
		const struct line_row *r = &lv->rows[i];
		int y = 1 + (int)i;
		bool cur = r->line_no == lv->cur;
		attr_t a = cur ? tui_attr(R_SELECTED) : r->line_no == lv->target ? tui_attr(R_TARGET) : A_NORMAL;
		tui_fill(y, 0, t->cols, a);
		if (r->line_no == lv->target)
			tui_glyph(y, 0, G_SELECT, a);
		tui_printf(y, 1, digits + 1, a | (a ? 0 : tui_attr(R_DIM)), "%*lld", digits, (long long)r->line_no);
		draw_text(lv, t, y, x_text, r->text, (size_t)lv->hscroll, a);
	}
	if (!lv->n_rows)
		tui_text(1, 0, t->cols, "no stored lines here", -1, A_NORMAL, true);
}

static void move_cur(struct lines *lv, struct tui *t, int64_t n)
{
	lv->cur += n;
	if (lv->cur > lv->max_line)
		lv->cur = lv->max_line;
	if (lv->cur < 1)
		lv->cur = 1;
	/* the shared cursor follows the line's time, so n and the timeline
	 * continue from here */
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(t->db, "SELECT time_us FROM lines WHERE source_id = ?1 AND line_no = ?2", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, lv->source_id);
		sqlite3_bind_int64(st, 2, lv->cur);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			tui_set_cursor(t, t->cur.rank, t->cur.host, sqlite3_column_int64(st, 0));
		sqlite3_finalize(st);
	}
}

static bool lv_key(void *state, struct tui *t, enum tui_req req, int key)
{
	(void)key;
	struct lines *lv = state;
	int h = page_rows(t);
	switch (req) {
	case REQ_UP: move_cur(lv, t, -1); break;
	case REQ_DOWN: move_cur(lv, t, 1); break;
	case REQ_PAGE_UP:
		lv->top -= h;
		move_cur(lv, t, -h);
		break;
	case REQ_PAGE_DOWN:
		lv->top += h;
		move_cur(lv, t, h);
		break;
	case REQ_HOME: move_cur(lv, t, -lv->cur); break;
	case REQ_END: move_cur(lv, t, lv->max_line); break;
	case REQ_WRAP:
		lv->wrap = !lv->wrap;
		lv->hscroll = 0;
		tui_message(t, lv->wrap ? "long lines wrap (w: cut them at the edge)" : "long lines cut at the edge (w: wrap)");
		break;
	case REQ_LEFT: lv->hscroll = lv->hscroll > 16 ? lv->hscroll - 16 : 0; break;
	case REQ_RIGHT: lv->hscroll += 16; break;
	case REQ_NEXT_MATCH:
	case REQ_PREV_MATCH: {
		const struct tui_match *m = tui_search_step(t, req == REQ_NEXT_MATCH ? 1 : -1);
		if (m && !set_source(lv, t, m->source_id, m->line_no, 0))
			tui_error(t, "no source %lld", (long long)m->source_id);
		break;
	}
	default:
		return false;
	}
	return true;
}

const struct view_ops tui_lines_view = {
	.name = "lines",
	.open = lv_open,
	.close = lv_close,
	.draw = lv_draw,
	.key = lv_key,
};
