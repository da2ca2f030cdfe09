/* member_classify.h: what an input member is, from its path and first bytes,
 * and what its path says about who wrote it. */
#ifndef NF_MEMBER_CLASSIFY_H
#define NF_MEMBER_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>

enum source_kind {
	SK_RANK_LOG,        /* one rank's stdout/stderr (torchrun attempt_N/<local_rank>/, rankN.log) */
	SK_CONSOLE,         /* a launcher console with every worker's lines ([default0]: prefixes) */
	SK_NCCL_DEBUG,      /* NCCL_DEBUG_FILE output of one process */
	SK_FLIGHT_RECORDER, /* flight-recorder pickle */
	SK_ERROR_JSON,      /* torchrun error.json */
	SK_DMESG,           /* kernel ring buffer */
	SK_SYSLOG,          /* syslog / kern.log / messages */
	SK_JOURNAL,         /* journalctl output */
	SK_NCCL_TESTS,      /* nccl-tests *_perf output */
	SK_TEXT,            /* other text */
	SK_BINARY,          /* not text */
	SK_EMPTY,           /* no bytes */
	SK_LINK,            /* symlink or hardlink entry (recorded, never followed) */
	SK_ARCHIVE,         /* a nested archive or compressed file (its members are sources) */
	SK_OTHER,           /* device, fifo, ... entries */
	SK_COUNT
};
const char *source_kind_name(enum source_kind k);

struct member_class {
	enum source_kind kind;
	int path_rank;        /* from rank<N> / trace_rank_<N> in the name, -1 */
	int path_local_rank;  /* from .../attempt_<n>/<local_rank>/std{out,err}.log, -1 */
	bool srun_labels;     /* first line carries an srun --label */
};

/* Classifies a member from its path and its first bytes. */
void member_classify(const char *path, const unsigned char *head, size_t n, struct member_class *mc);

/* True when the bytes look like text (few control bytes, mostly UTF-8). */
bool looks_like_text(const unsigned char *head, size_t n);

#endif
