/* diagnosis_hardware.c: a failure the host caused. Tried before every other
 * cause: when a system message on a rank's GPU or on a NIC its NCCL used lies
 * in the window before the job's first failure (correlate.h), that message is
 * the likely cause, whatever the ranks did next:
 *   gpu_fault  an Xid of class gpu_fault (data/xid-codes.tsv) on a rank's GPU;
 *   network    a link that went down (link down, NETDEV WATCHDOG, bond slave
 *              down, IB port down) on a host whose NCCL used that NIC or
 *              reported IB errors then. When two hosts report IB errors
 *              against each other, the one whose own NIC logged the link
 *              event is the culprit, not the peer that complained first.
 * The outcome stays what the ranks show: a hang when ranks timed out, else
 * a crash. */
#include "diagnosis.h"
#include "verdict_vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "correlate.h"

#define DOWN_SQL                                                                                             \
	"(kind IN ('link_down','netdev_watchdog')"                                                            \
	" OR (kind = 'bond' AND (text LIKE '%down%' OR text LIKE '%disabling%'))"                             \
	" OR (kind = 'ib_port' AND (text LIKE '%down%' OR text LIKE '%unplugged%' OR text LIKE '%error%')))"

#define IB_TROUBLE "('nccl_ib_completion_error','nccl_ib_async_event','nccl_ib_port_event','nccl_ibv_failed')"

struct sysmsg {
	int64_t id, t, event_id;
	int rank;
	char host[128], kind[32], device[64], code[32], text[256], meaning[128];
};

static bool read_msg(sqlite3_stmt *st, struct sysmsg *m)
{
	if (sqlite3_step(st) != SQLITE_ROW)
		return false;
	memset(m, 0, sizeof(*m));
	m->id = sqlite3_column_int64(st, 0);
	m->t = sqlite3_column_int64(st, 1);
	m->rank = sqlite3_column_int(st, 2);
	m->event_id = sqlite3_column_int64(st, 8);
	char *dst[] = {m->host, m->kind, m->device, m->code, m->text, m->meaning};
	size_t sz[] = {sizeof(m->host), sizeof(m->kind), sizeof(m->device), sizeof(m->code), sizeof(m->text),
		       sizeof(m->meaning)};
	int cols[] = {3, 4, 5, 6, 7, 9};
	for (int i = 0; i < 6; i++) {
		const char *s = (const char *)sqlite3_column_text(st, cols[i]);
		snprintf(dst[i], sz[i], "%s", s ? s : "");
	}
	return true;
}

/* ranks a cause names */
struct rank_set {
	int r[256];
	size_t n;
};

static void rs_add(struct rank_set *s, int rank)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->r[i] == rank)
			return;
	if (s->n < ARRAY_LEN(s->r))
		s->r[s->n++] = rank;
}

/* Reads the messages of st (its window bound to ?1 .. ?2): the first into
 * *first, each one's rank into ranks, each one to also (when not NULL);
 * false when there is none. */
static bool read_window(struct diagnosis *d, sqlite3_stmt *st, int64_t lo, int64_t hi, struct sysmsg *first,
			struct rank_set *ranks,
			void (*also)(struct diagnosis *d, const struct sysmsg *m, int64_t lo, int64_t hi,
				     struct rank_set *ranks))
{
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	struct sysmsg m;
	bool any = false;
	while (read_msg(st, &m)) {
		if (!any)
			*first = m;
		any = true;
		rs_add(ranks, m.rank);
		if (also)
			also(d, &m, lo, hi, ranks);
	}
	sqlite3_finalize(st);
	return any;
}

/* the earliest GPU fault on a rank's GPU in the window; ranks: every rank with one */
static bool gpu_fault(struct diagnosis *d, int64_t lo, int64_t hi, struct sysmsg *first, struct rank_set *ranks)
{
	if (!q_int(d->db, 0, "SELECT count(*) FROM sqlite_temp_master WHERE name = 'kb_xid'"))
		return false;
	return read_window(d, db_prepare(d->db,
		"SELECT s.sysmsg_id, s.time_us, s.rank, s.host, s.kind, s.device, s.code, s.text, s.event_id, k.meaning"
		" FROM sysmsgs s JOIN temp.kb_xid k ON k.code = s.code"
		" WHERE s.kind = 'xid' AND k.class = 'gpu_fault' AND s.rank IS NOT NULL AND s.time_us BETWEEN ?1 AND ?2"
		" ORDER BY s.time_us, s.sysmsg_id"), lo, hi, first, ranks, NULL);
}

/* the ranks of a lost link's host whose NCCL reported IB trouble then */
static void ib_trouble_ranks(struct diagnosis *d, const struct sysmsg *m, int64_t lo, int64_t hi,
			     struct rank_set *ranks)
{
	sqlite3_stmt *r = db_prepare(d->db,
		"SELECT DISTINCT rank FROM events WHERE host = ?1 AND rank IS NOT NULL AND kind IN " IB_TROUBLE
		" AND time_us BETWEEN ?2 AND ?3");
	sqlite3_bind_text(r, 1, m->host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(r, 2, lo);
	sqlite3_bind_int64(r, 3, hi + CORR_BEFORE_US);
	while (sqlite3_step(r) == SQLITE_ROW)
		rs_add(ranks, sqlite3_column_int(r, 0));
	sqlite3_finalize(r);
}

/* the earliest link lost on a NIC a rank's NCCL used, in the window; ranks:
 * those tied to a lost link and the ranks of its host that reported IB errors */
static bool link_lost(struct diagnosis *d, int64_t lo, int64_t hi, struct sysmsg *first, struct rank_set *ranks)
{
	return read_window(d, db_prepare(d->db,
		"SELECT sysmsg_id, time_us, rank, host, kind, device, code, text, event_id, NULL FROM sysmsgs"
		" WHERE rank IS NOT NULL AND host IS NOT NULL AND time_us BETWEEN ?1 AND ?2 AND " DOWN_SQL
		" ORDER BY time_us, sysmsg_id"), lo, hi, first, ranks, ib_trouble_ranks);
}

/* "the first timeout (rank 3, gpu-node02, at 23:56:08.174)" */
static int64_t first_failure(struct diagnosis *d, struct buf *out)
{
	struct rank_facts *f = NULL;
	for (size_t i = 0; i < d->nranks; i++) {
		struct rank_facts *r = &d->ranks[i];
		if (r->first_error_t != T_NONE && (!f || r->first_error_t < f->first_error_t))
			f = r;
	}
	if (!f)
		return 0;
	const char *k = f->first_error_kind;
	const char *what = strstr(k, "timeout") || !strcmp(k, "pg_failure_detected") ? "timeout"
			   : !strcmp(k, "nccl_ib_completion_error") ? "NCCL IB completion error"
			   : strstr(k, "_ib_") || strstr(k, "ibv") ? "NCCL IB error"
			   : !strcmp(k, "nccl_socket_closed") ? "lost connection"
			   : "failure";
	char t[32];
	fmt_time(f->first_error_t, t, sizeof(t));
	buf_printf(out, "the first %s (rank %d, %s, at %s)", what, f->rank, f->host, t);
	return f->first_error_event;
}

bool diag_hardware(struct diagnosis *d)
{
	struct verdict *v = &d->v;
	if (d->t0 == T_NONE) {
		v_decline(d, "no failure was logged to look for a hardware fault around");
		return false;
	}
	int64_t lo = d->t0 - CORR_BEFORE_US, hi = d->t0 + CORR_AFTER_US;
	struct sysmsg gpu, link;
	struct rank_set gpu_ranks = {.n = 0}, link_ranks = {.n = 0};
	bool have_gpu = gpu_fault(d, lo, hi, &gpu, &gpu_ranks);
	bool have_link = link_lost(d, lo, hi, &link, &link_ranks);
	if (!have_gpu && !have_link) {
		v_decline(d, "no GPU fault (Xid, ECC) and no lost link (an IB port down, a NIC reset) on a "
			     "rank's host near the first failure");
		return false;
	}
	/* the earlier of the two is the cause */
	bool is_gpu = have_gpu && (!have_link || gpu.t <= link.t);
	struct sysmsg *m = is_gpu ? &gpu : &link;
	const struct rank_set *culprits = is_gpu ? &gpu_ranks : &link_ranks;
	for (size_t i = 0; i < culprits->n; i++)
		v_culprit(v, culprits->r[i]);

	bool timed_out = false;
	for (size_t i = 0; i < d->nranks; i++)
		timed_out |= d->ranks[i].first_timeout_t != T_NONE;
	v->outcome = timed_out ? OUTCOME(hang) : OUTCOME(crash);
	v->cause = is_gpu ? CAUSE(gpu_fault) : CAUSE(network);
	v->first_failure_t = d->t0;
	int64_t wait_ev = diag_wait_into_verdict(d);

	struct buf who = {0}, ff = {0}, sum = {0};
	char t[32], gap[48];
	fmt_time(m->t, t, sizeof(t));
	corr_fmt_gap(d->t0 - m->t, gap, sizeof(gap));
	int64_t ff_ev = first_failure(d, &ff);
	rank_desc(d, m->rank, &who);
	if (is_gpu) {
		struct rank_facts *r = diag_rank(d, m->rank);
		buf_clear(&who);
		buf_printf(&who, "rank %d (%s", m->rank, m->host);
		if (r && r->local_rank >= 0)
			buf_printf(&who, ", local rank %d", r->local_rank);
		buf_printf(&who, ", PCI %s)", m->device);
		buf_printf(&sum, "Xid %s%s%s%s on the GPU of %s at %s, %s %s: the GPU failed under rank %d%s.", m->code,
			   m->meaning[0] ? " (" : "", m->meaning, m->meaning[0] ? ")" : "", who.data, t, gap,
			   ff.data ? ff.data : "the first failure", m->rank,
			   timed_out ? " and its peers waited for it" : " and took it down");
		v->confidence = CONFIDENCE(high);
	} else {
		const char *what = !strcmp(m->kind, "link_down") ? "went down"
				   : !strcmp(m->kind, "netdev_watchdog") ? "stopped transmitting (NETDEV WATCHDOG)"
				   : !strcmp(m->kind, "bond") ? "left its bond"
				   : "lost its port";
		buf_printf(&sum, "The network link %s on %s %s at %s, %s %s", m->device, m->host, what, t, gap,
			   ff.data ? ff.data : "the first failure");
		if (corr_nic_used(d->db, m->event_id, m->host, m->device)) {
			buf_printf(&sum, "; NCCL on %s used that NIC.", who.data);
		} else {
			char t1[32] = "?";
			int64_t t_ib = q_int(d->db, T_NONE, "SELECT min(time_us) FROM events WHERE host = %Q AND kind IN "
					     IB_TROUBLE " AND time_us >= %lld", m->host, (long long)lo);
			fmt_time(t_ib, t1, sizeof(t1));
			buf_printf(&sum, "; NCCL on %s reported IB errors from %s on.", who.data, t1);
		}
		/* the peers that complained: IB errors on other hosts */
		char peers[256] = "";
		q_text(d->db, peers, sizeof(peers),
		       "SELECT group_concat(host, ', ') FROM (SELECT DISTINCT host FROM events WHERE kind IN " IB_TROUBLE
		       " AND host IS NOT NULL AND host <> %Q AND time_us BETWEEN %lld AND %lld ORDER BY host)",
		       m->host, (long long)lo, (long long)(hi + CORR_BEFORE_US));
		if (peers[0])
			buf_printf(&sum, " %s reported IB errors too, but the link that went down is %s's: %s errors are"
					 " consequences.",
				   peers, m->host, strchr(peers, ',') ? "their" : "its");
		bool net_errors = q_int(d->db, 0,
			"SELECT count(*) FROM events WHERE kind IN " IB_TROUBLE " OR kind IN ('nccl_socket_closed',"
			" 'nccl_socket_call_failed','nccl_error_code')") > 0;
		v->confidence = net_errors ? CONFIDENCE(high) : CONFIDENCE(medium);
	}
	if (v->pg[0] && timed_out)
		buf_printf(&sum, " The other ranks then timed out in %s #%ld of group %s.", v->op[0] ? v_peer_op(v) : "collective",
			   v->seq, v->pg);
	else if (!timed_out)
		buf_puts(&sum, " The ranks failed right after it.");
	if (v->nculprits > 1) {
		struct buf l = {0};
		fmt_rank_list(v->culprits, v->nculprits, &l);
		buf_printf(&sum, " Ranks concerned: %s.", l.data);
		buf_free(&l);
	}
	buf_puts(&v->summary, sum.data);

	char note[160];
	snprintf(note, sizeof(note), "%s", is_gpu ? "the Xid on the culprit's GPU" : "the link lost on the culprit's host");
	v_cite_event(v, m->event_id, note);
	if (is_gpu)
		v_cite_event(v, q_int(d->db, 0,
				      "SELECT min(event_id) FROM events WHERE kind = 'nccl_comm_init' AND rank = %d"
				      " AND lower(pci_from_bus_id(field(fields, 'bus_id'))) = lower(%Q)",
				      m->rank, m->device),
			     "the culprit's GPU (NCCL init busId)");
	else
		v_cite_event(v, q_int(d->db, 0,
				      "SELECT event_id FROM events WHERE host = %Q AND kind IN " IB_TROUBLE
				      " ORDER BY time_us, event_id LIMIT 1", m->host),
			     "NCCL's IB errors on the culprit's host");
	if (!is_gpu)
		v_cite_event(v, q_int(d->db, 0,
				      "SELECT event_id FROM events WHERE host <> %Q AND kind IN " IB_TROUBLE
				      " AND time_us BETWEEN %lld AND %lld ORDER BY time_us, event_id LIMIT 1",
				      m->host, (long long)lo, (long long)(hi + CORR_BEFORE_US)),
			     "a peer complaining about it");
	v_cite_event(v, ff_ev, "the first failure");
	v_cite_event(v, q_int(d->db, 0,
			      "SELECT event_id FROM events WHERE kind IN ('pg_watchdog_timeout','pg_failure_detected',"
			      " 'pg_async_exception') AND rank IS NOT NULL AND time_us IS NOT NULL ORDER BY time_us, event_id LIMIT 1"),
		     "the first timeout");
	v_cite_event(v, wait_ev, "peers waiting");
	buf_free(&who);
	buf_free(&ff);
	buf_free(&sum);
	return true;
}
