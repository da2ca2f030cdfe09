/* redact.h: stable aliases for what identifies a site in a report, so a
 * report can go to a vendor ticket:
 *   host names            gpu-node03      -> node-A, node-B, ... node-Z, node-AA
 *   IPv4 / IPv6 addresses 10.1.2.3        -> ip-1, ip-2, ...
 *   user paths            /home/al/x/t.py -> path-1/t.py (the directory is aliased,
 *                         the file name kept; roots: /home /Users /scratch /srv
 *                         /data /work /lustre /gpfs /fsx /nfs /mnt /root)
 *   process ids           pid=1152        -> pid=pid-1 (numbers in a pid context:
 *                         "pid", "PID", "process N", NCCL's host:pid:tid,
 *                         nccl.host.pid.log, the pid of a glog prefix)
 * One struct redact holds the maps for a whole report, so an alias means the
 * same thing everywhere in it. Aliases are numbered in the order things are
 * first seen; callers register hosts (sorted) and pids (in rank order) first
 * so the numbering does not depend on which text happens to come first.
 * Loopback and unspecified addresses (127.0.0.1, ::1, 0.0.0.0) are kept. */
#ifndef NF_REDACT_H
#define NF_REDACT_H

#include <stdint.h>

struct redact;

struct redact *redact_new(void);
void redact_free(struct redact *r);

/* Registers a host name (and the first label of a dotted name) for the text
 * scanner; returns its alias. */
const char *redact_host(struct redact *r, const char *host);
/* Alias of a process id ("pid-3"), registered on first use. */
const char *redact_pid(struct redact *r, int64_t pid);
/* A new string (free it): s with known host names, addresses, user paths and
 * pids in context replaced by their aliases. NULL for NULL. */
char *redact_text(struct redact *r, const char *s);

#endif
