/* grammar_internal.h: the rule and grammar structures shared by
 * grammar_load.c, grammar_match.c and grammar_selftest.c only. */
#ifndef NF_GRAMMAR_INTERNAL_H
#define NF_GRAMMAR_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "grammar.h"

struct rule_regex {
	char *pattern;
	pcre2_code *code;
	/* named groups: number -> name */
	int ngroups;
	int group_num[GRAMMAR_MAX_FIELDS];
	char *group_name[GRAMMAR_MAX_FIELDS];
};

struct rule {
	char *name;
	char *event_kind;  /* the kind of its events (`event KIND`); NULL: its name */
	char *file;
	int line_no;        /* where "rule" was written */
	size_t index;       /* load order */
	int family;         /* FAM_* or FAM_ANY */
	char level;         /* 0 = any level */
	char *class_name;   /* marker class; "info" by default */
	int keep;           /* > 0: keep only the last `keep` matches per stream (see docs/grammars.md) */
	char *keep_per;     /* the capture that splits streams further ("comm"), or NULL */
	char *starts;       /* message prefix literal, or NULL */
	size_t starts_len;
	char *contains;     /* literal the message must contain, or NULL */
	size_t contains_len;
	struct rule_regex *regex;
	size_t nregex, regex_cap;
	struct rule_sample *samples;
	size_t nsamples, samples_cap;
};

/* A dispatch list: candidate rules for one family and one first byte. */
struct rule_list {
	const struct rule **items;
	size_t n;
};

struct grammar {
	struct rule **rules;
	size_t nrules, rules_cap;
	struct rule_list dispatch[FAM_COUNT][256];
	struct grammar_limits limits;
	bool finished;
	/* by rule index: the files in which matching disabled the rule (atomic:
	 * every matcher adds to it; see grammar_matcher_begin_file) */
	int *disabled_files;
};

/* What matching changes, per rule and per matcher (grammar.h). */
struct rule_state {
	long limit_hits;    /* matches that gave up at a PCRE2 limit */
	long costly;        /* matches over the costly_steps budget */
	long tries, hits;   /* regex runs and matches (NCCLFORENSIC_PROFILE_RULES) */
	bool disabled;      /* gave up or cost too often: no longer tried */
};

struct grammar_matcher {
	const struct grammar *g;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	pcre2_match_context *mctx_cheap; /* limited to costly_steps */
	long costly_lines;
	const struct rule *last_costly_disabled; /* see grammar_take_costly() */
	long limit_hits;
	const struct rule *last_limit_rule; /* see grammar_take_limit_hit() */
	bool last_limit_disabled;
	struct rule_state *rs;            /* by rule index */
};

#endif
