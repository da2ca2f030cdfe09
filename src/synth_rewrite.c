/* synth_rewrite.c: where, in a log line or a member path, the values that
 * synth renames sit. A member is compiled once into a template (literal
 * bytes and typed slots holding the original value); each copy is then a
 * cheap render of the template (see synth.h for the mapping).
 *
 * Template encoding, a byte string of records:
 *   SL_LIT:  kind byte, varint length, bytes
 *   others:  kind byte, varint zigzag(a), varint zigzag(b), varint length,
 *            original bytes (rendered as they are when the slot cannot be
 *            mapped, e.g. a communicator the scan did not know)
 *
 * The line families handled are those of FORMATS.md: torchrun/PyTorch
 * wrappers, NCCL INFO/WARN prefixes and the init, communicator, channel,
 * ring, tree and collective messages, c10 process-group prefixes, torchrun
 * agent lines and failure reports, the training script's Python logging.
 * Anything else is copied as it is, except host names and flight-recorder
 * file names, which are renamed wherever they appear. */
#include "synth.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small parsing helpers ---- */

#define NPOS ((size_t)-1)

static size_t find(const char *s, size_t n, size_t from, const char *needle)
{
	size_t m = strlen(needle);
	if (from > n || m > n - from)
		return NPOS;
	const char *p = mem_find(s + from, n - from, needle, m);
	return p ? (size_t)(p - s) : NPOS;
}

static bool at(const char *s, size_t n, size_t i, const char *lit)
{
	size_t m = strlen(lit);
	return i <= n && m <= n - i && memcmp(s + i, lit, m) == 0;
}

static bool dig(const char *s, size_t n, size_t i)
{
	return i < n && s[i] >= '0' && s[i] <= '9';
}

/* A decimal number at i (optionally negative when neg_ok): end and value. */
static bool num_at(const char *s, size_t n, size_t i, bool neg_ok, size_t *end, long long *v)
{
	size_t j = i;
	bool neg = false;
	if (neg_ok && j < n && s[j] == '-') {
		neg = true;
		j++;
	}
	if (!dig(s, n, j))
		return false;
	long long x = 0;
	size_t k = j;
	while (dig(s, n, k) && k - j < 18)
		x = x * 10 + (s[k++] - '0');
	if (dig(s, n, k))
		return false;
	*end = k;
	*v = neg ? -x : x;
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "0x<hex>" at i. */
static bool hex_at(const char *s, size_t n, size_t i, size_t *end, uint64_t *v)
{
	if (!at(s, n, i, "0x") || i + 2 >= n || hexval(s[i + 2]) < 0)
		return false;
	uint64_t x = 0;
	size_t k = i + 2;
	while (k < n && hexval(s[k]) >= 0 && k - i < 18)
		x = (x << 4) | (uint64_t)hexval(s[k++]);
	if (k < n && hexval(s[k]) >= 0)
		return false;
	*end = k;
	*v = x;
	return true;
}

static bool hostch(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* ---- spans collected for one line ---- */

struct span {
	size_t b, e;
	enum slot_kind k;
	int64_t a, v;
};

struct line {
	const char *s;
	size_t n;
	struct span *sp;
	size_t nsp, cap;
};

static void add(struct line *l, size_t b, size_t e, enum slot_kind k, int64_t a, int64_t v)
{
	if (b >= e || e > l->n)
		return;
	xgrow(&l->sp, &l->cap, l->nsp + 1, sizeof(*l->sp));
	l->sp[l->nsp++] = (struct span){b, e, k, a, v};
}

/* A number at i becomes slot k (a, value); returns the end or i. */
static size_t add_num(struct line *l, size_t i, bool neg_ok, enum slot_kind k, int64_t a)
{
	size_t e;
	long long v;
	if (!num_at(l->s, l->n, i, neg_ok, &e, &v))
		return i;
	add(l, i, e, k, a, v);
	return e;
}

/* ---- template encoding ---- */

static uint64_t get_varint(const unsigned char **p)
{
	uint64_t x = 0;
	int shift = 0;
	for (;;) {
		unsigned char c = *(*p)++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return x;
		shift += 7;
	}
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void emit_lit(struct buf *tpl, const char *p, size_t n)
{
	if (!n)
		return;
	buf_putc(tpl, SL_LIT);
	buf_varint(tpl, n);
	buf_append(tpl, p, n);
}

static int cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return a->e > b->e ? -1 : a->e < b->e; /* longer first */
}

/* Emits the line (with its line break, if any, as literal) into tpl. Spans
 * that overlap an earlier one are dropped. */
static void emit_line(struct line *l, size_t with_nl, struct buf *tpl)
{
	xqsort(l->sp, l->nsp, sizeof(*l->sp), cmp_span);
	size_t pos = 0;
	for (size_t i = 0; i < l->nsp; i++) {
		struct span *sp = &l->sp[i];
		if (sp->b < pos)
			continue;
		emit_lit(tpl, l->s + pos, sp->b - pos);
		buf_putc(tpl, (char)sp->k);
		buf_varint(tpl, zz(sp->a));
		buf_varint(tpl, zz(sp->v));
		buf_varint(tpl, sp->e - sp->b);
		buf_append(tpl, l->s + sp->b, sp->e - sp->b);
		pos = sp->e;
	}
	emit_lit(tpl, l->s + pos, l->n + with_nl - pos);
	l->nsp = 0;
}

/* ---- rendering ---- */

static void put_long(struct buf *out, long long v)
{
	char t[24];
	int k = snprintf(t, sizeof(t), "%lld", v);
	buf_append(out, t, (size_t)k);
}

static void put_hex(struct buf *out, uint64_t v)
{
	char t[24];
	int k = snprintf(t, sizeof(t), "0x%llx", (unsigned long long)v);
	buf_append(out, t, (size_t)k);
}

static const char runid_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789_";

static void render_slot(const struct synth *s, enum slot_kind k, int64_t a, int64_t v, const char *orig,
			size_t olen, int c, struct buf *out)
{
	switch (k) {
	case SL_HOST:
		syn_host_name(s, (int)a, c, out);
		return;
	case SL_NODEDIR:
		if (strcmp(s->nodes[a].dir, s->nodes[a].host) == 0)
			syn_host_name(s, (int)a, c, out);
		else if (c == 0)
			buf_append(out, orig, olen);
		else
			buf_printf(out, "%.*s-c%d", (int)olen, orig, c);
		return;
	case SL_RUNID:
		buf_append(out, orig, (size_t)v);
		if (c == 0) {
			buf_append(out, orig + v, olen - (size_t)v);
		} else {
			uint64_t h = syn_mix(syn_mix(s->o->seed, (uint64_t)a), (uint64_t)c);
			for (size_t i = (size_t)v; i < olen; i++) {
				buf_putc(out, runid_chars[h % (sizeof(runid_chars) - 1)]);
				h = syn_mix(h, i);
			}
		}
		return;
	case SL_RANK:
		put_long(out, v + (int64_t)c * s->world);
		return;
	case SL_NODE:
		put_long(out, v + (int64_t)c * (int64_t)s->knodes);
		return;
	case SL_PID:
		put_long(out, syn_pid(s, (long)v, c));
		return;
	case SL_WORLD:
		put_long(out, s->ranks);
		return;
	case SL_NNODES:
		put_long(out, s->total_nodes);
		return;
	case SL_CRANK:
		put_long(out, syn_comm_rank(s, (int)a, (int)v, c));
		return;
	case SL_CSIZE:
		put_long(out, s->comms[a].local ? v : s->comms[a].new_size);
		return;
	case SL_CNODES:
		put_long(out, s->comms[a].local ? v : s->comms[a].new_nnodes);
		return;
	case SL_COMMID:
		if (s->comms[a].local && c > 0)
			put_hex(out, syn_mix(syn_mix((uint64_t)v, s->o->seed), (uint64_t)c));
		else
			buf_append(out, orig, olen);
		return;
	case SL_COLOR:
		if (s->comms[a].local && c > 0)
			put_long(out, (long long)(syn_mix(syn_mix((uint64_t)v, s->o->seed), (uint64_t)c) & 0x7fffffff));
		else
			buf_append(out, orig, olen);
		return;
	case SL_PTR:
		if (c > 0)
			put_hex(out, (uint64_t)v ^ (syn_mix(s->o->seed, (uint64_t)c) & 0x0ffff000ull));
		else
			buf_append(out, orig, olen);
		return;
	case SL_PGRANK:
		put_long(out, syn_group_rank(s, (int)a, (int)v, c));
		return;
	case SL_GUID:
		syn_guid(s, (int)a, c, out);
		return;
	case SL_DESC:
		syn_desc(s, (int)a, c, out);
		return;
	case SL_LIT:
		break;
	}
	buf_append(out, orig, olen);
}

void tpl_render(const struct synth *s, const unsigned char *tpl, size_t n, int copy, struct buf *out)
{
	const unsigned char *p = tpl, *end = tpl + n;
	while (p < end) {
		enum slot_kind k = (enum slot_kind)*p++;
		if (k == SL_LIT) {
			size_t len = (size_t)get_varint(&p);
			buf_append(out, p, len);
			p += len;
			continue;
		}
		int64_t a = unzz(get_varint(&p));
		int64_t v = unzz(get_varint(&p));
		size_t len = (size_t)get_varint(&p);
		render_slot(s, k, a, v, (const char *)p, len, copy, out);
		p += len;
	}
}

/* ---- the parts of a line ---- */

enum fam { F_PLAIN, F_NCCL, F_C10, F_GLOG, F_PYLOG };

struct hdr {
	int rank;            /* [rankN]: wrapper, -1 */
	size_t rank_b, rank_e;
	enum fam fam;
	size_t body;         /* after the wrappers */
	size_t msg;          /* the message */
	size_t host_b, host_e;
	long pid, tid;
	size_t pid_b, pid_e, tid_b, tid_e;
};

static void parse_hdr(const char *s, size_t n, struct hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->rank = -1;
	h->pid = h->tid = -1;
	size_t p = 0;
	/* wrappers: [default0]: [rank3]: */
	while (p < n && s[p] == '[') {
		size_t q = p + 1;
		while (q < n && q - p < 40 && (isalnum((unsigned char)s[q]) || s[q] == '_'))
			q++;
		if (q >= n || s[q] != ']' || q + 1 >= n || s[q + 1] != ':' || !dig(s, n, q - 1))
			break;
		if (at(s, n, p + 1, "rank") && dig(s, n, p + 5)) {
			size_t e;
			long long v;
			if (num_at(s, n, p + 5, false, &e, &v) && e == q) {
				h->rank = (int)v;
				h->rank_b = p + 5;
				h->rank_e = e;
			}
		}
		p = q + 2;
	}
	h->body = p;
	h->msg = p;
	h->fam = F_PLAIN;
	size_t q = p;
	/* NCCL WARN date: [2026-11-29 23:51:57] */
	if (q + 22 <= n && s[q] == '[' && dig(s, n, q + 1) && s[q + 5] == '-' && s[q + 20] == ']' && s[q + 21] == ' ')
		q += 22;
	/* NCCL: host:pid:tid [dev] ... NCCL */
	size_t hb = q;
	while (q < n && hostch(s[q]))
		q++;
	if (q > hb && q < n && s[q] == ':') {
		size_t e1, e2;
		long long pid, tid;
		if (num_at(s, n, q + 1, false, &e1, &pid) && e1 < n && s[e1] == ':' &&
		    num_at(s, n, e1 + 1, false, &e2, &tid) && at(s, n, e2, " [")) {
			size_t nc = find(s, n > e2 + 120 ? e2 + 120 : n, e2, " NCCL ");
			if (nc != NPOS) {
				h->fam = F_NCCL;
				h->host_b = hb;
				h->host_e = q;
				h->pid = (long)pid;
				h->tid = (long)tid;
				h->pid_b = q + 1;
				h->pid_e = e1;
				h->tid_b = e1 + 1;
				h->tid_e = e2;
				size_t m = nc + 6;
				while (m < n && isalpha((unsigned char)s[m]))
					m++;
				h->msg = m < n && s[m] == ' ' ? m + 1 : m;
				return;
			}
		}
	}
	q = p;
	/* c10: [E1129 23:50:42.457198170 file.cpp:689] msg   or   [E file.cpp:475] msg */
	if (q + 3 < n && s[q] == '[' && strchr("IWEF", s[q + 1]) && (dig(s, n, q + 2) || s[q + 2] == ' ')) {
		size_t e = find(s, n > q + 160 ? q + 160 : n, q, "] ");
		if (e != NPOS) {
			h->fam = F_C10;
			h->msg = e + 2;
			return;
		}
	}
	/* glog (torchrun): I1129 23:47:28.713000 604 torch/.../api.py:224] msg */
	if (q + 24 < n && strchr("IWEF", s[q]) && dig(s, n, q + 1) && dig(s, n, q + 4) && s[q + 5] == ' ' &&
	    s[q + 8] == ':') {
		size_t t = q + 6;
		while (t < n && s[t] != ' ')
			t++;
		size_t e;
		long long pid;
		if (num_at(s, n, t + 1, false, &e, &pid) && e < n && s[e] == ' ') {
			h->fam = F_GLOG;
			h->pid = (long)pid;
			h->pid_b = t + 1;
			h->pid_e = e;
			size_t m = find(s, n > e + 200 ? e + 200 : n, e, "] ");
			h->msg = m != NPOS ? m + 2 : (m = find(s, n, e, "]")) != NPOS ? m + 1 : e;
			return;
		}
	}
	/* Python logging: 2026-11-29 23:55:40,214 INFO ... */
	if (q + 23 <= n && dig(s, n, q) && s[q + 4] == '-' && s[q + 7] == '-' && s[q + 10] == ' ' && s[q + 13] == ':' &&
	    s[q + 19] == ',') {
		h->fam = F_PYLOG;
		h->msg = q + 23;
	}
}

/* ---- per-member state ---- */

struct ctx_entry {
	long pid, tid;
	int comm;
};

struct member {
	struct synth *s;
	int node;
	bool scan;            /* the model scan, not a compile */
	/* lines, for look-ahead */
	const char **lb;
	size_t *ln;
	size_t nlines, lcap;
	/* the communicator each thread talks about last */
	struct ctx_entry *ctx;
	size_t nctx, cctx;
};

static void ctx_set(struct member *m, long pid, long tid, int comm)
{
	for (size_t i = 0; i < m->nctx; i++)
		if (m->ctx[i].pid == pid && m->ctx[i].tid == tid) {
			m->ctx[i].comm = comm;
			return;
		}
	xgrow(&m->ctx, &m->cctx, m->nctx + 1, sizeof(*m->ctx));
	m->ctx[m->nctx++] = (struct ctx_entry){pid, tid, comm};
}

/* The thread's communicator, else the last one of the process, else -1. */
static int ctx_get(const struct member *m, long pid, long tid)
{
	int any = -1;
	for (size_t i = 0; i < m->nctx; i++) {
		if (m->ctx[i].pid != pid)
			continue;
		if (m->ctx[i].tid == tid)
			return m->ctx[i].comm;
		any = m->ctx[i].comm;
	}
	return any;
}

static int comm_by_ptr(const struct member *m, long pid, uint64_t ptr)
{
	char key[64];
	int k = snprintf(key, sizeof(key), "%d:%ld:%llx", m->node, pid, (unsigned long long)ptr);
	return (int)smap_get(&m->s->comm_by_ptr, key, (size_t)k);
}

/* ---- NCCL messages ---- */

/* "comm 0x<ptr>" at i: the pointer slot and its communicator (or -1). */
static int comm_ptr_at(struct member *m, struct line *l, size_t i, long pid, size_t *end)
{
	uint64_t ptr;
	size_t e;
	if (!at(l->s, l->n, i, "comm ") || !hex_at(l->s, l->n, i + 5, &e, &ptr))
		return -1;
	add(l, i + 5, e, SL_PTR, 0, (int64_t)ptr);
	*end = e;
	return comm_by_ptr(m, pid, ptr);
}

/* Every non-negative number in [from, to) is a rank in comm. */
static void comm_ranks_in(struct line *l, size_t from, size_t to, int comm)
{
	if (comm < 0)
		return;
	for (size_t i = from; i < to;) {
		if (dig(l->s, l->n, i) && (i == 0 || (!isalnum((unsigned char)l->s[i - 1]) && l->s[i - 1] != '-'))) {
			size_t e;
			long long v;
			if (num_at(l->s, l->n, i, false, &e, &v)) {
				if (e > to)
					return;
				add(l, i, e, SL_CRANK, comm, v);
				i = e;
				continue;
			}
		}
		i++;
	}
}

static void nccl_rules(struct member *m, struct line *l, const struct hdr *h)
{
	const char *s = l->s;
	size_t n = l->n, p = h->msg, e;
	long pid = h->pid, tid = h->tid;
	long long v;
	int comm = -1;

	if (at(s, n, p, "ncclComm")) {
		size_t c = find(s, n, p, " comm ");
		if (c == NPOS)
			return;
		comm = comm_ptr_at(m, l, c + 1, pid, &e);
		if (comm >= 0)
			ctx_set(m, pid, tid, comm);
		if (at(s, n, e, " rank ") && comm >= 0)
			e = add_num(l, e + 6, false, SL_CRANK, comm);
		if (at(s, n, e, " nranks ") && comm >= 0 && num_at(s, n, e + 8, false, &e, &v))
			add(l, e - (size_t)snprintf(NULL, 0, "%lld", v), e, SL_CSIZE, comm, v);
		size_t x;
		uint64_t hv;
		if ((x = find(s, n, e, " commId ")) != NPOS && hex_at(s, n, x + 8, &e, &hv) && comm >= 0)
			add(l, x + 8, e, SL_COMMID, comm, (int64_t)hv);
		if ((x = find(s, n, p, " parent ")) != NPOS && hex_at(s, n, x + 8, &e, &hv))
			add(l, x + 8, e, SL_PTR, 0, (int64_t)hv);
		if ((x = find(s, n, p, " color ")) != NPOS && comm >= 0 && num_at(s, n, x + 7, true, &e, &v))
			add(l, x + 7, e, SL_COLOR, comm, v);
		if ((x = find(s, n, p, " key ")) != NPOS && comm >= 0)
			add_num(l, x + 5, false, SL_CRANK, comm);
		return;
	}
	if (at(s, n, p, "comm 0x")) {
		/* comm 0x.. rank R nRanks NR nNodes NN ...   |   comm 0x.. rank R nranks NR ... Destroy */
		comm = comm_ptr_at(m, l, p, pid, &e);
		if (comm < 0)
			return;
		ctx_set(m, pid, tid, comm);
		if (at(s, n, e, " rank "))
			e = add_num(l, e + 6, false, SL_CRANK, comm);
		if ((at(s, n, e, " nRanks ") || at(s, n, e, " nranks ")) && num_at(s, n, e + 8, false, &e, &v)) {
			size_t b = e;
			while (b > 0 && dig(s, n, b - 1))
				b--;
			add(l, b, e, SL_CSIZE, comm, v);
		}
		if (at(s, n, e, " nNodes ") && num_at(s, n, e + 8, false, &e, &v)) {
			size_t b = e;
			while (b > 0 && dig(s, n, b - 1))
				b--;
			add(l, b, e, SL_CNODES, comm, v);
		}
		return;
	}
	comm = ctx_get(m, pid, tid);
	if (at(s, n, p, "Init timings - ")) {
		size_t x = find(s, n, p, ": rank ");
		if (x == NPOS || comm < 0)
			return;
		e = add_num(l, x + 7, false, SL_CRANK, comm);
		if (at(s, n, e, " nranks ") && num_at(s, n, e + 8, false, &e, &v))
			add(l, e - (size_t)snprintf(NULL, 0, "%lld", v), e, SL_CSIZE, comm, v);
		return;
	}
	if (at(s, n, p, "Channel ") || at(s, n, p, "Ring ") || at(s, n, p, "Tree ")) {
		size_t x = find(s, n, p, " : ");
		if (x == NPOS)
			return;
		if (at(s, n, p, "Channel ") && find(s, n, x, "[") != NPOS) {
			/* Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM: ranks before the brackets */
			size_t y = x + 3;
			if (num_at(s, n, y, false, &e, &v) && comm >= 0)
				add(l, y, e, SL_CRANK, comm, v);
			size_t z = find(s, n, y, "-> ");
			if (z != NPOS && num_at(s, n, z + 3, false, &e, &v) && comm >= 0)
				add(l, z + 3, e, SL_CRANK, comm, v);
			return;
		}
		comm_ranks_in(l, x + 3, n, comm);
		return;
	}
	if (at(s, n, p, "Trees ")) {
		/* Trees [0] 3/-1/-1->2->5 [1] ...: [k] is the channel */
		size_t i = p + 6;
		while (i < n) {
			size_t b = find(s, n, i, "]");
			if (b == NPOS)
				break;
			size_t nxt = find(s, n, b, " [");
			comm_ranks_in(l, b + 1, nxt == NPOS ? n : nxt, comm);
			i = nxt == NPOS ? n : nxt + 1;
		}
		return;
	}
	size_t x;
	if ((x = find(s, n, p, ": opCount ")) != NPOS) {
		size_t c = find(s, n, x, " comm 0x");
		if (c == NPOS)
			return;
		comm = comm_ptr_at(m, l, c + 1, pid, &e);
		if (comm >= 0) {
			ctx_set(m, pid, tid, comm);
			if (at(s, n, e, " [nranks=") && num_at(s, n, e + 9, false, &e, &v))
				add(l, e - (size_t)snprintf(NULL, 0, "%lld", v), e, SL_CSIZE, comm, v);
		}
		return;
	}
	if (at(s, n, p, "Rank ") && find(s, n, p, "NCCL_SPLIT_NOCOLOR") != NPOS) {
		add_num(l, p + 5, false, SL_RANK, 0);
		return;
	}
	if (at(s, n, p, "RAS peer ")) {
		if ((x = find(s, n, p, ", pid ")) != NPOS)
			add_num(l, x + 6, false, SL_PID, 0);
		return;
	}
	if ((x = find(s, n, p, "comm 0x")) != NPOS && (x == p || s[x - 1] == ' ')) {
		/* UDS: Creating service thread comm 0x.. rank R / ProxyCall UDS comm 0x.. rank R tpRank T(...) */
		comm = comm_ptr_at(m, l, x, pid, &e);
		if (comm < 0)
			return;
		ctx_set(m, pid, tid, comm);
		if (at(s, n, e, " rank "))
			e = add_num(l, e + 6, false, SL_CRANK, comm);
		if (at(s, n, e, " tpRank "))
			add_num(l, e + 8, false, SL_CRANK, comm);
		return;
	}
	if ((x = find(s, n, p, "ncclProxyMsgGetFd rank ")) != NPOS && comm >= 0)
		add_num(l, x + 23, false, SL_CRANK, comm);
}

/* ---- c10 (ProcessGroupNCCL) messages ---- */

static int group_lookup(struct synth *s, const char *guid, size_t gl, const char *desc, size_t dl)
{
	long g = -1;
	if (guid && gl)
		g = smap_get(&s->group_by_guid, guid, gl);
	if (g < 0 && desc && dl)
		g = smap_get(&s->group_by_desc, desc, dl);
	return (int)g;
}

/* One "[PG ID 2 PG GUID 5(dp1) Rank 1]" / "[PG 0 (default_pg) Rank 6]" /
 * "[PG ID 1 PG GUID 1 Rank 0]" prefix at i: returns its end (after "]") or
 * i; scan: registers the group and the member. */
static size_t pg_prefix(struct member *m, struct line *l, const struct hdr *h, size_t i)
{
	const char *s = l->s;
	size_t n = l->n, e;
	long long v;
	size_t gb = 0, ge = 0, db = 0, de = 0;
	if (at(s, n, i, "[PG ID ")) {
		if (!num_at(s, n, i + 7, false, &e, &v) || !at(s, n, e, " PG GUID "))
			return i;
		gb = e + 9;
		ge = gb;
		while (ge < n && s[ge] != '(' && s[ge] != ' ' && s[ge] != ']')
			ge++;
		e = ge;
	} else if (at(s, n, i, "[PG ")) {
		if (!num_at(s, n, i + 4, false, &e, &v))
			return i;
		if (at(s, n, e, " "))
			e++;
	} else {
		return i;
	}
	if (e < n && s[e] == '(') {
		db = e + 1;
		de = db;
		while (de < n && s[de] != ')')
			de++;
		if (de >= n)
			return i;
		e = de + 1;
		if (at(s, n, e, " "))
			e++;
	} else if (at(s, n, e, " ")) {
		e++;
	}
	if (!at(s, n, e, "Rank "))
		return i;
	size_t rb = e + 5, re;
	long long pr;
	if (!num_at(s, n, rb, false, &re, &pr) || !at(s, n, re, "]"))
		return i;
	struct synth *sy = m->s;
	if (m->scan) {
		int g = syn_group_note(sy, ge > gb ? s + gb : NULL, ge - gb, de > db ? s + db : NULL, de - db);
		if (g >= 0 && h->rank >= 0)
			syn_group_member(sy, g, h->rank, (int)pr);
		return re + 1;
	}
	int g = group_lookup(sy, s + gb, ge - gb, s + db, de - db);
	if (g >= 0) {
		if (ge > gb)
			add(l, gb, ge, SL_GUID, g, 0);
		if (de > db)
			add(l, db, de, SL_DESC, g, 0);
		add(l, rb, re, SL_PGRANK, g, pr);
	}
	return re + 1;
}

/* The rank wrapper of a line (-1). */
static int line_rank(const char *s, size_t n)
{
	struct hdr h;
	parse_hdr(s, n, &h);
	return h.rank;
}

/* A bare "[Rank z]" on a watchdog or async-exception line: the group is the
 * one named by the "failure detected" line that follows (as the analysis
 * joins them), else the one group where this rank has index z. */
static int bare_rank_group(struct member *m, const struct line *l, const struct hdr *h, size_t li, long z)
{
	struct synth *s = m->s;
	size_t x = find(l->s, l->n, h->msg, "SeqNum=");
	long long seq = -1;
	size_t e;
	if (x != NPOS)
		num_at(l->s, l->n, x + 7, false, &e, &seq);
	for (size_t k = li + 1; seq >= 0 && k < m->nlines && k <= li + 16; k++) {
		const char *t = m->lb[k];
		size_t tn = m->ln[k];
		if (line_rank(t, tn) != h->rank)
			continue;
		size_t y = find(t, tn, 0, "detected by watchdog at work");
		if (y == NPOS)
			continue;
		size_t d = y;
		while (d < tn && !dig(t, tn, d))
			d++;
		long long sq;
		if (!num_at(t, tn, d, false, &e, &sq) || sq != seq)
			continue;
		size_t g0 = find(t, tn, 0, "PG GUID ");
		size_t r0 = find(t, tn, 0, " Rank ");
		long long zr;
		if (g0 == NPOS || r0 == NPOS || !num_at(t, tn, r0 + 6, false, &e, &zr) || zr != z)
			continue;
		size_t ge = g0 + 8;
		while (ge < tn && t[ge] != '(' && t[ge] != ' ' && t[ge] != ']')
			ge++;
		long g = smap_get(&s->group_by_guid, t + g0 + 8, ge - g0 - 8);
		if (g >= 0)
			return (int)g;
	}
	int found = -1;
	for (size_t g = 0; g < s->ngroups; g++) {
		const struct syn_group *gr = &s->groups[g];
		for (size_t i = 0; i < gr->nranks; i++)
			if (gr->ranks[i] == h->rank && (long)i == z) {
				if (found >= 0)
					return -1; /* ambiguous */
				found = (int)g;
			}
	}
	return found;
}

static void c10_rules(struct member *m, struct line *l, const struct hdr *h, size_t li)
{
	const char *s = l->s;
	size_t n = l->n, p = h->msg;
	for (int k = 0; k < 4; k++) {
		size_t q = pg_prefix(m, l, h, p);
		if (q == p)
			break;
		p = q;
		while (p < n && s[p] == ' ')
			p++;
	}
	if (!m->scan && at(s, n, p, "[Rank ") && h->rank >= 0) {
		size_t e;
		long long z;
		if (num_at(s, n, p + 6, false, &e, &z) && at(s, n, e, "]")) {
			int g = bare_rank_group(m, l, h, li, (long)z);
			if (g >= 0)
				add(l, p + 6, e, SL_PGRANK, g, z);
		}
	}
	if (m->scan)
		return;
	size_t x = find(s, n, p, "collective timeout from ");
	if (x != NPOS) {
		size_t i = x + 24;
		while (i < n && s[i] == ' ')
			i++;
		if (at(s, n, i, "rank "))
			add_num(l, i + 5, false, SL_RANK, 0);
	}
}

/* ---- torchrun agent (glog) messages ---- */

/* Every integer inside "[...]" at i: kind k (SL_WORLD only where it equals W). */
static void int_list(struct synth *sy, struct line *l, size_t i, enum slot_kind k)
{
	if (i >= l->n || l->s[i] != '[')
		return;
	for (size_t j = i + 1; j < l->n && l->s[j] != ']';) {
		size_t e;
		long long v;
		if (num_at(l->s, l->n, j, false, &e, &v)) {
			if (k != SL_WORLD || v == sy->world)
				add(l, j, e, k, 0, v);
			j = e;
		} else {
			j++;
		}
	}
}

static void glog_rules(struct member *m, struct line *l, const struct hdr *h)
{
	struct synth *sy = m->s;
	const char *s = l->s;
	size_t n = l->n, p = h->msg, x, e;
	long long v;
	if (m->scan) {
		while (p < n && s[p] == ' ')
			p++;
		if (at(s, n, p, "global_ranks=[")) {
			for (size_t j = p + 14; j < n && s[j] != ']';) {
				if (num_at(s, n, j, false, &e, &v)) {
					syn_rank_on_node(sy, m->node, (int)v);
					j = e;
				} else {
					j++;
				}
			}
		}
		return;
	}
	add(l, h->pid_b, h->pid_e, SL_PID, 0, h->pid);
	if ((x = find(s, n, p, "Sending process ")) != NPOS) {
		add_num(l, x + 16, false, SL_PID, 0);
		return;
	}
	if ((x = find(s, n, p, "(pid: ")) != NPOS && find(s, n, p, "failed (exitcode") != NPOS) {
		add_num(l, x + 6, false, SL_PID, 0);
		return;
	}
	while (p < n && s[p] == ' ')
		p++;
	if (at(s, n, p, "group_rank=")) {
		add_num(l, p + 11, false, SL_NODE, 0);
	} else if (at(s, n, p, "group_world_size=")) {
		if (num_at(s, n, p + 17, false, &e, &v) && v == (long long)sy->knodes)
			add(l, p + 17, e, SL_NNODES, 0, v);
	} else if (at(s, n, p, "role_ranks=")) {
		int_list(sy, l, p + 11, SL_RANK);
	} else if (at(s, n, p, "global_ranks=")) {
		int_list(sy, l, p + 13, SL_RANK);
	} else if (at(s, n, p, "role_world_sizes=")) {
		int_list(sy, l, p + 17, SL_WORLD);
	} else if (at(s, n, p, "global_world_sizes=")) {
		int_list(sy, l, p + 19, SL_WORLD);
	} else if (at(s, n, p, "min_nodes") || at(s, n, p, "max_nodes")) {
		x = find(s, n, p, ": ");
		if (x != NPOS && num_at(s, n, x + 2, false, &e, &v) && v == (long long)sy->knodes)
			add(l, x + 2, e, SL_NNODES, 0, v);
	} else if (at(s, n, p, "rdzv_configs")) {
		x = find(s, n, p, "'rank': ");
		if (x != NPOS)
			add_num(l, x + 8, false, SL_NODE, 0);
	}
}

/* ---- the training script (Python logging) and plain lines ---- */

static bool word_start(const char *s, size_t i)
{
	return i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');
}

/* key=<int> anywhere in [from, n): slot k (pids only when known). */
static void key_ints(struct member *m, struct line *l, size_t from, const char *key, enum slot_kind k)
{
	size_t kl = strlen(key);
	for (size_t x = from; (x = find(l->s, l->n, x, key)) != NPOS; x += kl) {
		if (!word_start(l->s, x))
			continue;
		size_t e;
		long long v;
		if (!num_at(l->s, l->n, x + kl, false, &e, &v))
			continue;
		if (k == SL_PID) {
			char t[24];
			int tn = snprintf(t, sizeof(t), "%lld", v);
			if (smap_get(&m->s->pids, t, (size_t)tn) < 0)
				continue;
		}
		if (k == SL_WORLD && v != m->s->world)
			continue;
		add(l, x + kl, e, k, 0, v);
	}
}

static void pylog_rules(struct member *m, struct line *l, const struct hdr *h)
{
	struct synth *sy = m->s;
	const char *s = l->s;
	size_t n = l->n, p = h->msg;
	if (m->scan) {
		/* rank=R host=H pid=P ... local_rank=L: the script's identity line */
		size_t x = find(s, n, p, "rank=");
		size_t y = find(s, n, p, " pid=");
		size_t e;
		long long r, pid;
		if (x != NPOS && y != NPOS && word_start(s, x) && num_at(s, n, x + 5, false, &e, &r) &&
		    num_at(s, n, y + 5, false, &e, &pid) && find(s, n, p, "local_rank=") != NPOS) {
			char key[48];
			int k = snprintf(key, sizeof(key), "%d:%lld", m->node, pid);
			smap_put(&sy->proc_rank, key, (size_t)k, (long)r);
			syn_rank_on_node(sy, m->node, (int)r);
			k = snprintf(key, sizeof(key), "%lld", pid);
			smap_put(&sy->pids, key, (size_t)k, 1);
			if (pid > sy->max_pid)
				sy->max_pid = (long)pid;
		}
		return;
	}
	key_ints(m, l, p, "rank=", SL_RANK);
	key_ints(m, l, p, "pid=", SL_PID);
	key_ints(m, l, p, "world=", SL_WORLD);
	if (find(s, n, p, "local_rank=") != NPOS)
		key_ints(m, l, p, "node=", SL_NODE);
}

/* torchrun's failure report (plain lines) */
static void plain_rules(struct member *m, struct line *l, const struct hdr *h)
{
	const char *s = l->s;
	size_t n = l->n, p = h->body, x;
	while (p < n && s[p] == ' ')
		p++;
	if (at(s, n, p, "rank") && (x = find(s, n, p, ": ")) != NPOS && x < p + 12 &&
	    find(s, n, x, "(local_rank: ") != NPOS) {
		add_num(l, x + 2, false, SL_RANK, 0);
	} else if (at(s, n, p, "exitcode") && (x = find(s, n, p, "(pid: ")) != NPOS) {
		add_num(l, x + 6, false, SL_PID, 0);
	} else if (at(s, n, p, "traceback") && (x = find(s, n, p, "received by PID ")) != NPOS) {
		add_num(l, x + 16, false, SL_PID, 0);
	} else {
		key_ints(m, l, p, "rank=", SL_RANK);
		key_ints(m, l, p, "pid=", SL_PID);
	}
}

/* ---- anywhere: host names, flight-recorder file names ---- */

static void generic_rules(struct member *m, struct line *l)
{
	struct synth *sy = m->s;
	const char *s = l->s;
	size_t n = l->n;
	for (size_t k = 0; k < sy->nnodes; k++) {
		if (!sy->nodes[k].real)
			continue;
		for (int which = 0; which < 2; which++) {
			const char *name = which ? sy->nodes[k].dir : sy->nodes[k].host;
			if (which && strcmp(name, sy->nodes[k].host) == 0)
				break;
			size_t nl = strlen(name);
			for (size_t x = 0; nl && (x = find(s, n, x, name)) != NPOS; x += nl) {
				if (x > 0 && (isalnum((unsigned char)s[x - 1]) || s[x - 1] == '-' || s[x - 1] == '_'))
					continue;
				if (x + nl < n && (isalnum((unsigned char)s[x + nl]) || s[x + nl] == '_'))
					continue;
				add(l, x, x + nl, which ? SL_NODEDIR : SL_HOST, (int64_t)k, 0);
			}
		}
	}
	for (size_t x = 0; (x = find(s, n, x, "trace_rank_")) != NPOS; x += 11)
		add_num(l, x + 11, false, SL_RANK, 0);
}

/* ---- the scan for the model (pass 1) ---- */

static void scan_nccl(struct member *m, const struct line *l, const struct hdr *h)
{
	struct synth *sy = m->s;
	const char *s = l->s;
	size_t n = l->n, p = h->msg, e, x;
	long long v;
	uint64_t ptr;
	syn_host_on_node(sy, m->node, s + h->host_b, h->host_e - h->host_b);
	char key[96];
	int k = snprintf(key, sizeof(key), "%ld", h->pid);
	smap_put(&sy->pids, key, (size_t)k, 1);
	if (h->pid > sy->max_pid)
		sy->max_pid = h->pid;
	if (at(s, n, p, "ncclComm") && (x = find(s, n, p, " comm 0x")) != NPOS && hex_at(s, n, x + 6, &e, &ptr)) {
		long long crank = -1, nranks = -1, color = 0, count = 0;
		if (at(s, n, e, " rank "))
			num_at(s, n, e + 6, false, &e, &crank);
		if (at(s, n, e, " nranks "))
			num_at(s, n, e + 8, false, &e, &nranks);
		uint64_t id = 0;
		bool has_id = (x = find(s, n, e, " commId ")) != NPOS && hex_at(s, n, x + 8, &e, &id);
		bool split = (x = find(s, n, p, " color ")) != NPOS && num_at(s, n, x + 7, true, &e, &color);
		if ((x = find(s, n, p, " splitCount ")) != NPOS)
			num_at(s, n, x + 12, false, &e, &count);
		if (crank < 0 || nranks <= 0 || (!has_id && !split))
			return;
		int kk = has_id ? snprintf(key, sizeof(key), "id:%llx", (unsigned long long)id)
				: snprintf(key, sizeof(key), "split:%lld:%lld", color, count);
		long comm = smap_get(&sy->comm_by_key, key, (size_t)kk);
		if (comm < 0) {
			comm = (long)sy->ncomms;
			sy->comms = xrealloc(sy->comms, (sy->ncomms + 1) * sizeof(*sy->comms));
			struct syn_comm *c = &sy->comms[sy->ncomms++];
			memset(c, 0, sizeof(*c));
			c->nranks = (int)nranks;
			c->members = xmalloc((size_t)nranks * sizeof(int));
			for (long long i = 0; i < nranks; i++)
				c->members[i] = -1;
			c->node = -1;
			smap_put(&sy->comm_by_key, key, (size_t)kk, comm);
		}
		k = snprintf(key, sizeof(key), "%d:%ld:%llx", m->node, h->pid, (unsigned long long)ptr);
		smap_put(&sy->comm_by_ptr, key, (size_t)k, comm);
		/* members are resolved to global ranks once every process is known */
		syn_note_init(sy, (int)comm, (int)crank, m->node, h->pid, has_id);
		return;
	}
	if (at(s, n, p, "comm 0x") && hex_at(s, n, p + 5, &e, &ptr)) {
		x = find(s, n, e, " nNodes ");
		if (x != NPOS && num_at(s, n, x + 8, false, &e, &v)) {
			int comm = comm_by_ptr(m, h->pid, ptr);
			if (comm >= 0 && v > sy->comms[comm].nnodes)
				sy->comms[comm].nnodes = (int)v;
		}
	}
}

static void scan_line(struct member *m, struct line *l, size_t li)
{
	struct hdr h;
	parse_hdr(l->s, l->n, &h);
	if (h.rank >= 0)
		syn_rank_on_node(m->s, m->node, h.rank);
	switch (h.fam) {
	case F_NCCL:
		scan_nccl(m, l, &h);
		break;
	case F_C10:
		c10_rules(m, l, &h, li);
		break;
	case F_GLOG: {
		char key[24];
		int k = snprintf(key, sizeof(key), "%ld", h.pid);
		smap_put(&m->s->pids, key, (size_t)k, 1);
		if (h.pid > m->s->max_pid)
			m->s->max_pid = h.pid;
		glog_rules(m, l, &h);
		break;
	}
	case F_PYLOG:
		pylog_rules(m, l, &h);
		break;
	case F_PLAIN:
		break;
	}
}

static void compile_line(struct member *m, struct line *l, size_t li)
{
	struct hdr h;
	parse_hdr(l->s, l->n, &h);
	if (h.rank >= 0)
		add(l, h.rank_b, h.rank_e, SL_RANK, 0, h.rank);
	switch (h.fam) {
	case F_NCCL:
		add(l, h.pid_b, h.pid_e, SL_PID, 0, h.pid);
		add(l, h.tid_b, h.tid_e, SL_PID, 0, h.tid);
		nccl_rules(m, l, &h);
		break;
	case F_C10:
		c10_rules(m, l, &h, li);
		break;
	case F_GLOG:
		glog_rules(m, l, &h);
		break;
	case F_PYLOG:
		pylog_rules(m, l, &h);
		break;
	case F_PLAIN:
		plain_rules(m, l, &h);
		break;
	}
	generic_rules(m, l);
}

static void split_lines(struct member *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		xgrow(&m->lb, &m->lcap, m->nlines + 1, sizeof(*m->lb));
		m->ln = xrealloc(m->ln, m->lcap * sizeof(*m->ln));
		m->lb[m->nlines] = p;
		m->ln[m->nlines] = n;
		m->nlines++;
		p += n + (nl ? 1 : 0);
	}
}

static void member_free(struct member *m)
{
	free(m->lb);
	free(m->ln);
	free(m->ctx);
}

void synth_scan_text(struct synth *s, int node, const char *text, size_t len)
{
	struct member m = {.s = s, .node = node, .scan = true};
	split_lines(&m, text, len);
	struct line l = {0};
	for (size_t i = 0; i < m.nlines; i++) {
		l.s = m.lb[i];
		l.n = m.ln[i];
		l.nsp = 0;
		scan_line(&m, &l, i);
	}
	free(l.sp);
	member_free(&m);
}

void tpl_compile_text(struct synth *s, int node, const char *text, size_t len, struct buf *tpl)
{
	struct member m = {.s = s, .node = node};
	split_lines(&m, text, len);
	struct line l = {0};
	for (size_t i = 0; i < m.nlines; i++) {
		l.s = m.lb[i];
		l.n = m.ln[i];
		l.nsp = 0;
		if (l.n > 0 && l.n < 65536)
			compile_line(&m, &l, i);
		bool nl = (size_t)(l.s + l.n - text) < len; /* a line break follows */
		emit_line(&l, nl ? 1 : 0, tpl);
	}
	free(l.sp);
	member_free(&m);
}

/* Path below the node directory: the torchrun run-id directory (the one
 * after "torchrun/"), host names, "rank_N" and "nccl.<host>.<pid>" in file
 * names. */
void tpl_compile_path(struct synth *s, int node, const char *rest, struct buf *tpl)
{
	struct member m = {.s = s, .node = node};
	struct line l = {.s = rest, .n = strlen(rest)};
	const char *tr = strstr(rest, "torchrun/");
	if (tr && (tr == rest || tr[-1] == '/')) {
		size_t b = (size_t)(tr - rest) + 9;
		size_t e = b;
		while (e < l.n && rest[e] != '/')
			e++;
		const char *us = memrchr(rest + b, '_', e - b);
		if (e > b && us)
			add(&l, b, e, SL_RUNID, node, (int64_t)(us + 1 - (rest + b)));
	}
	generic_rules(&m, &l);
	const char *base = strrchr(rest, '/');
	size_t bo = base ? (size_t)(base + 1 - rest) : 0;
	/* the last "rank<N>" / "rank_<N>" of the file name, as member_classify reads it */
	size_t last = NPOS;
	for (size_t x = bo; (x = find(rest, l.n, x, "rank")) != NPOS; x += 4)
		last = x;
	if (last != NPOS) {
		size_t d = last + 4;
		if (d < l.n && (rest[d] == '_' || rest[d] == '-' || rest[d] == '.'))
			d++;
		add_num(&l, d, false, SL_RANK, 0);
	}
	if (at(rest, l.n, bo, "nccl.")) {
		/* nccl.<host>.<pid>[.log] */
		size_t d = find(rest, l.n, bo + 5, ".");
		if (d != NPOS)
			add_num(&l, d + 1, false, SL_PID, 0);
	}
	emit_line(&l, 0, tpl);
	free(l.sp);
}
