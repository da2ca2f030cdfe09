/* tui.c: the terminal UI's main loop: opens the case, the terminal and the
 * timeline, then reads keys (from the terminal, or from a key script in
 * headless mode), hands each to the top view and falls back to the global
 * keys; draws the top view and the status line after every key. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1 /* cchar_t even without the pkg-config flags */
#endif
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "case_db.h"
#include "tui.h"
#include "tui_colors.h"
#include "tui_draw.h"
#include "tui_input.h"
#include "tui_linetext.h"
#include "tui_run.h"
#include "tui_term.h"
#include "tui_view.h"

#define MIN_ROWS 6
#define MIN_COLS 30

int tui_view_rows(const struct tui *t)
{
	return t->rows - 1;
}

int tui_page_rows(const struct tui *t, int header)
{
	int n = tui_view_rows(t) - header;
	return n < 1 ? 1 : n;
}

long tui_list_clamp(long sel, long n)
{
	if (sel >= n)
		sel = n - 1;
	return sel < 0 ? 0 : sel;
}

bool tui_list_move(enum tui_req req, long page, long n, long *sel)
{
	long s = *sel;
	switch (req) {
	case REQ_UP: s--; break;
	case REQ_DOWN: s++; break;
	case REQ_PAGE_UP: s -= page; break;
	case REQ_PAGE_DOWN: s += page; break;
	case REQ_HOME: s = 0; break;
	case REQ_END: s = n - 1; break;
	default: return false;
	}
	*sel = tui_list_clamp(s, n);
	return true;
}

void tui_push(struct tui *t, const struct view_ops *ops, const void *arg)
{
	if (t->depth == TUI_MAX_VIEWS) {
		tui_error(t, "too many views open: close some with q");
		return;
	}
	void *state = ops->open(t, arg);
	if (!state)
		return;
	t->stack[t->depth].ops = ops;
	t->stack[t->depth].state = state;
	t->depth++;
}

void tui_pop(struct tui *t)
{
	if (t->depth <= 0)
		return;
	t->depth--;
	t->stack[t->depth].ops->close(t->stack[t->depth].state);
	t->stack[t->depth].state = NULL;
	if (t->depth == 0)
		t->quit = true;
}

void tui_pop_to_root(struct tui *t)
{
	while (t->depth > 1)
		tui_pop(t);
}

static void set_msg(struct tui *t, bool error, const char *fmt, va_list ap)
{
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	for (char *p = t->msg; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	t->msg_error = error;
}

void tui_message(struct tui *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_msg(t, false, fmt, ap);
	va_end(ap);
}

void tui_error(struct tui *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_msg(t, true, fmt, ap);
	va_end(ap);
}

void tui_set_cursor(struct tui *t, int rank, int host, int64_t time_us)
{
	t->cur.rank = rank;
	t->cur.host = host;
	t->cur.time_us = tui_time(time_us);
	t->cur.gen++;
}

static const struct view_ops *top_ops(const struct tui *t)
{
	return t->depth ? t->stack[t->depth - 1].ops : NULL;
}

/* Opens a view unless it is already on top. */
static void open_view(struct tui *t, const struct view_ops *ops, const void *arg)
{
	if (top_ops(t) == ops)
		return;
	tui_push(t, ops, arg);
}

static void global_key(struct tui *t, enum tui_req req, int key)
{
	char kb[16];
	switch (req) {
	case REQ_QUIT:
		tui_pop(t);
		break;
	case REQ_QUIT_ALL:
		t->quit = true;
		break;
	case REQ_BACK:
		if (t->depth > 1)
			tui_pop(t);
		break;
	case REQ_TIMELINE:
		tui_pop_to_root(t);
		break;
	case REQ_HELP:
		open_view(t, &tui_help_view, NULL);
		break;
	case REQ_SQL:
		tui_sql_prompt(t);
		break;
	case REQ_SEARCH:
		tui_search_prompt(t);
		break;
	case REQ_NEXT_MATCH:
	case REQ_PREV_MATCH:
		tui_search_step(t, req == REQ_NEXT_MATCH ? 1 : -1);
		break;
	case REQ_FILTER:
		open_view(t, &tui_filter_view, NULL);
		break;
	case REQ_FINDINGS:
		open_view(t, &tui_findings_view, NULL);
		break;
	case REQ_EVENTS: {
		struct tui_events_arg a = {.all = false};
		open_view(t, &tui_events_view, &a);
		break;
	}
	case REQ_MARK:
		tui_mark_toggle(t);
		break;
	case REQ_NEXT_MARK:
	case REQ_PREV_MARK:
		tui_mark_step(t, req == REQ_NEXT_MARK ? 1 : -1);
		break;
	case REQ_REDRAW:
		clearok(curscr, TRUE);
		break;
	case REQ_NONE:
		tui_error(t, "unknown key %s (? lists the keys)", tui_key_name(key, kb, sizeof(kb)));
		break;
	default:
		tui_error(t, "%s: no use for the key %s here", top_ops(t) ? top_ops(t)->name : "",
			  tui_key_name(key, kb, sizeof(kb)));
		break;
	}
}

static void handle_key(struct tui *t, int key)
{
	if (key == KEY_RESIZE) {
		tui_term_resize(t, 0, 0);
		return;
	}
	if (key == ERR)
		return;
	if (t->prompt) {
		tui_prompt_key(t, key);
		return;
	}
	t->msg[0] = '\0';
	if (!t->depth)
		return;
	struct tui_frame *f = &t->stack[t->depth - 1];
	enum tui_req req = tui_keymap_lookup(f->ops->name, key);
	if (req != REQ_NONE && f->ops->key(f->state, t, req, key))
		return;
	global_key(t, req, key);
}

static void draw_status(struct tui *t)
{
	int y = t->rows - 1;
	if (t->prompt) {
		tui_prompt_draw(t, y);
		return;
	}
	attr_t a = tui_attr(t->msg[0] ? (t->msg_error ? R_ERROR : R_STATUS) : R_STATUS);
	tui_fill(y, 0, t->cols, a);
	char line[600];
	if (t->msg[0])
		snprintf(line, sizeof(line), "%s", t->msg);
	else
		tui_verdict_line(t, line, sizeof(line));
	tui_text(y, 0, t->cols, line, -1, a, true);
}

static void draw(struct tui *t)
{
	erase();
	if (t->rows < MIN_ROWS || t->cols < MIN_COLS) {
		tui_printf(0, 0, t->cols, A_NORMAL, "terminal too small (%dx%d, needs %dx%d)", t->cols, t->rows,
			   MIN_COLS, MIN_ROWS);
	} else if (t->depth) {
		struct tui_frame *f = &t->stack[t->depth - 1];
		f->ops->draw(f->state, t);
		draw_status(t);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

static double clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* Per key: wall-clock time, and CPU time (what the key cost this process,
 * whatever else the machine was doing). */
struct timing {
	double open_ms, open_cpu_ms, max_ms, sum_ms, max_cpu_ms;
	size_t n;
	int max_key;
	bool report; /* each key over 50 ms on stderr */
};

static void run_script(struct tui *t, const int *keys, size_t n, struct timing *tm)
{
	for (size_t i = 0; i < n && !t->quit; i++) {
		double t0 = now_ms(), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
		int key = keys[i];
		if (key == TUI_KEY_SCRIPT_RESIZE && i + 2 < n) {
			tui_term_resize(t, keys[i + 2], keys[i + 1]);
			i += 2;
			key = KEY_RESIZE;
		}
		handle_key(t, key);
		if (!t->quit)
			draw(t);
		double dt = now_ms() - t0, dc = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
		if (tm->report && dt > 50.0) {
			char kb[16];
			fprintf(stderr, "tui timing: key %zu (%s) took %.1f ms (cpu %.1f ms)\n", i + 1,
				tui_key_name(key, kb, sizeof(kb)), dt, dc);
		}
		tm->sum_ms += dt;
		tm->n++;
		if (dt > tm->max_ms) {
			tm->max_ms = dt;
			tm->max_key = key;
		}
		if (dc > tm->max_cpu_ms)
			tm->max_cpu_ms = dc;
	}
}

static void cleanup(struct tui *t)
{
	while (t->depth)
		tui_pop(t);
	tui_prompt_close(t);
	tui_prompt_free_history();
	tui_search_free(t);
	tui_marks_free(t);
	tui_linetext_free();
	tui_model_free(t);
}

int tui_run(const struct tui_opts *o)
{
	double start = now_ms(), start_cpu = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
	struct errbuf err;
	int *keys = NULL;
	size_t n_keys = 0;
	if (o->script && tui_script_parse(o->script, &keys, &n_keys, &err) < 0) {
		diag_error("tui: %s", err.msg);
		return NF_EXIT_USAGE;
	}
	struct tui t;
	memset(&t, 0, sizeof(t));
	t.db = case_open_or_say(o->case_path, true);
	if (!t.db) {
		free(keys);
		return NF_EXIT_NOTHING;
	}
	/* keep pages (a big case is read in many small seeks), through SQLite's
	 * own cache: a memory map counted every page read in the RSS (184 MB on
	 * opening a 16,384-rank case, 89 MB without) */
	sqlite3_exec(t.db, "PRAGMA mmap_size = 0; PRAGMA cache_size = -65536", NULL, NULL, NULL);
	const char *slash = strrchr(o->case_path, '/');
	t.case_name = o->case_name ? o->case_name : slash ? slash + 1 : o->case_path;
	if (tui_model_load(&t, &err) < 0) {
		diag_error("%s: %s", o->case_path, err.msg);
		case_close(t.db);
		free(keys);
		return NF_EXIT_NOTHING;
	}
	struct tui_term_opts to = {.headless = o->script != NULL, .rows = o->rows, .cols = o->cols,
				   .ascii = o->ascii, .no_color = o->no_color};
	if (tui_term_start(&t, &to, &err) < 0) {
		diag_error("tui: %s", err.msg);
		cleanup(&t);
		case_close(t.db);
		free(keys);
		return NF_EXIT_USAGE;
	}
	struct timing tm = {.report = o->timing};
	tui_push(&t, &tui_timeline_view, NULL);
	draw(&t);
	tm.open_ms = now_ms() - start; /* the case, the model, the first screen */
	tm.open_cpu_ms = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - start_cpu;
	int rc = NF_EXIT_OK;
	if (o->script) {
		run_script(&t, keys, n_keys, &tm);
		if (o->dump_path && tui_term_dump(o->dump_path, &err) < 0)
			rc = NF_EXIT_USAGE;
	} else {
		int errors = 0; /* a closed input reads as ERR forever: give up */
		while (!t.quit && errors < 100) {
			int key = tui_term_getkey();
			errors = key == ERR ? errors + 1 : 0;
			handle_key(&t, key);
			if (!t.quit)
				draw(&t);
		}
	}
	tui_term_stop();
	if (rc != NF_EXIT_OK)
		diag_error("tui: %s", err.msg);
	if (o->timing) {
		char kb[16];
		fprintf(stderr, "tui timing: open %.1f ms (cpu %.1f ms), %zu keys, mean %.2f ms, max %.2f ms (key %s), "
			"max cpu %.2f ms\n", tm.open_ms, tm.open_cpu_ms, tm.n, tm.n ? tm.sum_ms / (double)tm.n : 0.0, tm.max_ms,
			tm.n ? tui_key_name(tm.max_key, kb, sizeof(kb)) : "-", tm.max_cpu_ms);
	}
	cleanup(&t);
	case_close(t.db);
	free(keys);
	return rc;
}
