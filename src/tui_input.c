/* tui_input.c: see tui_input.h. The text is bytes (UTF-8 typed in arrives
 * byte by byte and is kept as is); the cursor moves by bytes over ASCII and
 * by whole characters over UTF-8 sequences. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tui_input.h"

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1 /* cchar_t even without the pkg-config flags */
#endif
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "tui_colors.h"
#include "tui_draw.h"

#define CTRL(c) ((c) & 0x1f)
#define HIST_MAX 100

struct tui_prompt {
	char label[16];
	struct buf text;
	size_t pos;              /* byte offset of the cursor */
	enum tui_history hist;
	long hist_pos;           /* -1: the line being edited */
	char *saved;             /* the line being edited while browsing history */
	tui_prompt_done done;
};

static struct {
	char *items[HIST_MAX];
	size_t n;
} history[HIST_COUNT];

void tui_prompt_open(struct tui *t, const char *label, enum tui_history h, tui_prompt_done done)
{
	tui_prompt_close(t);
	struct tui_prompt *p = xcalloc(1, sizeof(*p));
	snprintf(p->label, sizeof(p->label), "%s", label);
	buf_puts(&p->text, "");
	p->hist = h;
	p->hist_pos = -1;
	p->done = done;
	t->prompt = p;
}

void tui_prompt_close(struct tui *t)
{
	struct tui_prompt *p = t->prompt;
	if (!p)
		return;
	buf_free(&p->text);
	free(p->saved);
	free(p);
	t->prompt = NULL;
}

static void hist_add(enum tui_history h, const char *s)
{
	if (!*s)
		return;
	if (history[h].n && strcmp(history[h].items[history[h].n - 1], s) == 0)
		return;
	if (history[h].n == HIST_MAX) {
		free(history[h].items[0]);
		memmove(history[h].items, history[h].items + 1, (HIST_MAX - 1) * sizeof(char *));
		history[h].n--;
	}
	history[h].items[history[h].n++] = xstrdup(s);
}

void tui_prompt_free_history(void)
{
	for (int h = 0; h < HIST_COUNT; h++) {
		for (size_t i = 0; i < history[h].n; i++)
			free(history[h].items[i]);
		history[h].n = 0;
	}
}

static void set_text(struct tui_prompt *p, const char *s)
{
	buf_clear(&p->text);
	buf_puts(&p->text, s);
	p->pos = p->text.len;
}

static size_t char_start(const char *s, size_t pos)
{
	while (pos > 0 && ((unsigned char)s[pos] & 0xC0) == 0x80)
		pos--;
	return pos;
}

static void history_move(struct tui_prompt *p, int dir)
{
	long n = (long)history[p->hist].n;
	if (!n)
		return;
	long next = p->hist_pos < 0 ? (dir < 0 ? n - 1 : -1) : p->hist_pos + dir;
	if (p->hist_pos < 0 && next >= 0) {
		free(p->saved);
		p->saved = xstrdup(p->text.data);
	}
	if (next >= n || next < 0) {
		if (p->hist_pos >= 0)
			set_text(p, p->saved ? p->saved : "");
		p->hist_pos = -1;
		return;
	}
	p->hist_pos = next;
	set_text(p, history[p->hist].items[next]);
}

void tui_prompt_key(struct tui *t, int key)
{
	struct tui_prompt *p = t->prompt;
	if (!p)
		return;
	char *s = p->text.data;
	switch (key) {
	case '\n':
	case '\r':
	case KEY_ENTER: {
		char *text = xstrdup(s);
		tui_prompt_done done = p->done;
		hist_add(p->hist, text);
		tui_prompt_close(t);
		done(t, text);
		free(text);
		return;
	}
	case 27:
	case CTRL('c'):
	case CTRL('g'): {
		tui_prompt_done done = p->done;
		tui_prompt_close(t);
		done(t, NULL);
		return;
	}
	case KEY_BACKSPACE:
	case 127:
	case CTRL('h'):
		if (p->pos > 0) {
			size_t start = char_start(s, p->pos - 1);
			memmove(s + start, s + p->pos, p->text.len - p->pos + 1);
			p->text.len -= p->pos - start;
			p->pos = start;
		} else if (p->text.len == 0) { /* backspace on an empty prompt closes it */
			tui_prompt_done done = p->done;
			tui_prompt_close(t);
			done(t, NULL);
		}
		return;
	case KEY_DC:
	case CTRL('d'):
		if (p->pos < p->text.len) {
			size_t end = p->pos + 1;
			while (end < p->text.len && ((unsigned char)s[end] & 0xC0) == 0x80)
				end++;
			memmove(s + p->pos, s + end, p->text.len - end + 1);
			p->text.len -= end - p->pos;
		}
		return;
	case KEY_LEFT:
	case CTRL('b'):
		if (p->pos > 0)
			p->pos = char_start(s, p->pos - 1);
		return;
	case KEY_RIGHT:
	case CTRL('f'):
		if (p->pos < p->text.len) {
			p->pos++;
			while (p->pos < p->text.len && ((unsigned char)s[p->pos] & 0xC0) == 0x80)
				p->pos++;
		}
		return;
	case KEY_HOME:
	case CTRL('a'):
		p->pos = 0;
		return;
	case KEY_END:
	case CTRL('e'):
		p->pos = p->text.len;
		return;
	case CTRL('u'):
		memmove(s, s + p->pos, p->text.len - p->pos + 1);
		p->text.len -= p->pos;
		p->pos = 0;
		return;
	case CTRL('k'):
		s[p->pos] = '\0';
		p->text.len = p->pos;
		return;
	case KEY_UP:
	case CTRL('p'):
		history_move(p, -1);
		return;
	case KEY_DOWN:
	case CTRL('n'):
		history_move(p, 1);
		return;
	default:
		break;
	}
	if (key == '\t')
		key = ' ';
	if (key < 32 || key > 255 || key == 127)
		return; /* other function keys */
	char c = (char)key;
	buf_putc(&p->text, '\0'); /* room for one more byte */
	s = p->text.data;
	p->text.len--;
	memmove(s + p->pos + 1, s + p->pos, p->text.len - p->pos + 1);
	s[p->pos] = c;
	p->text.len++;
	p->pos++;
}

void tui_prompt_draw(struct tui *t, int y)
{
	struct tui_prompt *p = t->prompt;
	if (!p)
		return;
	attr_t a = tui_attr(R_PROMPT);
	tui_fill(y, 0, t->cols, A_NORMAL);
	int x = tui_text(y, 0, t->cols, p->label, -1, a, false);
	int room = t->cols - x - 1;
	if (room < 1)
		return;
	/* scroll so the cursor stays visible */
	size_t from = 0;
	while (tui_text_width(p->text.data + from, (long)(p->pos - from)) > room - 1 && from < p->pos) {
		from++;
		while (from < p->pos && ((unsigned char)p->text.data[from] & 0xC0) == 0x80)
			from++;
	}
	tui_text(y, x, room, p->text.data + from, (long)(p->text.len - from), A_NORMAL, false);
	int cx = x + tui_text_width(p->text.data + from, (long)(p->pos - from));
	if (cx < t->cols) {
		chtype under = (p->pos < p->text.len && (unsigned char)p->text.data[p->pos] < 128) ? (chtype)(unsigned char)p->text.data[p->pos] : ' ';
		mvaddch(y, cx, under | A_REVERSE);
	}
}
