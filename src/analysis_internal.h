/* analysis_internal.h: the analyses run by analysis_run(), in order. Each
 * reads the case and writes its tables through SQL only. */
#ifndef NF_ANALYSIS_INTERNAL_H
#define NF_ANALYSIS_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>

/* analysis_attempts.c: a restarted job is analysed as its first attempt
 * (temporary views shadow events and fr_entries); true when it restarted */
bool analysis_attempts_scope(sqlite3 *db);
void analysis_attempts_unscope(sqlite3 *db);
void analysis_collectives(sqlite3 *db);  /* process_groups, pg_members, collectives, pg_status */
void analysis_comms(sqlite3 *db);        /* comms; completes pg_members from NCCL communicators */
void analysis_nccl_coll(sqlite3 *db);    /* collectives from NCCL COLL lines, where no dump covers them */
void analysis_rank_status(sqlite3 *db);  /* rank_status */
void analysis_clocks(sqlite3 *db);       /* clocks: each host's clock offset; a finding when they disagree */
void analysis_network(sqlite3 *db);      /* network; findings on interfaces, networks, transports */
void analysis_sysmsgs(sqlite3 *db);      /* sysmsgs; findings on GPU faults and link events */
void analysis_config(sqlite3 *db);       /* config; findings on settings */
void analysis_bandwidth(sqlite3 *db);    /* bandwidth from nccl-tests output; findings per run */
void analysis_diagnosis(sqlite3 *db);
/* The Xid codes' meanings (temp.kb_xid, data/xid-codes.tsv): loaded by the
 * system messages' analysis, and for the diagnosis alone. */
void analysis_sysmsgs_knowledge(sqlite3 *db);    /* verdict, cascade, findings (cause) */
void analysis_inventory(sqlite3 *db);    /* gpus, nics, topo from node inventories; NIC findings */

/* SQL: when the job was stopped from outside, the first death signal of the
 * launchers (a scheduler's cancel, a time limit, an operator: SIGTERM to the
 * job) when every host with ranks logged one; no row otherwise (one node's
 * launcher killed is that node's failure, not the job's end) */
#define SQL_JOB_STOPPED_AT                                                                            \
	"SELECT min(time_us) FROM events WHERE kind = 'torchrun_death_signal'"                           \
	" HAVING count(DISTINCT host) >= (SELECT count(DISTINCT host) FROM ranks WHERE host IS NOT NULL)"

/* analysis_network.c: the length of the plugin's name in the rest of a
 * transport after "NET/" ("IB/0/GDRDMA", "Socket/1": up to a '/' before a
 * digit, else to the next '/') */
int net_plugin_len(const char *p);

#endif
