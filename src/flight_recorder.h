/* flight_recorder.h: PyTorch flight-recorder dumps (pickles) into events.
 *
 * Events written (line_no is 0 for the dump itself and for its groups, and
 * the entry's position, from 1, for entries):
 *   fr_dump       version, comm_lib_version, rank, entries
 *   fr_pg_config  pg_name, pg_desc, ranks
 *   fr_pg_status  pg_id, pg_name, pg_desc, last_enqueued, last_started, last_completed
 *   fr_entry      record_id, pg_id, pg_name, pg_desc, seq, p2p_seq, op_id, op, profiling_name,
 *                 numel_in, numel_out, in_sizes, out_sizes, dtype, state, time_created_us,
 *                 time_started_us, time_completed_us, duration_ms, timeout_ms, is_p2p,
 *                 retired, frame */
#ifndef NF_FLIGHT_RECORDER_H
#define NF_FLIGHT_RECORDER_H

#include <stdint.h>

#include "archive_walk.h"
#include "ingest.h"
#include "util.h"

typedef void (*event_emit_fn)(void *ctx, const struct event_rec *e);

/* Reads the pickle in ms (never executing anything) and emits its events.
 * path_rank is the rank the file name gives (-1 if none); a "rank" key in
 * the dump wins; order is the member's place in the load's order (see
 * fr_config_first). *lines and *bytes get the member's line count (newline
 * bytes) and size. Returns -1 with err when the pickle is refused. */
int fr_ingest(struct member_stream *ms, const char *path, int path_rank, uint64_t order, event_emit_fn emit,
	      void *ctx, long *lines, uint64_t *bytes, struct errbuf *err);

/* fr_ingest writes every dump's process-group configurations (events
 * fr_pg_config with the configuration's hash in dedupe; a copy of one that a
 * dump earlier in the load's order carries has dup set and no fields); the
 * load stores each once: true the first time this hash is given since
 * fr_forget_configs(). */
bool fr_config_first(uint64_t hash);
/* Forgets the group configurations seen (one ingest). */
void fr_forget_configs(void);

/* A transfer's direction from its operation as the recorder names it
 * without the "nccl:" prefix ("send 0->2", "recv 2<-0"), with the peer's
 * rank in the group in *peer; FR_NOT_TRANSFER for anything else. */
enum fr_transfer { FR_NOT_TRANSFER, FR_SEND, FR_RECV };
enum fr_transfer fr_transfer_of(const char *op, int *peer);

#endif
