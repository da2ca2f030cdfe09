/* tui_input.h: the one-line prompt on the status line (/, :, ;): editing
 * keys, a history per prompt kind. While a prompt is open every key goes
 * to it; Enter calls done with the text, Esc (or ^C, ^G) with NULL. */
#ifndef NF_TUI_INPUT_H
#define NF_TUI_INPUT_H

#include "tui.h"

enum tui_history { HIST_SEARCH, HIST_SQL, HIST_COUNT };
typedef void (*tui_prompt_done)(struct tui *t, const char *text);

void tui_prompt_open(struct tui *t, const char *label, enum tui_history h, tui_prompt_done done);
void tui_prompt_key(struct tui *t, int key);
void tui_prompt_draw(struct tui *t, int y);
void tui_prompt_close(struct tui *t);
void tui_prompt_free_history(void);

#endif
