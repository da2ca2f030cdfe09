/* grammar_selftest.c: every sample line must produce its own rule's event with
 * the expected fields, and every regex of a rule must match one of its samples. */
#include "grammar_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Next "name=value" or name="value with spaces" of an expect list. */
static bool next_expect(const char **pp, char *name, size_t nn, char *val, size_t vn)
{
	const char *p = *pp;
	while (*p == ' ')
		p++;
	if (!*p)
		return false;
	const char *eq = strchr(p, '=');
	if (!eq)
		return false;
	snprintf(name, nn, "%.*s", (int)(eq - p), p);
	p = eq + 1;
	size_t i = 0;
	if (*p == '"') {
		p++;
		while (*p && *p != '"') {
			if (*p == '\\' && p[1])
				p++;
			if (i + 1 < vn)
				val[i++] = *p;
			p++;
		}
		if (*p == '"')
			p++;
	} else {
		while (*p && *p != ' ') {
			if (i + 1 < vn)
				val[i++] = *p;
			p++;
		}
	}
	val[i] = '\0';
	*pp = p;
	return true;
}

static int check_sample(struct grammar_matcher *mt, const struct rule *r, const struct rule_sample *s,
			FILE *out)
{
	struct line_parts lp;
	struct grammar_match m;
	line_parts_parse(s->line, strlen(s->line), line_has_srun_label(s->line, strlen(s->line)), &lp);
	if (!grammar_match(mt, &lp, &m)) {
		if (out)
			fprintf(out, "%s:%d: rule %s: sample matches no rule (family %s): %s\n", s->file,
				s->line_no, r->name, family_name(lp.family), s->line);
		return 1;
	}
	if (m.rule != r) {
		if (out)
			fprintf(out, "%s:%d: rule %s: sample is taken by rule %s (%s:%d) first\n", s->file,
				s->line_no, r->name, m.rule->name, m.rule->file, m.rule->line_no);
		return 1;
	}
	int bad = 0;
	const char *p = s->expect;
	char name[64], val[1024];
	while (p && next_expect(&p, name, sizeof(name), val, sizeof(val))) {
		int found = -1;
		for (int i = 0; i < m.nfields; i++)
			if (strcmp(m.fields[i].name, name) == 0)
				found = i;
		if (found < 0) {
			if (out)
				fprintf(out, "%s:%d: rule %s: field %s not captured\n", s->file, s->line_no,
					r->name, name);
			bad = 1;
			continue;
		}
		const struct match_field *f = &m.fields[found];
		if (strlen(val) != f->len || memcmp(val, f->value, f->len) != 0) {
			if (out)
				fprintf(out, "%s:%d: rule %s: field %s is '%.*s', expected '%s'\n", s->file,
					s->line_no, r->name, name, (int)f->len, f->value, val);
			bad = 1;
		}
	}
	return bad;
}

/* Each regex variant must match at least one sample of its rule. */
static int check_variants(struct grammar_matcher *mt, const struct rule *r, FILE *out)
{
	int bad = 0;
	for (size_t k = 0; k < r->nregex; k++) {
		bool hit = false;
		for (size_t i = 0; i < r->nsamples && !hit; i++) {
			struct line_parts lp;
			const char *line = r->samples[i].line;
			line_parts_parse(line, strlen(line), line_has_srun_label(line, strlen(line)), &lp);
			int rc = pcre2_match(r->regex[k].code, (PCRE2_SPTR)lp.msg, lp.msg_len, 0, 0, mt->md, mt->mctx);
			hit = rc >= 0;
		}
		if (!hit) {
			if (out)
				fprintf(out, "%s:%d: rule %s: regex variant %zu matches none of its samples: %s\n",
					r->file, r->line_no, r->name, k + 1, r->regex[k].pattern);
			bad++;
		}
	}
	return bad;
}

int grammar_selftest(const struct grammar *g, void *out_file, int *n_checked)
{
	FILE *out = out_file;
	int failures = 0, checked = 0;
	/* a matcher of its own: the samples' limit hits are not the input's */
	struct grammar_matcher *mt = grammar_matcher_new(g);
	for (size_t i = 0; i < g->nrules; i++) {
		const struct rule *r = g->rules[i];
		for (size_t k = 0; k < r->nsamples; k++) {
			failures += check_sample(mt, r, &r->samples[k], out);
			checked++;
		}
		failures += check_variants(mt, r, out);
	}
	if (n_checked)
		*n_checked = checked;
	grammar_matcher_free(mt);
	return failures;
}
