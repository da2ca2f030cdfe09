/* flight_recorder.c: see flight_recorder.h. */
#include "flight_recorder.h"

#include "line_split.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pickle_read.h"

/* Every dump repeats the job's group configuration (the default group's
 * member list alone is as long as the job): the case stores each (name,
 * description, members) once, the first in the load's order. The jobs that
 * read the dumps run in any order, so two tables of config hashes:
 * - claims (the workers): the earliest job that has built a config's text.
 *   A job that finds its config claimed by itself or an earlier job builds
 *   nothing and sends a copy marker: the earliest job in order always
 *   claims, since nothing earlier can have claimed before it.
 * - stored (the writer, in order): a text already stored is dropped (a
 *   later job may have claimed before an earlier one took the claim over). */
struct hash_table {
	uint64_t *key, *val; /* key 0: empty */
	size_t n, cap;
};

static uint64_t *table_slot(struct hash_table *t, uint64_t key)
{
	size_t i = (size_t)(key ^ (key >> 29)) & (t->cap - 1);
	while (t->key[i] && t->key[i] != key)
		i = (i + 1) & (t->cap - 1);
	return &t->key[i];
}

/* The value of key (UINT64_MAX if absent) and where it goes. */
static size_t table_find(struct hash_table *t, uint64_t key, uint64_t *val)
{
	if (t->n * 2 >= t->cap) {
		struct hash_table g = {.cap = t->cap ? t->cap * 2 : 64};
		g.key = xcalloc(g.cap, sizeof(*g.key));
		g.val = xcalloc(g.cap, sizeof(*g.val));
		for (size_t i = 0; i < t->cap; i++)
			if (t->key[i]) {
				uint64_t *k = table_slot(&g, t->key[i]);
				*k = t->key[i];
				g.val[k - g.key] = t->val[i];
			}
		g.n = t->n;
		free(t->key);
		free(t->val);
		*t = g;
	}
	size_t i = (size_t)(table_slot(t, key) - t->key);
	*val = t->key[i] ? t->val[i] : UINT64_MAX;
	return i;
}

static void table_set(struct hash_table *t, size_t i, uint64_t key, uint64_t val)
{
	if (!t->key[i])
		t->n++;
	t->key[i] = key;
	t->val[i] = val;
}

static void table_free(struct hash_table *t)
{
	free(t->key);
	free(t->val);
	*t = (struct hash_table){0};
}

static struct {
	struct hash_table claims, stored;
	pthread_mutex_t mu;
} configs = {.mu = PTHREAD_MUTEX_INITIALIZER};

void fr_forget_configs(void)
{
	pthread_mutex_lock(&configs.mu);
	table_free(&configs.claims);
	table_free(&configs.stored);
	pthread_mutex_unlock(&configs.mu);
}

/* true: the job of this order builds the config's text */
static bool config_claim(uint64_t hash, uint64_t order)
{
	pthread_mutex_lock(&configs.mu);
	uint64_t by;
	size_t i = table_find(&configs.claims, hash, &by);
	bool mine = by > order;
	if (mine)
		table_set(&configs.claims, i, hash, order);
	pthread_mutex_unlock(&configs.mu);
	return mine;
}

bool fr_config_first(uint64_t hash)
{
	pthread_mutex_lock(&configs.mu);
	uint64_t seen;
	size_t i = table_find(&configs.stored, hash, &seen);
	bool first = seen == UINT64_MAX;
	if (first)
		table_set(&configs.stored, i, hash, 1);
	pthread_mutex_unlock(&configs.mu);
	return first;
}

/* A hash of what json_value() writes for v: equal texts, equal hashes. */
static uint64_t mix(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 32);
}

static uint64_t mix_bytes(uint64_t h, const char *s, size_t n)
{
	h = mix(h, n);
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = mix(h, w);
	}
	uint64_t w = 0;
	memcpy(&w, s + i, n - i);
	return mix(h, w);
}

enum { H_NULL = 1, H_TRUE, H_FALSE, H_INT, H_FLOAT, H_STR, H_LIST, H_DICT };

static void json_value(struct buf *b, const struct pk_value *v, int depth);

static uint64_t value_hash(uint64_t h, const struct pk_value *v, int depth)
{
	int64_t i;
	double d;
	size_t n;
	const char *s;
	if (!v || depth > 8)
		return mix(h, H_NULL);
	switch (pk_type(v)) {
	case PK_NONE:
		return mix(h, H_NULL);
	case PK_BOOL:
		pk_int(v, &i);
		return mix(h, i ? H_TRUE : H_FALSE);
	case PK_INT:
		pk_int(v, &i);
		return mix(mix(h, H_INT), (uint64_t)i);
	case PK_FLOAT:
		pk_float(v, &d);
		if (d != d || d > 1e300 || d < -1e300)
			return mix(h, H_NULL);
		uint64_t bits;
		memcpy(&bits, &d, sizeof(bits));
		return mix(mix(h, H_FLOAT), bits);
	case PK_STR:
	case PK_BYTES:
		s = pk_str(v, &n);
		return mix_bytes(mix(h, H_STR), s ? s : "", s ? n : 0);
	case PK_LIST:
	case PK_TUPLE:
		h = mix(mix(h, H_LIST), pk_len(v));
		for (size_t k = 0; k < pk_len(v); k++)
			h = value_hash(h, pk_item(v, k), depth + 1);
		return h;
	case PK_DICT:
		h = mix(mix(h, H_DICT), pk_len(v));
		for (size_t k = 0; k < pk_len(v); k++) {
			const struct pk_value *key = pk_key(v, k);
			s = pk_str(key, &n);
			if (s) {
				h = mix_bytes(mix(h, H_STR), s, n);
			} else {
				struct buf kb = {0};
				json_value(&kb, key, depth + 1);
				h = mix_bytes(mix(h, H_STR), kb.data ? kb.data : "", kb.len);
				buf_free(&kb);
			}
			h = value_hash(h, pk_item(v, k), depth + 1);
		}
		return h;
	}
	return mix(h, H_NULL);
}

/* what jstr() writes: nothing for NULL */
static uint64_t str_hash(uint64_t h, const char *s, size_t n)
{
	return s ? mix_bytes(mix(h, H_STR), s, n) : mix(h, H_NULL);
}

/* completed entries kept per process group and dump (see fr_ingest) */
#define FR_KEEP 32

struct counting_reader {
	struct member_stream *ms;
	struct line_counter lines; /* a pickle's "lines", counted as text's would be */
	uint64_t bytes;
};

static long counting_read(void *ctx, void *buf, size_t n)
{
	struct counting_reader *cr = ctx;
	long r = member_read(cr->ms, buf, n);
	if (r > 0) {
		line_counter_feed(&cr->lines, buf, (size_t)r);
		cr->bytes += (uint64_t)r;
	}
	return r;
}

static void drain(struct counting_reader *cr)
{
	char buf[65536];
	while (counting_read(cr, buf, sizeof(buf)) > 0)
		;
}

/* JSON helpers over pickle values */
static void json_value(struct buf *b, const struct pk_value *v, int depth)
{
	int64_t i;
	double d;
	size_t n;
	const char *s;
	if (!v || depth > 8) {
		buf_puts(b, "null");
		return;
	}
	switch (pk_type(v)) {
	case PK_NONE:
		buf_puts(b, "null");
		break;
	case PK_BOOL:
		pk_int(v, &i);
		buf_puts(b, i ? "true" : "false");
		break;
	case PK_INT:
		pk_int(v, &i);
		buf_int(b, i);
		break;
	case PK_FLOAT:
		pk_float(v, &d);
		if (d != d || d > 1e300 || d < -1e300)
			buf_puts(b, "null");
		else
			buf_printf(b, "%.17g", d);
		break;
	case PK_STR:
	case PK_BYTES:
		s = pk_str(v, &n);
		buf_json_str(b, s ? s : "", s ? n : 0);
		break;
	case PK_LIST:
	case PK_TUPLE:
		buf_putc(b, '[');
		for (size_t k = 0; k < pk_len(v); k++) {
			if (k)
				buf_putc(b, ',');
			json_value(b, pk_item(v, k), depth + 1);
		}
		buf_putc(b, ']');
		break;
	case PK_DICT:
		buf_putc(b, '{');
		for (size_t k = 0; k < pk_len(v); k++) {
			if (k)
				buf_putc(b, ',');
			const struct pk_value *key = pk_key(v, k);
			s = pk_str(key, &n);
			if (s)
				buf_json_str(b, s, n);
			else {
				struct buf kb = {0};
				json_value(&kb, key, depth + 1);
				buf_json_str(b, kb.data ? kb.data : "", kb.len);
				buf_free(&kb);
			}
			buf_putc(b, ':');
			json_value(b, pk_item(v, k), depth + 1);
		}
		buf_putc(b, '}');
		break;
	}
}

static void jkey(struct buf *b, const char *k)
{
	if (b->len > 1)
		buf_putc(b, ',');
	buf_json_str(b, k, strlen(k));
	buf_putc(b, ':');
}

static void jstr(struct buf *b, const char *k, const char *s, size_t n)
{
	if (!s)
		return;
	jkey(b, k);
	buf_json_str(b, s, n);
}

static void jval(struct buf *b, const char *k, const struct pk_value *v)
{
	if (!v)
		return;
	jkey(b, k);
	json_value(b, v, 0);
}

static void jint(struct buf *b, const char *k, int64_t v)
{
	jkey(b, k);
	buf_int(b, v);
}

static const char *get_str(const struct pk_value *d, const char *key, size_t *n)
{
	size_t dummy;
	return pk_str(pk_get(d, key), n ? n : &dummy);
}

/* Sum over tensors of the product of each tensor's dimensions. */
static bool numel_of(const struct pk_value *sizes, int64_t *out)
{
	if (!sizes || (pk_type(sizes) != PK_LIST && pk_type(sizes) != PK_TUPLE))
		return false;
	/* a crafted dump's sizes may overflow 64 bits: then there is no numel */
	int64_t total = 0;
	for (size_t t = 0; t < pk_len(sizes); t++) {
		const struct pk_value *dims = pk_item(sizes, t);
		int64_t prod = 1;
		for (size_t k = 0; k < pk_len(dims); k++) {
			int64_t d;
			if (pk_int(pk_item(dims, k), &d) && __builtin_mul_overflow(prod, d, &prod))
				return false;
		}
		if (__builtin_add_overflow(total, prod, &total))
			return false;
	}
	*out = total;
	return true;
}

/* The first frame outside torch/ (the user's call site), "file:line func". */
static void user_frame(const struct pk_value *frames, struct buf *out)
{
	buf_clear(out);
	for (size_t k = 0; k < pk_len(frames); k++) {
		const struct pk_value *f = pk_item(frames, k);
		size_t n;
		const char *file = get_str(f, "filename", &n);
		if (!file || strstr(file, "/torch/") || strstr(file, "site-packages"))
			continue;
		int64_t line = 0;
		pk_int(pk_get(f, "line"), &line);
		const char *name = get_str(f, "name", NULL);
		buf_printf(out, "%.*s:%lld %s", (int)n, file, (long long)line, name ? name : "");
		return;
	}
}

struct fr_emit {
	event_emit_fn emit;
	void *ctx;
	int rank;
	uint64_t dedupe; /* a group configuration's hash (else 0) */
	bool dup;        /* a copy of one an earlier dump carries */
};

static void emit(struct fr_emit *fe, long line_no, const char *kind, const char *cls, const struct buf *fields,
		 bool has_time, int64_t t_us)
{
	struct event_rec e = {
		.line_no = line_no,
		.kind = kind,
		.class_name = cls,
		.rank = fe->rank,
		.local_rank = -1,
		.pid = -1,
		.tid = -1,
		.dev = -1,
		.has_time = has_time,
		.t_us = t_us,
		.clock = has_time ? CLOCK_EPOCH : CLOCK_NONE,
		.fields_json = fields->data,
		.family = -1,
		.dedupe = fe->dedupe,
		.dup = fe->dup,
	};
	fe->emit(fe->ctx, &e);
}

static bool ns_to_us(const struct pk_value *v, int64_t *us)
{
	int64_t ns;
	if (!pk_int(v, &ns) || ns <= 0)
		return false;
	*us = ns / 1000;
	return true;
}

/* Batched transfers (dist.batch_isend_irecv): the recorder writes one entry
 * per send or receive, whose state it never updates, then a "coalesced"
 * entry that carries the batch's state. The transfers get that state and
 * "batch": 1; the closing entry counts as a transfer (is_p2p 1), not as a
 * collective. */
struct entry_batch {
	const char *state;   /* the batch's state, for a transfer in one; else NULL */
	bool closer;         /* the "coalesced" entry that closes a batch of transfers */
};

static bool is_transfer(const struct pk_value *e)
{
	int64_t p2p = 0;
	pk_int(pk_get(e, "is_p2p"), &p2p);
	return p2p != 0;
}

static bool is_coalesced(const struct pk_value *e)
{
	size_t n;
	const char *name = get_str(e, "profiling_name", &n);
	return name && n >= 9 && memcmp(name + n - 9, "coalesced", 9) == 0;
}

/* batch[k] for every entry, from the end: a run of transfers followed by a
 * coalesced entry is one batch */
static void find_batches(const struct pk_value *entries, size_t n, struct entry_batch *batch)
{
	const char *closing = NULL;
	for (size_t k = n; k-- > 0;) {
		const struct pk_value *e = pk_item(entries, k);
		if (is_transfer(e)) {
			batch[k].state = closing;
			if (closing && k + 1 < n && !is_transfer(pk_item(entries, k + 1)))
				batch[k + 1].closer = true;
			continue;
		}
		closing = is_coalesced(e) ? get_str(e, "state", NULL) : NULL;
	}
}

enum fr_transfer fr_transfer_of(const char *op, int *peer)
{
	int a;
	if (sscanf(op, "send %d->%d", &a, peer) == 2)
		return FR_SEND;
	if (sscanf(op, "recv %d<-%d", &a, peer) == 2)
		return FR_RECV;
	return FR_NOT_TRANSFER;
}

/* Transfers per (group, direction, peer) over the whole dump, written into
 * the fr_kept event when the ring never wrapped (its first record is the
 * process's first): then they count every transfer the process made, and
 * the two ends of a pair must agree. A skipped receive whose send completed
 * anyway (a small message) leaves no other trace. */
#define FR_MAX_PAIRS 64
struct transfer_count {
	char pg[64];
	bool send;
	int64_t peer;
	int64_t n;
};

static void count_transfers(const struct pk_value *entries, size_t n, struct buf *b)
{
	int64_t first = -1;
	if (n == 0 || !pk_int(pk_get(pk_item(entries, 0), "record_id"), &first) || first != 0)
		return;
	struct transfer_count c[FR_MAX_PAIRS];
	size_t nc = 0;
	for (size_t k = 0; k < n; k++) {
		const struct pk_value *e = pk_item(entries, k);
		size_t len;
		const char *name = get_str(e, "profiling_name", &len);
		int peer;
		if (!name || !is_transfer(e) || len < 5 || strncmp(name, "nccl:", 5) != 0)
			continue;
		enum fr_transfer dir = fr_transfer_of(name + 5, &peer);
		if (dir == FR_NOT_TRANSFER)
			continue;
		bool send = dir == FR_SEND;
		size_t pl = 0;
		const char *pg = pk_str(pk_item(pk_get(e, "process_group"), 0), &pl);
		if (!pg || pl >= sizeof(c[0].pg))
			continue;
		size_t i = 0;
		while (i < nc && !(c[i].send == send && c[i].peer == peer && strlen(c[i].pg) == pl &&
				   memcmp(c[i].pg, pg, pl) == 0))
			i++;
		if (i == nc) {
			if (nc == FR_MAX_PAIRS)
				return; /* too many peers to say anything whole */
			memcpy(c[i].pg, pg, pl);
			c[i].pg[pl] = '\0';
			c[i].send = send;
			c[i].peer = peer;
			c[i].n = 0;
			nc++;
		}
		c[i].n++;
	}
	if (!nc)
		return;
	buf_puts(b, ",\"transfers\":[");
	for (size_t i = 0; i < nc; i++) {
		buf_puts(b, i ? ",{\"pg_name\":" : "{\"pg_name\":");
		buf_json_str(b, c[i].pg, strlen(c[i].pg));
		buf_printf(b, ",\"dir\":\"%s\",\"peer\":%lld,\"n\":%lld}", c[i].send ? "send" : "recv",
			   (long long)c[i].peer, (long long)c[i].n);
	}
	buf_putc(b, ']');
}

static void emit_entry(struct fr_emit *fe, const struct pk_value *e, size_t index, const struct entry_batch *batch,
		       struct buf *b, struct buf *tmp)
{
	buf_clear(b);
	buf_putc(b, '{');
	jval(b, "record_id", pk_get(e, "record_id"));
	jval(b, "pg_id", pk_get(e, "pg_id"));
	const struct pk_value *pg = pk_get(e, "process_group");
	if (pg && pk_len(pg) >= 2) {
		size_t n;
		const char *s = pk_str(pk_item(pg, 0), &n);
		jstr(b, "pg_name", s, n);
		s = pk_str(pk_item(pg, 1), &n);
		jstr(b, "pg_desc", s, n);
	}
	jval(b, "seq", pk_get(e, "collective_seq_id"));
	int64_t is_p2p = 0;
	pk_int(pk_get(e, "is_p2p"), &is_p2p);
	if (is_p2p) {
		jval(b, "p2p_seq", pk_get(e, "p2p_seq_id"));
		jint(b, "is_p2p", 1);
	} else if (batch->closer) {
		jint(b, "is_p2p", 1);
	}
	size_t pn;
	const char *pname = get_str(e, "profiling_name", &pn);
	if (pname) {
		const char *op = pname;
		size_t on = pn;
		if (on > 5 && strncmp(op, "nccl:", 5) == 0) {
			op += 5;
			on -= 5;
		}
		jstr(b, "op", op, on);
	}
	int64_t numel;
	if (numel_of(pk_get(e, "input_sizes"), &numel))
		jint(b, "numel_in", numel);
	if (numel_of(pk_get(e, "output_sizes"), &numel))
		jint(b, "numel_out", numel);
	/* the shapes only when there is more than one tensor (numel says the rest) */
	if (pk_len(pk_get(e, "input_sizes")) > 1)
		jval(b, "in_sizes", pk_get(e, "input_sizes"));
	if (pk_len(pk_get(e, "output_sizes")) > 1)
		jval(b, "out_sizes", pk_get(e, "output_sizes"));
	const struct pk_value *dt = pk_get(e, "input_dtypes");
	if (dt && pk_len(dt) > 0) {
		size_t n;
		const char *s = pk_str(pk_item(dt, 0), &n);
		jstr(b, "dtype", s, n);
	}
	if (batch->state)
		jstr(b, "state", batch->state, strlen(batch->state));
	else
		jval(b, "state", pk_get(e, "state"));
	int64_t created = 0, t;
	bool has_created = ns_to_us(pk_get(e, "time_created_ns"), &created);
	if (has_created)
		jint(b, "time_created_us", created);
	if (ns_to_us(pk_get(e, "time_discovered_started_ns"), &t))
		jint(b, "time_started_us", t);
	if (ns_to_us(pk_get(e, "time_discovered_completed_ns"), &t))
		jint(b, "time_completed_us", t);
	const struct pk_value *dur = pk_get(e, "duration_ms");
	if (dur && !pk_is_none(dur))
		jval(b, "duration_ms", dur);
	jval(b, "timeout_ms", pk_get(e, "timeout_ms"));
	/* the call site, for what did not complete (what a reader looks at) */
	size_t sn;
	const char *state = batch->state ? batch->state : get_str(e, "state", &sn);
	if (batch->state || batch->closer)
		jint(b, "batch", 1);
	const struct pk_value *frames = pk_get(e, "frames");
	if (frames && (!state || strcmp(state, "completed") != 0)) {
		user_frame(frames, tmp);
		if (tmp->len)
			jstr(b, "frame", tmp->data, tmp->len);
	}
	buf_putc(b, '}');
	emit(fe, (long)index + 1, "fr_entry", "coll", b, has_created, created);
}

/* The ranks a group's config lists: a list of ints, or (2.9) its text
 * "[0, 1, 2]". Into out (cap of them); how many, or -1 when unreadable. */
static long group_ranks(const struct pk_value *v, int64_t *out, size_t cap)
{
	size_t n = 0, len;
	const char *s = pk_str(v, &len);
	if (s) {
		for (size_t i = 0; i < len;) {
			if (s[i] < '0' || s[i] > '9') {
				i++;
				continue;
			}
			int64_t x = 0;
			while (i < len && s[i] >= '0' && s[i] <= '9' && x < INT32_MAX)
				x = 10 * x + (s[i++] - '0');
			if (n == cap)
				return -1;
			out[n++] = x;
		}
		return (long)n;
	}
	if (pk_type(v) != PK_LIST && pk_type(v) != PK_TUPLE)
		return -1;
	for (size_t i = 0; i < pk_len(v); i++) {
		if (n == cap || !pk_int(pk_item(v, i), &out[n]))
			return -1;
		n++;
	}
	return (long)n;
}

static int cmp_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The dump's rank from its groups: a process has the configs of the groups
 * it is a member of, so the one rank every group lists is its own (-1 when
 * they leave more than one, or none). Each group's list read once, sorted,
 * and merged with what the groups before it share. */
static int rank_from_groups(const struct pk_value *cfg)
{
	enum { CAP = 65536 };
	int64_t *cur = xmalloc(CAP * sizeof(*cur)), *cand = NULL;
	long ncand = -1; /* the ranks every group so far lists, sorted; -1: no group yet */
	for (size_t i = 0; i < pk_len(cfg) && ncand != 0; i++) {
		long n = group_ranks(pk_get(pk_item(cfg, i), "ranks"), cur, CAP);
		if (n <= 0)
			continue; /* unreadable, or "all ranks" left out */
		/* PyTorch writes them in order: sorted only where they are not */
		for (long k = 1; k < n; k++)
			if (cur[k] < cur[k - 1]) {
				qsort(cur, (size_t)n, sizeof(*cur), cmp_int64);
				break;
			}
		if (ncand < 0) {
			cand = xmalloc((size_t)n * sizeof(*cand));
			ncand = 0;
			for (long k = 0; k < n; k++)
				if (!ncand || cand[ncand - 1] != cur[k])
					cand[ncand++] = cur[k];
			continue;
		}
		/* both sorted: one merge */
		long a = 0, b = 0, kept = 0;
		while (a < ncand && b < n) {
			if (cand[a] < cur[b])
				a++;
			else if (cand[a] > cur[b])
				b++;
			else {
				cand[kept++] = cand[a++];
				b++;
			}
		}
		ncand = kept;
	}
	int rank = ncand == 1 && cand[0] >= 0 && cand[0] <= INT32_MAX ? (int)cand[0] : -1;
	free(cand);
	free(cur);
	return rank;
}

/* Without an entry of a group, its local id (pg_status's key) has no name.
 * Both lists hold the groups the process is a member of, in the order it
 * created them: local ids count its groups, numeric names count the job's,
 * so the two sorted lists pair up. Into cfg_of[i] (the pg_config index of
 * pg_status's i-th key, or -1): false when they do not pair (sizes differ,
 * a name that is not a number, a pair the entries contradict). */
static int64_t key_num(const struct pk_value *k)
{
	size_t n;
	const char *s = pk_str(k, &n);
	int64_t x = -1;
	if (s) {
		char *end;
		char tmp[32];
		if (!n || n >= sizeof(tmp))
			return -1;
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		x = strtoll(tmp, &end, 10);
		return *end ? -1 : x;
	}
	return pk_int(k, &x) ? x : -1;
}

static int cmp_i64_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static bool pair_groups(const struct pk_value *cfg, const struct pk_value *status, const struct pk_value *entries,
			long *cfg_of)
{
	size_t n = pk_len(status);
	for (size_t i = 0; i < n; i++)
		cfg_of[i] = -1;
	if (!n || pk_len(cfg) != n)
		return false;
	int64_t (*ids)[2] = xmalloc(n * sizeof(*ids)), (*names)[2] = xmalloc(n * sizeof(*names));
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		ids[i][0] = key_num(pk_key(status, i));
		ids[i][1] = (int64_t)i;
		names[i][0] = key_num(pk_key(cfg, i));
		names[i][1] = (int64_t)i;
		ok = ids[i][0] >= 0 && names[i][0] >= 0;
	}
	if (ok) {
		qsort(ids, n, sizeof(*ids), cmp_i64_pair);
		qsort(names, n, sizeof(*names), cmp_i64_pair);
		for (size_t i = 0; i < n; i++)
			cfg_of[ids[i][1]] = (long)names[i][1];
		/* the entries' own pairs must agree: each id checked once */
		bool *checked = xcalloc(n, sizeof(*checked));
		size_t left = n;
		for (size_t k = 0; k < pk_len(entries) && ok && left; k++) {
			const struct pk_value *e = pk_item(entries, k);
			int64_t pid;
			if (!pk_int(pk_get(e, "pg_id"), &pid))
				continue;
			for (size_t i = 0; i < n; i++)
				if (ids[i][0] == pid && !checked[i]) {
					int64_t name = key_num(pk_item(pk_get(e, "process_group"), 0));
					if (name >= 0) {
						ok = names[i][0] == name;
						checked[i] = true;
						left--;
					}
				}
		}
		free(checked);
	}
	if (!ok)
		for (size_t i = 0; i < n; i++)
			cfg_of[i] = -1;
	free(ids);
	free(names);
	return ok;
}

int fr_ingest(struct member_stream *ms, const char *path, int path_rank, uint64_t order, event_emit_fn emit_fn,
	      void *ctx, long *lines, uint64_t *bytes, struct errbuf *err)
{
	(void)path;
	struct counting_reader cr = {.ms = ms};
	struct pk_limits lim;
	pk_default_limits(&lim);
	/* a dump holds a bounded ring of entries (2,000 by default, ~30 values
	 * each): these limits leave room for 100x that and bound memory */
	lim.max_input_bytes = 128 << 20;
	lim.max_values = 4000000;
	/* what the case keeps of a dump is its JSON: a dump may expand to no
	 * more than its input limit twice over */
	lim.max_expanded_bytes = (size_t)256 << 20;
	struct pk_doc *doc = pickle_read(counting_read, &cr, &lim, err);
	drain(&cr);
	*lines = line_counter_total(&cr.lines);
	*bytes = cr.bytes;
	if (!doc)
		return -1;
	const struct pk_value *root = pk_root(doc);
	if (pk_type(root) != PK_DICT) {
		errbuf_set(err, "not a flight-recorder dump (top level is %s, not a dict)", pk_type_name(pk_type(root)));
		pk_doc_free(doc);
		return -1;
	}
	struct fr_emit fe = {.emit = emit_fn, .ctx = ctx, .rank = path_rank};
	int64_t r;
	if (pk_int(pk_get(root, "rank"), &r)) {
		fe.rank = (int)r;
	} else {
		/* the dump's own fields first, then its name */
		int g = rank_from_groups(pk_get(root, "pg_config"));
		if (g >= 0)
			fe.rank = g;
	}
	struct buf b = {0}, tmp = {0};
	const struct pk_value *entries = pk_get(root, "entries");

	buf_putc(&b, '{');
	jval(&b, "version", pk_get(root, "version"));
	const struct pk_value *lib = pk_get(root, "comm_lib_version");
	jval(&b, "comm_lib_version", lib ? lib : pk_get(root, "nccl_version"));
	if (fe.rank >= 0)
		jint(&b, "rank", fe.rank);
	jint(&b, "entries", (int64_t)pk_len(entries));
	buf_putc(&b, '}');
	emit(&fe, 0, "fr_dump", "dump", &b, false, 0);

	const struct pk_value *cfg = pk_get(root, "pg_config");
	for (size_t i = 0; i < pk_len(cfg); i++) {
		const struct pk_value *v = pk_item(cfg, i);
		size_t n, dn;
		const char *name = pk_str(pk_key(cfg, i), &n);
		const char *desc = get_str(v, "desc", &dn);
		const struct pk_value *ranks = pk_get(v, "ranks");
		uint64_t h = str_hash(str_hash(0x6e63636c, name, n), desc, dn);
		h = ranks ? value_hash(h, ranks, 0) : mix(h, 0);
		if (!h)
			h = 1;
		fe.dedupe = h;
		buf_clear(&b);
		buf_putc(&b, '{');
		fe.dup = !config_claim(h, order);
		if (!fe.dup) {
			jstr(&b, "pg_name", name, n);
			jstr(&b, "pg_desc", desc, dn);
			jval(&b, "ranks", ranks);
		}
		buf_putc(&b, '}');
		emit(&fe, 0, "fr_pg_config", "info", &b, false, 0);
		fe.dedupe = 0;
		fe.dup = false;
	}
	/* local PG id -> (name, desc), from the entries */
	const struct pk_value *status = pk_get(root, "pg_status");
	long *cfg_of = NULL; /* pair_groups, the first time an id has no entry to name it */
	for (size_t i = 0; i < pk_len(status); i++) {
		const struct pk_value *v = pk_item(status, i);
		size_t n;
		const char *id = pk_str(pk_key(status, i), &n);
		int64_t idnum = -1;
		if (id)
			idnum = strtoll(id, NULL, 10);
		else
			pk_int(pk_key(status, i), &idnum);
		buf_clear(&b);
		buf_putc(&b, '{');
		jint(&b, "pg_id", idnum);
		bool named = false;
		for (size_t k = 0; k < pk_len(entries); k++) {
			const struct pk_value *e = pk_item(entries, k);
			int64_t pid;
			if (pk_int(pk_get(e, "pg_id"), &pid) && pid == idnum) {
				const struct pk_value *pg = pk_get(e, "process_group");
				size_t m;
				const char *s = pk_str(pk_item(pg, 0), &m);
				jstr(&b, "pg_name", s, m);
				s = pk_str(pk_item(pg, 1), &m);
				jstr(&b, "pg_desc", s, m);
				named = true;
				break;
			}
		}
		if (!named && !cfg_of) {
			cfg_of = xcalloc(pk_len(status) + 1, sizeof(long));
			pair_groups(cfg, status, entries, cfg_of);
		}
		if (!named && cfg_of[i] >= 0) {
			size_t m;
			const char *s = pk_str(pk_key(cfg, (size_t)cfg_of[i]), &m);
			jstr(&b, "pg_name", s, m);
			s = get_str(pk_item(cfg, (size_t)cfg_of[i]), "desc", &m);
			jstr(&b, "pg_desc", s, m);
		}
		jval(&b, "last_enqueued", pk_get(v, "last_enqueued_collective"));
		jval(&b, "last_started", pk_get(v, "last_started_collective"));
		jval(&b, "last_completed", pk_get(v, "last_completed_collective"));
		buf_putc(&b, '}');
		emit(&fe, 0, "fr_pg_status", "info", &b, false, 0);
	}
	free(cfg_of);
	/* Every entry not completed is kept, and the last FR_KEEP completed ones
	 * of each group: a dump of a long run holds thousands of routine
	 * completions, and the diagnosis compares ranks at their frontier. */
	size_t n = pk_len(entries);
	bool *keep = xcalloc(n ? n : 1, sizeof(bool));
	struct entry_batch *batch = xcalloc(n ? n : 1, sizeof(*batch));
	find_batches(entries, n, batch);
	size_t kept = 0;
	struct {
		int64_t pg;
		int count;
	} groups[64];
	int ngroups = 0;
	for (size_t k = n; k-- > 0;) {
		const struct pk_value *e = pk_item(entries, k);
		size_t sn;
		const char *state = batch[k].state ? batch[k].state : get_str(e, "state", &sn);
		if (!state || strcmp(state, "completed") != 0) {
			keep[k] = true;
			continue;
		}
		int64_t pg = -1;
		pk_int(pk_get(e, "pg_id"), &pg);
		int g = 0;
		while (g < ngroups && groups[g].pg != pg)
			g++;
		if (g == ngroups && ngroups < (int)ARRAY_LEN(groups)) {
			groups[g].pg = pg;
			groups[g].count = 0;
			ngroups++;
		}
		keep[k] = g >= ngroups || groups[g].count++ < FR_KEEP;
	}
	for (size_t k = 0; k < n; k++)
		if (keep[k]) {
			emit_entry(&fe, pk_item(entries, k), k, &batch[k], &b, &tmp);
			kept++;
		}
	free(keep);
	free(batch);
	buf_clear(&b);
	buf_printf(&b, "{\"entries\":%zu,\"entries_kept\":%zu", n, kept);
	count_transfers(entries, n, &b);
	buf_putc(&b, '}');
	emit(&fe, 0, "fr_kept", "info", &b, false, 0);
	buf_free(&b);
	buf_free(&tmp);
	pk_doc_free(doc);
	return 0;
}
