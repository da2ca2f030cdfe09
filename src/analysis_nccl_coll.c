/* analysis_nccl_coll.c: collectives from NCCL's own COLL lines
 * (NCCL_DEBUG_SUBSYS=COLL): "AllReduce: opCount 1e ... count N ... comm 0x..".
 * The n-th collective a process logs on a communicator is the n-th of the
 * communicator's process group (analysis_comms.c matches them; a
 * communicator no group was matched to stands for its own group). Rows are
 * added only for (rank, group) pairs no flight recorder covers: those are the
 * text-only jobs. */
#include "analysis_internal.h"

#include "case_db.h"

static const char nccl_coll_sql[] =
	"DROP TABLE IF EXISTS temp.fr_covered;\n"
	"CREATE TEMP TABLE fr_covered(rank INTEGER, pg TEXT, PRIMARY KEY(rank, pg));\n"
	"INSERT OR IGNORE INTO fr_covered SELECT rank, pg FROM collectives WHERE evidence = 'flight recorder';\n"

	/* the n-th collective a process logged on a communicator is its seq n
	 * (field n, counted at ingest: only the last matches are kept as events);
	 * NCCL's opCount would say so too, but it stays 0 on some transports */
	/* the processes with a communicator no flight recorder covers: only
	 * their COLL lines can add rows (in a job with dumps, often none) */
	"DROP TABLE IF EXISTS temp.coll_need;\n"
	"CREATE TEMP TABLE coll_need AS SELECT DISTINCT c.host, c.pid FROM comms c\n"
	"  WHERE c.comm_id IS NOT NULL AND c.rank IS NOT NULL\n"
	"    AND NOT EXISTS (SELECT 1 FROM fr_covered f WHERE f.rank = c.rank AND f.pg = coalesce(c.pg, c.comm_id));\n"
	/* a call logged (at the time of the line before it) once the job was
	 * stopped from outside was enqueued in its teardown: a frozen process
	 * that the cancel resumed catches up then; it says nothing of the hang */
	"DROP TABLE IF EXISTS temp.coll_stop;\n"
	"CREATE TEMP TABLE coll_stop AS SELECT coalesce((" SQL_JOB_STOPPED_AT "), 9223372036854775807) AS t;\n"
	"DROP TABLE IF EXISTS temp.coll_lines;\n"
	"CREATE TEMP TABLE coll_lines AS\n"
	"  SELECT c.rank, coalesce(c.pg, c.comm_id) AS pg, c.nranks, e.event_id, e.time_us, e.clock,\n"
	"    norm_op(field(e.fields, 'op')) AS op, field(e.fields, 'count') AS count,\n"
	"    field(e.fields, 'datatype') AS datatype,\n"
	"    field(e.fields, 'n') AS seq\n"
	"  FROM events e JOIN comms c ON c.host = e.host AND c.pid = e.pid AND c.comm_ptr = field(e.fields, 'comm')\n"
	"  WHERE e.kind = 'nccl_coll' AND (e.host, e.pid) IN (SELECT host, pid FROM temp.coll_need)\n"
	"    AND c.comm_id IS NOT NULL AND c.rank IS NOT NULL\n"
	"    AND (e.clock IS NOT 'inherited' OR e.time_us IS NULL OR e.time_us < (SELECT t FROM temp.coll_stop))\n"
	"    AND norm_op(field(e.fields, 'op')) NOT IN ('SEND','RECV');\n"
	"INSERT INTO collectives(rank, pg, seq, op, numel_in, numel_out, dtype, state, time_created_us, evidence, event_id)\n"
	"  SELECT rank, pg, seq, op,\n"
	"    CASE op WHEN 'REDUCESCATTER' THEN count * nranks ELSE count END,\n"
	"    CASE op WHEN 'ALLGATHER' THEN count * nranks ELSE count END,\n"
	"    CASE datatype WHEN 0 THEN 'Char' WHEN 1 THEN 'Byte' WHEN 2 THEN 'Int' WHEN 3 THEN 'UInt32' WHEN 4 THEN 'Long'\n"
	"      WHEN 5 THEN 'UInt64' WHEN 6 THEN 'Half' WHEN 7 THEN 'Float' WHEN 8 THEN 'Double' WHEN 9 THEN 'BFloat16' END,\n"
	"    'enqueued', min(CASE WHEN clock <> 'inherited' THEN time_us END), 'nccl coll', min(event_id)\n"
	"  FROM coll_lines l WHERE NOT EXISTS (SELECT 1 FROM fr_covered f WHERE f.rank = l.rank AND f.pg = l.pg)\n"
	"  GROUP BY rank, pg, seq;\n"
	/* what the COLL lines say a rank enqueued last */
	"INSERT INTO pg_status(rank, pg, last_enqueued, evidence, event_id)\n"
	"  SELECT rank, pg, max(seq), 'nccl coll', max(event_id) FROM collectives WHERE evidence = 'nccl coll'\n"
	"  GROUP BY rank, pg;\n";

void analysis_nccl_coll(sqlite3 *db)
{
	db_exec(db, nccl_coll_sql);
}
