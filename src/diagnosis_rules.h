/* diagnosis_rules.h: the rules of the diagnosis, in the order they are
 * tried. This one table gives the driver its order (analysis_diagnosis.c),
 * the rules' prototypes, `analyze --explain`, the diagnosis_rules table of
 * the case and the rule numbers of docs/diagnosis.md (checked against it by
 * tests/t_docs.sh).
 *
 * RULE(id, family, fn, reads, what)
 *   id      the rule's name: verdict.rule, diagnosis_rules.rule
 *   family  when it is tried (enum diag_family): CRASH always; HANG when a
 *           failure was logged; END when none was; UNTIMED when none was
 *           and the job did not end either; LAST when no rule decided
 *   fn      bool fn(struct diagnosis *d): true when the rule decided the
 *           verdict (d->v); otherwise it declined, and says why with
 *           v_decline(d, ...)
 *   reads   the tables of the case it reasons on (what --explain counts)
 *   what    what it decides, in one line */
#ifndef NF_DIAGNOSIS_RULES_H
#define NF_DIAGNOSIS_RULES_H

#include <stdbool.h>

struct diagnosis;

enum diag_family {
	DIAG_CRASH,   /* always tried */
	DIAG_HANG,    /* a failure was logged (a timeout, an error, an exit) */
	DIAG_END,     /* no failure was logged */
	DIAG_UNTIMED, /* no failure was logged and the job did not end */
	DIAG_LAST,    /* no rule before decided */
};

#define DIAG_RULES(RULE)                                                                                      \
	RULE(stopped, DIAG_CRASH, diag_stopped, "events rank_status",                                           \
	     "the whole job was stopped from outside while every rank ran")                                     \
	RULE(steps_behind, DIAG_CRASH, diag_steps_behind, "events",                                             \
	     "a time limit after a few ranks stopped printing steps: they hung first")                           \
	RULE(cancelled, DIAG_CRASH, diag_cancelled, "events rank_status",                                       \
	     "the scheduler cancelled the job (time limit, preemption, scancel) before anything failed")        \
	RULE(hardware, DIAG_CRASH, diag_hardware, "sysmsgs rank_status",                                        \
	     "a GPU fault or a lost link on a rank's host before the failure")                                  \
	RULE(before_init, DIAG_CRASH, diag_before_init, "rank_status events",                                   \
	     "ranks that never reached their communicators' init")                                              \
	RULE(init_failure, DIAG_CRASH, diag_init_failure, "events rank_status",                                 \
	     "NCCL's init failed (a setting, an interface, a transport)")                                       \
	RULE(init_error_text, DIAG_CRASH, diag_init_error_text, "events collectives",                          \
	     "an error of NCCL's set-up in lines that name no rank, before any collective ran")                 \
	RULE(check_mismatch, DIAG_CRASH, diag_check_mismatch, "events",                                         \
	     "PyTorch's collective check (TORCH_DISTRIBUTED_DEBUG=DETAIL) found different calls")                \
	RULE(check_skip, DIAG_CRASH, diag_check_skip, "events",                                                  \
	     "a rank went past a check its group waited in")                                                    \
	RULE(app_exception, DIAG_CRASH, diag_app_exception, "events rank_status",                               \
	     "a rank's own exception (Python, CUDA) before any timeout")                                        \
	RULE(crash_signal, DIAG_CRASH, diag_crash_signal, "events procs rank_status",                            \
	     "processes whose crash handler caught a fault (SIGSEGV, SIGBUS, ...)")                            \
	RULE(rank_exited, DIAG_CRASH, diag_rank_exited, "rank_status events",                                   \
	     "a rank's process died (a signal, an exit code) first")                                            \
	RULE(rank_left, DIAG_CRASH, diag_rank_left, "rank_status events",                                       \
	     "a rank's process ended without an error before the failure")                                      \
	RULE(rank_vanished, DIAG_CRASH, diag_rank_vanished, "rank_status events",                               \
	     "a rank died with no launcher to say so: its peers' connections closed")                           \
	RULE(network_error, DIAG_CRASH, diag_network_error, "events rank_status",                               \
	     "NCCL's own InfiniBand/RoCE error on a rank, with no death to explain it and no timeout")          \
	RULE(launcher_teardown, DIAG_CRASH, diag_launcher_teardown, "events",                                  \
	     "a launcher took its workers down after one failed; the lines name no rank for it")               \
	RULE(mismatch, DIAG_HANG, diag_mismatch, "collectives events",                                           \
	     "the ranks called different collectives at one sequence number of a group")                         \
	RULE(p2p, DIAG_HANG, diag_p2p, "fr_entries collectives events",                                          \
	     "a transfer (send or receive) one rank never posted or went past")                                 \
	RULE(stalled, DIAG_HANG, diag_stalled, "collectives pg_status rank_status",                             \
	     "a rank that never enqueued the call its peers waited in")                                         \
	RULE(late_start, DIAG_HANG, diag_late_start, "collectives rank_status",                                  \
	     "ranks whose timed-out call began late: stalled before it")                                        \
	RULE(unresponsive, DIAG_HANG, diag_unresponsive, "rank_status events",                                   \
	     "ranks or a host that went silent and answered nothing")                                           \
	RULE(stalled_text, DIAG_HANG, diag_stalled_text, "collectives rank_status",                              \
	     "a rank behind its peers by the logs' text alone (no dumps)")                                      \
	RULE(alone, DIAG_HANG, diag_alone, "collectives events",                                                 \
	     "a timeout in a group of one member: the rank's own GPU")                                          \
	RULE(not_started, DIAG_HANG, diag_not_started, "collectives",                                            \
	     "a call a peer's GPU started and the rank's never did")                                            \
	RULE(skipped_call, DIAG_HANG, diag_skipped_call, "collectives",                                          \
	     "a call the peers completed that a rank skipped, going on")                                        \
	RULE(absent, DIAG_HANG, diag_absent, "rank_status ranks",                                                \
	     "every rank with logs waited on ranks that have none")                                             \
	RULE(stuck, DIAG_HANG, diag_stuck, "rank_status events",                                                 \
	     "a rank that never came back after the abort")                                                     \
	RULE(stuck_group, DIAG_HANG, diag_stuck_group, "collectives",                                            \
	     "every wait leads to one call a small group all made")                                             \
	RULE(benchmark, DIAG_END, diag_benchmark, "bandwidth events",                                           \
	     "an nccl-tests run that ended: its bandwidth, and whether its checks passed")                      \
	RULE(completed_mismatch, DIAG_END, diag_completed_mismatch, "collectives",                               \
	     "a job that ended, though its ranks called different collectives")                                 \
	RULE(transfer_counts, DIAG_END, diag_transfer_counts, "events",                                          \
	     "a job that ended, though a pair of ranks counted its transfers differently")                      \
	RULE(completed, DIAG_END, diag_completed, "events collectives rank_status",                              \
	     "the job completed (with its straggler, if one held it up)")                                       \
	RULE(untimed_timeouts, DIAG_UNTIMED, diag_untimed_timeouts, "events rank_status",                        \
	     "watchdog timeouts in lines without times: a hang at the call they name")                          \
	RULE(untimed_mismatch, DIAG_UNTIMED, diag_untimed_mismatch, "collectives",                               \
	     "a hang nobody reported: the ranks called different collectives at one site")                      \
	RULE(silent_hang, DIAG_UNTIMED, diag_silent_hang, "collectives rank_status",                             \
	     "a hang nobody reported: the rank behind the others")                                              \
	RULE(unknown, DIAG_LAST, diag_unknown, "rank_status events",                                             \
	     "no rule decided: what the logs show, and what is missing")

#define DIAG_RULE_PROTO(id, family, fn, reads, what) bool fn(struct diagnosis *d);
DIAG_RULES(DIAG_RULE_PROTO)
#undef DIAG_RULE_PROTO

#endif
