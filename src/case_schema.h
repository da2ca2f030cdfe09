/* case_schema.h: the case database schema (DDL) and its version. */
#ifndef NF_CASE_SCHEMA_H
#define NF_CASE_SCHEMA_H

#define NF_SCHEMA_VERSION 1

/* Tables written by ingest (before indexes). */
extern const char case_schema_ingest_sql[];
/* Indexes, built after the load. */
extern const char case_schema_index_sql[];
/* Tables the analyses fill (dropped and re-created by `analyze`). */
extern const char case_schema_analysis_sql[];

#endif
