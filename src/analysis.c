/* analysis.c: the order of the analyses; see analysis.h. */
#include "analysis.h"

#include "analysis_internal.h"
#include "case_db.h"

static const char clear_sql[] =
	"DELETE FROM verdict; DELETE FROM findings; DELETE FROM evidence; DELETE FROM cascade;\n"
	"DELETE FROM rank_status; DELETE FROM network; DELETE FROM config; DELETE FROM sysmsgs;\n";

void analysis_run(sqlite3 *db)
{
	db_exec(db, "SAVEPOINT analysis");
	db_exec(db, clear_sql);
	analysis_collectives(db);
	analysis_comms(db);
	analysis_nccl_coll(db);
	analysis_rank_status(db);
	analysis_network(db);
	analysis_sysmsgs(db);
	analysis_config(db);
	analysis_bandwidth(db);
	analysis_diagnosis(db);
	analysis_inventory(db);
	db_exec(db, "RELEASE analysis");
}
