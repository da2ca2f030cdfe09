/* grammar.h: log patterns as data (the .rules files in grammars/), compiled with PCRE2 JIT.
 *
 * A rule turns a matching line into an event of kind <rule name>, with its
 * named captures as fields. Every rule carries real sample lines; a sample that
 * does not produce its own rule's event (with the expected fields) is a failing
 * self-test. The file format is documented in docs/grammars.md. */
#ifndef NF_GRAMMAR_H
#define NF_GRAMMAR_H

#include <stdbool.h>
#include <stddef.h>

#include "line_prefix.h"
#include "util.h"

#define GRAMMAR_MAX_FIELDS 24
#define FAM_ANY FAM_COUNT /* a rule for every family */

struct rule;
struct grammar;

struct rule_sample {
	char *line;     /* the raw line, with its wrappers and header */
	char *expect;   /* "name=value name2=\"v w\"" or NULL */
	char *file;     /* where it was written, for messages */
	int line_no;
};

struct match_field {
	const char *name;
	const char *value; /* points into the matched line */
	size_t len;
};

struct grammar_match {
	const struct rule *rule;
	int nfields;
	struct match_field fields[GRAMMAR_MAX_FIELDS];
};

/* Limits on each regex match (catastrophic patterns end with an error), and
 * the budget of a rule: a match that needs more than costly_steps of PCRE2's
 * match steps is costly (tried again up to match_limit, so the result does
 * not change); a rule costly on GRAMMAR_COSTLY_AFTER lines is disabled.
 * Counted in steps, not in time: the case does not depend on the machine. */
struct grammar_limits {
	unsigned match_limit;
	unsigned depth_limit;
	unsigned costly_steps;
};

struct grammar *grammar_new(void);
void grammar_free(struct grammar *g);
/* Loads every *.rules file of dir (sorted by name). Returns -1 and fills err
 * on the first bad file ("file:line: message"). */
int grammar_load_dir(struct grammar *g, const char *dir, struct errbuf *err);
int grammar_load_file(struct grammar *g, const char *path, struct errbuf *err);
/* Builds the dispatch tables; call once after loading. */
void grammar_finish(struct grammar *g);

/* The directories rules are read from, in order: the built-in directory
 * (next to the binary or under the install prefix), $NCCLFORENSIC_GRAMMARS
 * (colon-separated) and each --grammar-dir. Loads them all. */
int grammar_load_default(struct grammar *g, const char *const *extra_dirs, size_t n_extra,
			 struct errbuf *err);
/* The built-in grammar directory that grammar_load_default() found. */
const char *grammar_builtin_dir(void);

/* What one thread's matching changes: PCRE2's match data and contexts, the
 * counts of limits and costly matches and the rules disabled for them. The
 * grammar itself is read-only once finished (threads may share it); each
 * thread matches with a matcher of its own. */
struct grammar_matcher;
struct grammar_matcher *grammar_matcher_new(const struct grammar *g);
/* Frees it (NCCLFORENSIC_PROFILE_RULES=1: its busiest rules on stderr first). */
void grammar_matcher_free(struct grammar_matcher *mt);

/* Matches a parsed line; true and *m filled on the first rule that matches.
 * A regex that exceeds its limits counts as no match and is counted in
 * grammar_limit_hits(). */
bool grammar_match(struct grammar_matcher *mt, const struct line_parts *lp, struct grammar_match *m);
long grammar_limit_hits(const struct grammar_matcher *mt);
/* A rule whose regex gave up at a PCRE2 limit GRAMMAR_DISABLE_AFTER times in
 * a file is no longer tried on the rest of that file (a catastrophic pattern
 * must not stall the ingest); once it was disabled in GRAMMAR_DISABLE_FILES
 * files, it is not tried on the files begun after that either. Per file, so
 * that what a file's lines make does not depend on which thread read which
 * file before it; past GRAMMAR_DISABLE_FILES files it does (a hostile
 * grammar or input), for the ingest's sake. */
#define GRAMMAR_DISABLE_AFTER 8
#define GRAMMAR_DISABLE_FILES 4
/* A rule costly (see grammar_limits) on this many lines of a file is no
 * longer tried on it (and as above). */
#define GRAMMAR_COSTLY_AFTER 256
/* The matcher starts a file: the rules disabled in the file before are
 * tried again, unless disabled in GRAMMAR_DISABLE_FILES files. */
void grammar_matcher_begin_file(struct grammar_matcher *mt);
/* " for the rest of this file", or of the ingest: for a message about r. */
const char *grammar_disabled_for(const struct grammar *g, const struct rule *r);
/* Adds from's counts (limits, costly lines, profile) to to's; from's are zeroed. */
void grammar_matcher_merge(struct grammar_matcher *to, struct grammar_matcher *from);
/* The rule whose regex gave up at a limit during the last grammar_match()
 * calls, or NULL; clears it. *disabled (if not NULL) tells whether the rule
 * has just been disabled. */
const struct rule *grammar_take_limit_hit(struct grammar_matcher *mt, bool *disabled);
/* The rule disabled for its cost during the last grammar_match() calls, or
 * NULL; clears it. */
const struct rule *grammar_take_costly(struct grammar_matcher *mt);
/* Lines on which some rule was costly, over the matcher's life. */
long grammar_costly_lines(const struct grammar_matcher *mt);
unsigned grammar_costly_steps(const struct grammar *g);

size_t grammar_rule_count(const struct grammar *g);
const struct rule *grammar_rule(const struct grammar *g, size_t i);
const char *rule_name(const struct rule *r);
/* The kind of the events it writes: its name unless an `event` line says another
 * (several rules of different families may write one kind). */
const char *rule_event_kind(const struct rule *r);
const char *rule_class(const struct rule *r);
const char *rule_file(const struct rule *r);
/* > 0 when only the last N matches per stream are kept as events (the
 * stream: the member, the process, and the `per` capture if any). */
int rule_keep(const struct rule *r, const char **per);
int rule_line(const struct rule *r); /* where "rule NAME" is written */
int rule_family(const struct rule *r);
size_t rule_index(const struct rule *r);
size_t rule_sample_count(const struct rule *r);
const struct rule_sample *rule_sample(const struct rule *r, size_t i);

/* Runs every sample through the full line path; prints one line per failure
 * to out (if not NULL) and returns the number of failures. *n_checked gets
 * the number of samples checked. */
int grammar_selftest(const struct grammar *g, void *out_file, int *n_checked);

#endif
