/* analysis.c: the order of the analyses; see analysis.h. */
#include "analysis.h"

#include "analysis_internal.h"
#include "case_db.h"
#include "case_schema.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char clear_sql[] =
	"DELETE FROM verdict; DELETE FROM diagnosis_rules; DELETE FROM findings; DELETE FROM evidence; DELETE FROM cascade;\n"
	"DELETE FROM diagnosis_facts; DELETE FROM hang_dump; DELETE FROM hang_le; DELETE FROM hang_le_pg;\n"
	"DELETE FROM check_groups;\n"
	"DELETE FROM rank_status; DELETE FROM network; DELETE FROM config; DELETE FROM sysmsgs;\n";

static const struct {
	const char *name;
	void (*run)(sqlite3 *db);
} analyses[] = {
	{"collectives", analysis_collectives}, {"comms", analysis_comms},
	{"nccl_coll", analysis_nccl_coll},     {"rank_status", analysis_rank_status},
	{"clocks", analysis_clocks},
	{"network", analysis_network},         {"sysmsgs", analysis_sysmsgs},
	{"config", analysis_config},           {"bandwidth", analysis_bandwidth},
	{"diagnosis", analysis_diagnosis},     {"inventory", analysis_inventory},
};

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void analysis_run_diagnosis(sqlite3 *db)
{
	db_exec(db, "SAVEPOINT diagnosis");
	case_schema_upgrade(db);
	db_exec(db, "DELETE FROM verdict; DELETE FROM diagnosis_rules; DELETE FROM evidence WHERE finding_id = 0;"
		    " DELETE FROM cascade; DELETE FROM diagnosis_facts; DELETE FROM hang_dump; DELETE FROM hang_le;"
		    " DELETE FROM hang_le_pg; DELETE FROM check_groups;");
	/* a restarted job's first attempt, as the whole analysis sees it */
	bool restarted = analysis_attempts_scope(db);
	analysis_sysmsgs_knowledge(db); /* the hardware rule's Xid codes */
	analysis_diagnosis(db);
	if (restarted)
		analysis_attempts_unscope(db);
	db_exec(db, "RELEASE diagnosis");
}

void analysis_run(sqlite3 *db)
{
	/* NF_TIMINGS=1: the CPU time of each analysis on stderr (profiling aid) */
	const char *tm = getenv("NF_TIMINGS");
	bool timings = tm && *tm && strcmp(tm, "0") != 0;
	db_exec(db, "SAVEPOINT analysis");
	case_schema_upgrade(db);
	db_exec(db, clear_sql);
	bool restarted = analysis_attempts_scope(db);
	for (size_t i = 0; i < sizeof(analyses) / sizeof(analyses[0]); i++) {
		double t0 = timings ? cpu_s() : 0;
		analyses[i].run(db);
		if (timings)
			fprintf(stderr, "timing:   analysis %-12s %7.3f s cpu\n", analyses[i].name, cpu_s() - t0);
	}
	if (restarted)
		analysis_attempts_unscope(db);
	db_exec(db, "RELEASE analysis");
}
