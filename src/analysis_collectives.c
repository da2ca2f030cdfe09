/* analysis_collectives.c: process groups, their members, and every rank's
 * collective sequence per group, rebuilt from all the evidence that has it:
 * flight-recorder entries and pg_status, watchdog timeouts (joined to the
 * "failure detected" line that names their group), async exceptions, dump
 * signals, desync reports. Tables: process_groups, pg_members, collectives,
 * pg_status.
 *
 * A group's key (column pg) is its global name (PG GUID, the flight
 * recorder's pg name); a log line that gives only the description (dp0) or
 * the local id is mapped to the key through the other lines that give both. */
#include "analysis_internal.h"

#include "case_db.h"
#include "case_schema.h"

static const char pg_sql[] =
	"DROP TABLE IF EXISTS temp.pg_obs;\n"
	"CREATE TEMP TABLE pg_obs(guid TEXT, desc TEXT, local_id INTEGER, rank INTEGER, pg_rank INTEGER,\n"
	"  ranks TEXT, evidence TEXT);\n"
	"INSERT INTO pg_obs SELECT CAST(field(fields, 'pg_name') AS TEXT), field(fields, 'pg_desc'),\n"
	"  NULL, rank, NULL, field(fields, 'ranks'), 'flight-recorder pg_config'\n"
	"  FROM events WHERE kind = 'fr_pg_config';\n"
	/* the flight-recorder entries, from their typed table (no JSON to read) */
	"INSERT INTO pg_obs SELECT DISTINCT pg_name, pg_desc, pg_id, rank, NULL, NULL, 'flight-recorder entries'\n"
	"  FROM fr_entries;\n"
	"INSERT INTO pg_obs SELECT DISTINCT CAST(field(fields, 'pg_guid') AS TEXT),\n"
	"  field(fields, 'pg_desc'), field(fields, 'pg_id'), rank, field(fields, 'pg_rank'),\n"
	"  NULL, 'log line prefix'\n"
	"  FROM events WHERE kind IN (SELECT kind FROM temp.pg_kinds)\n"
	"   AND class IN ('timeout','dump','error','exit','config','info','coll') AND kind <> 'fr_entry'\n"
	"   AND instr(fields, '\"pg_') > 0\n"
	"   AND (field(fields, 'pg_guid') IS NOT NULL OR field(fields, 'pg_desc') IS NOT NULL);\n"
	"CREATE INDEX temp.pg_obs_guid ON pg_obs(guid);\n"
	/* a description given alone maps to the one GUID it has elsewhere */
	"DROP TABLE IF EXISTS temp.pg_desc_guid;\n"
	"CREATE TEMP TABLE pg_desc_guid AS SELECT desc, min(guid) AS guid FROM pg_obs\n"
	"  WHERE guid IS NOT NULL AND desc IS NOT NULL GROUP BY desc HAVING count(DISTINCT guid) = 1;\n"
	"CREATE INDEX temp.pg_desc_guid_desc ON pg_desc_guid(desc);\n"
	"UPDATE pg_obs SET guid = (SELECT d.guid FROM pg_desc_guid d WHERE d.desc = pg_obs.desc)\n"
	"  WHERE guid IS NULL;\n"
	"UPDATE pg_obs SET guid = desc WHERE guid IS NULL;\n"
	"DROP TABLE IF EXISTS temp.pg_local;\n"
	"CREATE TEMP TABLE pg_local AS SELECT DISTINCT rank, local_id, guid FROM pg_obs\n"
	"  WHERE local_id IS NOT NULL AND guid IS NOT NULL AND rank IS NOT NULL;\n"
	"CREATE INDEX temp.pg_local_rank ON pg_local(rank, local_id);\n"
	"DELETE FROM process_groups; DELETE FROM pg_members;\n"
	"INSERT INTO pg_members(pg, rank, pg_rank, pg_local_id)\n"
	"  SELECT guid, rank, max(pg_rank), max(local_id) FROM pg_obs\n"
	"  WHERE guid IS NOT NULL AND rank IS NOT NULL GROUP BY guid, rank;\n"
	/* every dump repeats the member lists: one copy of each is enough */
	"DROP TABLE IF EXISTS temp.pg_lists;\n"
	"CREATE TEMP TABLE pg_lists AS SELECT DISTINCT guid, ranks FROM pg_obs\n"
	"  WHERE ranks IS NOT NULL AND guid IS NOT NULL AND json_valid(ranks);\n"
	"DROP TABLE IF EXISTS temp.pg_list_members;\n"
	"CREATE TEMP TABLE pg_list_members AS SELECT DISTINCT o.guid, CAST(j.value AS INTEGER) AS rank,\n"
	"    CAST(j.key AS INTEGER) AS pg_rank FROM pg_lists o, json_each(o.ranks) j;\n"
	"CREATE INDEX temp.pg_list_members_i ON pg_list_members(guid, rank);\n"
	"INSERT OR IGNORE INTO pg_members(pg, rank, pg_rank) SELECT guid, rank, pg_rank FROM pg_list_members;\n"
	"UPDATE pg_members SET pg_rank = (SELECT l.pg_rank FROM pg_list_members l\n"
	"    WHERE l.guid = pg_members.pg AND l.rank = pg_members.rank LIMIT 1)\n"
	"  WHERE pg_rank IS NULL;\n"
	"INSERT INTO process_groups(pg, name, desc, size, ranks, evidence)\n"
	"  SELECT o.guid, o.guid, (SELECT max(desc) FROM pg_obs o2 WHERE o2.guid = o.guid AND desc NOT IN ('undefined', '')),\n"
	"    (SELECT count(*) FROM pg_members m WHERE m.pg = o.guid),\n"
	"    (SELECT json_group_array(rank) FROM (SELECT rank FROM pg_members m WHERE m.pg = o.guid ORDER BY rank)),\n"
	"    group_concat(DISTINCT o.evidence)\n"
	"  FROM pg_obs o WHERE o.guid IS NOT NULL GROUP BY o.guid;\n"
	"DROP TABLE IF EXISTS temp.pg_size;\n"
	"CREATE TEMP TABLE pg_size(guid TEXT PRIMARY KEY, size INTEGER);\n"
	"INSERT INTO pg_size SELECT guid, max(json_array_length(ranks)) FROM pg_lists GROUP BY guid;\n"
	"UPDATE process_groups SET size = max(size, coalesce((SELECT s.size FROM pg_size s WHERE s.guid = process_groups.pg), 0));\n";

/* The key of a group from what names it (see the file comment): its GUID or
 * global name, else the one GUID its description has elsewhere, else the
 * description, else the rank's local id. */
#define PG_KEY_OF(guid, name, desc, rank, id)                                                       \
	"coalesce(CAST(" guid " AS TEXT), CAST(" name " AS TEXT),"                                 \
	" (SELECT d.guid FROM pg_desc_guid d WHERE d.desc = " desc "), " desc ","                   \
	" (SELECT l.guid FROM pg_local l WHERE l.rank = " rank " AND l.local_id = " id "))"
/* ... of the group an event names */
#define PG_KEY(e)                                                                                    \
	PG_KEY_OF("field(" e ".fields, 'pg_guid')", "field(" e ".fields, 'pg_name')",                     \
		  "field(" e ".fields, 'pg_desc')", e ".rank", "field(" e ".fields, 'pg_id')")

static const char coll_sql[] =
	/* a re-analysis loads into bare tables and indexes them after: faster than
	 * keeping the indexes up to date row by row */
	"DROP INDEX IF EXISTS collectives_pg_seq; DROP INDEX IF EXISTS collectives_state;\n"
	"DROP INDEX IF EXISTS collectives_rank; DROP INDEX IF EXISTS pg_status_rank;\n"
	"DELETE FROM collectives; DELETE FROM pg_status;\n"
	"INSERT INTO collectives(rank, pg, seq, op, numel_in, numel_out, dtype, state, time_created_us,\n"
	"    time_started_us, time_completed_us, duration_ms, evidence, event_id)\n"
	"  SELECT rank, " PG_KEY_OF("NULL", "r.pg_name", "r.pg_desc", "r.rank", "r.pg_id") ",\n"
	"    seq, norm_op(op), numel_in, numel_out, dtype, state, time_created_us, time_started_us, time_completed_us,\n"
	"    duration_ms, 'flight recorder', event_id\n"
	"  FROM fr_entries r WHERE is_p2p = 0;\n"
	/* a watchdog timeout names its group on the "failure detected" line that follows it */
	"DROP TABLE IF EXISTS temp.wd;\n"
	"CREATE TEMP TABLE wd AS SELECT w.event_id, w.rank, w.time_us, w.fields,\n"
	/* the "[Rank N]" of a watchdog line is not always the group rank: prefer, not require, a match */
	"  coalesce((SELECT f.event_id FROM events f WHERE f.kind = 'pg_failure_detected' AND f.source_id = w.source_id\n"
	"     AND f.line_no > w.line_no AND f.line_no <= w.line_no + 16\n"
	"     AND field(f.fields, 'seq') = field(w.fields, 'seq')\n"
	"     AND coalesce(field(f.fields, 'pg_rank'), -1) = coalesce(field(w.fields, 'pg_rank'), -1)\n"
	"   ORDER BY f.line_no LIMIT 1),\n"
	"   (SELECT f.event_id FROM events f WHERE f.kind = 'pg_failure_detected' AND f.source_id = w.source_id\n"
	"     AND f.line_no > w.line_no AND f.line_no <= w.line_no + 16\n"
	"     AND field(f.fields, 'seq') = field(w.fields, 'seq')\n"
	"   ORDER BY f.line_no LIMIT 1)) AS fd\n"
	"  FROM events w WHERE w.kind IN ('pg_watchdog_timeout', 'pg_async_exception');\n"
	"INSERT INTO collectives(rank, pg, seq, op, numel_in, numel_out, state, time_completed_us, evidence, event_id)\n"
	"  SELECT w.rank, coalesce(" PG_KEY("f") ", " PG_KEY("w") "), field(w.fields, 'seq'),\n"
	"    norm_op(field(w.fields, 'op')), field(w.fields, 'numel_in'),\n"
	"    field(w.fields, 'numel_out'),\n"
	"    CASE WHEN ev.kind = 'pg_watchdog_timeout' THEN 'timed_out' ELSE 'failed' END, w.time_us,\n"
	"    CASE WHEN ev.kind = 'pg_watchdog_timeout' THEN 'watchdog timeout' ELSE 'async exception' END,\n"
	"    min(w.event_id)\n"
	"  FROM wd w JOIN events ev ON ev.event_id = w.event_id LEFT JOIN events f ON f.event_id = w.fd\n"
	"  GROUP BY w.rank, 2, 3, 4, 7;\n"
	/* per-rank group status: flight recorder, "failure detected", dump signals */
	"INSERT INTO pg_status(rank, pg, last_enqueued, last_started, last_completed, time_us, evidence, event_id)\n"
	"  SELECT rank, " PG_KEY("e") ", field(fields, 'last_enqueued'), field(fields, 'last_started'),\n"
	"    field(fields, 'last_completed'), NULL, 'flight-recorder pg_status', event_id\n"
	"  FROM events e WHERE kind = 'fr_pg_status';\n"
	"INSERT INTO pg_status(rank, pg, last_enqueued, last_completed, time_us, evidence, event_id)\n"
	"  SELECT rank, " PG_KEY("e") ", field(fields, 'last_enqueued'), field(fields, 'last_completed'),\n"
	"    min(time_us), CASE kind WHEN 'pg_failure_detected' THEN 'watchdog' ELSE 'dump signal' END, min(event_id)\n"
	"  FROM events e WHERE kind IN ('pg_failure_detected', 'pg_dump_signal')\n"
	"    AND field(fields, 'last_enqueued') IS NOT NULL\n"
	"  GROUP BY rank, 2, 3, 4, 6;\n"
	"CREATE INDEX IF NOT EXISTS collectives_pg_seq ON collectives(pg, seq, rank);\n"
	"CREATE INDEX IF NOT EXISTS collectives_state ON collectives(state, pg, seq) WHERE " COLL_NOT_COMPLETED("") ";\n"
	"CREATE INDEX IF NOT EXISTS pg_status_rank ON pg_status(rank, pg);\n"
	"CREATE INDEX IF NOT EXISTS collectives_rank ON collectives(rank, pg, seq);\n";

/* The kinds whose events can name a group by GUID or description, from the
 * case's `kinds` table (every kind in a case written before it existed). */
static void pg_kinds(sqlite3 *db)
{
	db_exec(db, "DROP TABLE IF EXISTS temp.pg_kinds; CREATE TEMP TABLE pg_kinds(kind TEXT PRIMARY KEY);");
	if (db_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'kinds'", 0) > 0)
		db_exec(db, "INSERT INTO temp.pg_kinds SELECT kind FROM kinds WHERE instr(' ' || fields || ' ', ' pg_guid ') > 0"
			    " OR instr(' ' || fields || ' ', ' pg_desc ') > 0");
	else
		db_exec(db, "INSERT INTO temp.pg_kinds SELECT DISTINCT kind FROM events");
}

void analysis_collectives(sqlite3 *db)
{
	pg_kinds(db);
	db_exec(db, pg_sql);
	db_exec(db, coll_sql);
}
