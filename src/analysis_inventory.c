/* analysis_inventory.c: the hardware of each host, from the command outputs
 * contrib/collect-logs.sh gathers next to the logs (grammars/90-inventory.rules:
 * nvidia-smi -q / -L / topo -m, ip -br addr, ip -s link, ibstat, ibv_devinfo).
 * Each of those lines is one event; this file puts the events of one file
 * together in line order (the attribute under a "GPU 0000:18:00.0" line
 * belongs to that GPU) and writes tables gpus, nics and topo.
 *
 * Then what needs both the hardware and the NCCL logs, as findings: a rank
 * whose traffic leaves through a NIC that is not the one closest to its GPU,
 * a NIC that NCCL used and that is down or counting errors, NCCL on sockets
 * beside active IB ports, an IB port slower than the job's others, GPU
 * drivers that differ between hosts, and the identity (serial, UUID) of the
 * culprit's GPU. Nothing here runs when the case holds no inventory. */
#include "analysis_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "findings.h"
#include "util.h"

#define INVENTORY_KINDS                                                                              \
	"('smi_gpu','smi_attr','smi_list','smi_topo_header','smi_topo_row','smi_topo_nic','ip_br_addr',"    \
	"'ip_link','ip_link_stats_header','ip_link_stats','ibstat_ca','ibstat_port','ibstat_attr',"         \
	"'ibv_hca','ibv_port','ibv_attr')"

/* Findings of one kind beyond this many are summed up in one more. */
#define MAX_RANK_FINDINGS 32

/* Closeness of a GPU-NIC path in nvidia-smi topo -m terms, smaller is closer. */
#define LINK_RANK_SQL(col)                                                                           \
	"(CASE " col " WHEN 'PIX' THEN 1 WHEN 'PXB' THEN 2 WHEN 'PHB' THEN 3 WHEN 'NODE' THEN 4 "         \
	"WHEN 'SYS' THEN 5 WHEN 'SOC' THEN 5 ELSE 6 END)"

/* The columns of the event walk (see walk_sql). */
enum {
	C_EVENT, C_SOURCE, C_LINE, C_KIND, C_HOST,
	C_BUS_ID, C_NAME, C_VALUE, C_GPU, C_UUID, C_COLS, C_DEV, C_CELLS, C_NIC, C_IFNAME,
	C_STATE, C_ADDRS, C_MTU, C_DIR, C_ERRORS, C_DROPPED, C_C5, C_CA, C_PORT,
};

static const char walk_sql[] =
	"SELECT e.event_id, e.source_id, e.line_no, e.kind, coalesce(s.host, e.host),\n"
	"  field(e.fields, 'bus_id'), field(e.fields, 'name'), field(e.fields, 'value'),\n"
	"  field(e.fields, 'gpu'), field(e.fields, 'uuid'), field(e.fields, 'cols'),\n"
	"  field(e.fields, 'dev'), field(e.fields, 'cells'), field(e.fields, 'nic'),\n"
	"  field(e.fields, 'ifname'), field(e.fields, 'state'), field(e.fields, 'addrs'),\n"
	"  field(e.fields, 'mtu'), field(e.fields, 'dir'), field(e.fields, 'errors'),\n"
	"  field(e.fields, 'dropped'), field(e.fields, 'c5'), field(e.fields, 'ca'),\n"
	"  field(e.fields, 'port')\n"
	"FROM events e JOIN sources s USING(source_id)\n"
	"WHERE e.kind IN " INVENTORY_KINDS "\n"
	"ORDER BY e.source_id, e.line_no";

/* What the walk remembers of the file it is in. */
struct walk {
	int64_t source;
	char *host;
	/* nvidia-smi -q */
	int ngpus;
	int64_t gpu_row; /* rowid in gpus of the section we are in, 0 if none */
	char *driver;
	/* nvidia-smi topo -m: the device columns of the header */
	char **cols;
	int ncols;
	/* ip -s link */
	int64_t link_row;
	char stats_dir;      /* 'R' or 'T' when the previous event was a counters header */
	int64_t stats_line;  /* its line */
	/* ibstat / ibv_devinfo */
	char *ca;
	char *ca_fw;
	int64_t port_row;
};

static void walk_reset(struct walk *w, int64_t source, const char *host)
{
	free(w->host);
	free(w->driver);
	free(w->ca);
	free(w->ca_fw);
	for (int i = 0; i < w->ncols; i++)
		free(w->cols[i]);
	free(w->cols);
	memset(w, 0, sizeof(*w));
	w->source = source;
	w->host = host ? xstrdup(host) : NULL;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* Splits s at blanks into at most max tokens (copies); returns the count. */
static int split_blanks(const char *s, char **out, int max)
{
	int n = 0;
	while (s && *s && n < max) {
		while (*s && isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		const char *b = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		out[n++] = xstrndup(b, (size_t)(s - b));
	}
	return n;
}

static void free_tokens(char **t, int n)
{
	for (int i = 0; i < n; i++)
		free(t[i]);
}

/* A row of nics for (host, name, port, kind): the existing one or a new one. */
static int64_t nic_row(sqlite3 *db, const char *host, const char *name, int port, const char *kind,
		       const char *evidence, int64_t event_id)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT rowid FROM nics WHERE host IS ? AND name = ? AND kind = ? "
					  "AND port IS ?");
	db_bind_text(st, 1, host, -1);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
	db_bind_int_or_null(st, 4, port, port >= 0);
	int64_t row = 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		row = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (row) {
		st = db_prepare(db, "UPDATE nics SET evidence = CASE WHEN instr(evidence, ?1) THEN evidence "
				    "ELSE evidence || ', ' || ?1 END WHERE rowid = ?2");
		sqlite3_bind_text(st, 1, evidence, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, row);
		db_step_done(st);
		sqlite3_finalize(st);
		return row;
	}
	st = db_prepare(db, "INSERT INTO nics(host, name, port, kind, evidence, event_id) VALUES(?,?,?,?,?,?)");
	db_bind_text(st, 1, host, -1);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	db_bind_int_or_null(st, 3, port, port >= 0);
	sqlite3_bind_text(st, 4, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, evidence, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, event_id);
	db_step_done(st);
	sqlite3_finalize(st);
	return sqlite3_last_insert_rowid(db);
}

/* UPDATE <table> SET <col> = value WHERE rowid = row (col is ours, not input). */
static void set_text(sqlite3 *db, const char *table, int64_t row, const char *col, const char *value)
{
	if (!row || !value)
		return;
	char *sql = sqlite3_mprintf("UPDATE %s SET %s = ? WHERE rowid = ?", table, col);
	sqlite3_stmt *st = db_prepare(db, sql);
	sqlite3_free(sql);
	sqlite3_bind_text(st, 1, value, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, row);
	db_step_done(st);
	sqlite3_finalize(st);
}

static void set_int(sqlite3 *db, const char *table, int64_t row, const char *col, int64_t value)
{
	if (!row)
		return;
	char *sql = sqlite3_mprintf("UPDATE %s SET %s = ? WHERE rowid = ?", table, col);
	sqlite3_stmt *st = db_prepare(db, sql);
	sqlite3_free(sql);
	sqlite3_bind_int64(st, 1, value);
	sqlite3_bind_int64(st, 2, row);
	db_step_done(st);
	sqlite3_finalize(st);
}

/* ibv_devinfo spells states "PORT_ACTIVE (4)", "LINK_UP (5)"; ibstat "Active",
 * "LinkUp". One spelling (ibstat's) for both. */
static const char *ib_state_name(const char *v)
{
	static const struct {
		const char *in, *out;
	} map[] = {
		{"PORT_ACTIVE", "Active"}, {"PORT_DOWN", "Down"}, {"PORT_INIT", "Initializing"},
		{"PORT_ARMED", "Armed"}, {"PORT_ACTIVE_DEFER", "Active"}, {"LINK_UP", "LinkUp"},
		{"POLLING", "Polling"}, {"DISABLED", "Disabled"}, {"SLEEP", "Sleep"},
		{"PORT_CONFIGURATION_TRAINING", "PortConfigurationTraining"},
		{"LINK_ERROR_RECOVERY", "LinkErrorRecovery"}, {"PHY_TEST", "PhyTest"},
	};
	for (size_t i = 0; i < ARRAY_LEN(map); i++) {
		size_t n = strlen(map[i].in);
		if (strncmp(v, map[i].in, n) == 0 && (v[n] == '\0' || v[n] == ' '))
			return map[i].out;
	}
	return v;
}

static void on_smi(sqlite3 *db, struct walk *w, sqlite3_stmt *st, const char *kind)
{
	int64_t ev = sqlite3_column_int64(st, C_EVENT);
	if (strcmp(kind, "smi_gpu") == 0) {
		sqlite3_stmt *ins = db_prepare(db, "INSERT INTO gpus(host, gpu, bus_id, pci, driver, event_id) "
						   "VALUES(?1, ?2, ?3, lower(substr(?3, -12, 10)), ?4, ?5)");
		db_bind_text(ins, 1, w->host, -1);
		sqlite3_bind_int(ins, 2, w->ngpus++);
		sqlite3_bind_text(ins, 3, col_text(st, C_BUS_ID), -1, SQLITE_STATIC);
		db_bind_text(ins, 4, w->driver, -1);
		sqlite3_bind_int64(ins, 5, ev);
		db_step_done(ins);
		sqlite3_finalize(ins);
		w->gpu_row = sqlite3_last_insert_rowid(db);
	} else if (strcmp(kind, "smi_attr") == 0) {
		const char *name = col_text(st, C_NAME), *value = col_text(st, C_VALUE);
		if (!name || !value)
			return;
		static const struct {
			const char *attr, *col;
		} cols[] = {
			{"Product Name", "name"}, {"Serial Number", "serial"}, {"GPU UUID", "uuid"},
			{"Minor Number", "minor"}, {"VBIOS Version", "vbios"},
		};
		if (strcmp(name, "Driver Version") == 0) {
			free(w->driver);
			w->driver = xstrdup(value);
			set_text(db, "gpus", w->gpu_row, "driver", value);
			return;
		}
		for (size_t i = 0; i < ARRAY_LEN(cols); i++)
			if (strcmp(name, cols[i].attr) == 0 && strcmp(value, "N/A") != 0)
				set_text(db, "gpus", w->gpu_row, cols[i].col, value);
	} else if (strcmp(kind, "smi_list") == 0) {
		sqlite3_stmt *ins = db_prepare(db, "INSERT INTO temp.inv_list(host, gpu, uuid) VALUES(?,?,?)");
		db_bind_text(ins, 1, w->host, -1);
		sqlite3_bind_int(ins, 2, sqlite3_column_int(st, C_GPU));
		sqlite3_bind_text(ins, 3, col_text(st, C_UUID), -1, SQLITE_STATIC);
		db_step_done(ins);
		sqlite3_finalize(ins);
	}
}

static void on_topo(sqlite3 *db, struct walk *w, sqlite3_stmt *st, const char *kind)
{
	int64_t ev = sqlite3_column_int64(st, C_EVENT);
	if (strcmp(kind, "smi_topo_header") == 0) {
		char *tok[256];
		int n = split_blanks(col_text(st, C_COLS), tok, 256), keep = 0;
		while (keep < n && strcmp(tok[keep], "CPU") != 0)
			keep++;
		for (int i = 0; i < w->ncols; i++)
			free(w->cols[i]);
		free(w->cols);
		w->cols = xcalloc((size_t)keep + 1, sizeof(*w->cols));
		for (int i = 0; i < keep; i++)
			w->cols[i] = xstrdup(tok[i]);
		w->ncols = keep;
		free_tokens(tok, n);
	} else if (strcmp(kind, "smi_topo_row") == 0) {
		const char *dev = col_text(st, C_DEV);
		if (!dev || strncmp(dev, "GPU", 3) != 0 || !w->ncols)
			return;
		int gpu = atoi(dev + 3);
		char *tok[260];
		int n = split_blanks(col_text(st, C_CELLS), tok, 260);
		sqlite3_stmt *ins = db_prepare(db, "INSERT INTO topo(host, gpu, peer, label, peer_kind, link, event_id) "
						   "VALUES(?,?,?,?,?,?,?)");
		for (int j = 0; j < w->ncols && j < n; j++) {
			const char *col = w->cols[j];
			bool is_gpu = strncmp(col, "GPU", 3) == 0 && isdigit((unsigned char)col[3]);
			if (strcmp(tok[j], "X") == 0)
				continue;
			db_bind_text(ins, 1, w->host, -1);
			sqlite3_bind_int(ins, 2, gpu);
			sqlite3_bind_text(ins, 3, col, -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 4, col, -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 5, is_gpu ? "gpu" : "nic", -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 6, tok[j], -1, SQLITE_STATIC);
			sqlite3_bind_int64(ins, 7, ev);
			db_step_done(ins);
		}
		sqlite3_finalize(ins);
		/* after the device columns: CPU affinity, NUMA affinity, GPU NUMA ID */
		if (n > w->ncols) {
			ins = db_prepare(db, "INSERT INTO temp.inv_aff(host, gpu, cpu_affinity, numa) VALUES(?,?,?,?)");
			db_bind_text(ins, 1, w->host, -1);
			sqlite3_bind_int(ins, 2, gpu);
			sqlite3_bind_text(ins, 3, tok[w->ncols], -1, SQLITE_STATIC);
			db_bind_text(ins, 4, n > w->ncols + 1 ? tok[w->ncols + 1] : NULL, -1);
			db_step_done(ins);
			sqlite3_finalize(ins);
		}
		free_tokens(tok, n);
	} else if (strcmp(kind, "smi_topo_nic") == 0) {
		sqlite3_stmt *up = db_prepare(db, "UPDATE topo SET peer = ?3 WHERE host IS ?1 AND label = ?2 "
						  "AND peer_kind = 'nic'");
		db_bind_text(up, 1, w->host, -1);
		sqlite3_bind_text(up, 2, col_text(st, C_NIC), -1, SQLITE_STATIC);
		sqlite3_bind_text(up, 3, col_text(st, C_NAME), -1, SQLITE_STATIC);
		db_step_done(up);
		sqlite3_finalize(up);
	}
}

static void on_ip(sqlite3 *db, struct walk *w, sqlite3_stmt *st, const char *kind)
{
	int64_t ev = sqlite3_column_int64(st, C_EVENT);
	int64_t line = sqlite3_column_int64(st, C_LINE);
	if (strcmp(kind, "ip_br_addr") == 0 || strcmp(kind, "ip_link") == 0) {
		const char *ifname = col_text(st, C_IFNAME);
		if (!ifname)
			return;
		bool br = kind[3] == 'b';
		int64_t row = nic_row(db, w->host, ifname, -1, "netdev", br ? "ip -br addr" : "ip -s link", ev);
		set_text(db, "nics", row, "state", col_text(st, C_STATE));
		if (br)
			set_text(db, "nics", row, "addrs", col_text(st, C_ADDRS));
		else if (sqlite3_column_type(st, C_MTU) != SQLITE_NULL)
			set_int(db, "nics", row, "mtu", sqlite3_column_int64(st, C_MTU));
		w->link_row = br ? 0 : row;
		w->stats_dir = 0;
	} else if (strcmp(kind, "ip_link_stats_header") == 0) {
		const char *dir = col_text(st, C_DIR);
		w->stats_dir = dir ? dir[0] : 0;
		w->stats_line = line;
	} else if (strcmp(kind, "ip_link_stats") == 0) {
		if (!w->link_row || !w->stats_dir || w->stats_line != line - 1)
			return;
		if (w->stats_dir == 'R') {
			set_int(db, "nics", w->link_row, "rx_errors", sqlite3_column_int64(st, C_ERRORS));
			set_int(db, "nics", w->link_row, "rx_dropped", sqlite3_column_int64(st, C_DROPPED));
		} else {
			set_int(db, "nics", w->link_row, "tx_errors", sqlite3_column_int64(st, C_ERRORS));
			set_int(db, "nics", w->link_row, "tx_dropped", sqlite3_column_int64(st, C_DROPPED));
			set_int(db, "nics", w->link_row, "tx_carrier", sqlite3_column_int64(st, C_C5));
		}
		w->stats_dir = 0;
	}
}

static void on_ib(sqlite3 *db, struct walk *w, sqlite3_stmt *st, const char *kind)
{
	int64_t ev = sqlite3_column_int64(st, C_EVENT);
	bool ibv = kind[2] == 'v';
	const char *evidence = ibv ? "ibv_devinfo" : "ibstat";
	if (strcmp(kind, "ibstat_ca") == 0 || strcmp(kind, "ibv_hca") == 0) {
		free(w->ca);
		free(w->ca_fw);
		w->ca = xstrdup(col_text(st, C_CA) ? col_text(st, C_CA) : "?");
		w->ca_fw = NULL;
		w->port_row = 0;
	} else if (strcmp(kind, "ibstat_port") == 0 || strcmp(kind, "ibv_port") == 0) {
		if (!w->ca)
			return;
		w->port_row = nic_row(db, w->host, w->ca, sqlite3_column_int(st, C_PORT), "rdma", evidence, ev);
		set_text(db, "nics", w->port_row, "fw", w->ca_fw);
	} else {
		const char *name = col_text(st, C_NAME), *value = col_text(st, C_VALUE);
		if (!name || !value || !w->ca)
			return;
		if (strcmp(name, "Firmware version") == 0 || strcmp(name, "fw_ver") == 0) {
			free(w->ca_fw);
			w->ca_fw = xstrdup(value);
			return;
		}
		if (!w->port_row)
			return;
		if (strcmp(name, "State") == 0 || strcmp(name, "state") == 0)
			set_text(db, "nics", w->port_row, "state", ib_state_name(value));
		else if (strcmp(name, "Physical state") == 0 || strcmp(name, "phys_state") == 0)
			set_text(db, "nics", w->port_row, "phys_state", ib_state_name(value));
		else if (strcmp(name, "Link layer") == 0 || strcmp(name, "link_layer") == 0)
			set_text(db, "nics", w->port_row, "link_layer", value);
		else if (strcmp(name, "Rate") == 0) {
			sqlite3_stmt *up = db_prepare(db, "UPDATE nics SET rate_gbps = CAST(? AS REAL) WHERE rowid = ?");
			sqlite3_bind_text(up, 1, value, -1, SQLITE_STATIC);
			sqlite3_bind_int64(up, 2, w->port_row);
			db_step_done(up);
			sqlite3_finalize(up);
		}
	}
}

static void walk_events(sqlite3 *db)
{
	struct walk w = {0};
	sqlite3_stmt *st = db_prepare(db, walk_sql);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t source = sqlite3_column_int64(st, C_SOURCE);
		if (source != w.source || !w.source)
			walk_reset(&w, source, col_text(st, C_HOST));
		const char *kind = col_text(st, C_KIND);
		if (str_starts(kind, "smi_topo"))
			on_topo(db, &w, st, kind);
		else if (str_starts(kind, "smi_"))
			on_smi(db, &w, st, kind);
		else if (str_starts(kind, "ip_"))
			on_ip(db, &w, st, kind);
		else
			on_ib(db, &w, st, kind);
	}
	sqlite3_finalize(st);
	walk_reset(&w, 0, NULL);
}

/* After the walk: what one file tells about another's rows. */
static const char complete_sql[] =
	/* nvidia-smi -L gives the index for a UUID; without it, the order of -q */
	"UPDATE gpus SET gpu = (SELECT l.gpu FROM temp.inv_list l WHERE l.host IS gpus.host AND l.uuid = gpus.uuid)\n"
	"  WHERE EXISTS (SELECT 1 FROM temp.inv_list l WHERE l.host IS gpus.host AND l.uuid = gpus.uuid);\n"
	"UPDATE gpus SET\n"
	"  cpu_affinity = (SELECT a.cpu_affinity FROM temp.inv_aff a WHERE a.host IS gpus.host AND a.gpu = gpus.gpu),\n"
	"  numa = (SELECT a.numa FROM temp.inv_aff a WHERE a.host IS gpus.host AND a.gpu = gpus.gpu);\n"
	/* NICs that only topo names */
	"INSERT INTO nics(host, name, kind, evidence, event_id)\n"
	"  SELECT host, peer, 'rdma', 'nvidia-smi topo -m', min(event_id) FROM topo t WHERE peer_kind = 'nic'\n"
	"    AND NOT EXISTS (SELECT 1 FROM nics n WHERE n.host IS t.host AND n.name = t.peer)\n"
	"  GROUP BY host, peer;\n"
	"UPDATE nics SET label = (SELECT t.label FROM topo t WHERE t.host IS nics.host AND t.peer = nics.name\n"
	"    AND t.label <> t.peer LIMIT 1) WHERE kind = 'rdma';\n"
	/* the closest NIC(s) of each GPU */
	"UPDATE gpus SET nearest_link = (SELECT t.link FROM topo t WHERE t.host IS gpus.host AND t.gpu = gpus.gpu\n"
	"    AND t.peer_kind = 'nic' ORDER BY " LINK_RANK_SQL("t.link") " LIMIT 1);\n"
	"UPDATE gpus SET nearest_nic = (SELECT group_concat(peer, ',') FROM (SELECT t.peer FROM topo t\n"
	"    WHERE t.host IS gpus.host AND t.gpu = gpus.gpu AND t.peer_kind = 'nic'\n"
	"      AND " LINK_RANK_SQL("t.link") " = " LINK_RANK_SQL("gpus.nearest_link") " ORDER BY t.peer))\n"
	"  WHERE nearest_link IS NOT NULL;\n"
	/* topo rows (and GPUs) without a -q section: a gpus row all the same */
	"INSERT INTO gpus(host, gpu, event_id)\n"
	"  SELECT host, gpu, min(event_id) FROM topo t\n"
	"    WHERE NOT EXISTS (SELECT 1 FROM gpus g WHERE g.host IS t.host AND g.gpu = t.gpu)\n"
	"  GROUP BY host, gpu;\n"
	"UPDATE gpus SET\n"
	"  cpu_affinity = coalesce(cpu_affinity, (SELECT a.cpu_affinity FROM temp.inv_aff a WHERE a.host IS gpus.host AND a.gpu = gpus.gpu)),\n"
	"  numa = coalesce(numa, (SELECT a.numa FROM temp.inv_aff a WHERE a.host IS gpus.host AND a.gpu = gpus.gpu)),\n"
	"  nearest_link = coalesce(nearest_link, (SELECT t.link FROM topo t WHERE t.host IS gpus.host AND t.gpu = gpus.gpu\n"
	"    AND t.peer_kind = 'nic' ORDER BY " LINK_RANK_SQL("t.link") " LIMIT 1));\n"
	"UPDATE gpus SET nearest_nic = (SELECT group_concat(peer, ',') FROM (SELECT t.peer FROM topo t\n"
	"    WHERE t.host IS gpus.host AND t.gpu = gpus.gpu AND t.peer_kind = 'nic'\n"
	"      AND " LINK_RANK_SQL("t.link") " = " LINK_RANK_SQL("gpus.nearest_link") " ORDER BY t.peer))\n"
	"  WHERE nearest_link IS NOT NULL AND nearest_nic IS NULL;\n"
	/* the rank on each GPU: by PCI address, else by NVML index */
	"UPDATE gpus SET rank = (SELECT min(r.rank) FROM ranks r WHERE r.host = gpus.host AND r.pci = gpus.pci);\n"
	"UPDATE gpus SET rank = (SELECT min(r.rank) FROM ranks r WHERE r.host = gpus.host AND r.pci IS NULL\n"
	"    AND r.nvml_dev = gpus.gpu) WHERE rank IS NULL;\n";

/* ---- which NIC each rank's NCCL traffic used ---- */

/* One "[0]mlx5_0:1/IB" or "[0]eth0:10.0.0.1<0>" entry of a NET device list. */
static void add_netdevs(sqlite3_stmt *ins, const char *host, int64_t pid, const char *plugin, const char *list)
{
	for (const char *p = list; p && (p = strchr(p, '[')); ) {
		char *end;
		long idx = strtol(p + 1, &end, 10);
		if (end == p + 1 || *end != ']') {
			p++;
			continue;
		}
		const char *name = end + 1;
		size_t n = strcspn(name, ": [;");
		if (!n) {
			p = name;
			continue;
		}
		int port = -1;
		if (name[n] == ':' && isdigit((unsigned char)name[n + 1])) {
			const char *q = name + n + 1;
			size_t digits = strspn(q, "0123456789");
			if (q[digits] == '/' || q[digits] == ' ' || q[digits] == '\0')
				port = atoi(q);
		}
		db_bind_text(ins, 1, host, -1);
		sqlite3_bind_int64(ins, 2, pid);
		sqlite3_bind_int(ins, 3, (int)idx);
		sqlite3_bind_text(ins, 4, name, (int)n, SQLITE_TRANSIENT);
		db_bind_int_or_null(ins, 5, port, port >= 0);
		db_bind_text(ins, 6, plugin, -1);
		db_step_done(ins);
		p = name + n;
	}
}

/* "NET/IB/1/GDRDMA", "NET/NCCL RDMA Plugin v9/3/GDRDMA", "NET/IB/0(1)/GDRDMA":
 * the plugin and the device index; false for PXN (traffic sent through
 * another GPU's NIC on purpose) and for what is not a NET transport. */
static bool parse_net_transport(const char *t, char *plugin, size_t plen, int *dev)
{
	if (!t || strncmp(t, "NET/", 4) != 0)
		return false;
	const char *p = t + 4;
	for (const char *s = p; (s = strchr(s, '/')); s++) {
		if (!isdigit((unsigned char)s[1]))
			continue;
		const char *q = s + 1;
		q += strspn(q, "0123456789");
		if (*q == '(')
			return false;
		if (*q != '/' && *q != '\0')
			continue;
		size_t n = (size_t)(s - p);
		if (n >= plen)
			n = plen - 1;
		memcpy(plugin, p, n);
		plugin[n] = '\0';
		*dev = atoi(s + 1);
		return true;
	}
	return false;
}

static void nccl_usage(sqlite3 *db)
{
	db_exec(db,
		"DROP TABLE IF EXISTS temp.inv_netdev;\n"
		"CREATE TEMP TABLE inv_netdev(host, pid, idx, name, port, plugin, UNIQUE(host, pid, plugin, idx));\n"
		"DROP TABLE IF EXISTS temp.inv_use;\n"
		"CREATE TEMP TABLE inv_use(rank, host, pid, nic, port, plugin, what, event_id);\n");
	sqlite3_stmt *ins = db_prepare(db, "INSERT OR IGNORE INTO temp.inv_netdev(host, pid, idx, name, port, plugin) "
					   "VALUES(?,?,?,?,?,?)");
	sqlite3_stmt *st = db_prepare(db, "SELECT host, pid, field(fields, 'plugin'), field(fields, 'devices') "
					  "FROM events WHERE kind = 'nccl_net_devices' AND pid IS NOT NULL "
					  "GROUP BY host, pid, fields");
	while (sqlite3_step(st) == SQLITE_ROW)
		add_netdevs(ins, col_text(st, 0), sqlite3_column_int64(st, 1), col_text(st, 2), col_text(st, 3));
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	/* NCCL >= 2.21 lists IB devices one per line */
	db_exec(db, "INSERT OR IGNORE INTO temp.inv_netdev(host, pid, idx, name, port, plugin)\n"
		    "  SELECT host, pid, field(fields, 'index'), field(fields, 'hca'),\n"
		    "    field(fields, 'port'), 'IB' FROM events WHERE kind = 'nccl_ib_device' AND pid IS NOT NULL\n"
		    "    AND field(fields, 'port') IS NOT NULL;\n");

	ins = db_prepare(db, "INSERT INTO temp.inv_use(rank, host, pid, nic, port, plugin, what, event_id)\n"
			     "  SELECT ?1, ?2, ?3, d.name, d.port, ?4, 'NET', ?6 FROM temp.inv_netdev d\n"
			     "  WHERE d.host IS ?2 AND d.pid = ?3 AND d.idx = ?5 AND d.plugin = ?4 LIMIT 1");
	st = db_prepare(db,
			"SELECT e.host, e.pid, coalesce(e.rank, (SELECT p.rank FROM procs p WHERE p.host = e.host\n"
			"    AND p.pid = e.pid AND p.rank IS NOT NULL LIMIT 1)), field(e.fields, 'transport'),\n"
			"  min(e.event_id)\n"
			"FROM events e WHERE e.kind = 'nccl_channel' AND field(e.fields, 'transport') LIKE 'NET/%'\n"
			"  AND e.pid IS NOT NULL\n"
			"GROUP BY e.host, e.pid, e.rank, field(e.fields, 'transport')");
	while (sqlite3_step(st) == SQLITE_ROW) {
		char plugin[128];
		int dev;
		if (sqlite3_column_type(st, 2) == SQLITE_NULL ||
		    !parse_net_transport(col_text(st, 3), plugin, sizeof(plugin), &dev))
			continue;
		sqlite3_bind_int64(ins, 1, sqlite3_column_int64(st, 2));
		db_bind_text(ins, 2, col_text(st, 0), -1);
		sqlite3_bind_int64(ins, 3, sqlite3_column_int64(st, 1));
		sqlite3_bind_text(ins, 4, plugin, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(ins, 5, dev);
		sqlite3_bind_int64(ins, 6, sqlite3_column_int64(st, 4));
		db_step_done(ins);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	/* the bootstrap interface is used too (and is the socket NIC when NCCL falls back) */
	db_exec(db,
		"INSERT INTO temp.inv_use(rank, host, pid, nic, port, plugin, what, event_id)\n"
		"  SELECT coalesce(e.rank, (SELECT p.rank FROM procs p WHERE p.host = e.host AND p.pid = e.pid\n"
		"      AND p.rank IS NOT NULL LIMIT 1)), e.host, e.pid, field(e.fields, 'ifname'), NULL,\n"
		"    'bootstrap', 'bootstrap', min(e.event_id)\n"
		"  FROM events e WHERE e.kind = 'nccl_bootstrap_if' AND field(e.fields, 'ifname') IS NOT NULL\n"
		"  GROUP BY e.host, e.pid, field(e.fields, 'ifname');\n"
		"UPDATE nics SET used_by = (SELECT json_group_array(DISTINCT u.rank) FROM temp.inv_use u\n"
		"    WHERE u.host IS nics.host AND u.nic = nics.name AND u.rank IS NOT NULL\n"
		"      AND (nics.port IS NULL OR u.port IS NULL OR u.port = nics.port))\n"
		"  WHERE EXISTS (SELECT 1 FROM temp.inv_use u WHERE u.host IS nics.host AND u.nic = nics.name\n"
		"      AND u.rank IS NOT NULL AND (nics.port IS NULL OR u.port IS NULL OR u.port = nics.port));\n");
}

/* ---- findings ---- */

static char *json_str_array1(const char *s)
{
	return sqlite3_mprintf("[\"%w\"]", s ? s : "");
}

/* A rank whose NET traffic leaves through NICs none of which is the closest
 * to its GPU. */
static void find_nic_not_closest(sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db,
		"WITH used AS (\n"
		"  SELECT u.rank, u.host, u.nic, min(u.event_id) AS ev FROM temp.inv_use u\n"
		"  WHERE u.what = 'NET' AND u.rank IS NOT NULL GROUP BY u.rank, u.host, u.nic),\n"
		"ul AS (\n"
		"  SELECT used.*, g.gpu, g.nearest_nic, g.nearest_link, t.link, " LINK_RANK_SQL("t.link") " AS lr,\n"
		"    t.event_id AS tev\n"
		"  FROM used JOIN gpus g ON g.rank = used.rank AND g.host = used.host\n"
		"    JOIN topo t ON t.host = g.host AND t.gpu = g.gpu AND t.peer = used.nic\n"
		"  WHERE g.nearest_nic IS NOT NULL)\n"
		/* the bare columns link and tev come from the row of min(lr): the closest NIC used */
		"SELECT rank, host, gpu, group_concat(nic, ','), nearest_nic, nearest_link, link, min(ev), tev, min(lr)\n"
		"FROM ul GROUP BY rank, host, gpu\n"
		"HAVING min(lr) > " LINK_RANK_SQL("nearest_link") "\n"
		"ORDER BY rank");
	int n = 0;
	sqlite3_str *rest = sqlite3_str_new(db);
	int nrest = 0;
	const char *hint = "NCCL sends each GPU's traffic through the NIC closest to it unless told otherwise: check "
			   "NCCL_IB_HCA (a list that leaves out or reorders NICs), CUDA_VISIBLE_DEVICES and the "
			   "container's view of the PCI tree (NCCL_TOPO_DUMP_FILE shows what NCCL saw)";
	while (sqlite3_step(st) == SQLITE_ROW) {
		int rank = sqlite3_column_int(st, 0);
		const char *host = col_text(st, 1);
		if (n >= MAX_RANK_FINDINGS) {
			sqlite3_str_appendf(rest, "%s%d", nrest ? "," : "", rank);
			nrest++;
			continue;
		}
		const char *nics = col_text(st, 3);
		char *summary = sqlite3_mprintf("rank %d uses NIC%s %s but its GPU's closest NIC is %s (topo: %s; %s %s %s)",
						rank, strchr(nics, ',') ? "s" : "", nics, col_text(st, 4), col_text(st, 5),
						nics, strchr(nics, ',') ? "are" : "is", col_text(st, 6));
		char *ranks = sqlite3_mprintf("[%d]", rank);
		char *hosts = json_str_array1(host);
		int64_t f = finding_add(db, "nic_not_closest", "warning", ranks, hosts, summary, hint);
		evidence_add(db, f, sqlite3_column_int64(st, 7), "the NIC NCCL used (NET device index)");
		if (sqlite3_column_type(st, 8) != SQLITE_NULL)
			evidence_add(db, f, sqlite3_column_int64(st, 8), "nvidia-smi topo -m: the GPU's row");
		sqlite3_free(summary);
		sqlite3_free(ranks);
		sqlite3_free(hosts);
		n++;
	}
	sqlite3_finalize(st);
	char *list = sqlite3_str_finish(rest);
	if (nrest) {
		char *summary = sqlite3_mprintf("%d more ranks use a NIC that is not the closest to their GPU", nrest);
		char *ranks = sqlite3_mprintf("[%s]", list);
		finding_add(db, "nic_not_closest", "warning", ranks, NULL, summary, hint);
		sqlite3_free(summary);
		sqlite3_free(ranks);
	}
	sqlite3_free(list);
}

/* NICs that are down: an error when NCCL used them, an info for idle IB ports. */
static void find_nic_down(sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT host, name, port, kind, state, phys_state, used_by, event_id, evidence,\n"
		"  (SELECT group_concat(value, ', ') FROM json_each(used_by)) FROM nics\n"
		"WHERE (kind = 'rdma' AND state IS NOT NULL AND state NOT IN ('Active'))\n"
		"   OR (kind = 'netdev' AND state IN ('DOWN', 'LOWERLAYERDOWN', 'NOTPRESENT') AND used_by IS NOT NULL)\n"
		"ORDER BY used_by IS NULL, host, name, port");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *host = col_text(st, 0), *name = col_text(st, 1), *used = col_text(st, 6);
		bool rdma = strcmp(col_text(st, 3), "rdma") == 0;
		char port[32] = "";
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			snprintf(port, sizeof(port), " port %d", sqlite3_column_int(st, 2));
		char *phys = col_text(st, 5) ? sqlite3_mprintf(" (physical state %s)", col_text(st, 5)) : sqlite3_mprintf("");
		char *summary = used
			? sqlite3_mprintf("%s%s on %s, which NCCL used (ranks %s), is %s%s per %s", name, port, host,
					  col_text(st, 9), col_text(st, 4), phys, col_text(st, 8))
			: sqlite3_mprintf("%s%s on %s is %s%s per %s: NCCL could not use it", name, port, host,
					  col_text(st, 4), phys, col_text(st, 8));
		char *hosts = json_str_array1(host);
		int64_t f = finding_add(db, "nic_down", used ? "error" : "info", used ? used : NULL, hosts, summary,
					rdma ? "check the cable and the switch port (ibstat, ibdiagnet, the switch's log); a port "
					       "that went down during the job breaks the NCCL connections through it"
					     : "check the interface (ip link, the kernel log around the incident)");
		evidence_add(db, f, sqlite3_column_int64(st, 7), "the NIC in the node inventory");
		sqlite3_free(phys);
		sqlite3_free(summary);
		sqlite3_free(hosts);
	}
	sqlite3_finalize(st);
}

/* Error counters on an interface NCCL used (bootstrap or sockets). */
static void find_nic_errors(sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT host, name, rx_errors, tx_errors, tx_carrier, rx_dropped, used_by, event_id,\n"
		"  (SELECT group_concat(value, ', ') FROM json_each(used_by)) FROM nics\n"
		"WHERE kind = 'netdev' AND used_by IS NOT NULL\n"
		"  AND coalesce(rx_errors, 0) + coalesce(tx_errors, 0) + coalesce(tx_carrier, 0) > 0\n"
		"ORDER BY host, name");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *host = col_text(st, 0);
		char *summary = sqlite3_mprintf("%s on %s, which NCCL used (ranks %s), counted %lld RX errors, %lld TX "
						"errors and %lld carrier errors (%lld RX dropped) by ip -s link",
						col_text(st, 1), host, col_text(st, 8), (long long)sqlite3_column_int64(st, 2),
						(long long)sqlite3_column_int64(st, 3), (long long)sqlite3_column_int64(st, 4),
						(long long)sqlite3_column_int64(st, 5));
		char *hosts = json_str_array1(host);
		int64_t f = finding_add(db, "nic_errors", "warning", col_text(st, 6), hosts, summary,
					"the counters are since boot: compare with another node's, and look for link "
					"flaps in the kernel log");
		evidence_add(db, f, sqlite3_column_int64(st, 7), "ip -s link");
		sqlite3_free(summary);
		sqlite3_free(hosts);
	}
	sqlite3_finalize(st);
}

/* NCCL moved data over sockets on hosts that have active IB/RoCE ports. */
static void find_socket_despite_ib(sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db,
		"WITH sock AS (\n"
		"  SELECT DISTINCT host FROM temp.inv_use WHERE what = 'NET' AND plugin = 'Socket'\n"
		"  UNION SELECT DISTINCT host FROM events WHERE kind = 'nccl_using_network'\n"
		"    AND field(fields, 'network') = 'Socket'),\n"
		"ib AS (\n"
		"  SELECT host, count(*) AS n FROM nics WHERE kind = 'rdma' AND state = 'Active' GROUP BY host),\n"
		"both AS (SELECT sock.host, ib.n FROM sock JOIN ib ON ib.host = sock.host)\n"
		"SELECT (SELECT json_group_array(host) FROM both), (SELECT group_concat(host, ', ') FROM both),\n"
		"  (SELECT sum(n) FROM both),\n"
		"  (SELECT group_concat(DISTINCT n.name) FROM nics n WHERE n.kind = 'rdma' AND n.state = 'Active'\n"
		"     AND n.host IN (SELECT host FROM both)),\n"
		"  (SELECT json_group_array(DISTINCT r.rank) FROM ranks r WHERE r.host IN (SELECT host FROM both)),\n"
		"  (SELECT min(event_id) FROM events WHERE kind = 'nccl_using_network' AND field(fields, 'network') = 'Socket'\n"
		"     AND host IN (SELECT host FROM both)),\n"
		"  (SELECT min(n.event_id) FROM nics n WHERE n.kind = 'rdma' AND n.state = 'Active' AND n.host IN (SELECT host FROM both))");
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 2) > 0) {
		char *summary = sqlite3_mprintf("NCCL used NET/Socket on %s although the node inventory shows %d active "
						"IB/RoCE port(s) there (%s)",
						col_text(st, 1), sqlite3_column_int(st, 2), col_text(st, 3));
		int64_t f = finding_add(db, "socket_despite_ib", "warning", col_text(st, 4), col_text(st, 0), summary,
					"NCCL did not use IB: look for \"NET/IB : No device found\" (no libibverbs or "
					"rdma-core in the container, devices not passed through), NCCL_IB_DISABLE=1, "
					"NCCL_NET=Socket or an NCCL_IB_HCA that matches nothing");
		if (sqlite3_column_type(st, 5) != SQLITE_NULL)
			evidence_add(db, f, sqlite3_column_int64(st, 5), "NCCL chose sockets");
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			evidence_add(db, f, sqlite3_column_int64(st, 6), "an active IB/RoCE port");
		sqlite3_free(summary);
	}
	sqlite3_finalize(st);
}

/* Active IB ports slower than the rate most of the job's ports run at. */
static void find_slow_ports(sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db,
		"WITH act AS (SELECT * FROM nics WHERE kind = 'rdma' AND state = 'Active' AND rate_gbps > 0),\n"
		"mode AS (SELECT rate_gbps AS rate, count(*) AS n FROM act GROUP BY rate_gbps ORDER BY n DESC, rate DESC LIMIT 1)\n"
		"SELECT a.host, a.name, a.port, a.rate_gbps, mode.rate, (SELECT count(*) FROM act) - 1, a.used_by, a.event_id\n"
		"FROM act a, mode WHERE a.rate_gbps < mode.rate AND mode.n >= 2 ORDER BY a.host, a.name, a.port");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *host = col_text(st, 0);
		char *summary = sqlite3_mprintf("%s port %d on %s runs at %g Gb/s; most of the job's other %d active "
						"IB/RoCE ports run at %g Gb/s",
						col_text(st, 1), sqlite3_column_int(st, 2), host, sqlite3_column_double(st, 3),
						sqlite3_column_int(st, 5), sqlite3_column_double(st, 4));
		char *hosts = json_str_array1(host);
		int64_t f = finding_add(db, "nic_slow", "warning", col_text(st, 6), hosts, summary,
					"a port that trained at a lower rate (bad cable, dirty optic, wrong switch "
					"setting) slows every collective that crosses it: a straggler candidate");
		evidence_add(db, f, sqlite3_column_int64(st, 7), "ibstat rate");
		sqlite3_free(summary);
		sqlite3_free(hosts);
	}
	sqlite3_finalize(st);
}

static void find_driver_mismatch(sqlite3 *db)
{
	if (db_int(db, "SELECT count(DISTINCT driver) FROM gpus WHERE driver IS NOT NULL", 0) < 2)
		return;
	sqlite3_stmt *st = db_prepare(db,
		"SELECT group_concat(d, '; '), (SELECT json_group_array(DISTINCT host) FROM gpus WHERE driver IS NOT NULL),\n"
		"  (SELECT min(event_id) FROM gpus WHERE driver IS NOT NULL)\n"
		"FROM (SELECT driver || ' on ' || count(DISTINCT host) || ' host(s) (' || group_concat(DISTINCT host) || ')' AS d\n"
		"  FROM gpus WHERE driver IS NOT NULL GROUP BY driver ORDER BY count(DISTINCT host) DESC, driver)");
	if (sqlite3_step(st) == SQLITE_ROW) {
		char *summary = sqlite3_mprintf("the GPU driver differs between hosts: %s", col_text(st, 0));
		int64_t f = finding_add(db, "driver_mismatch", "warning", NULL, col_text(st, 1), summary,
					"nodes of one job should run the same driver (and CUDA, NCCL, firmware): a node "
					"that was updated or missed an update behaves differently");
		evidence_add(db, f, sqlite3_column_int64(st, 2), "nvidia-smi -q");
		sqlite3_free(summary);
	}
	sqlite3_finalize(st);
}

/* The culprit's GPU by serial and UUID, for the ticket (and the RMA). */
static void find_culprit_gpu(sqlite3 *db)
{
	sqlite3_stmt *st = db_prepare(db,
		"SELECT g.rank, g.host, g.gpu, coalesce(g.name, 'GPU'), coalesce(g.bus_id, g.pci), g.serial, g.uuid, g.event_id\n"
		"FROM verdict v, json_each(v.culprit_ranks) c JOIN gpus g ON g.rank = c.value\n"
		"WHERE g.serial IS NOT NULL OR g.uuid IS NOT NULL ORDER BY g.rank LIMIT 16");
	while (sqlite3_step(st) == SQLITE_ROW) {
		int rank = sqlite3_column_int(st, 0);
		const char *host = col_text(st, 1);
		char *summary = sqlite3_mprintf("rank %d (%s) ran on GPU %d: %s, PCI %s, serial %s, UUID %s", rank, host,
						sqlite3_column_int(st, 2), col_text(st, 3),
						col_text(st, 4) ? col_text(st, 4) : "?", col_text(st, 5) ? col_text(st, 5) : "N/A",
						col_text(st, 6) ? col_text(st, 6) : "N/A");
		char *ranks = sqlite3_mprintf("[%d]", rank);
		char *hosts = json_str_array1(host);
		int64_t f = finding_add(db, "culprit_gpu", "info", ranks, hosts, summary, NULL);
		evidence_add(db, f, sqlite3_column_int64(st, 7), "nvidia-smi -q");
		sqlite3_free(summary);
		sqlite3_free(ranks);
		sqlite3_free(hosts);
	}
	sqlite3_finalize(st);
}

void analysis_inventory(sqlite3 *db)
{
	/* a case written before these tables existed: nothing to fill */
	if (!db_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('gpus','nics','topo')", 0))
		return;
	db_exec(db, "DELETE FROM gpus; DELETE FROM nics; DELETE FROM topo;");
	if (!db_int(db, "SELECT 1 FROM events WHERE kind IN " INVENTORY_KINDS " LIMIT 1", 0))
		return;
	db_exec(db, "DROP TABLE IF EXISTS temp.inv_list; CREATE TEMP TABLE inv_list(host, gpu, uuid);\n"
		    "DROP TABLE IF EXISTS temp.inv_aff; CREATE TEMP TABLE inv_aff(host, gpu, cpu_affinity, numa);\n");
	walk_events(db);
	db_exec(db, complete_sql);
	nccl_usage(db);

	find_nic_not_closest(db);
	find_nic_down(db);
	find_nic_errors(db);
	find_socket_despite_ib(db);
	find_slow_ports(db);
	find_driver_mismatch(db);
	find_culprit_gpu(db);
	db_exec(db, "DROP TABLE IF EXISTS temp.inv_list; DROP TABLE IF EXISTS temp.inv_aff;\n"
		    "DROP TABLE IF EXISTS temp.inv_netdev; DROP TABLE IF EXISTS temp.inv_use;\n");
}
