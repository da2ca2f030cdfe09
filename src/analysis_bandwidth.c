/* analysis_bandwidth.c: nccl-tests output as bandwidth evidence. Every result
 * row of every run becomes two rows of the table bandwidth (out of place, in
 * place), with what the run's file and its neighbours say about it (GPUs,
 * transport, environment); every run gets one finding of kind 'bandwidth':
 * its peak bus bandwidth, the transport that carried it, how it compares
 * with the other runs of the same collective on the same GPUs, how it rates
 * against data/bandwidth-expectations.tsv, and the tuning or transport
 * settings it ran with (data/config-knowledge.tsv).
 *
 * A run is one invocation: it starts at its nccl_tests_params line ("#
 * nThread ..."); its result rows, device lines and the NCCL INFO lines
 * interleaved with them are those of the same source up to the next run's
 * params line; the command line, version and "Collective test starting"
 * lines between the previous run's params line and its own are its preamble.
 * Rows before the first params line of a source (a cut file) make a run of
 * their own. */
#include "analysis_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "findings.h"
#include "knowledge.h"
#include "util.h"

enum {
	PEAK_MIN_BYTES = 64 << 20, /* a run whose largest message is smaller is not rated */
	FAR_BELOW_DIV = 3,         /* far below: peak < low bound / 3 */
	MAX_TR = 8,
	EV_MAX_WRONG = 5,          /* wrong rows cited per finding */
};

enum { OOP, IP }; /* placements */
static const char *const placement_name[] = {"out-of-place", "in-place"};

/* where an environment setting was seen, most authoritative first */
enum env_origin { ENV_NCCL, ENV_COMMAND, ENV_FILE, ENV_NEIGHBOUR };

struct env_var {
	char *name, *value;
	enum env_origin origin;
	int64_t ev; /* the line that shows it */
};

struct point {
	int64_t ev, line_no, size, count;
	char *dtype, *redop, *root;
	double time[2], algbw[2], busbw[2], err[2];
	int64_t wrong[2];
	bool has_wrong[2], has_err[2], has_bw[2];
};

struct tr {
	char name[64];
	int n;
	int64_t ev; /* its first channel line */
};

struct run {
	int64_t no, source_id, lo, hi, prev; /* params line, next run's, previous run's */
	int64_t ev_params, ev_command, ev_oob, ev_failure;
	char *path, *dir;
	char *binary, *collective, *command, *tests_version, *nccl_version, *network, *socket_if;
	char *failure;
	int64_t max_bytes;
	/* GPUs (device lines) */
	int gpus;
	char *gpu_name;
	struct buf hosts_json, devices_json, devkey;
	int nhosts;
	/* NCCL INFO lines */
	struct tr tr[MAX_TR];
	int ntr;
	int channels;
	int nics;            /* NET/IB devices listed per process */
	char ib_key[48];     /* "IB:400000" */
	double avg;
	bool has_avg;
	int64_t oob;
	bool has_oob;
	struct env_var *env;
	size_t nenv, envcap;
	struct point *pt;
	size_t npt, ptcap;
	/* computed */
	int peak[2]; /* index into pt, -1 */
	int64_t wrong_total;
	const char *transport; /* the bottleneck transport class, NULL when not logged */
	char *exp_link, *exp_transport, *typ_link;
	double exp_low, exp_high, typ_low, typ_high;
	const char *rating;
	int64_t finding;
};

static char *col_dup(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? xstrdup(s) : NULL;
}

/* A number as nccl-tests prints it; false for N/A, nan, inf or nothing. */
static bool num(const char *s, double *out)
{
	if (!s || !*s)
		return false;
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static void fmt_size(struct buf *b, int64_t n)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	double v = (double)n;
	while (u < 4 && v >= 1024) {
		v /= 1024;
		u++;
	}
	if (v == floor(v))
		buf_printf(b, "%.0f %s", v, unit[u]);
	else
		buf_printf(b, "%.1f %s", v, unit[u]);
}

/* ---- the environment of a run ---- */

static void env_add(struct run *r, const char *name, size_t nlen, const char *value, size_t vlen,
		    enum env_origin origin, int64_t ev)
{
	for (size_t i = 0; i < r->nenv; i++)
		if (strlen(r->env[i].name) == nlen && strncmp(r->env[i].name, name, nlen) == 0)
			return; /* an earlier origin is more authoritative */
	xgrow(&r->env, &r->envcap, r->nenv + 1, sizeof(*r->env));
	struct env_var *e = &r->env[r->nenv++];
	e->name = xstrndup(name, nlen);
	e->value = xstrndup(value, vlen);
	e->origin = origin;
	e->ev = ev;
}

static bool is_name(const char *s, size_t n)
{
	if (!n || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/* One NAME=VALUE word (or a comma-separated list of them). */
static void env_word(struct run *r, const char *w, size_t n, bool list, int64_t ev)
{
	while (n) {
		size_t len = n;
		if (list) {
			const char *comma = memchr(w, ',', n);
			if (comma)
				len = (size_t)(comma - w);
		}
		const char *eq = memchr(w, '=', len);
		if (eq && is_name(w, (size_t)(eq - w)))
			env_add(r, w, (size_t)(eq - w), eq + 1, len - (size_t)(eq - w) - 1, ENV_COMMAND, ev);
		w += len;
		n -= len;
		if (n) {
			w++;
			n--;
		}
	}
}

/* The settings of a command line: its NAME=VALUE words, and a launcher's
 * -x NAME=VALUE, --env NAME=VALUE, -genv NAME VALUE, --export=A=1,B=2. */
static void env_from_command(struct run *r, const char *env, const char *launcher, int64_t ev)
{
	if (env)
		for (const char *p = env; *p;) {
			p += strspn(p, " \t");
			size_t n = strcspn(p, " \t");
			env_word(r, p, n, false, ev);
			p += n;
		}
	if (!launcher)
		return;
	const char *prev = NULL;
	size_t prevn = 0;
	for (const char *p = launcher; *p;) {
		p += strspn(p, " \t");
		size_t n = strcspn(p, " \t");
		if (!n)
			break;
		if (prev && ((prevn == 2 && strncmp(prev, "-x", 2) == 0) || (prevn == 5 && strncmp(prev, "--env", 5) == 0)))
			env_word(r, p, n, false, ev);
		else if (n > 9 && strncmp(p, "--export=", 9) == 0)
			env_word(r, p + 9, n - 9, true, ev);
		else if (prev && prevn == 5 && strncmp(prev, "-genv", 5) == 0 && is_name(p, n)) {
			const char *v = p + n;
			v += strspn(v, " \t");
			size_t vn = strcspn(v, " \t");
			env_add(r, p, n, v, vn, ENV_COMMAND, ev);
		}
		prev = p;
		prevn = n;
		p += n;
	}
}

static int cmp_env(const void *a, const void *b)
{
	return strcmp(((const struct env_var *)a)->name, ((const struct env_var *)b)->name);
}

/* ---- transports ---- */

/* One name per transport class: NET/<plugin>, P2P, SHM, CollNet. */
static void tr_norm(const char *t, char *out, size_t n)
{
	if (str_starts(t, "NET/")) {
		snprintf(out, n, "NET/%.*s", net_plugin_len(t + 4), t + 4);
	} else {
		snprintf(out, n, "%.*s", (int)strcspn(t, "/"), t);
	}
}

/* slowest first: NET, CollNet, SHM, P2P, anything else */
static int tr_rank(const char *t)
{
	return str_starts(t, "NET/") ? 0 : str_starts(t, "CollNet") ? 1 : strcmp(t, "SHM") == 0 ? 2
		: strcmp(t, "P2P") == 0 ? 3 : 4;
}

static void tr_add(struct run *r, const char *raw, int64_t ev)
{
	char name[64];
	tr_norm(raw, name, sizeof(name));
	for (int i = 0; i < r->ntr; i++)
		if (strcmp(r->tr[i].name, name) == 0) {
			r->tr[i].n++;
			return;
		}
	if (r->ntr == MAX_TR)
		return;
	struct tr *t = &r->tr[r->ntr++];
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->n = 1;
	t->ev = ev;
}

static const struct tr *bottleneck(const struct run *r)
{
	const struct tr *best = NULL;
	for (int i = 0; i < r->ntr; i++) {
		const struct tr *t = &r->tr[i];
		if (!best || tr_rank(t->name) < tr_rank(best->name) ||
		    (tr_rank(t->name) == tr_rank(best->name) && t->n > best->n))
			best = t;
	}
	return best;
}

/* ---- loading one run ---- */

static void load_preamble(sqlite3 *db, struct run *r)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT event_id, kind, field(fields, 'binary'), field(fields, 'version'),"
		"  field(fields, 'env'), field(fields, 'launcher'), field(fields, 'name'),"
		"  field(fields, 'value'), line_body(l.text)"
		" FROM events e LEFT JOIN lines l ON l.source_id = e.source_id AND l.line_no = e.line_no"
		" WHERE e.source_id = ?1 AND e.line_no > ?2 AND e.line_no < ?3"
		"  AND e.kind IN ('nccl_tests_command','nccl_tests_version','nccl_tests_start','sys_env_setting')"
		" ORDER BY e.kind = 'sys_env_setting', e.line_no DESC");
	sqlite3_bind_int64(st, 1, r->source_id);
	sqlite3_bind_int64(st, 2, r->prev);
	sqlite3_bind_int64(st, 3, r->lo);
	bool have_start = false;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 1);
		int64_t ev = sqlite3_column_int64(st, 0);
		if (strcmp(kind, "nccl_tests_command") == 0 && !r->ev_command) {
			r->ev_command = ev;
			if (!r->binary)
				r->binary = col_dup(st, 2);
			const char *text = (const char *)sqlite3_column_text(st, 8);
			if (text) {
				text += strspn(text, " \t");
				if (text[0] == '$' && (text[1] == ' ' || text[1] == '\t'))
					text += 1 + strspn(text + 1, " \t");
				r->command = xstrdup(text);
			}
			env_from_command(r, (const char *)sqlite3_column_text(st, 4),
					 (const char *)sqlite3_column_text(st, 5), ev);
		} else if (strcmp(kind, "nccl_tests_version") == 0 && !r->tests_version) {
			r->tests_version = col_dup(st, 3);
		} else if (strcmp(kind, "nccl_tests_start") == 0 && !have_start) {
			have_start = true;
			free(r->binary); /* the program's own name wins over the command's */
			r->binary = col_dup(st, 2);
		} else if (strcmp(kind, "sys_env_setting") == 0) { /* after the command (ORDER BY) */
			const char *n = (const char *)sqlite3_column_text(st, 6);
			const char *v = (const char *)sqlite3_column_text(st, 7);
			if (n)
				env_add(r, n, strlen(n), v ? v : "", v ? strlen(v) : 0, ENV_FILE, ev);
		}
	}
	sqlite3_finalize(st);
}

static void load_devices(sqlite3 *db, struct run *r)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT field(fields, 'host'), CAST(field(fields, 'bus_id') AS TEXT),"
		"  field(fields, 'gpu') FROM events"
		" WHERE source_id = ?1 AND line_no > ?2 AND line_no < ?3 AND kind = 'nccl_tests_device'"
		" ORDER BY field(fields, 'host'), CAST(field(fields, 'bus_id') AS TEXT), line_no");
	sqlite3_bind_int64(st, 1, r->source_id);
	sqlite3_bind_int64(st, 2, r->lo);
	sqlite3_bind_int64(st, 3, r->hi);
	char last_host[256] = "";
	bool mixed = false;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *host = (const char *)sqlite3_column_text(st, 0);
		const char *bus = (const char *)sqlite3_column_text(st, 1);
		const char *gpu = (const char *)sqlite3_column_text(st, 2);
		host = host ? host : "?";
		bus = bus ? bus : "?";
		if (r->gpus == 0 || strcmp(host, last_host) != 0) {
			buf_puts(&r->hosts_json, r->nhosts ? "," : "[");
			buf_json_str(&r->hosts_json, host, strlen(host));
			snprintf(last_host, sizeof(last_host), "%s", host);
			r->nhosts++;
		}
		char dev[384];
		snprintf(dev, sizeof(dev), "%s:%s", host, bus);
		buf_puts(&r->devices_json, r->gpus ? "," : "[");
		buf_json_str(&r->devices_json, dev, strlen(dev));
		buf_printf(&r->devkey, "%s%s", r->gpus ? "," : "", dev);
		if (gpu && !r->gpu_name)
			r->gpu_name = xstrdup(gpu);
		else if (gpu && strcmp(gpu, r->gpu_name) != 0)
			mixed = true;
		r->gpus++;
	}
	sqlite3_finalize(st);
	if (r->gpus) {
		buf_putc(&r->hosts_json, ']');
		buf_putc(&r->devices_json, ']');
	}
	if (mixed) {
		char *m = xasprintf("%s and others", r->gpu_name);
		free(r->gpu_name);
		r->gpu_name = m;
	}
}

static void load_rows(sqlite3 *db, struct run *r)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT event_id, line_no, CAST(field(fields, 'size') AS INTEGER),"
		"  CAST(field(fields, 'count') AS INTEGER), field(fields, 'type'),"
		"  field(fields, 'redop'), CAST(field(fields, 'root') AS TEXT),"
		"  field(fields, 'oop_time'), field(fields, 'oop_algbw'), field(fields, 'oop_busbw'),"
		"  field(fields, 'oop_wrong'), field(fields, 'oop_error'),"
		"  field(fields, 'ip_time'), field(fields, 'ip_algbw'), field(fields, 'ip_busbw'),"
		"  field(fields, 'ip_wrong'), field(fields, 'ip_error')"
		" FROM events WHERE source_id = ?1 AND line_no > ?2 AND line_no < ?3 AND kind = 'nccl_tests_row'"
		" ORDER BY line_no");
	sqlite3_bind_int64(st, 1, r->source_id);
	sqlite3_bind_int64(st, 2, r->lo);
	sqlite3_bind_int64(st, 3, r->hi);
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&r->pt, &r->ptcap, r->npt + 1, sizeof(*r->pt));
		struct point *p = &r->pt[r->npt++];
		memset(p, 0, sizeof(*p));
		p->ev = sqlite3_column_int64(st, 0);
		p->line_no = sqlite3_column_int64(st, 1);
		p->size = sqlite3_column_int64(st, 2);
		p->count = sqlite3_column_int64(st, 3);
		p->dtype = col_dup(st, 4);
		p->redop = col_dup(st, 5);
		p->root = col_dup(st, 6);
		for (int k = 0; k < 2; k++) {
			int c = 7 + k * 5;
			if (!num((const char *)sqlite3_column_text(st, c), &p->time[k]))
				p->time[k] = NAN;
			if (!num((const char *)sqlite3_column_text(st, c + 1), &p->algbw[k]))
				p->algbw[k] = NAN;
			p->has_bw[k] = num((const char *)sqlite3_column_text(st, c + 2), &p->busbw[k]);
			double w;
			if (num((const char *)sqlite3_column_text(st, c + 3), &w)) {
				p->has_wrong[k] = true;
				p->wrong[k] = (int64_t)w;
				r->wrong_total += p->wrong[k];
			}
			p->has_err[k] = num((const char *)sqlite3_column_text(st, c + 4), &p->err[k]);
		}
		if (p->size > r->max_bytes)
			r->max_bytes = p->size;
	}
	sqlite3_finalize(st);
}

/* The NCCL INFO lines and the footer of the run. */
static void load_body(sqlite3 *db, struct run *r)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT event_id, kind, pid,"
		"  CASE kind WHEN 'nccl_tests_oob' THEN field(fields, 'oob')"
		"    WHEN 'nccl_tests_avg_busbw' THEN field(fields, 'avg_busbw')"
		"    WHEN 'nccl_channel' THEN field(fields, 'transport')"
		"    WHEN 'nccl_using_network' THEN field(fields, 'network')"
		"    WHEN 'nccl_channels' THEN field(fields, 'nchannels')"
		"    WHEN 'nccl_ib_device' THEN field(fields, 'link')"
		"    WHEN 'nccl_net_devices' THEN field(fields, 'plugin')"
		"    WHEN 'nccl_tests_failure' THEN field(fields, 'msg')"
		"    WHEN 'sys_env_setting' THEN field(fields, 'name')"
		"    WHEN 'nccl_env' THEN field(fields, 'name')"
		"    WHEN 'nccl_env_set' THEN field(fields, 'name')"
		"    ELSE field(fields, 'version') END,"
		"  CASE kind WHEN 'nccl_ib_device' THEN field(fields, 'speed')"
		"    WHEN 'nccl_net_devices' THEN field(fields, 'devices')"
		"    WHEN 'nccl_channel' THEN field(fields, 'channel')"
		"    ELSE field(fields, 'value') END,"
		"  CASE kind WHEN 'nccl_ib_device' THEN field(fields, 'index') END"
		" FROM events WHERE source_id = ?1 AND line_no > ?2 AND line_no < ?3 AND kind IN"
		"  ('nccl_tests_oob','nccl_tests_avg_busbw','nccl_channel','nccl_using_network','nccl_channels',"
		"   'nccl_ib_device','nccl_net_devices','nccl_tests_failure','nccl_env','nccl_env_set','nccl_version',"
		"   'nccl_tests_nccl_version')"
		" ORDER BY line_no");
	sqlite3_bind_int64(st, 1, r->source_id);
	sqlite3_bind_int64(st, 2, r->lo);
	sqlite3_bind_int64(st, 3, r->hi);
	/* NET/IB devices per process */
	int64_t nic_pid = -1;
	int nic_n = 0;
	uint64_t nic_seen = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t ev = sqlite3_column_int64(st, 0);
		const char *kind = (const char *)sqlite3_column_text(st, 1);
		const char *a = (const char *)sqlite3_column_text(st, 3);
		const char *b = (const char *)sqlite3_column_text(st, 4);
		double v;
		if (strcmp(kind, "nccl_tests_oob") == 0 && num(a, &v)) {
			r->oob = (int64_t)v;
			r->has_oob = true;
			r->ev_oob = ev;
		} else if (strcmp(kind, "nccl_tests_avg_busbw") == 0 && num(a, &v)) {
			r->avg = v;
			r->has_avg = true;
		} else if (strcmp(kind, "nccl_channel") == 0 && a) {
			tr_add(r, a, ev);
		} else if (strcmp(kind, "nccl_using_network") == 0 && a && !r->network) {
			r->network = xstrdup(a);
		} else if (strcmp(kind, "nccl_channels") == 0 && num(a, &v) && (int)v > r->channels) {
			r->channels = (int)v;
		} else if (strcmp(kind, "nccl_ib_device") == 0 && a && b) {
			int64_t pid = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
			if (pid != nic_pid) {
				nic_pid = pid;
				nic_n = 0;
				nic_seen = 0;
			}
			int idx = sqlite3_column_int(st, 5) & 63;
			if (!(nic_seen & (1ULL << idx))) {
				nic_seen |= 1ULL << idx;
				nic_n++;
			}
			if (nic_n > r->nics)
				r->nics = nic_n;
			if (!r->ib_key[0])
				snprintf(r->ib_key, sizeof(r->ib_key), "%s:%s", a, b);
		} else if (strcmp(kind, "nccl_net_devices") == 0 && a && b && strcmp(a, "Socket") == 0 && !r->socket_if) {
			/* "[0]lo:127.0.0.1<0>" -> lo */
			const char *p = b[0] == '[' ? strchr(b, ']') : NULL;
			p = p ? p + 1 : b;
			r->socket_if = xstrndup(p, strcspn(p, ":<; "));
		} else if (strcmp(kind, "nccl_tests_failure") == 0 && !r->failure) {
			r->failure = xstrdup(a ? a : "");
			/* NCCLCHECK prints "'<error> / <last error>'": drop an empty last error */
			size_t n = strlen(r->failure);
			while (n && (r->failure[n - 1] == ' ' || r->failure[n - 1] == '/'))
				r->failure[--n] = '\0';
			r->ev_failure = ev;
		} else if ((strcmp(kind, "nccl_env") == 0 || strcmp(kind, "nccl_env_set") == 0) && a) {
			env_add(r, a, strlen(a), b ? b : "", b ? strlen(b) : 0, ENV_NCCL, ev);
		} else if ((strcmp(kind, "nccl_version") == 0 || strcmp(kind, "nccl_tests_nccl_version") == 0) && a &&
			   !r->nccl_version) {
			r->nccl_version = xstrdup(a);
		}
	}
	sqlite3_finalize(st);
	if (!r->channels) { /* no "N coll channels" line: count the channels of the channel lines */
		st = db_prepare(db, "SELECT count(DISTINCT CAST(field(fields, 'channel') AS INTEGER)) FROM events"
				    " WHERE source_id = ?1 AND line_no > ?2 AND line_no < ?3 AND kind = 'nccl_channel'");
		sqlite3_bind_int64(st, 1, r->source_id);
		sqlite3_bind_int64(st, 2, r->lo);
		sqlite3_bind_int64(st, 3, r->hi);
		if (sqlite3_step(st) == SQLITE_ROW)
			r->channels = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
}

/* sys_env_setting lines (env dumps) of sources in the same directory that
 * hold no nccl-tests run themselves. */
static void load_neighbours(sqlite3 *db, struct run *r)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT e.event_id, s.path, field(e.fields, 'name'), field(e.fields, 'value')"
		" FROM events e JOIN sources s USING(source_id)"
		" WHERE e.kind = 'sys_env_setting' AND e.source_id <> ?1"
		"  AND NOT EXISTS (SELECT 1 FROM events p WHERE p.source_id = e.source_id AND p.kind = 'nccl_tests_params')"
		" ORDER BY e.source_id, e.line_no");
	sqlite3_bind_int64(st, 1, r->source_id);
	size_t dlen = strlen(r->dir);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 1);
		const char *n = (const char *)sqlite3_column_text(st, 2);
		const char *v = (const char *)sqlite3_column_text(st, 3);
		const char *slash = path ? strrchr(path, '/') : NULL;
		size_t plen = slash ? (size_t)(slash - path) : 0;
		if (!n || plen != dlen || (dlen && strncmp(path, r->dir, dlen) != 0))
			continue;
		env_add(r, n, strlen(n), v ? v : "", v ? strlen(v) : 0, ENV_NEIGHBOUR, sqlite3_column_int64(st, 0));
	}
	sqlite3_finalize(st);
}

/* "22809" -> "2.28.9" (NCCL_VERSION_CODE: major*10000 + minor*100 + patch since 2.9, major*1000 before) */
static char *nccl_code_version(int64_t code)
{
	if (code >= 20900)
		return xasprintf("%lld.%lld.%lld", (long long)(code / 10000), (long long)(code / 100 % 100),
				 (long long)(code % 100));
	if (code >= 1000)
		return xasprintf("%lld.%lld.%lld", (long long)(code / 1000), (long long)(code / 100 % 10),
				 (long long)(code % 100));
	return NULL;
}

/* ---- rating ---- */

/* The first expectation row of transport whose match GLOBs key. */
static bool expect_row(sqlite3 *db, const char *transport, const char *key, double peak, bool containing, char **link,
		       double *low, double *high)
{
	if (!key)
		return false;
	sqlite3_stmt *st = db_prepare(db,
		"SELECT link, CAST(low_gbs AS REAL), CAST(high_gbs AS REAL), per FROM temp.bw_expect"
		" WHERE transport = ?1 AND (?2 GLOB match OR ?2 IS NULL)"
		"  AND (?3 IS NULL OR ?3 BETWEEN CAST(low_gbs AS REAL) AND CAST(high_gbs AS REAL))"
		" ORDER BY rowid LIMIT 1");
	sqlite3_bind_text(st, 1, transport, -1, SQLITE_STATIC);
	if (*key)
		sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	if (containing)
		sqlite3_bind_double(st, 3, peak);
	bool found = false;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*link = col_dup(st, 0);
		*low = sqlite3_column_double(st, 1);
		*high = sqlite3_column_double(st, 2);
		found = true;
	}
	sqlite3_finalize(st);
	return found;
}

static void rate(sqlite3 *db, struct run *r, bool have_table)
{
	const struct tr *b = bottleneck(r);
	r->transport = b ? b->name : NULL;
	if (!have_table || r->peak[OOP] < 0 || !r->gpus)
		return;
	double peak = r->pt[r->peak[OOP]].busbw[OOP];
	/* the path the hardware should have used */
	if (r->nhosts == 1) {
		if (expect_row(db, "P2P", r->gpu_name, 0, false, &r->exp_link, &r->exp_low, &r->exp_high))
			r->exp_transport = xstrdup("P2P");
	} else if (r->ib_key[0]) {
		if (expect_row(db, "NET/IB", r->ib_key, 0, false, &r->exp_link, &r->exp_low, &r->exp_high)) {
			int n = r->nics > 0 ? r->nics : 1;
			r->exp_low *= n;
			r->exp_high *= n;
			r->exp_transport = xstrdup("NET/IB");
		}
	}
	/* what the transport it did use typically gives, when that is another one */
	if (r->transport && (!r->exp_transport || strcmp(r->transport, r->exp_transport) != 0)) {
		bool by_gpu = strcmp(r->transport, "P2P") == 0 || strcmp(r->transport, "SHM") == 0;
		expect_row(db, r->transport, by_gpu ? r->gpu_name : "", peak, true, &r->typ_link, &r->typ_low,
			   &r->typ_high);
	}
	if (!r->exp_transport)
		r->rating = "not rated";
	else if (r->max_bytes < PEAK_MIN_BYTES)
		r->rating = "not rated";
	else if (peak >= r->exp_low)
		r->rating = "as expected";
	else if (peak >= r->exp_low / FAR_BELOW_DIV)
		r->rating = "low";
	else
		r->rating = "far below";
}

/* ---- the table ---- */

static void insert_rows(sqlite3 *db, const struct run *r)
{
	sqlite3_stmt *st = db_prepare(db,
		"INSERT INTO bandwidth(run, source_id, line_no, event_id, collective, size_bytes, count, dtype, redop, root,"
		"  placement, time_us, algbw_gbs, busbw_gbs, wrong, max_error, is_peak, gpus, gpu_name, hosts, devices,"
		"  transport, transports, network, channels, nccl_version, tests_version, command, env, avg_busbw_gbs, oob,"
		"  rating, expected, expected_low_gbs, expected_high_gbs, finding_id)"
		" VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,CAST(?10 AS INTEGER),?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,"
		"  ?22,?23,?24,?25,?26,?27,?28,?29,?30,?31,?32,?33,?34,?35,?36)");
	struct buf trj = {0}, envj = {0}, expected = {0};
	if (r->ntr) {
		buf_putc(&trj, '{');
		for (int i = 0; i < r->ntr; i++) {
			buf_puts(&trj, i ? "," : "");
			buf_json_str(&trj, r->tr[i].name, strlen(r->tr[i].name));
			buf_printf(&trj, ":%d", r->tr[i].n);
		}
		buf_putc(&trj, '}');
	}
	buf_putc(&envj, '{');
	for (size_t i = 0; i < r->nenv; i++) {
		buf_puts(&envj, i ? "," : "");
		buf_json_str(&envj, r->env[i].name, strlen(r->env[i].name));
		buf_putc(&envj, ':');
		buf_json_str(&envj, r->env[i].value, strlen(r->env[i].value));
	}
	buf_putc(&envj, '}');
	if (r->exp_transport)
		buf_printf(&expected, "%s over %s", r->exp_transport, r->exp_link);
	for (size_t i = 0; i < r->npt; i++) {
		const struct point *p = &r->pt[i];
		for (int k = 0; k < 2; k++) {
			if (!p->has_bw[k] && isnan(p->time[k]))
				continue;
			sqlite3_bind_int64(st, 1, r->no);
			sqlite3_bind_int64(st, 2, r->source_id);
			sqlite3_bind_int64(st, 3, p->line_no);
			sqlite3_bind_int64(st, 4, p->ev);
			db_bind_text(st, 5, r->collective, -1);
			sqlite3_bind_int64(st, 6, p->size);
			sqlite3_bind_int64(st, 7, p->count);
			db_bind_text(st, 8, p->dtype, -1);
			db_bind_text(st, 9, p->redop, -1);
			db_bind_text(st, 10, p->root, -1);
			sqlite3_bind_text(st, 11, placement_name[k], -1, SQLITE_STATIC);
			if (isnan(p->time[k]))
				sqlite3_bind_null(st, 12);
			else
				sqlite3_bind_double(st, 12, p->time[k]);
			if (isnan(p->algbw[k]))
				sqlite3_bind_null(st, 13);
			else
				sqlite3_bind_double(st, 13, p->algbw[k]);
			if (p->has_bw[k])
				sqlite3_bind_double(st, 14, p->busbw[k]);
			else
				sqlite3_bind_null(st, 14);
			db_bind_int_or_null(st, 15, p->wrong[k], p->has_wrong[k]);
			if (p->has_err[k])
				sqlite3_bind_double(st, 16, p->err[k]);
			else
				sqlite3_bind_null(st, 16);
			sqlite3_bind_int(st, 17, r->peak[k] == (int)i);
			db_bind_int_or_null(st, 18, r->gpus, r->gpus > 0);
			db_bind_text(st, 19, r->gpu_name, -1);
			db_bind_text(st, 20, r->hosts_json.data, -1);
			db_bind_text(st, 21, r->devices_json.data, -1);
			db_bind_text(st, 22, r->transport, -1);
			db_bind_text(st, 23, trj.data, -1);
			db_bind_text(st, 24, r->network, -1);
			db_bind_int_or_null(st, 25, r->channels, r->channels > 0);
			db_bind_text(st, 26, r->nccl_version, -1);
			db_bind_text(st, 27, r->tests_version, -1);
			db_bind_text(st, 28, r->command, -1);
			db_bind_text(st, 29, envj.data, -1);
			if (r->has_avg)
				sqlite3_bind_double(st, 30, r->avg);
			else
				sqlite3_bind_null(st, 30);
			db_bind_int_or_null(st, 31, r->oob, r->has_oob);
			db_bind_text(st, 32, r->rating, -1);
			db_bind_text(st, 33, expected.data, -1);
			if (r->exp_transport) {
				sqlite3_bind_double(st, 34, r->exp_low);
				sqlite3_bind_double(st, 35, r->exp_high);
			} else {
				sqlite3_bind_null(st, 34);
				sqlite3_bind_null(st, 35);
			}
			db_bind_int_or_null(st, 36, r->finding, r->finding > 0);
			db_step_done(st);
		}
	}
	sqlite3_finalize(st);
	buf_free(&trj);
	buf_free(&envj);
	buf_free(&expected);
}

/* ---- the finding ---- */

/* settings that change tuning or transport, from config-knowledge.tsv */
struct setting {
	const struct env_var *e;
	bool transport; /* a transport override (else a tuning one) */
	char *why;
};

static size_t overrides(sqlite3 *db, const struct run *r, bool have_kb, struct setting *out, size_t max)
{
	/* used when data/config-knowledge.tsv cannot be read */
	static const char *const tuning[] = {"NCCL_ALGO", "NCCL_PROTO", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS"};
	static const char *const transport[] = {"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_IB_DISABLE", "NCCL_NET"};
	sqlite3_stmt *st = have_kb ? db_prepare(db, "SELECT status, explanation FROM temp.bw_config_kb WHERE name = ?1"
						    " AND status IN ('tuner-override','transport-override') LIMIT 1")
				   : NULL;
	size_t n = 0;
	for (size_t i = 0; i < r->nenv && n < max; i++) {
		const struct env_var *e = &r->env[i];
		int kind = 0; /* 1 tuning, 2 transport */
		char *why = NULL;
		if (st) {
			sqlite3_reset(st);
			sqlite3_bind_text(st, 1, e->name, -1, SQLITE_STATIC);
			if (sqlite3_step(st) == SQLITE_ROW) {
				const char *status = (const char *)sqlite3_column_text(st, 0);
				kind = status && strcmp(status, "transport-override") == 0 ? 2 : 1;
				why = col_dup(st, 1);
			}
		} else {
			for (size_t j = 0; j < ARRAY_LEN(tuning); j++)
				kind = strcmp(e->name, tuning[j]) == 0 ? 1 : kind;
			for (size_t j = 0; j < ARRAY_LEN(transport); j++)
				kind = strcmp(e->name, transport[j]) == 0 ? 2 : kind;
		}
		if (!kind)
			continue;
		out[n++] = (struct setting){e, kind == 2, why};
	}
	sqlite3_finalize(st);
	return n;
}

static void put_label(struct buf *b, const struct run *r)
{
	if (!r->transport) {
		buf_printf(b, "%s", r->collective ? r->collective : "nccl-tests");
		return;
	}
	buf_puts(b, r->transport);
	if (strcmp(r->transport, "P2P") == 0 && r->exp_link && strcmp(r->exp_transport, "P2P") == 0)
		buf_printf(b, "/%.*s", (int)strcspn(r->exp_link, " "), r->exp_link);
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "?";
}

static void put_ident(struct buf *b, const struct run *r, int runs_in_file)
{
	put_label(b, r);
	buf_printf(b, " run (%s", base_name(r->path));
	if (runs_in_file > 1)
		buf_printf(b, " run %lld", (long long)r->no);
	if (r->binary)
		buf_printf(b, ", %s", r->binary);
	if (r->gpus)
		buf_printf(b, ", %dx %s on %d host%s", r->gpus, r->gpu_name ? r->gpu_name : "GPU", r->nhosts,
			   r->nhosts == 1 ? "" : "s");
	if (!r->transport)
		buf_puts(b, ", transport not logged");
	else if (str_starts(r->transport, "NET/Socket") && r->socket_if)
		buf_printf(b, ", interface %s", r->socket_if);
	buf_puts(b, ")");
}

static void put_ratio(struct buf *b, double best, double mine)
{
	double ratio = mine > 0 ? best / mine : INFINITY;
	if (ratio >= 10)
		buf_printf(b, "%.0fx below", ratio);
	else if (ratio >= 2)
		buf_printf(b, "%.1fx below", ratio);
	else if (ratio >= 1.005)
		buf_printf(b, "%.0f%% below", (1 - mine / best) * 100);
	else
		buf_puts(b, "on par with");
}

static double peak_of(const struct run *r)
{
	return r->peak[OOP] >= 0 ? r->pt[r->peak[OOP]].busbw[OOP] : -1;
}

static bool same_gpus(const struct run *a, const struct run *b)
{
	return a->devkey.data && b->devkey.data && strcmp(a->devkey.data, b->devkey.data) == 0;
}

static bool same_coll(const struct run *a, const struct run *b)
{
	return a->collective && b->collective && strcmp(a->collective, b->collective) == 0;
}

/* The lines behind a run's finding, the most telling first. */
static void cite(sqlite3 *db, const struct run *r, const struct run *best, const struct setting *set, size_t nset)
{
	int cited = 0;
	for (size_t i = 0; i < r->npt && cited < EV_MAX_WRONG; i++)
		if ((r->pt[i].has_wrong[OOP] && r->pt[i].wrong[OOP] > 0) || (r->pt[i].has_wrong[IP] && r->pt[i].wrong[IP] > 0)) {
			evidence_add(db, r->finding, r->pt[i].ev, "#wrong is not 0");
			cited++;
		}
	if (r->has_oob && r->oob > 0)
		evidence_add(db, r->finding, r->ev_oob, "out-of-bounds values");
	if (r->ev_failure)
		evidence_add(db, r->finding, r->ev_failure, "the failure");
	if (r->peak[OOP] >= 0) {
		struct buf note = {0};
		const struct point *pk = &r->pt[r->peak[OOP]];
		buf_printf(&note, "peak: %.1f GB/s bus bandwidth at ", pk->busbw[OOP]);
		fmt_size(&note, pk->size);
		buf_puts(&note, " (out of place)");
		evidence_add(db, r->finding, pk->ev, note.data);
		buf_free(&note);
	}
	const struct tr *b = bottleneck(r);
	if (b)
		evidence_add(db, r->finding, b->ev, "the transport");
	if (r->ev_command)
		evidence_add(db, r->finding, r->ev_command, "the command");
	for (size_t i = 0; i < nset; i++)
		if (set[i].e->ev != r->ev_command)
			evidence_add(db, r->finding, set[i].e->ev, "a setting of the run");
	if (best && peak_of(best) > peak_of(r))
		evidence_add(db, r->finding, best->pt[best->peak[OOP]].ev, "the faster run's peak");
}

static void finding(sqlite3 *db, struct run *runs, size_t nruns, size_t ri, bool have_kb)
{
	struct run *r = &runs[ri];
	struct buf s = {0}, hint = {0};
	int in_file = 0;
	for (size_t i = 0; i < nruns; i++)
		in_file += runs[i].source_id == r->source_id;
	bool corrupt = r->wrong_total > 0 || (r->has_oob && r->oob > 0);
	const char *severity = "info";
	struct setting set[16];
	size_t nset = overrides(db, r, have_kb, set, ARRAY_LEN(set));

	if (corrupt) {
		severity = "error";
		buf_puts(&s, "Data corruption in the ");
	}
	put_ident(&s, r, in_file);
	buf_puts(&s, ": ");
	const struct run *best = NULL, *other = NULL;
	int peers = 0;
	if (r->peak[OOP] < 0) {
		if (r->failure) {
			severity = "error";
			buf_printf(&s, "failed before any result: %s", r->failure);
		} else {
			severity = corrupt ? severity : "warning";
			buf_puts(&s, "no result rows (the output ends early)");
		}
	} else {
		const struct point *pk = &r->pt[r->peak[OOP]];
		if (corrupt) {
			int64_t rows = 0;
			const struct point *first = NULL;
			int first_k = OOP;
			for (size_t i = 0; i < r->npt; i++)
				for (int k = 0; k < 2; k++)
					if (r->pt[i].has_wrong[k] && r->pt[i].wrong[k] > 0) {
						rows++;
						if (!first) {
							first = &r->pt[i];
							first_k = k;
						}
					}
			if (first) {
				buf_printf(&s, "%lld wrong element%s at ", (long long)first->wrong[first_k],
					   first->wrong[first_k] == 1 ? "" : "s");
				fmt_size(&s, first->size);
				buf_printf(&s, " %s (#wrong)", first_k == OOP ? "out of place" : "in place");
				if (rows > 1)
					buf_printf(&s, ", %lld results with wrong elements in all", (long long)rows);
			}
			if (r->has_oob && r->oob > 0)
				buf_printf(&s, "%s%lld out-of-bounds value%s", first ? "; " : "", (long long)r->oob,
					   r->oob == 1 ? "" : "s");
			buf_puts(&s, ": an error whatever its speed; ");
		}
		buf_printf(&s, "%.1f GB/s peak bus bandwidth at ", pk->busbw[OOP]);
		fmt_size(&s, pk->size);
		/* the other runs of the same collective on the same GPUs */
		for (size_t i = 0; i < nruns; i++) {
			const struct run *o = &runs[i];
			if (i == ri || !same_gpus(r, o) || peak_of(o) < 0)
				continue;
			if (same_coll(r, o)) {
				peers++;
				if (!best || peak_of(o) > peak_of(best))
					best = o;
			} else if (!other || peak_of(o) > peak_of(other)) {
				other = o;
			}
		}
		if (best && peak_of(best) > peak_of(r)) {
			buf_puts(&s, ", ");
			put_ratio(&s, peak_of(best), peak_of(r));
			buf_puts(&s, " the ");
			put_label(&s, best);
			buf_printf(&s, " run of the same GPUs (%.1f GB/s, %s)", peak_of(best), base_name(best->path));
		} else if (best) {
			buf_printf(&s, ", the fastest of %d %s runs on these GPUs", peers + 1, r->collective);
		}
		if (r->rating && r->exp_transport && strcmp(r->rating, "not rated") != 0) {
			if (strcmp(r->rating, "as expected") == 0)
				buf_printf(&s, "; as expected of %s over %s (%g-%g GB/s)", r->exp_transport, r->exp_link,
					   r->exp_low, r->exp_high);
			else
				buf_printf(&s, "; %s the %g-%g GB/s expected of %s over %s", r->rating, r->exp_low,
					   r->exp_high, r->exp_transport, r->exp_link);
			if (r->exp_transport && strcmp(r->exp_transport, "NET/IB") == 0 && r->nics > 1)
				buf_printf(&s, " x%d NICs", r->nics);
			if (r->typ_link && strcmp(r->rating, "as expected") != 0)
				buf_printf(&s, " (%.1f GB/s is typical of %s: %g-%g GB/s)", peak_of(r), r->typ_link,
					   r->typ_low, r->typ_high);
		} else if (r->exp_transport) {
			buf_printf(&s, "; not rated: the largest message (");
			fmt_size(&s, r->max_bytes);
			buf_puts(&s, ") is too small to reach the peak");
		}
		if (!best && other && peak_of(other) > peak_of(r))
			buf_printf(&s, "; other collectives on these GPUs reached %.1f GB/s (%s, %s)", peak_of(other),
				   other->collective ? other->collective : "?", base_name(other->path));
		if (!corrupt && r->rating && (strcmp(r->rating, "low") == 0 || strcmp(r->rating, "far below") == 0))
			severity = "warning";
	}
	/* the settings it ran with, and the probable cause of a slow run */
	bool slow = strcmp(severity, "warning") == 0 && r->peak[OOP] >= 0;
	bool other_path = r->transport && r->exp_transport && strcmp(r->transport, r->exp_transport) != 0;
	bool have_tr = false, have_tune = false;
	for (size_t i = 0; i < nset; i++) {
		have_tr |= set[i].transport;
		have_tune |= !set[i].transport;
	}
	/* the cause: a transport override when the transport is not the expected one (or unknown), else a tuning one */
	bool cause_tr = slow && have_tr && (other_path || !r->transport);
	bool cause_tune = slow && !cause_tr && have_tune;
	bool cited_cause = false;
	for (size_t i = 0; i < nset; i++) {
		if (!((cause_tr && set[i].transport) || (cause_tune && !set[i].transport)))
			continue;
		buf_printf(&s, "%s%s=%s", cited_cause ? " and " : "; probable cause: ", set[i].e->name, set[i].e->value);
		if (set[i].why)
			buf_printf(&s, ", which %s", set[i].why);
		cited_cause = true;
	}
	bool listed = false;
	for (size_t i = 0; i < nset; i++) {
		if ((cause_tr && set[i].transport) || (cause_tune && !set[i].transport))
			continue;
		buf_printf(&s, "%s%s=%s", listed ? ", " : cited_cause ? "; also set: " : "; set: ", set[i].e->name,
			   set[i].e->value);
		listed = true;
	}
	if (slow && other_path && !cause_tr)
		buf_printf(&s, "; NCCL used %s, not %s", r->transport, r->exp_transport);
	buf_putc(&s, '.');

	if (corrupt) {
		buf_puts(&hint, "Wrong results from nccl-tests mean a GPU, an NVLink/PCIe link or a NIC corrupts data: look for"
				" Xid and link errors in dmesg, run the GPU diagnostics (dcgmi diag -r 3) and keep these"
				" GPUs out of jobs until a rerun is clean.");
	} else if (r->peak[OOP] < 0 && r->failure) {
		buf_puts(&hint, "Rerun with NCCL_DEBUG=INFO to see why the test failed.");
	} else if (cause_tr || cause_tune) {
		buf_puts(&hint, "Rerun without ");
		int k = 0;
		for (size_t i = 0; i < nset; i++)
			if ((cause_tr && set[i].transport) || (cause_tune && !set[i].transport))
				buf_printf(&hint, "%s%s", k++ ? ", " : "", set[i].e->name);
		if (r->exp_transport)
			buf_printf(&hint, ": %s over %s should reach %g-%g GB/s.", r->exp_transport, r->exp_link, r->exp_low,
				   r->exp_high);
		else
			buf_puts(&hint, " and compare.");
	} else if (slow && !r->transport) {
		buf_puts(&hint, "Rerun with NCCL_DEBUG=INFO: NCCL then logs the transport of every channel.");
	} else if (slow && other_path) {
		buf_printf(&hint, "Find out why NCCL did not use %s (NCCL_P2P_LEVEL, PCIe ACS or IOMMU settings, containers"
				  " without shared IPC, NICs or drivers missing).", r->exp_transport);
	} else if (slow) {
		buf_puts(&hint, "Check the links of these GPUs (nvidia-smi nvlink -s, nvidia-smi topo -m) and rerun.");
	}

	r->finding = finding_add(db, "bandwidth", severity, NULL, r->hosts_json.data, s.data, hint.data);
	cite(db, r, best, set, nset);
	for (size_t i = 0; i < nset; i++)
		free(set[i].why);
	buf_free(&s);
	buf_free(&hint);
}

/* ---- driver ---- */

static void run_free(struct run *r)
{
	free(r->path);
	free(r->dir);
	free(r->binary);
	free(r->collective);
	free(r->command);
	free(r->tests_version);
	free(r->nccl_version);
	free(r->network);
	free(r->socket_if);
	free(r->failure);
	free(r->gpu_name);
	buf_free(&r->hosts_json);
	buf_free(&r->devices_json);
	buf_free(&r->devkey);
	for (size_t i = 0; i < r->nenv; i++) {
		free(r->env[i].name);
		free(r->env[i].value);
	}
	free(r->env);
	for (size_t i = 0; i < r->npt; i++) {
		free(r->pt[i].dtype);
		free(r->pt[i].redop);
		free(r->pt[i].root);
	}
	free(r->pt);
	free(r->exp_link);
	free(r->exp_transport);
	free(r->typ_link);
}

/* every run: (params event or NULL, source, params line, next run's line, previous run's line) */
static const char runs_sql[] =
	"WITH p AS ("
	"  SELECT event_id, source_id, line_no FROM events WHERE kind = 'nccl_tests_params'"
	"  UNION ALL"
	"  SELECT NULL, r.source_id, 0 FROM events r WHERE r.kind = 'nccl_tests_row' GROUP BY r.source_id"
	"  HAVING min(r.line_no) < coalesce((SELECT min(q.line_no) FROM events q"
	"                                    WHERE q.kind = 'nccl_tests_params' AND q.source_id = r.source_id),"
	"                                   9223372036854775807))"
	"SELECT p.event_id, p.source_id, p.line_no,"
	"  coalesce(lead(p.line_no) OVER w, 9223372036854775807), coalesce(lag(p.line_no) OVER w, 0), s.path"
	" FROM p JOIN sources s USING(source_id)"
	" WINDOW w AS (PARTITION BY p.source_id ORDER BY p.line_no)"
	" ORDER BY p.source_id, p.line_no";

void analysis_bandwidth(sqlite3 *db)
{
	/* a case written before the table existed */
	if (db_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'bandwidth'", 0) == 0)
		return;
	db_exec(db, "DELETE FROM bandwidth");
	if (db_int(db, "SELECT count(*) FROM events WHERE kind IN ('nccl_tests_params','nccl_tests_row')", 0) == 0)
		return;
	static const char *const exp_cols[] = {"transport", "link", "match", "per", "low_gbs", "high_gbs", "source"};
	static const char *const kb_cols[] = {"name", "status", "replacement", "explanation", "source"};
	bool have_table = knowledge_load(db, "bandwidth-expectations.tsv", "bw_expect", exp_cols,
					 (int)ARRAY_LEN(exp_cols)) > 0;
	bool have_kb = knowledge_load(db, "config-knowledge.tsv", "bw_config_kb", kb_cols, (int)ARRAY_LEN(kb_cols)) > 0;

	struct run *runs = NULL;
	size_t nruns = 0, cap = 0;
	sqlite3_stmt *st = db_prepare(db, runs_sql);
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&runs, &cap, nruns + 1, sizeof(*runs));
		struct run *r = &runs[nruns++];
		memset(r, 0, sizeof(*r));
		r->no = (int64_t)nruns;
		r->ev_params = sqlite3_column_int64(st, 0);
		r->source_id = sqlite3_column_int64(st, 1);
		r->lo = sqlite3_column_int64(st, 2);
		r->hi = sqlite3_column_int64(st, 3);
		r->prev = sqlite3_column_int64(st, 4);
		r->path = col_dup(st, 5);
		const char *slash = r->path ? strrchr(r->path, '/') : NULL;
		r->dir = slash ? xstrndup(r->path, (size_t)(slash - r->path)) : xstrdup("");
		r->peak[OOP] = r->peak[IP] = -1;
	}
	sqlite3_finalize(st);

	for (size_t i = 0; i < nruns; i++) {
		struct run *r = &runs[i];
		/* the environment, most authoritative first: NCCL's own lines, the command, the file, its neighbours */
		load_body(db, r);
		if (r->lo > 0)
			load_preamble(db, r);
		load_neighbours(db, r);
		xqsort(r->env, r->nenv, sizeof(*r->env), cmp_env);
		load_devices(db, r);
		load_rows(db, r);
		if (r->binary) {
			size_t n = strlen(r->binary);
			r->collective = str_ends(r->binary, "_perf") ? xstrndup(r->binary, n - 5) : xstrdup(r->binary);
		}
		if (!r->nccl_version && r->tests_version) {
			int64_t code = 0;
			sqlite3_stmt *v = db_prepare(db, "SELECT CAST(field(fields, 'nccl_library') AS INTEGER)"
							 " FROM events WHERE source_id = ?1 AND line_no > ?2 AND line_no < ?3"
							 " AND kind = 'nccl_tests_version' ORDER BY line_no DESC LIMIT 1");
			sqlite3_bind_int64(v, 1, r->source_id);
			sqlite3_bind_int64(v, 2, r->prev);
			sqlite3_bind_int64(v, 3, r->lo);
			if (sqlite3_step(v) == SQLITE_ROW)
				code = sqlite3_column_int64(v, 0);
			sqlite3_finalize(v);
			r->nccl_version = nccl_code_version(code);
		}
		for (size_t j = 0; j < r->npt; j++)
			for (int k = 0; k < 2; k++)
				if (r->pt[j].has_bw[k] && (r->peak[k] < 0 || r->pt[j].busbw[k] > r->pt[r->peak[k]].busbw[k]))
					r->peak[k] = (int)j;
		rate(db, r, have_table);
	}
	for (size_t i = 0; i < nruns; i++)
		finding(db, runs, nruns, i, have_kb);
	for (size_t i = 0; i < nruns; i++) {
		insert_rows(db, &runs[i]);
		run_free(&runs[i]);
	}
	free(runs);
	db_exec(db, "DROP TABLE IF EXISTS temp.bw_expect; DROP TABLE IF EXISTS temp.bw_config_kb;");
}
