/* tui.h: the terminal UI's shared state and the services views use.
 *
 * struct tui is the model every view reads: the case (ranks, hosts, event
 * kinds, verdict, time range), the shared selection (a rank or a host at a
 * time), the search matches, the marks, the kind filter. Views keep their own
 * state private (tui_view.h) and talk to each other only through this: the
 * timeline sets the cursor, the events view opens at it.
 *
 * Invariants: ranks[] is sorted by rank number; every rank's host is an
 * index into hosts[] or -1; kinds[] is sorted by name; cur.gen changes
 * whenever the cursor is moved through tui_set_cursor(). */
#ifndef NF_TUI_H
#define NF_TUI_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "tui_keymap.h"
#include "util.h"

/* Times as the TUI holds them: a crafted case may hold any 64-bit value, and
 * the timeline adds and subtracts times, scales and columns; within
 * +-2^61 us (73,000 years) that arithmetic cannot overflow. Every time read
 * from the case goes through it. */
#define TUI_TIME_LIMIT ((int64_t)1 << 61)
static inline int64_t tui_time(int64_t t)
{
	return t > TUI_TIME_LIMIT ? TUI_TIME_LIMIT : t < -TUI_TIME_LIMIT ? -TUI_TIME_LIMIT : t;
}

#define TUI_MAX_VIEWS 16
#define TUI_MAX_MATCHES 100000

struct tui_host {
	char *name;      /* never NULL; "(no host)" for lines no host was found for */
	int *ranks;      /* rank numbers, ascending */
	size_t n_ranks;
	int64_t first_rank;
	bool noted;      /* a culprit, the detector, a finding or a kernel message names it (the ! filter) */
};

struct tui_rank {
	int rank;
	int host;        /* index into hosts, -1 when unknown */
};

struct tui_kind {
	char *name;
	char *class_name;
	int marker;      /* index into tui_markers (tui_colors.h) */
	bool hidden;     /* filtered out with F */
};

/* One search match: a line of the case. */
struct tui_match {
	int64_t source_id, line_no;
	int64_t time_us; /* the line's time, or the last time seen before it in its file */
	bool has_time;
	int rank;        /* -1 when the line has none */
	int host;        /* index into hosts, -1 */
};

struct tui_mark {
	int rank, host;  /* as in struct tui_cursor */
	int64_t time_us;
};

struct tui_verdict {
	bool present;
	char *outcome, *cause, *culprit_hosts, *process_group, *op, *confidence, *summary;
	char *rule; /* the diagnosis rule that decided, NULL when the case does not say */
	int64_t seq, first_failure_us;
	bool has_seq, has_first_failure;
	int *culprits;
	size_t n_culprits;
};

/* The selection all views share: a rank (host = its host), or a host row
 * (rank = -1), at a time. */
struct tui_cursor {
	int rank, host;
	int64_t time_us;
	unsigned gen;
};

struct view_ops;
struct tui_frame {
	const struct view_ops *ops;
	void *state;
};

struct tui_prompt;

struct tui {
	sqlite3 *db;
	const char *case_name;          /* shown in the title bar */
	bool ascii;                     /* no UTF-8 line drawing */
	bool color;
	int rows, cols;

	struct tui_rank *ranks;
	size_t n_ranks;
	struct tui_host *hosts;
	size_t n_hosts;
	int *host_by_name;              /* indexes into hosts, by name (tui_host_index) */
	struct tui_kind *kinds;
	size_t n_kinds;
	struct tui_verdict verdict;
	int64_t t_min, t_max;           /* the job's span (ranks and hosts) */
	bool has_time;

	struct tui_cursor cur;

	char *pattern;                  /* the last search, NULL if none */
	pcre2_code *re;
	struct tui_match *matches;      /* sorted by time, then source and line */
	size_t n_matches;
	long cur_match;                 /* -1 before n/N */
	bool matches_capped;

	struct tui_mark *marks;
	size_t n_marks, cap_marks;

	char msg[512];                  /* one-key message on the status line */
	bool msg_error;
	struct tui_prompt *prompt;      /* the open prompt, or NULL */

	struct tui_frame stack[TUI_MAX_VIEWS];
	int depth;
	bool quit;
};

/* tui.c: the view stack, messages, the cursor. */
void tui_push(struct tui *t, const struct view_ops *ops, const void *arg);
void tui_pop(struct tui *t);
void tui_pop_to_root(struct tui *t);
void tui_message(struct tui *t, const char *fmt, ...) NF_PRINTF(2, 3);
void tui_error(struct tui *t, const char *fmt, ...) NF_PRINTF(2, 3);
void tui_set_cursor(struct tui *t, int rank, int host, int64_t time_us);
/* Rows available to a view: everything but the status line. */
int tui_view_rows(const struct tui *t);
/* Rows of a list view below its own `header` rows (title, column header):
 * one at least. */
int tui_page_rows(const struct tui *t, int header);
/* A list's selection moved by a movement request (up, down, a page, home,
 * end) and kept within 0 .. n - 1 (0 when n is 0); false, and *sel as it
 * was, for any other request. */
bool tui_list_move(enum tui_req req, long page, long n, long *sel);
/* sel kept within 0 .. n - 1 (0 when n is 0) */
long tui_list_clamp(long sel, long n);

/* tui_model.c: loading the shared model. */
int tui_model_load(struct tui *t, struct errbuf *err);
void tui_model_free(struct tui *t);
/* Index of rank in t->ranks, -1 if not there. */
long tui_rank_index(const struct tui *t, int rank);
/* Index of host name in t->hosts, -1 if not there (or name is NULL). */
int tui_host_index(const struct tui *t, const char *name);
/* Index of kind name in t->kinds, -1 if unknown. */
int tui_kind_index(const struct tui *t, const char *name);
/* An SQL condition on the column `col` that drops hidden kinds ("1" when
 * none are hidden); sqlite3_free() it. */
char *tui_kind_filter_sql(const struct tui *t, const char *col);
bool tui_is_culprit(const struct tui *t, int rank);
size_t tui_hidden_kinds(const struct tui *t);
/* The verdict in one line for the status line. */
void tui_verdict_line(const struct tui *t, char *out, size_t n);

/* tui_search.c: / and n N. */
void tui_search_prompt(struct tui *t);
/* Runs a search (also used by tests through the prompt); 0 or -1 with a message. */
int tui_search_run(struct tui *t, const char *pattern);
/* Moves to the next (dir 1) or previous (-1) match from the cursor; the
 * match, or NULL when there is none. */
const struct tui_match *tui_search_step(struct tui *t, int dir);
void tui_search_free(struct tui *t);
/* Row cells with a match: for c in [0, ncols), cells[c] |= bit when a
 * match of the row falls in [t0 + c*scale, t0 + (c+1)*scale). The row is
 * a rank (rank >= 0), a host's own lines (rank -1), or, with whole_host, a
 * collapsed host and all its ranks. */
void tui_search_cells(const struct tui *t, int rank, int host, bool whole_host, int64_t t0, int64_t scale, int ncols,
		      unsigned char *cells, unsigned char bit);

/* tui_marks.c: m ' " */
void tui_mark_toggle(struct tui *t);
void tui_mark_step(struct tui *t, int dir);
void tui_mark_cells(const struct tui *t, int rank, int host, bool whole_host, int64_t t0, int64_t scale, int ncols,
		    unsigned char *cells, unsigned char bit);
/* Whether (rank, host, time) holds a mark. */
bool tui_mark_at(const struct tui *t, int rank, int64_t time_us);
void tui_marks_free(struct tui *t);

/* tui_sql.c: the SQL prompt (the result table is tui_sql_view). */
void tui_sql_prompt(struct tui *t);

#endif
