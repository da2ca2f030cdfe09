/* tui_keymap.h: what a key means in each view (tig's "requests"), the key
 * names shared by the help screen and the headless key scripts.
 *
 * A key is looked up first among the bindings of the view on top of the
 * stack, then among the global ones; views receive the request, never the
 * raw key (except the prompt, which wants characters). */
#ifndef NF_TUI_KEYMAP_H
#define NF_TUI_KEYMAP_H

#include <stddef.h>

#include "util.h"

/* X-macro: one list yields the enum and the names. */
#define TUI_REQUESTS(_)     \
	_(NONE)             \
	_(QUIT)             \
	_(QUIT_ALL)         \
	_(BACK)             \
	_(HELP)             \
	_(SQL)              \
	_(SEARCH)           \
	_(NEXT_MATCH)       \
	_(PREV_MATCH)       \
	_(FILTER)           \
	_(MARK)             \
	_(NEXT_MARK)        \
	_(PREV_MARK)        \
	_(FINDINGS)         \
	_(EVENTS)           \
	_(TIMELINE)         \
	_(REDRAW)           \
	_(UP)               \
	_(DOWN)             \
	_(PAGE_UP)          \
	_(PAGE_DOWN)        \
	_(HOME)             \
	_(END)              \
	_(LEFT)             \
	_(RIGHT)            \
	_(ENTER)            \
	_(PAN_LEFT)         \
	_(PAN_RIGHT)        \
	_(ZOOM_IN)          \
	_(ZOOM_OUT)         \
	_(ZOOM_FIT)         \
	_(FIRST_FAILURE)    \
	_(CULPRIT)          \
	_(GROUP)            \
	_(COLLAPSE)         \
	_(COLLAPSE_ALL)     \
	_(EXPAND_ALL)       \
	_(NOTED_HOSTS)      \
	_(WRAP)             \
	_(SCOPE)            \
	_(TOGGLE)           \
	_(SHOW_ALL)         \
	_(HIDE_ALL)         \
	_(INVERT)

#define TUI_REQ_ENUM(name) REQ_##name,
enum tui_req { TUI_REQUESTS(TUI_REQ_ENUM) REQ_COUNT };
#undef TUI_REQ_ENUM

struct tui_binding {
	const char *view; /* NULL: every view */
	int key;          /* ncurses key code or character */
	enum tui_req req;
	const char *help;
};

/* The request key means in view (a view_ops name); REQ_NONE if unbound. */
enum tui_req tui_keymap_lookup(const char *view, int key);
/* All bindings, global ones first, then per view, for the help screen. */
const struct tui_binding *tui_keymap_bindings(size_t *n);
/* "j", "Down", "PgDn", "^L", "Space": the name of a key for display. */
const char *tui_key_name(int key, char *buf, size_t n);

/* Headless key scripts. A script is text whose characters are keys, with
 *   \n \r \t \e \\ \<          Enter, Enter, Tab, Escape, backslash, '<'
 *   <Enter> <Esc> <Tab> <Space> <BS> <Del> <Up> <Down> <Left> <Right>
 *   <S-Left> <S-Right> <PgUp> <PgDn> <Home> <End> <F1> <lt> <gt>
 *   <C-x>                      control-x
 *   <Resize:WxH>               the terminal is resized to W columns, H rows
 * A '<' that does not start one of these names is the key '<'.
 * Parsed into keys; a resize is TUI_KEY_SCRIPT_RESIZE followed by W and H. */
#define TUI_KEY_SCRIPT_RESIZE (-2)
int tui_script_parse(const char *script, int **keys, size_t *n, struct errbuf *err);

#endif
