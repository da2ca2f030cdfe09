/* tui_colors.c: see tui_colors.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tui_colors.h"

#include <string.h>

struct role_style {
	short fg, bg;   /* -1: the terminal's default */
	attr_t color_attr;
	attr_t mono_attr;
};

static const struct role_style styles[R_COUNT] = {
	[R_NORMAL] = {-1, -1, 0, 0},
	[R_TITLE] = {COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE},
	[R_STATUS] = {COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE},
	[R_ERROR] = {COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD},
	[R_PROMPT] = {-1, -1, A_BOLD, A_BOLD},
	[R_AXIS] = {COLOR_CYAN, -1, 0, A_UNDERLINE},
	[R_HOST] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
	[R_LABEL] = {-1, -1, 0, 0},
	[R_SELECTED] = {COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE},
	[R_CURSOR] = {COLOR_WHITE, -1, A_BOLD, A_BOLD},
	[R_CULPRIT] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE},
	[R_FAILURE] = {COLOR_RED, -1, A_BOLD, A_BOLD},
	[R_SPAN] = {COLOR_BLUE, -1, 0, A_DIM},
	[R_MATCH] = {COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE | A_UNDERLINE},
	[R_MARK] = {COLOR_BLACK, COLOR_MAGENTA, 0, A_REVERSE},
	[R_HEADER] = {COLOR_CYAN, -1, A_BOLD, A_BOLD | A_UNDERLINE},
	[R_DIM] = {COLOR_CYAN, -1, 0, A_DIM},
	[R_TARGET] = {COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE},
	[R_M_OTHER] = {-1, -1, A_DIM, A_DIM},
	[R_M_COLL] = {COLOR_BLUE, -1, A_BOLD, 0},
	[R_M_STEP] = {COLOR_GREEN, -1, 0, 0},
	[R_M_INIT] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
	[R_M_SYSMSG] = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
	[R_M_DUMP] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
	[R_M_TIMEOUT] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
	[R_M_ERROR] = {COLOR_RED, -1, A_BOLD, A_BOLD},
	[R_M_EXIT] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE},
	[R_M_SIGNAL] = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD | A_UNDERLINE},
};

static bool have_color;

void tui_colors_init(bool use_color)
{
	have_color = false;
	if (!use_color || !has_colors() || start_color() == ERR)
		return;
	bool defaults = use_default_colors() == OK;
	if (COLOR_PAIRS < R_COUNT)
		return;
	for (int r = 1; r < R_COUNT; r++) {
		short fg = styles[r].fg, bg = styles[r].bg;
		if (!defaults) {
			if (fg < 0)
				fg = COLOR_WHITE;
			if (bg < 0)
				bg = COLOR_BLACK;
		}
		init_pair((short)r, fg, bg);
	}
	have_color = true;
}

attr_t tui_attr(enum tui_role role)
{
	if (role <= R_NORMAL || role >= R_COUNT)
		return A_NORMAL;
	if (have_color)
		return COLOR_PAIR(role) | styles[role].color_attr;
	return styles[role].mono_attr;
}

/* Lowest priority first; tui_markers[0] is the catch-all. */
const struct tui_marker tui_markers[] = {
	{NULL, '.', 0, R_M_OTHER, "other events (config, network, info)"},
	{"coll", 'c', 1, R_M_COLL, "collective (flight recorder)"},
	{"step", '=', 2, R_M_STEP, "training step"},
	{"init", 'i', 3, R_M_INIT, "NCCL / torchrun init"},
	{"sysmsg", 'K', 4, R_M_SYSMSG, "system (kernel) message"},
	{"dump", 'D', 5, R_M_DUMP, "flight-recorder dump"},
	{"timeout", 'T', 6, R_M_TIMEOUT, "timeout"},
	{"error", 'E', 7, R_M_ERROR, "error"},
	{"exit", 'X', 8, R_M_EXIT, "exit"},
	{"signal", '!', 9, R_M_SIGNAL, "signal"},
};
const size_t tui_n_markers = sizeof(tui_markers) / sizeof(tui_markers[0]);

int tui_marker_index(const char *class_name)
{
	if (class_name)
		for (size_t i = 1; i < tui_n_markers; i++)
			if (strcmp(tui_markers[i].class_name, class_name) == 0)
				return (int)i;
	return 0;
}
