/* analysis_rank_status.c: the facts of each rank the diagnosis compares:
 * when it logged, how far it got (steps, last progress), its first failure,
 * how its process ended (exit code, signal, who sent it), whether it wrote a
 * flight-recorder dump and finished NCCL init. Table rank_status; the
 * diagnosis fills its `role` column. */
#include "analysis_internal.h"

#include "case_db.h"

/* Events that mean something went wrong on that rank (not notices about
 * another rank's failure, not configuration warnings). */
#define FAILURE_KINDS                                                                                        \
	"('pg_watchdog_timeout','pg_failure_detected','pg_async_exception','pg_watchdog_stuck',"              \
	"'pg_watchdog_terminated','pg_ops_failed','pg_terminating','pg_taking_down','py_exception',"           \
	"'nccl_error_code','nccl_error_exception','nccl_socket_closed','nccl_socket_truncated',"               \
	"'nccl_ib_completion_error','nccl_ib_async_event','nccl_ibv_failed','nccl_cuda_failure',"             \
	"'nccl_ring_error','nccl_no_socket_if','nccl_net_no_interface','nccl_warn','app_error',"              \
	"'c10_exception_raised','pg_desync_timeout_at')"

static const char status_sql[] =
	"DELETE FROM rank_status;\n"
	"INSERT INTO rank_status(rank, host, local_rank) SELECT rank, host, local_rank FROM ranks;\n"
	"DROP TABLE IF EXISTS temp.rs_ev;\n"
	"CREATE TEMP TABLE rs_ev AS SELECT rank, count(*) AS n, min(time_us) AS t0, max(time_us) AS t1\n"
	"  FROM events WHERE rank IS NOT NULL GROUP BY rank;\n"
	"UPDATE rank_status SET\n"
	"  events = (SELECT n FROM rs_ev WHERE rs_ev.rank = rank_status.rank),\n"
	"  first_time_us = (SELECT t0 FROM rs_ev WHERE rs_ev.rank = rank_status.rank),\n"
	"  last_time_us = (SELECT t1 FROM rs_ev WHERE rs_ev.rank = rank_status.rank);\n"
	/* progress: steps, collectives, init; flight-recorder completions */
	"UPDATE rank_status SET last_progress_us = (SELECT max(t) FROM (\n"
	"    SELECT max(time_us) AS t FROM events e WHERE e.rank = rank_status.rank AND e.class IN ('step','coll','init')\n"
	"      AND e.kind <> 'fr_entry' AND e.clock <> 'inherited'\n"
	"    UNION ALL SELECT max(time_completed_us) FROM collectives c WHERE c.rank = rank_status.rank\n"
	"      AND c.evidence = 'flight recorder' AND c.state = 'completed'));\n"
	"UPDATE rank_status SET\n"
	"  last_step = (SELECT max(json_extract(fields,'$.step')) FROM events e WHERE e.rank = rank_status.rank\n"
	"     AND e.kind = 'app_step'),\n"
	"  last_step_time_us = (SELECT max(time_us) FROM events e WHERE e.rank = rank_status.rank AND e.kind = 'app_step');\n"
	"UPDATE rank_status SET\n"
	"  first_error_event = (SELECT event_id FROM events e WHERE e.rank = rank_status.rank\n"
	"     AND e.kind IN " FAILURE_KINDS " AND e.time_us IS NOT NULL ORDER BY e.time_us, e.event_id LIMIT 1);\n"
	"UPDATE rank_status SET\n"
	"  first_error_time_us = (SELECT time_us FROM events WHERE event_id = first_error_event),\n"
	"  first_error_kind = (SELECT kind FROM events WHERE event_id = first_error_event),\n"
	"  first_timeout_time_us = (SELECT min(time_us) FROM events e WHERE e.rank = rank_status.rank\n"
	"     AND e.kind IN ('pg_watchdog_timeout','pg_failure_detected','pg_async_exception'));\n"
	/* how the process ended: the torchrun failure report, then its exit line */
	"DROP TABLE IF EXISTS temp.rs_fail;\n"
	"CREATE TEMP TABLE rs_fail AS WITH f AS (\n"
	"  SELECT e.*, sum(CASE WHEN kind IN ('torchrun_failure_index','torchrun_failure_time') THEN 1 ELSE 0 END)\n"
	"         OVER (PARTITION BY source_id ORDER BY line_no) AS blk\n"
	"  FROM events e WHERE kind LIKE 'torchrun_failure_%')\n"
	"  SELECT source_id, blk,\n"
	"    max(CASE WHEN kind='torchrun_failure_rank' THEN json_extract(fields,'$.rank') END) AS rank,\n"
	"    max(CASE WHEN kind='torchrun_failure_exitcode' THEN json_extract(fields,'$.exitcode') END) AS exitcode,\n"
	"    max(CASE WHEN kind='torchrun_failure_traceback' THEN json_extract(fields,'$.signal') END) AS signal,\n"
	"    max(CASE WHEN kind='torchrun_failure_time' THEN\n"
	"      CAST(strftime('%s', replace(json_extract(fields,'$.time'), '_', ' ')) AS INTEGER) * 1000000 END) AS t,\n"
	"    min(CASE WHEN kind='torchrun_failure_exitcode' THEN event_id END) AS ev\n"
	"  FROM f GROUP BY source_id, blk;\n"
	"DROP TABLE IF EXISTS temp.rs_exit;\n"
	"CREATE TEMP TABLE rs_exit AS\n"
	"  SELECT p.rank AS rank, json_extract(e.fields,'$.exitcode') AS exitcode, NULL AS signal, e.time_us AS t,\n"
	"         e.event_id AS ev, 0 AS coarse\n"
	"  FROM events e JOIN sources s USING(source_id)\n"
	"  JOIN procs p ON p.host = s.host AND p.pid = json_extract(e.fields,'$.pid') AND p.rank IS NOT NULL\n"
	"  WHERE e.kind = 'torchrun_worker_failed'\n"
	"  UNION ALL SELECT rank, exitcode, signal, t, ev, 1 FROM rs_fail WHERE rank IS NOT NULL AND exitcode IS NOT NULL;\n"
	"UPDATE rank_status SET\n"
	/* the launcher's exit line has sub-second time; its report only seconds */
	"  exit_code = (SELECT exitcode FROM rs_exit x WHERE x.rank = rank_status.rank ORDER BY x.coarse, x.t IS NULL, x.t LIMIT 1),\n"
	"  exit_time_us = (SELECT t FROM rs_exit x WHERE x.rank = rank_status.rank ORDER BY x.coarse, x.t IS NULL, x.t LIMIT 1),\n"
	"  exit_signal = (SELECT max(signal) FROM rs_exit x WHERE x.rank = rank_status.rank),\n"
	"  exit_event = (SELECT ev FROM rs_exit x WHERE x.rank = rank_status.rank ORDER BY x.coarse, x.t IS NULL, x.t LIMIT 1);\n"
	"UPDATE rank_status SET exit_signal = CASE -exit_code WHEN 1 THEN 'SIGHUP' WHEN 2 THEN 'SIGINT'\n"
	"    WHEN 3 THEN 'SIGQUIT' WHEN 4 THEN 'SIGILL' WHEN 6 THEN 'SIGABRT' WHEN 7 THEN 'SIGBUS' WHEN 8 THEN 'SIGFPE'\n"
	"    WHEN 9 THEN 'SIGKILL' WHEN 11 THEN 'SIGSEGV' WHEN 13 THEN 'SIGPIPE' WHEN 15 THEN 'SIGTERM' END\n"
	"  WHERE exit_signal IS NULL AND exit_code < 0;\n"
	/* SIGTERM sent by the launcher to the survivors of a failure */
	"UPDATE rank_status SET sigterm_by_launcher = EXISTS (SELECT 1 FROM events e JOIN sources s USING(source_id)\n"
	"    JOIN procs p ON p.host = s.host AND p.pid = json_extract(e.fields,'$.pid')\n"
	"    WHERE e.kind = 'torchrun_sending_signal' AND p.rank = rank_status.rank);\n"
	/* PyTorch's own abort after a timeout or an NCCL error */
	"UPDATE rank_status SET watchdog_abort = EXISTS (SELECT 1 FROM events e WHERE e.rank = rank_status.rank\n"
	"    AND e.kind IN ('pg_terminating','pg_taking_down','pg_watchdog_terminated'));\n"
	"UPDATE rank_status SET has_dump = EXISTS (SELECT 1 FROM events e WHERE e.rank = rank_status.rank\n"
	"    AND e.kind = 'fr_dump' AND json_extract(e.fields,'$.entries') > 0);\n"
	"UPDATE rank_status SET init_complete = EXISTS (SELECT 1 FROM events e WHERE e.rank = rank_status.rank\n"
	"    AND e.kind = 'nccl_comm_init' AND json_extract(e.fields,'$.state') = 'COMPLETE')\n"
	"  OR EXISTS (SELECT 1 FROM collectives c WHERE c.rank = rank_status.rank);\n";

void analysis_rank_status(sqlite3 *db)
{
	db_exec(db, status_sql);
}
