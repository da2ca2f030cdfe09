/* kind_summary.h: the `kinds` table, what a case's events are made of.
 *
 * One row per event kind: its class, its number of events and every field
 * name its events carry. Gathered while the events are written (the writer
 * sees each event's fields once), so a user or an analysis can tell which
 * kinds can hold a field without reading the events. */
#ifndef NF_KIND_SUMMARY_H
#define NF_KIND_SUMMARY_H

#include <sqlite3.h>
#include <stddef.h>

struct kind_summary;

struct kind_summary *kind_summary_new(void);
void kind_summary_free(struct kind_summary *ks);
/* One event of kind (of class class_name) with its fields (a JSON object of
 * len bytes). */
void kind_summary_add(struct kind_summary *ks, const char *kind, const char *class_name, const char *fields,
		      size_t len);
/* Fills `kinds` (created by the schema) from the summary and the events'
 * counts (after the last change to events, with the events_kind index). */
void kind_summary_write(const struct kind_summary *ks, sqlite3 *db);

#endif
