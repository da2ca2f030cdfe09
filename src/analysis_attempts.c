/* analysis_attempts.c: a job that the launcher restarted (torchrun
 * --max-restarts) is analysed as its first attempt.
 *
 * Every attempt runs new processes under the same ranks, groups and
 * sequence numbers, and its flight-recorder dumps replace the first
 * attempt's files: mixed together they describe calls no process made. The
 * first attempt's failure is the incident (the later ones repeat it or fail
 * on its leftovers), so when a rank ran in more than one process the
 * analyses see, through temporary views that shadow `events` and
 * `fr_entries`, only the events of each rank's first process:
 *  - a line with an NCCL pid belongs to that process;
 *  - a line of a per-rank file belongs to the attempt its path names
 *    (torchrun's .../attempt_N/...);
 *  - anything else of the rank (a dump, a console line without a pid, the
 *    launcher's lines about it)
 *    belongs to a later attempt from the time the rank's second process
 *    first showed up; a dump belongs to a later attempt as a whole when its
 *    first entry does.
 * The tables themselves keep every event. */
#include "analysis_internal.h"

#include "case_db.h"

static const char attempts_sql[] =
	"DROP TABLE IF EXISTS temp.rank_procs;\n"
	/* each rank's processes, in the order they appeared */
	"CREATE TEMP TABLE rank_procs AS\n"
	"  SELECT rank, host, pid, min(time_us) AS first_us,\n"
	"    row_number() OVER (PARTITION BY rank ORDER BY min(time_us), pid) - 1 AS attempt\n"
	"  FROM main.events WHERE rank IS NOT NULL AND pid IS NOT NULL AND host IS NOT NULL AND time_us IS NOT NULL\n"
	"    AND kind >= 'nccl_' AND kind < 'nccl`'\n"
	"  GROUP BY rank, host, pid;\n"
	/* per-rank files of a later attempt say so in their path */
	"INSERT INTO temp.rank_procs SELECT rank, host, NULL, first_time_us, 1 FROM sources\n"
	"  WHERE rank IS NOT NULL AND path GLOB '*/attempt_[1-9]*/*' AND first_time_us IS NOT NULL;\n";

static const char later_sql[] =
	"DROP TABLE IF EXISTS temp.rank_restart;\n"
	"CREATE TEMP TABLE rank_restart(rank INTEGER PRIMARY KEY, restart_us INTEGER);\n"
	"INSERT INTO temp.rank_restart SELECT rank, min(first_us) FROM temp.rank_procs WHERE attempt > 0 GROUP BY rank;\n"
	"DROP TABLE IF EXISTS temp.later_sources;\n"
	"CREATE TEMP TABLE later_sources(source_id INTEGER PRIMARY KEY);\n"
	"INSERT INTO temp.later_sources SELECT source_id FROM sources WHERE path GLOB '*/attempt_[1-9]*/*';\n"
	"INSERT OR IGNORE INTO temp.later_sources SELECT s.source_id FROM sources s JOIN temp.rank_restart r\n"
	"  ON r.rank = s.rank WHERE s.kind = 'flight_recorder'\n"
	"  AND (SELECT min(time_us) FROM main.events e WHERE e.source_id = s.source_id) >= r.restart_us;\n"
	"DROP TABLE IF EXISTS temp.later_events;\n"
	"CREATE TEMP TABLE later_events(event_id INTEGER PRIMARY KEY);\n"
	"INSERT INTO temp.later_events SELECT e.event_id FROM main.events e JOIN temp.rank_restart r ON r.rank = e.rank\n"
	"  WHERE e.source_id IN (SELECT source_id FROM temp.later_sources)\n"
	"     OR (e.pid IS NOT NULL AND EXISTS (SELECT 1 FROM temp.rank_procs p WHERE p.rank = e.rank\n"
	"         AND p.host = e.host AND p.pid = e.pid AND p.attempt > 0))\n"
	"     OR ((e.pid IS NULL OR NOT EXISTS (SELECT 1 FROM temp.rank_procs p WHERE p.rank = e.rank AND p.host = e.host\n"
	"           AND p.pid = e.pid)) AND e.time_us >= r.restart_us\n"
	"         AND e.source_id NOT IN (SELECT source_id FROM sources WHERE path GLOB '*/attempt_0/*'));\n"
	"DROP VIEW IF EXISTS temp.events;\n"
	"CREATE TEMP VIEW events AS SELECT * FROM main.events\n"
	"  WHERE event_id NOT IN (SELECT event_id FROM temp.later_events);\n"
	"DROP VIEW IF EXISTS temp.fr_entries;\n"
	"CREATE TEMP VIEW fr_entries AS SELECT * FROM main.fr_entries\n"
	"  WHERE event_id NOT IN (SELECT event_id FROM temp.later_events);\n";

bool analysis_attempts_scope(sqlite3 *db)
{
	/* cheap first: a rank with two processes, or a later attempt's directory */
	if (db_int(db, "SELECT EXISTS (SELECT 1 FROM procs WHERE rank IS NOT NULL AND pid IS NOT NULL"
		       " GROUP BY rank HAVING count(DISTINCT pid) > 1)"
		       " OR EXISTS (SELECT 1 FROM sources WHERE path GLOB '*/attempt_[1-9]*/*')", 0) == 0)
		return false;
	db_exec(db, attempts_sql);
	if (db_int(db, "SELECT count(*) FROM temp.rank_procs WHERE attempt > 0", 0) == 0) {
		db_exec(db, "DROP TABLE temp.rank_procs");
		return false;
	}
	db_exec(db, later_sql);
	return true;
}

void analysis_attempts_unscope(sqlite3 *db)
{
	db_exec(db, "DROP VIEW IF EXISTS temp.events; DROP VIEW IF EXISTS temp.fr_entries;"
		    "DROP TABLE IF EXISTS temp.later_events; DROP TABLE IF EXISTS temp.later_sources;"
		    "DROP TABLE IF EXISTS temp.rank_restart; DROP TABLE IF EXISTS temp.rank_procs;");
}
