/* analysis.h: runs every analysis on a case, in order, through SQL:
 * collectives (sequence rebuild), rank status, diagnosis (verdict, cascade,
 * findings), network, system messages, config. Re-runnable: the analysis
 * tables are emptied first. */
#ifndef NF_ANALYSIS_H
#define NF_ANALYSIS_H

#include <sqlite3.h>

void analysis_run(sqlite3 *db);
/* The diagnosis alone, on the case's tables as they are (rank_status,
 * collectives, events, ...: after editing them by hand, or a test's
 * fixture): replaces the verdict, its evidence, the cascade and
 * diagnosis_rules. */
void analysis_run_diagnosis(sqlite3 *db);

#endif
