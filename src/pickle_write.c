/* pickle_write.c: see pickle_write.h. Opcodes as in CPython's pickle.py. */
#include "pickle_write.h"

#include <stdlib.h>
#include <string.h>

enum {
	W_MARK = '(', W_STOP = '.', W_BININT = 'J', W_BININT1 = 'K', W_BININT2 = 'M', W_NONE = 'N',
	W_BINUNICODE = 'X', W_APPENDS = 'e', W_EMPTY_DICT = '}', W_EMPTY_LIST = ']', W_BINGET = 'h',
	W_LONG_BINGET = 'j', W_BINPUT = 'q', W_LONG_BINPUT = 'r', W_SETITEMS = 'u', W_TUPLE = 't',
	W_BINFLOAT = 'G', W_BINBYTES = 'B', W_PROTO = 0x80, W_NEWTRUE = 0x88, W_NEWFALSE = 0x89,
	W_LONG1 = 0x8a,
};

#define BATCH 1000           /* items per APPENDS / pairs per SETITEMS, as CPython */
#define MEMO_MAX_LEN 256     /* longer strings are not memoized */

/* ---- the string memo: open addressing, keys copied into one arena ---- */

struct memo_slot {
	uint64_t hash;
	size_t off, len; /* in arena */
	uint32_t id;
	bool used;
};

struct pkw_memo {
	struct memo_slot *slots;
	size_t cap, n;
	struct buf arena;
};

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static void memo_grow(struct pkw_memo *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	struct memo_slot *s = xcalloc(cap, sizeof(*s));
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i].used)
			continue;
		size_t j = m->slots[i].hash & (cap - 1);
		while (s[j].used)
			j = (j + 1) & (cap - 1);
		s[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = s;
	m->cap = cap;
}

/* The slot for s: found (used) or where it would go (not used). */
static struct memo_slot *memo_find(struct pkw_memo *m, const char *s, size_t n, uint64_t h)
{
	size_t j = h & (m->cap - 1);
	for (;;) {
		struct memo_slot *sl = &m->slots[j];
		if (!sl->used)
			return sl;
		if (sl->hash == h && sl->len == n && memcmp(m->arena.data + sl->off, s, n) == 0)
			return sl;
		j = (j + 1) & (m->cap - 1);
	}
}

static void memo_free(struct pkw_memo *m)
{
	if (!m)
		return;
	free(m->slots);
	buf_free(&m->arena);
	free(m);
}

/* ---- low-level output ---- */

static void put_u32le(struct buf *b, uint32_t v)
{
	unsigned char t[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			      (unsigned char)(v >> 24)};
	buf_append(b, t, 4);
}

static void op(struct pk_writer *w, int code)
{
	buf_putc(w->out, (char)code);
}

static void check_open(struct pk_writer *w)
{
	if (w->done || !w->out)
		die("pickle writer: value written outside a pickle");
}

/* Called before each value: counts it in its container and, at the start
 * of a batch, opens the batch's MARK. */
static void item(struct pk_writer *w)
{
	check_open(w);
	if (w->depth == 0)
		return;
	struct pkw_frame *top = &w->stack[w->depth - 1];
	if (top->kind != 't') {
		uint32_t per = top->kind == 'd' ? 2 * BATCH : BATCH;
		if (top->batch == per) {
			op(w, top->kind == 'd' ? W_SETITEMS : W_APPENDS);
			top->batch = 0;
		}
		if (top->batch == 0)
			op(w, W_MARK);
		top->batch++;
	}
	top->items++;
}

static void push(struct pk_writer *w, char kind)
{
	if (w->depth >= PKW_MAX_DEPTH)
		die("pickle writer: containers nested deeper than %d", PKW_MAX_DEPTH);
	w->stack[w->depth].kind = kind;
	w->stack[w->depth].batch = 0;
	w->stack[w->depth].items = 0;
	w->depth++;
}

static void pop(struct pk_writer *w, char kind)
{
	if (w->depth == 0 || w->stack[w->depth - 1].kind != kind)
		die("pickle writer: unbalanced container end");
	w->depth--;
}

/* ---- public ---- */

void pkw_begin(struct pk_writer *w, struct buf *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->memo = xcalloc(1, sizeof(*w->memo));
	op(w, W_PROTO);
	buf_putc(out, 2);
}

void pkw_end(struct pk_writer *w)
{
	check_open(w);
	if (w->depth != 0)
		die("pickle writer: %d container(s) left open", w->depth);
	op(w, W_STOP);
	memo_free(w->memo);
	w->memo = NULL;
	w->done = true;
}

void pkw_none(struct pk_writer *w)
{
	item(w);
	op(w, W_NONE);
}

void pkw_bool(struct pk_writer *w, bool v)
{
	item(w);
	op(w, v ? W_NEWTRUE : W_NEWFALSE);
}

void pkw_int(struct pk_writer *w, int64_t v)
{
	item(w);
	if (v >= 0 && v < 256) {
		op(w, W_BININT1);
		buf_putc(w->out, (char)v);
	} else if (v >= 0 && v < 65536) {
		op(w, W_BININT2);
		buf_putc(w->out, (char)(v & 0xff));
		buf_putc(w->out, (char)(v >> 8));
	} else if (v >= INT32_MIN && v <= INT32_MAX) {
		op(w, W_BININT);
		put_u32le(w->out, (uint32_t)(int32_t)v);
	} else {
		/* LONG1: little-endian two's complement, as few bytes as keep the sign */
		unsigned char t[8];
		uint64_t u = (uint64_t)v;
		int n = 8;
		for (int i = 0; i < 8; i++)
			t[i] = (unsigned char)(u >> (8 * i));
		while (n > 1 && ((t[n - 1] == 0x00 && !(t[n - 2] & 0x80)) || (t[n - 1] == 0xff && (t[n - 2] & 0x80))))
			n--;
		op(w, W_LONG1);
		buf_putc(w->out, (char)n);
		buf_append(w->out, t, (size_t)n);
	}
}

void pkw_float(struct pk_writer *w, double v)
{
	item(w);
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	unsigned char t[8];
	for (int i = 0; i < 8; i++)
		t[i] = (unsigned char)(u >> (56 - 8 * i)); /* big-endian */
	op(w, W_BINFLOAT);
	buf_append(w->out, t, 8);
}

void pkw_str(struct pk_writer *w, const char *s, size_t n)
{
	item(w);
	if (n > UINT32_MAX)
		die("pickle writer: string of %zu bytes", n);
	struct pkw_memo *m = w->memo;
	struct memo_slot *sl = NULL;
	uint64_t h = 0;
	if (n <= MEMO_MAX_LEN) {
		if (m->n * 2 >= m->cap)
			memo_grow(m);
		h = fnv1a(s, n);
		sl = memo_find(m, s, n, h);
		if (sl->used) {
			if (sl->id < 256) {
				op(w, W_BINGET);
				buf_putc(w->out, (char)sl->id);
			} else {
				op(w, W_LONG_BINGET);
				put_u32le(w->out, sl->id);
			}
			return;
		}
	}
	op(w, W_BINUNICODE);
	put_u32le(w->out, (uint32_t)n);
	buf_append(w->out, s, n);
	if (sl) {
		sl->used = true;
		sl->hash = h;
		sl->off = m->arena.len;
		sl->len = n;
		sl->id = w->next_memo++;
		buf_append(&m->arena, s, n);
		m->n++;
		if (sl->id < 256) {
			op(w, W_BINPUT);
			buf_putc(w->out, (char)sl->id);
		} else {
			op(w, W_LONG_BINPUT);
			put_u32le(w->out, sl->id);
		}
	}
}

void pkw_cstr(struct pk_writer *w, const char *s)
{
	pkw_str(w, s, strlen(s));
}

void pkw_bytes(struct pk_writer *w, const void *p, size_t n)
{
	item(w);
	if (n > UINT32_MAX)
		die("pickle writer: bytes of %zu bytes", n);
	op(w, W_BINBYTES);
	put_u32le(w->out, (uint32_t)n);
	buf_append(w->out, p, n);
}

void pkw_list_begin(struct pk_writer *w)
{
	item(w);
	op(w, W_EMPTY_LIST);
	push(w, 'l');
}

void pkw_list_end(struct pk_writer *w)
{
	if (w->depth && w->stack[w->depth - 1].batch)
		op(w, W_APPENDS);
	pop(w, 'l');
}

void pkw_tuple_begin(struct pk_writer *w)
{
	item(w);
	op(w, W_MARK);
	push(w, 't');
}

void pkw_tuple_end(struct pk_writer *w)
{
	pop(w, 't');
	op(w, W_TUPLE);
}

void pkw_dict_begin(struct pk_writer *w)
{
	item(w);
	op(w, W_EMPTY_DICT);
	push(w, 'd');
}

void pkw_dict_end(struct pk_writer *w)
{
	if (w->depth && w->stack[w->depth - 1].kind == 'd' && (w->stack[w->depth - 1].items & 1))
		die("pickle writer: dict ends after a key without its value");
	if (w->depth && w->stack[w->depth - 1].batch)
		op(w, W_SETITEMS);
	pop(w, 'd');
}

void pkw_value(struct pk_writer *w, const struct pk_value *v)
{
	int64_t i;
	double d;
	size_t n;
	const char *s;
	switch (pk_type(v)) {
	case PK_NONE:
		pkw_none(w);
		break;
	case PK_BOOL:
		pk_int(v, &i);
		pkw_bool(w, i != 0);
		break;
	case PK_INT:
		pk_int(v, &i);
		pkw_int(w, i);
		break;
	case PK_FLOAT:
		pk_float(v, &d);
		pkw_float(w, d);
		break;
	case PK_STR:
		s = pk_str(v, &n);
		pkw_str(w, s, n);
		break;
	case PK_BYTES:
		s = pk_str(v, &n);
		pkw_bytes(w, s, n);
		break;
	case PK_LIST:
		pkw_list_begin(w);
		for (size_t k = 0; k < pk_len(v); k++)
			pkw_value(w, pk_item(v, k));
		pkw_list_end(w);
		break;
	case PK_TUPLE:
		pkw_tuple_begin(w);
		for (size_t k = 0; k < pk_len(v); k++)
			pkw_value(w, pk_item(v, k));
		pkw_tuple_end(w);
		break;
	case PK_DICT:
		pkw_dict_begin(w);
		for (size_t k = 0; k < pk_len(v); k++) {
			pkw_value(w, pk_key(v, k));
			pkw_value(w, pk_item(v, k));
		}
		pkw_dict_end(w);
		break;
	}
}
