/* tui_keymap.c: the key bindings (one table), key names and key scripts. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tui_keymap.h"

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1 /* cchar_t even without the pkg-config flags */
#endif
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CTRL(c) ((c) & 0x1f)

static const struct tui_binding bindings[] = {
	/* every view */
	{NULL, 'q', REQ_QUIT, "close the view; in the timeline, quit"},
	{NULL, 'Q', REQ_QUIT_ALL, "quit"},
	{NULL, 27, REQ_BACK, "close the view (not the timeline)"},
	{NULL, '?', REQ_HELP, "this help"},
	{NULL, KEY_F(1), REQ_HELP, "this help"},
	{NULL, 'k', REQ_UP, "up: previous rank, event, line or row"},
	{NULL, KEY_UP, REQ_UP, "up: previous rank, event, line or row"},
	{NULL, 'j', REQ_DOWN, "down: next rank, event, line or row"},
	{NULL, KEY_DOWN, REQ_DOWN, "down: next rank, event, line or row"},
	{NULL, KEY_PPAGE, REQ_PAGE_UP, "one screen up"},
	{NULL, CTRL('b'), REQ_PAGE_UP, "one screen up"},
	{NULL, KEY_NPAGE, REQ_PAGE_DOWN, "one screen down"},
	{NULL, CTRL('f'), REQ_PAGE_DOWN, "one screen down"},
	{NULL, KEY_HOME, REQ_HOME, "first row"},
	{NULL, '<', REQ_HOME, "first row"},
	{NULL, KEY_END, REQ_END, "last row"},
	{NULL, '>', REQ_END, "last row"},
	{NULL, 'h', REQ_LEFT, "left: earlier in time, or scroll left"},
	{NULL, KEY_LEFT, REQ_LEFT, "left: earlier in time, or scroll left"},
	{NULL, 'l', REQ_RIGHT, "right: later in time, or scroll right"},
	{NULL, KEY_RIGHT, REQ_RIGHT, "right: later in time, or scroll right"},
	{NULL, '\n', REQ_ENTER, "open what is selected"},
	{NULL, '\r', REQ_ENTER, "open what is selected"},
	{NULL, KEY_ENTER, REQ_ENTER, "open what is selected"},
	{NULL, ':', REQ_SQL, "SQL prompt: run a SELECT on the case"},
	{NULL, ';', REQ_SQL, "SQL prompt: run a SELECT on the case"},
	{NULL, '/', REQ_SEARCH, "search the lines with a PCRE2 regex"},
	{NULL, 'n', REQ_NEXT_MATCH, "next search match"},
	{NULL, 'N', REQ_PREV_MATCH, "previous search match"},
	{NULL, 'F', REQ_FILTER, "filter event kinds"},
	{NULL, 'm', REQ_MARK, "set or clear a mark at the cursor"},
	{NULL, '\'', REQ_NEXT_MARK, "next mark"},
	{NULL, '"', REQ_PREV_MARK, "previous mark"},
	{NULL, 'e', REQ_EVENTS, "events view at the cursor"},
	{NULL, 'v', REQ_FINDINGS, "findings view: verdict, findings, network"},
	{NULL, 't', REQ_TIMELINE, "back to the timeline"},
	{NULL, CTRL('l'), REQ_REDRAW, "redraw the screen"},
	/* timeline */
	{"timeline", '+', REQ_ZOOM_IN, "zoom in (less time per column)"},
	{"timeline", '=', REQ_ZOOM_IN, "zoom in (less time per column)"},
	{"timeline", '-', REQ_ZOOM_OUT, "zoom out (more time per column)"},
	{"timeline", '0', REQ_ZOOM_FIT, "fit the whole job on the screen"},
	{"timeline", 'H', REQ_PAN_LEFT, "pan half a screen earlier"},
	{"timeline", KEY_SLEFT, REQ_PAN_LEFT, "pan half a screen earlier"},
	{"timeline", 'L', REQ_PAN_RIGHT, "pan half a screen later"},
	{"timeline", KEY_SRIGHT, REQ_PAN_RIGHT, "pan half a screen later"},
	{"timeline", 'f', REQ_FIRST_FAILURE, "jump to the first failure"},
	{"timeline", 'c', REQ_CULPRIT, "jump to the culprit rank (again: the next culprit)"},
	{"timeline", 'g', REQ_GROUP, "group ranks under their hosts, or not"},
	{"timeline", ' ', REQ_COLLAPSE, "collapse or expand the selected host"},
	{"timeline", 'o', REQ_COLLAPSE, "collapse or expand the selected host"},
	{"timeline", 'C', REQ_COLLAPSE_ALL, "collapse every host"},
	{"timeline", 'E', REQ_EXPAND_ALL, "expand every host"},
	{"timeline", '!', REQ_NOTED_HOSTS, "only the hosts with findings (culprit, detector, a finding, kernel messages), or all"},
	{"timeline", '\n', REQ_ENTER, "rank: its events at the cursor; host: collapse/expand"},
	{"timeline", '\r', REQ_ENTER, "rank: its events at the cursor; host: collapse/expand"},
	/* events */
	{"events", 'a', REQ_SCOPE, "the selected rank / host, or all ranks"},
	{"events", '\n', REQ_ENTER, "the raw lines around the event"},
	{"events", '\r', REQ_ENTER, "the raw lines around the event"},
	/* lines */
	{"lines", 'n', REQ_NEXT_MATCH, "next search match (may change the file)"},
	{"lines", 'N', REQ_PREV_MATCH, "previous search match"},
	{"lines", 'w', REQ_WRAP, "wrap long lines, or cut them at the screen's edge"},
	/* findings */
	{"findings", '\n', REQ_ENTER, "verdict: timeline; finding: its evidence; row: its lines"},
	{"findings", '\r', REQ_ENTER, "verdict: timeline; finding: its evidence; row: its lines"},
	/* filter */
	{"filter", ' ', REQ_TOGGLE, "show or hide the kind (a class: all its kinds)"},
	{"filter", '\n', REQ_TOGGLE, "show or hide the kind (a class: all its kinds)"},
	{"filter", '\r', REQ_TOGGLE, "show or hide the kind (a class: all its kinds)"},
	{"filter", 'a', REQ_SHOW_ALL, "show every kind"},
	{"filter", 'x', REQ_HIDE_ALL, "hide every kind"},
	{"filter", 'i', REQ_INVERT, "invert the selection"},
};

enum tui_req tui_keymap_lookup(const char *view, int key)
{
	if (view)
		for (size_t i = 0; i < ARRAY_LEN(bindings); i++)
			if (bindings[i].view && bindings[i].key == key && strcmp(bindings[i].view, view) == 0)
				return bindings[i].req;
	for (size_t i = 0; i < ARRAY_LEN(bindings); i++)
		if (!bindings[i].view && bindings[i].key == key)
			return bindings[i].req;
	return REQ_NONE;
}

const struct tui_binding *tui_keymap_bindings(size_t *n)
{
	*n = ARRAY_LEN(bindings);
	return bindings;
}

static const struct {
	const char *name;
	int key;
} key_names[] = {
	{"Enter", '\n'}, {"Enter", '\r'}, {"Enter", KEY_ENTER}, {"Esc", 27}, {"Tab", '\t'},
	{"Space", ' '}, {"BS", KEY_BACKSPACE}, {"Backspace", KEY_BACKSPACE}, {"Del", KEY_DC},
	{"Up", KEY_UP}, {"Down", KEY_DOWN}, {"Left", KEY_LEFT}, {"Right", KEY_RIGHT},
	{"S-Left", KEY_SLEFT}, {"S-Right", KEY_SRIGHT}, {"PgUp", KEY_PPAGE}, {"PgDn", KEY_NPAGE},
	{"Home", KEY_HOME}, {"End", KEY_END}, {"F1", KEY_F(1)}, {"lt", '<'}, {"gt", '>'},
};

const char *tui_key_name(int key, char *buf, size_t n)
{
	for (size_t i = 0; i < ARRAY_LEN(key_names); i++)
		if (key_names[i].key == key && key != '<' && key != '>')
			return key_names[i].name;
	if (key > 0 && key < 32)
		snprintf(buf, n, "^%c", key + '@');
	else if (key > 32 && key < 127)
		snprintf(buf, n, "%c", key);
	else
		snprintf(buf, n, "key%d", key);
	return buf;
}

static void push_key(int **keys, size_t *n, size_t *cap, int k)
{
	xgrow(keys, cap, *n + 1, sizeof(**keys));
	(*keys)[(*n)++] = k;
}

/* A <Name> at s (s points at '<'): its length, 0 if none; keys appended. */
static size_t parse_named(const char *s, int **keys, size_t *n, size_t *cap)
{
	const char *end = strchr(s, '>');
	if (!end || end == s + 1)
		return 0;
	size_t len = (size_t)(end - s - 1);
	const char *name = s + 1;
	for (size_t i = 0; i < ARRAY_LEN(key_names); i++)
		if (strlen(key_names[i].name) == len && strncmp(key_names[i].name, name, len) == 0) {
			push_key(keys, n, cap, key_names[i].key);
			return len + 2;
		}
	if (len == 3 && (name[0] == 'C' || name[0] == 'c') && name[1] == '-' &&
	    ((name[2] >= 'a' && name[2] <= 'z') || (name[2] >= 'A' && name[2] <= 'Z'))) {
		push_key(keys, n, cap, CTRL(name[2]));
		return len + 2;
	}
	int w, h, used = 0;
	if (len > 7 && strncmp(name, "Resize:", 7) == 0 && sscanf(name + 7, "%dx%d%n", &w, &h, &used) == 2 &&
	    (size_t)used == len - 7 && w > 0 && h > 0 && w <= 1000 && h <= 1000) {
		push_key(keys, n, cap, TUI_KEY_SCRIPT_RESIZE);
		push_key(keys, n, cap, w);
		push_key(keys, n, cap, h);
		return len + 2;
	}
	return 0;
}

int tui_script_parse(const char *script, int **keys, size_t *n, struct errbuf *err)
{
	size_t cap = 0;
	*keys = NULL;
	*n = 0;
	for (const char *s = script; *s;) {
		if (*s == '\\') {
			int k;
			switch (s[1]) {
			case 'n': case 'r': k = '\n'; break;
			case 't': k = '\t'; break;
			case 'e': k = 27; break;
			case '\\': k = '\\'; break;
			case '<': k = '<'; break;
			default:
				free(*keys);
				*keys = NULL;
				return errbuf_set(err, "bad escape '\\%c' in the key script", s[1] ? s[1] : ' ');
			}
			push_key(keys, n, &cap, k);
			s += 2;
		} else if (*s == '<') {
			size_t used = parse_named(s, keys, n, &cap);
			if (!used) {
				push_key(keys, n, &cap, '<');
				used = 1;
			}
			s += used;
		} else {
			push_key(keys, n, &cap, (unsigned char)*s);
			s++;
		}
	}
	return 0;
}
