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
