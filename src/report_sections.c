/* report_sections.c: the building blocks of report_compose (inline text,
 * tables) and the sections about the job's facts: network, system messages,
 * configuration, remediation, missing evidence, job. report_md.c has the
 * sections about the diagnosis and the order of them all. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report_model.h"

enum {
	RANKS_LISTED = 32,  /* ranks table only for jobs this small */
	FINDINGS_MAX = 30,
	SYSMSG_MAX = 20,
	SYSMSG_WINDOW_US = 600000000LL, /* system messages within 10 min of the first failure */
	CONFIG_MAX = 40,
	CONFIG_VALUES = 4, /* more values of one setting than this: one row for all */
	SOURCES_MAX = 20,
};

void rc_text(struct buf *b, const char *s)
{
	for (; s && *s; s++)
		buf_putc(b, (*s == RI_CODE[0] || *s == RI_BOLD[0]) ? '?' : *s);
}

void rc_code(struct buf *b, const char *s)
{
	buf_puts(b, RI_CODE);
	rc_text(b, s ? s : "-");
	buf_puts(b, RI_CODE);
}

char *rc_take(struct buf *b)
{
	char *s = b->data ? b->data : xstrdup("");
	memset(b, 0, sizeof(*b));
	return s;
}

void rc_para(struct rcomp *c)
{
	c->s->para(c->s->ctx, c->b.data ? c->b.data : "");
	buf_clear(&c->b);
}

void rc_item(struct rcomp *c)
{
	c->s->item(c->s->ctx, c->b.data ? c->b.data : "");
	buf_clear(&c->b);
}

/* ---- tables ---- */

void rc_row(struct rc_tb *t, bool hi, ...)
{
	xgrow(&t->hi, &t->cap, t->nrows + 1, sizeof(bool));
	t->cells = xrealloc(t->cells, t->cap * t->ncols * sizeof(char *));
	t->hi[t->nrows] = hi;
	va_list ap;
	va_start(ap, hi);
	for (size_t i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = va_arg(ap, char *);
	va_end(ap);
	t->nrows++;
}

void rc_table(struct rcomp *c, struct rc_tb *t)
{
	struct report_table rt = {t->ncols, t->nrows, t->head, t->cells, t->hi};
	if (t->nrows)
		c->s->table(c->s->ctx, &rt);
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->hi);
	memset(t, 0, sizeof(*t));
}

char *rc_str(const char *s, const char *def)
{
	struct buf b = {0};
	rc_text(&b, s && *s ? s : def);
	return rc_take(&b);
}

char *rc_int(int64_t v, const char *def)
{
	return v == RM_NONE ? xstrdup(def) : xasprintf("%lld", (long long)v);
}

char *rc_tod(int64_t us)
{
	struct buf b = {0};
	rm_fmt_time(&b, us);
	char *s = xstrdup(b.len > 11 ? b.data + 11 : b.len ? b.data : "-");
	buf_free(&b);
	return s;
}

void rc_ranks(struct buf *b, const int64_t *r, size_t n, size_t max_parts)
{
	struct buf l = {0};
	bool cut = rm_fmt_ranks(&l, r, n, max_parts);
	if (cut)
		buf_printf(b, "%zu ranks (%s)", n, l.data);
	else
		buf_printf(b, "%s %s", n == 1 ? "rank" : "ranks", l.data);
	buf_free(&l);
}

bool rc_is_config(const char *kind)
{
	return kind && (strncmp(kind, "config", 6) == 0 || strncmp(kind, "env", 3) == 0);
}

int rc_severity(const char *s)
{
	return !s ? 3 : strcmp(s, "error") == 0 ? 0 : strcmp(s, "warning") == 0 ? 1 : 2;
}

/* ---- network: hosts grouped by identical settings ---- */

enum { NET_COLS = 7 };
static const char *const net_head[] = {"Hosts", "Bootstrap interface", "NCCL_SOCKET_IFNAME", "NCCL_IB_HCA",
				       "Net plugin", "Network", "GDR", "Transports", "Differs"};

static const char *net_col(const struct rm_net *n, int k)
{
	const char *v[NET_COLS] = {n->bootstrap_if, n->socket_ifname_env, n->ib_hca_env, n->net_plugin,
				   n->network, n->gdr, n->transport_kinds};
	return v[k];
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The values of column k in network rows [from, to) of one host: the items
 * of "a, b" lists taken apart, sorted, each once; "-" for none. */
static char *net_values(const struct report_model *m, size_t from, size_t to, int k)
{
	char **items = NULL;
	size_t n = 0, cap = 0;
	for (size_t r = from; r < to; r++)
		for (const char *p = net_col(&m->net[r], k); p && *p;) {
			size_t len = strcspn(p, ",");
			xgrow(&items, &cap, n + 1, sizeof(*items));
			items[n++] = xstrndup(p, len);
			p += len;
			p += strspn(p, ", ");
		}
	struct buf v = {0};
	if (n)
		xqsort(items, n, sizeof(*items), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(items[i], items[i - 1]) != 0) {
			buf_puts(&v, v.len ? ", " : "");
			rc_text(&v, items[i]);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	return v.len ? rc_take(&v) : xstrdup("-");
}

struct net_group {
	char *val[NET_COLS];
	const char *hosts[4];
	size_t nhosts;
};

void rc_network(struct rcomp *c)
{
	const struct report_model *m = c->m;
	c->s->section(c->s->ctx, "Network", "network");
	if (!m->n_net) {
		rc_text(&c->b, "No network information is recorded in this case.");
		rc_para(c);
		return;
	}
	struct net_group *g = NULL;
	size_t ng = 0, cap = 0, big = 0;
	for (size_t i = 0; i < m->n_net;) {
		size_t j = i; /* rows of one host are adjacent */
		while (j < m->n_net && (m->net[j].host == m->net[i].host ||
					(m->net[j].host && m->net[i].host && strcmp(m->net[j].host, m->net[i].host) == 0)))
			j++;
		struct net_group h = {.nhosts = 1, .hosts = {m->net[i].host ? m->net[i].host : "?"}};
		for (int k = 0; k < NET_COLS; k++)
			h.val[k] = net_values(m, i, j, k);
		size_t gi = 0;
		for (; gi < ng; gi++) {
			bool same = true;
			for (int k = 0; k < NET_COLS && same; k++)
				same = strcmp(g[gi].val[k], h.val[k]) == 0;
			if (same)
				break;
		}
		if (gi < ng) {
			if (g[gi].nhosts < 4)
				g[gi].hosts[g[gi].nhosts] = h.hosts[0];
			g[gi].nhosts++;
			for (int k = 0; k < NET_COLS; k++)
				free(h.val[k]);
		} else {
			xgrow(&g, &cap, ng + 1, sizeof(*g));
			g[ng++] = h;
		}
		i = j;
	}
	size_t nhosts = 0;
	for (size_t i = 0; i < ng; i++) {
		nhosts += g[i].nhosts;
		if (g[i].nhosts > g[big].nhosts)
			big = i;
	}
	if (ng == 1) {
		buf_printf(&c->b, "All %zu hosts use the same network setup.", nhosts);
	} else {
		buf_printf(&c->b, "The %zu hosts do not all use the same network setup: they fall in %zu groups; ", nhosts, ng);
		rc_text(&c->b, "the groups that differ from the largest one are marked, with the differing values in bold.");
	}
	rc_para(c);
	struct rc_tb t = {.ncols = ARRAY_LEN(net_head), .head = net_head};
	for (size_t i = 0; i < ng; i++) {
		char *cell[NET_COLS];
		struct buf hosts = {0}, diff = {0};
		if (g[i].nhosts > 4)
			buf_printf(&hosts, "%zu hosts: ", g[i].nhosts);
		for (size_t h = 0; h < g[i].nhosts && h < 3; h++) {
			buf_puts(&hosts, h ? ", " : "");
			rc_text(&hosts, g[i].hosts[h]);
		}
		if (g[i].nhosts == 4)
			buf_puts(&hosts, ", "), rc_text(&hosts, g[i].hosts[3]);
		else if (g[i].nhosts > 4)
			buf_puts(&hosts, ", ...");
		for (int k = 0; k < NET_COLS; k++) {
			bool d = i != big && strcmp(g[i].val[k], g[big].val[k]) != 0;
			cell[k] = d ? xasprintf(RI_BOLD "%s" RI_BOLD, g[i].val[k]) : xstrdup(g[i].val[k]);
			if (d)
				buf_printf(&diff, "%s%s", diff.len ? ", " : "yes: ", net_head[k + 1]);
		}
		rc_row(&t, diff.len > 0, rc_take(&hosts), cell[0], cell[1], cell[2], cell[3], cell[4], cell[5], cell[6],
		       diff.len ? rc_take(&diff) : xstrdup(""));
	}
	rc_table(c, &t);
	for (size_t i = 0; i < ng; i++)
		for (int k = 0; k < NET_COLS; k++)
			free(g[i].val[k]);
	free(g);
}

struct near_msg {
	int64_t dist;
	size_t idx; /* order in time */
};

static int cmp_near(const void *a, const void *b)
{
	const struct near_msg *x = a, *y = b;
	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_idx(const void *a, const void *b)
{
	const struct near_msg *x = a, *y = b;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The messages within the window of the first failure (all, without one);
 * when too many, the SYSMSG_MAX nearest to it; shown in time order. */
void rc_sysmsgs(struct rcomp *c)
{
	const struct report_model *m = c->m;
	c->s->section(c->s->ctx, "System messages near the failure", "sysmsgs");
	const struct rm_sysmsg **v = xmalloc((m->n_sysmsgs + 1) * sizeof(*v));
	size_t near = 0;
	int64_t ff = m->first_failure_us;
	for (size_t i = 0; i < m->n_sysmsgs; i++) {
		const struct rm_sysmsg *s = &m->sysmsgs[i];
		if (ff == RM_NONE || (s->time_us != RM_NONE && s->time_us >= ff - SYSMSG_WINDOW_US &&
				      s->time_us <= ff + SYSMSG_WINDOW_US))
			v[near++] = s;
	}
	size_t shown = near;
	if (near > SYSMSG_MAX && ff != RM_NONE) {
		struct near_msg *d = xmalloc(near * sizeof(*d));
		for (size_t i = 0; i < near; i++)
			d[i] = (struct near_msg){v[i]->time_us > ff ? i64_sub_sat(v[i]->time_us, ff) : i64_sub_sat(ff, v[i]->time_us), i};
		xqsort(d, near, sizeof(*d), cmp_near);
		shown = SYSMSG_MAX;
		xqsort(d, shown, sizeof(*d), cmp_idx);
		const struct rm_sysmsg **w = xmalloc(shown * sizeof(*w));
		for (size_t i = 0; i < shown; i++)
			w[i] = v[d[i].idx];
		memcpy(v, w, shown * sizeof(*w));
		free(w);
		free(d);
	} else if (near > SYSMSG_MAX) {
		shown = SYSMSG_MAX;
	}
	if (!m->n_sysmsgs)
		rc_text(&c->b, "No system messages (kernel log, syslog) are recorded in this case.");
	else if (!near)
		buf_printf(&c->b, "%zu system messages, none within 10 minutes of the first failure.", m->n_sysmsgs);
	else if (shown < near)
		buf_printf(&c->b, "The %zu nearest to the first failure of %zu system messages within 10 minutes of it "
				  "(%zu in all):", shown, near, m->n_sysmsgs);
	else
		buf_printf(&c->b, "%zu of %zu system messages%s:", near, m->n_sysmsgs,
			   ff != RM_NONE ? ", within 10 minutes of the first failure" : "");
	rc_para(c);
	static const char *const head[] = {"Time", "Host", "Kind", "Device", "Code", "Message"};
	struct rc_tb t = {.ncols = ARRAY_LEN(head), .head = head};
	for (size_t i = 0; i < shown; i++) {
		const struct rm_sysmsg *s = v[i];
		struct buf tm = {0};
		rm_fmt_time(&tm, s->time_us);
		rc_row(&t, s->rank != RM_NONE, rc_take(&tm), rc_str(s->host, "-"), rc_str(s->kind, "-"), rc_str(s->device, "-"),
		       rc_str(s->code, "-"), rc_str(s->text, ""));
	}
	rc_table(c, &t);
	free(v);
}

static bool same_or_null(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Where a setting was seen: all ranks, some ranks, or hosts / the job. */
static char *config_where(const struct report_model *m, const struct rm_config *k, size_t from, size_t to)
{
	int64_t *ranks = xmalloc((to - from + 1) * sizeof(*ranks));
	size_t nr = 0;
	for (size_t q = from; q < to; q++)
		if (m->config[q].rank != RM_NONE)
			ranks[nr++] = m->config[q].rank;
	struct buf w = {0};
	if (nr == m->n_ranks && nr)
		buf_printf(&w, "all %zu ranks", nr);
	else if (nr)
		rc_ranks(&w, ranks, nr, 6);
	else
		rc_text(&w, k->host ? k->host : "job");
	free(ranks);
	return rc_take(&w);
}

/* One row per (setting, value); a setting with more than CONFIG_VALUES
 * values (one per host, say) gets one row listing a few. Rows of the config
 * table come ordered by name, then value. */
void rc_config(struct rcomp *c)
{
	const struct report_model *m = c->m;
	c->s->section(c->s->ctx, "Configuration", "config");
	rc_findings(c, true);
	if (!m->n_config) {
		rc_text(&c->b, "No configuration settings are recorded in this case.");
		rc_para(c);
		return;
	}
	static const char *const head[] = {"Setting", "Value", "Where", "Origin", "Differs"};
	struct rc_tb t = {.ncols = ARRAY_LEN(head), .head = head};
	size_t rows = 0, more = 0;
	for (size_t i = 0; i < m->n_config;) {
		size_t end = i, nvals = 0;
		while (end < m->n_config && same_or_null(m->config[end].name, m->config[i].name)) {
			nvals += end == i || !same_or_null(m->config[end].value, m->config[end - 1].value);
			end++;
		}
		if (nvals > CONFIG_VALUES) {
			struct buf v = {0};
			buf_printf(&v, "%zu different values: ", nvals);
			for (size_t q = i, shown = 0; q < end && shown < 3; q++)
				if (q == i || !same_or_null(m->config[q].value, m->config[q - 1].value))
					buf_puts(&v, shown++ ? ", " : ""), rc_text(&v, m->config[q].value ? m->config[q].value : "-");
			buf_puts(&v, ", ...");
			if (rows++ < CONFIG_MAX)
				rc_row(&t, true, rc_str(m->config[i].name, "?"), rc_take(&v), config_where(m, &m->config[i], i, end),
				       rc_str(m->config[i].origin, "-"), xstrdup("yes"));
			else
				more++, buf_free(&v);
			i = end;
			continue;
		}
		while (i < end) {
			size_t j = i;
			while (j < end && same_or_null(m->config[j].value, m->config[i].value))
				j++;
			if (rows++ < CONFIG_MAX)
				rc_row(&t, nvals > 1, rc_str(m->config[i].name, "?"), rc_str(m->config[i].value, ""),
				       config_where(m, &m->config[i], i, j), rc_str(m->config[i].origin, "-"),
				       xstrdup(nvals > 1 ? "yes" : ""));
			else
				more++;
			i = j;
		}
	}
	rc_table(c, &t);
	if (more) {
		buf_printf(&c->b, "And %zu more settings (see the JSON report).", more);
		rc_para(c);
	}
}

void rc_remediation(struct rcomp *c)
{
	const struct report_model *m = c->m;
	c->s->section(c->s->ctx, "Remediation", "remediation");
	size_t n = 0;
	for (int sev = 0; sev <= 3; sev++)
		for (size_t i = 0; i < m->n_findings; i++) {
			const struct rm_finding *f = &m->findings[i];
			bool dup = !f->hint || rc_severity(f->severity) != sev;
			for (size_t j = 0; j < m->n_findings && !dup; j++)
				dup = j != i && m->findings[j].hint && strcmp(m->findings[j].hint, f->hint) == 0 &&
				      (rc_severity(m->findings[j].severity) < sev ||
				       (rc_severity(m->findings[j].severity) == sev && j < i));
			if (dup || n >= FINDINGS_MAX)
				continue;
			rc_code(&c->b, f->kind);
			buf_puts(&c->b, ": ");
			rc_text(&c->b, f->hint);
			rc_item(c);
			n++;
		}
	if (!n) {
		rc_text(&c->b, "The findings carry no remediation hints.");
		rc_para(c);
	}
}

void rc_missing(struct rcomp *c)
{
	const struct report_model *m = c->m;
	c->s->section(c->s->ctx, "Missing evidence", "missing");
	if (!m->has_verdict)
		rc_text(&c->b, "Not known: the case has no verdict.");
	else if (!m->missing.n)
		rc_text(&c->b, "Nothing the diagnosis looks for was missing.");
	else
		rc_text(&c->b, "The diagnosis could not use these, which lowers its confidence:");
	rc_para(c);
	for (size_t i = 0; i < m->missing.n; i++) {
		rc_text(&c->b, m->missing.v[i]);
		rc_item(c);
	}
}

void rc_job(struct rcomp *c)
{
	const struct report_model *m = c->m;
	c->s->section(c->s->ctx, "Job", "job");
	buf_puts(&c->b, RI_BOLD "Input:" RI_BOLD " ");
	rc_code(&c->b, m->input ? m->input : "?");
	if (m->input_bytes != RM_NONE)
		buf_printf(&c->b, ", %lld bytes", (long long)m->input_bytes);
	if (m->members != RM_NONE)
		buf_printf(&c->b, ", %lld files", (long long)m->members);
	rc_item(c);
	buf_printf(&c->b, RI_BOLD "Ranks:" RI_BOLD " %zu on %zu hosts", m->n_ranks, m->hosts.n);
	rc_item(c);
	const struct rm_strs *v[] = {&m->nccl_versions, &m->torch_versions};
	for (int k = 0; k < 2; k++) {
		buf_puts(&c->b, k ? RI_BOLD "PyTorch:" RI_BOLD " " : RI_BOLD "NCCL:" RI_BOLD " ");
		for (size_t i = 0; i < v[k]->n; i++)
			buf_puts(&c->b, i ? ", " : ""), rc_text(&c->b, v[k]->v[i]);
		if (!v[k]->n)
			rc_text(&c->b, "not in the logs");
		else if (v[k]->n > 1)
			rc_text(&c->b, " (more than one version in one job)");
		rc_item(c);
	}
	buf_puts(&c->b, RI_BOLD "Time span:" RI_BOLD " ");
	rm_fmt_time(&c->b, m->first_us);
	buf_puts(&c->b, " to ");
	rm_fmt_time(&c->b, m->last_us);
	if (m->first_us != RM_NONE && m->last_us != RM_NONE) {
		buf_puts(&c->b, " (");
		rm_fmt_duration(&c->b, i64_sub_sat(m->last_us, m->first_us));
		buf_puts(&c->b, ")");
	}
	rc_item(c);
	buf_printf(&c->b, RI_BOLD "Lines:" RI_BOLD " %lld read, %lld skipped", (long long)(m->lines == RM_NONE ? 0 : m->lines),
		   (long long)(m->skipped_lines == RM_NONE ? 0 : m->skipped_lines));
	rc_item(c);
	buf_puts(&c->b, RI_BOLD "Case written by:" RI_BOLD " ncclforensic ");
	rc_text(&c->b, m->tool_version ? m->tool_version : "?");
	rc_item(c);
	if (m->n_ranks <= RANKS_LISTED) {
		static const char *const head[] = {"Rank", "Host", "Local rank", "GPU", "PCI", "PID", "Last step", "Role"};
		struct rc_tb t = {.ncols = ARRAY_LEN(head), .head = head};
		for (size_t i = 0; i < m->n_ranks; i++) {
			const struct rm_rank *r = &m->ranks[i];
			rc_row(&t, r->culprit, rc_int(r->rank, "-"), rc_str(r->host, "-"), rc_int(r->local_rank, "-"),
			       r->cuda_dev == RM_NONE ? xstrdup("-") : xasprintf("cuda:%lld", (long long)r->cuda_dev),
			       rc_str(r->pci, "-"), rc_str(r->pid_str, "-"), rc_int(r->last_step, "-"),
			       rc_str(r->role, "-"));
		}
		rc_table(c, &t);
	} else {
		buf_printf(&c->b, "%zu ranks are too many to list here; the JSON report has each.", m->n_ranks);
		rc_para(c);
	}
	static const char *const head[] = {"Input file", "Kind", "Lines", "Skipped", "Why"};
	struct rc_tb t = {.ncols = ARRAY_LEN(head), .head = head};
	size_t n = 0;
	for (size_t i = 0; i < m->n_sources; i++) {
		const struct rm_source *s = &m->sources[i];
		if ((s->skipped == RM_NONE || s->skipped == 0) && !s->error)
			continue;
		if (n++ < SOURCES_MAX)
			rc_row(&t, s->error != NULL, rc_str(s->path, "?"), rc_str(s->kind, "-"), rc_int(s->lines, "0"),
			       rc_int(s->skipped, "0"), rc_str(s->error ? s->error : s->skip_reason, "-"));
	}
	buf_printf(&c->b, "%zu of %zu input files had lines skipped or errors%s", n, m->n_sources, n ? ":" : ".");
	rc_para(c);
	rc_table(c, &t);
	if (n > SOURCES_MAX) {
		buf_printf(&c->b, "And %zu more files (see the JSON report).", n - SOURCES_MAX);
		rc_para(c);
	}
}

