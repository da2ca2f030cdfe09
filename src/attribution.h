/* attribution.h: after the load, decides which host and which global rank
 * every source and every event belongs to, from all the evidence in the
 * case (NCCL prefixes, wrappers, torchrun reports, identity lines, paths),
 * and fills `procs` and `ranks`. Works on the case through SQL only. */
#ifndef NF_ATTRIBUTION_H
#define NF_ATTRIBUTION_H

#include <sqlite3.h>

void attribution_run(sqlite3 *db);

#endif
