/* tui_draw.h: drawing helpers every view uses: clipped text that is safe
 * to print (control bytes, invalid UTF-8, wide characters), line-drawing
 * glyphs with an ASCII fallback, the title bar, time formats. All drawing
 * goes to stdscr, which is what the headless screen dump reads. */
#ifndef NF_TUI_DRAW_H
#define NF_TUI_DRAW_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1 /* cchar_t even without the pkg-config flags */
#endif
#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui.h"
#include "tui_colors.h"

enum tui_glyph {
	G_HLINE,      /* ─  - */
	G_VLINE,      /* │  | */
	G_OPEN,       /* ▾  - (an expanded host) */
	G_CLOSED,     /* ▸  + (a collapsed host) */
	G_MORE,       /* …  ~ (text cut) */
	G_CURSOR,     /* ▼  v (the cursor on the time axis) */
	G_FAIL,       /* ┃  | (the first-failure column) */
	G_CURLINE,    /* ┆  : (the cursor column) */
	G_TICK,       /* ┬  + */
	G_SELECT,     /* ▶  > (the selected row) */
	G_COUNT
};

void tui_draw_init(bool ascii);
/* Puts one glyph at y, x. */
void tui_glyph(int y, int x, enum tui_glyph g, attr_t attr);
/* Writes s (n bytes, or to its NUL when n < 0) at y, x in at most w
 * columns; returns the columns used. Tabs become spaces, control bytes
 * and (in ASCII mode) non-ASCII characters become '?'. When s is cut and
 * `more` is set, the last column shows G_MORE. */
int tui_text(int y, int x, int w, const char *s, long n, attr_t attr, bool more);
int tui_printf(int y, int x, int w, attr_t attr, const char *fmt, ...) NF_PRINTF(5, 6);
/* Columns the text would take (same rules as tui_text). */
int tui_text_width(const char *s, long n);
/* Blanks w columns from y, x with attr. */
void tui_fill(int y, int x, int w, attr_t attr);
/* Row 0: " view | case | info". */
void tui_title(struct tui *t, const char *view, const char *fmt, ...) NF_PRINTF(3, 4);

/* 23:56:08.174 (ms), 23:56:08 (s) or 23:56:08.174523 (us); UTC. */
enum tui_time_prec { TP_S, TP_MS, TP_US };
void tui_fmt_time(int64_t us, enum tui_time_prec p, char *out, size_t n);
/* 2026-11-29 */
void tui_fmt_date(int64_t us, char *out, size_t n);
/* 250us, 20ms, 1.5s, 2s, 1m30s, 2h05m, 3d */
void tui_fmt_span(int64_t us, char *out, size_t n);

#endif
