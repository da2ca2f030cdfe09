/* progress.h: one progress line on stderr during long ingests, when stderr
 * is a terminal: members and bytes done and the rate. Silent otherwise. */
#ifndef NF_PROGRESS_H
#define NF_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
	bool on;
	uint64_t bytes, members;
	double start, last;
	bool shown;
};

void progress_init(struct progress *p, bool wanted);
void progress_update(struct progress *p, uint64_t add_bytes, uint64_t add_members);
void progress_done(struct progress *p);

#endif
