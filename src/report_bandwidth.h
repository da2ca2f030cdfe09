/* report_bandwidth.h: the Bandwidth part of `ncclforensic report`: the
 * nccl-tests runs of the case (table bandwidth, written by
 * analysis_bandwidth.c) as a table, their findings, a JSON array and, in
 * HTML, a log-log chart of bus bandwidth against message size.
 *
 * Like the rest of the report it is loaded from the case once (with the
 * report's redaction) and then written by every format:
 *   report_model_load()  m->bandwidth = bw_report_load(db, redact);
 *   report_compose()     rc_bandwidth(&c);          Markdown, text, HTML
 *   report_json()        bw_report_json(m->bandwidth, out, depth);
 *   HTML sink            figure(ctx, svg) draws bw_report_svg()'s chart
 * A case without nccl-tests output gives an empty report: no section, an
 * empty JSON array. */
#ifndef NF_REPORT_BANDWIDTH_H
#define NF_REPORT_BANDWIDTH_H

#include <sqlite3.h>

#include "util.h"

struct redact;
struct rcomp;
struct bw_report;

/* Never NULL; r (may be NULL) redacts sources, hosts, settings and findings. */
struct bw_report *bw_report_load(sqlite3 *db, struct redact *r);
void bw_report_free(struct bw_report *b);
size_t bw_report_runs(const struct bw_report *b);

/* The "Bandwidth" section through the report's sink (nothing without runs). */
void rc_bandwidth(struct rcomp *c);
/* ,\n<indent>"bandwidth": [...] at the given depth of report_json's object. */
void bw_report_json(const struct bw_report *b, struct buf *out, int depth);
/* The chart, one <svg> element: busbw (out of place) against size, log-log,
 * one line per run. Nothing without runs. */
void bw_report_svg(const struct bw_report *b, struct buf *out);

#endif
