/* findings.h: how analyses record what they found (tables findings and
 * evidence), so every analysis writes findings the same way. */
#ifndef NF_FINDINGS_H
#define NF_FINDINGS_H

#include <sqlite3.h>
#include <stdint.h>

/* severity: "error", "warning" or "info". ranks_json / hosts_json are JSON
 * arrays ("[5]", "[\"gpu-node03\"]") or NULL for []. hint may be NULL.
 * Returns the finding_id. */
int64_t finding_add(sqlite3 *db, const char *kind, const char *severity, const char *ranks_json,
		    const char *hosts_json, const char *summary, const char *hint);
/* Cites an input line (source_id, line_no) or an event (event_id; its line
 * is cited) for a finding. finding_id 0 is the verdict. Duplicates of the
 * same text in console copies are removed later by findings_dedup(). */
void evidence_add(sqlite3 *db, int64_t finding_id, int64_t event_id, const char *note);
void evidence_add_line(sqlite3 *db, int64_t finding_id, int64_t source_id, int64_t line_no, const char *note);
/* Drops evidence rows that cite the same text as an earlier row of the same
 * finding (a console copy of a per-rank line, say). */
void findings_dedup(sqlite3 *db);

#endif
