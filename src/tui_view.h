/* tui_view.h: the view interface. A view is a file exporting one struct
 * view_ops; tui.c keeps a stack of them and draws the top one. A view's state
 * is private to its file: views meet only in struct tui (tui.h).
 *
 *   open   builds the state from arg (a struct below, or NULL); NULL when the
 *          view cannot open (it has said why with tui_error)
 *   close  frees it
 *   draw   draws rows 0 .. tui_view_rows(t) - 1 (row 0 is the title, see
 *          tui_title); reads only what is visible
 *   key    handles a request; false leaves it to the global keys of tui.c */
#ifndef NF_TUI_VIEW_H
#define NF_TUI_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "tui.h"
#include "tui_keymap.h"

struct view_ops {
	const char *name; /* title, and the keymap scope */
	void *(*open)(struct tui *t, const void *arg);
	void (*close)(void *state);
	void (*draw)(void *state, struct tui *t);
	bool (*key)(void *state, struct tui *t, enum tui_req req, int key);
};

extern const struct view_ops tui_timeline_view;
extern const struct view_ops tui_events_view;
extern const struct view_ops tui_lines_view;
extern const struct view_ops tui_findings_view;
extern const struct view_ops tui_sql_view;
extern const struct view_ops tui_help_view;
extern const struct view_ops tui_filter_view;

/* tui_events_view: all ranks, or the shared cursor's rank / host. */
struct tui_events_arg {
	bool all;
};

/* tui_lines_view: the lines around line_no of source_id; event_id (or 0)
 * is shown when the source kept no text (flight-recorder pickles). */
struct tui_lines_arg {
	int64_t source_id, line_no, event_id;
};

/* tui_sql_view: takes over a prepared read-only statement. */
struct tui_sql_arg {
	sqlite3_stmt *stmt;
	const char *sql;
};

#endif
