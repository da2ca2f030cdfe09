/* line_glue.h: lines glued together by two streams sharing one file. A
 * program's stdout (nccl-tests' result rows, buffered) and NCCL's stderr
 * lines (unbuffered) interleave in one console: a row's pieces end up in
 * front of NCCL lines ("     8388608   2097152  float  sum  -1mew0:649:649
 * [1] NCCL INFO ..."), and the row's end on a line of its own. This finds
 * the NCCL line inside such a line, keeps the pieces before it, and gives
 * them back joined to the line that ends them, so that both become events;
 * the lines table keeps the physical lines as they were. */
#ifndef NF_LINE_GLUE_H
#define NF_LINE_GLUE_H

#include <stdbool.h>
#include <stddef.h>

#define GLUE_FRAGMENT_MAX 512
#define GLUE_HOSTS 4
#define GLUE_THREADS 256
/* lines a host must have printed before a cut name is taken for it */
#define GLUE_HOST_ESTABLISHED 8

struct line_glue {
	char frag[GLUE_FRAGMENT_MAX]; /* the pieces of the other stream so far */
	size_t frag_len;
	char hosts[GLUE_HOSTS][64];   /* NCCL hosts seen at the start of a line */
	size_t host_len[GLUE_HOSTS];
	long host_lines[GLUE_HOSTS];  /* lines seen from each */
	int nhosts;
	/* pid:tid of the lines of each host, a ring of the last ones seen */
	long pid[GLUE_THREADS], tid[GLUE_THREADS];
	unsigned char host_of[GLUE_THREADS];
	int nthreads, next_thread;
	long last_pid, last_tid; /* the last line's, and its host's slot (last_host) */
	int last_host;
};

/* An NCCL line's host seen at the start of a line, with its pid and tid.
 * A host cut by the other stream ("xn0" for "x3006c0s19b1n0": a piece of its
 * name missing) whose pid:tid is one a known host printed is that host:
 * returned (its length in *len), else NULL. */
const char *glue_note_host(struct line_glue *g, const char *host, size_t *len, long pid, long tid);
/* The offset (> 0) at which an NCCL line ("host:pid:tid [dev] NCCL ...")
 * begins inside line (one that is not an NCCL line from its first byte),
 * whose host is one seen before at the start of a line, with a piece of
 * another stream before it (digits, words, blanks: what nccl-tests
 * prints); 0 when there is none. */
size_t glue_nccl_at(const struct line_glue *g, const char *line, size_t len);
/* The offset (> 0) at which one of PyTorch's lines ("[rankN]:[E ...")
 * begins inside an NCCL line (or libfabric's), which the other stream cut
 * there; 0 when there is none. */
size_t glue_pytorch_at(const struct line_glue *g, const char *line, size_t len);
/* Keeps a piece before a glued NCCL line. */
void glue_keep(struct line_glue *g, const char *s, size_t n);
/* The pieces kept joined to line into out (cap bytes): its length, 0 when
 * nothing is kept or it does not fit. The pieces are dropped either way.
 * Not for an NCCL line: the other stream's lines come between the pieces
 * (the caller, which knows the line's family, keeps them then). */
size_t glue_join(struct line_glue *g, const char *line, size_t len, char *out, size_t cap);

#endif
