/* analysis_comms.c: NCCL communicators from the init lines (table comms),
 * and the process group each belongs to. A communicator made by
 * ncclCommInitRank is known by its commId; one made by ncclCommSplit by its
 * parent's key and its color (the same on every member). A process group is
 * matched to the communicator whose members hold the (rank, group rank)
 * pairs the logs show for the group; the match completes pg_members when
 * only text logs name the groups. */
#include "analysis_internal.h"

#include <stdlib.h>
#include <string.h>

#include "case_db.h"
#include "util.h"

static const char comms_sql[] =
	"DELETE FROM comms;\n"
	"INSERT INTO comms(comm_id, nranks, rank, comm_rank, host, pid, comm_ptr, parent_ptr, api, bus_id, cuda_dev,\n"
	"    init_state, event_id)\n"
	"  SELECT field(fields, 'comm_id'), field(fields, 'nranks'), rank,\n"
	"    field(fields, 'comm_rank'), host, pid, field(fields, 'comm'), field(fields, 'parent'),\n"
	"    field(fields, 'api'), CAST(field(fields, 'bus_id') AS TEXT), field(fields, 'cuda_dev'),\n"
	"    CASE WHEN max(field(fields, 'state') = 'COMPLETE') THEN 'COMPLETE' ELSE 'START' END, min(event_id)\n"
	"  FROM events WHERE kind = 'nccl_comm_init' AND pid IS NOT NULL\n"
	"  GROUP BY host, pid, field(fields, 'comm');\n"
	"CREATE INDEX IF NOT EXISTS comms_proc ON comms(host, pid, comm_ptr);\n"
	/* splits: key = parent's key + color, resolved parent by parent (a few levels) */
	"UPDATE comms SET comm_id = 'split:' || (SELECT p.comm_id FROM comms p WHERE p.host = comms.host AND p.pid = comms.pid\n"
	"    AND p.comm_ptr = comms.parent_ptr) || ':' ||\n"
	"    (SELECT field(e.fields, 'color') FROM events e WHERE e.event_id = comms.event_id)\n"
	"  WHERE comm_id IS NULL AND parent_ptr IS NOT NULL;\n"
	"UPDATE comms SET comm_id = 'split:' || (SELECT p.comm_id FROM comms p WHERE p.host = comms.host AND p.pid = comms.pid\n"
	"    AND p.comm_ptr = comms.parent_ptr) || ':' ||\n"
	"    (SELECT field(e.fields, 'color') FROM events e WHERE e.event_id = comms.event_id)\n"
	"  WHERE comm_id IS NULL AND parent_ptr IS NOT NULL;\n"
	"CREATE INDEX IF NOT EXISTS comms_id ON comms(comm_id, rank);\n";

struct member {
	int rank, pos;
};

struct group {
	char *key;
	struct member *m;
	size_t n, cap;
	int size;
	bool taken;
};

static void add_member(struct group *g, int rank, int pos)
{
	xgrow(&g->m, &g->cap, g->n + 1, sizeof(*g->m));
	g->m[g->n].rank = rank;
	g->m[g->n].pos = pos;
	g->n++;
}

static bool has_pair(const struct group *g, int rank, int pos)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->m[i].rank == rank && (pos < 0 || g->m[i].pos == pos))
			return true;
	return false;
}

/* Loads groups from a query of (key, size, rank, position) rows ordered by key. */
static struct group *load_groups(sqlite3 *db, const char *sql, size_t *count)
{
	struct group *gs = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st = db_prepare(db, sql);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		if (!key)
			continue;
		if (!n || strcmp(gs[n - 1].key, key) != 0) {
			xgrow(&gs, &cap, n + 1, sizeof(*gs));
			memset(&gs[n], 0, sizeof(gs[n]));
			gs[n].key = xstrdup(key);
			gs[n].size = sqlite3_column_int(st, 1);
			n++;
		}
		add_member(&gs[n - 1], sqlite3_column_int(st, 2),
			   sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 3));
	}
	sqlite3_finalize(st);
	*count = n;
	return gs;
}

static void free_groups(struct group *gs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(gs[i].key);
		free(gs[i].m);
	}
	free(gs);
}

/* Where a group's known members fit several communicators: PyTorch makes
 * the default group's with ncclCommInitRank and, when it splits (a bound
 * device), every other group's with ncclCommSplit from it; the one
 * candidate of the group's kind, if alone, is its communicator. */
static bool comm_is_split(const struct group *c)
{
	return strncmp(c->key, "split:", 6) == 0;
}

static bool pg_is_default(sqlite3_stmt *st, const char *key)
{
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	bool yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_reset(st);
	return yes;
}

/* The default group where nothing tied it to its communicator (no dump, no
 * PyTorch line naming the groups): PyTorch makes its communicator first,
 * with ncclCommInitRank over every rank, and with a bound device splits
 * every other group's from it. The one unsplit communicator of the largest
 * size that others were split from is the default group's (key: the one
 * the logs gave it, else "0", its GUID). */
static const char default_comm_sql[] =
	"CREATE TEMP TABLE default_comm AS SELECT c.comm_id, c.nranks,"
	"  coalesce((SELECT pg FROM process_groups WHERE desc = 'default_pg' OR name = '0' ORDER BY pg = '0' DESC LIMIT 1), '0') pg"
	" FROM comms c WHERE c.comm_id NOT LIKE 'split:%' AND c.pg IS NULL"
	"  AND c.nranks = (SELECT max(nranks) FROM comms)"
	"  AND EXISTS (SELECT 1 FROM comms s WHERE s.comm_id LIKE 'split:' || c.comm_id || ':%')"
	"  AND (SELECT count(DISTINCT comm_id) FROM comms o WHERE o.comm_id NOT LIKE 'split:%'"
	"   AND o.nranks = c.nranks) = 1"
	"  AND NOT EXISTS (SELECT 1 FROM comms t JOIN process_groups g ON g.pg = t.pg"
	"   WHERE g.desc = 'default_pg' OR g.name = '0')"
	" LIMIT 1;"
	"INSERT OR IGNORE INTO process_groups(pg, name, desc, size, evidence)"
	"  SELECT pg, pg, 'default_pg', nranks, 'NCCL communicator (the one the others were split from)' FROM default_comm;"
	"UPDATE comms SET pg = (SELECT pg FROM default_comm) WHERE comm_id = (SELECT comm_id FROM default_comm);"
	"INSERT OR IGNORE INTO pg_members(pg, rank, pg_rank)"
	"  SELECT d.pg, c.rank, c.comm_rank FROM comms c JOIN default_comm d USING(comm_id) WHERE c.rank IS NOT NULL;"
	"DROP TABLE default_comm;";

static int by_known_desc(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	return (y->n > x->n) - (y->n < x->n);
}

void analysis_comms(sqlite3 *db)
{
	db_exec(db, comms_sql);
	size_t npg, ncomm;
	struct group *pgs = load_groups(db,
		/* a group's size is known only from a full member list (flight recorder) */
		"SELECT pg, (SELECT s.size FROM pg_size s WHERE s.guid = m.pg),"
		" rank, pg_rank FROM pg_members m"
		" ORDER BY pg, rank", &npg);
	struct group *comms = load_groups(db,
		"SELECT comm_id, max(nranks) OVER (PARTITION BY comm_id), rank, comm_rank FROM comms"
		" WHERE comm_id IS NOT NULL AND rank IS NOT NULL ORDER BY comm_id, rank", &ncomm);
	if (npg > 1)
		xqsort(pgs, npg, sizeof(*pgs), by_known_desc);
	sqlite3_stmt *add = db_prepare(db, "INSERT OR IGNORE INTO pg_members(pg, rank, pg_rank) VALUES(?,?,?)");
	sqlite3_stmt *tag = db_prepare(db, "UPDATE comms SET pg = ? WHERE comm_id = ?");
	sqlite3_stmt *dflt = db_prepare(db, "SELECT 1 FROM process_groups WHERE pg = ? AND (desc = 'default_pg' OR name = '0')");
	for (size_t i = 0; i < npg; i++) {
		struct group *pg = &pgs[i];
		struct group *hit = NULL, *kind_hit = NULL;
		int hits = 0, kind_hits = 0;
		bool want_split = !pg_is_default(dflt, pg->key);
		for (size_t j = 0; j < ncomm; j++) {
			struct group *c = &comms[j];
			if (c->taken || (pg->size > 0 && c->size != pg->size) || (int)pg->n > c->size)
				continue;
			bool all = true;
			for (size_t k = 0; k < pg->n && all; k++)
				all = has_pair(c, pg->m[k].rank, pg->m[k].pos);
			if (!all)
				continue;
			hit = c;
			hits++;
			if (comm_is_split(c) == want_split) {
				kind_hit = c;
				kind_hits++;
			}
		}
		if (hits > 1 && kind_hits == 1)
			hit = kind_hit, hits = 1;
		if (hits != 1)
			continue; /* unknown or ambiguous: leave it */
		hit->taken = true;
		sqlite3_bind_text(tag, 1, pg->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(tag, 2, hit->key, -1, SQLITE_STATIC);
		db_step_done(tag);
		for (size_t k = 0; k < hit->n; k++) {
			sqlite3_bind_text(add, 1, pg->key, -1, SQLITE_STATIC);
			sqlite3_bind_int(add, 2, hit->m[k].rank);
			db_bind_int_or_null(add, 3, hit->m[k].pos, hit->m[k].pos >= 0);
			db_step_done(add);
		}
	}
	sqlite3_finalize(add);
	sqlite3_finalize(tag);
	sqlite3_finalize(dflt);
	free_groups(pgs, npg);
	free_groups(comms, ncomm);
	db_exec(db, default_comm_sql);
	db_exec(db, "UPDATE process_groups SET size = max(size, (SELECT count(*) FROM pg_members m WHERE m.pg = process_groups.pg)),"
		    " ranks = (SELECT json_group_array(rank) FROM (SELECT rank FROM pg_members m"
		    "   WHERE m.pg = process_groups.pg ORDER BY rank))");
}
