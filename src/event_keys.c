/* event_keys.c: the distinct processes of the loaded events (see event_keys.h). */
#include "event_keys.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "case_db.h"
#include "util.h"

struct key {
	int64_t first_event, source_id, pid, rank, local_rank;
	char *host; /* NULL: none */
	size_t host_len;
	bool nccl;
	uint64_t hash;
};

struct event_keys {
	struct key *keys; /* in first-event order */
	size_t n, cap;
	int64_t last_event;
	size_t *slot; /* open addressing: index + 1 into keys, 0 empty */
	size_t nslots;
};

struct event_keys *event_keys_new(void)
{
	struct event_keys *k = xcalloc(1, sizeof(*k));
	k->nslots = 1024;
	k->slot = xcalloc(k->nslots, sizeof(*k->slot));
	return k;
}

void event_keys_free(struct event_keys *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->keys[i].host);
	free(k->keys);
	free(k->slot);
	free(k);
}

bool event_keys_nccl_kind(const char *kind)
{
	return strncasecmp(kind, "nccl", 4) == 0 && kind[4] != '\0';
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	return h * 0x100000001b3ULL;
}

static uint64_t key_hash(const struct key *x)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	h = mix(h, (uint64_t)x->source_id);
	h = mix(h, (uint64_t)x->pid);
	h = mix(h, (uint64_t)x->rank);
	h = mix(h, (uint64_t)x->local_rank);
	h = mix(h, x->nccl);
	for (size_t i = 0; i < x->host_len; i++)
		h = mix(h, (unsigned char)x->host[i]);
	return mix(h, x->host ? 1 : 0);
}

static bool key_eq(const struct key *a, const struct key *b)
{
	return a->hash == b->hash && a->source_id == b->source_id && a->pid == b->pid && a->rank == b->rank &&
	       a->local_rank == b->local_rank && a->nccl == b->nccl && !a->host == !b->host &&
	       a->host_len == b->host_len && (!a->host || memcmp(a->host, b->host, a->host_len) == 0);
}

static void rehash(struct event_keys *k)
{
	free(k->slot);
	k->nslots *= 2;
	k->slot = xcalloc(k->nslots, sizeof(*k->slot));
	for (size_t i = 0; i < k->n; i++) {
		size_t s = (size_t)k->keys[i].hash & (k->nslots - 1);
		while (k->slot[s])
			s = (s + 1) & (k->nslots - 1);
		k->slot[s] = i + 1;
	}
}

void event_keys_add(struct event_keys *k, int64_t event_id, int64_t source_id, const char *host, size_t host_len,
		    int64_t pid, int64_t rank, int64_t local_rank, bool nccl)
{
	struct key x = {
		.first_event = event_id,
		.source_id = source_id,
		.pid = pid < 0 ? -1 : pid,
		.rank = rank < 0 ? -1 : rank,
		.local_rank = local_rank < 0 ? -1 : local_rank,
		.host = host_len ? (char *)host : NULL,
		.host_len = host_len,
		.nccl = nccl,
	};
	x.hash = key_hash(&x);
	k->last_event = event_id;
	/* a source's events come together and mostly name one process */
	if (k->n && key_eq(&k->keys[k->n - 1], &x))
		return;
	size_t s = (size_t)x.hash & (k->nslots - 1);
	for (; k->slot[s]; s = (s + 1) & (k->nslots - 1))
		if (key_eq(&k->keys[k->slot[s] - 1], &x))
			return;
	xgrow(&k->keys, &k->cap, k->n + 1, sizeof(*k->keys));
	x.host = host_len ? xstrndup(host, host_len) : NULL;
	k->keys[k->n++] = x;
	k->slot[s] = k->n;
	if (k->n * 2 > k->nslots)
		rehash(k);
}

static void bind_or_null(sqlite3_stmt *st, int col, int64_t v)
{
	if (v >= 0)
		sqlite3_bind_int64(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

void event_keys_write(const struct event_keys *k, sqlite3 *db)
{
	db_exec(db, "DROP TABLE IF EXISTS temp.event_keys;"
		    "CREATE TEMP TABLE event_keys(first_event INTEGER, source_id INTEGER, host TEXT, pid INTEGER,"
		    " rank INTEGER, local_rank INTEGER, nccl INTEGER)");
	sqlite3_stmt *st = db_prepare(db, "INSERT INTO temp.event_keys VALUES(?,?,?,?,?,?,?)");
	for (size_t i = 0; k && i < k->n; i++) {
		const struct key *x = &k->keys[i];
		sqlite3_bind_int64(st, 1, x->first_event);
		sqlite3_bind_int64(st, 2, x->source_id);
		if (x->host)
			sqlite3_bind_text(st, 3, x->host, (int)x->host_len, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 3);
		bind_or_null(st, 4, x->pid);
		bind_or_null(st, 5, x->rank);
		bind_or_null(st, 6, x->local_rank);
		sqlite3_bind_int(st, 7, x->nccl);
		db_step_done(st);
	}
	sqlite3_finalize(st);
	/* the events inserted in SQL after the load (console copies) */
	st = db_prepare(db, "INSERT INTO temp.event_keys"
			    " SELECT min(event_id), source_id, host, pid, rank, local_rank, kind LIKE 'nccl_%'"
			    " FROM events WHERE event_id > ?"
			    " GROUP BY source_id, host, pid, rank, local_rank, kind LIKE 'nccl_%' ORDER BY 1");
	sqlite3_bind_int64(st, 1, k ? k->last_event : 0);
	db_step_done(st);
	sqlite3_finalize(st);
}
