/* synth.c: see synth.h. The steps:
 *   1. read the input job into memory (a real job: a few MB);
 *   2. scan it for the model: nodes and their ranks, processes, NCCL
 *      communicators, process groups (flight-recorder pg_config first);
 *   3. plan the copies and the new names;
 *   4. compile each member into a template once, then render and write
 *      every copy of every node to a .tar.gz through libarchive, one member
 *      in memory at a time. */
#include "synth.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_walk.h"
#include "member_classify.h"
#include "pickle_read.h"
#include "pickle_write.h"

#define INPUT_MAX_BYTES ((size_t)1 << 30) /* the input job is held in memory */
#define PID_LIMIT 4194304L                /* Linux pid_max */

/* ---- string map ---- */

struct smap_slot {
	char *key;
	size_t len;
	uint64_t hash;
	long value;
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static struct smap_slot *smap_slot(const struct smap *m, const char *key, size_t len, uint64_t h)
{
	size_t j = h & (m->cap - 1);
	for (;;) {
		struct smap_slot *sl = &m->slots[j];
		if (!sl->key || (sl->hash == h && sl->len == len && memcmp(sl->key, key, len) == 0))
			return sl;
		j = (j + 1) & (m->cap - 1);
	}
}

void smap_put(struct smap *m, const char *key, size_t len, long value)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct smap_slot *old = m->slots;
		size_t ocap = m->cap;
		m->slots = xcalloc(cap, sizeof(*m->slots));
		m->cap = cap;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].key)
				*smap_slot(m, old[i].key, old[i].len, old[i].hash) = old[i];
		free(old);
	}
	uint64_t h = hash_bytes(key, len);
	struct smap_slot *sl = smap_slot(m, key, len, h);
	if (!sl->key) {
		sl->key = xstrndup(key, len);
		sl->len = len;
		sl->hash = h;
		m->n++;
	}
	sl->value = value;
}

long smap_get(const struct smap *m, const char *key, size_t len)
{
	if (!m->cap)
		return -1;
	struct smap_slot *sl = smap_slot(m, key, len, hash_bytes(key, len));
	return sl->key ? sl->value : -1;
}

void smap_free(struct smap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slots[i].key);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

uint64_t syn_mix(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* ---- the input in memory ---- */

struct in_member {
	char *path;         /* below the root ("gpu-node01/console.log"); "" for the root itself */
	enum member_type type;
	int64_t mtime;
	char *link;
	struct buf data;
	int node;           /* -1: a root-level member, written once */
	bool text, pickle;
	struct pk_doc *doc; /* pickle */
	struct buf tpl;     /* text */
	struct buf path_tpl;
};

struct syn_scan {
	struct in_member *m;
	size_t n, cap;
	size_t bytes;
	/* per node: ranks seen, host names seen */
	struct node_obs {
		int *ranks;
		size_t nranks, cap;
		struct smap hosts;
	} *obs;
	/* NCCL init lines */
	struct init_obs {
		int comm, crank, node;
		long pid;
		bool world;
	} *inits;
	size_t ninits, cinits;
	/* c10 prefixes: group, global rank, rank in group */
	struct gm_obs {
		int group, rank, pg_rank;
	} *gms;
	size_t ngms, cgms;
	struct errbuf err;
	bool failed;
};

static int load_member(void *ctx, const struct member_info *mi, struct member_stream *ms)
{
	struct syn_scan *sc = ctx;
	xgrow(&sc->m, &sc->cap, sc->n + 1, sizeof(*sc->m));
	struct in_member *m = &sc->m[sc->n++];
	memset(m, 0, sizeof(*m));
	m->path = xstrdup(mi->path);
	size_t pl = strlen(m->path);
	while (pl > 0 && m->path[pl - 1] == '/')
		m->path[--pl] = '\0';
	m->type = mi->type;
	m->mtime = mi->mtime;
	m->link = mi->link_target ? xstrdup(mi->link_target) : NULL;
	m->node = -1;
	if (mi->type != MT_FILE)
		return 0;
	char tmp[65536];
	long r;
	while ((r = member_read(ms, tmp, sizeof(tmp))) > 0) {
		buf_append(&m->data, tmp, (size_t)r);
		sc->bytes += (size_t)r;
		if (sc->bytes > INPUT_MAX_BYTES) {
			errbuf_set(&sc->err, "the input job is larger than %zu MiB: synth clones small real jobs",
				   INPUT_MAX_BYTES >> 20);
			sc->failed = true;
			return -1;
		}
	}
	if (r < 0) {
		errbuf_set(&sc->err, "%s: %s", mi->path, ms->err.msg);
		sc->failed = true;
		return -1;
	}
	return 0;
}

static void load_error(void *ctx, const char *path, const char *msg)
{
	struct syn_scan *sc = ctx;
	errbuf_set(&sc->err, "%s: %s", path, msg);
	sc->failed = true;
}

/* ---- what the scan reports ---- */

void syn_rank_on_node(struct synth *s, int node, int rank)
{
	if (node < 0 || rank < 0 || rank > 10000000)
		return;
	struct node_obs *o = &s->scan->obs[node];
	for (size_t i = 0; i < o->nranks; i++)
		if (o->ranks[i] == rank)
			return;
	xgrow(&o->ranks, &o->cap, o->nranks + 1, sizeof(*o->ranks));
	o->ranks[o->nranks++] = rank;
}

void syn_host_on_node(struct synth *s, int node, const char *host, size_t len)
{
	if (node < 0 || !len)
		return;
	struct smap *h = &s->scan->obs[node].hosts;
	long v = smap_get(h, host, len);
	smap_put(h, host, len, v < 0 ? 1 : v + 1);
}

void syn_note_init(struct synth *s, int comm, int crank, int node, long pid, bool world)
{
	struct syn_scan *sc = s->scan;
	xgrow(&sc->inits, &sc->cinits, sc->ninits + 1, sizeof(*sc->inits));
	sc->inits[sc->ninits++] = (struct init_obs){comm, crank, node, pid, world};
}

int syn_group_note(struct synth *s, const char *guid, size_t gl, const char *desc, size_t dl)
{
	long g = -1;
	if (guid && gl)
		g = smap_get(&s->group_by_guid, guid, gl);
	if (g < 0 && desc && dl && !(gl == 0 && dl == 9 && memcmp(desc, "undefined", 9) == 0))
		g = smap_get(&s->group_by_desc, desc, dl);
	if (g < 0) {
		if (!guid || !gl) {
			guid = desc; /* a group known by its description only */
			gl = dl;
		}
		if (!guid || !gl)
			return -1;
		g = (long)s->ngroups;
		s->groups = xrealloc(s->groups, (s->ngroups + 1) * sizeof(*s->groups));
		struct syn_group *gr = &s->groups[s->ngroups++];
		memset(gr, 0, sizeof(*gr));
		gr->guid = xstrndup(guid, gl);
		gr->desc = desc && dl ? xstrndup(desc, dl) : xstrdup("");
		gr->node = -1;
		smap_put(&s->group_by_guid, guid, gl, g);
	}
	struct syn_group *gr = &s->groups[g];
	if (guid && gl && strcmp(gr->guid, gr->desc) == 0 && (gl != strlen(gr->guid) || memcmp(guid, gr->guid, gl))) {
		/* known by its description so far: now its GUID */
		free(gr->guid);
		gr->guid = xstrndup(guid, gl);
		smap_put(&s->group_by_guid, guid, gl, g);
	}
	if (!gr->desc[0] && desc && dl) {
		free(gr->desc);
		gr->desc = xstrndup(desc, dl);
	}
	if (gr->desc[0] && strcmp(gr->desc, "undefined") != 0)
		smap_put(&s->group_by_desc, gr->desc, strlen(gr->desc), g);
	return (int)g;
}

void syn_group_member(struct synth *s, int group, int rank, int pg_rank)
{
	struct syn_scan *sc = s->scan;
	xgrow(&sc->gms, &sc->cgms, sc->ngms + 1, sizeof(*sc->gms));
	sc->gms[sc->ngms++] = (struct gm_obs){group, rank, pg_rank};
}

/* ---- mapping ---- */

void syn_host_name(const struct synth *s, int node, int copy, struct buf *out)
{
	const struct syn_node *nd = &s->nodes[node];
	if (s->host_prefix[0]) {
		long num = nd->host_num + (long)copy * (long)s->knodes;
		buf_printf(out, "%s%0*ld", s->host_prefix, s->host_width, num);
	} else if (copy == 0) {
		buf_puts(out, nd->host);
	} else {
		buf_printf(out, "%s-c%d", nd->host, copy);
	}
}

long syn_pid(const struct synth *s, long pid, int copy)
{
	if (copy == 0)
		return pid;
	long span = PID_LIMIT - s->pid_stride - s->max_pid;
	if (span < s->pid_stride)
		span = s->pid_stride;
	return pid + ((long)copy * s->pid_stride) % span;
}

int syn_comm_rank(const struct synth *s, int comm, int rank, int copy)
{
	const struct syn_comm *c = &s->comms[comm];
	if (c->local || rank < 0 || rank >= c->nranks)
		return rank;
	return copy * c->nranks + rank;
}

int syn_group_rank(const struct synth *s, int group, int rank, int copy)
{
	const struct syn_group *g = &s->groups[group];
	if (g->local || rank < 0 || (size_t)rank >= g->nranks)
		return rank;
	return copy * (int)g->nranks + rank;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

void syn_guid(const struct synth *s, int group, int copy, struct buf *out)
{
	const struct syn_group *g = &s->groups[group];
	if (g->new_guid >= 0 && !g->local) {
		buf_printf(out, "%ld", g->new_guid);
	} else if (g->local && g->run_len > 0) {
		long v = copy < s->full_copies ? g->run_base + (long)copy * g->run_len + g->run_pos
						: g->run_base + (long)s->full_copies * g->run_len + g->run_ppos;
		buf_printf(out, "%ld", v);
	} else if (!g->local || copy == 0) {
		buf_puts(out, g->guid);
	} else {
		buf_printf(out, "%s_c%d", g->guid, copy);
	}
}

void syn_desc(const struct synth *s, int group, int copy, struct buf *out)
{
	const struct syn_group *g = &s->groups[group];
	if (!g->local || (copy == 0 && g->desc_span == 0)) {
		buf_puts(out, g->desc);
	} else if (g->desc_span > 0) {
		buf_printf(out, "%.*s%ld", (int)g->desc_prefix, g->desc, g->desc_num + (long)copy * g->desc_span);
	} else {
		buf_printf(out, "%s_c%d", g->desc, copy);
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* ---- flight-recorder dumps ---- */

/* "[0, 1, 2]" -> ints */
static size_t parse_rank_list(const char *s, size_t n, int **out)
{
	size_t cnt = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < n;) {
		if (isdigit((unsigned char)s[i])) {
			long v = 0;
			while (i < n && isdigit((unsigned char)s[i]) && v < 100000000)
				v = v * 10 + (s[i++] - '0');
			xgrow(out, &cap, cnt + 1, sizeof(**out));
			(*out)[cnt++] = (int)v;
		} else {
			i++;
		}
	}
	return cnt;
}

static void scan_pickle(struct synth *s, struct in_member *m)
{
	struct errbuf err;
	m->doc = pickle_read_mem(m->data.data, m->data.len, NULL, &err);
	if (!m->doc) {
		diag_input(m->path, 0, "flight recorder: %s (copied as it is)", err.msg);
		return;
	}
	const struct pk_value *root = pk_root(m->doc);
	const struct pk_value *cfg = pk_get(root, "pg_config");
	for (size_t i = 0; i < pk_len(cfg); i++) {
		size_t gl, dl = 0, rl = 0;
		const char *guid = pk_str(pk_key(cfg, i), &gl);
		const struct pk_value *v = pk_item(cfg, i);
		const char *desc = pk_str(pk_get(v, "desc"), &dl);
		const char *ranks = pk_str(pk_get(v, "ranks"), &rl);
		if (!guid)
			continue;
		int g = syn_group_note(s, guid, gl, desc, dl);
		if (g < 0 || !ranks)
			continue;
		struct syn_group *gr = &s->groups[g];
		if (!gr->members_known) {
			gr->nranks = parse_rank_list(ranks, rl, &gr->ranks);
			gr->members_known = true;
		}
	}
	int64_t r;
	if (pk_int(pk_get(root, "rank"), &r))
		syn_rank_on_node(s, m->node, (int)r);
}

static void fr_group_ranks(const struct synth *s, const struct syn_group *g, int copy, struct buf *out)
{
	if (!g->local && g->ranks_str) {
		buf_puts(out, g->ranks_str);
		return;
	}
	buf_putc(out, '[');
	for (size_t i = 0; i < g->nranks; i++)
		buf_printf(out, "%s%d", i ? ", " : "", g->ranks[i] + (g->local ? copy * s->world : 0));
	buf_putc(out, ']');
}

static bool key_is(const struct pk_value *k, const char *name)
{
	size_t n;
	const char *s = pk_str(k, &n);
	return s && n == strlen(name) && memcmp(s, name, n) == 0;
}

static int fr_group(const struct synth *s, const struct pk_value *guid)
{
	size_t n;
	const char *g = pk_str(guid, &n);
	return g ? (int)smap_get(&s->group_by_guid, g, n) : -1;
}

static void fr_write(const struct synth *s, const struct pk_value *root, int copy, struct buf *out)
{
	struct pk_writer w;
	struct buf t = {0};
	pkw_begin(&w, out);
	if (pk_type(root) != PK_DICT) {
		pkw_value(&w, root);
		pkw_end(&w);
		return;
	}
	pkw_dict_begin(&w);
	for (size_t i = 0; i < pk_len(root); i++) {
		const struct pk_value *k = pk_key(root, i), *v = pk_item(root, i);
		pkw_value(&w, k);
		int64_t r;
		if (key_is(k, "pg_config") && pk_type(v) == PK_DICT) {
			pkw_dict_begin(&w);
			for (size_t j = 0; j < pk_len(v); j++) {
				const struct pk_value *gk = pk_key(v, j), *gv = pk_item(v, j);
				int g = fr_group(s, gk);
				if (g < 0 || pk_type(gv) != PK_DICT) {
					pkw_value(&w, gk);
					pkw_value(&w, gv);
					continue;
				}
				buf_clear(&t);
				syn_guid(s, g, copy, &t);
				pkw_str(&w, t.data, t.len);
				pkw_dict_begin(&w);
				for (size_t q = 0; q < pk_len(gv); q++) {
					const struct pk_value *fk = pk_key(gv, q);
					pkw_value(&w, fk);
					buf_clear(&t);
					if (key_is(fk, "name"))
						syn_guid(s, g, copy, &t);
					else if (key_is(fk, "desc"))
						syn_desc(s, g, copy, &t);
					else if (key_is(fk, "ranks") && s->groups[g].members_known)
						fr_group_ranks(s, &s->groups[g], copy, &t);
					else {
						pkw_value(&w, pk_item(gv, q));
						continue;
					}
					pkw_str(&w, t.data ? t.data : "", t.len);
				}
				pkw_dict_end(&w);
			}
			pkw_dict_end(&w);
		} else if (key_is(k, "entries") && pk_type(v) == PK_LIST) {
			pkw_list_begin(&w);
			for (size_t j = 0; j < pk_len(v); j++) {
				const struct pk_value *e = pk_item(v, j);
				if (pk_type(e) != PK_DICT) {
					pkw_value(&w, e);
					continue;
				}
				pkw_dict_begin(&w);
				for (size_t q = 0; q < pk_len(e); q++) {
					const struct pk_value *fk = pk_key(e, q), *fv = pk_item(e, q);
					pkw_value(&w, fk);
					int g;
					if (key_is(fk, "process_group") && pk_len(fv) >= 2 &&
					    (g = fr_group(s, pk_item(fv, 0))) >= 0) {
						pkw_tuple_begin(&w);
						buf_clear(&t);
						syn_guid(s, g, copy, &t);
						pkw_str(&w, t.data, t.len);
						buf_clear(&t);
						syn_desc(s, g, copy, &t);
						pkw_str(&w, t.data ? t.data : "", t.len);
						for (size_t z = 2; z < pk_len(fv); z++)
							pkw_value(&w, pk_item(fv, z));
						pkw_tuple_end(&w);
					} else {
						pkw_value(&w, fv);
					}
				}
				pkw_dict_end(&w);
			}
			pkw_list_end(&w);
		} else if (key_is(k, "rank") && pk_type(v) == PK_INT && pk_int(v, &r)) {
			pkw_int(&w, r + (int64_t)copy * s->world);
		} else {
			pkw_value(&w, v);
		}
	}
	pkw_dict_end(&w);
	pkw_end(&w);
	buf_free(&t);
}

/* ---- the model ---- */

/* Splits paths into root and node directories. */
static void find_layout(struct synth *s, struct syn_scan *sc)
{
	/* a common first component that is a directory is the job root */
	const char *first = NULL;
	size_t fl = 0;
	bool common = sc->n > 0;
	for (size_t i = 0; i < sc->n && common; i++) {
		const char *p = sc->m[i].path;
		const char *sl = strchr(p, '/');
		size_t l = sl ? (size_t)(sl - p) : strlen(p);
		if (!first) {
			first = p;
			fl = l;
		} else if (l != fl || memcmp(p, first, l) != 0) {
			common = false;
		}
		if (!sl && sc->m[i].type != MT_DIR)
			common = false; /* a file at the top: no root directory */
	}
	s->root = common ? xasprintf("%.*s/", (int)fl, first) : xstrdup("");
	size_t rl = strlen(s->root);
	struct smap dirs = {0};
	for (size_t i = 0; i < sc->n; i++) {
		struct in_member *m = &sc->m[i];
		char *rel = xstrdup(strlen(m->path) >= rl ? m->path + rl : "");
		free(m->path);
		m->path = rel;
		const char *sl = strchr(rel, '/');
		if (!sl)
			continue; /* the root, a root-level file, or a node directory entry itself */
		long k = smap_get(&dirs, rel, (size_t)(sl - rel));
		if (k < 0) {
			k = (long)s->nnodes;
			s->nodes = xrealloc(s->nodes, (s->nnodes + 1) * sizeof(*s->nodes));
			memset(&s->nodes[s->nnodes], 0, sizeof(s->nodes[0]));
			s->nodes[s->nnodes].dir = xstrndup(rel, (size_t)(sl - rel));
			s->nnodes++;
			smap_put(&dirs, rel, (size_t)(sl - rel), k);
		}
		m->node = (int)k;
	}
	/* a node's directory entry belongs to it too */
	for (size_t i = 0; i < sc->n; i++) {
		struct in_member *m = &sc->m[i];
		if (m->node < 0 && m->type == MT_DIR && m->path[0])
			m->node = (int)smap_get(&dirs, m->path, strlen(m->path));
	}
	smap_free(&dirs);
}

static bool trailing_number(const char *h, size_t *prefix, long *num, size_t *digits)
{
	size_t n = strlen(h), i = n;
	while (i > 0 && isdigit((unsigned char)h[i - 1]))
		i--;
	if (i == n || i == 0 || n - i > 9)
		return false;
	*prefix = i;
	*num = strtol(h + i, NULL, 10);
	*digits = n - i;
	return true;
}

static int resolve_nodes(struct synth *s, struct syn_scan *sc, struct errbuf *err)
{
	/* directories that show no rank are copied once, like root-level files */
	s->knodes = 0;
	for (size_t k = 0; k < s->nnodes; k++) {
		s->nodes[k].real = sc->obs[k].nranks > 0;
		s->knodes += s->nodes[k].real;
	}
	for (size_t i = 0; i < sc->n; i++)
		if (sc->m[i].node >= 0 && !s->nodes[sc->m[i].node].real)
			sc->m[i].node = -1;
	if (!s->knodes)
		return errbuf_set(err, "no node directory with ranks found (expected <job>/<host>/... with rank logs)");

	int maxr = -1;
	for (size_t k = 0; k < s->nnodes; k++) {
		struct syn_node *nd = &s->nodes[k];
		struct node_obs *o = &sc->obs[k];
		if (!nd->real) {
			nd->host = xstrdup(nd->dir);
			nd->index = -1;
			continue;
		}
		xqsort(o->ranks, o->nranks, sizeof(int), cmp_int);
		nd->first_rank = o->ranks[0];
		nd->nranks = (int)o->nranks;
		if (o->ranks[o->nranks - 1] - o->ranks[0] + 1 != (int)o->nranks)
			return errbuf_set(err, "node %s holds ranks %d..%d with gaps: ranks per node must be contiguous",
					  nd->dir, o->ranks[0], o->ranks[o->nranks - 1]);
		if (o->ranks[o->nranks - 1] > maxr)
			maxr = o->ranks[o->nranks - 1];
		/* its host: the name NCCL printed most, else the directory */
		long best = 0;
		const char *host = nd->dir;
		for (size_t i = 0; i < o->hosts.cap; i++)
			if (o->hosts.slots[i].key && o->hosts.slots[i].value > best) {
				best = o->hosts.slots[i].value;
				host = o->hosts.slots[i].key;
			}
		nd->host = xstrdup(host);
	}
	s->world = maxr + 1;
	/* rank order; every rank on exactly one node */
	int *owner = xmalloc((size_t)s->world * sizeof(int));
	for (int r = 0; r < s->world; r++)
		owner[r] = -1;
	for (size_t k = 0; k < s->nnodes; k++)
		for (int r = s->nodes[k].first_rank; s->nodes[k].real && r < s->nodes[k].first_rank + s->nodes[k].nranks;
		     r++) {
			if (owner[r] >= 0) {
				int other = owner[r];
				free(owner);
				return errbuf_set(err, "rank %d shows up on nodes %s and %s", r, s->nodes[other].dir,
						  s->nodes[k].dir);
			}
			owner[r] = (int)k;
		}
	for (int r = 0; r < s->world; r++)
		if (owner[r] < 0) {
			free(owner);
			return errbuf_set(err, "rank %d is on no node (world size %d)", r, s->world);
		}
	free(owner);
	for (size_t k = 0; k < s->nnodes; k++) {
		if (!s->nodes[k].real)
			continue;
		int idx = 0;
		for (size_t j = 0; j < s->nnodes; j++)
			if (s->nodes[j].real && s->nodes[j].first_rank < s->nodes[k].first_rank)
				idx++;
		s->nodes[k].index = idx;
	}
	/* numbered host names when every host is <prefix><number> with one prefix */
	size_t pl0 = 0, dg, maxdg = 0;
	long num, minnum = 0, maxnum = 0;
	bool numbered = true, padded = false;
	const char *h0 = NULL;
	for (size_t k = 0; k < s->nnodes && numbered; k++) {
		size_t pl;
		const char *h = s->nodes[k].host;
		if (!s->nodes[k].real)
			continue;
		if (!trailing_number(h, &pl, &num, &dg) || (h0 && (pl != pl0 || memcmp(h, h0, pl) != 0)) ||
		    pl >= sizeof(s->host_prefix)) {
			numbered = false;
			break;
		}
		s->nodes[k].host_num = num;
		if (h[pl] == '0' && dg > 1)
			padded = true;
		if (dg > maxdg)
			maxdg = dg;
		if (!h0 || num < minnum)
			minnum = num;
		if (!h0 || num > maxnum)
			maxnum = num;
		pl0 = pl;
		h0 = h;
	}
	if (numbered && h0 && maxnum - minnum + 1 == (long)s->knodes) {
		memcpy(s->host_prefix, h0, pl0);
		s->host_prefix[pl0] = '\0';
		s->host_num_min = minnum;
		s->host_width = padded ? (int)maxdg : 0;
	} else {
		s->host_prefix[0] = '\0';
		for (size_t k = 0; k < s->nnodes; k++)
			s->nodes[k].host_num = -1;
	}
	return 0;
}

static int node_of_rank(const struct synth *s, int rank)
{
	for (size_t k = 0; k < s->nnodes; k++)
		if (s->nodes[k].real && rank >= s->nodes[k].first_rank && rank < s->nodes[k].first_rank + s->nodes[k].nranks)
			return (int)k;
	return -1;
}

/* The real node with this rank-order index. */
static size_t node_at(const struct synth *s, int idx)
{
	for (size_t k = 0; k < s->nnodes; k++)
		if (s->nodes[k].real && s->nodes[k].index == idx)
			return k;
	die("synth: no node at index %d", idx);
}

static int plan(struct synth *s, struct errbuf *err)
{
	long N = s->o->ranks;
	s->ranks = N;
	s->full_copies = (int)(N / s->world);
	s->rem_ranks = (int)(N % s->world);
	int acc = 0, below = 0;
	s->rem_nodes = 0;
	for (int idx = 0; idx < s->knodes && acc < s->rem_ranks; idx++) {
		below = acc;
		acc += s->nodes[node_at(s, idx)].nranks;
		s->rem_nodes++;
	}
	if (acc != s->rem_ranks)
		return errbuf_set(err, "%ld ranks is not a number of whole nodes (the job has %d ranks on %d nodes); "
				  "%ld or %ld would be", N, s->world, s->knodes, N - s->rem_ranks + below,
				  N - s->rem_ranks + acc);
	if (N <= 0)
		return errbuf_set(err, "--ranks must be positive");
	s->copies = s->full_copies + (s->rem_nodes > 0);
	s->total_nodes = s->full_copies * s->knodes + s->rem_nodes;
	if (s->host_prefix[0]) {
		long maxnum = s->host_num_min + s->total_nodes - 1;
		int d = snprintf(NULL, 0, "%ld", maxnum);
		if (s->host_width && d > s->host_width)
			s->host_width = d;
	}
	long stride = ((s->max_pid + 1) + 999) / 1000 * 1000;
	s->pid_stride = stride < 1000 ? 1000 : stride;
	return 0;
}

/* in the partial last copy? */
static bool rank_in_partial(const struct synth *s, int rank)
{
	return rank < s->rem_ranks;
}

static void resolve_comms(struct synth *s, struct syn_scan *sc)
{
	/* the world communicator: an InitRank one with the most ranks */
	int world = -1;
	for (size_t i = 0; i < sc->ninits; i++)
		if (sc->inits[i].world && (world < 0 || s->comms[sc->inits[i].comm].nranks > s->comms[world].nranks))
			world = sc->inits[i].comm;
	char key[64];
	if (world >= 0 && s->comms[world].nranks == s->world)
		for (size_t i = 0; i < sc->ninits; i++)
			if (sc->inits[i].comm == world) {
				int k = snprintf(key, sizeof(key), "%d:%ld", sc->inits[i].node, sc->inits[i].pid);
				if (smap_get(&s->proc_rank, key, (size_t)k) < 0)
					smap_put(&s->proc_rank, key, (size_t)k, sc->inits[i].crank);
			}
	for (size_t i = 0; i < sc->ninits; i++) {
		struct init_obs *o = &sc->inits[i];
		struct syn_comm *c = &s->comms[o->comm];
		int k = snprintf(key, sizeof(key), "%d:%ld", o->node, o->pid);
		long r = smap_get(&s->proc_rank, key, (size_t)k);
		if (o->crank >= 0 && o->crank < c->nranks && r >= 0)
			c->members[o->crank] = (int)r;
		if (c->node == -1)
			c->node = o->node;
		else if (c->node != o->node)
			c->node = -2; /* on several nodes */
	}
	for (size_t i = 0; i < s->ncomms; i++) {
		struct syn_comm *c = &s->comms[i];
		c->local = c->node >= 0 && c->nnodes <= 1;
		if (c->local) {
			c->new_size = c->nranks;
			c->new_nnodes = c->nnodes;
			continue;
		}
		int nodes = c->nnodes > 0 ? c->nnodes : 1;
		int in_partial = 0, pnodes = 0;
		int seen[64];
		int nseen = 0;
		for (int m = 0; m < c->nranks; m++) {
			int r = c->members[m];
			bool part = r >= 0 ? rank_in_partial(s, r) : (long)m * s->world < (long)s->rem_ranks * c->nranks;
			if (!part)
				continue;
			in_partial++;
			int nd = r >= 0 ? node_of_rank(s, r) : -1 - m;
			bool dup = false;
			for (int q = 0; q < nseen; q++)
				dup |= seen[q] == nd;
			if (!dup && nseen < 64)
				seen[nseen++] = nd;
		}
		pnodes = nseen;
		c->new_size = s->full_copies * c->nranks + in_partial;
		c->new_nnodes = s->full_copies * nodes + (pnodes < nodes ? pnodes : nodes);
	}
}

static void resolve_groups(struct synth *s, struct syn_scan *sc)
{
	/* members seen only in log prefixes */
	for (size_t g = 0; g < s->ngroups; g++) {
		struct syn_group *gr = &s->groups[g];
		if (gr->members_known)
			continue;
		if (strcmp(gr->desc, "default_pg") == 0) {
			gr->nranks = (size_t)s->world;
			gr->ranks = xmalloc(gr->nranks * sizeof(int));
			for (int r = 0; r < s->world; r++)
				gr->ranks[r] = r;
			gr->members_known = true;
			continue;
		}
		size_t cap = 0;
		for (size_t i = 0; i < sc->ngms; i++) {
			if (sc->gms[i].group != (int)g)
				continue;
			bool dup = false;
			for (size_t j = 0; j < gr->nranks; j++)
				dup |= gr->ranks[j] == sc->gms[i].rank;
			if (dup)
				continue;
			xgrow(&gr->ranks, &cap, gr->nranks + 1, sizeof(int));
			gr->ranks[gr->nranks++] = sc->gms[i].rank;
		}
		xqsort(gr->ranks, gr->nranks, sizeof(int), cmp_int);
	}
	for (size_t g = 0; g < s->ngroups; g++) {
		struct syn_group *gr = &s->groups[g];
		int node = -1;
		bool one = gr->nranks > 0;
		for (size_t i = 0; i < gr->nranks; i++) {
			int nd = node_of_rank(s, gr->ranks[i]);
			if (node == -1)
				node = nd;
			else if (nd != node)
				one = false;
		}
		/* one observed member of an unknown group: spanning unless its
		 * name says it is one of a family of local groups (below) */
		gr->local = one && (gr->members_known || gr->nranks > 1);
		gr->node = gr->local ? node : -1;
		gr->new_guid = -1;
	}
	/* description families: <prefix><num> local groups renumber per copy */
	for (size_t g = 0; g < s->ngroups; g++) {
		struct syn_group *gr = &s->groups[g];
		size_t pl, dg;
		long num;
		if (!trailing_number(gr->desc, &pl, &num, &dg))
			continue;
		if (!gr->local) {
			/* an unknown one-member group whose family is local is local too */
			bool fam_local = false;
			for (size_t h = 0; h < s->ngroups; h++) {
				size_t pl2, dg2;
				long n2;
				if (h != g && s->groups[h].local && trailing_number(s->groups[h].desc, &pl2, &n2, &dg2) &&
				    pl2 == pl && memcmp(s->groups[h].desc, gr->desc, pl) == 0)
					fam_local = true;
			}
			if (!(fam_local && !gr->members_known && gr->nranks == 1))
				continue;
			gr->local = true;
			gr->node = node_of_rank(s, gr->ranks[0]);
		}
		gr->desc_prefix = pl;
		gr->desc_num = num;
	}
	for (size_t g = 0; g < s->ngroups; g++) {
		struct syn_group *gr = &s->groups[g];
		if (!gr->local || !gr->desc_prefix)
			continue;
		long span = 0;
		for (size_t h = 0; h < s->ngroups; h++) {
			const struct syn_group *o = &s->groups[h];
			if (o->local && o->desc_prefix == gr->desc_prefix &&
			    memcmp(o->desc, gr->desc, gr->desc_prefix) == 0 && o->desc_num + 1 > span)
				span = o->desc_num + 1;
		}
		gr->desc_span = span;
	}
	/* new GUIDs when they are numbers (PyTorch numbers groups in creation
	 * order: the copies of a run of local groups come one copy after the
	 * other, as if each new node had created its own) */
	bool numeric = s->ngroups > 0;
	for (size_t g = 0; g < s->ngroups; g++)
		numeric &= all_digits(s->groups[g].guid);
	if (numeric) {
		size_t *ord = xmalloc(s->ngroups * sizeof(size_t));
		for (size_t g = 0; g < s->ngroups; g++)
			ord[g] = g;
		for (size_t i = 1; i < s->ngroups; i++) /* insertion sort by number */
			for (size_t j = i; j > 0 && atol(s->groups[ord[j - 1]].guid) > atol(s->groups[ord[j]].guid); j--) {
				size_t t = ord[j];
				ord[j] = ord[j - 1];
				ord[j - 1] = t;
			}
		long next = atol(s->groups[ord[0]].guid), prev = next - 1;
		for (size_t i = 0; i < s->ngroups;) {
			struct syn_group *gr = &s->groups[ord[i]];
			long orig = atol(gr->guid);
			next += orig - prev - 1; /* keep gaps */
			if (!gr->local) {
				gr->new_guid = next++;
				prev = orig;
				i++;
				continue;
			}
			size_t j = i;
			while (j < s->ngroups && s->groups[ord[j]].local &&
			       (j == i || atol(s->groups[ord[j]].guid) == atol(s->groups[ord[j - 1]].guid) + 1))
				j++;
			long len = (long)(j - i), ppos = 0;
			for (size_t q = i; q < j; q++) {
				struct syn_group *lg = &s->groups[ord[q]];
				lg->run_base = next;
				lg->run_len = len;
				lg->run_pos = (long)(q - i);
				bool present = lg->node >= 0 && s->nodes[lg->node].first_rank < s->rem_ranks;
				lg->run_ppos = present ? ppos++ : -1;
			}
			next += (long)s->full_copies * len + ppos;
			prev = atol(s->groups[ord[j - 1]].guid);
			i = j;
		}
		free(ord);
	}
	/* the member list of spanning groups, once */
	struct buf b = {0};
	for (size_t g = 0; g < s->ngroups; g++) {
		struct syn_group *gr = &s->groups[g];
		if (gr->local || !gr->members_known)
			continue;
		buf_clear(&b);
		buf_putc(&b, '[');
		bool first = true;
		for (int c = 0; c < s->copies; c++)
			for (size_t i = 0; i < gr->nranks; i++) {
				if (c == s->full_copies && !rank_in_partial(s, gr->ranks[i]))
					continue;
				buf_printf(&b, "%s%d", first ? "" : ", ", gr->ranks[i] + c * s->world);
				first = false;
			}
		buf_putc(&b, ']');
		gr->ranks_str = xstrdup(b.data);
	}
	buf_free(&b);
}

/* ---- output ---- */

struct out_stats {
	uint64_t members, text_bytes, lines, bytes;
};

static int write_entry(struct archive *a, struct archive_entry *e, const char *path, const struct in_member *m,
		       const void *data, size_t len, struct errbuf *err)
{
	archive_entry_clear(e);
	archive_entry_set_pathname(e, path);
	archive_entry_set_mtime(e, m->mtime, 0);
	if (m->type == MT_DIR) {
		archive_entry_set_filetype(e, AE_IFDIR);
		archive_entry_set_perm(e, 0755);
	} else if (m->type == MT_SYMLINK) {
		archive_entry_set_filetype(e, AE_IFLNK);
		archive_entry_set_perm(e, 0777);
		archive_entry_set_symlink(e, m->link ? m->link : "");
	} else {
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, (la_int64_t)len);
	}
	if (archive_write_header(a, e) != ARCHIVE_OK)
		return errbuf_set(err, "%s", archive_error_string(a));
	if (m->type == MT_FILE && len) {
		la_ssize_t w = archive_write_data(a, data, len);
		if (w < 0 || (size_t)w != len)
			return errbuf_set(err, "%s", archive_error_string(a) ? archive_error_string(a) : "short write");
	}
	return 0;
}

static uint64_t count_lines(const char *p, size_t n)
{
	uint64_t k = 0;
	for (const char *q = p, *end = p + n; (q = memchr(q, '\n', (size_t)(end - q))); q++)
		k++;
	return k + (n && p[n - 1] != '\n');
}

static int write_output(struct synth *s, struct syn_scan *sc, const char *tmp, struct out_stats *st,
			struct errbuf *err)
{
	struct archive *a = archive_write_new();
	archive_write_add_filter_gzip(a);
	/* no time in the gzip header: the same input and seed give the same bytes */
	archive_write_set_filter_option(a, "gzip", "timestamp", NULL);
	archive_write_set_format_pax_restricted(a);
	if (archive_write_open_filename(a, tmp) != ARCHIVE_OK) {
		errbuf_set(err, "%s", archive_error_string(a));
		archive_write_free(a);
		return -1;
	}
	struct archive_entry *e = archive_entry_new();
	struct buf path = {0}, data = {0};
	int rc = 0;
	/* root-level members once, then every copy of every node in rank order */
	for (size_t i = 0; i < sc->n && rc == 0; i++) {
		struct in_member *m = &sc->m[i];
		if (m->node >= 0)
			continue;
		buf_clear(&path);
		buf_printf(&path, "%s%s", s->root, m->path);
		if (m->type == MT_DIR && path.len && path.data[path.len - 1] == '/')
			path.data[--path.len] = '\0';
		rc = write_entry(a, e, path.data, m, m->data.data, m->data.len, err);
		st->members++;
		if (m->text) {
			st->text_bytes += m->data.len;
			st->lines += count_lines(m->data.data, m->data.len);
		}
	}
	for (int c = 0; c < s->copies && rc == 0; c++)
		for (int idx = 0; idx < s->knodes && rc == 0; idx++) {
			size_t k = node_at(s, idx);
			if (c == s->full_copies && s->nodes[k].first_rank >= s->rem_ranks)
				continue;
			for (size_t i = 0; i < sc->n && rc == 0; i++) {
				struct in_member *m = &sc->m[i];
				if (m->node != (int)k)
					continue;
				buf_clear(&path);
				buf_puts(&path, s->root);
				tpl_render(s, (const unsigned char *)m->path_tpl.data, m->path_tpl.len, c, &path);
				buf_clear(&data);
				if (m->doc)
					fr_write(s, pk_root(m->doc), c, &data);
				else if (m->text)
					tpl_render(s, (const unsigned char *)m->tpl.data, m->tpl.len, c, &data);
				else if (m->data.len)
					buf_append(&data, m->data.data, m->data.len);
				rc = write_entry(a, e, path.data, m, data.data, data.len, err);
				st->members++;
				if (m->text) {
					st->text_bytes += data.len;
					st->lines += count_lines(data.data, data.len);
				}
			}
		}
	if (archive_write_close(a) != ARCHIVE_OK && rc == 0)
		rc = errbuf_set(err, "%s", archive_error_string(a));
	archive_entry_free(e);
	archive_write_free(a);
	buf_free(&path);
	buf_free(&data);
	return rc;
}

/* ---- the run ---- */

static void synth_free(struct synth *s, struct syn_scan *sc)
{
	for (size_t i = 0; i < sc->n; i++) {
		struct in_member *m = &sc->m[i];
		free(m->path);
		free(m->link);
		buf_free(&m->data);
		buf_free(&m->tpl);
		buf_free(&m->path_tpl);
		pk_doc_free(m->doc);
	}
	free(sc->m);
	if (sc->obs)
		for (size_t k = 0; k < s->nnodes; k++) {
			free(sc->obs[k].ranks);
			smap_free(&sc->obs[k].hosts);
		}
	free(sc->obs);
	free(sc->inits);
	free(sc->gms);
	for (size_t k = 0; k < s->nnodes; k++) {
		free(s->nodes[k].dir);
		free(s->nodes[k].host);
	}
	free(s->nodes);
	for (size_t g = 0; g < s->ngroups; g++) {
		free(s->groups[g].guid);
		free(s->groups[g].desc);
		free(s->groups[g].ranks);
		free(s->groups[g].ranks_str);
	}
	free(s->groups);
	for (size_t c = 0; c < s->ncomms; c++)
		free(s->comms[c].members);
	free(s->comms);
	smap_free(&s->group_by_guid);
	smap_free(&s->group_by_desc);
	smap_free(&s->comm_by_key);
	smap_free(&s->comm_by_ptr);
	smap_free(&s->proc_rank);
	smap_free(&s->pids);
	free(s->root);
}

int synth_run(const struct synth_opts *o)
{
	struct synth s = {.o = o};
	struct syn_scan sc = {0};
	s.scan = &sc;
	struct errbuf err = {{0}};
	int rc = NF_EXIT_OK;
	char *tmp = NULL;

	struct walk_limits lim;
	walk_default_limits(&lim);
	struct walk_sink sink = {.member = load_member, .error = load_error, .ctx = &sc};
	struct walk_stats ws = {0};
	if (walk_input(o->from, &lim, &sink, &ws, &err) < 0 || sc.failed) {
		diag_error("synth: %s: %s", o->from, err.msg[0] ? err.msg : sc.err.msg);
		rc = NF_EXIT_INPUT;
		goto out;
	}
	find_layout(&s, &sc);
	sc.obs = xcalloc(s.nnodes + 1, sizeof(*sc.obs));
	/* pass 1: the model */
	for (size_t i = 0; i < sc.n; i++) {
		struct in_member *m = &sc.m[i];
		if (m->type != MT_FILE)
			continue;
		struct member_class mc;
		member_classify(m->path, (const unsigned char *)m->data.data, m->data.len < 4096 ? m->data.len : 4096, &mc);
		m->pickle = mc.kind == SK_FLIGHT_RECORDER;
		m->text = !m->pickle && mc.kind != SK_BINARY;
		if (m->node < 0)
			continue;
		if (m->pickle) {
			if (mc.path_rank >= 0)
				syn_rank_on_node(&s, m->node, mc.path_rank);
		} else if (m->text) {
			synth_scan_text(&s, m->node, m->data.data, m->data.len);
		}
	}
	for (size_t i = 0; i < sc.n; i++)
		if (sc.m[i].pickle && sc.m[i].node >= 0)
			scan_pickle(&s, &sc.m[i]);
	if (resolve_nodes(&s, &sc, &err) < 0 || plan(&s, &err) < 0) {
		diag_error("synth: %s: %s", o->from, err.msg);
		rc = NF_EXIT_INPUT;
		goto out;
	}
	resolve_comms(&s, &sc);
	resolve_groups(&s, &sc);
	/* pass 2: templates */
	for (size_t i = 0; i < sc.n; i++) {
		struct in_member *m = &sc.m[i];
		if (m->node < 0)
			continue;
		tpl_compile_path(&s, m->node, m->path, &m->path_tpl);
		if (m->text && m->type == MT_FILE)
			tpl_compile_text(&s, m->node, m->data.data, m->data.len, &m->tpl);
	}
	tmp = xasprintf("%s.tmp.%ld", o->output, (long)getpid());
	struct out_stats st = {0};
	if (write_output(&s, &sc, tmp, &st, &err) < 0) {
		diag_error("synth: %s: %s", o->output, err.msg);
		unlink(tmp);
		rc = NF_EXIT_NOTHING;
		goto out;
	}
	if (rename(tmp, o->output) < 0) {
		diag_error("synth: %s: cannot rename the output into place", o->output);
		unlink(tmp);
		rc = NF_EXIT_NOTHING;
		goto out;
	}
	if (!o->quiet) {
		FILE *f = fopen(o->output, "rb");
		long size = 0;
		if (f) {
			fseek(f, 0, SEEK_END);
			size = ftell(f);
			fclose(f);
		}
		fprintf(stderr,
			"%s: %ld ranks on %d nodes (%d copies of %d nodes, %d ranks each), %llu members, "
			"%llu text lines, %llu text bytes, %ld bytes compressed\n",
			o->output, s.ranks, s.total_nodes, s.copies, s.knodes, s.world, (unsigned long long)st.members,
			(unsigned long long)st.lines, (unsigned long long)st.text_bytes, size);
	}
out:
	free(tmp);
	synth_free(&s, &sc);
	return rc;
}
