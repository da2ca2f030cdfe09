/* analysis_network.c: how NCCL connected, per process and per communicator
 * (table network), and what differs between hosts (findings): a host whose
 * interface, address family, NET plugin or chosen network is not the rest's,
 * Socket where the others use IB, an NCCL_SOCKET_IFNAME interface the host
 * does not have, ranks whose inter-node channels use a slower transport than
 * their peers'.
 *
 * Each process is read from its NCCL lines, one source at a time (its
 * NCCL_DEBUG_FILE first, then its own stdout, then a console copy): a value
 * is taken from the first source that states it. Channel lines ("Channel 02/0
 * : 1[0] -> 2[0] [send] via NET/Socket/0") do not name their communicator;
 * each run of channel lines (no other NCCL event of the process between them)
 * is given to the one communicator of the process whose rank, size, channel
 * count and devices fit every line of the run and which does not have one of
 * its connections yet (NCCL prints a connection once per communicator); a run
 * that still fits several is left to the process row alone. */
#include "analysis_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "case_db.h"
#include "json_field.h"
#include "findings.h"
#include "util.h"

#define MAX_TR 16
#define MAX_PLUGINS 6

/* channels per transport: a bitmap of channel ids 0..127 (the name as
 * norm_transport writes it: "NET/<plugin>/GDRDMA" at most; every process
 * keeps a set of them, 16,384 sets at 16,384 ranks) */
#define TR_NAME_MAX 48
struct tr {
	char name[TR_NAME_MAX];
	uint64_t ch[2];
};
struct trset {
	struct tr t[MAX_TR];
	int n;
};

struct cm {
	char ptr[32], comm_id[128];
	int comm_rank, nranks, maxch;
	char dev[3][32]; /* cuda_dev, nvml_dev, bus_id */
	long line_no;
	char network[64];
	int64_t ev_network;
	bool has_tr;
	struct trset tr;
	uint64_t *conn; /* connections already given to it (conn_key) */
	size_t nconn, conncap;
};

struct chline {
	long line_no;
	int run; /* channel lines of one run: no other NCCL event of the process between them */
	int channel, src, dst, dir; /* dir: 0 none, 1 send, 2 receive */
	char src_dev[32], dst_dev[32], tr[TR_NAME_MAX];
};

struct plugin_devs {
	char plugin[64], devices[400];
	int64_t ev;
};

/* what the findings compare of one process, kept for every process once its
 * communicators and channel lines are summed up and freed */
struct procview {
	char host[128];
	long pid;
	int rank;
	char boot_if[64], boot_addr[96];
	int64_t ev_boot;
	char sock_env[128], hca_env[256];
	int64_t ev_sock_env, ev_hca_env;
	char plugin[96];
	int64_t ev_plugin;
	char network[64];
	int64_t ev_network;
	int gdr_line, gdr;
	int64_t ev_no_if, ev_channel;
	struct trset total;
	char devices[400];
};

/* one process as one source (or, merged, all of its sources) tells it */
struct proc {
	struct procview view; /* what the findings keep of it */
	struct plugin_devs pd[MAX_PLUGINS];
	int npd;
	/* communicators and channel lines of the main source */
	struct cm *cms;
	size_t ncm, cmcap;
	struct chline *ch;
	size_t nch, chcap;
	int run;
};

static void tr_add(struct trset *s, const char *name, int channel)
{
	int i;
	for (i = 0; i < s->n; i++)
		if (strcmp(s->t[i].name, name) == 0)
			break;
	if (i == s->n) {
		if (s->n == MAX_TR)
			return;
		memset(&s->t[i], 0, sizeof(s->t[i]));
		snprintf(s->t[i].name, sizeof(s->t[i].name), "%s", name);
		s->n++;
	}
	if (channel >= 0 && channel < 128)
		s->t[i].ch[channel / 64] |= 1ULL << (channel % 64);
}

static int tr_count(const struct tr *t)
{
	return __builtin_popcountll(t->ch[0]) + __builtin_popcountll(t->ch[1]);
}

/* adds the channel counts of b to the plain counts in a (ch[0] holds the count) */
static void tr_sum(struct trset *a, const struct trset *b)
{
	for (int j = 0; j < b->n; j++) {
		int i;
		for (i = 0; i < a->n; i++)
			if (strcmp(a->t[i].name, b->t[j].name) == 0)
				break;
		if (i == a->n) {
			if (a->n == MAX_TR)
				continue;
			memset(&a->t[i], 0, sizeof(a->t[i]));
			snprintf(a->t[i].name, sizeof(a->t[i].name), "%s", b->t[j].name);
			a->n++;
		}
		a->t[i].ch[0] += (uint64_t)tr_count(&b->t[j]);
	}
}

static int cmp_tr(const void *a, const void *b)
{
	return strcmp(((const struct tr *)a)->name, ((const struct tr *)b)->name);
}

/* {"NET/Socket":2,"P2P/CUMEM":24}; counts are in ch[0] when summed */
static void tr_json(struct trset *s, bool summed, struct buf *out)
{
	xqsort(s->t, (size_t)s->n, sizeof(s->t[0]), cmp_tr);
	buf_clear(out);
	buf_putc(out, '{');
	for (int i = 0; i < s->n; i++) {
		if (i)
			buf_putc(out, ',');
		buf_json_str(out, s->t[i].name, strlen(s->t[i].name));
		buf_printf(out, ":%d", summed ? (int)s->t[i].ch[0] : tr_count(&s->t[i]));
	}
	buf_putc(out, '}');
}

int net_plugin_len(const char *p)
{
	for (const char *q = p; *q; q++)
		if (*q == '/' && q[1] >= '0' && q[1] <= '9')
			return (int)(q - p);
	return (int)strcspn(p, "/");
}

/* One name per transport: NET/<plugin>[/GDRDMA], P2P/<mode>, SHM, CollNet. */
static void norm_transport(const char *t, char *out, size_t n)
{
	if (str_starts(t, "NET/")) {
		snprintf(out, n, "NET/%.*s%s", net_plugin_len(t + 4), t + 4, strstr(t, "/GDRDMA") ? "/GDRDMA" : "");
	} else if (str_starts(t, "P2P/")) {
		snprintf(out, n, "P2P/%.*s", (int)strcspn(t + 4, "/"), t + 4);
	} else if (str_starts(t, "SHM") || strstr(t, "shared memory")) {
		snprintf(out, n, "SHM");
	} else if (str_starts(t, "CollNet") || str_starts(t, "COLLNET")) {
		snprintf(out, n, "CollNet");
	} else {
		snprintf(out, n, "%s", t);
	}
}

/* inter-node transports, slowest first: 1 Socket, 2 IB or a plugin, 3 with GPUDirect RDMA; 0 not NET */
static int net_class(const char *tr)
{
	if (!str_starts(tr, "NET/"))
		return 0;
	if (strstr(tr, "/GDRDMA"))
		return 3;
	if (str_starts(tr, "NET/Socket"))
		return 1;
	return 2;
}

static void set_str(char *dst, size_t n, const char *src)
{
	if (!dst[0] && src && *src)
		snprintf(dst, n, "%s", src);
}

#define SET(field, v) set_str(field, sizeof(field), v)

static const char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? s : "";
}

/* ---- reading one source of one process ---- */

enum { C_HOST, C_PID, C_SRC, C_PRIO, C_LINE, C_EVENT, C_KIND, C_RANK, C_FIELDS };

static const char events_sql[] =
	"SELECT e.host, e.pid, e.source_id,"
	" CASE s.kind WHEN 'nccl_debug' THEN 0 WHEN 'rank_log' THEN 1 WHEN 'console' THEN 2 ELSE 3 END AS prio,"
	" e.line_no, e.event_id, e.kind, e.rank, e.fields"
	" FROM events e JOIN sources s USING(source_id)"
	" WHERE e.kind IN ('nccl_env','nccl_env_set','nccl_bootstrap_if','nccl_net_devices','nccl_net_no_device',"
	"  'nccl_net_plugin','nccl_using_network','nccl_comm_init','nccl_channels','nccl_channel','nccl_gdr',"
	"  'nccl_no_socket_if','nccl_net_no_interface','nccl_connected','nccl_comm_info')"
	" AND e.host IS NOT NULL AND e.pid IS NOT NULL"
	/* channel lines are taken from one source per process (merge() keeps the
	 * first source with channels): skip the copies, they are most of the rows */
	" AND (e.kind <> 'nccl_channel' OR e.source_id = (SELECT c.source_id FROM temp.nw_chsrc c"
	"      WHERE c.host = e.host AND c.pid = e.pid))"
	" ORDER BY e.host, e.pid, prio, e.source_id, e.line_no";

static const char channel_sources_sql[] =
	"DROP TABLE IF EXISTS temp.nw_chsrc;"
	"CREATE TEMP TABLE nw_chsrc(host TEXT, pid INTEGER, source_id INTEGER, PRIMARY KEY(host, pid));"
	"INSERT OR IGNORE INTO nw_chsrc SELECT e.host, e.pid, e.source_id FROM"
	" (SELECT DISTINCT host, pid, source_id FROM events WHERE kind = 'nccl_channel'"
	"   AND host IS NOT NULL AND pid IS NOT NULL) e JOIN sources s USING(source_id)"
	" ORDER BY e.host, e.pid,"
	"  CASE s.kind WHEN 'nccl_debug' THEN 0 WHEN 'rank_log' THEN 1 WHEN 'console' THEN 2 ELSE 3 END, e.source_id;";

static struct cm *find_cm(struct proc *p, const char *ptr)
{
	for (size_t i = 0; i < p->ncm; i++)
		if (strcmp(p->cms[i].ptr, ptr) == 0)
			return &p->cms[i];
	return NULL;
}

/* what reading one process's events needs besides the process */
struct reader {
	sqlite3_stmt *st;      /* events_sql */
	sqlite3_stmt *comm_id; /* the key the comms analysis gave a communicator */
	struct json_object fields;
	char pending_net[64];  /* "Using network X", waiting for the communicator it precedes */
	int64_t pending_ev;
};

static void read_event(struct reader *r, struct proc *p)
{
	sqlite3_stmt *st = r->st;
	struct json_object *f = &r->fields;
	json_object_load(f, (const char *)sqlite3_column_text(st, C_FIELDS), (size_t)sqlite3_column_bytes(st, C_FIELDS));
	const char *kind = col(st, C_KIND);
	int64_t ev = sqlite3_column_int64(st, C_EVENT);
	if (strcmp(kind, "nccl_channel") != 0)
		p->run++;
	if (p->view.rank < 0)
		p->view.rank = (int)db_column_int_or(st, C_RANK, -1);
	if (!strcmp(kind, "nccl_env") || !strcmp(kind, "nccl_env_set")) {
		const char *name = json_object_str(f, "name");
		if (!strcmp(name, "NCCL_SOCKET_IFNAME") && !p->view.sock_env[0]) {
			SET(p->view.sock_env, json_object_str(f, "value"));
			p->view.ev_sock_env = ev;
		} else if (!strcmp(name, "NCCL_IB_HCA") && !p->view.hca_env[0]) {
			SET(p->view.hca_env, json_object_str(f, "value"));
			p->view.ev_hca_env = ev;
		}
	} else if (!strcmp(kind, "nccl_bootstrap_if")) {
		if (!p->view.boot_if[0]) {
			SET(p->view.boot_if, *json_object_str(f, "ifname") ? json_object_str(f, "ifname") : json_object_str(f, "net_dev"));
			SET(p->view.boot_addr, json_object_str(f, "addr"));
			p->view.ev_boot = ev;
		}
	} else if (!strcmp(kind, "nccl_net_devices") || !strcmp(kind, "nccl_net_no_device")) {
		const char *plugin = json_object_str(f, "plugin");
		const char *devs = !strcmp(kind, "nccl_net_no_device") ? "" : json_object_str(f, "devices");
		int i;
		for (i = 0; i < p->npd; i++)
			if (!strcmp(p->pd[i].plugin, plugin))
				break;
		if (i == p->npd && p->npd < MAX_PLUGINS) {
			p->npd++;
			snprintf(p->pd[i].plugin, sizeof(p->pd[i].plugin), "%s", plugin);
			/* "[RO]" alone lists no device */
			snprintf(p->pd[i].devices, sizeof(p->pd[i].devices), "%s", strcmp(devs, "[RO]") ? devs : "");
			p->pd[i].ev = ev;
		}
	} else if (!strcmp(kind, "nccl_net_plugin")) {
		const char *status = json_object_str(f, "status"), *type = json_object_str(f, "type");
		if (!strcmp(type, "NET") && (!strcmp(status, "Assigned") || !strcmp(status, "Initialized") ||
					     !strcmp(status, "Loaded") || !strcmp(status, "Using")) &&
		    !p->view.plugin[0]) {
			SET(p->view.plugin, json_object_str(f, "plugin"));
			p->view.ev_plugin = ev;
		}
	} else if (!strcmp(kind, "nccl_using_network")) {
		if (!p->view.network[0]) {
			SET(p->view.network, json_object_str(f, "network"));
			p->view.ev_network = ev;
		}
		snprintf(r->pending_net, sizeof(r->pending_net), "%s", json_object_str(f, "network"));
		r->pending_ev = ev;
	} else if (!strcmp(kind, "nccl_comm_init")) {
		const char *ptr = json_object_str(f, "comm");
		struct cm *c = find_cm(p, ptr);
		if (!c) {
			xgrow(&p->cms, &p->cmcap, p->ncm + 1, sizeof(*p->cms));
			c = &p->cms[p->ncm++];
			memset(c, 0, sizeof(*c));
			snprintf(c->ptr, sizeof(c->ptr), "%s", ptr);
			c->line_no = sqlite3_column_int64(st, C_LINE);
			c->comm_rank = (int)json_object_int(f, "comm_rank", -1);
			c->nranks = (int)json_object_int(f, "nranks", 0);
			snprintf(c->dev[0], sizeof(c->dev[0]), "%s", json_object_str(f, "cuda_dev"));
			snprintf(c->dev[1], sizeof(c->dev[1]), "%s", json_object_str(f, "nvml_dev"));
			snprintf(c->dev[2], sizeof(c->dev[2]), "%s", json_object_str(f, "bus_id"));
			/* the key the comms analysis gave it */
			sqlite3_stmt *q = r->comm_id;
			sqlite3_reset(q);
			sqlite3_bind_text(q, 1, p->view.host, -1, SQLITE_STATIC);
			sqlite3_bind_int64(q, 2, p->view.pid);
			sqlite3_bind_text(q, 3, ptr, -1, SQLITE_STATIC);
			if (sqlite3_step(q) == SQLITE_ROW)
				snprintf(c->comm_id, sizeof(c->comm_id), "%s", col(q, 0));
			if (!c->comm_id[0])
				snprintf(c->comm_id, sizeof(c->comm_id), "%s", json_object_str(f, "comm_id"));
			/* "Using network X" comes right before the communicator's init */
			if (r->pending_net[0]) {
				snprintf(c->network, sizeof(c->network), "%s", r->pending_net);
				c->ev_network = r->pending_ev;
				r->pending_net[0] = '\0';
			}
		}
	} else if (!strcmp(kind, "nccl_channels")) {
		/* "N coll channels, ... P p2p channels": between the last init START and its COMPLETE */
		if (p->ncm) {
			int a = (int)json_object_int(f, "nchannels", 0), b = (int)json_object_int(f, "np2p", 0);
			p->cms[p->ncm - 1].maxch = a > b ? a : b;
		}
	} else if (!strcmp(kind, "nccl_channel")) {
		xgrow(&p->ch, &p->chcap, p->nch + 1, sizeof(*p->ch));
		struct chline *c = &p->ch[p->nch++];
		memset(c, 0, sizeof(*c));
		c->line_no = sqlite3_column_int64(st, C_LINE);
		c->run = p->run;
		c->channel = (int)json_object_int(f, "channel", -1);
		c->src = (int)json_object_int(f, "src", -1);
		c->dst = (int)json_object_int(f, "dst", -1);
		const char *dir = json_object_str(f, "dir");
		c->dir = !strcmp(dir, "send") ? 1 : !strcmp(dir, "receive") ? 2 : 0;
		snprintf(c->src_dev, sizeof(c->src_dev), "%s", json_object_str(f, "src_dev"));
		snprintf(c->dst_dev, sizeof(c->dst_dev), "%s", json_object_str(f, "dst_dev"));
		norm_transport(json_object_str(f, "transport"), c->tr, sizeof(c->tr));
		if (!p->view.ev_channel && net_class(c->tr))
			p->view.ev_channel = ev;
	} else if (!strcmp(kind, "nccl_gdr")) {
		const char *g = json_object_str(f, "gdr");
		if (!strcasecmp(g, "enabled"))
			p->view.gdr_line = 1;
		else if (p->view.gdr_line < 0)
			p->view.gdr_line = 0;
	} else if (!strcmp(kind, "nccl_no_socket_if") || !strcmp(kind, "nccl_net_no_interface")) {
		if (!p->view.ev_no_if)
			p->view.ev_no_if = ev;
	}
}

/* ---- channel runs to communicators ---- */

static bool dev_fits(const char *x, const char (*dev)[32])
{
	if (!x[0])
		return true;
	if (!dev[0][0] && !dev[1][0] && !dev[2][0])
		return true;
	for (int i = 0; i < 3; i++)
		if (dev[i][0] && !strcasecmp(x, dev[i]))
			return true;
	return false;
}

/* answers of peer_fits already looked up: the channel lines of a process
 * ask about the same few peers again and again */
enum { FIT_MEMO = 4096 };
struct fit_memo {
	char comm_id[128], dev[32];
	int peer;
	bool used, fits;
};
static struct fit_memo *fit_memo;

static size_t fit_slot(const char *comm_id, int peer, const char *x)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *s = comm_id; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	h = (h ^ (uint64_t)(unsigned)peer) * 1099511628211ull;
	for (const char *s = x; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)(h % FIT_MEMO);
}

static bool peer_fits_sql(sqlite3_stmt *q, const char *comm_id, int peer, const char *x);

/* the devices the other processes of the communicator stated, by comm rank */
static bool peer_fits(sqlite3_stmt *q, const char *comm_id, int peer, const char *x)
{
	if (!x[0] || !comm_id[0])
		return true;
	struct fit_memo *m = &fit_memo[fit_slot(comm_id, peer, x)];
	if (m->used && m->peer == peer && !strcmp(m->comm_id, comm_id) && !strcmp(m->dev, x))
		return m->fits;
	bool fits = peer_fits_sql(q, comm_id, peer, x);
	if (strlen(comm_id) < sizeof(m->comm_id) && strlen(x) < sizeof(m->dev)) {
		snprintf(m->comm_id, sizeof(m->comm_id), "%s", comm_id);
		snprintf(m->dev, sizeof(m->dev), "%s", x);
		m->peer = peer;
		m->fits = fits;
		m->used = true;
	}
	return fits;
}

static bool peer_fits_sql(sqlite3_stmt *q, const char *comm_id, int peer, const char *x)
{
	sqlite3_reset(q);
	sqlite3_bind_text(q, 1, comm_id, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 2, peer);
	bool any = false, fits = false;
	while (sqlite3_step(q) == SQLITE_ROW) {
		char dev[3][32];
		for (int i = 0; i < 3; i++)
			snprintf(dev[i], sizeof(dev[i]), "%s", col(q, i));
		any = true;
		fits |= dev_fits(x, (const char (*)[32])dev);
	}
	return !any || fits;
}

/* one connection: channel, direction, sender, receiver */
static uint64_t conn_key(const struct chline *l)
{
	return ((uint64_t)(l->channel & 0xff) << 56) | ((uint64_t)(l->dir & 3) << 54) |
	       ((uint64_t)(l->src & 0xffffff) << 24) | (uint64_t)(l->dst & 0xffffff);
}

/* NCCL prints a connection once per communicator: a run that repeats one
 * the communicator already has belongs to another */
static bool has_conn(const struct cm *c, const struct chline *l)
{
	uint64_t k = conn_key(l);
	for (size_t i = 0; i < c->nconn; i++)
		if (c->conn[i] == k)
			return true;
	return false;
}

static bool line_fits(sqlite3_stmt *q, const struct cm *c, const struct chline *l)
{
	int me = l->dir == 2 ? l->dst : l->src, peer = l->dir == 2 ? l->src : l->dst;
	const char *mydev = l->dir == 2 ? l->dst_dev : l->src_dev, *peerdev = l->dir == 2 ? l->src_dev : l->dst_dev;
	if (me != c->comm_rank || peer < 0 || peer == me || (c->nranks && peer >= c->nranks))
		return false;
	if (c->maxch > 0 && l->channel >= c->maxch)
		return false;
	if (!dev_fits(mydev, c->dev))
		return false;
	return peer_fits(q, c->comm_id, peer, peerdev);
}

static void attribute_channels(sqlite3 *db, struct proc *p, struct trset **unattr, size_t *nun)
{
	sqlite3_stmt *q = db_prepare(db,
		"SELECT cuda_dev, nvml_dev, bus_id FROM temp.nw_comms WHERE comm_id = ? AND comm_rank = ?");
	size_t cap = 0;
	for (size_t i = 0; i < p->nch;) {
		size_t j = i + 1;
		while (j < p->nch && p->ch[j].run == p->ch[i].run)
			j++;
		/* lines i..j-1 are one run */
		struct cm *pick = NULL, *fresh = NULL;
		int fits = 0, nfresh = 0;
		for (size_t k = 0; k < p->ncm; k++) {
			struct cm *c = &p->cms[k];
			if (c->line_no > p->ch[i].line_no)
				continue;
			bool ok = true, repeats = false;
			for (size_t l = i; l < j && ok; l++) {
				ok = line_fits(q, c, &p->ch[l]);
				repeats |= has_conn(c, &p->ch[l]);
			}
			if (ok) {
				fits++;
				pick = c;
				if (!repeats)
					nfresh++, fresh = c;
			}
		}
		if (fits > 1 && nfresh == 1)
			pick = fresh, fits = 1;
		struct trset *into;
		if (fits == 1) {
			into = &pick->tr;
			pick->has_tr = true;
			for (size_t l = i; l < j; l++) {
				xgrow(&pick->conn, &pick->conncap, pick->nconn + 1, sizeof(*pick->conn));
				pick->conn[pick->nconn++] = conn_key(&p->ch[l]);
			}
		} else {
			xgrow(unattr, &cap, *nun + 1, sizeof(**unattr));
			into = &(*unattr)[(*nun)++];
			memset(into, 0, sizeof(*into));
		}
		for (size_t l = i; l < j; l++)
			tr_add(into, p->ch[l].tr, p->ch[l].channel);
		i = j;
	}
	sqlite3_finalize(q);
}

static int gdr_of(const struct trset *s, bool summed, int line)
{
	int g = -1;
	for (int i = 0; i < s->n; i++) {
		if (!net_class(s->t[i].name) || (summed ? s->t[i].ch[0] == 0 : tr_count(&s->t[i]) == 0))
			continue;
		if (strstr(s->t[i].name, "/GDRDMA"))
			return 1;
		g = 0;
	}
	return g >= 0 ? g : line;
}

static const char *gdr_text(int g)
{
	return g == 1 ? "on" : g == 0 ? "off" : NULL;
}

/* ---- merging the sources of a process, writing its rows ---- */

static void free_cms(struct cm *cms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(cms[i].conn);
	free(cms);
}

static void merge(struct proc *into, struct proc *from)
{
	if (into->view.rank < 0)
		into->view.rank = from->view.rank;
	if (!into->view.boot_if[0]) {
		SET(into->view.boot_if, from->view.boot_if);
		SET(into->view.boot_addr, from->view.boot_addr);
		into->view.ev_boot = from->view.ev_boot;
	}
	if (!into->view.sock_env[0] && from->view.sock_env[0]) {
		SET(into->view.sock_env, from->view.sock_env);
		into->view.ev_sock_env = from->view.ev_sock_env;
	}
	if (!into->view.hca_env[0] && from->view.hca_env[0]) {
		SET(into->view.hca_env, from->view.hca_env);
		into->view.ev_hca_env = from->view.ev_hca_env;
	}
	if (!into->view.plugin[0] && from->view.plugin[0]) {
		SET(into->view.plugin, from->view.plugin);
		into->view.ev_plugin = from->view.ev_plugin;
	}
	for (int i = 0; i < from->npd; i++) {
		int k;
		for (k = 0; k < into->npd; k++)
			if (!strcmp(into->pd[k].plugin, from->pd[i].plugin))
				break;
		if (k == into->npd && into->npd < MAX_PLUGINS)
			into->pd[into->npd++] = from->pd[i];
	}
	if (!into->view.network[0] && from->view.network[0]) {
		SET(into->view.network, from->view.network);
		into->view.ev_network = from->view.ev_network;
	}
	if (from->view.gdr_line > into->view.gdr_line)
		into->view.gdr_line = from->view.gdr_line;
	if (!into->view.ev_no_if)
		into->view.ev_no_if = from->view.ev_no_if;
	/* communicators and channels: from the first source that has channel
	 * lines, else the first that has communicators */
	if ((!into->nch && from->nch) || (!into->nch && !into->ncm && from->ncm)) {
		free_cms(into->cms, into->ncm);
		free(into->ch);
		into->cms = from->cms;
		into->ncm = from->ncm;
		into->cmcap = from->cmcap;
		into->ch = from->ch;
		into->nch = from->nch;
		into->chcap = from->chcap;
		into->view.ev_channel = from->view.ev_channel;
		from->cms = NULL;
		from->ch = NULL;
		from->ncm = from->nch = from->cmcap = from->chcap = 0;
	}
}

static void proc_clear(struct proc *p)
{
	free_cms(p->cms, p->ncm);
	free(p->ch);
	memset(p, 0, sizeof(*p));
	p->view.rank = -1;
	p->view.gdr_line = -1;
}

static void finish(sqlite3 *db, struct proc *p, sqlite3_stmt *ins)
{
	/* the rank, from the ranks table when it knows the process */
	sqlite3_stmt *q = db_prepare(db, "SELECT rank FROM ranks WHERE host = ? AND pid = ?");
	sqlite3_bind_text(q, 1, p->view.host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, p->view.pid);
	if (sqlite3_step(q) == SQLITE_ROW)
		p->view.rank = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);

	struct trset *unattr = NULL;
	size_t nun = 0;
	attribute_channels(db, p, &unattr, &nun);
	memset(&p->view.total, 0, sizeof(p->view.total));
	for (size_t i = 0; i < p->ncm; i++)
		tr_sum(&p->view.total, &p->cms[i].tr);
	for (size_t i = 0; i < nun; i++)
		tr_sum(&p->view.total, &unattr[i]);
	free(unattr);
	p->view.gdr = gdr_of(&p->view.total, true, p->view.gdr_line);

	/* the devices of the plugin in use */
	const char *use = p->view.plugin[0] ? p->view.plugin : p->view.network;
	for (int i = 0; i < p->npd; i++)
		if (!strcmp(p->pd[i].plugin, use))
			snprintf(p->view.devices, sizeof(p->view.devices), "%s", p->pd[i].devices);
	if (!p->view.devices[0] && !use[0]) {
		int with = -1, n = 0;
		for (int i = 0; i < p->npd; i++)
			if (p->pd[i].devices[0])
				with = i, n++;
		if (n == 1)
			snprintf(p->view.devices, sizeof(p->view.devices), "%s", p->pd[with].devices);
	}

	struct buf js = {0};
	tr_json(&p->view.total, true, &js);
	for (int row = -1; row < (int)p->ncm; row++) {
		const struct cm *c = row >= 0 ? &p->cms[row] : NULL;
		const char *network = p->view.network;
		int gdr = p->view.gdr;
		if (c) {
			bool differs = c->network[0] && strcmp(c->network, p->view.network);
			if (!c->has_tr && !differs)
				continue;
			if (c->network[0])
				network = c->network;
			struct trset t = c->tr;
			tr_json(&t, false, &js);
			gdr = gdr_of(&t, false, -1);
		}
		int i = 1;
		sqlite3_bind_text(ins, i++, p->view.host, -1, SQLITE_STATIC);
		db_bind_int_or_null(ins, i++, p->view.rank, p->view.rank >= 0);
		sqlite3_bind_int64(ins, i++, p->view.pid);
		db_bind_text(ins, i++, c ? c->comm_id : NULL, -1);
		db_bind_text(ins, i++, p->view.boot_if[0] ? p->view.boot_if : NULL, -1);
		db_bind_text(ins, i++, p->view.boot_addr[0] ? p->view.boot_addr : NULL, -1);
		db_bind_text(ins, i++, p->view.sock_env[0] ? p->view.sock_env : NULL, -1);
		db_bind_text(ins, i++, p->view.hca_env[0] ? p->view.hca_env : NULL, -1);
		db_bind_text(ins, i++, p->view.plugin[0] ? p->view.plugin : NULL, -1);
		db_bind_text(ins, i++, p->view.devices[0] ? p->view.devices : NULL, -1);
		db_bind_text(ins, i++, network[0] ? network : NULL, -1);
		db_bind_text(ins, i++, gdr_text(gdr), -1);
		db_bind_text(ins, i++, js.len > 2 ? js.data : NULL, -1);
		db_step_done(ins);
	}
	buf_free(&js);
}

/* ---- findings ---- */

struct hostview {
	char host[128];
	char boot_if[64], family[8], sock_env[128], plugin[96], network[64];
	int64_t ev_boot, ev_sock_env, ev_plugin, ev_network;
	bool no_if;   /* an interface named in NCCL_SOCKET_IFNAME was not found */
	bool flagged; /* a finding names this host already */
	bool slow;    /* a rank of it uses a slower inter-node transport */
};

static void json_ranks_of_host(struct procview *ps, size_t n, const char *host, struct buf *out, struct buf *list)
{
	int prev = -1;
	buf_clear(out);
	buf_putc(out, '[');
	if (list)
		buf_clear(list);
	/* processes are sorted by host and pid; collect ranks in order */
	int ranks[256];
	int nr = 0;
	for (size_t i = 0; i < n && nr < 256; i++)
		if (!strcmp(ps[i].host, host) && ps[i].rank >= 0)
			ranks[nr++] = ps[i].rank;
	for (int i = 1; i < nr; i++)
		for (int j = i; j > 0 && ranks[j - 1] > ranks[j]; j--) {
			int t = ranks[j];
			ranks[j] = ranks[j - 1];
			ranks[j - 1] = t;
		}
	for (int i = 0; i < nr; i++) {
		if (ranks[i] == prev)
			continue;
		buf_printf(out, "%s%d", prev >= 0 ? "," : "", ranks[i]);
		if (list)
			buf_printf(list, "%s%d", prev >= 0 ? ", " : "", ranks[i]);
		prev = ranks[i];
	}
	buf_putc(out, ']');
}

static void host_json(const char *host, struct buf *out)
{
	buf_clear(out);
	buf_putc(out, '[');
	buf_json_str(out, host, strlen(host));
	buf_putc(out, ']');
}

enum { A_NETWORK, A_PLUGIN, A_BOOT_IF, A_FAMILY, A_SOCK_ENV, A_COUNT };
static const char *const attr_name[A_COUNT] = {
	"network", "NET plugin", "bootstrap interface", "address family", "NCCL_SOCKET_IFNAME",
};

static const char *attr(const struct hostview *h, int a)
{
	switch (a) {
	case A_NETWORK: return h->network;
	case A_PLUGIN: return h->plugin;
	case A_BOOT_IF: return h->boot_if;
	case A_FAMILY: return h->family;
	default: return h->sock_env;
	}
}

static int64_t attr_ev(const struct hostview *h, int a)
{
	switch (a) {
	case A_NETWORK: return h->ev_network;
	case A_PLUGIN: return h->ev_plugin;
	case A_BOOT_IF:
	case A_FAMILY: return h->ev_boot;
	default: return h->ev_sock_env;
	}
}

/* the value most hosts have for attribute a (NULL: no strict majority) and
 * how many have one: Boyer and Moore's vote (one pass for a candidate, one
 * to count it), not a count per host (the square of 8,192 hosts) */
static const char *majority(const struct hostview *hv, size_t nh, int a, size_t *with)
{
	*with = 0;
	const char *cand = NULL;
	size_t lead = 0;
	for (size_t i = 0; i < nh; i++) {
		const char *v = attr(&hv[i], a);
		if (hv[i].no_if || !v[0])
			continue;
		(*with)++;
		if (lead == 0) {
			cand = v;
			lead = 1;
		} else if (!strcmp(cand, v)) {
			lead++;
		} else {
			lead--;
		}
	}
	if (!cand)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < nh; i++)
		if (!hv[i].no_if && !strcmp(attr(&hv[i], a), cand))
			n++;
	return n * 2 > *with ? cand : NULL;
}

static void others_with(const struct hostview *hv, size_t nh, const char *except, int a, const char *value,
			struct buf *out)
{
	buf_clear(out);
	for (size_t i = 0; i < nh; i++)
		if (strcmp(hv[i].host, except) && !hv[i].no_if && !strcmp(attr(&hv[i], a), value))
			buf_printf(out, "%s%s", out->len ? ", " : "", hv[i].host);
}

static void finding_missing_interface(sqlite3 *db, struct procview *ps, size_t n, struct hostview *h, struct hostview *hv,
				      size_t nh)
{
	struct buf ranks = {0}, list = {0}, hosts = {0}, sum = {0}, hint = {0}, others = {0};
	json_ranks_of_host(ps, n, h->host, &ranks, &list);
	host_json(h->host, &hosts);
	int64_t ev_warn = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ps[i].host, h->host) && ps[i].ev_no_if && (!ev_warn || ps[i].ev_no_if < ev_warn))
			ev_warn = ps[i].ev_no_if;
	char what[160] = "";
	sqlite3_stmt *q = db_prepare(db,
		"SELECT CASE kind WHEN 'nccl_no_socket_if' THEN field(fields, 'what') || ' : no socket interface found'"
		" ELSE 'NET/' || field(fields, 'plugin') || ' : no interface found' END FROM events WHERE event_id = ?");
	sqlite3_bind_int64(q, 1, ev_warn);
	if (sqlite3_step(q) == SQLITE_ROW)
		snprintf(what, sizeof(what), "%s", col(q, 0));
	sqlite3_finalize(q);
	/* what the other hosts bootstrapped on */
	size_t with;
	const char *other_if = majority(hv, nh, A_BOOT_IF, &with);
	int64_t ev_other = 0;
	if (other_if) {
		others_with(hv, nh, h->host, A_BOOT_IF, other_if, &others);
		for (size_t i = 0; i < nh; i++)
			if (!hv[i].no_if && !strcmp(hv[i].boot_if, other_if) && !ev_other)
				ev_other = hv[i].ev_boot;
	}
	if (h->sock_env[0])
		buf_printf(&sum, "%s has no interface matching NCCL_SOCKET_IFNAME=%s: NCCL said \"%s\" and", h->host,
			   h->sock_env, what);
	else
		buf_printf(&sum, "NCCL found no usable network interface on %s (\"%s\") and", h->host, what);
	buf_printf(&sum, " communicator init failed there (rank%s %s).", strchr(list.data ? list.data : "", ',') ? "s" : "",
		   list.data ? list.data : "?");
	if (other_if)
		buf_printf(&sum, " The other hosts (%s) used %s.", others.data, other_if);
	if (other_if)
		buf_printf(&hint, "set NCCL_SOCKET_IFNAME on %s to the interface the other hosts used (%s)%s", h->host,
			   other_if, h->sock_env[0] ? ", or unset it" : "");
	else
		buf_printf(&hint, "set NCCL_SOCKET_IFNAME on %s to an interface that host has (ip -br addr)", h->host);
	int64_t f = finding_add(db, "missing_interface", "error", ranks.data, hosts.data, sum.data, hint.data);
	evidence_add(db, f, h->ev_sock_env, "NCCL_SOCKET_IFNAME on that host");
	evidence_add(db, f, ev_warn, "NCCL found no interface");
	evidence_add(db, f, ev_other, "interface the other hosts used");
	buf_free(&ranks);
	buf_free(&list);
	buf_free(&hosts);
	buf_free(&sum);
	buf_free(&hint);
	buf_free(&others);
}

static void findings_hosts(sqlite3 *db, struct procview *ps, size_t n)
{
	struct hostview *hv = NULL;
	size_t nh = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		struct procview *p = &ps[i];
		struct hostview *h = nh ? &hv[nh - 1] : NULL;
		if (!h || strcmp(h->host, p->host)) {
			xgrow(&hv, &cap, nh + 1, sizeof(*hv));
			h = &hv[nh++];
			memset(h, 0, sizeof(*h));
			snprintf(h->host, sizeof(h->host), "%s", p->host);
		}
		if (!h->boot_if[0] && p->boot_if[0]) {
			SET(h->boot_if, p->boot_if);
			SET(h->family, strchr(p->boot_addr, ':') ? "IPv6" : p->boot_addr[0] ? "IPv4" : "");
			h->ev_boot = p->ev_boot;
		}
		if (!h->sock_env[0] && p->sock_env[0]) {
			SET(h->sock_env, p->sock_env);
			h->ev_sock_env = p->ev_sock_env;
		}
		if (!h->plugin[0] && p->plugin[0]) {
			SET(h->plugin, p->plugin);
			h->ev_plugin = p->ev_plugin;
		}
		if (!h->network[0] && p->network[0]) {
			SET(h->network, p->network);
			h->ev_network = p->ev_network;
		}
		if (p->ev_no_if)
			h->no_if = true;
	}
	for (size_t i = 0; i < nh; i++)
		if (hv[i].no_if) {
			finding_missing_interface(db, ps, n, &hv[i], hv, nh);
			hv[i].flagged = true;
		}

	/* what differs from the rest of the job, host by host */
	const char *major[A_COUNT];
	size_t with[A_COUNT];
	for (int a = 0; a < A_COUNT; a++)
		major[a] = majority(hv, nh, a, &with[a]);
	/* two hosts, one on Socket, one not: the Socket one is the odd one */
	char non_socket[64] = "";
	if (!major[A_NETWORK] && with[A_NETWORK] >= 2) {
		for (size_t i = 0; i < nh; i++)
			if (!hv[i].no_if && hv[i].network[0] && strcmp(hv[i].network, "Socket")) {
				if (non_socket[0] && strcmp(non_socket, hv[i].network)) {
					non_socket[0] = '\0';
					break;
				}
				SET(non_socket, hv[i].network);
			}
		if (non_socket[0])
			major[A_NETWORK] = non_socket;
	}
	struct buf sum = {0}, hint = {0}, others = {0}, ranks = {0}, hosts = {0}, list = {0};
	for (size_t i = 0; i < nh; i++) {
		struct hostview *h = &hv[i];
		if (h->no_if)
			continue;
		bool differs[A_COUNT] = {false}, any = false;
		for (int a = 0; a < A_COUNT; a++) {
			if (with[a] < 2 || !attr(h, a)[0])
				continue;
			if (major[a] ? strcmp(attr(h, a), major[a]) != 0 : false)
				differs[a] = any = true;
		}
		if (!any)
			continue;
		bool socket_fb = differs[A_NETWORK] && !strcmp(h->network, "Socket");
		buf_clear(&sum);
		buf_clear(&hint);
		int said = 0;
		for (int a = 0; a < A_COUNT; a++) {
			if (!differs[a])
				continue;
			others_with(hv, nh, h->host, a, major[a], &others);
			if (!said)
				buf_printf(&sum, "%s %s %s %s while the other hosts (%s) use %s", h->host,
					   a == A_NETWORK ? "chose" : "uses", attr_name[a], attr(h, a), others.data, major[a]);
			else
				buf_printf(&sum, "; its %s is %s (others: %s)", attr_name[a], attr(h, a), major[a]);
			said++;
		}
		buf_putc(&sum, '.');
		if (socket_fb)
			buf_printf(&sum, " Its traffic to other nodes goes over TCP sockets, far slower than %s.", major[A_NETWORK]);
		if (socket_fb)
			buf_printf(&hint, "check the %s devices on %s (NCCL found none it could use there)", major[A_NETWORK],
				   h->host);
		if (differs[A_SOCK_ENV] || differs[A_BOOT_IF]) {
			const char *want = major[A_BOOT_IF] ? major[A_BOOT_IF] : major[A_SOCK_ENV];
			if (want)
				buf_printf(&hint, "%sset NCCL_SOCKET_IFNAME on %s to the interface the other hosts used (%s)",
					   hint.len ? " and " : "", h->host, want);
		}
		if (!hint.len && differs[A_PLUGIN])
			buf_printf(&hint, "install the same NET plugin on %s as on the other hosts (%s)", h->host,
				   major[A_PLUGIN]);
		json_ranks_of_host(ps, n, h->host, &ranks, &list);
		host_json(h->host, &hosts);
		int64_t f = finding_add(db, socket_fb ? "socket_fallback" : "network_differs", "warning", ranks.data,
					hosts.data, sum.data, hint.len ? hint.data : NULL);
		for (int a = 0; a < A_COUNT; a++) {
			if (!differs[a])
				continue;
			char note[192];
			snprintf(note, sizeof(note), "%s on %s", attr_name[a], h->host);
			evidence_add(db, f, attr_ev(h, a), note);
			for (size_t j = 0; j < nh; j++)
				if (j != i && !hv[j].no_if && !strcmp(attr(&hv[j], a), major[a])) {
					snprintf(note, sizeof(note), "%s on the other hosts", attr_name[a]);
					evidence_add(db, f, attr_ev(&hv[j], a), note);
					break;
				}
		}
		h->flagged = true;
	}

	/* ranks whose inter-node channels use a slower transport than most */
	int count[4] = {0};
	for (size_t i = 0; i < n; i++) {
		int worst = 0;
		for (int t = 0; t < ps[i].total.n; t++) {
			int c = net_class(ps[i].total.t[t].name);
			if (c && (!worst || c < worst))
				worst = c;
		}
		count[worst]++;
	}
	int mode = 0; /* the most common class; a tie goes to the faster */
	for (int c = 1; c <= 3; c++)
		if (count[c] && (!mode || count[c] >= count[mode]))
			mode = c;
	if (mode) {
		int bad[256], nbad = 0;
		const char *bad_tr = NULL, *good_tr = NULL;
		int64_t ev_bad = 0, ev_good = 0;
		struct buf bhosts = {0};
		for (size_t i = 0; i < n && nbad < 256; i++) {
			int worst = 0;
			const char *wt = NULL;
			for (int t = 0; t < ps[i].total.n; t++) {
				int c = net_class(ps[i].total.t[t].name);
				if (c && (!worst || c < worst))
					worst = c, wt = ps[i].total.t[t].name;
			}
			if (!worst)
				continue;
			if (worst == mode) {
				if (!good_tr)
					good_tr = wt, ev_good = ps[i].ev_channel;
				continue;
			}
			if (worst > mode)
				continue;
			struct hostview *h = NULL;
			for (size_t k = 0; k < nh; k++)
				if (!strcmp(hv[k].host, ps[i].host))
					h = &hv[k];
			if (!h || h->flagged)
				continue;
			bad[nbad++] = ps[i].rank;
			if (!bad_tr)
				bad_tr = wt, ev_bad = ps[i].ev_channel;
			h->slow = true;
		}
		for (size_t k = 0; k < nh; k++)
			if (hv[k].slow)
				buf_printf(&bhosts, "%s%s", bhosts.len ? ", " : "", hv[k].host);
		if (nbad && good_tr) {
			for (int i = 1; i < nbad; i++)
				for (int j = i; j > 0 && bad[j - 1] > bad[j]; j--) {
					int t = bad[j];
					bad[j] = bad[j - 1];
					bad[j - 1] = t;
				}
			struct buf rj = {0}, hj = {0};
			buf_putc(&rj, '[');
			buf_clear(&list);
			for (int i = 0; i < nbad; i++) {
				buf_printf(&rj, "%s%d", i ? "," : "", bad[i]);
				buf_printf(&list, "%s%d", i ? ", " : "", bad[i]);
			}
			buf_putc(&rj, ']');
			buf_putc(&hj, '[');
			for (size_t i = 0; i < nh; i++)
				if (hv[i].slow) {
					if (hj.len > 1)
						buf_putc(&hj, ',');
					buf_json_str(&hj, hv[i].host, strlen(hv[i].host));
				}
			buf_putc(&hj, ']');
			buf_clear(&sum);
			buf_printf(&sum, "Rank%s %s (%s) reach%s other nodes over %s while the other ranks use %s.", nbad > 1 ? "s" : "",
				   list.data, bhosts.data, nbad > 1 ? "" : "es", bad_tr, good_tr);
			buf_clear(&hint);
			buf_printf(&hint, "check the NICs%s on %s", strstr(good_tr, "GDRDMA") ? " and GPUDirect RDMA (nvidia-peermem)" : "",
				   bhosts.data);
			int64_t f = finding_add(db, "transport_fallback", "warning", rj.data, hj.data, sum.data, hint.data);
			evidence_add(db, f, ev_bad, "the slower transport");
			evidence_add(db, f, ev_good, "what the other ranks use");
			buf_free(&rj);
			buf_free(&hj);
		}
		buf_free(&bhosts);
	}
	buf_free(&sum);
	buf_free(&hint);
	buf_free(&others);
	buf_free(&ranks);
	buf_free(&hosts);
	buf_free(&list);
	free(hv);
}

void analysis_network(sqlite3 *db)
{
	/* the communicators as the comms analysis keyed them, indexed for the lookups below */
	db_exec(db, "DROP TABLE IF EXISTS temp.nw_comms;"
		    "CREATE TEMP TABLE nw_comms AS SELECT c.comm_id, c.comm_rank, c.host, c.pid, c.comm_ptr, c.cuda_dev,"
		    " field(e.fields, 'nvml_dev') AS nvml_dev, c.bus_id FROM comms c"
		    " LEFT JOIN events e ON e.event_id = c.event_id;"
		    "CREATE INDEX temp.nw_comms_rank ON nw_comms(comm_id, comm_rank);"
		    "CREATE INDEX temp.nw_comms_ptr ON nw_comms(host, pid, comm_ptr);");
	sqlite3_stmt *ins = db_prepare(db,
		"INSERT INTO network(host, rank, pid, comm_id, bootstrap_if, bootstrap_addr, socket_ifname_env, ib_hca_env,"
		" net_plugin, net_devices, network, gdr, transports) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)");
	db_exec(db, channel_sources_sql);
	struct reader r = {
		.st = db_prepare(db, events_sql),
		.comm_id = db_prepare(db, "SELECT comm_id FROM temp.nw_comms WHERE host = ? AND pid = ? AND comm_ptr = ?"),
	};
	sqlite3_stmt *st = r.st;
	fit_memo = xcalloc(FIT_MEMO, sizeof(*fit_memo));
	struct procview *ps = NULL;
	size_t n = 0, cap = 0;
	struct proc cur, src;
	memset(&cur, 0, sizeof(cur));
	memset(&src, 0, sizeof(src));
	proc_clear(&cur);
	proc_clear(&src);
	int64_t src_id = -1;
	bool have = false;
	for (;;) {
		bool row = sqlite3_step(st) == SQLITE_ROW;
		bool new_proc = !row || !have || strcmp(col(st, C_HOST), cur.view.host) || sqlite3_column_int64(st, C_PID) != cur.view.pid;
		if (have && (new_proc || sqlite3_column_int64(st, C_SRC) != src_id)) {
			merge(&cur, &src);
			proc_clear(&src);
			r.pending_net[0] = '\0';
		}
		if (have && new_proc) {
			finish(db, &cur, ins);
			xgrow(&ps, &cap, n + 1, sizeof(*ps));
			ps[n++] = cur.view;
			proc_clear(&cur);
			have = false;
		}
		if (!row)
			break;
		if (!have) {
			snprintf(cur.view.host, sizeof(cur.view.host), "%s", col(st, C_HOST));
			cur.view.pid = sqlite3_column_int64(st, C_PID);
			have = true;
		}
		src_id = sqlite3_column_int64(st, C_SRC);
		if (!src.view.host[0]) {
			snprintf(src.view.host, sizeof(src.view.host), "%s", cur.view.host);
			src.view.pid = cur.view.pid;
		}
		read_event(&r, &src);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(r.comm_id);
	sqlite3_finalize(ins);
	json_object_free(&r.fields);
	proc_clear(&src);
	proc_clear(&cur);
	free(fit_memo);
	fit_memo = NULL;
	findings_hosts(db, ps, n);
	db_exec(db, "DROP TABLE temp.nw_comms;");
	free(ps);
}
