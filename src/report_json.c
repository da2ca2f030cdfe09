/* report_json.c: `report --format json`, documented in docs/report-json.md.
 * Keys come in a fixed order; "verdict" and "findings" first, in exactly the
 * shape the diagnosis issue asks for, so tools can take ["verdict"]. An empty
 * verdict table still gives a valid verdict ("unknown"). Pretty-printed with
 * two spaces; arrays of numbers or short strings stay on one line. */
#include <string.h>

#include "report_bandwidth.h"
#include "report_model.h"

struct jw {
	struct buf *o;
	int depth;
	bool first; /* no member written yet at this depth */
};

static void jw_sep(struct jw *w, const char *key)
{
	buf_puts(w->o, w->first ? "\n" : ",\n");
	for (int i = 0; i < w->depth; i++)
		buf_puts(w->o, "  ");
	if (key) {
		buf_json_str(w->o, key, strlen(key));
		buf_puts(w->o, ": ");
	}
	w->first = false;
}

static void jw_open(struct jw *w, const char *key, char ch)
{
	jw_sep(w, key);
	buf_putc(w->o, ch);
	w->depth++;
	w->first = true;
}

static void jw_close(struct jw *w, char ch)
{
	w->depth--;
	if (!w->first) {
		buf_putc(w->o, '\n');
		for (int i = 0; i < w->depth; i++)
			buf_puts(w->o, "  ");
	}
	buf_putc(w->o, ch);
	w->first = false;
}

static void put_str(struct buf *o, const char *s)
{
	if (s)
		buf_json_str(o, s, strlen(s));
	else
		buf_puts(o, "null");
}

static void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_sep(w, key);
	put_str(w->o, s);
}

static void jw_int(struct jw *w, const char *key, int64_t v)
{
	jw_sep(w, key);
	if (v == RM_NONE)
		buf_puts(w->o, "null");
	else
		buf_printf(w->o, "%lld", (long long)v);
}

static void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_sep(w, key);
	buf_puts(w->o, v ? "true" : "false");
}

static void jw_time(struct jw *w, const char *key, int64_t us)
{
	jw_sep(w, key);
	if (us == RM_NONE) {
		buf_puts(w->o, "null");
		return;
	}
	struct buf t = {0};
	rm_fmt_time(&t, us);
	buf_json_str(w->o, t.data, t.len);
	buf_free(&t);
}

/* A pid: its number, or its alias (a string) in a redacted report. */
static void jw_pid(struct jw *w, const struct report_model *m, const char *key, const char *pid)
{
	jw_sep(w, key);
	if (!pid)
		buf_puts(w->o, "null");
	else if (m->redacted)
		buf_json_str(w->o, pid, strlen(pid));
	else
		buf_puts(w->o, pid);
}

static void jw_ints(struct jw *w, const char *key, const struct rm_ints *a)
{
	jw_sep(w, key);
	buf_putc(w->o, '[');
	for (size_t i = 0; i < a->n; i++)
		buf_printf(w->o, i ? ", %lld" : "%lld", (long long)a->v[i]);
	buf_putc(w->o, ']');
}

static void jw_strs(struct jw *w, const char *key, const struct rm_strs *a, bool null_when_empty)
{
	jw_sep(w, key);
	if (null_when_empty && !a->n) {
		buf_puts(w->o, "null");
		return;
	}
	buf_putc(w->o, '[');
	for (size_t i = 0; i < a->n; i++) {
		buf_puts(w->o, i ? ", " : "");
		put_str(w->o, a->v[i]);
	}
	buf_putc(w->o, ']');
}

static void jw_evidence(struct jw *w, const struct rm_evidence *ev, size_t n)
{
	jw_open(w, "evidence", '[');
	for (size_t i = 0; i < n; i++) {
		jw_open(w, NULL, '{');
		jw_str(w, "source", ev[i].source);
		jw_int(w, "line", ev[i].line);
		jw_str(w, "text", ev[i].text);
		jw_str(w, "note", ev[i].note);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void verdict(struct jw *w, const struct report_model *m)
{
	jw_open(w, "verdict", '{');
	jw_str(w, "outcome", m->outcome);
	jw_str(w, "cause", m->cause);
	jw_ints(w, "culprit_ranks", &m->culprit_ranks);
	jw_strs(w, "culprit_hosts", &m->culprit_hosts, false);
	jw_str(w, "process_group", m->process_group);
	jw_int(w, "seq", m->seq);
	jw_str(w, "op", m->op);
	jw_time(w, "first_failure_time", m->first_failure_us);
	jw_str(w, "confidence", m->confidence);
	jw_str(w, "rule", m->rule);
	jw_str(w, "summary", m->has_verdict ? m->summary : "No verdict: the case has not been analysed.");
	jw_evidence(w, m->ev, m->n_ev);
	jw_close(w, '}');
	jw_open(w, "findings", '[');
	for (size_t i = 0; i < m->n_findings; i++) {
		const struct rm_finding *f = &m->findings[i];
		jw_open(w, NULL, '{');
		jw_str(w, "kind", f->kind);
		jw_str(w, "severity", f->severity);
		jw_ints(w, "ranks", &f->ranks);
		jw_strs(w, "hosts", &f->hosts, false);
		jw_str(w, "summary", f->summary);
		jw_evidence(w, f->ev, f->n_ev);
		jw_str(w, "hint", f->hint);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	if (m->has_verdict)
		jw_strs(w, "missing", &m->missing, false);
	else
		jw_str(w, "missing", NULL);
}

static void cascade(struct jw *w, const struct report_model *m)
{
	jw_open(w, "cascade", '[');
	for (size_t i = 0; i < m->n_cascade; i++) {
		const struct rm_cascade *c = &m->cascade[i];
		jw_open(w, NULL, '{');
		jw_int(w, "ord", c->ord);
		jw_int(w, "rank", c->rank);
		jw_str(w, "host", c->host);
		jw_time(w, "time", c->time_us);
		jw_int(w, "offset_ms", c->offset_ms);
		jw_str(w, "role", c->role);
		jw_str(w, "what", c->what);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void job(struct jw *w, const struct report_model *m)
{
	jw_open(w, "job", '{');
	jw_str(w, "input", m->input);
	jw_int(w, "input_bytes", m->input_bytes);
	jw_int(w, "files", m->members);
	jw_int(w, "lines", m->lines);
	jw_int(w, "skipped_lines", m->skipped_lines);
	jw_int(w, "ranks", (int64_t)m->n_ranks);
	jw_strs(w, "hosts", &m->hosts, false);
	jw_strs(w, "nccl_versions", &m->nccl_versions, false);
	jw_strs(w, "pytorch_versions", &m->torch_versions, false);
	jw_time(w, "first_time", m->first_us);
	jw_time(w, "last_time", m->last_us);
	jw_int(w, "duration_ms",
	       m->first_us != RM_NONE && m->last_us != RM_NONE ? (m->last_us - m->first_us) / 1000 : RM_NONE);
	jw_str(w, "tool_version", m->tool_version);
	jw_bool(w, "redacted", m->redacted);
	jw_close(w, '}');
}

static void tables(struct jw *w, const struct report_model *m)
{
	jw_open(w, "network", '[');
	for (size_t i = 0; i < m->n_net; i++) {
		const struct rm_net *n = &m->net[i];
		jw_open(w, NULL, '{');
		jw_str(w, "host", n->host);
		jw_int(w, "rank", n->rank);
		jw_pid(w, m, "pid", n->pid_str);
		jw_str(w, "comm_id", n->comm_id);
		jw_str(w, "bootstrap_if", n->bootstrap_if);
		jw_str(w, "bootstrap_addr", n->bootstrap_addr);
		jw_str(w, "socket_ifname_env", n->socket_ifname_env);
		jw_str(w, "ib_hca_env", n->ib_hca_env);
		jw_str(w, "net_plugin", n->net_plugin);
		jw_str(w, "net_devices", n->net_devices);
		jw_str(w, "network", n->network);
		jw_str(w, "gdr", n->gdr);
		jw_str(w, "transports", n->transports);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "config", '[');
	for (size_t i = 0; i < m->n_config; i++) {
		const struct rm_config *c = &m->config[i];
		jw_open(w, NULL, '{');
		jw_str(w, "host", c->host);
		jw_int(w, "rank", c->rank);
		jw_str(w, "name", c->name);
		jw_str(w, "value", c->value);
		jw_str(w, "origin", c->origin);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "sysmsgs", '[');
	for (size_t i = 0; i < m->n_sysmsgs; i++) {
		const struct rm_sysmsg *s = &m->sysmsgs[i];
		jw_open(w, NULL, '{');
		jw_time(w, "time", s->time_us);
		jw_str(w, "host", s->host);
		jw_int(w, "rank", s->rank);
		jw_str(w, "kind", s->kind);
		jw_str(w, "device", s->device);
		jw_str(w, "code", s->code);
		jw_str(w, "text", s->text);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "ranks", '[');
	for (size_t i = 0; i < m->n_ranks; i++) {
		const struct rm_rank *r = &m->ranks[i];
		jw_open(w, NULL, '{');
		jw_int(w, "rank", r->rank);
		jw_str(w, "host", r->host);
		jw_int(w, "local_rank", r->local_rank);
		jw_pid(w, m, "pid", r->pid_str);
		jw_int(w, "cuda_dev", r->cuda_dev);
		jw_str(w, "bus_id", r->bus_id);
		jw_str(w, "pci", r->pci);
		jw_bool(w, "culprit", r->culprit);
		jw_str(w, "role", r->role);
		jw_int(w, "last_step", r->last_step);
		jw_time(w, "last_step_time", r->last_step_us);
		jw_time(w, "first_error_time", r->first_error_us);
		jw_str(w, "first_error_kind", r->first_error_kind);
		jw_int(w, "exit_code", r->exit_code);
		jw_str(w, "exit_signal", r->exit_signal);
		jw_time(w, "exit_time", r->exit_us);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "sources", '[');
	for (size_t i = 0; i < m->n_sources; i++) {
		const struct rm_source *s = &m->sources[i];
		jw_open(w, NULL, '{');
		jw_str(w, "path", s->path);
		jw_str(w, "kind", s->kind);
		jw_str(w, "host", s->host);
		jw_int(w, "rank", s->rank);
		jw_int(w, "lines", s->lines);
		jw_int(w, "skipped_lines", s->skipped);
		jw_str(w, "skip_reason", s->skip_reason);
		jw_str(w, "error", s->error);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

void report_json(const struct report_model *m, struct buf *out)
{
	struct jw w = {out, 1, true};
	buf_putc(out, '{');
	verdict(&w, m);
	cascade(&w, m);
	job(&w, m);
	tables(&w, m);
	bw_report_json(m->bandwidth, out, w.depth);
	jw_close(&w, '}');
	buf_putc(out, '\n');
}
