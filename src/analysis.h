/* analysis.h: runs every analysis on a case, in order, through SQL:
 * collectives (sequence rebuild), rank status, diagnosis (verdict, cascade,
 * findings), network, system messages, config. Re-runnable: the analysis
 * tables are emptied first. */
#ifndef NF_ANALYSIS_H
#define NF_ANALYSIS_H

#include <sqlite3.h>

void analysis_run(sqlite3 *db);

#endif
