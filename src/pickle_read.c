/* pickle_read.c: a reader for the safe subset of Python pickles. See
 * pickle_read.h for what is read, what is refused and how values are
 * represented.
 *
 * The machine follows CPython's _pickle.c: one value stack, a separate stack
 * of MARK positions (the top one is the "fence": ops that take items from the
 * top may not reach below it) and a memo indexed by memo id. Every value, and
 * every container's item array, lives in the document's arena, freed with the
 * document.
 */
#include "pickle_read.h"

#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RD_BUF_SIZE ((size_t)64 * 1024)   /* input buffer */
#define SMALL_BODY ((size_t)64 * 1024)    /* bodies up to this are allocated at once */
#define BCHUNK_SIZE ((size_t)64 * 1024)   /* string arena chunk */
#define BIG_STRING ((size_t)16 * 1024)    /* strings above this get their own block */
#define NUM_LINE_MAX ((size_t)128)        /* INT, LONG, FLOAT, PUT, GET text arguments */
#define MEMO_SLACK ((size_t)65536)        /* memo ids may run this far ahead of the count */

/* ---- values and the arena ---------------------------------------------- */

enum {
	PKF_SET = 1,    /* PK_LIST that was a set or frozenset */
	PKF_FROZEN = 2, /* immutable: frozenset (tuples are immutable by type) */
	PKF_STORED = 4, /* stored inside some container: may not change any more */
};

struct pk_value {
	uint8_t type;    /* enum pk_type */
	uint8_t flags;   /* PKF_* */
	uint32_t height; /* containers: 1 + height of the deepest item; else 0 */
	/* containers: bytes the value takes once every memo reference in it is
	 * copied out (what a reader walking the tree sees), saturating */
	uint64_t expanded;
	size_t len;      /* items (list, tuple), pairs (dict), bytes (str, bytes) */
	size_t cap;      /* pointer slots allocated in u.items */
	union {
		int64_t i;                /* PK_INT, PK_BOOL */
		double f;                 /* PK_FLOAT */
		char *s;                  /* PK_STR, PK_BYTES (NUL-terminated) */
		struct pk_value **items;  /* PK_LIST, PK_TUPLE; PK_DICT: key, value, key, ... */
	} u;
};

struct vchunk {
	struct vchunk *next;
	size_t used, cap;
	struct pk_value v[];
};

struct bchunk {
	struct bchunk *next;
	size_t used, cap;
	char data[];
};

struct pk_doc {
	struct vchunk *vals;
	struct bchunk *bytes;
	const struct pk_value *root;
	size_t nbytes;
};

static bool is_container(const struct pk_value *v)
{
	return v->type == PK_LIST || v->type == PK_TUPLE || v->type == PK_DICT;
}

static struct pk_value *arena_value(struct pk_doc *d, enum pk_type t)
{
	struct vchunk *c = d->vals;
	if (!c || c->used == c->cap) {
		size_t cap = c ? c->cap * 2 : 256;
		if (cap > 4096)
			cap = 4096;
		c = xmalloc(sizeof(*c) + cap * sizeof(c->v[0]));
		c->next = d->vals;
		c->used = 0;
		c->cap = cap;
		d->vals = c;
	}
	struct pk_value *v = &c->v[c->used++];
	memset(v, 0, sizeof(*v));
	v->type = (uint8_t)t;
	if (is_container(v)) {
		v->height = 1;
		v->expanded = 16;
	}
	return v;
}

/* n bytes of string storage; the caller writes n bytes (n includes the NUL). */
static char *arena_bytes(struct pk_doc *d, size_t n)
{
	struct bchunk *c = d->bytes;
	if (n > BIG_STRING) {
		struct bchunk *b = xmalloc(sizeof(*b) + n);
		b->used = b->cap = n;
		/* behind the current chunk, so that it keeps filling */
		if (c) {
			b->next = c->next;
			c->next = b;
		} else {
			b->next = NULL;
			d->bytes = b;
		}
		return b->data;
	}
	if (!c || c->cap - c->used < n) {
		c = xmalloc(sizeof(*c) + BCHUNK_SIZE);
		c->used = 0;
		c->cap = BCHUNK_SIZE;
		c->next = d->bytes;
		d->bytes = c;
	}
	char *p = c->data + c->used;
	c->used += n;
	return p;
}

/* Room for n item pointers, aligned, in the string arena (freed with the
 * document: no per-container malloc). */
static struct pk_value **arena_items(struct pk_doc *d, size_t n)
{
	size_t align = _Alignof(struct pk_value *);
	struct bchunk *c = d->bytes;
	if (c && c->used < c->cap)
		c->used += (align - c->used % align) % align;
	if (c && c->used > c->cap)
		c->used = c->cap;
	return (struct pk_value **)(void *)arena_bytes(d, n * sizeof(struct pk_value *));
}

/* Links a block made by read_body() into the document. */
static void arena_adopt(struct pk_doc *d, struct bchunk *b)
{
	struct bchunk *c = d->bytes;
	if (c) {
		b->next = c->next;
		c->next = b;
	} else {
		b->next = NULL;
		d->bytes = b;
	}
}

void pk_doc_free(struct pk_doc *doc)
{
	if (!doc)
		return;
	for (struct vchunk *c = doc->vals, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	for (struct bchunk *b = doc->bytes, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(doc);
}

/* ---- opcodes ----------------------------------------------------------- */

enum {
	OP_MARK = '(', OP_STOP = '.', OP_POP = '0', OP_POP_MARK = '1', OP_DUP = '2',
	OP_FLOAT = 'F', OP_INT = 'I', OP_BININT = 'J', OP_BININT1 = 'K', OP_LONG = 'L',
	OP_BININT2 = 'M', OP_NONE = 'N', OP_PERSID = 'P', OP_BINPERSID = 'Q',
	OP_REDUCE = 'R', OP_STRING = 'S', OP_BINSTRING = 'T', OP_SHORT_BINSTRING = 'U',
	OP_UNICODE = 'V', OP_BINUNICODE = 'X', OP_APPEND = 'a', OP_BUILD = 'b',
	OP_GLOBAL = 'c', OP_DICT = 'd', OP_EMPTY_DICT = '}', OP_APPENDS = 'e',
	OP_GET = 'g', OP_BINGET = 'h', OP_INST = 'i', OP_LONG_BINGET = 'j',
	OP_LIST = 'l', OP_EMPTY_LIST = ']', OP_OBJ = 'o', OP_PUT = 'p',
	OP_BINPUT = 'q', OP_LONG_BINPUT = 'r', OP_SETITEM = 's', OP_TUPLE = 't',
	OP_EMPTY_TUPLE = ')', OP_SETITEMS = 'u', OP_BINFLOAT = 'G',
	OP_PROTO = 0x80, OP_NEWOBJ = 0x81, OP_EXT1 = 0x82, OP_EXT2 = 0x83,
	OP_EXT4 = 0x84, OP_TUPLE1 = 0x85, OP_TUPLE2 = 0x86, OP_TUPLE3 = 0x87,
	OP_NEWTRUE = 0x88, OP_NEWFALSE = 0x89, OP_LONG1 = 0x8a, OP_LONG4 = 0x8b,
	OP_BINBYTES = 'B', OP_SHORT_BINBYTES = 'C',
	OP_SHORT_BINUNICODE = 0x8c, OP_BINUNICODE8 = 0x8d, OP_BINBYTES8 = 0x8e,
	OP_EMPTY_SET = 0x8f, OP_ADDITEMS = 0x90, OP_FROZENSET = 0x91,
	OP_NEWOBJ_EX = 0x92, OP_STACK_GLOBAL = 0x93, OP_MEMOIZE = 0x94,
	OP_FRAME = 0x95, OP_BYTEARRAY8 = 0x96, OP_NEXT_BUFFER = 0x97,
	OP_READONLY_BUFFER = 0x98,
};

/* pickletools names. */
static const char *const op_names[256] = {
	[OP_MARK] = "MARK", [OP_STOP] = "STOP", [OP_POP] = "POP",
	[OP_POP_MARK] = "POP_MARK", [OP_DUP] = "DUP", [OP_FLOAT] = "FLOAT",
	[OP_INT] = "INT", [OP_BININT] = "BININT", [OP_BININT1] = "BININT1",
	[OP_LONG] = "LONG", [OP_BININT2] = "BININT2", [OP_NONE] = "NONE",
	[OP_PERSID] = "PERSID", [OP_BINPERSID] = "BINPERSID", [OP_REDUCE] = "REDUCE",
	[OP_STRING] = "STRING", [OP_BINSTRING] = "BINSTRING",
	[OP_SHORT_BINSTRING] = "SHORT_BINSTRING", [OP_UNICODE] = "UNICODE",
	[OP_BINUNICODE] = "BINUNICODE", [OP_APPEND] = "APPEND", [OP_BUILD] = "BUILD",
	[OP_GLOBAL] = "GLOBAL", [OP_DICT] = "DICT", [OP_EMPTY_DICT] = "EMPTY_DICT",
	[OP_APPENDS] = "APPENDS", [OP_GET] = "GET", [OP_BINGET] = "BINGET",
	[OP_INST] = "INST", [OP_LONG_BINGET] = "LONG_BINGET", [OP_LIST] = "LIST",
	[OP_EMPTY_LIST] = "EMPTY_LIST", [OP_OBJ] = "OBJ", [OP_PUT] = "PUT",
	[OP_BINPUT] = "BINPUT", [OP_LONG_BINPUT] = "LONG_BINPUT",
	[OP_SETITEM] = "SETITEM", [OP_TUPLE] = "TUPLE", [OP_EMPTY_TUPLE] = "EMPTY_TUPLE",
	[OP_SETITEMS] = "SETITEMS", [OP_BINFLOAT] = "BINFLOAT",
	[OP_PROTO] = "PROTO", [OP_NEWOBJ] = "NEWOBJ", [OP_EXT1] = "EXT1",
	[OP_EXT2] = "EXT2", [OP_EXT4] = "EXT4", [OP_TUPLE1] = "TUPLE1",
	[OP_TUPLE2] = "TUPLE2", [OP_TUPLE3] = "TUPLE3", [OP_NEWTRUE] = "NEWTRUE",
	[OP_NEWFALSE] = "NEWFALSE", [OP_LONG1] = "LONG1", [OP_LONG4] = "LONG4",
	[OP_BINBYTES] = "BINBYTES", [OP_SHORT_BINBYTES] = "SHORT_BINBYTES",
	[OP_SHORT_BINUNICODE] = "SHORT_BINUNICODE", [OP_BINUNICODE8] = "BINUNICODE8",
	[OP_BINBYTES8] = "BINBYTES8", [OP_EMPTY_SET] = "EMPTY_SET",
	[OP_ADDITEMS] = "ADDITEMS", [OP_FROZENSET] = "FROZENSET",
	[OP_NEWOBJ_EX] = "NEWOBJ_EX", [OP_STACK_GLOBAL] = "STACK_GLOBAL",
	[OP_MEMOIZE] = "MEMOIZE", [OP_FRAME] = "FRAME", [OP_BYTEARRAY8] = "BYTEARRAY8",
	[OP_NEXT_BUFFER] = "NEXT_BUFFER", [OP_READONLY_BUFFER] = "READONLY_BUFFER",
};

/* ---- the parser -------------------------------------------------------- */

struct parser {
	struct pk_doc *doc;
	struct pk_limits lim;
	struct errbuf *err;

	/* input */
	pk_read_fn read;
	void *ctx;
	unsigned char *buf;
	size_t bstart, bend;   /* unread bytes are buf[bstart..bend) */
	unsigned long long pos; /* input offset of buf[bstart] */
	bool eof;
	bool have_total;       /* the input size is known (pickle_read_mem) */
	unsigned long long total;

	/* opcode being run */
	int op;
	unsigned long long op_pos;

	/* machine */
	struct pk_value **stack;
	size_t sp, scap;
	size_t *marks;
	size_t nmarks, mcap;
	struct pk_value **memo; /* memo[id], NULL where never stored */
	size_t memo_cap, memo_n;
	size_t pushes;

	struct buf line; /* text arguments */
	struct buf tmp;  /* decoded text strings */
};

static const char *op_name(int op)
{
	const char *n = op_names[op & 0xFF];
	return n ? n : "?";
}

/* "NAME (0xNN) at byte N: message" */
NF_PRINTF(2, 3)
static int fail(struct parser *p, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return errbuf_set(p->err, "%s (0x%02x) at byte %llu: %s", op_name(p->op), (unsigned)p->op,
			  p->op_pos, msg);
}

static int fail_eof(struct parser *p)
{
	return errbuf_set(p->err, "input ends inside %s (0x%02x) at byte %llu: truncated pickle",
			  op_name(p->op), (unsigned)p->op, p->op_pos);
}

static int fail_underflow(struct parser *p)
{
	return fail(p, "stack underflow (too few items above the last MARK)");
}

/* Makes at least one byte available: 1, 0 at the end of input, -1 on error. */
static int fill(struct parser *p)
{
	if (p->bstart < p->bend)
		return 1;
	if (p->eof)
		return 0;
	p->bstart = p->bend = 0;
	if (p->pos >= p->lim.max_input_bytes)
		return errbuf_set(p->err, "input larger than the limit of %zu bytes (no STOP before byte %llu)",
				  p->lim.max_input_bytes, p->pos);
	size_t want = RD_BUF_SIZE;
	if (p->lim.max_input_bytes - p->pos < want)
		want = (size_t)(p->lim.max_input_bytes - p->pos);
	long r = p->read(p->ctx, p->buf, want);
	if (r < 0)
		return errbuf_set(p->err, "read error at byte %llu", p->pos);
	if (r == 0) {
		p->eof = true;
		return 0;
	}
	if ((unsigned long)r > want)
		return errbuf_set(p->err, "read error at byte %llu (reader returned too many bytes)", p->pos);
	p->bend = (size_t)r;
	return 1;
}

/* Reads n bytes into dst; the end of input is a truncated opcode. */
static int rd_exact(struct parser *p, void *dst, size_t n)
{
	unsigned char *d = dst;
	if (p->bend - p->bstart >= n) { /* the usual case: all in the buffer */
		memcpy(d, p->buf + p->bstart, n);
		p->bstart += n;
		p->pos += n;
		return 0;
	}
	while (n) {
		int r = fill(p);
		if (r < 0)
			return -1;
		if (r == 0)
			return fail_eof(p);
		size_t k = p->bend - p->bstart;
		if (k > n)
			k = n;
		memcpy(d, p->buf + p->bstart, k);
		p->bstart += k;
		p->pos += k;
		d += k;
		n -= k;
	}
	return 0;
}

static int rd_uint(struct parser *p, size_t n, uint64_t *out)
{
	unsigned char b[8];
	const unsigned char *src = b;
	if (p->bend - p->bstart >= n) { /* read in place */
		src = p->buf + p->bstart;
		p->bstart += n;
		p->pos += n;
	} else if (rd_exact(p, b, n) < 0) {
		return -1;
	}
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = (v << 8) | src[i];
	*out = v;
	return 0;
}

static int64_t to_signed(uint64_t u)
{
	if (u <= (uint64_t)INT64_MAX)
		return (int64_t)u;
	return -(int64_t)(~u) - 1;
}

/* One text line into p->line (without the '\n'), at most max bytes. */
static int rd_line(struct parser *p, size_t max)
{
	buf_clear(&p->line);
	for (;;) {
		int r = fill(p);
		if (r < 0)
			return -1;
		if (r == 0)
			return fail_eof(p);
		const unsigned char *s = p->buf + p->bstart;
		size_t k = p->bend - p->bstart;
		const unsigned char *nl = memchr(s, '\n', k);
		size_t take = nl ? (size_t)(nl - s) : k;
		if (take > max - p->line.len)
			return fail(p, "text argument longer than %zu bytes", max);
		buf_append(&p->line, s, take);
		if (nl)
			take++;
		p->bstart += take;
		p->pos += take;
		if (nl)
			return 0;
	}
}

/* ---- building values --------------------------------------------------- */

static size_t fence(const struct parser *p)
{
	return p->nmarks ? p->marks[p->nmarks - 1] : 0;
}

static int push(struct parser *p, struct pk_value *v)
{
	if (p->pushes >= p->lim.max_values)
		return fail(p, "more than the limit of %zu values", p->lim.max_values);
	p->pushes++;
	if (p->sp == p->scap)
		xgrow(&p->stack, &p->scap, p->sp + 1, sizeof(p->stack[0]));
	p->stack[p->sp++] = v;
	return 0;
}

static int push_new(struct parser *p, enum pk_type t, struct pk_value **out)
{
	if (p->pushes >= p->lim.max_values)
		return fail(p, "more than the limit of %zu values", p->lim.max_values);
	struct pk_value *v = arena_value(p->doc, t);
	if (out)
		*out = v;
	return push(p, v);
}

static int push_int(struct parser *p, int64_t i)
{
	struct pk_value *v = NULL;
	if (push_new(p, PK_INT, &v) < 0)
		return -1;
	v->u.i = i;
	return 0;
}

static int push_bool(struct parser *p, bool b)
{
	struct pk_value *v = NULL;
	if (push_new(p, PK_BOOL, &v) < 0)
		return -1;
	v->u.i = b;
	return 0;
}

static int push_float(struct parser *p, double f)
{
	struct pk_value *v = NULL;
	if (push_new(p, PK_FLOAT, &v) < 0)
		return -1;
	v->u.f = f;
	return 0;
}

/* Pushes a str/bytes value copied from s. */
static int push_string(struct parser *p, enum pk_type t, const char *s, size_t n)
{
	if (n > p->lim.max_string_bytes)
		return fail(p, "string of %zu bytes exceeds the string limit of %zu bytes", n,
			    p->lim.max_string_bytes);
	struct pk_value *v = NULL;
	if (push_new(p, t, &v) < 0)
		return -1;
	v->u.s = arena_bytes(p->doc, n + 1);
	if (n)
		memcpy(v->u.s, s, n);
	v->u.s[n] = '\0';
	v->len = n;
	return 0;
}

/* A str/bytes body of n declared bytes, read from the input. */
static int read_body(struct parser *p, enum pk_type t, uint64_t n)
{
	if (n > p->lim.max_string_bytes)
		return fail(p, "declared length %llu exceeds the string limit of %zu bytes",
			    (unsigned long long)n, p->lim.max_string_bytes);
	if (p->have_total && n > p->total - p->pos)
		return fail(p, "declared length %llu but only %llu bytes are left: truncated pickle",
			    (unsigned long long)n, p->total - p->pos);
	if (n > p->lim.max_input_bytes - p->pos)
		return fail(p, "declared length %llu goes beyond the input limit of %zu bytes",
			    (unsigned long long)n, p->lim.max_input_bytes);
	if (p->pushes >= p->lim.max_values)
		return fail(p, "more than the limit of %zu values", p->lim.max_values);
	size_t len = (size_t)n;
	char *s;
	if (len <= SMALL_BODY || p->have_total) {
		/* small, or known to be present in the input */
		s = arena_bytes(p->doc, len + 1);
		if (rd_exact(p, s, len) < 0)
			return -1;
	} else {
		/* streamed: grow as the bytes arrive, so a short body costs little */
		size_t cap = SMALL_BODY, got = 0;
		struct bchunk *b = xmalloc(sizeof(*b) + cap + 1);
		while (got < len) {
			if (got == cap) {
				cap = cap > len / 2 ? len : cap * 2;
				b = xrealloc(b, sizeof(*b) + cap + 1);
			}
			size_t k = cap - got;
			if (rd_exact(p, b->data + got, k) < 0) {
				free(b);
				return -1;
			}
			got += k;
		}
		b->used = b->cap = cap + 1;
		arena_adopt(p->doc, b);
		s = b->data;
	}
	s[len] = '\0';
	struct pk_value *v = NULL;
	if (push_new(p, t, &v) < 0)
		return -1;
	v->u.s = s;
	v->len = len;
	return 0;
}

/* c may take new items (APPEND, SETITEMS, ADDITEMS): right type, and not
 * stored anywhere yet (changing it then could make it recursive). */
static int check_target(struct parser *p, struct pk_value *c, enum pk_type t, bool set)
{
	const char *want = t == PK_DICT ? "dict" : set ? "set" : "list";
	if (c->type != t || (set && !(c->flags & PKF_SET)) || (!set && (c->flags & PKF_SET))) {
		const char *got = (c->flags & PKF_SET) ? "set" : pk_type_name(pk_type(c));
		return fail(p, "target is of type %s, not %s", got, want);
	}
	if (c->flags & PKF_FROZEN)
		return fail(p, "target is of type frozenset, not %s", want);
	if (c->flags & PKF_STORED)
		return fail(p, "the %s is already stored inside another container: changing it "
			       "(a recursive or self-referencing structure) is not supported", want);
	return 0;
}

/* Bytes a value stands for when walked: a slot, its text, its items. */
static uint64_t expanded_size(const struct pk_value *v)
{
	if (is_container(v))
		return v->expanded;
	return 16 + (v->type == PK_STR || v->type == PK_BYTES ? (uint64_t)v->len : 0);
}

/* Accounts for x becoming an item of c. */
static int adopt(struct parser *p, struct pk_value *c, struct pk_value *x)
{
	if (x == c)
		return fail(p, "a container stored inside itself (recursive structure) is not supported");
	/* a value stored once in the memo and referenced many times (a list of
	 * the same list, nested) is small in the pickle and huge once read:
	 * counted as it expands. A stored container never changes again, so
	 * its size is final when it is adopted. */
	uint64_t add = expanded_size(x);
	c->expanded = c->expanded > UINT64_MAX - add ? UINT64_MAX : c->expanded + add;
	if (c->expanded > p->lim.max_expanded_bytes)
		return fail(p, "values shared through the memo expand beyond the limit of %zu bytes "
			       "(a pickle bomb?)", p->lim.max_expanded_bytes);
	if (is_container(x)) {
		x->flags |= PKF_STORED;
		if ((size_t)x->height + 1 > p->lim.max_depth)
			return fail(p, "values nested deeper than the limit of %zu containers", p->lim.max_depth);
		if (x->height + 1 > c->height)
			c->height = x->height + 1;
	}
	return 0;
}

static int check_key(struct parser *p, const struct pk_value *k)
{
	if (k->type == PK_LIST || k->type == PK_DICT) {
		if (k->type == PK_LIST && (k->flags & PKF_FROZEN))
			return 0;
		return fail(p, "unhashable dict key of type %s",
			    (k->flags & PKF_SET) ? "set" : pk_type_name(pk_type(k)));
	}
	return 0;
}

/* Makes room for need item slots in container c, used of them taken. */
static void items_reserve(struct parser *p, struct pk_value *c, size_t need, size_t used)
{
	if (need <= c->cap)
		return;
	size_t cap = c->cap && need < 2 * c->cap ? 2 * c->cap : need;
	struct pk_value **items = arena_items(p->doc, cap);
	if (used)
		memcpy(items, c->u.items, used * sizeof(items[0]));
	c->u.items = items;
	c->cap = cap;
}

/* Appends items[0..n) to list/set c. */
static int add_items(struct parser *p, struct pk_value *c, struct pk_value **items, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (adopt(p, c, items[i]) < 0)
			return -1;
	items_reserve(p, c, c->len + n, c->len);
	memcpy(c->u.items + c->len, items, n * sizeof(items[0]));
	c->len += n;
	return 0;
}

/* Adds pairs items[0..2n) to dict c. */
static int add_pairs(struct parser *p, struct pk_value *c, struct pk_value **items, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < 2 * n; i++) {
		if (i % 2 == 0 && check_key(p, items[i]) < 0)
			return -1;
		if (adopt(p, c, items[i]) < 0)
			return -1;
	}
	items_reserve(p, c, 2 * (c->len + n), 2 * c->len);
	memcpy(c->u.items + 2 * c->len, items, 2 * n * sizeof(items[0]));
	c->len += n;
	return 0;
}

/* Pops the top MARK into *at. */
static int pop_mark(struct parser *p, size_t *at)
{
	if (!p->nmarks)
		return fail(p, "no MARK on the stack");
	*at = p->marks[--p->nmarks];
	return 0;
}

/* Replaces stack[from..sp) with one new container made of them. */
static int collapse(struct parser *p, size_t from, enum pk_type t, uint8_t flags)
{
	size_t n = p->sp - from;
	if (t == PK_DICT && n % 2)
		return fail(p, "odd number of items (%zu) for a dict", n);
	struct pk_value *c = arena_value(p->doc, t);
	c->flags = flags;
	int r;
	if (t == PK_DICT)
		r = add_pairs(p, c, p->stack + from, n / 2);
	else
		r = add_items(p, c, p->stack + from, n);
	if (r < 0)
		return -1;
	p->sp = from;
	return push(p, c);
}

static int memo_put(struct parser *p, uint64_t id)
{
	if (p->sp <= fence(p))
		return fail_underflow(p);
	if (id >= p->memo_cap) {
		if (id > (uint64_t)p->memo_n + MEMO_SLACK)
			return fail(p, "memo index %llu is far beyond the %zu entries stored so far",
				    (unsigned long long)id, p->memo_n);
		size_t old = p->memo_cap;
		xgrow(&p->memo, &p->memo_cap, (size_t)id + 1, sizeof(p->memo[0]));
		memset(p->memo + old, 0, (p->memo_cap - old) * sizeof(p->memo[0]));
	}
	if (!p->memo[id])
		p->memo_n++;
	p->memo[id] = p->stack[p->sp - 1];
	return 0;
}

static int memo_get(struct parser *p, uint64_t id)
{
	if (id >= p->memo_cap || !p->memo[id])
		return fail(p, "memo index %llu was never stored", (unsigned long long)id);
	return push(p, p->memo[id]);
}

/* ---- text arguments ---------------------------------------------------- */

static bool is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_space((unsigned char)(*s)[0])) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_space((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

static int digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* Python int(s, 0), within int64: 0 ok, -1 bad syntax, -2 out of range. */
static int parse_pyint(const char *s, size_t n, int64_t *out)
{
	trim(&s, &n);
	bool neg = false;
	if (n && (*s == '+' || *s == '-')) {
		neg = *s == '-';
		s++;
		n--;
	}
	unsigned base = 10;
	if (n >= 2 && s[0] == '0') {
		int c = s[1] | 0x20;
		base = c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 10;
		if (base != 10) {
			s += 2;
			n -= 2;
			if (n && *s == '_') { /* 0x_ff */
				s++;
				n--;
			}
		}
	}
	if (!n)
		return -1;
	uint64_t v = 0;
	bool overflow = false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '_' && i > 0 && i + 1 < n && s[i - 1] != '_')
			continue;
		unsigned d = (unsigned)digit_value((unsigned char)s[i]);
		if (d >= base)
			return -1;
		if (v > (UINT64_MAX - d) / base)
			overflow = true;
		else
			v = v * base + d;
	}
	if (overflow)
		return -2;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -2;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return -2;
		*out = (int64_t)v;
	}
	return 0;
}

/* Python float(s) for repr() output, independent of the C locale. */
static bool parse_pyfloat(const char *s, size_t n, double *out)
{
	char tmp[NUM_LINE_MAX + 1];
	trim(&s, &n);
	if (!n || n > NUM_LINE_MAX)
		return false;
	const struct lconv *lc = localeconv();
	char dp = lc && lc->decimal_point && lc->decimal_point[0] && !lc->decimal_point[1]
		? lc->decimal_point[0] : '.';
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '.')
			c = dp;
		else if (c == dp || !c)
			return false;
		tmp[i] = c;
	}
	tmp[n] = '\0';
	char *end;
	*out = strtod(tmp, &end);
	return end == tmp + n;
}

/* The first bytes of a text argument, fit for a one-line message. */
static const char *excerpt(const char *s, size_t n, char out[48])
{
	size_t k = 0;
	for (; k < n && k < 40; k++) {
		unsigned char c = (unsigned char)s[k];
		out[k] = c >= 0x20 && c < 0x7F ? (char)c : '?';
	}
	if (k < n) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = '\0';
	return out;
}

static int text_int(struct parser *p, const char *s, size_t n, int64_t *out)
{
	char ex[48];
	int r = parse_pyint(s, n, out);
	if (r == -2)
		return fail(p, "integer %s does not fit in 64 bits", excerpt(s, n, ex));
	if (r < 0)
		return fail(p, "not an integer: \"%s\"", excerpt(s, n, ex));
	return 0;
}

static int text_id(struct parser *p, uint64_t *id)
{
	int64_t v;
	if (rd_line(p, NUM_LINE_MAX) < 0 || text_int(p, p->line.data, p->line.len, &v) < 0)
		return -1;
	if (v < 0)
		return fail(p, "negative memo index %lld", (long long)v);
	*id = (uint64_t)v;
	return 0;
}

static void put_utf8(struct buf *b, uint32_t c)
{
	char u[4];
	size_t n;
	if (c < 0x80) {
		u[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		u[0] = (char)(0xC0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		u[0] = (char)(0xE0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		u[2] = (char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		u[3] = (char)(0x80 | (c & 0x3F));
		n = 4;
	}
	buf_append(b, u, n);
}

static bool hex_run(const char *s, size_t n, size_t digits, uint32_t *out)
{
	uint32_t v = 0;
	if (n < digits)
		return false;
	for (size_t i = 0; i < digits; i++) {
		int d = digit_value((unsigned char)s[i]);
		if (d >= 16)
			return false;
		v = (v << 4) | (uint32_t)d;
	}
	*out = v;
	return true;
}

/* UNICODE: raw-unicode-escape (latin-1 bytes, \uXXXX and \UXXXXXXXX
 * escapes after an odd run of backslashes) into UTF-8 in p->tmp. Surrogate
 * pairs are joined; a lone surrogate is kept as its 3-byte form, as Python's
 * surrogatepass would store it. */
static int decode_raw_unicode(struct parser *p, const char *s, size_t n)
{
	struct buf *o = &p->tmp;
	buf_clear(o);
	size_t i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c != '\\') {
			put_utf8(o, c);
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && s[j] == '\\')
			j++;
		size_t run = j - i;
		if (j == n || (s[j] != 'u' && s[j] != 'U') || run % 2 == 0) {
			buf_append(o, s + i, run);
			i = j;
			continue;
		}
		buf_append(o, s + i, run - 1);
		size_t digits = s[j] == 'u' ? 4 : 8;
		uint32_t cp;
		if (!hex_run(s + j + 1, n - j - 1, digits, &cp) || cp > 0x10FFFF)
			return fail(p, "bad \\%c escape in the string at offset %zu", s[j], j - 1);
		i = j + 1 + digits;
		if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
			uint32_t lo;
			if (hex_run(s + i + 2, n - i - 2, 4, &lo) && lo >= 0xDC00 && lo < 0xE000) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i += 6;
			}
		}
		put_utf8(o, cp);
	}
	return 0;
}

/* STRING: a quoted Python 2 repr; escapes as codecs.escape_decode. */
static int decode_string_repr(struct parser *p, const char *s, size_t n)
{
	struct buf *o = &p->tmp;
	buf_clear(o);
	if (n < 2 || s[0] != s[n - 1] || (s[0] != '\'' && s[0] != '"'))
		return fail(p, "the STRING argument must be quoted");
	s++;
	n -= 2;
	for (size_t i = 0; i < n;) {
		char c = s[i++];
		if (c != '\\') {
			buf_putc(o, c);
			continue;
		}
		if (i == n)
			return fail(p, "trailing \\ in the string");
		c = s[i++];
		switch (c) {
		case '\n': break;
		case '\\': buf_putc(o, '\\'); break;
		case '\'': buf_putc(o, '\''); break;
		case '"': buf_putc(o, '"'); break;
		case 'a': buf_putc(o, '\a'); break;
		case 'b': buf_putc(o, '\b'); break;
		case 'f': buf_putc(o, '\f'); break;
		case 'n': buf_putc(o, '\n'); break;
		case 'r': buf_putc(o, '\r'); break;
		case 't': buf_putc(o, '\t'); break;
		case 'v': buf_putc(o, '\v'); break;
		case 'x': {
			uint32_t v;
			if (!hex_run(s + i, n - i, 2, &v))
				return fail(p, "bad \\x escape in the string at offset %zu", i - 2);
			buf_putc(o, (char)v);
			i += 2;
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				unsigned v = (unsigned)(c - '0');
				for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++)
					v = v * 8 + (unsigned)(s[i++] - '0');
				buf_putc(o, (char)(v & 0xFF));
			} else {
				buf_putc(o, '\\');
				buf_putc(o, c);
			}
		}
	}
	return 0;
}

/* ---- the opcode loop --------------------------------------------------- */

static int refuse(struct parser *p, const char *why)
{
	return errbuf_set(p->err, "refused opcode %s (0x%02x) at byte %llu: %s", op_name(p->op),
			  (unsigned)p->op, p->op_pos, why);
}

static int run_op(struct parser *p, bool *stop)
{
	uint64_t u = 0;
	int64_t i64;
	size_t m = 0, f = fence(p);
	struct pk_value *v = NULL;

	switch (p->op) {
	case OP_PROTO:
		if (rd_uint(p, 1, &u) < 0)
			return -1;
		if (u > 5)
			return fail(p, "unsupported pickle protocol %llu (this reader knows 0 to 5)",
				    (unsigned long long)u);
		return 0;
	case OP_FRAME: /* a hint for buffering: nothing to do */
		return rd_uint(p, 8, &u);
	case OP_STOP:
		if (p->nmarks)
			return fail(p, "%zu MARK(s) still open", p->nmarks);
		if (p->sp != 1)
			return fail(p, "%zu items left on the stack (expected 1)", p->sp);
		*stop = true;
		return 0;

	/* stack and marks */
	case OP_MARK:
		if (p->nmarks >= p->lim.max_depth)
			return fail(p, "MARKs nested deeper than the limit of %zu", p->lim.max_depth);
		xgrow(&p->marks, &p->mcap, p->nmarks + 1, sizeof(p->marks[0]));
		p->marks[p->nmarks++] = p->sp;
		return 0;
	case OP_POP:
		/* as _pickle.c: an empty frame above a MARK pops the MARK */
		if (p->nmarks && p->marks[p->nmarks - 1] == p->sp)
			p->nmarks--;
		else if (p->sp <= f)
			return fail_underflow(p);
		else
			p->sp--;
		return 0;
	case OP_POP_MARK:
		if (pop_mark(p, &m) < 0)
			return -1;
		p->sp = m;
		return 0;
	case OP_DUP:
		if (p->sp <= f)
			return fail_underflow(p);
		return push(p, p->stack[p->sp - 1]);

	/* scalars */
	case OP_NONE:
		return push_new(p, PK_NONE, NULL);
	case OP_NEWTRUE:
		return push_bool(p, true);
	case OP_NEWFALSE:
		return push_bool(p, false);
	case OP_INT:
		if (rd_line(p, NUM_LINE_MAX) < 0)
			return -1;
		if (p->line.len == 2 && p->line.data[0] == '0' && (p->line.data[1] == '0' || p->line.data[1] == '1'))
			return push_bool(p, p->line.data[1] == '1');
		if (text_int(p, p->line.data, p->line.len, &i64) < 0)
			return -1;
		return push_int(p, i64);
	case OP_LONG: {
		if (rd_line(p, NUM_LINE_MAX) < 0)
			return -1;
		size_t n = p->line.len;
		if (n && p->line.data[n - 1] == 'L')
			n--;
		if (text_int(p, p->line.data, n, &i64) < 0)
			return -1;
		return push_int(p, i64);
	}
	case OP_BININT:
		if (rd_uint(p, 4, &u) < 0)
			return -1;
		return push_int(p, u >= 0x80000000u ? (int64_t)u - 0x100000000LL : (int64_t)u);
	case OP_BININT1:
	case OP_BININT2:
		if (rd_uint(p, p->op == OP_BININT1 ? 1 : 2, &u) < 0)
			return -1;
		return push_int(p, (int64_t)u);
	case OP_LONG1:
	case OP_LONG4: {
		if (rd_uint(p, p->op == OP_LONG1 ? 1 : 4, &u) < 0)
			return -1;
		if (p->op == OP_LONG4 && u >= 0x80000000u)
			return fail(p, "negative byte count");
		if (u > 8)
			return fail(p, "integer of %llu bytes does not fit in 64 bits",
				    (unsigned long long)u);
		size_t n = (size_t)u;
		uint64_t w = 0;
		if (n && rd_uint(p, n, &w) < 0)
			return -1;
		if (n && n < 8 && (w >> (8 * n - 1)) & 1)
			w |= ~(uint64_t)0 << (8 * n);
		return push_int(p, to_signed(w));
	}
	case OP_FLOAT: {
		double d;
		if (rd_line(p, NUM_LINE_MAX) < 0)
			return -1;
		if (!parse_pyfloat(p->line.data, p->line.len, &d)) {
			char ex[48];
			return fail(p, "not a float: \"%s\"", excerpt(p->line.data, p->line.len, ex));
		}
		return push_float(p, d);
	}
	case OP_BINFLOAT: {
		unsigned char b[8];
		if (rd_exact(p, b, 8) < 0)
			return -1;
		uint64_t bits = 0;
		for (int k = 0; k < 8; k++)
			bits = (bits << 8) | b[k];
		double d;
		memcpy(&d, &bits, sizeof(d));
		return push_float(p, d);
	}

	/* strings */
	case OP_STRING:
		if (rd_line(p, p->lim.max_string_bytes + 2) < 0 ||
		    decode_string_repr(p, p->line.data, p->line.len) < 0)
			return -1;
		return push_string(p, PK_STR, p->tmp.data ? p->tmp.data : "", p->tmp.len);
	case OP_UNICODE:
		if (rd_line(p, p->lim.max_string_bytes) < 0 ||
		    decode_raw_unicode(p, p->line.data ? p->line.data : "", p->line.len) < 0)
			return -1;
		return push_string(p, PK_STR, p->tmp.data ? p->tmp.data : "", p->tmp.len);
	case OP_BINSTRING:
		if (rd_uint(p, 4, &u) < 0)
			return -1;
		if (u >= 0x80000000u)
			return fail(p, "negative length");
		return read_body(p, PK_STR, u);
	case OP_SHORT_BINSTRING:
	case OP_SHORT_BINUNICODE:
	case OP_SHORT_BINBYTES:
		if (rd_uint(p, 1, &u) < 0)
			return -1;
		return read_body(p, p->op == OP_SHORT_BINBYTES ? PK_BYTES : PK_STR, u);
	case OP_BINUNICODE:
	case OP_BINBYTES:
		if (rd_uint(p, 4, &u) < 0)
			return -1;
		return read_body(p, p->op == OP_BINBYTES ? PK_BYTES : PK_STR, u);
	case OP_BINUNICODE8:
	case OP_BINBYTES8:
	case OP_BYTEARRAY8:
		if (rd_uint(p, 8, &u) < 0)
			return -1;
		return read_body(p, p->op == OP_BINUNICODE8 ? PK_STR : PK_BYTES, u);

	/* containers */
	case OP_EMPTY_LIST:
		return push_new(p, PK_LIST, NULL);
	case OP_EMPTY_TUPLE:
		return push_new(p, PK_TUPLE, NULL);
	case OP_EMPTY_DICT:
		return push_new(p, PK_DICT, NULL);
	case OP_EMPTY_SET:
		if (push_new(p, PK_LIST, &v) < 0)
			return -1;
		v->flags = PKF_SET;
		return 0;
	case OP_LIST:
	case OP_TUPLE:
	case OP_DICT:
	case OP_FROZENSET:
		if (pop_mark(p, &m) < 0)
			return -1;
		return collapse(p, m, p->op == OP_TUPLE ? PK_TUPLE : p->op == OP_DICT ? PK_DICT : PK_LIST,
				p->op == OP_FROZENSET ? PKF_SET | PKF_FROZEN : 0);
	case OP_TUPLE1:
	case OP_TUPLE2:
	case OP_TUPLE3: {
		size_t k = (size_t)(p->op - OP_TUPLE1 + 1);
		if (p->sp - f < k)
			return fail_underflow(p);
		return collapse(p, p->sp - k, PK_TUPLE, 0);
	}
	case OP_APPEND:
		if (p->sp - f < 2)
			return fail_underflow(p);
		v = p->stack[p->sp - 2];
		if (check_target(p, v, PK_LIST, false) < 0 || add_items(p, v, p->stack + p->sp - 1, 1) < 0)
			return -1;
		p->sp--;
		return 0;
	case OP_APPENDS:
	case OP_ADDITEMS:
		if (pop_mark(p, &m) < 0)
			return -1;
		if (m <= fence(p) || m > p->sp)
			return fail_underflow(p);
		v = p->stack[m - 1];
		if (check_target(p, v, PK_LIST, p->op == OP_ADDITEMS) < 0 ||
		    add_items(p, v, p->stack + m, p->sp - m) < 0)
			return -1;
		p->sp = m;
		return 0;
	case OP_SETITEM:
		if (p->sp - f < 3)
			return fail_underflow(p);
		v = p->stack[p->sp - 3];
		if (check_target(p, v, PK_DICT, false) < 0 || add_pairs(p, v, p->stack + p->sp - 2, 1) < 0)
			return -1;
		p->sp -= 2;
		return 0;
	case OP_SETITEMS:
		if (pop_mark(p, &m) < 0)
			return -1;
		if (m <= fence(p) || m > p->sp)
			return fail_underflow(p);
		if ((p->sp - m) % 2)
			return fail(p, "odd number of items (%zu) after MARK: keys and values must pair up",
				    p->sp - m);
		v = p->stack[m - 1];
		if (check_target(p, v, PK_DICT, false) < 0 || add_pairs(p, v, p->stack + m, (p->sp - m) / 2) < 0)
			return -1;
		p->sp = m;
		return 0;

	/* memo */
	case OP_PUT:
		if (text_id(p, &u) < 0)
			return -1;
		return memo_put(p, u);
	case OP_BINPUT:
	case OP_LONG_BINPUT:
		if (rd_uint(p, p->op == OP_BINPUT ? 1 : 4, &u) < 0)
			return -1;
		return memo_put(p, u);
	case OP_MEMOIZE:
		return memo_put(p, p->memo_n);
	case OP_GET:
		if (text_id(p, &u) < 0)
			return -1;
		return memo_get(p, u);
	case OP_BINGET:
	case OP_LONG_BINGET:
		if (rd_uint(p, p->op == OP_BINGET ? 1 : 4, &u) < 0)
			return -1;
		return memo_get(p, u);

	/* refused */
	case OP_GLOBAL:
	case OP_STACK_GLOBAL:
	case OP_REDUCE:
	case OP_BUILD:
	case OP_INST:
	case OP_OBJ:
	case OP_NEWOBJ:
	case OP_NEWOBJ_EX:
	case OP_EXT1:
	case OP_EXT2:
	case OP_EXT4:
		return refuse(p, "pickles that import or call code are not read");
	case OP_PERSID:
	case OP_BINPERSID:
		return refuse(p, "persistent references to outside objects are not read");
	case OP_NEXT_BUFFER:
	case OP_READONLY_BUFFER:
		return refuse(p, "out-of-band buffers are not read");
	default:
		if (p->op >= 0x20 && p->op < 0x7F)
			return errbuf_set(p->err, "unknown opcode 0x%02x ('%c') at byte %llu%s", (unsigned)p->op,
					  p->op, p->op_pos, p->op_pos == 0 ? ": not a pickle" : "");
		return errbuf_set(p->err, "unknown opcode 0x%02x at byte %llu%s", (unsigned)p->op, p->op_pos,
				  p->op_pos == 0 ? ": not a pickle" : "");
	}
}

static int run(struct parser *p)
{
	bool stop = false;
	while (!stop) {
		p->op_pos = p->pos;
		int r = fill(p);
		if (r < 0)
			return -1;
		if (r == 0) {
			if (p->pos == 0)
				return errbuf_set(p->err, "empty input: not a pickle");
			return errbuf_set(p->err, "input ends at byte %llu without STOP: truncated pickle", p->pos);
		}
		p->op = p->buf[p->bstart++];
		p->pos++;
		/* the commonest opcodes of flight-recorder dumps (a memo reference
		 * is every other one), when nothing needs checking: run_op's path
		 * without its calls */
		if (p->op == OP_BINGET && p->bstart < p->bend && p->sp < p->scap && p->pushes < p->lim.max_values) {
			size_t id = p->buf[p->bstart];
			if (id < p->memo_cap && p->memo[id]) {
				p->bstart++;
				p->pos++;
				p->pushes++;
				p->stack[p->sp++] = p->memo[id];
				continue;
			}
		} else if (p->op == OP_MARK && p->nmarks < p->mcap && p->nmarks < p->lim.max_depth) {
			p->marks[p->nmarks++] = p->sp;
			continue;
		}
		if (run_op(p, &stop) < 0)
			return -1;
	}
	return 0;
}

/* ---- entry points ------------------------------------------------------ */

void pk_default_limits(struct pk_limits *lim)
{
	lim->max_input_bytes = (size_t)256 << 20;
	lim->max_depth = 64;
	lim->max_values = 50u * 1000 * 1000;
	lim->max_string_bytes = (size_t)64 << 20;
	lim->max_expanded_bytes = (size_t)1 << 30;
}

static struct pk_doc *parse(pk_read_fn read, void *ctx, bool have_total, size_t total,
			    const struct pk_limits *lim, struct errbuf *err)
{
	struct parser p;
	memset(&p, 0, sizeof(p));
	pk_default_limits(&p.lim);
	if (lim) {
		if (lim->max_input_bytes)
			p.lim.max_input_bytes = lim->max_input_bytes;
		if (lim->max_depth)
			p.lim.max_depth = lim->max_depth;
		if (lim->max_values)
			p.lim.max_values = lim->max_values;
		if (lim->max_string_bytes)
			p.lim.max_string_bytes = lim->max_string_bytes;
		if (lim->max_expanded_bytes)
			p.lim.max_expanded_bytes = lim->max_expanded_bytes;
	}
	if (p.lim.max_depth > UINT32_MAX - 1)
		p.lim.max_depth = UINT32_MAX - 1;
	if (p.lim.max_string_bytes > SIZE_MAX / 2 - 16)
		p.lim.max_string_bytes = SIZE_MAX / 2 - 16;
	p.err = err;
	p.read = read;
	p.ctx = ctx;
	p.have_total = have_total;
	p.total = total;
	p.buf = xmalloc(RD_BUF_SIZE);
	/* never NULL: collapse() and friends take p.stack + offset even when empty */
	xgrow(&p.stack, &p.scap, 16, sizeof(p.stack[0]));
	p.doc = xcalloc(1, sizeof(*p.doc));

	int r = run(&p);
	struct pk_doc *doc = p.doc;
	if (r == 0) {
		doc->root = p.stack[0];
		doc->nbytes = (size_t)p.pos;
	} else {
		pk_doc_free(doc);
		doc = NULL;
	}
	free(p.buf);
	free(p.stack);
	free(p.marks);
	free(p.memo);
	buf_free(&p.line);
	buf_free(&p.tmp);
	return doc;
}

struct pk_doc *pickle_read(pk_read_fn read, void *ctx, const struct pk_limits *lim, struct errbuf *err)
{
	return parse(read, ctx, false, 0, lim, err);
}

struct mem_src {
	const unsigned char *data;
	size_t n, off;
};

static long mem_read(void *ctx, void *buf, size_t n)
{
	struct mem_src *m = ctx;
	size_t k = m->n - m->off;
	if (k > n)
		k = n;
	if (k > LONG_MAX)
		k = LONG_MAX;
	if (k)
		memcpy(buf, m->data + m->off, k);
	m->off += k;
	return (long)k;
}

struct pk_doc *pickle_read_mem(const void *data, size_t n, const struct pk_limits *lim, struct errbuf *err)
{
	struct mem_src m = { data, data ? n : 0, 0 };
	return parse(mem_read, &m, true, m.n, lim, err);
}

/* ---- accessors --------------------------------------------------------- */

const struct pk_value *pk_root(const struct pk_doc *doc)
{
	return doc ? doc->root : NULL;
}

size_t pk_doc_bytes(const struct pk_doc *doc)
{
	return doc ? doc->nbytes : 0;
}

enum pk_type pk_type(const struct pk_value *v)
{
	return v ? (enum pk_type)v->type : PK_NONE;
}

const char *pk_type_name(enum pk_type t)
{
	switch (t) {
	case PK_NONE: return "none";
	case PK_BOOL: return "bool";
	case PK_INT: return "int";
	case PK_FLOAT: return "float";
	case PK_STR: return "str";
	case PK_BYTES: return "bytes";
	case PK_LIST: return "list";
	case PK_TUPLE: return "tuple";
	case PK_DICT: return "dict";
	}
	return "?";
}

size_t pk_len(const struct pk_value *v)
{
	if (!v || v->type == PK_NONE || v->type == PK_BOOL || v->type == PK_INT || v->type == PK_FLOAT)
		return 0;
	return v->len;
}

const struct pk_value *pk_item(const struct pk_value *v, size_t i)
{
	if (!v || i >= v->len)
		return NULL;
	if (v->type == PK_LIST || v->type == PK_TUPLE)
		return v->u.items[i];
	if (v->type == PK_DICT)
		return v->u.items[2 * i + 1];
	return NULL;
}

const struct pk_value *pk_key(const struct pk_value *v, size_t i)
{
	if (!v || v->type != PK_DICT || i >= v->len)
		return NULL;
	return v->u.items[2 * i];
}

const struct pk_value *pk_get(const struct pk_value *dict, const char *key)
{
	if (!dict || dict->type != PK_DICT || !key)
		return NULL;
	size_t n = strlen(key);
	for (size_t i = dict->len; i-- > 0;) {
		const struct pk_value *k = dict->u.items[2 * i];
		if (k->type == PK_STR && k->len == n && memcmp(k->u.s, key, n) == 0)
			return dict->u.items[2 * i + 1];
	}
	return NULL;
}

bool pk_int(const struct pk_value *v, int64_t *out)
{
	if (!v || (v->type != PK_INT && v->type != PK_BOOL))
		return false;
	if (out)
		*out = v->u.i;
	return true;
}

bool pk_float(const struct pk_value *v, double *out)
{
	if (!v || (v->type != PK_FLOAT && v->type != PK_INT))
		return false;
	if (out)
		*out = v->type == PK_FLOAT ? v->u.f : (double)v->u.i;
	return true;
}

const char *pk_str(const struct pk_value *v, size_t *len)
{
	if (!v || (v->type != PK_STR && v->type != PK_BYTES))
		return NULL;
	if (len)
		*len = v->len;
	return v->u.s;
}

bool pk_is_none(const struct pk_value *v)
{
	return v && v->type == PK_NONE;
}

bool pk_is_set(const struct pk_value *v)
{
	return v && v->type == PK_LIST && (v->flags & PKF_SET);
}
