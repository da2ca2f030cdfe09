/* tui_term.c: see tui_term.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tui_term.h"

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1 /* cchar_t even without the pkg-config flags */
#endif
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "tui_colors.h"
#include "tui_draw.h"

static SCREEN *screen;
static FILE *null_in, *null_out;
static bool headless;
static volatile sig_atomic_t active;     /* curses owns the terminal */

/* For the signal handler: what endwin() would have done. */
static struct termios saved_tio;
static bool have_tio;
static char restore_seq[256];
static size_t restore_len;

#define MAX_CLEANUP 4
static char cleanup_paths[MAX_CLEANUP][4096];
static volatile sig_atomic_t n_cleanup;
static bool atexit_done;

static void remove_files(void)
{
	for (int i = 0; i < n_cleanup; i++)
		if (cleanup_paths[i][0] && unlink(cleanup_paths[i]) != 0)
			rmdir(cleanup_paths[i]); /* a directory (its files went first) */
}

static void on_fatal_signal(int sig)
{
	if (active && !headless) {
		if (restore_len && write(STDOUT_FILENO, restore_seq, restore_len) < 0) {
			/* nothing more we can do in a handler */
		}
		if (have_tio)
			tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	}
	remove_files();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void at_exit(void)
{
	tui_term_stop();
	remove_files();
}

static void install_handlers(void)
{
	if (!atexit_done) {
		atexit(at_exit);
		atexit_done = true;
	}
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGPIPE};
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_LEN(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

void tui_term_remove_at_exit(const char *path)
{
	install_handlers();
	if (n_cleanup < MAX_CLEANUP && strlen(path) < sizeof(cleanup_paths[0])) {
		snprintf(cleanup_paths[n_cleanup], sizeof(cleanup_paths[0]), "%s", path);
		n_cleanup++;
	}
}

void tui_term_forget_file(const char *path)
{
	for (int i = 0; i < n_cleanup; i++)
		if (strcmp(cleanup_paths[i], path) == 0)
			cleanup_paths[i][0] = '\0';
}

static void add_cap(const char *name)
{
	char *s = tigetstr(name);
	if (!s || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (restore_len + n < sizeof(restore_seq)) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

static bool utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

static bool color_wanted(const struct tui_term_opts *o)
{
	const char *nc = getenv("NO_COLOR");
	return !o->no_color && !(nc && *nc);
}

int tui_term_start(struct tui *t, const struct tui_term_opts *o, struct errbuf *err)
{
	headless = o->headless;
	install_handlers();
	if (headless) {
		null_out = fopen("/dev/null", "w");
		null_in = fopen("/dev/null", "r");
		if (!null_out || !null_in)
			return errbuf_set(err, "/dev/null: %s", strerror(errno));
		/* a fixed terminal type: the dump must not depend on $TERM */
		static const char *const names[] = {"xterm-256color", "xterm", "vt100", "ansi", "dumb"};
		for (size_t i = 0; i < ARRAY_LEN(names) && !screen; i++)
			screen = newterm(names[i], null_out, null_in);
		if (!screen)
			return errbuf_set(err, "no terminal description found (xterm, vt100) for the headless screen");
	} else {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
			return errbuf_set(err, "standard input and output must be a terminal (or use --script)");
		const char *term = getenv("TERM");
		if (!term || !*term)
			return errbuf_set(err, "TERM is not set");
		have_tio = tcgetattr(STDIN_FILENO, &saved_tio) == 0;
		screen = newterm(NULL, stdout, stdin);
		if (!screen)
			return errbuf_set(err, "cannot use the terminal '%s'", term);
		if (!getenv("ESCDELAY")) /* Esc closes views: do not wait a second for it */
			set_escdelay(25);
	}
	set_term(screen);
	active = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (!headless) {
		restore_len = 0;
		add_cap("sgr0");
		add_cap("cnorm");
		add_cap("rmkx");
		add_cap("rmcup");
	} else {
		resizeterm(o->rows, o->cols);
	}
	t->ascii = o->ascii || !utf8_locale();
	t->color = color_wanted(o) && has_colors();
	tui_colors_init(t->color);
	tui_draw_init(t->ascii);
	t->rows = LINES;
	t->cols = COLS;
	return 0;
}

void tui_term_stop(void)
{
	if (!active)
		return;
	active = 0;
	endwin();
	if (screen) {
		delscreen(screen);
		screen = NULL;
	}
	if (null_in)
		fclose(null_in);
	if (null_out)
		fclose(null_out);
	null_in = null_out = NULL;
}

int tui_term_getkey(void)
{
	return wgetch(stdscr);
}

void tui_term_resize(struct tui *t, int rows, int cols)
{
	if (headless && rows > 0 && cols > 0)
		resizeterm(rows, cols);
	t->rows = LINES;
	t->cols = COLS;
}

static void put_utf8(FILE *f, wchar_t wc)
{
	unsigned c = (unsigned)wc;
	if (c < 0x80) {
		fputc((int)c, f);
	} else if (c < 0x800) {
		fputc((int)(0xC0 | (c >> 6)), f);
		fputc((int)(0x80 | (c & 0x3F)), f);
	} else if (c < 0x10000) {
		fputc((int)(0xE0 | (c >> 12)), f);
		fputc((int)(0x80 | ((c >> 6) & 0x3F)), f);
		fputc((int)(0x80 | (c & 0x3F)), f);
	} else {
		fputc((int)(0xF0 | (c >> 18)), f);
		fputc((int)(0x80 | ((c >> 12) & 0x3F)), f);
		fputc((int)(0x80 | ((c >> 6) & 0x3F)), f);
		fputc((int)(0x80 | (c & 0x3F)), f);
	}
}

int tui_term_dump(const char *path, struct errbuf *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
	if (!f)
		return errbuf_set(err, "%s: %s", path, strerror(errno));
	wchar_t *row = xcalloc((size_t)COLS + 1, sizeof(wchar_t));
	for (int y = 0; y < LINES; y++) {
		int n = 0;
		for (int x = 0; x < COLS; x++) {
			cchar_t cc;
			wchar_t wch[CCHARW_MAX + 1];
			attr_t a;
			short pair;
			wch[0] = ' ';
			if (mvwin_wch(stdscr, y, x, &cc) == OK && getcchar(&cc, wch, &a, &pair, NULL) != ERR && wch[0])
				row[n++] = wch[0];
			else
				row[n++] = ' ';
			if (wch[0] >= 128 && wcwidth(wch[0]) == 2)
				x++;
		}
		while (n > 0 && row[n - 1] == ' ')
			n--;
		for (int i = 0; i < n; i++)
			put_utf8(f, row[i]);
		fputc('\n', f);
	}
	free(row);
	int rc = 0;
	if (f != stdout) {
		if (fclose(f) != 0)
			rc = errbuf_set(err, "%s: %s", path, strerror(errno));
	} else {
		fflush(f);
	}
	return rc;
}
