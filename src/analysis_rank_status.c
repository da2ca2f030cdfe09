/* analysis_rank_status.c: the facts of each rank the diagnosis compares:
 * when it logged, how far it got (steps, last progress), its first failure,
 * how its process ended (exit code, signal, who sent it), whether it wrote a
 * flight-recorder dump and finished NCCL init. Table rank_status; the
 * diagnosis fills its `role` column. */
#include "analysis_internal.h"

#include "case_db.h"
#include "failure_kinds.h"

static const char status_sql[] =
	"DELETE FROM rank_status;\n"
	"INSERT INTO rank_status(rank, host, local_rank) SELECT rank, host, local_rank FROM ranks;\n"
	/* one pass over the events per fact, into keyed temp tables */
	"DROP TABLE IF EXISTS temp.rs;\n"
	"CREATE TEMP TABLE rs(rank INTEGER PRIMARY KEY, n, t0, t1, progress, step, step_t, first_timeout);\n"
	"INSERT INTO rs(rank, n, t0, t1) SELECT rank, count(*), min(time_us), max(time_us)\n"
	"  FROM events WHERE rank IS NOT NULL GROUP BY rank;\n"
	"DROP TABLE IF EXISTS temp.rs_part;\n"
	"CREATE TEMP TABLE rs_part AS\n"
	/* the latest qualifying event of each rank: walked back from its last
	 * event on the (rank, time) index, it is almost always among the last few */
	"  SELECT rank, (SELECT e.time_us FROM events e WHERE e.rank = rs.rank AND e.time_us IS NOT NULL\n"
	"      AND e.class IN ('step','coll','init') AND e.kind <> 'fr_entry' AND e.clock <> 'inherited'\n"
	"      ORDER BY e.time_us DESC LIMIT 1) AS progress, NULL AS step, NULL AS step_t, NULL AS first_timeout FROM rs\n"
	/* most of them qualify: a scan beats the lookups of the (state, ...) index */
	"  UNION ALL SELECT rank, max(time_completed_us), NULL, NULL, NULL FROM collectives NOT INDEXED\n"
	"    WHERE evidence = 'flight recorder' AND state = 'completed' GROUP BY rank\n"
	"  UNION ALL SELECT rank, NULL, max(field(fields, 'step')), max(time_us), NULL FROM events\n"
	"    WHERE kind = 'app_step' AND rank IS NOT NULL GROUP BY rank\n"
	"  UNION ALL SELECT rank, NULL, NULL, NULL, min(time_us) FROM events\n"
	"    WHERE kind IN ('pg_watchdog_timeout','pg_watchdog_exception','pg_failure_detected','pg_async_exception') AND rank IS NOT NULL\n"
	"    GROUP BY rank;\n"
	"DROP TABLE IF EXISTS temp.rs_sum;\n"
	"CREATE TEMP TABLE rs_sum(rank INTEGER PRIMARY KEY, progress, step, step_t, first_timeout);\n"
	"INSERT INTO rs_sum SELECT rank, max(progress), max(step), max(step_t), min(first_timeout) FROM rs_part\n"
	"  GROUP BY rank;\n"
	"UPDATE rs SET (progress, step, step_t, first_timeout) = (SELECT progress, step, step_t, first_timeout\n"
	"  FROM rs_sum WHERE rs_sum.rank = rs.rank);\n"
	"DROP TABLE IF EXISTS temp.rs_err;\n"
	"CREATE TEMP TABLE rs_err(rank INTEGER PRIMARY KEY, ev, t, kind);\n"
	"INSERT OR IGNORE INTO rs_err SELECT rank, event_id, time_us, kind FROM events\n"
	"  WHERE kind IN " FAILURE_KINDS " AND rank IS NOT NULL AND time_us IS NOT NULL ORDER BY rank, time_us, event_id;\n"
	"UPDATE rank_status SET (events, first_time_us, last_time_us, last_progress_us, last_step, last_step_time_us,\n"
	"    first_timeout_time_us) = (SELECT n, t0, t1, progress, step, step_t, first_timeout FROM rs\n"
	"    WHERE rs.rank = rank_status.rank);\n"
	"UPDATE rank_status SET (first_error_event, first_error_time_us, first_error_kind) =\n"
	"  (SELECT ev, t, kind FROM rs_err WHERE rs_err.rank = rank_status.rank);\n"
	/* how the process ended: the torchrun failure report, then its exit line */
	"DROP TABLE IF EXISTS temp.rs_fail;\n"
	"CREATE TEMP TABLE rs_fail AS WITH f AS (\n"
	"  SELECT e.*, sum(CASE WHEN kind IN ('torchrun_failure_index','torchrun_failure_time') THEN 1 ELSE 0 END)\n"
	"         OVER (PARTITION BY source_id ORDER BY line_no) AS blk\n"
	"  FROM events e WHERE kind BETWEEN 'torchrun_failure_' AND 'torchrun_failure_~')\n"
	"  SELECT source_id, blk,\n"
	"    max(CASE WHEN kind='torchrun_failure_rank' THEN field(fields, 'rank') END) AS rank,\n"
	"    max(CASE WHEN kind='torchrun_failure_exitcode' THEN field(fields, 'exitcode') END) AS exitcode,\n"
	"    max(CASE WHEN kind='torchrun_failure_traceback' THEN field(fields, 'signal') END) AS signal,\n"
	"    max(CASE WHEN kind='torchrun_failure_time' THEN\n"
	"      CAST(strftime('%s', replace(field(fields, 'time'), '_', ' ')) AS INTEGER) * 1000000 END) AS t,\n"
	"    min(CASE WHEN kind='torchrun_failure_exitcode' THEN event_id END) AS ev\n"
	"  FROM f GROUP BY source_id, blk;\n"
	"DROP TABLE IF EXISTS temp.rs_exit;\n"
	"CREATE TEMP TABLE rs_exit AS\n"
	"  SELECT p.rank AS rank, field(e.fields, 'exitcode') AS exitcode, NULL AS signal, e.time_us AS t,\n"
	"         e.event_id AS ev, 0 AS coarse\n"
	"  FROM events e JOIN sources s USING(source_id)\n"
	"  JOIN procs p ON p.host = s.host AND p.pid = field(e.fields, 'pid') AND p.rank IS NOT NULL\n"
	"  WHERE e.kind = 'torchrun_worker_failed'\n"
	"  UNION ALL SELECT rank, exitcode, signal, t, ev, 1 FROM rs_fail WHERE rank IS NOT NULL AND exitcode IS NOT NULL;\n"
	"CREATE INDEX temp.rs_exit_rank ON rs_exit(rank);\n"
	"DROP TABLE IF EXISTS temp.rs_exit1;\n"
	"CREATE TEMP TABLE rs_exit1(rank INTEGER PRIMARY KEY, exitcode, t, ev, signal);\n"
	/* the launcher's exit line has sub-second time; its report only seconds */
	"INSERT OR IGNORE INTO rs_exit1 SELECT rank, exitcode, t, ev, NULL FROM rs_exit\n"
	"  ORDER BY rank, coarse, t IS NULL, t;\n"
	"UPDATE rs_exit1 SET signal = (SELECT max(signal) FROM rs_exit x WHERE x.rank = rs_exit1.rank);\n"
	"UPDATE rank_status SET (exit_code, exit_time_us, exit_event, exit_signal) =\n"
	"  (SELECT exitcode, t, ev, signal FROM rs_exit1 x WHERE x.rank = rank_status.rank);\n"
	"UPDATE rank_status SET exit_signal = CASE -exit_code WHEN 1 THEN 'SIGHUP' WHEN 2 THEN 'SIGINT'\n"
	"    WHEN 3 THEN 'SIGQUIT' WHEN 4 THEN 'SIGILL' WHEN 6 THEN 'SIGABRT' WHEN 7 THEN 'SIGBUS' WHEN 8 THEN 'SIGFPE'\n"
	"    WHEN 9 THEN 'SIGKILL' WHEN 11 THEN 'SIGSEGV' WHEN 13 THEN 'SIGPIPE' WHEN 15 THEN 'SIGTERM' END\n"
	"  WHERE exit_signal IS NULL AND exit_code < 0;\n"
	/* SIGTERM sent by the launcher to the survivors of a failure */
	"DROP TABLE IF EXISTS temp.rs_sigterm;\n"
	"CREATE TEMP TABLE rs_sigterm AS SELECT p.rank AS rank, field(e.fields, 'signal') AS signal, e.time_us AS t\n"
	"  FROM events e JOIN sources s USING(source_id)\n"
	"  JOIN procs p ON p.host = s.host AND p.pid = field(e.fields, 'pid')\n"
	"  WHERE e.kind = 'torchrun_sending_signal' AND p.rank IS NOT NULL;\n"
	"CREATE INDEX temp.rs_sigterm_rank ON rs_sigterm(rank);\n"
	"UPDATE rank_status SET sigterm_by_launcher = EXISTS (SELECT 1 FROM rs_sigterm g WHERE g.rank = rank_status.rank\n"
	/* a SIGKILL death right after the launcher's SIGTERM was not the launcher's:
	 * it escalates to SIGKILL only after a grace period of many seconds */
	"      AND NOT (coalesce(rank_status.exit_signal, '') = 'SIGKILL' AND g.signal = 'SIGTERM'\n"
	"               AND rank_status.exit_time_us < g.t + 5000000));\n"
	/* ... nor the SIGTERM of a rank already gone: its peers lost their
	 * connections (a process died) more than a second before the launcher
	 * sent it, and it went silent then with no error of its own (the
	 * launcher sends it to every worker once another one failed, the dead
	 * included), and no other rank went silent by then but ranks of other
	 * hosts gone the same way within a second of it (the copies of a job
	 * that `synth` made; a node-mate that died first leaves it unknown
	 * whether the launcher's SIGTERM found this one alive, as in a kill of
	 * one rank) */
	"DROP TABLE IF EXISTS temp.rs_lost;\n"
	"CREATE TEMP TABLE rs_lost AS SELECT min(time_us) AS t FROM events\n"
	"  WHERE kind IN ('nccl_socket_closed','nccl_socket_truncated','gloo_connection_lost') AND time_us IS NOT NULL;\n"
	"DROP TABLE IF EXISTS temp.rs_gone;\n"
	"CREATE TEMP TABLE rs_gone AS SELECT rank FROM rank_status\n"
	"  WHERE sigterm_by_launcher AND exit_signal = 'SIGTERM' AND first_error_time_us IS NULL\n"
	"    AND last_time_us < (SELECT t FROM rs_lost) + 1000000\n"
	"    AND (SELECT min(g.t) FROM rs_sigterm g WHERE g.rank = rank_status.rank) >= (SELECT t FROM rs_lost) + 1000000;\n"
	"UPDATE rank_status SET sigterm_by_launcher = 0\n"
	"  WHERE rank IN (SELECT rank FROM temp.rs_gone)\n"
	"    AND NOT EXISTS (SELECT 1 FROM rank_status o WHERE o.rank <> rank_status.rank AND o.events > 0\n"
	"      AND o.last_time_us < (SELECT t FROM rs_lost) + 1000000\n"
	"      AND NOT (o.rank IN (SELECT rank FROM temp.rs_gone) AND o.host IS NOT rank_status.host\n"
	"        AND abs(o.last_time_us - rank_status.last_time_us) <= 1000000));\n"
	/* PyTorch's own abort after a timeout or an NCCL error */
	"UPDATE rank_status SET watchdog_abort = rank IN (SELECT rank FROM events\n"
	"    WHERE kind IN ('pg_terminating','pg_taking_down','pg_watchdog_terminated') AND rank IS NOT NULL);\n"
	"UPDATE rank_status SET has_dump = rank IN (SELECT rank FROM events\n"
	"    WHERE kind = 'fr_dump' AND field(fields, 'entries') > 0 AND rank IS NOT NULL);\n"
	"UPDATE rank_status SET init_complete = rank IN (SELECT rank FROM events\n"
	"    WHERE kind = 'nccl_comm_init' AND field(fields, 'state') = 'COMPLETE' AND rank IS NOT NULL)\n"
	"  OR rank IN (SELECT DISTINCT rank FROM collectives)\n"
	/* a collective that completed needed every member's communicator */
	"  OR rank IN (SELECT m.rank FROM pg_members m\n"
	"    WHERE EXISTS (SELECT 1 FROM collectives c WHERE c.pg = m.pg AND c.state = 'completed'));\n";

void analysis_rank_status(sqlite3 *db)
{
	db_exec(db, status_sql);
}
