/* tui_colors.h: the one colour table (a role per thing drawn, with a colour
 * pair and a monochrome attribute for terminals without colour or NO_COLOR)
 * and the timeline markers of event classes. */
#ifndef NF_TUI_COLORS_H
#define NF_TUI_COLORS_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1 /* cchar_t even without the pkg-config flags */
#endif
#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

enum tui_role {
	R_NORMAL,
	R_TITLE,
	R_STATUS,
	R_ERROR,
	R_PROMPT,
	R_AXIS,
	R_HOST,
	R_LABEL,
	R_SELECTED,   /* the selected row's label, list selection */
	R_CURSOR,     /* the cursor column */
	R_CULPRIT,
	R_FAILURE,    /* the first-failure column */
	R_SPAN,       /* a rank's lifetime between its first and last event */
	R_MATCH,
	R_MARK,
	R_HEADER,     /* table and section headers */
	R_DIM,        /* line numbers, secondary text */
	R_TARGET,     /* the line an event came from */
	R_M_OTHER,
	R_M_COLL,
	R_M_STEP,
	R_M_INIT,
	R_M_SYSMSG,
	R_M_DUMP,
	R_M_TIMEOUT,
	R_M_ERROR,
	R_M_EXIT,
	R_M_SIGNAL,
	R_COUNT
};

void tui_colors_init(bool use_color);
attr_t tui_attr(enum tui_role role);

/* A timeline marker: the event classes a cell can show, by priority (the
 * highest class in a cell is drawn). */
struct tui_marker {
	const char *class_name; /* NULL: the catch-all for other classes */
	char ch;
	int prio;
	enum tui_role role;
	const char *label;
};
extern const struct tui_marker tui_markers[];
extern const size_t tui_n_markers;
/* The marker of an event class (the catch-all when unknown). */
int tui_marker_index(const char *class_name);

#endif
