/* event_keys.h: the distinct processes the loaded events name, as (source,
 * host, pid, rank, local rank, NCCL line or not) with the first event of
 * each. The writer collects them as it inserts events (a few thousand keys
 * for hundreds of thousands of events: bounded by the processes, not the
 * lines); the attribution reads them from the temporary table event_keys
 * instead of scanning every event for the same few rows several times. */
#ifndef NF_EVENT_KEYS_H
#define NF_EVENT_KEYS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_keys;

struct event_keys *event_keys_new(void);
void event_keys_free(struct event_keys *k);
/* One event as inserted: values < 0 and host_len 0 stand for NULL; nccl:
 * its kind is an NCCL one (kind LIKE 'nccl_%'). Events come in increasing
 * event_id. */
void event_keys_add(struct event_keys *k, int64_t event_id, int64_t source_id, const char *host, size_t host_len,
		    int64_t pid, int64_t rank, int64_t local_rank, bool nccl);
/* true for a kind the attribution counts as NCCL's (as kind LIKE 'nccl_%') */
bool event_keys_nccl_kind(const char *kind);
/* Creates temp.event_keys(first_event, source_id, host, pid, rank,
 * local_rank, nccl) in first-event order: the keys added, then those of the
 * events inserted after them in SQL (console copies merged after the load).
 * k NULL: all of them from the events (a case loaded earlier). */
void event_keys_write(const struct event_keys *k, sqlite3 *db);

#endif
