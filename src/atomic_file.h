/* atomic_file.h: a file that is complete or absent under its name. It is
 * written as a temporary file beside the target (".NAME.tmp-XXXXXX"), locked
 * while its writer lives, flushed to the disk with its directory, then
 * renamed over the target (a symlink at the target is replaced, never
 * written through). Temporary files whose writer died (SIGKILL, a power
 * cut) are removed by the next writer in that directory: only unlocked ones
 * that are empty or SQLite databases (a case's), never a running writer's. */
#ifndef NF_ATOMIC_FILE_H
#define NF_ATOMIC_FILE_H

#include <stdbool.h>

#include "util.h"

struct atomic_file {
	char *target;
	char *tmp;  /* the temporary file's path */
	int fd;     /* open on tmp, holding its lock */
};

/* Creates the locked temporary file for target (after removing the dead
 * writers' ones in its directory). -1 with err ("cannot write WHAT in DIR:
 * why"; what: "the case", "the report"). */
int atomic_file_begin(struct atomic_file *af, const char *target, const char *what, struct errbuf *err);
/* The file is created 0600; this gives it the mode a new file would have
 * (0666 less the umask), for outputs meant to be shared (reports). */
void atomic_file_default_mode(struct atomic_file *af);
/* Flushes the temporary file and its directory to the disk and renames it
 * over the target. -1 with err (the temporary file is removed then). */
int atomic_file_commit(struct atomic_file *af, struct errbuf *err);
/* Removes the temporary file; the target is left as it was. */
void atomic_file_abort(struct atomic_file *af);
/* Removes temporary files of dead writers beside target; their count. */
int atomic_file_sweep(const char *target);

#endif
