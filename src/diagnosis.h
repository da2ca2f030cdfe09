/* diagnosis.h: the model the diagnosis reasons on (one struct per rank, read
 * from rank_status and the other analysis tables) and the verdict it builds.
 * diagnosis_model.c loads, the rules of diagnosis_rules.h (diagnosis_*.c) decide,
 * diagnosis_write.c writes verdict, evidence and cascade. */
#ifndef NF_DIAGNOSIS_H
#define NF_DIAGNOSIS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "diagnosis_rules.h"
#include "util.h"

#define T_NONE INT64_MIN

struct rank_facts {
	int rank;
	char host[128];
	int local_rank;
	long events;
	int64_t first_t, last_t, last_progress_t;
	long last_step;
	int64_t last_step_t;
	int64_t first_error_t;
	char first_error_kind[48];
	int64_t first_error_event;
	int64_t first_timeout_t;
	bool exited;
	int exit_code;
	char exit_signal[16];
	int64_t exit_t;
	int64_t exit_event;
	bool sigterm_by_launcher, watchdog_abort, has_dump, init_complete;
	/* filled by the diagnosis */
	bool responsive;      /* logged or dumped around the first failure */
	bool nccl_file_only;  /* not responsive, and its only lines are NCCL's debug file: its silence tells nothing */
	bool frozen;          /* a watchdog that ran far past its timeout */
	int64_t frozen_event;
	const char *role;     /* "cause", "consequence", "detector", "healthy", "absent" */
};

struct cited {
	int64_t event_id;     /* > 0: an event (its line is cited) */
	int64_t source_id, line_no;
	char note[160];
};

struct verdict {
	const char *outcome, *cause, *confidence;
	int *culprits;
	size_t nculprits, culprits_cap;
	char pg[128];         /* display name of the group, "" if none */
	long seq;             /* -1 if none */
	char op[32];          /* the culprits' call */
	char peer_op[32];     /* the call their peers waited in, where it differs (RECV for a SEND) */
	int64_t first_failure_t;
	struct buf summary;
	struct cited *evidence;
	size_t nevidence, evidence_cap;
	char **missing;       /* what would have told more (v_missing), nmissing of them */
	int nmissing, missing_cap;
	const char *rule;     /* the rule that decided (diagnosis_rules.h) */
};

/* Statements asked per rank (thousands of times at 16,384 ranks), prepared
 * once per diagnosis (diag_stmt). */
enum diag_stmt_slot {
	DS_LAST_ENQUEUED,
	DS_PENDING_HANG,
	DS_PENDING_STATUS,
	DS_TRANSFER_HANG,
	DS_TRANSFER_COLL,
	DIAG_STMT_COUNT
};

struct diagnosis {
	sqlite3 *db;
	struct rank_facts *ranks;
	size_t nranks;
	int world;            /* world size the logs state, or nranks */
	int64_t t0;           /* first failure in the job (T_NONE: none) */
	bool completed;       /* the launcher or the app said it finished */
	bool any_dump;
	bool past_init;        /* some rank got past NCCL's init (rank_status.init_complete, or a training step logged) */
	bool has_fr;          /* the case has flight-recorder entries */
	int64_t stopped_t;    /* every launcher told to stop from outside (death signal; T_NONE: not) */
	int64_t teardown_t;   /* lost connections after a silent hang: its teardown (T_NONE: none) */
	int64_t absent_request_ev; /* the first failure: a dump request from a rank without logs (0: not) */
	struct verdict v;
	struct buf decline;   /* why the rule being tried declined (v_decline) */
	/* the job ended (diag_job_ended: -1 not yet known), and how it shows */
	int ended;
	bool ended_final_dumps, ended_destroyed;
	/* the ranks' calls disagree somewhere (diag_calls_disagree: -1 not yet
	 * known), from one pass over the collectives, kept for the completed rule */
	int disagree;
	void *collective_scan;
	int scan_maxrank;
	bool hang_views_built; /* hang_le & co. filled for this diagnosis (diagnosis_stall.c) */
	sqlite3_stmt *stmt[DIAG_STMT_COUNT]; /* diag_stmt()'s */
};

#include "diagnosis_limits.h"

/* SQL: each rank's oldest unfinished call in its flight recorder, the one
 * it waits in first (the later ones queue behind it on its GPU):
 * oldest(rank, pg, seq, op, state, t), t its creation time. */
#define SQL_WITH_OLDEST_UNFINISHED                                                                            \
	"WITH oldest AS (SELECT rank, pg, seq, op, state, min(time_created_us) t FROM collectives"              \
	"  WHERE evidence = 'flight recorder' AND state <> 'completed' AND rank IS NOT NULL"                    \
	"  AND time_created_us IS NOT NULL GROUP BY rank)"

/* diagnosis_model.c */
void diag_load(struct diagnosis *d, sqlite3 *db);
void diag_free(struct diagnosis *d);
/* The statement of slot, sql prepared the first time, reset and unbound
 * after that: the caller binds, steps and resets it (a statement left
 * running would lock the tables the rules drop and make again). */
sqlite3_stmt *diag_stmt(struct diagnosis *d, enum diag_stmt_slot slot, const char *sql);
struct rank_facts *diag_rank(struct diagnosis *d, int rank);
/* A rank of the job (below d->world) without a single line in the input. */
bool diag_rank_absent(struct diagnosis *d, int rank);
/* How long the ranks with logs had been silent at t: the shortest and the longest (T_NONE: no line before it). */
void diag_silence_at(struct diagnosis *d, int64_t t, int64_t *shortest, int64_t *longest);
/* How many ranks of the job have no line in the input. */
size_t diag_ranks_absent(struct diagnosis *d);
/* Whether n ranks stuck, or going past a call, alike at once are few enough
 * to each be a culprit (a node's ranks, the ranks that took one branch): at
 * most a third of the ranks. More say nothing of who started it: they wait
 * on something the collectives do not show. */
bool diag_few(const struct diagnosis *d, size_t n);
/* How many ranks have at least one line in the input. */
size_t diag_ranks_with_logs(struct diagnosis *d);
/* The verdict's culprits are every rank of host, and it has more than one. */
bool diag_culprits_whole_host(struct diagnosis *d, const char *host);
/* A group's name for the verdict: its description or name, else its key. */
const char *diag_pg_name(struct diagnosis *d, const char *pg, char *out, size_t n);
/* The same, and for a group only NCCL's split of a communicator names
 * (split:<parent id>:<colour>) its members: "split:0x...:7 (ranks 1, 3, 5)". */
const char *diag_pg_display(struct diagnosis *d, const char *pg, char *out, size_t n);
void diag_hosts_json(struct diagnosis *d, const int *ranks, size_t n, struct buf *out);
void fmt_time(int64_t t, char *out, size_t n);

/* verdict building */
void v_culprit(struct verdict *v, int rank);
bool v_has_culprit(const struct verdict *v, int rank);
/* Appends " N ranks HOW: <the culprits>." to the summary where the verdict
 * names more than one rank (ranks that did alike). */
void v_say_culprits(struct verdict *v, const char *how);
/* the call the peers waited in: peer_op where set, else op */
const char *v_peer_op(const struct verdict *v);
/* Empties the verdict for the next cause to try. */
void v_reset(struct verdict *v);
void v_cite_event(struct verdict *v, int64_t event_id, const char *note);
void v_cite_line(struct verdict *v, int64_t source_id, int64_t line_no, const char *note);
void v_missing(struct verdict *v, const char *fmt, ...) NF_PRINTF(2, 3);

/* the rules (their prototypes, order and families: diagnosis_rules.h);
 * a rule that does not decide says why: */
void v_decline(struct diagnosis *d, const char *fmt, ...) NF_PRINTF(2, 3);
/* Whether the job ended (the launcher or the app said so, a final dump with
 * every collective completed, every rank took down its communicators),
 * found once (diagnosis_complete.c). */
bool diag_job_ended(struct diagnosis *d);
/* Whether the ranks' calls differ somewhere (op, size or type at one seq of
 * a group), by one pass over the collectives, found once (diagnosis_complete.c). */
bool diag_calls_disagree(struct diagnosis *d);
/* diagnosis_unknown.c: where no cause was found, every rank failing with one
 * NCCL error (a shared setting or build): the outcome and summary say so */
bool diag_common_error(struct diagnosis *d);
/* diagnosis_death.c: a death from outside. The rank's process died of a
 * signal or an exit status that neither PyTorch's teardown nor an error of
 * its own explains; killed: by a signal; the first such death (T_NONE:
 * none); the first failure of the ranks other than except_rank and the
 * verdict's culprits. */
bool diag_external_exit(const struct rank_facts *r);
bool diag_killed_from_outside(const struct rank_facts *r);
int64_t diag_first_killed(struct diagnosis *d);
int64_t diag_others_first_failure(struct diagnosis *d, const struct verdict *v, int except_rank);
/* The first lost connection (closed by the remote end, NCCL's remote error)
 * if it is the job's first failure: at t0 (to the second), no watchdog timed
 * out before it. Its event (0 if none), its time in *when. */
int64_t diag_first_lost_connection(struct diagnosis *d, int64_t *when);
/* One rank waiting on a peer's transfer, by NCCL's Send/Recv lines (diagnosis_p2p.c): it posted more receives
 * from the peer than the peer posted sends to it, or more sends than the peer posted receives. */
struct transfer_wait {
	int waiter, peer;
	char pg[128];       /* the communicator's group, else its id */
	int64_t recvs, peer_sends, sends, peer_recvs;
	int64_t event;      /* the waiter's last transfer with the peer */
};
/* The rank's last call, by NCCL's COLL and Send/Recv lines, is a transfer, or its flight recorder has one
 * unfinished: it waits in a transfer (diagnosis_p2p.c). */
bool diag_last_call_is_transfer(struct diagnosis *d, int rank);
/* Every such wait, into *out (to free); how many. */
size_t diag_transfer_waits(struct diagnosis *d, struct transfer_wait **out);
/* The rank whose end of the waiter's last transfer (NCCL's Send/Recv lines) is missing: it posted the
 * matching one only after calls of a shared communicator the waiter never reached (it went on past the
 * transfer); its rank, with the wait in *w. -2: the peer posted fewer (*w says how many), -1: neither. */
int diag_transfer_skipper(struct diagnosis *d, int waiter, struct transfer_wait *w);
/* diagnosis_p2p.c: drops from the verdict's culprits those that wait on another culprit's transfer (NCCL's
 * Send/Recv lines: one end posted more than the other matched), listed into *dropped; how many (none if
 * every one waits) */
size_t diag_drop_transfer_waiters(struct diagnosis *d, struct buf *dropped);
/* diagnosis_absent.c: whole nodes are missing, and a group timed out in a call every member with logs entered */
bool diag_waits_on_absent(struct diagnosis *d);
/* Whether a rank shows less of a group than another member did when the job
 * hung (the hang views of diagnosis_stall.c: what each rank had enqueued) */
bool diag_any_behind(struct diagnosis *d);
void diag_responsiveness(struct diagnosis *d);
/* The collective the culprits' peers waited on first (pg key, seq, op, the
 * event that says so): the earliest-started timed-out collective, in a group
 * a culprit belongs to when the members are known. */
void diag_first_wait(struct diagnosis *d, char *pg, size_t pgn, long *seq, char *op, size_t opn, int64_t *ev);
/* The call the group's history predicts at seq (the shortest period that
 * repeats over its known past): its operation, input size (-1 unknown) and
 * element type ("" unknown). false when the history says nothing. */
bool diag_predict_call(struct diagnosis *d, const char *pg, long seq, char *op, size_t opn, int64_t *numel_in,
		       char *dtype, size_t dn);
/* The same, written into the verdict's group, seq and op where unset; returns the event. */
int64_t diag_wait_into_verdict(struct diagnosis *d);

/* diagnosis_write.c */
void diag_write(struct diagnosis *d);

/* helpers for SQL in the diagnosis files */
int64_t q_int(sqlite3 *db, int64_t def, const char *sql, ...);
bool q_text(sqlite3 *db, char *out, size_t n, const char *sql, ...);


/* The rank's watchdog timed out in a point-to-point transfer (or a batch of
 * them): it waited for a peer's send or receive. */
bool diag_waits_in_transfer(struct diagnosis *d, int rank);
/* Operations whose sizes differ between ranks by design (transfers, uneven
 * all-to-all, gather, scatter, batches): never a mismatch. As SQL, and
 * diag_op_uncompared() for C. */
#define DIAG_UNCOMPARED_OPS "'SEND','RECV','ALLTOALL','GATHER','SCATTER','COALESCED'"
bool diag_op_uncompared(const char *op);
/* An event (of the events table, unaliased) that is a sticky CUDA error of
 * the process's own GPU work, after which every CUDA call of the process
 * fails, NCCL's included: NCCL's "Cuda failure '...'" and PyTorch's copy of
 * it under "Last error:". */
#define DIAG_CUDA_STICKY                                                                                   \
	"(kind IN ('nccl_cuda_failure', 'nccl_last_error_text') AND (field(fields, 'msg') LIKE"              \
	" '%illegal memory access%' OR field(fields, 'msg') LIKE '%device-side assert%' OR field(fields,"     \
	" 'msg') LIKE '%misaligned address%' OR field(fields, 'msg') LIKE '%illegal instruction%' OR"         \
	" field(fields, 'msg') LIKE '%unspecified launch failure%' OR field(fields, 'msg') LIKE"              \
	" '%uncorrectable ECC%'))"
/* The event ids of the lines that say the job ended well, a query: torchrun's
 * "worker group successfully finished", MLPerf's run_stop with status
 * success, Lightning's "`Trainer.fit` stopped: `max_epochs=N` reached", and
 * the DeepSpeed launcher's "Process P exits successfully" for
 * every process it spawned when none failed. */
#define JOB_SUCCESS_SQL                                                                                    \
	"SELECT event_id FROM events WHERE kind = 'torchrun_group_finished'"                                 \
	" UNION ALL SELECT event_id FROM events WHERE kind = 'mlperf_run_stop' AND field(fields, 'status') = 'success'" \
	" UNION ALL SELECT event_id FROM events WHERE kind = 'lightning_fit_stopped'"                        \
	" UNION ALL SELECT event_id FROM events WHERE kind = 'launcher_worker_ok'"                            \
	"  AND NOT EXISTS (SELECT 1 FROM events WHERE kind = 'launcher_worker_failed')"                      \
	"  AND (SELECT count(DISTINCT field(fields, 'pid')) FROM events WHERE kind = 'launcher_worker_ok') >=" \
	"      max(1, (SELECT count(DISTINCT field(fields, 'pid')) FROM events WHERE kind = 'launcher_spawned'))"
/* For the rules of lines that name no rank: declines (and says why) when
 * a rank's process ended with a failure or the lines name a rank with a
 * failure, which the rules that name ranks judge; false otherwise. */
bool diag_declines_named_ranks(struct diagnosis *d);
/* For a verdict that names no call: the group, sequence number and
 * operation the watchdogs timed out in (diagnosis_reported.c), said in its
 * summary. */
void diag_note_timeout_site(struct diagnosis *d);
/* What showed a responsive rank alive: "it answered the dump request" or
 * "it logged after the first failure". */
const char *diag_alive_sign(const struct rank_facts *r);
/* "rank 6 (gpu-node04, local rank 0)" */
void rank_desc(struct diagnosis *d, int rank, struct buf *out);
/* qsort order of ints, ascending */
int cmp_int(const void *a, const void *b);
/* "2, 3" / "0-5, 8" */
void fmt_rank_list(const int *ranks, size_t n, struct buf *out);
#endif
