/* verdict_vocab.h: the words of a verdict, each list in one place: the
 * outcomes, the causes and the confidences, with how a report says them.
 * The diagnosis writes OUTCOME(x), CAUSE(x) and CONFIDENCE(x), which are
 * the strings the case stores and fail to compile for a word that is not in
 * its list; the reports take their wording from the same lists; docs/schema.md
 * and docs/report-json.md list the same words (tests/t_docs.sh checks). */
#ifndef NF_VERDICT_VOCAB_H
#define NF_VERDICT_VOCAB_H

#include <stddef.h>

/* X(id, title word, sentence) */
#define VERDICT_OUTCOMES(X)                                                                    \
	X(hang, "Hang", "The job hung")                                                          \
	X(crash, "Crash", "The job crashed")                                                     \
	X(init_failure, "Initialisation failure", "The job failed while initialising its communicators") \
	X(completed, "Completed", "The job ran to completion")                                   \
	X(cancelled, "Cancelled", "The job was stopped from outside")                             \
	X(unknown, "Unknown outcome", "The job failed")

/* X(id, in a title, in a sentence ("... on host: it/they ...")) */
#define VERDICT_CAUSES(X)                                                                        \
	X(rank_stalled, "stalled", "stalled (stopped making progress without an error)")          \
	X(rank_exited, "exited", "exited while the job was still running")                        \
	X(node_unresponsive, "stopped responding", "stopped responding (the whole node froze)")   \
	X(app_exception, "raised an exception", "raised an exception in the application")         \
	X(collective_mismatch, "called a mismatched collective", "called a different collective than the peers") \
	X(init_failure, "failed to initialise", "failed to set up the communicator")              \
	X(network, "hit a network error", "hit a network error")                                   \
	X(gpu_fault, "hit a GPU fault", "hit a GPU fault")                                         \
	X(straggler, "was a straggler", "ran consistently slower than the peers (a straggler)")   \
	X(none, "failed", "failed for a reason the analysis could not name")                      \
	X(unknown, "failed", "failed for a reason the analysis could not name")

#define VERDICT_CONFIDENCES(X) X(high) X(medium) X(low)

#define VOCAB_ENUM(id, ...) VOCAB_##id,
enum verdict_outcome_id { VERDICT_OUTCOMES(VOCAB_ENUM) VOCAB_N_OUTCOMES };
#undef VOCAB_ENUM
#define VOCAB_ENUM(id, ...) VOCAB_CAUSE_##id,
enum verdict_cause_id { VERDICT_CAUSES(VOCAB_ENUM) VOCAB_N_CAUSES };
#undef VOCAB_ENUM
#define VOCAB_ENUM(id) VOCAB_CONF_##id,
enum verdict_confidence_id { VERDICT_CONFIDENCES(VOCAB_ENUM) VOCAB_N_CONFIDENCES };
#undef VOCAB_ENUM

/* The word as the case stores it; a word not in its list does not compile. */
#define OUTCOME(id) ((void)VOCAB_##id, #id)
#define CAUSE(id) ((void)VOCAB_CAUSE_##id, #id)
#define CONFIDENCE(id) ((void)VOCAB_CONF_##id, #id)

/* How a report says an outcome or a cause (sentence: 0 for a title, 1 for
 * a sentence); a word no list has gets the last entry's wording. */
const char *vocab_outcome_words(const char *outcome, int sentence);
const char *vocab_cause_words(const char *cause, int sentence);

#endif
