/* tui_run.h: the entry point of the terminal UI (cmd_tui.c calls it). */
#ifndef NF_TUI_RUN_H
#define NF_TUI_RUN_H

#include <stdbool.h>

struct tui_opts {
	const char *case_path;
	const char *case_name; /* title bar name; NULL: the file name of case_path */
	const char *script;    /* keys (tui_keymap.h); NULL: interactive */
	const char *dump_path; /* the screen after the script, as text ("-": stdout) */
	int rows, cols;        /* the headless screen size */
	bool ascii, no_color;
	bool timing;           /* time per key on stderr at the end */
};

/* Returns an exit code (NF_EXIT_*). */
int tui_run(const struct tui_opts *o);

#endif
