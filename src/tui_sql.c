/* tui_sql.c: the SQL prompt (: or ;) and its result table. The case is
 * open read-only and only read-only statements are run; every error goes
 * to the status line. Rows are stepped only as far as the screen needs
 * (so SELECT * FROM lines is instant; End reads END_STEP more rows per
 * press), up to MAX_ROWS kept, one allocation per row. Enter on a row
 * with source_id and line_no (or event_id) columns opens those lines. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "tui_colors.h"
#include "tui_draw.h"
#include "tui_input.h"
#include "tui_view.h"

#define MAX_ROWS 100000
#define MAX_COL_WIDTH 40
#define END_STEP 5000 /* rows End reads per press, to stay responsive */

struct sqlv {
	sqlite3_stmt *st;
	char *sql;
	int ncol;
	char ***rows; /* rows[r][c], NULL for SQL NULL */
	size_t n_rows, cap;
	bool done, capped;
	char *error;
	int *width;
	size_t top, sel;
	int left;     /* first column shown */
	int col_source, col_line, col_event;
};

static void sql_done(struct tui *t, const char *text)
{
	if (!text)
		return;
	while (*text == ' ')
		text++;
	if (!*text)
		return;
	sqlite3_stmt *st = NULL;
	const char *tail = NULL;
	if (sqlite3_prepare_v2(t->db, text, -1, &st, &tail) != SQLITE_OK) {
		tui_error(t, "SQL: %s", sqlite3_errmsg(t->db));
		return;
	}
	if (!st) {
		tui_error(t, "SQL: nothing to run");
		return;
	}
	while (tail && (*tail == ' ' || *tail == ';' || *tail == '\n' || *tail == '\t'))
		tail++;
	if (tail && *tail) {
		sqlite3_finalize(st);
		tui_error(t, "SQL: one statement at a time");
		return;
	}
	if (!sqlite3_stmt_readonly(st) || sqlite3_column_count(st) == 0) {
		sqlite3_finalize(st);
		tui_error(t, "SQL: only queries that return rows (SELECT, WITH, VALUES) run here");
		return;
	}
	struct tui_sql_arg a = {st, text};
	tui_push(t, &tui_sql_view, &a); /* takes st, also when it fails */
}

void tui_sql_prompt(struct tui *t)
{
	tui_prompt_open(t, ":", HIST_SQL, sql_done);
}

static int find_col(sqlite3_stmt *st, const char *name)
{
	for (int c = 0; c < sqlite3_column_count(st); c++)
		if (sqlite3_column_name(st, c) && strcmp(sqlite3_column_name(st, c), name) == 0)
			return c;
	return -1;
}

/* Steps until `need` rows are kept (or the end). */
static void fetch(struct sqlv *v, struct tui *t, size_t need)
{
	while (!v->done && v->n_rows < need) {
		if (v->n_rows == MAX_ROWS) {
			v->capped = v->done = true;
			break;
		}
		int rc = sqlite3_step(v->st);
		if (rc == SQLITE_DONE) {
			v->done = true;
			break;
		}
		if (rc != SQLITE_ROW) {
			v->done = true;
			free(v->error);
			v->error = xstrdup(sqlite3_errmsg(t->db));
			tui_error(t, "SQL: %s", v->error);
			break;
		}
		xgrow(&v->rows, &v->cap, v->n_rows + 1, sizeof(*v->rows));
		/* the column pointers and the strings in one block */
		size_t bytes = ((size_t)v->ncol + 1) * sizeof(char *);
		for (int c = 0; c < v->ncol; c++)
			if (sqlite3_column_type(v->st, c) != SQLITE_NULL)
				bytes += (size_t)sqlite3_column_bytes(v->st, c) + 1;
		char **row = xmalloc(bytes);
		char *p = (char *)(row + v->ncol + 1);
		for (int c = 0; c < v->ncol; c++) {
			const char *s = (const char *)sqlite3_column_text(v->st, c);
			row[c] = NULL;
			if (!s)
				continue;
			size_t n = (size_t)sqlite3_column_bytes(v->st, c);
			memcpy(p, s, n);
			p[n] = '\0';
			row[c] = p;
			p += n + 1;
			if (v->width[c] < MAX_COL_WIDTH) {
				int w = tui_text_width(row[c], (long)n);
				if (w > v->width[c])
					v->width[c] = w > MAX_COL_WIDTH ? MAX_COL_WIDTH : w;
			}
		}
		row[v->ncol] = NULL;
		v->rows[v->n_rows++] = row;
	}
}

static int page_rows(const struct tui *t)
{
	return tui_page_rows(t, 2);
}

static void sv_close(void *state);

static void *sv_open(struct tui *t, const void *arg)
{
	const struct tui_sql_arg *a = arg;
	struct sqlv *v = xcalloc(1, sizeof(*v));
	v->st = a->stmt;
	v->sql = xstrdup(a->sql);
	v->ncol = sqlite3_column_count(v->st);
	v->width = xcalloc((size_t)v->ncol + 1, sizeof(int));
	for (int c = 0; c < v->ncol; c++) {
		int w = tui_text_width(sqlite3_column_name(v->st, c), -1);
		v->width[c] = w > MAX_COL_WIDTH ? MAX_COL_WIDTH : w;
	}
	v->col_source = find_col(v->st, "source_id");
	v->col_line = find_col(v->st, "line_no");
	v->col_event = find_col(v->st, "event_id");
	fetch(v, t, (size_t)page_rows(t) + 1);
	if (v->error && !v->n_rows) { /* failed at once: stay where we were */
		sv_close(v);
		return NULL;
	}
	return v;
}

static void sv_close(void *state)
{
	struct sqlv *v = state;
	sqlite3_finalize(v->st);
	for (size_t r = 0; r < v->n_rows; r++)
		free(v->rows[r]);
	free(v->rows);
	free(v->width);
	free(v->sql);
	free(v->error);
	free(v);
}

static void sv_draw(void *state, struct tui *t)
{
	struct sqlv *v = state;
	int h = page_rows(t);
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + (size_t)h)
		v->top = v->sel - (size_t)h + 1;
	fetch(v, t, v->top + (size_t)h + 1);
	char count[64];
	snprintf(count, sizeof(count), "%zu%s row%s", v->n_rows, v->done ? "" : "+", v->n_rows == 1 && v->done ? "" : "s");
	tui_title(t, "sql", "%s%s | %s", count, v->capped ? " (kept the first ones)" : "", v->sql);
	attr_t ha = tui_attr(R_HEADER);
	tui_fill(1, 0, t->cols, ha);
	int x = 1;
	for (int c = v->left; c < v->ncol && x < t->cols; c++) {
		tui_text(1, x, v->width[c] < t->cols - x ? v->width[c] : t->cols - x, sqlite3_column_name(v->st, c), -1, ha,
			 true);
		x += v->width[c] + 2;
	}
	for (int i = 0; i < h && v->top + (size_t)i < v->n_rows; i++) {
		size_t r = v->top + (size_t)i;
		int y = 2 + i;
		bool sel = r == v->sel;
		attr_t a = sel ? tui_attr(R_SELECTED) : A_NORMAL;
		if (sel) {
			tui_fill(y, 0, t->cols, a);
			tui_glyph(y, 0, G_SELECT, a);
		}
		x = 1;
		for (int c = v->left; c < v->ncol && x < t->cols; c++) {
			const char *s = v->rows[r][c];
			int w = v->width[c] < t->cols - x ? v->width[c] : t->cols - x;
			if (s)
				tui_text(y, x, w, s, -1, a, true);
			else
				tui_text(y, x, w, "NULL", -1, a | (sel ? 0 : tui_attr(R_DIM)), true);
			x += v->width[c] + 2;
		}
	}
	if (!v->n_rows)
		tui_text(2, 1, t->cols - 1, v->error ? v->error : "no rows", -1, A_NORMAL, true);
}

static void open_row(struct sqlv *v, struct tui *t)
{
	if (v->sel >= v->n_rows)
		return;
	char **row = v->rows[v->sel];
	struct tui_lines_arg a = {0};
	if (v->col_source >= 0 && v->col_line >= 0 && row[v->col_source] && row[v->col_line]) {
		a.source_id = strtoll(row[v->col_source], NULL, 10);
		a.line_no = strtoll(row[v->col_line], NULL, 10);
		if (v->col_event >= 0 && row[v->col_event])
			a.event_id = strtoll(row[v->col_event], NULL, 10);
	} else if (v->col_event >= 0 && row[v->col_event]) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(t->db, "SELECT source_id, line_no FROM events WHERE event_id = ?1", -1, &st, NULL) ==
		    SQLITE_OK) {
			a.event_id = strtoll(row[v->col_event], NULL, 10);
			sqlite3_bind_int64(st, 1, a.event_id);
			if (sqlite3_step(st) == SQLITE_ROW) {
				a.source_id = sqlite3_column_int64(st, 0);
				a.line_no = sqlite3_column_int64(st, 1);
			}
			sqlite3_finalize(st);
		}
	}
	if (!a.source_id) {
		tui_error(t, "Enter opens lines from rows with source_id and line_no (or event_id) columns");
		return;
	}
	tui_push(t, &tui_lines_view, &a);
}

static bool sv_key(void *state, struct tui *t, enum tui_req req, int key)
{
	(void)key;
	struct sqlv *v = state;
	long sel = (long)v->sel;
	if (req == REQ_END) {
		fetch(v, t, v->n_rows + END_STEP);
		if (!v->done)
			tui_message(t, "%zu rows read so far: End again reads more", v->n_rows);
		v->sel = (size_t)tui_list_clamp((long)v->n_rows - 1, (long)v->n_rows);
		return true;
	}
	/* rows are read as the selection goes down: moved first, then clamped */
	if (tui_list_move(req, page_rows(t), LONG_MAX, &sel)) {
		if (sel > 0)
			fetch(v, t, (size_t)sel + 1);
		v->sel = (size_t)tui_list_clamp(sel, (long)v->n_rows);
		return true;
	}
	switch (req) {
	case REQ_LEFT:
		if (v->left > 0)
			v->left--;
		return true;
	case REQ_RIGHT:
		if (v->left + 1 < v->ncol)
			v->left++;
		return true;
	case REQ_ENTER:
		open_row(v, t);
		return true;
	default:
		return false;
	}
}

const struct view_ops tui_sql_view = {
	.name = "sql",
	.open = sv_open,
	.close = sv_close,
	.draw = sv_draw,
	.key = sv_key,
};
