/* synth.h: `ncclforensic synth` builds a large, realistic job from a real one
 * by cloning its nodes (see docs in cmd_synth.c's usage and BENCHMARKS.md).
 *
 * The model: the input job has W ranks on K nodes; node n owns the global
 * ranks [first_rank, first_rank + nranks). The output has N ranks: copy c of
 * node n holds ranks r + c*W, so every copy is a data-parallel replica that
 * behaves like the original (same steps, same sequence numbers, same fault).
 * The last copy may hold only the first nodes (N need not be a multiple of W,
 * only a sum of whole nodes).
 *
 * What is renamed, per copy c (copy 0 keeps the original values except where
 * the size of the job shows: world size, node count, group sizes, host-name
 * width):
 *   - host names (numbered scheme when the hosts are <prefix><number>),
 *     node directories, torchrun run-id directories;
 *   - global ranks, node indexes (torchrun group_rank), pids and tids;
 *   - process groups: a group whose members sit on one node (tpN) is local:
 *     each copy gets its own instance (new GUID, description renumbered, same
 *     size); any other group (default_pg, dpL) spans: one group over all
 *     copies, same GUID and description, its members and ranks-in-group
 *     renumbered;
 *   - NCCL communicators likewise: local ones get a new commId / split color
 *     per copy, spanning ones keep them and grow (nranks, nNodes, ranks in
 *     the communicator); communicator pointers are remapped per copy.
 *
 * Files: synth.c (input, model, plan, output, flight-recorder dumps),
 * synth_rewrite.c (line templates: where in a line each renamed value sits). */
#ifndef NF_SYNTH_H
#define NF_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct synth_opts {
	const char *from;   /* input job (archive or directory) */
	const char *output; /* .tar.gz written */
	long ranks;         /* N */
	uint64_t seed;
	bool quiet;
};

/* Returns an NF_EXIT_* code; messages go to stderr. */
int synth_run(const struct synth_opts *o);

/* ---- internal: shared by synth.c and synth_rewrite.c ---- */

/* A string -> int map (open addressing; keys copied). */
struct smap {
	struct smap_slot *slots;
	size_t cap, n;
};
void smap_put(struct smap *m, const char *key, size_t len, long value);
/* The value, or -1 when absent. */
long smap_get(const struct smap *m, const char *key, size_t len);
void smap_free(struct smap *m);

struct syn_node {
	char *dir;          /* its directory below the job root */
	char *host;         /* its host name */
	long host_num;      /* trailing number of host, -1 if none */
	int first_rank, nranks;
	int index;          /* node index in rank order (torchrun group_rank) */
	bool real;          /* false: a directory that shows no rank, copied once */
};

struct syn_group {
	char *guid, *desc;
	int *ranks;         /* global ranks, sorted; all known members */
	size_t nranks;
	bool members_known; /* from a flight-recorder pg_config */
	bool local;         /* all members on one node */
	int node;           /* local: that node */
	/* the new GUID when GUIDs are numbers: spanning: new_guid; local:
	 * run_base + c * run_len + run_pos (run_ppos in the partial copy) */
	long new_guid, run_base, run_len, run_pos, run_ppos;
	/* description <prefix><num>: local copies renumber num + c * desc_span */
	size_t desc_prefix;
	long desc_num, desc_span;
	char *ranks_str;    /* spanning: the new "[0, 1, ...]" (built once) */
};

struct syn_comm {
	int nranks, nnodes;  /* original */
	int *members;        /* comm rank -> global rank (-1 unknown) */
	bool local;
	int node;
	int new_size, new_nnodes; /* spanning */
};

enum slot_kind {
	SL_LIT = 0, /* literal bytes */
	SL_HOST,    /* a: node */
	SL_NODEDIR, /* a: node */
	SL_RUNID,   /* a: node; b: length of the prefix kept; the text is the original component */
	SL_RANK,    /* a: global rank */
	SL_NODE,    /* a: node index */
	SL_PID,     /* a: pid or tid */
	SL_WORLD,   /* world size */
	SL_NNODES,  /* node count */
	SL_CRANK,   /* a: comm, b: rank in comm */
	SL_CSIZE,   /* a: comm, b: original size */
	SL_CNODES,  /* a: comm, b: original nNodes */
	SL_COMMID,  /* a: comm, b: original commId */
	SL_COLOR,   /* a: comm, b: original color */
	SL_PTR,     /* b: original pointer */
	SL_PGRANK,  /* a: group, b: rank in group */
	SL_GUID,    /* a: group */
	SL_DESC,    /* a: group */
};

struct synth {
	const struct synth_opts *o;
	/* input */
	char *root;              /* "job-big/" or "" */
	struct syn_node *nodes;  /* every directory below the root */
	size_t nnodes;
	int knodes;              /* K: the real ones (nodes) */
	struct syn_group *groups;
	size_t ngroups;
	struct syn_comm *comms;
	size_t ncomms;
	struct smap group_by_guid, group_by_desc;
	struct smap comm_by_key; /* "id:<commId>" / "split:<color>:<count>" -> comm */
	struct smap comm_by_ptr; /* "<node>:<pid>:<ptr>" -> comm */
	struct smap proc_rank;   /* "<node>:<pid>" -> global rank */
	struct smap pids;        /* pids seen (keys: decimal text) */
	int world;               /* W */
	long max_pid;
	/* scan state */
	struct syn_scan *scan;
	/* plan */
	long ranks;              /* N */
	int full_copies, rem_nodes, rem_ranks; /* N = full_copies * W + rem_ranks (rem_nodes nodes) */
	int copies;              /* full_copies + (rem_nodes > 0) */
	int total_nodes;
	char host_prefix[64];    /* numbered host scheme, "" when not used */
	int host_width;
	long host_num_min;
	long pid_stride;
};

/* synth_rewrite.c: a member's text (or path) as a template; render per copy. */
void tpl_compile_text(struct synth *s, int node, const char *text, size_t len, struct buf *tpl);
void tpl_compile_path(struct synth *s, int node, const char *rest, struct buf *tpl);
void tpl_render(const struct synth *s, const unsigned char *tpl, size_t n, int copy, struct buf *out);
/* Scans a text member for the model (hosts, ranks, processes, comms, groups). */
void synth_scan_text(struct synth *s, int node, const char *text, size_t len);

/* synth.c: the mapping functions the renderer and the pickle writer share. */
void syn_host_name(const struct synth *s, int node, int copy, struct buf *out);
long syn_pid(const struct synth *s, long pid, int copy);
int syn_comm_rank(const struct synth *s, int comm, int rank, int copy);
int syn_group_rank(const struct synth *s, int group, int rank, int copy);
void syn_guid(const struct synth *s, int group, int copy, struct buf *out);
void syn_desc(const struct synth *s, int group, int copy, struct buf *out);
uint64_t syn_mix(uint64_t a, uint64_t b);

/* synth.c: what the scan of the input finds (pass 1). */
int syn_group_note(struct synth *s, const char *guid, size_t guid_len, const char *desc, size_t desc_len);
void syn_group_member(struct synth *s, int group, int rank, int pg_rank);
void syn_rank_on_node(struct synth *s, int node, int rank);
void syn_host_on_node(struct synth *s, int node, const char *host, size_t len);
/* An NCCL init line: rank crank of comm, written by process (node, pid);
 * world: a ncclCommInitRank* line (a candidate world communicator). */
void syn_note_init(struct synth *s, int comm, int crank, int node, long pid, bool world);

#endif
