/* analysis_sysmsgs.c: kernel and system messages (dmesg with boot-relative
 * or wall-clock times, syslog, journald) as table sysmsgs, each joined to the
 * rank it concerns: Xid and other GPU lines by PCI address to the rank whose
 * NCCL init named that busId on that host, link events by interface (or NIC
 * PCI address) to the ranks whose NCCL used it, OOM kills by pid. Findings
 * only for messages tied to the job (a rank's GPU, NIC or process, or a job
 * host) around its run: boot noise and other hosts' messages say nothing. */
#include "analysis_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "case_db.h"
#include "correlate.h"
#include "diagnosis.h"
#include "findings.h"
#include "knowledge.h"
#include "line_prefix.h"
#include "util.h"

void corr_fmt_gap(int64_t gap_us, char *out, size_t n)
{
	const char *dir = gap_us >= 0 ? "before" : "after";
	double s = (double)(gap_us >= 0 ? gap_us : -gap_us) / 1e6;
	if (s < 10)
		snprintf(out, n, "%.1f s %s", s, dir);
	else if (s < 120)
		snprintf(out, n, "%.0f s %s", s, dir);
	else
		snprintf(out, n, "%.0f min %s", s / 60, dir);
}

static const char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? s : "";
}

/* rule -> sysmsgs kind, and which field is the device and which the code */
static const struct {
	const char *rule, *kind, *device, *code;
} kinds[] = {
	{"kernel_xid", "xid", "pci", "code"},
	{"kernel_nvrm_gpu", "other", "pci", NULL},
	{"sys_nvswitch_sxid", "nvlink", "pci", "code"},
	{"sys_edac", "ecc", "mc", "type"},
	{"sys_mce", "ecc", NULL, NULL},
	{"sys_gsp", "gsp", NULL, "func"},
	{"kernel_link_down", "link_down", "ifname", NULL},
	{"kernel_link_up", "link_up", "ifname", NULL},
	{"kernel_link_ready", "link_up", "ifname", NULL},
	{"kernel_netdev_watchdog", "netdev_watchdog", "ifname", "queue"},
	{"kernel_bond", "bond", "ifname", "bond"},
	{"kernel_port_module", "ib_port", "pci", "module"},
	{"kernel_ib_port_state", "ib_port", "hca", "state"},
	{"kernel_oom_kill", "oom_kill", NULL, "pid"},
	{"kernel_oom_summary", "oom_kill", NULL, "pid"},
};

static bool is_link_kind(const char *k)
{
	return !strcmp(k, "link_down") || !strcmp(k, "link_up") || !strcmp(k, "netdev_watchdog") ||
	       !strcmp(k, "bond") || !strcmp(k, "ib_port");
}

/* a link event that takes a link away (down, stalled, unplugged) */
static bool is_down(const char *kind, const char *text)
{
	if (!strcmp(kind, "link_down") || !strcmp(kind, "netdev_watchdog"))
		return true;
	if (!strcmp(kind, "bond"))
		return strstr(text, "down") || strstr(text, "disabling");
	if (!strcmp(kind, "ib_port"))
		return strstr(text, "DOWN") || strstr(text, "unplugged") || strstr(text, "rror");
	return false;
}

/* the NIC's PCI address without the function: "0000:3b:00.1" -> "0000:3b:00" */
static void pci_base(const char *pci, char *out, size_t n)
{
	snprintf(out, n, "%.10s", pci);
	for (char *p = out; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
}

/* The lowest rank on host whose NCCL used interface ifname (bootstrap, Socket
 * device, IB OOB) or the NIC at pci (an IB device NCCL listed with that
 * pciPath); -1 if none. */
static int iface_rank(sqlite3 *db, const char *host, const char *ifname, const char *pci)
{
	int rank = -1;
	if (ifname && *ifname) {
		sqlite3_stmt *q = db_prepare(db,
			"SELECT min(rank) FROM (SELECT rank FROM network WHERE host = ?1 AND rank IS NOT NULL AND"
			" (bootstrap_if = ?2 OR instr(coalesce(net_devices,''), ']' || ?2 || ':') > 0)"
			" UNION ALL SELECT e.rank FROM events e WHERE e.host = ?1 AND e.rank IS NOT NULL"
			" AND e.kind = 'nccl_net_devices' AND field(e.fields, 'oob_if') = ?2)");
		sqlite3_bind_text(q, 1, host, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, ifname, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
			rank = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
	}
	if (rank < 0 && pci && *pci) {
		/* "NET/IB: [1] mlx5_1:uverbs1:1/IB ... pciPath=/sys/devices/.../0000:3b:00.1" */
		sqlite3_stmt *q = db_prepare(db,
			"SELECT min(rank) FROM events WHERE host = ?1 AND rank IS NOT NULL AND kind = 'nccl_ib_device'"
			" AND lower(field(fields, 'pci_path')) LIKE '%/' || lower(?2)");
		sqlite3_bind_text(q, 1, host, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, pci, -1, SQLITE_STATIC);
		if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
			rank = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
	}
	return rank;
}

bool corr_nic_used(sqlite3 *db, int64_t event_id, const char *host, const char *device)
{
	char pci[64] = "";
	q_text(db, pci, sizeof(pci), "SELECT field(fields, 'pci') FROM events WHERE event_id = %lld",
	       (long long)event_id);
	return host && iface_rank(db, host, device, pci) >= 0;
}

/* A rank on host whose NCCL reported IB trouble around t (the NIC the kernel
 * names is then most likely the one NCCL used); -1 if none. */
static int ib_trouble_rank(sqlite3 *db, const char *host, int64_t t)
{
	if (t == T_NONE)
		return -1;
	return (int)q_int(db, -1,
		"SELECT rank FROM events WHERE host = %Q AND rank IS NOT NULL AND kind IN"
		" ('nccl_ib_completion_error','nccl_ib_async_event','nccl_ib_port_event','nccl_ibv_failed')"
		" AND time_us BETWEEN %lld AND %lld ORDER BY time_us, rank LIMIT 1",
		host, (long long)(t - CORR_AFTER_US), (long long)(t + CORR_BEFORE_US));
}

static void load_sysmsgs(sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT e.event_id, e.kind, coalesce(e.host, s.host), e.time_us, e.fields, l.text,"
		" field(e.fields, 'pci'), field(e.fields, 'ifname')"
		" FROM events e JOIN sources s USING(source_id)"
		" LEFT JOIN lines l ON l.source_id = e.source_id AND l.line_no = e.line_no"
		" WHERE e.class = 'sysmsg' ORDER BY e.time_us IS NULL, e.time_us, e.event_id");
	sqlite3_stmt *ins = db_prepare(db,
		"INSERT INTO sysmsgs(host, time_us, kind, device, code, rank, text, event_id) VALUES(?,?,?,?,?,?,?,?)");
	sqlite3_stmt *dup = db_prepare(db,
		"SELECT count(*) FROM sysmsgs WHERE host IS ?1 AND kind = ?2 AND device IS ?3 AND text = ?4"
		" AND (time_us IS ?5 OR abs(time_us - ?5) <= 2000000)");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *rule = col(st, 1);
		const char *kind = "other", *devf = NULL, *codef = NULL;
		for (size_t i = 0; i < ARRAY_LEN(kinds); i++)
			if (!strcmp(kinds[i].rule, rule)) {
				kind = kinds[i].kind;
				devf = kinds[i].device;
				codef = kinds[i].code;
			}
		const char *host = sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL : col(st, 2);
		int64_t t = sqlite3_column_type(st, 3) == SQLITE_NULL ? T_NONE : sqlite3_column_int64(st, 3);
		char device[64] = "", code[32] = "", text[1024] = "";
		if (devf)
			q_text(db, device, sizeof(device), "SELECT json_extract(%Q, '$.%q')", col(st, 4), devf);
		if (codef)
			q_text(db, code, sizeof(code), "SELECT json_extract(%Q, '$.%q')", col(st, 4), codef);
		if (!strcmp(kind, "xid") || !strcmp(kind, "other") || !strcmp(kind, "nvlink")) {
			char b[16];
			pci_base(device, b, sizeof(b));
			if (device[0])
				snprintf(device, sizeof(device), "%s", b);
		}
		/* the message, without its time stamp and host */
		const char *line = col(st, 5);
		struct line_parts lp;
		line_parts_parse(line, strlen(line), false, &lp);
		snprintf(text, sizeof(text), "%.*s", (int)lp.msg_len, lp.msg);

		sqlite3_reset(dup);
		db_bind_text(dup, 1, host, -1);
		sqlite3_bind_text(dup, 2, kind, -1, SQLITE_STATIC);
		db_bind_text(dup, 3, device[0] ? device : NULL, -1);
		sqlite3_bind_text(dup, 4, text, -1, SQLITE_STATIC);
		db_bind_int_or_null(dup, 5, t, t != T_NONE);
		if (sqlite3_step(dup) == SQLITE_ROW && sqlite3_column_int(dup, 0) > 0)
			continue; /* the same message in dmesg and syslog */

		/* the rank it concerns */
		int rank = -1;
		if (device[0] && (!strcmp(kind, "xid") || !strcmp(kind, "other") || !strcmp(kind, "nvlink"))) {
			rank = (int)q_int(db, -1,
				"SELECT CASE WHEN %Q IS NOT NULL THEN (SELECT min(rank) FROM ranks WHERE host = %Q AND lower(pci) = %Q)"
				" ELSE (SELECT min(rank) FROM ranks WHERE lower(pci) = %Q"
				"       HAVING count(DISTINCT host) = 1) END",
				host, host, device, device);
		} else if (host && is_link_kind(kind)) {
			const char *pci = sqlite3_column_type(st, 6) == SQLITE_NULL ? NULL : col(st, 6);
			rank = iface_rank(db, host, device, pci);
			if (rank < 0 && is_down(kind, text))
				rank = ib_trouble_rank(db, host, t);
		} else if (host && !strcmp(kind, "oom_kill") && code[0]) {
			rank = (int)q_int(db, -1, "SELECT min(rank) FROM ranks WHERE host = %Q AND pid = %Q", host, code);
		}
		int i = 1;
		db_bind_text(ins, i++, host, -1);
		db_bind_int_or_null(ins, i++, t, t != T_NONE);
		sqlite3_bind_text(ins, i++, kind, -1, SQLITE_STATIC);
		db_bind_text(ins, i++, device[0] ? device : NULL, -1);
		db_bind_text(ins, i++, code[0] ? code : NULL, -1);
		db_bind_int_or_null(ins, i++, rank, rank >= 0);
		sqlite3_bind_text(ins, i++, text, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(ins, i++, sqlite3_column_int64(st, 0));
		db_step_done(ins);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	sqlite3_finalize(dup);
}

/* ---- findings ---- */

struct span {
	int64_t t0;          /* first failure, T_NONE if none */
	int64_t start, end;  /* the job's first and last line */
	char t0_what[160];   /* "the first timeout (rank 3)" */
	char t0_short[64];   /* "the first timeout" */
};

static void job_span(sqlite3 *db, struct span *s)
{
	s->t0 = q_int(db, T_NONE, "SELECT min(first_error_time_us) FROM rank_status");
	s->start = q_int(db, T_NONE, "SELECT min(first_time_us) FROM rank_status");
	s->end = q_int(db, T_NONE, "SELECT max(last_time_us) FROM rank_status");
	s->t0_what[0] = '\0';
	if (s->t0 != T_NONE) {
		char kind[64] = "";
		int rank = (int)q_int(db, -1, "SELECT rank FROM rank_status WHERE first_error_time_us = %lld ORDER BY rank LIMIT 1",
				      (long long)s->t0);
		q_text(db, kind, sizeof(kind), "SELECT first_error_kind FROM rank_status WHERE rank = %d", rank);
		const char *what = strstr(kind, "timeout") || !strcmp(kind, "pg_failure_detected") ? "timeout"
				   : strstr(kind, "_ib_") ? "IB error" : "failure";
		snprintf(s->t0_what, sizeof(s->t0_what), "the first %s (rank %d)", what, rank);
		snprintf(s->t0_short, sizeof(s->t0_short), "the first %s", what);
	}
}

/* where a message lies: 2 in the window before the first failure, 1 during the job, 0 neither */
static int placement(const struct span *s, int64_t t)
{
	if (t == T_NONE)
		return 1;
	if (s->t0 != T_NONE && t >= s->t0 - CORR_BEFORE_US && t <= s->t0 + CORR_AFTER_US)
		return 2;
	if (s->start != T_NONE && s->end != T_NONE && t >= s->start - CORR_BEFORE_US && t <= s->end + 60000000LL)
		return 1;
	return 0;
}

static void when_text(const struct span *s, int64_t t, char *out, size_t n)
{
	char ts[32], gap[48];
	fmt_time(t, ts, sizeof(ts));
	if (t == T_NONE) {
		snprintf(out, n, "at an unknown time (no boot time to place it)");
	} else if (s->t0 != T_NONE) {
		corr_fmt_gap(s->t0 - t, gap, sizeof(gap));
		snprintf(out, n, "at %s, %s %s", ts, gap, s->t0_what);
	} else {
		snprintf(out, n, "at %s", ts);
	}
}

static void finding_xid(sqlite3 *db, const struct span *sp, sqlite3_stmt *st)
{
	int64_t t = sqlite3_column_type(st, 2) == SQLITE_NULL ? T_NONE : sqlite3_column_int64(st, 2);
	const char *host = col(st, 1), *device = col(st, 4), *code = col(st, 5);
	int rank = sqlite3_column_int(st, 6);
	int64_t ev = sqlite3_column_int64(st, 7);
	int where = placement(sp, t);
	if (!where)
		return;
	char cls[32] = "", action[32] = "", meaning[160] = "";
	q_text(db, cls, sizeof(cls), "SELECT class FROM temp.kb_xid WHERE code = %Q", code);
	q_text(db, action, sizeof(action), "SELECT action FROM temp.kb_xid WHERE code = %Q", code);
	q_text(db, meaning, sizeof(meaning), "SELECT meaning FROM temp.kb_xid WHERE code = %Q", code);
	bool fault = !strcmp(cls, "gpu_fault");
	const char *severity = fault ? "error" : !strcmp(cls, "app") ? "info" : "warning";
	char when[256];
	when_text(sp, t, when, sizeof(when));
	struct buf sum = {0}, hint = {0}, ranks = {0}, hosts = {0};
	buf_printf(&sum, "Xid %s%s%s%s on the GPU of rank %d (%s, PCI %s) %s.", code, meaning[0] ? " (" : "", meaning,
		   meaning[0] ? ")" : "", rank, host, device, when);
	if (fault && where == 2)
		buf_puts(&sum, " A GPU failure this close to the job's first failure is its likely cause.");
	else if (!strcmp(cls, "app"))
		buf_puts(&sum, " This Xid is usually caused by the application, not the hardware.");
	char ts[32];
	fmt_time(t, ts, sizeof(ts));
	char gap[48] = "";
	if (t != T_NONE && sp->t0 != T_NONE)
		corr_fmt_gap(sp->t0 - t, gap, sizeof(gap));
	if (!strcmp(action, "drain") || !strcmp(action, "reset"))
		buf_printf(&hint, "%s %s: Xid %s on the GPU of rank %d (%s) at %s%s%s%s%s",
			   !strcmp(action, "drain") ? "drain" : "reset the GPU on", host, code, rank, device, ts,
			   gap[0] ? ", " : "", gap, gap[0] ? " " : "", gap[0] ? sp->t0_short : "");
	else if (!strcmp(action, "check"))
		buf_printf(&hint, "check the application on rank %d (Xid %s usually follows a bad kernel or address)", rank,
			   code);
	buf_printf(&ranks, "[%d]", rank);
	buf_putc(&hosts, '[');
	buf_json_str(&hosts, host, strlen(host));
	buf_putc(&hosts, ']');
	int64_t f = finding_add(db, fault ? "gpu_fault" : "gpu_xid", severity, ranks.data, hosts.data, sum.data,
				hint.len ? hint.data : NULL);
	evidence_add(db, f, ev, "the Xid");
	evidence_add(db, f, q_int(db, 0, "SELECT min(event_id) FROM events WHERE kind = 'nccl_comm_init' AND rank = %d"
					 " AND lower(pci_from_bus_id(field(fields, 'bus_id'))) = %Q", rank, device),
		     "the rank's GPU (NCCL init busId)");
	buf_free(&sum);
	buf_free(&hint);
	buf_free(&ranks);
	buf_free(&hosts);
}

static void finding_link(sqlite3 *db, const struct span *sp, sqlite3_stmt *st)
{
	int64_t t = sqlite3_column_type(st, 2) == SQLITE_NULL ? T_NONE : sqlite3_column_int64(st, 2);
	const char *host = col(st, 1), *kind = col(st, 3), *device = col(st, 4);
	int rank = sqlite3_column_int(st, 6);
	int64_t ev = sqlite3_column_int64(st, 7);
	int where = placement(sp, t);
	if (!where || !is_down(kind, col(st, 8)))
		return;
	/* did it come back? */
	int64_t up_ev = 0, up_t = T_NONE;
	if (t != T_NONE && device[0]) {
		up_ev = q_int(db, 0, "SELECT event_id FROM sysmsgs WHERE host = %Q AND kind = 'link_up' AND device = %Q"
				     " AND time_us >= %lld ORDER BY time_us LIMIT 1", host, device, (long long)t);
		up_t = q_int(db, T_NONE, "SELECT time_us FROM sysmsgs WHERE event_id = %lld", (long long)up_ev);
	}
	char when[256], what[160];
	when_text(sp, t, when, sizeof(when));
	if (!strcmp(kind, "link_down"))
		snprintf(what, sizeof(what), "%s went down", device);
	else if (!strcmp(kind, "netdev_watchdog"))
		snprintf(what, sizeof(what), "%s stopped transmitting (NETDEV WATCHDOG)", device);
	else if (!strcmp(kind, "bond"))
		snprintf(what, sizeof(what), "bond member %s changed state (%s)", device, col(st, 8));
	else
		snprintf(what, sizeof(what), "NIC port %s reported \"%s\"", device, col(st, 8));
	struct buf sum = {0}, hint = {0}, ranks = {0}, hosts = {0};
	buf_printf(&sum, "On %s, %s %s", host, what, when);
	if (up_t != T_NONE) {
		char ts[32];
		fmt_time(up_t, ts, sizeof(ts));
		buf_printf(&sum, " and came back at %s", ts);
	}
	if (corr_nic_used(db, ev, host, device))
		buf_printf(&sum, "; rank %d's NCCL traffic used that NIC.", rank);
	else
		buf_printf(&sum, "; NCCL on rank %d reported IB errors right after.", rank);
	char ts[32], gap[48] = "";
	fmt_time(t, ts, sizeof(ts));
	if (t != T_NONE && sp->t0 != T_NONE)
		corr_fmt_gap(sp->t0 - t, gap, sizeof(gap));
	buf_printf(&hint, "check the cable, switch port and NIC of %s on %s (down at %s%s%s%s%s)", device, host, ts,
		   gap[0] ? ", " : "", gap, gap[0] ? " " : "", gap[0] ? sp->t0_short : "");
	buf_printf(&ranks, "[%d]", rank);
	buf_putc(&hosts, '[');
	buf_json_str(&hosts, host, strlen(host));
	buf_putc(&hosts, ']');
	int64_t f = finding_add(db, "link_event", where == 2 ? "error" : "warning", ranks.data, hosts.data, sum.data,
				hint.data);
	evidence_add(db, f, ev, "the kernel's link event");
	if (up_ev)
		evidence_add(db, f, up_ev, "the link back up");
	buf_free(&sum);
	buf_free(&hint);
	buf_free(&ranks);
	buf_free(&hosts);
}

static void finding_oom(sqlite3 *db, const struct span *sp, sqlite3_stmt *st)
{
	int64_t t = sqlite3_column_type(st, 2) == SQLITE_NULL ? T_NONE : sqlite3_column_int64(st, 2);
	const char *host = col(st, 1);
	int rank = sqlite3_column_int(st, 6);
	if (!placement(sp, t))
		return;
	char when[256];
	when_text(sp, t, when, sizeof(when));
	struct buf sum = {0}, hint = {0}, ranks = {0}, hosts = {0};
	buf_printf(&sum, "The kernel's OOM killer killed rank %d's process (pid %s) on %s %s.", rank, col(st, 5), host, when);
	buf_printf(&hint, "give the job more host memory on %s or reduce its use (data loader workers, pinned memory)", host);
	buf_printf(&ranks, "[%d]", rank);
	buf_putc(&hosts, '[');
	buf_json_str(&hosts, host, strlen(host));
	buf_putc(&hosts, ']');
	int64_t f = finding_add(db, "oom_kill", "error", ranks.data, hosts.data, sum.data, hint.data);
	evidence_add(db, f, sqlite3_column_int64(st, 7), "the OOM kill");
	buf_free(&sum);
	buf_free(&hint);
	buf_free(&ranks);
	buf_free(&hosts);
}

/* hardware trouble on a job host that no rank is tied to (host memory, NVSwitch, GSP) */
static void finding_host(sqlite3 *db, const struct span *sp, sqlite3_stmt *st)
{
	int64_t t = sqlite3_column_type(st, 2) == SQLITE_NULL ? T_NONE : sqlite3_column_int64(st, 2);
	const char *host = col(st, 1), *kind = col(st, 3);
	if (placement(sp, t) != 2)
		return;
	char when[256];
	when_text(sp, t, when, sizeof(when));
	struct buf sum = {0}, hosts = {0};
	buf_printf(&sum, "%s message on %s %s: \"%s\".", !strcmp(kind, "ecc") ? "Memory error" : !strcmp(kind, "gsp") ? "GSP"
							   : !strcmp(kind, "nvlink") ? "NVLink/NVSwitch" : "Kernel",
		   host, when, col(st, 8));
	buf_putc(&hosts, '[');
	buf_json_str(&hosts, host, strlen(host));
	buf_putc(&hosts, ']');
	int64_t f = finding_add(db, "host_error", "warning", NULL, hosts.data, sum.data, NULL);
	evidence_add(db, f, sqlite3_column_int64(st, 7), "the message");
	buf_free(&sum);
	buf_free(&hosts);
}

void analysis_sysmsgs_knowledge(sqlite3 *db)
{
	static const char *const xid_cols[] = {"code", "class", "action", "meaning", "source"};
	knowledge_load(db, "xid-codes.tsv", "kb_xid", xid_cols, (int)ARRAY_LEN(xid_cols));
}

void analysis_sysmsgs(sqlite3 *db)
{
	analysis_sysmsgs_knowledge(db);
	load_sysmsgs(db);

	struct span sp;
	job_span(db, &sp);
	sqlite3_stmt *st = db_prepare(db,
		"SELECT sysmsg_id, host, time_us, kind, coalesce(device,''), coalesce(code,''), rank, event_id, text"
		" FROM sysmsgs WHERE (rank IS NOT NULL OR (host IN (SELECT host FROM ranks) AND kind IN ('ecc','gsp','nvlink')))"
		" ORDER BY time_us IS NULL, time_us, sysmsg_id");
	/* one finding per device and code: the first message stands for its repeats */
	struct buf seen = {0};
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *kind = col(st, 3);
		/* one finding per link: its "Link down" and its bond's "slave down" are one event */
		char key[256];
		if (is_link_kind(kind))
			snprintf(key, sizeof(key), "|%s/link/%s|", col(st, 1), col(st, 4));
		else
			snprintf(key, sizeof(key), "|%s/%s/%s/%s|", col(st, 1), kind, col(st, 4), col(st, 5));
		if (is_link_kind(kind) && !is_down(kind, col(st, 8)))
			continue;
		if (seen.data && strstr(seen.data, key))
			continue;
		buf_puts(&seen, key);
		if (sqlite3_column_type(st, 6) == SQLITE_NULL)
			finding_host(db, &sp, st);
		else if (!strcmp(kind, "xid"))
			finding_xid(db, &sp, st);
		else if (is_link_kind(kind))
			finding_link(db, &sp, st);
		else if (!strcmp(kind, "oom_kill"))
			finding_oom(db, &sp, st);
	}
	sqlite3_finalize(st);
	buf_free(&seen);
}
