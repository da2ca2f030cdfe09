/* diagnosis_hang.h: what the hang rules share (diagnosis_wait.c,
 * diagnosis_mismatch.c, diagnosis_stall.c, diagnosis_silent.c,
 * diagnosis_untimed.c): the SQL of the groups' last calls, the signature of
 * a call, and the model functions one file defines and the others use. Not
 * for the other rules. */
#ifndef NF_DIAGNOSIS_HANG_H
#define NF_DIAGNOSIS_HANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "util.h"

struct diagnosis;


/* Each rank's last seq per group (le), the groups' extremes (ext) and both
 * together (cmp), from a pg_status and a collectives table. A member of a
 * group or communicator that shows nothing there is at 0. Behind some peer:
 * below the group's maximum; ahead of some peer: above its minimum (per
 * group, not per pair of ranks). */
#define AHEAD_LE_SQL(pg_status, collectives)                                                              \
	"WITH le AS (SELECT rank, pg, max(v) AS le FROM ("                                                  \
	"   SELECT rank, pg, last_enqueued AS v FROM " pg_status " WHERE last_enqueued IS NOT NULL"         \
	"   UNION ALL SELECT rank, pg, seq FROM " collectives                                                \
	"   UNION ALL SELECT rank, pg, 0 FROM pg_members"                                                    \
	"   UNION ALL SELECT rank, coalesce(pg, comm_id), 0 FROM comms)"                                     \
	"   WHERE pg IS NOT NULL AND rank IS NOT NULL GROUP BY rank, pg),"                                   \
	" ext AS (SELECT pg, max(le) AS mx, min(le) AS mn FROM le GROUP BY pg),"                            \
	" cmp AS (SELECT l.rank, l.pg, l.le, x.mx AS peer_max, x.mn AS peer_min FROM le l JOIN ext x USING(pg))"
/* The CTE le of each rank's last seq per group as the hang views show it
 * (only the groups a rank shows something in): hang_le, which
 * hang_views() fills, with each group's members, lowest seq and how many
 * members are at it in hang_le_pg. */
#define HANG_LE_SQL "WITH le AS NOT MATERIALIZED (SELECT rank, pg, le FROM hang_le)"

/* A rank's call at a sequence number: what the mismatch rules compare. */
struct sig {
	int rank;
	char op[32];
	int64_t in, out; /* -1 unknown */
	char dtype[16];  /* "" unknown */
	int64_t event_id;
	bool not_fr;     /* told by NCCL's lines or a watchdog, not the flight recorder */
};

void hang_set_pg(struct diagnosis *d, const char *pg);
int64_t hang_last_app_line(struct diagnosis *d, int rank);
void hang_among_add(struct buf *among, int *k, const char *pg);
void hang_next_group_by_history(struct diagnosis *d, int rank, char *pg, size_t pgn);
void hang_next_group_by_history_in(struct diagnosis *d, int rank, const char *among, char *pg, size_t pgn);
bool hang_sig_eq(const struct sig *a, const struct sig *b);
void hang_sig_text(const struct sig *s, bool with_dtype, char *out, size_t n);
void hang_sig_dtype(struct sig *g, sqlite3_stmt *st, int col);
bool hang_predict(struct diagnosis *d, const char *pg, long seq, struct sig *expect);
bool hang_predict_from_later(struct diagnosis *d, const char *pg, long seq, struct sig *expect);
bool hang_any_unresponsive(struct diagnosis *d);
bool hang_all_hosts_silent(struct diagnosis *d);
bool hang_skipped_ahead(struct diagnosis *d, const char *le_sql, bool timed);

#endif
