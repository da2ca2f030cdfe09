/* tui_filter.c: the kind filter (F): every event kind of the case under
 * its class, each shown or hidden. Hidden kinds disappear from the
 * timeline cells and the events view at once (struct tui_kind.hidden). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "tui_colors.h"
#include "tui_draw.h"
#include "tui_view.h"

struct fitem {
	const char *class_name; /* a class row when kind < 0 */
	int kind;
};

struct filter {
	struct fitem *items;
	size_t n;
	size_t sel, top;
};

static int cmp_by_class(const void *a, const void *b, void *arg)
{
	const struct tui *t = arg;
	int x = *(const int *)a, y = *(const int *)b;
	int px = tui_markers[t->kinds[x].marker].prio, py = tui_markers[t->kinds[y].marker].prio;
	if (px != py)
		return py - px;
	int c = strcmp(t->kinds[x].class_name, t->kinds[y].class_name);
	return c ? c : strcmp(t->kinds[x].name, t->kinds[y].name);
}

static void *fl_open(struct tui *t, const void *arg)
{
	(void)arg;
	if (!t->n_kinds) {
		tui_error(t, "this case has no events");
		return NULL;
	}
	struct filter *f = xcalloc(1, sizeof(*f));
	int *order = xcalloc(t->n_kinds, sizeof(int));
	for (size_t i = 0; i < t->n_kinds; i++)
		order[i] = (int)i;
	qsort_r(order, t->n_kinds, sizeof(int), cmp_by_class, t);
	f->items = xcalloc(t->n_kinds * 2, sizeof(*f->items));
	const char *cls = NULL;
	for (size_t i = 0; i < t->n_kinds; i++) {
		const struct tui_kind *k = &t->kinds[order[i]];
		if (!cls || strcmp(cls, k->class_name) != 0) {
			cls = k->class_name;
			f->items[f->n++] = (struct fitem){cls, -1};
		}
		f->items[f->n++] = (struct fitem){k->class_name, order[i]};
	}
	free(order);
	return f;
}

static void fl_close(void *state)
{
	struct filter *f = state;
	free(f->items);
	free(f);
}

static int page_rows(const struct tui *t)
{
	return tui_page_rows(t, 1);
}

/* 0 none shown, 1 some, 2 all */
static int class_state(const struct tui *t, const char *cls)
{
	size_t shown = 0, n = 0;
	for (size_t i = 0; i < t->n_kinds; i++)
		if (strcmp(t->kinds[i].class_name, cls) == 0) {
			n++;
			shown += !t->kinds[i].hidden;
		}
	return shown == 0 ? 0 : shown == n ? 2 : 1;
}

static void fl_draw(void *state, struct tui *t)
{
	struct filter *f = state;
	int h = page_rows(t);
	if (f->sel < f->top)
		f->top = f->sel;
	if (f->sel >= f->top + (size_t)h)
		f->top = f->sel - (size_t)h + 1;
	tui_title(t, "filter", "%zu of %zu kinds hidden | Space shows/hides, a all, x none, i invert, q closes",
		  tui_hidden_kinds(t), t->n_kinds);
	for (int i = 0; i < h && f->top + (size_t)i < f->n; i++) {
		const struct fitem *it = &f->items[f->top + (size_t)i];
		int y = 1 + i;
		bool sel = f->top + (size_t)i == f->sel;
		attr_t a = sel ? tui_attr(R_SELECTED) : A_NORMAL;
		if (sel) {
			tui_fill(y, 0, t->cols, a);
			tui_glyph(y, 0, G_SELECT, a);
		}
		if (it->kind < 0) {
			static const char *const box[] = {"[ ]", "[-]", "[x]"};
			const struct tui_marker *m = &tui_markers[tui_marker_index(it->class_name)];
			tui_printf(y, 1, t->cols - 1, a | (sel ? 0 : tui_attr(R_HEADER)), "%s %c %s", box[class_state(t, it->class_name)],
				   m->ch, it->class_name);
		} else {
			const struct tui_kind *k = &t->kinds[it->kind];
			tui_printf(y, 1, t->cols - 1, a, "    %s %s", k->hidden ? "[ ]" : "[x]", k->name);
		}
	}
}

static bool fl_key(void *state, struct tui *t, enum tui_req req, int key)
{
	(void)key;
	struct filter *f = state;
	long sel = (long)f->sel;
	if (tui_list_move(req, page_rows(t), (long)f->n, &sel)) {
		f->sel = (size_t)sel;
		return true;
	}
	switch (req) {
	case REQ_TOGGLE: {
		const struct fitem *it = &f->items[f->sel];
		if (it->kind >= 0) {
			t->kinds[it->kind].hidden = !t->kinds[it->kind].hidden;
		} else {
			bool hide = class_state(t, it->class_name) != 0;
			for (size_t i = 0; i < t->n_kinds; i++)
				if (strcmp(t->kinds[i].class_name, it->class_name) == 0)
					t->kinds[i].hidden = hide;
		}
		break;
	}
	case REQ_SHOW_ALL:
	case REQ_HIDE_ALL:
	case REQ_INVERT:
		for (size_t i = 0; i < t->n_kinds; i++)
			t->kinds[i].hidden = req == REQ_HIDE_ALL || (req == REQ_INVERT && !t->kinds[i].hidden);
		break;
	case REQ_FILTER:
		tui_pop(t);
		return true;
	default:
		return false;
	}
	return true;
}

const struct view_ops tui_filter_view = {
	.name = "filter",
	.open = fl_open,
	.close = fl_close,
	.draw = fl_draw,
	.key = fl_key,
};
