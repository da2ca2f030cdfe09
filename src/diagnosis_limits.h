/* diagnosis_limits.h: every threshold the diagnosis decides by, named once,
 * with what it means. docs/diagnosis.md's "Limits" table says each in a
 * sentence (tests/t_docs.sh checks that every name here is there). Times in
 * microseconds. */
#ifndef NF_DIAGNOSIS_LIMITS_H
#define NF_DIAGNOSIS_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

/* NCCL's warnings carry whole seconds ("[2026-12-01 05:06:04]"): a time
 * from them may be up to this much early. */
#define WHOLE_SECOND_US 1000000LL
/* Slack between clocks of different loggers and hosts, and the launcher's
 * polling delay: failures this close are "at the same time". */
#define SLACK_US (30 * 1000000LL)
/* How late a launcher may report a death it polls for. */
#define LAUNCHER_LAG_US (5 * 1000000LL)
/* Deaths (and ends without an error) this close to the first are named
 * with it: ranks that went together. */
#define DIED_TOGETHER_US (5 * 1000000LL)
/* Exceptions of the same type this close to the first are the same
 * failure on several ranks. */
#define SAME_EXCEPTION_US (2 * 1000000LL)
/* How long after the first failure a live process shows signs of life. */
#define ALIVE_WINDOW_US (60 * 1000000LL)
/* A rank's lines this much before the first failure do not count as signs
 * of life around it. */
#define ALIVE_BEFORE_US 1000000LL
/* A rank whose watchdog was not running (it reported far past its
 * timeout) thawed then: its lines from this much before that report on came
 * after the hang. */
#define THAW_MARGIN_US 1000000LL
/* A watchdog that was not running: its report came at more than
 * THAW_RATIO times its timeout plus THAW_EXTRA_MS, or its first report
 * THAW_FIRST_LATE_MS or more past the timeout (watchdogs report within a
 * second of it). SQL text, in ms. */
#define THAW_RATIO "1.5"
#define THAW_EXTRA_MS "10000"
#define THAW_FIRST_LATE_MS "5000"
/* Late arrivals and late starts this close to each other are ranks that
 * stalled together (hosts' clocks may differ by this much). */
#define LATE_MARGIN_US 1000000LL
/* How long every rank must have been silent before the first failure for
 * it to be the teardown of a hang rather than its cause: with a launcher
 * told to stop from outside at that moment, and without. */
#define TEARDOWN_SILENCE_SIGNALLED_US (30 * 1000000LL)
#define TEARDOWN_SILENCE_US (60 * 1000000LL)
/* How recently every rank must have logged before a stop from outside to
 * count as running then. */
#define RUNNING_SILENCE_US (10 * 1000000LL)
/* How much longer than the quickest rank's return from its abort a rank
 * must have gone on logging without returning to count as stuck. */
#define STUCK_MARGIN_US 100000LL
/* Ranks that went silent this close to a lost connection went with it. */
#define SILENT_AT_LOSS_US 1000000LL
/* How much earlier than the call in a group of one a timed-out call of
 * another group must have begun, by the watchdogs' "ran for" (logged by
 * different threads), to have been queued before it (SQL text). */
#define BEGUN_MARGIN_US "50000"
/* A straggler: at least this many collectives compared, late by at least
 * this much on average, and this many times the next slowest rank. */
#define STRAGGLER_MIN_SAMPLES 20
#define STRAGGLER_MIN_LATE_US 50000
#define STRAGGLER_FACTOR 3.0
/* and the last to enqueue at least this share of the calls (one of them,
 * for a few ranks alike) */
#define STRAGGLER_LAST_SHARE 0.5
/* A clock this far off its peers' (how late it sees collectives complete)
 * is said in a straggler's verdict, which is then net of it. */
#define STRAGGLER_CLOCK_LAG_US 100000

/* n of total: more than half (a cause shared by the many is likelier than
 * each of them failing on its own), fewer than half. */
static inline bool diag_majority(size_t n, size_t total)
{
	return 2 * n > total;
}
static inline bool diag_minority(size_t n, size_t total)
{
	return 2 * n < total;
}
/* The fraction of the ranks that can each be a culprit when stuck alike
 * at once (a node's ranks, the ranks that took one branch): a third. More
 * say nothing of who started it (diag_few). */
#define FEW_RANKS_DIVISOR 3

#endif
