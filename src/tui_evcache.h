/* tui_evcache.h: the timed events of a timeline row, loaded the first time
 * the row is drawn (one indexed query per rank) and kept as (time, kind)
 * pairs, so panning and zooming need no SQL. Rank-less events (launcher,
 * kernel) are loaded for all hosts at once, the first time one is needed.
 * Kinds are indexes into struct tui's kinds, so the kind filter applies
 * without reloading. */
#ifndef NF_TUI_EVCACHE_H
#define NF_TUI_EVCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "tui.h"

struct tui_ev {
	int64_t t;
	int kind; /* index into t->kinds, -1 unknown */
};

/* Sorted by time. */
struct tui_evlist {
	struct tui_ev *ev;
	size_t n;
};

struct tui_evcache;

struct tui_evcache *tui_evcache_new(const struct tui *t);
void tui_evcache_free(struct tui_evcache *c);
const struct tui_evlist *tui_evcache_rank(struct tui_evcache *c, const struct tui *t, size_t rank_index);
/* The events of host that have no rank. */
const struct tui_evlist *tui_evcache_host(struct tui_evcache *c, const struct tui *t, int host);
/* First event at or after time. */
size_t tui_evlist_lower(const struct tui_evlist *l, int64_t time_us);

#endif
