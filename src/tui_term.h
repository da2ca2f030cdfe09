/* tui_term.h: the terminal: setup and a restore that also runs at exit and
 * on fatal signals (async-signal-safe: saved termios and terminfo strings
 * written with write(2)); the headless terminal of --script (newterm on
 * /dev/null at a fixed size) and its screen dump. */
#ifndef NF_TUI_TERM_H
#define NF_TUI_TERM_H

#include <stdbool.h>

#include "tui.h"
#include "util.h"

struct tui_term_opts {
	bool headless;  /* no terminal: keys come from a script */
	int rows, cols; /* the headless size */
	bool ascii;     /* no UTF-8 line drawing even in a UTF-8 locale */
	bool no_color;
};

/* Sets t->rows, t->cols, t->ascii, t->color. -1 with err when there is no
 * usable terminal. */
int tui_term_start(struct tui *t, const struct tui_term_opts *o, struct errbuf *err);
/* Restores the terminal; safe to call twice (also registered with atexit). */
void tui_term_stop(void);
/* The next key (blocking); KEY_RESIZE after SIGWINCH. */
int tui_term_getkey(void);
/* After a resize: the new size into t. Headless: resizes to rows x cols. */
void tui_term_resize(struct tui *t, int rows, int cols);
/* The screen as plain UTF-8 text, one line per row, trailing blanks cut. */
int tui_term_dump(const char *path, struct errbuf *err);
/* A file removed at exit and on fatal signals (at most 4). */
void tui_term_remove_at_exit(const char *path);
void tui_term_forget_file(const char *path);

#endif
