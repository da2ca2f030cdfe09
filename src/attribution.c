/* attribution.c: see attribution.h. The order matters: hosts of sources
 * first (paths are matched against host names the content revealed), then
 * processes (host, pid, rank, local rank), then ranks, then the rank of every
 * source and event that did not carry one. */
#include "attribution.h"

#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "event_keys.h"
#include "util.h"

/* Host names the content reveals: NCCL prefixes, syslog hosts, identity
 * lines, torchrun failure reports. */
static const char known_hosts_sql[] =
	"SELECT host FROM temp.event_keys WHERE host IS NOT NULL AND host <> '' "
	"UNION SELECT content_host FROM sources WHERE content_host IS NOT NULL "
	"UNION SELECT field(fields, 'host') FROM events "
	"  WHERE (kind = 'app_rank_identity' OR kind = 'torchrun_failure_host') AND field(fields, 'host') IS NOT NULL";

struct strset {
	char **items;
	size_t n, cap;
};

/* The set is sorted (set_sort) before lookups: binary search on (length, bytes). */
static int cmp_len_bytes(const char *a, size_t al, const char *b, size_t bl)
{
	if (al != bl)
		return al < bl ? -1 : 1;
	return memcmp(a, b, al);
}

static int cmp_item(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	return cmp_len_bytes(x, strlen(x), y, strlen(y));
}

static void set_sort(struct strset *s)
{
	xqsort(s->items, s->n, sizeof(*s->items), cmp_item);
}

static bool set_has(const struct strset *s, const char *x, size_t len)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp_len_bytes(s->items[mid], strlen(s->items[mid]), x, len);
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void set_free(struct strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i]);
	free(s->items);
}

/* Index (0-based) of the path component equal to a known host, -1 if none;
 * its text in *comp and *clen. */
static int host_component(const struct strset *hosts, const char *path, const char **comp, size_t *clen)
{
	int idx = 0;
	const char *p = path;
	for (;;) {
		const char *slash = strchr(p, '/');
		if (!slash)
			return -1; /* the last component is the file name */
		size_t n = (size_t)(slash - p);
		if (n && set_has(hosts, p, n)) {
			*comp = p;
			*clen = n;
			return idx;
		}
		idx++;
		p = slash + 1;
	}
}

static const char *component_at(const char *path, int depth, size_t *len)
{
	const char *p = path;
	for (int i = 0; i < depth; i++) {
		const char *slash = strchr(p, '/');
		if (!slash)
			return NULL;
		p = slash + 1;
	}
	const char *slash = strchr(p, '/');
	if (!slash)
		return NULL; /* a file name, not a directory */
	*len = (size_t)(slash - p);
	return p;
}

static void resolve_source_hosts(sqlite3 *db)
{
	struct strset hosts = {0};
	sqlite3_stmt *st = db_prepare(db, known_hosts_sql);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *h = (const char *)sqlite3_column_text(st, 0);
		if (!h || !*h)
			continue;
		xgrow(&hosts.items, &hosts.cap, hosts.n + 1, sizeof(*hosts.items));
		hosts.items[hosts.n++] = xstrdup(h);
	}
	sqlite3_finalize(st);
	set_sort(&hosts); /* the query's UNION already removed duplicates */

	/* the path depth where host names usually sit */
	int depth_votes[16] = {0};
	st = db_prepare(db, "SELECT path FROM sources");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *comp;
		size_t clen;
		int d = host_component(&hosts, (const char *)sqlite3_column_text(st, 0), &comp, &clen);
		if (d >= 0 && d < 16)
			depth_votes[d]++;
	}
	sqlite3_finalize(st);
	int host_depth = -1, best = 0;
	for (int d = 0; d < 16; d++)
		if (depth_votes[d] > best) {
			best = depth_votes[d];
			host_depth = d;
		}

	sqlite3_stmt *upd = db_prepare(db, "UPDATE sources SET host=? WHERE source_id=?");
	st = db_prepare(db, "SELECT source_id, path, content_host FROM sources WHERE host IS NULL");
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *path = (const char *)sqlite3_column_text(st, 1);
		const char *content = (const char *)sqlite3_column_text(st, 2);
		const char *comp = NULL;
		size_t clen = 0;
		if (host_component(&hosts, path, &comp, &clen) < 0) {
			comp = NULL;
			if (host_depth >= 0 && best >= 2)
				comp = component_at(path, host_depth, &clen);
		}
		/* the directory a file sits in wins over what it mentions (a
		 * console can quote other hosts); content decides otherwise */
		if (!comp && content && *content) {
			comp = content;
			clen = strlen(content);
		}
		if (!comp)
			continue;
		sqlite3_bind_text(upd, 1, comp, (int)clen, SQLITE_TRANSIENT);
		sqlite3_bind_int64(upd, 2, id);
		db_step_done(upd);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(upd);
	set_free(&hosts);
}

/* An event's host: its line's, else its source's. The events take it in
 * one pass with their rank and local rank (fill_sql); until then the
 * statements that need it read it this way. */
#define EVENT_HOST "coalesce(e.host, s.host)"

static const char procs_sql[] =
	"DELETE FROM procs;\n"
	/* the training script's identity line */
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT field(fields, 'host'), field(fields, 'pid'), field(fields, 'rank'),\n"
	"         field(fields, 'local_rank'), 'identity line'\n"
	"  FROM events WHERE kind = 'app_rank_identity';\n"
	/* torchrun's failure report: time / host / rank (local_rank) / exitcode (pid) blocks */
	"WITH f AS (\n"
	"  SELECT e.*, sum(CASE WHEN kind IN ('torchrun_failure_index','torchrun_failure_time') THEN 1 ELSE 0 END)\n"
	"         OVER (PARTITION BY source_id ORDER BY line_no) AS blk\n"
	"  FROM events e WHERE kind BETWEEN 'torchrun_failure_' AND 'torchrun_failure_~'),\n"
	"b AS (\n"
	"  SELECT source_id, blk,\n"
	"    max(CASE WHEN kind='torchrun_failure_host' THEN field(fields, 'host') END) AS host,\n"
	"    max(CASE WHEN kind='torchrun_failure_rank' THEN field(fields, 'rank') END) AS rank,\n"
	"    max(CASE WHEN kind='torchrun_failure_rank' THEN field(fields, 'local_rank') END) AS local_rank,\n"
	"    max(CASE WHEN kind='torchrun_failure_exitcode' THEN field(fields, 'pid') END) AS pid\n"
	"  FROM f GROUP BY source_id, blk)\n"
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT host, pid, rank, local_rank, 'torchrun failure report' FROM b\n"
	"  WHERE rank IS NOT NULL AND rank >= 0;\n"
	/* lines that carry both wrappers: [default1]:[rank3]: */
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT DISTINCT " EVENT_HOST ", NULL, e.rank, e.local_rank, 'rank and local-rank prefixes'\n"
	"  FROM temp.event_keys e LEFT JOIN sources s USING(source_id)\n"
	"  WHERE e.rank IS NOT NULL AND e.local_rank IS NOT NULL AND " EVENT_HOST " IS NOT NULL ORDER BY e.rowid;\n"
	/* per-rank files: their [rankN] lines, path local rank, NCCL pid */
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT host, pid, rank, local_rank, 'per-rank file'\n"
	"  FROM sources WHERE rank IS NOT NULL AND host IS NOT NULL AND kind = 'rank_log';\n"
	/* the first communicator of a process spans the world: its rank is global */
	"WITH w AS (SELECT max(field(fields, 'nranks')) AS n FROM events WHERE kind='nccl_comm_init')\n"
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT DISTINCT " EVENT_HOST ", e.pid, field(e.fields, 'comm_rank'), e.local_rank, 'NCCL world communicator'\n"
	"  FROM events e LEFT JOIN sources s USING(source_id), w\n"
	"  WHERE e.kind='nccl_comm_init' AND field(e.fields, 'nranks') = w.n\n"
	"    AND coalesce(field(e.fields, 'api'), '') NOT LIKE '%Split%' AND e.pid IS NOT NULL;\n"
	/* nccl-tests' device table ("#  Rank 17 Group 0 Pid 4242 on host device 1 [...]");
	 * the pid only where the process drives one GPU (-g 1): with several,
	 * its NCCL lines would all go to its first rank */
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT field(e.fields, 'host'), CASE WHEN (SELECT count(*) FROM events o WHERE o.kind = 'nccl_tests_device'\n"
	"      AND field(o.fields, 'host') = field(e.fields, 'host') AND field(o.fields, 'pid') = field(e.fields, 'pid')) = 1\n"
	"      THEN field(e.fields, 'pid') END, field(e.fields, 'rank'), NULL, 'nccl-tests device line'\n"
	"  FROM events e WHERE e.kind = 'nccl_tests_device' AND field(e.fields, 'host') IS NOT NULL\n"
	"  GROUP BY field(e.fields, 'rank') ORDER BY min(e.event_id);\n"
	/* the DeepSpeed launcher's world: {'host': [global ranks]}, local rank its place */
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT h.key, NULL, r.value, r.key, 'DeepSpeed launcher world info'\n"
	"  FROM events e, json_each(replace(field(e.fields, 'world'), '''', '\"')) h, json_each(h.value) r\n"
	"  WHERE e.kind = 'launcher_world_info' AND json_valid(replace(field(e.fields, 'world'), '''', '\"'))\n"
	"    AND h.type = 'array' GROUP BY h.key, r.value;\n"
	/* Lightning's "Initializing distributed: GLOBAL_RANK: r, MEMBER: m/N" of each rank */
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT DISTINCT s.host, NULL, field(e.fields, 'rank'), NULL, 'Lightning rank line'\n"
	"  FROM events e LEFT JOIN sources s USING(source_id) WHERE e.kind = 'lightning_dist_init';\n"
	/* slurmstepd writes its cancel line ("*** STEP N ON HOST CANCELLED ...")
	 * to the tasks of its own node: under a task label, HOST is that task's */
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT DISTINCT field(fields, 'host'), NULL, rank, NULL, 'Slurm cancel line under a task label'\n"
	"  FROM events WHERE kind = 'slurm_cancelled' AND rank IS NOT NULL AND field(fields, 'host') IS NOT NULL;\n"
	/* NCCL lines under a launcher's task label (srun -l): the label's rank
	 * is the process's of that host and pid */
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT DISTINCT " EVENT_HOST ", e.pid, e.rank, NULL, 'task label and NCCL prefix'\n"
	"  FROM temp.event_keys e LEFT JOIN sources s USING(source_id)\n"
	"  WHERE e.nccl AND e.rank IS NOT NULL AND e.local_rank IS NULL AND e.pid IS NOT NULL\n"
	"    AND " EVENT_HOST " IS NOT NULL ORDER BY e.rowid;\n"
	/* NCCL lines in per-rank files and consoles tie pid to local rank */
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT DISTINCT " EVENT_HOST ", e.pid, NULL, e.local_rank, 'NCCL prefix and local rank'\n"
	"  FROM temp.event_keys e LEFT JOIN sources s USING(source_id)\n"
	"  WHERE e.nccl AND e.pid IS NOT NULL AND e.local_rank IS NOT NULL AND " EVENT_HOST " IS NOT NULL\n"
	"  ORDER BY e.rowid;\n"
	"INSERT INTO procs(host, pid, rank, local_rank, evidence)\n"
	"  SELECT s.host, field(e.fields, 'pid'), NULL, field(e.fields, 'local_rank'), 'torchrun exit line'\n"
	"  FROM events e JOIN sources s USING(source_id) WHERE e.kind='torchrun_worker_failed';\n"
	;

/* One host under two names: a full name (torchrun's report and PALS print
 * socket.getfqdn()'s x3006c0s1b0n0.hsn.cm.polaris.alcf.anl.gov) and the
 * short one gethostname() gives NCCL's prefix (x3006c0s1b0n0). Where both
 * occur, the short one stands for both. */
static const char host_alias_sql[] =
	"DROP TABLE IF EXISTS temp.host_alias;\n"
	"CREATE TEMP TABLE host_alias(name TEXT PRIMARY KEY, short TEXT NOT NULL);\n"
	"WITH h(name) AS (SELECT host FROM procs UNION SELECT host FROM sources UNION SELECT host FROM temp.event_keys)\n"
	"INSERT OR IGNORE INTO host_alias SELECT f.name, s.name FROM h f JOIN h s\n"
	"  ON s.name = substr(f.name, 1, instr(f.name, '.') - 1)\n"
	"  WHERE instr(f.name, '.') > 1 AND s.name GLOB '*[a-zA-Z]*' ORDER BY f.name;\n";
static const char host_alias_apply_sql[] =
	"UPDATE procs SET host = (SELECT short FROM host_alias WHERE name = procs.host) WHERE host IN (SELECT name FROM host_alias);\n"
	"UPDATE sources SET host = (SELECT short FROM host_alias WHERE name = sources.host) WHERE host IN (SELECT name FROM host_alias);\n"
	"UPDATE temp.event_keys SET host = (SELECT short FROM host_alias WHERE name = event_keys.host)\n"
	"  WHERE host IN (SELECT name FROM host_alias);\n"
	"UPDATE events SET host = (SELECT short FROM host_alias WHERE name = events.host) WHERE host IN (SELECT name FROM host_alias);\n";

static const char procs_complete_sql[] =
	/* complete rows from each other: (host, local_rank) <-> rank, (host, pid) <-> rank
	 * (indexed: a scan of procs per row grew with the square of the ranks;
	 * the first match in rowid order, as that scan found it) */
	"CREATE INDEX IF NOT EXISTS procs_host_pid ON procs(host, pid);\n"
	"CREATE INDEX IF NOT EXISTS procs_host_local ON procs(host, local_rank);\n"
	"CREATE INDEX IF NOT EXISTS procs_rank ON procs(rank);\n"
	"UPDATE procs SET rank = (SELECT p.rank FROM procs p WHERE p.rank IS NOT NULL AND p.host = procs.host\n"
	"    AND p.pid = procs.pid ORDER BY p.rowid LIMIT 1) WHERE rank IS NULL AND pid IS NOT NULL;\n"
	"UPDATE procs SET rank = (SELECT p.rank FROM procs p WHERE p.rank IS NOT NULL AND p.host = procs.host\n"
	"    AND p.local_rank = procs.local_rank ORDER BY p.rowid LIMIT 1) WHERE rank IS NULL AND local_rank IS NOT NULL;\n"
	"UPDATE procs SET local_rank = (SELECT p.local_rank FROM procs p WHERE p.local_rank IS NOT NULL\n"
	"    AND p.host = procs.host AND p.rank = procs.rank ORDER BY p.rowid LIMIT 1) WHERE local_rank IS NULL AND rank IS NOT NULL;\n"
	"UPDATE procs SET pid = (SELECT p.pid FROM procs p WHERE p.pid IS NOT NULL\n"
	"    AND p.host = procs.host AND p.rank = procs.rank ORDER BY p.rowid LIMIT 1) WHERE pid IS NULL AND rank IS NOT NULL;\n"
	"DELETE FROM procs WHERE rowid NOT IN (SELECT min(rowid) FROM procs\n"
	"    GROUP BY host, pid, rank, local_rank);\n";

static const char ranks_sql[] =
	"DELETE FROM ranks;\n"
	"INSERT INTO ranks(rank, host, local_rank, pid, evidence)\n"
	"  SELECT rank,\n"
	"    (SELECT host FROM procs p2 WHERE p2.rank = p.rank AND host IS NOT NULL GROUP BY host ORDER BY count(*) DESC, host LIMIT 1),\n"
	"    (SELECT local_rank FROM procs p2 WHERE p2.rank = p.rank AND local_rank IS NOT NULL GROUP BY local_rank ORDER BY count(*) DESC LIMIT 1),\n"
	"    (SELECT pid FROM procs p2 WHERE p2.rank = p.rank AND pid IS NOT NULL GROUP BY pid ORDER BY count(*) DESC LIMIT 1),\n"
	"    group_concat(DISTINCT evidence)\n"
	"  FROM procs p WHERE rank IS NOT NULL GROUP BY rank;\n"
	/* ranks seen only in flight-recorder dumps or wrappers */
	"INSERT OR IGNORE INTO ranks(rank, host)\n"
	"  SELECT DISTINCT e.rank, s.host FROM temp.event_keys e JOIN sources s USING(source_id) WHERE e.rank IS NOT NULL\n"
	"  ORDER BY e.rowid;\n"
	/* the GPU of each rank, from its first NCCL init line */
	"DROP TABLE IF EXISTS temp.first_init;\n"
	"CREATE TEMP TABLE first_init(host TEXT, pid INTEGER, cuda_dev, nvml_dev, bus_id TEXT, PRIMARY KEY(host, pid));\n"
	"INSERT OR IGNORE INTO first_init SELECT " EVENT_HOST ", e.pid, field(e.fields, 'cuda_dev'),\n"
	"    field(e.fields, 'nvml_dev'), CAST(field(e.fields, 'bus_id') AS TEXT)\n"
	"  FROM events e LEFT JOIN sources s USING(source_id)\n"
	"  WHERE e.kind = 'nccl_comm_init' AND " EVENT_HOST " IS NOT NULL AND e.pid IS NOT NULL ORDER BY e.event_id;\n"
	"UPDATE ranks SET\n"
	"  cuda_dev = (SELECT cuda_dev FROM first_init f WHERE f.host = ranks.host AND f.pid = ranks.pid),\n"
	"  nvml_dev = (SELECT nvml_dev FROM first_init f WHERE f.host = ranks.host AND f.pid = ranks.pid),\n"
	"  bus_id = (SELECT bus_id FROM first_init f WHERE f.host = ranks.host AND f.pid = ranks.pid);\n"
	"CREATE INDEX IF NOT EXISTS ranks_host_local ON ranks(host, local_rank);\n"
	"UPDATE ranks SET pci = pci_from_bus_id(bus_id) WHERE bus_id IS NOT NULL;\n";

/* In fill_sql's UPDATE of events (whose SET expressions all see the row as
 * it was): its host, and its rank from local rank, else pid, else source. */
#define UPD_HOST "coalesce(events.host, (SELECT s.host FROM sources s WHERE s.source_id = events.source_id))"
#define NEW_RANK "coalesce((SELECT r.rank FROM ranks r WHERE r.host = " UPD_HOST " AND r.local_rank = events.local_rank)," \
	" (SELECT p.rank FROM temp.pid_rank p WHERE p.host = " UPD_HOST " AND p.pid = events.pid)," \
	" (SELECT s.rank FROM sources s WHERE s.source_id = events.source_id))"
static const char fill_sql[] =
	/* sources: per-rank files without a [rankN] line get it from host + local rank */
	"UPDATE sources SET rank = (SELECT r.rank FROM ranks r WHERE r.host = sources.host\n"
	"    AND r.local_rank = sources.local_rank)\n"
	"  WHERE rank IS NULL AND local_rank IS NOT NULL AND host IS NOT NULL;\n"
	"UPDATE sources SET rank = (SELECT p.rank FROM procs p WHERE p.host = sources.host AND p.pid = sources.pid\n"
	"    AND p.rank IS NOT NULL LIMIT 1)\n"
	"  WHERE rank IS NULL AND pid IS NOT NULL AND host IS NOT NULL AND kind IN ('nccl_debug','rank_log');\n"
	"UPDATE sources SET local_rank = (SELECT r.local_rank FROM ranks r WHERE r.rank = sources.rank)\n"
	"  WHERE local_rank IS NULL AND rank IS NOT NULL;\n"
	"UPDATE sources SET pid = (SELECT r.pid FROM ranks r WHERE r.rank = sources.rank)\n"
	"  WHERE pid IS NULL AND rank IS NOT NULL AND kind IN ('rank_log');\n"
	/* events: host, rank and local rank in one pass (each UPDATE rewrote
	 * every row it touched: three passes cost ~60 ms more at 1,024 ranks
	 * and left more holes) */
	"DROP TABLE IF EXISTS temp.pid_rank;\n"
	"CREATE TEMP TABLE pid_rank(host TEXT, pid INTEGER, rank INTEGER, PRIMARY KEY(host, pid));\n"
	"INSERT INTO temp.pid_rank SELECT host, pid, min(rank) FROM procs WHERE rank IS NOT NULL\n"
	"  AND pid IS NOT NULL AND host IS NOT NULL GROUP BY host, pid;\n"
	/* what they become depends only on their process's key: worked out
	 * once per key (a few thousand), then applied by key */
	"DROP TABLE IF EXISTS temp.key_fill;\n"
	"CREATE TEMP TABLE key_fill AS SELECT source_id, host, pid, rank, local_rank,\n"
	"    " UPD_HOST " AS new_host, coalesce(rank, " NEW_RANK ") AS new_rank,\n"
	"    coalesce(local_rank, (SELECT r.local_rank FROM ranks r WHERE r.rank = coalesce(events.rank, " NEW_RANK ")\n"
	"      AND r.local_rank IS NOT NULL)) AS new_local_rank\n"
	"  FROM (SELECT DISTINCT source_id, host, pid, rank, local_rank FROM temp.event_keys\n"
	"        WHERE host IS NULL OR rank IS NULL OR local_rank IS NULL) AS events;\n"
	"DROP TABLE temp.pid_rank;\n";
/* then fill_by_key(), then: */
static const char fill_done_sql[] =
	"DROP TABLE temp.key_fill;\n"
	/* flight-recorder entries whose dump did not name its rank: the rank found for their event */
	"UPDATE fr_entries SET rank = (SELECT e.rank FROM events e WHERE e.event_id = fr_entries.event_id)\n"
	"  WHERE rank IS NULL;\n";

/* ---- the events take their key's values (temp.key_fill) in one pass ----
 * An UPDATE ... FROM key_fill joined every event row to its key, which cost
 * four times the rewrite itself (0.52 s of 0.65 at 1,024 ranks); the keys,
 * a few thousand, are looked up here instead, by attribution_fill(COL, KEY...)
 * in a plain UPDATE. */

/* an integer column that may be NULL */
struct opt_int {
	int64_t v;
	bool set;
};

struct fill_key {
	int64_t source_id;
	char *host; /* NULL: NULL */
	struct opt_int pid, rank, local_rank;
	/* what the event becomes */
	char *new_host;
	struct opt_int new_rank, new_local_rank;
};

struct fill_table {
	struct fill_key *keys;
	size_t n;
	size_t *slot, cap; /* open addressing: index + 1 into keys, 0 empty */
	const struct fill_key *last;
};

static struct opt_int opt_of(sqlite3_value *v)
{
	if (sqlite3_value_type(v) == SQLITE_NULL)
		return (struct opt_int){0, false};
	return (struct opt_int){sqlite3_value_int64(v), true};
}

static struct opt_int opt_col(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return (struct opt_int){0, false};
	return (struct opt_int){sqlite3_column_int64(st, i), true};
}

static bool opt_is(struct opt_int a, struct opt_int b)
{
	return a.set == b.set && (!a.set || a.v == b.v);
}

static uint64_t key_hash(int64_t source_id, const char *host, size_t host_len, struct opt_int pid,
			 struct opt_int rank, struct opt_int local_rank)
{
	uint64_t h = (uint64_t)source_id * 0x9E3779B97F4A7C15ull;
	h ^= host ? hash_mem(host, host_len) : 0x5bd1e995u;
	h = (h ^ (pid.set ? (uint64_t)pid.v + 1 : 0)) * 0xff51afd7ed558ccdull;
	h = (h ^ (rank.set ? (uint64_t)rank.v + 1 : 0)) * 0xc4ceb9fe1a85ec53ull;
	h = (h ^ (local_rank.set ? (uint64_t)local_rank.v + 1 : 0)) * 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 31);
}

static bool key_is(const struct fill_key *k, int64_t source_id, const char *host, size_t host_len,
		   struct opt_int pid, struct opt_int rank, struct opt_int local_rank)
{
	if (k->source_id != source_id || !opt_is(k->pid, pid) || !opt_is(k->rank, rank) ||
	    !opt_is(k->local_rank, local_rank))
		return false;
	if (!k->host || !host)
		return !k->host && !host;
	return strlen(k->host) == host_len && memcmp(k->host, host, host_len) == 0;
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);
	return t ? xstrndup(t, (size_t)sqlite3_column_bytes(st, i)) : NULL;
}

/* The slot of this key in t: the one that holds it, else the empty one
 * where it goes. */
static size_t *fill_slot(struct fill_table *t, int64_t source_id, const char *host, size_t host_len,
			 struct opt_int pid, struct opt_int rank, struct opt_int local_rank)
{
	size_t j = (size_t)key_hash(source_id, host, host_len, pid, rank, local_rank) & (t->cap - 1);
	while (t->slot[j] && !key_is(&t->keys[t->slot[j] - 1], source_id, host, host_len, pid, rank, local_rank))
		j = (j + 1) & (t->cap - 1);
	return &t->slot[j];
}

static void fill_table_load(sqlite3 *db, struct fill_table *t)
{
	size_t cap = 0;
	sqlite3_stmt *st = db_prepare(db, "SELECT source_id, host, pid, rank, local_rank, new_host, new_rank,"
					  " new_local_rank FROM temp.key_fill");
	while (sqlite3_step(st) == SQLITE_ROW) {
		xgrow(&t->keys, &cap, t->n + 1, sizeof(*t->keys));
		t->keys[t->n++] = (struct fill_key){
			.source_id = sqlite3_column_int64(st, 0),
			.host = col_dup(st, 1),
			.pid = opt_col(st, 2),
			.rank = opt_col(st, 3),
			.local_rank = opt_col(st, 4),
			.new_host = col_dup(st, 5),
			.new_rank = opt_col(st, 6),
			.new_local_rank = opt_col(st, 7),
		};
	}
	sqlite3_finalize(st);
	for (t->cap = 16; t->cap < t->n * 2; t->cap *= 2)
		;
	t->slot = xcalloc(t->cap, sizeof(*t->slot));
	for (size_t i = 0; i < t->n; i++) {
		const struct fill_key *k = &t->keys[i];
		size_t *slot = fill_slot(t, k->source_id, k->host, k->host ? strlen(k->host) : 0, k->pid, k->rank,
					 k->local_rank);
		if (!*slot) /* the first of equal keys, as the join took */
			*slot = i + 1;
	}
}

static void fill_table_free(struct fill_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->keys[i].host);
		free(t->keys[i].new_host);
	}
	free(t->keys);
	free(t->slot);
}

/* attribution_fill(COL, source_id, host, pid, rank, local_rank): the event's
 * new host (COL 0), rank (1) or local rank (2); its own value where its key
 * has none to give */
static void attribution_fill_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	struct fill_table *t = sqlite3_user_data(ctx);
	int col = sqlite3_value_int(argv[0]);
	int64_t source_id = sqlite3_value_int64(argv[1]);
	const char *host = (const char *)sqlite3_value_text(argv[2]);
	size_t host_len = host ? (size_t)sqlite3_value_bytes(argv[2]) : 0;
	struct opt_int pid = opt_of(argv[3]), rank = opt_of(argv[4]), local_rank = opt_of(argv[5]);
	const struct fill_key *k = t->last;
	if (!k || !key_is(k, source_id, host, host_len, pid, rank, local_rank)) {
		size_t i = *fill_slot(t, source_id, host, host_len, pid, rank, local_rank);
		k = i ? &t->keys[i - 1] : NULL;
		if (k)
			t->last = k;
	}
	if (!k) {
		sqlite3_result_value(ctx, argv[2 + (col == 0 ? 0 : col + 1)]);
		return;
	}
	struct opt_int v = col == 1 ? k->new_rank : k->new_local_rank;
	if (col == 0) {
		if (k->new_host)
			sqlite3_result_text(ctx, k->new_host, -1, SQLITE_TRANSIENT);
		else
			sqlite3_result_null(ctx);
	} else if (v.set) {
		sqlite3_result_int64(ctx, v.v);
	} else {
		sqlite3_result_null(ctx);
	}
}

static void fill_by_key(sqlite3 *db)
{
	struct fill_table t = {0};
	fill_table_load(db, &t);
	if (sqlite3_create_function(db, "attribution_fill", 6, SQLITE_UTF8, &t, attribution_fill_fn, NULL, NULL) !=
	    SQLITE_OK)
		die("attribution: %s", sqlite3_errmsg(db));
#define FILL_ARGS "source_id, host, pid, rank, local_rank)"
	db_exec(db, "UPDATE events SET host = attribution_fill(0, " FILL_ARGS ", rank = attribution_fill(1, " FILL_ARGS
		    ", local_rank = attribution_fill(2, " FILL_ARGS
		    " WHERE host IS NULL OR rank IS NULL OR local_rank IS NULL");
#undef FILL_ARGS
	sqlite3_create_function(db, "attribution_fill", 6, SQLITE_UTF8, NULL, NULL, NULL, NULL);
	fill_table_free(&t);
}

/* The few kinds the statements above look up (each with `kind = ...`, which
 * implies the index's condition; LIKE and the rest scan): an index of their
 * events only costs one scan of the table, where one of every event cost a
 * sort of them all. Dropped at the end: the case's own indexes follow. */
static const char kinds_index_sql[] =
	"CREATE INDEX IF NOT EXISTS attribution_kinds ON events(kind)\n"
	"  WHERE kind = 'app_rank_identity' OR kind = 'torchrun_failure_host' OR kind = 'nccl_comm_init'\n"
	"     OR kind = 'torchrun_worker_failed' OR kind = 'nccl_tests_device' OR kind = 'launcher_world_info'\n"
	"     OR kind = 'lightning_dist_init' OR kind = 'app_rank_done' OR kind = 'app_step' OR kind = 'slurm_cancelled'\n"
	"     OR kind BETWEEN 'pg_' AND 'pg_~' OR kind BETWEEN 'torchrun_failure_' AND 'torchrun_failure_~'";

/* A line no wrapper names (no [rankN]: prefix, no task label, no per-rank
 * file) belongs to the rank its own message names: PyTorch's "[Rank N]" /
 * "[PG 0 (default_pg) Rank N]" in the default group, whose rank is the
 * global one (a subgroup's "Rank N" is its rank there, left alone). */
static const char message_rank_sql[] =
	"UPDATE events SET rank = CAST(field(fields, 'pg_rank') AS INTEGER)\n"
	/* by kind: the index of ranks would visit every event without one */
	"  WHERE +rank IS NULL AND kind BETWEEN 'pg_' AND 'pg_~' AND field(fields, 'pg_rank') IS NOT NULL\n"
	"    AND coalesce(field(fields, 'pg_id'), 0) = 0 AND coalesce(field(fields, 'pg_desc'), 'default_pg') = 'default_pg';\n"
	"UPDATE events SET rank = CAST(field(fields, 'rank') AS INTEGER)\n"
	"  WHERE rank IS NULL AND (kind = 'app_rank_done' OR kind = 'app_step') AND field(fields, 'rank') IS NOT NULL;\n"
	"INSERT OR IGNORE INTO ranks(rank, evidence)\n"
	"  SELECT DISTINCT rank, 'rank named in the message' FROM events\n"
	"  WHERE kind BETWEEN 'pg_' AND 'pg_~' AND rank IS NOT NULL\n"
	"  UNION SELECT DISTINCT rank, 'rank named in the message' FROM events\n"
	"  WHERE (kind = 'app_rank_done' OR kind = 'app_step') AND rank IS NOT NULL ORDER BY 1;\n";

void attribution_run(sqlite3 *db)
{
	/* the processes the events name, from the load (else from the events) */
	if (!db_int(db, "SELECT count(*) FROM temp.sqlite_master WHERE name = 'event_keys'", 0))
		event_keys_write(NULL, db);
	db_exec(db, kinds_index_sql);
	resolve_source_hosts(db);
	db_exec(db, procs_sql);
	db_exec(db, host_alias_sql);
	if (db_int(db, "SELECT count(*) FROM temp.host_alias", 0) > 0)
		db_exec(db, host_alias_apply_sql);
	db_exec(db, "DROP TABLE temp.host_alias");
	db_exec(db, procs_complete_sql);
	db_exec(db, ranks_sql);
	db_exec(db, fill_sql);
	fill_by_key(db);
	db_exec(db, fill_done_sql);
	db_exec(db, message_rank_sql);
	db_exec(db, "DROP INDEX attribution_kinds; DROP TABLE temp.event_keys");
}
