/* case_schema.h: the case database schema (DDL) and its version. */
#ifndef NF_CASE_SCHEMA_H
#define NF_CASE_SCHEMA_H

/* 3: verdict.rule and diagnosis_rules (the rule that decided, and what
 * every rule said); cases of 2 are upgraded by `analyze`, and read as they
 * are by the other commands. */
#define NF_SCHEMA_VERSION 3

/* The typed flight-recorder entries (fr_table.c), part of the ingest's
 * tables; also created on its own for cases written before it existed. */
#define NF_FR_ENTRIES_DDL                                                                             \
	"CREATE TABLE fr_entries(\n"                                                                    \
	"  event_id INTEGER PRIMARY KEY,\n"                                                             \
	"  rank INTEGER,\n"                                                                             \
	"  record_id INTEGER,\n"                                                                        \
	"  pg_id INTEGER,\n"                                                                            \
	"  pg_name TEXT,\n"                                                                             \
	"  pg_desc TEXT,\n"                                                                             \
	"  seq INTEGER,\n"                                                                              \
	"  p2p_seq INTEGER,\n"                                                                          \
	"  is_p2p INTEGER NOT NULL DEFAULT 0,\n"                                                        \
	"  op TEXT,\n"                                                                                  \
	"  numel_in INTEGER,\n"                                                                         \
	"  numel_out INTEGER,\n"                                                                        \
	"  dtype TEXT,\n"                                                                               \
	"  state TEXT,\n"                                                                               \
	"  time_created_us INTEGER,\n"                                                                  \
	"  time_started_us INTEGER,\n"                                                                  \
	"  time_completed_us INTEGER,\n"                                                                \
	"  duration_ms REAL,\n"                                                                         \
	"  timeout_ms INTEGER,\n"                                                                       \
	"  frame TEXT\n"                                                                                \
	");\n"

/* collectives_state (analysis_collectives.c) indexes only the calls that did
 * not complete, most of a hang's questions and a small part of the table: a
 * query on their states adds this term (c: "" or an alias and a dot), which
 * is what lets SQLite use a partial index. */
#define COLL_NOT_COMPLETED(c) c "state <> 'completed'"

/* What each rule of the diagnosis said (diagnosis_rules.h), in its order:
 * decided, declined (with the reason), not tried (its family's condition
 * did not hold), not reached (a rule before it decided). */
#define DIAGNOSIS_RULES_DDL                                                                           \
	"CREATE TABLE diagnosis_rules(\n"                                                              \
	"  ord INTEGER PRIMARY KEY,\n"                                                                 \
	"  rule TEXT,\n"                                                                               \
	"  family TEXT,\n"                                                                             \
	"  state TEXT,\n"                                                                              \
	"  reason TEXT,\n"                                                                             \
	"  reads TEXT\n"                                                                               \
	");\n"

/* The facts the diagnosis reasons on, kept in the case (docs/schema.md):
 * its key times and counts, and the hang as the ranks had it (each rank's
 * last call per group before the teardown, the calls logged after a dump),
 * with two views of collectives and pg_status as of the hang. */
#define DIAGNOSIS_FACTS_DDL                                                                           \
	"CREATE TABLE diagnosis_facts(\n"                                                              \
	"  fact TEXT PRIMARY KEY,\n"                                                                   \
	"  value INTEGER,\n"                                                                           \
	"  meaning TEXT\n"                                                                             \
	");\n"                                                                                         \
	"CREATE TABLE hang_dump(rank INTEGER, pg TEXT, le INTEGER, t INTEGER, PRIMARY KEY(rank, pg));\n" \
	"CREATE TABLE hang_le(rank INTEGER, pg TEXT, le INTEGER, PRIMARY KEY(rank, pg));\n"            \
	"CREATE INDEX hang_le_pg_le ON hang_le(pg, le);\n"                                             \
	"CREATE TABLE hang_le_pg(pg TEXT PRIMARY KEY, n INTEGER, mn INTEGER, at_min INTEGER);\n"       \
	"CREATE TABLE check_groups(grp TEXT, rank INTEGER, grank INTEGER, size INTEGER, named INTEGER);\n" \
	"CREATE INDEX check_groups_rank ON check_groups(rank, grank);\n"                               \
	"CREATE INDEX check_groups_grp ON check_groups(grp, grank);\n"                                 \
	"CREATE VIEW hang_coll AS SELECT c.* FROM collectives c LEFT JOIN events e ON e.event_id = c.event_id\n" \
	"  WHERE coalesce(c.time_created_us, e.time_us, 0) <=\n"                                       \
	"    (SELECT value FROM diagnosis_facts WHERE fact = 'hang_cut_us')\n"                         \
	"  AND ((SELECT value FROM diagnosis_facts WHERE fact = 'hang_dump_rows') = 0\n"               \
	"    OR NOT EXISTS (SELECT 1 FROM hang_dump h WHERE h.rank = c.rank AND h.pg = c.pg AND c.seq > h.le\n" \
	"    AND coalesce(c.time_created_us, e.time_us, 0) > h.t));\n"                                  \
	"CREATE VIEW hang_pg_status AS SELECT * FROM pg_status p\n"                                    \
	"  WHERE coalesce(p.time_us, 0) <= (SELECT value FROM diagnosis_facts WHERE fact = 'hang_cut_us')\n" \
	"  AND ((SELECT value FROM diagnosis_facts WHERE fact = 'hang_dump_rows') = 0\n"               \
	"    OR NOT EXISTS (SELECT 1 FROM hang_dump h WHERE h.rank = p.rank AND h.pg = p.pg\n"         \
	"    AND p.last_enqueued > h.le AND coalesce(p.time_us, 0) > h.t));\n"

#include <sqlite3.h>
/* Brings a case of an older schema up to this one's tables (`analyze`). */
void case_schema_upgrade(sqlite3 *db);

/* Tables written by ingest (before indexes). */
extern const char case_schema_ingest_sql[];
/* Indexes, built after the load. */
extern const char case_schema_index_sql[];
/* Tables the analyses fill (dropped and re-created by `analyze`). */
extern const char case_schema_analysis_sql[];

#endif
