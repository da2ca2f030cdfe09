/* tui_help.c: the help view: every key of the keymap (global ones first,
 * then each view's), the timeline's markers, and the prompt keys. Built
 * from the tables, so it cannot drift from what the keys do. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "tui_colors.h"
#include "tui_draw.h"
#include "tui_view.h"

struct help_line {
	char *text;
	bool header;
};

struct help {
	struct help_line *lines;
	size_t n, cap;
	size_t top;
};

static void add(struct help *h, bool header, const char *fmt, ...) NF_PRINTF(3, 4);
static void add(struct help *h, bool header, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	xgrow(&h->lines, &h->cap, h->n + 1, sizeof(*h->lines));
	h->lines[h->n].text = b.data ? b.data : xstrdup("");
	h->lines[h->n].header = header;
	h->n++;
}

static bool same_scope(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* One line per request of a scope, all its keys together. */
static void add_scope(struct help *h, const char *scope)
{
	size_t n;
	const struct tui_binding *b = tui_keymap_bindings(&n);
	bool *done = xcalloc(n, sizeof(bool));
	for (size_t i = 0; i < n; i++) {
		if (done[i] || !same_scope(b[i].view, scope))
			continue;
		char keys[96] = "";
		size_t used = 0;
		for (size_t j = i; j < n; j++) {
			if (done[j] || !same_scope(b[j].view, scope) || b[j].req != b[i].req)
				continue;
			done[j] = true;
			char kb[16];
			const char *name = tui_key_name(b[j].key, kb, sizeof(kb));
			if (strstr(keys, name) && (strlen(name) > 1 || strchr(keys, name[0])))
				continue; /* Enter bound to several codes */
			used += (size_t)snprintf(keys + used, sizeof(keys) - used, "%s%s", used ? " " : "", name);
			if (used >= sizeof(keys))
				used = sizeof(keys) - 1;
		}
		add(h, false, "  %-14s %s", keys, b[i].help);
	}
	free(done);
}

static void *help_open(struct tui *t, const void *arg)
{
	(void)t;
	(void)arg;
	struct help *h = xcalloc(1, sizeof(*h));
	static const char *const scopes[] = {"timeline", "events", "lines", "findings", "filter"};
	add(h, true, "Keys in every view");
	add_scope(h, NULL);
	for (size_t i = 0; i < ARRAY_LEN(scopes); i++) {
		add(h, false, "%s", "");
		add(h, true, "Keys in the %s view", scopes[i]);
		add_scope(h, scopes[i]);
	}
	add(h, false, "%s", "");
	add(h, true, "SQL result view");
	add(h, false, "  %-14s %s", "Enter", "rows with source_id and line_no (or event_id) columns: open the lines");
	add(h, false, "  %-14s %s", "h l Left Right", "scroll the columns");
	add(h, false, "%s", "");
	add(h, true, "Prompts (/ : ;)");
	add(h, false, "  %-14s %s", "Enter", "run; Esc, ^C or ^G cancel; an empty / repeats the last search");
	add(h, false, "  %-14s %s", "Up Down", "history");
	add(h, false, "  %-14s %s", "^A ^E ^U ^K", "start, end, delete before, delete after the cursor");
	add(h, false, "%s", "");
	add(h, true, "Timeline markers (the most important event in a cell wins)");
	for (size_t i = tui_n_markers; i-- > 0;)
		add(h, false, "  %c  %-8s %s", tui_markers[i].ch,
		    tui_markers[i].class_name ? tui_markers[i].class_name : "other", tui_markers[i].label);
	add(h, false, "  %s", "-  a rank alive, between its first and last event");
	add(h, false, "  %s", "|  the first-failure column (! on the time axis)");
	add(h, false, "  %s", ":  the cursor column (v on the time axis)");
	add(h, false, "  %s", "/  a search match, @ a mark, > the selected row");
	add(h, false, "  %s", "culprit ranks are labelled 'culprit' (rank order: r2*)");
	return h;
}

static void help_close(void *state)
{
	struct help *h = state;
	for (size_t i = 0; i < h->n; i++)
		free(h->lines[i].text);
	free(h->lines);
	free(h);
}

static int page_rows(const struct tui *t)
{
	return tui_page_rows(t, 1);
}

static void help_draw(void *state, struct tui *t)
{
	struct help *h = state;
	int rows = page_rows(t);
	if (h->n > (size_t)rows && h->top > h->n - (size_t)rows)
		h->top = h->n - (size_t)rows;
	if (h->n <= (size_t)rows)
		h->top = 0;
	tui_title(t, "help", "lines %zu-%zu of %zu | j k PgDn PgUp scroll, q closes", h->top + 1,
		  h->top + (size_t)rows < h->n ? h->top + (size_t)rows : h->n, h->n);
	for (int i = 0; i < rows && h->top + (size_t)i < h->n; i++) {
		const struct help_line *l = &h->lines[h->top + (size_t)i];
		tui_text(1 + i, 0, t->cols, l->text, -1, l->header ? tui_attr(R_HEADER) : A_NORMAL, true);
	}
}

static bool help_key(void *state, struct tui *t, enum tui_req req, int key)
{
	(void)key;
	struct help *h = state;
	long top = (long)h->top, rows = page_rows(t);
	if (req == REQ_HELP) {
		tui_pop(t);
		return true;
	}
	/* the top line moves like a list's selection, over 0 .. n - rows */
	if (!tui_list_move(req, rows, (long)h->n - rows + 1, &top))
		return false;
	h->top = (size_t)top;
	return true;
}

const struct view_ops tui_help_view = {
	.name = "help",
	.open = help_open,
	.close = help_close,
	.draw = help_draw,
	.key = help_key,
};
