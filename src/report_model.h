/* report_model.h: what `ncclforensic report` writes, loaded from a case once
 * (through SQL) into plain structs, and the writers that turn it into
 * Markdown, text, JSON and HTML.
 *
 * Conventions of the model: a string is NULL where the case has SQL NULL;
 * an integer is RM_NONE where the case has NULL; arrays come with their
 * count. With redaction on, every string is already redacted when loaded
 * (host names, addresses, user paths, pids in text) and pid_str holds the
 * pid's alias, so writers never see the original values. */
#ifndef NF_REPORT_MODEL_H
#define NF_REPORT_MODEL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

#define RM_NONE INT64_MIN

struct bw_report; /* report_bandwidth.h */

struct rm_ints {
	int64_t *v;
	size_t n;
};
struct rm_strs {
	char **v;
	size_t n;
};

/* A cited input line: {"source": path, "line": n, "text": ...}. */
struct rm_evidence {
	const char *source;
	int64_t line;
	const char *text;
	const char *note;
	int64_t src; /* its source_id */
};

struct rm_finding {
	const char *kind, *severity, *summary, *hint;
	struct rm_ints ranks;
	struct rm_strs hosts;
	struct rm_evidence *ev;
	size_t n_ev;
};

struct rm_cascade {
	int64_t ord, rank, time_us, offset_ms;
	const char *host, *what, *role;
};

struct rm_rank {
	int64_t rank, local_rank, pid, cuda_dev;
	const char *host, *pid_str, *bus_id, *pci;
	bool culprit;
	/* rank_status (RM_NONE / NULL when the analysis has not filled it);
	 * role: cause, detector, consequence, ... */
	int64_t last_step, last_step_us, first_error_us, exit_code, exit_us, first_us, last_us;
	const char *first_error_kind, *exit_signal, *role;
};

struct rm_net {
	const char *host, *pid_str, *bootstrap_if, *bootstrap_addr, *socket_ifname_env, *ib_hca_env;
	const char *net_plugin, *net_devices, *network, *gdr, *transports, *comm_id;
	const char *transport_kinds; /* the names of a {"P2P/CUMEM": 26, ...} transports map */
	int64_t rank;
};

struct rm_config {
	const char *host, *name, *value, *origin;
	int64_t rank;
};

struct rm_sysmsg {
	const char *host, *kind, *device, *code, *text;
	int64_t time_us, rank;
};

struct rm_source {
	const char *path, *kind, *host, *skip_reason, *error;
	int64_t rank, lines, skipped;
};

/* Up to this many ranks the timeline has a row per rank (and step markers
 * carry their lines); above it rows collapse (report_svg.c). */
#define RM_RANK_ROWS 64

enum rm_mark { MK_STEP, MK_TIMEOUT, MK_ERROR, MK_EXIT, MK_DUMP, MK_SYSMSG, MK_COUNT };

/* A point on the timeline of one rank (rank RM_NONE: a host's system message).
 * Where it comes from: the source's path and line (line RM_NONE: source
 * names a table, such as rank_status). host, label and source are shared
 * between markers (one copy of each distinct string). */
struct rm_marker {
	int64_t rank, time_us, step, line;
	int64_t order; /* the last sort key: the event's id (markers of no event after those) */
	enum rm_mark mark;
	const char *host, *label, *text, *source;
};

struct report_model {
	/* verdict (has_verdict false: the table is empty; then "unknown") */
	bool has_verdict;
	const char *outcome, *cause, *process_group, *op, *confidence, *summary;
	const char *rule; /* the diagnosis rule that decided, NULL when the case does not say */
	struct rm_ints culprit_ranks;
	struct rm_strs culprit_hosts;
	int64_t seq, first_failure_us;
	struct rm_strs missing;
	bool missing_null;
	struct rm_evidence *ev;
	size_t n_ev;

	struct rm_finding *findings;
	size_t n_findings;
	struct rm_cascade *cascade;
	size_t n_cascade;
	struct rm_rank *ranks;
	size_t n_ranks;
	struct rm_strs hosts; /* distinct, sorted by name (aliases when redacted) */
	struct rm_net *net;
	size_t n_net;
	struct rm_config *config;
	size_t n_config;
	struct rm_sysmsg *sysmsgs;
	size_t n_sysmsgs;
	struct rm_source *sources;
	size_t n_sources;
	struct rm_marker *markers; /* only with opts.timeline; by rank, then time */
	size_t n_markers;

	/* job facts */
	const char *input, *tool_version;
	int64_t input_bytes, members, lines, skipped_lines, first_us, last_us;
	struct rm_strs nccl_versions, torch_versions;

	struct bw_report *bandwidth; /* nccl-tests runs (report_bandwidth.h); never NULL once loaded */

	bool redacted;
	struct rm_strs pool; /* every string above, freed together */
};

struct report_opts {
	bool redact;
	bool timeline; /* load the markers of the HTML timeline */
};

/* Loads the whole report; -1 with err when the case cannot be read. */
int report_model_load(sqlite3 *db, const struct report_opts *o, struct report_model *m, struct errbuf *err);
void report_model_free(struct report_model *m);

/* The rank's entry, or NULL. */
const struct rm_rank *rm_rank_find(const struct report_model *m, int64_t rank);

/* Formatting shared by the writers (each appends to b). */
void rm_fmt_time(struct buf *b, int64_t us);          /* 2026-11-29T23:50:42.457Z, "-" for none */
void rm_fmt_offset(struct buf *b, int64_t ms);        /* +0 ms, +1.2 s, -3 min 5 s */
void rm_fmt_duration(struct buf *b, int64_t us);      /* 46.5 s, 3 min 2 s, 1 h 4 min */
/* 0-1, 3, 5-7 (sorted); after max_parts parts (0: no limit) ", ...", and
 * then true. */
bool rm_fmt_ranks(struct buf *b, const int64_t *r, size_t n, size_t max_parts);
const char *rm_mark_name(enum rm_mark k);

/* ---- writers ---------------------------------------------------------- */

/* Inline markup inside block text: RI_CODE...RI_CODE is a code span,
 * RI_BOLD...RI_BOLD strong text. Each sink renders or drops them. */
#define RI_CODE "\x01"
#define RI_BOLD "\x02"

struct report_table {
	size_t ncols, nrows;
	const char *const *head;
	char **cells; /* nrows * ncols, row-major, inline text */
	bool *hi;     /* nrows: highlighted (a difference, the culprit) */
};

/* The blocks a report is made of. Markdown, text and HTML are sinks of the
 * same composition (report_compose), so they say the same things. */
struct report_sink {
	void *ctx;
	void (*title)(void *ctx, const char *inl);
	void (*section)(void *ctx, const char *name, const char *id);
	void (*para)(void *ctx, const char *inl);
	void (*item)(void *ctx, const char *inl); /* consecutive items make a list */
	void (*table)(void *ctx, const struct report_table *t);
	void (*quote)(void *ctx, const char *cite, const char *note, const char *text);
	void (*timeline)(void *ctx, const struct report_model *m); /* NULL: none */
	void (*done)(void *ctx);
	void (*figure)(void *ctx, const char *svg); /* an inline <svg> chart; NULL: none */
};

void report_compose(const struct report_model *m, const struct report_sink *s);

/* Building blocks of the composition (report_sections.c). */
struct rcomp {
	const struct report_model *m;
	const struct report_sink *s;
	struct buf b; /* the block being built */
};
struct rc_tb { /* a table being built; rc_table emits and frees it */
	size_t ncols, nrows, cap;
	const char *const *head;
	char **cells;
	bool *hi;
};
void rc_text(struct buf *b, const char *s); /* data as inline text (markup bytes replaced) */
void rc_code(struct buf *b, const char *s); /* data as a code span ("-" for NULL) */
char *rc_take(struct buf *b);               /* the buffer's string, which the caller owns */
void rc_para(struct rcomp *c);              /* c->b as a paragraph, then cleared */
void rc_item(struct rcomp *c);              /* c->b as a list item, then cleared */
void rc_row(struct rc_tb *t, bool hi, ...); /* t->ncols cells (char *, owned by t) */
void rc_table(struct rcomp *c, struct rc_tb *t);
char *rc_str(const char *s, const char *def); /* new cell text */
char *rc_int(int64_t v, const char *def);
char *rc_tod(int64_t us); /* time of day: 23:50:42.457Z */
/* "rank 2", "ranks 0-5", "171 ranks (2, 8, 14, ...)" */
void rc_ranks(struct buf *b, const int64_t *r, size_t n, size_t max_parts);
bool rc_is_config(const char *finding_kind);
int rc_severity(const char *severity); /* 0 error, 1 warning, 2 info, 3 other */
/* Sections. */
void rc_findings(struct rcomp *c, bool config); /* findings (config: the configuration ones) */
void rc_network(struct rcomp *c);
void rc_sysmsgs(struct rcomp *c);
void rc_config(struct rcomp *c);
void rc_remediation(struct rcomp *c);
void rc_missing(struct rcomp *c);
void rc_job(struct rcomp *c);

/* Each writer appends the whole document to out. */
void report_md(const struct report_model *m, struct buf *out);
void report_text(const struct report_model *m, int width, struct buf *out);
void report_json(const struct report_model *m, struct buf *out);
void report_html(const struct report_model *m, struct buf *out);
/* The timeline as an inline <svg> element (report_svg.c). */
void report_svg(const struct report_model *m, struct buf *out);
/* The ranks whose markers the timeline draws (its rows' ranks), from the
 * markers alone: their texts are read for these ranks only. */
size_t report_svg_drawn_ranks(const struct report_model *m, int64_t **ranks);
/* XML/HTML text escaping (invalid UTF-8 and control characters replaced). */
void report_xml_esc(struct buf *b, const char *s);

#endif
