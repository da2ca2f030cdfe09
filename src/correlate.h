/* correlate.h: what the system-message analysis (analysis_sysmsgs.c) and the
 * hardware diagnosis (diagnosis_hardware.c) share: the window in which a
 * system message counts as the cause of the job's first failure, and how the
 * gap is written. docs/correlation.md explains the rules. */
#ifndef NF_CORRELATE_H
#define NF_CORRELATE_H

#include <stddef.h>
#include <stdint.h>

/* A message up to this long before the first failure may have caused it... */
#define CORR_BEFORE_US (5 * 60 * 1000000LL)
/* ...and up to this long after it (clocks of different hosts differ). */
#define CORR_AFTER_US (10 * 1000000LL)

#include <sqlite3.h>
#include <stdbool.h>

/* True when the NIC a system message names (its interface, or the PCI
 * address on its line) is one the NCCL of a rank on host used. */
bool corr_nic_used(sqlite3 *db, int64_t event_id, const char *host, const char *device);

/* "2.1 s before", "3 min before", "4.0 s after" (gap = failure - message) */
void corr_fmt_gap(int64_t gap_us, char *out, size_t n);

#endif
