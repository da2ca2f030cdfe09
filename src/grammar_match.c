/* grammar_match.c: dispatch of parsed lines to candidate rules and PCRE2
 * matching. Candidates are found by the line's family and the first byte of
 * its message (rules with a "starts" literal), so a line meets few regexes. */
#include "grammar_internal.h"

#include <stdlib.h>
#include <string.h>

static void list_add(struct rule_list *l, const struct rule *r)
{
	l->items = xrealloc(l->items, (l->n + 1) * sizeof(*l->items));
	l->items[l->n++] = r;
}

void grammar_finish(struct grammar *g)
{
	for (int f = 0; f < FAM_COUNT; f++)
		for (int b = 0; b < 256; b++) {
			free(g->dispatch[f][b].items);
			g->dispatch[f][b].items = NULL;
			g->dispatch[f][b].n = 0;
		}
	for (size_t i = 0; i < g->nrules; i++) {
		const struct rule *r = g->rules[i];
		for (int f = 0; f < FAM_COUNT; f++) {
			if (r->family != f && r->family != FAM_ANY)
				continue;
			if (r->starts && r->starts_len) {
				list_add(&g->dispatch[f][(unsigned char)r->starts[0]], r);
			} else {
				for (int b = 0; b < 256; b++)
					list_add(&g->dispatch[f][b], r);
			}
		}
	}
	if (!g->md)
		g->md = pcre2_match_data_create(GRAMMAR_MAX_FIELDS * 2 + 2, NULL);
	if (!g->mctx) {
		g->mctx = pcre2_match_context_create(NULL);
		pcre2_set_match_limit(g->mctx, g->limits.match_limit);
		pcre2_set_depth_limit(g->mctx, g->limits.depth_limit);
	}
	g->finished = true;
}

static bool regex_match(struct grammar *g, const struct rule_regex *rx, const char *s, size_t n,
			struct grammar_match *m)
{
	int rc = pcre2_match(rx->code, (PCRE2_SPTR)s, n, 0, 0, g->md, g->mctx);
	if (rc < 0) {
		if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
		    rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT)
			g->limit_hits++;
		return false;
	}
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(g->md);
	uint32_t npairs = pcre2_get_ovector_count(g->md);
	m->nfields = 0;
	for (int i = 0; i < rx->ngroups; i++) {
		uint32_t gi = (uint32_t)rx->group_num[i];
		if (gi >= npairs || (int)gi >= rc || ov[2 * gi] == PCRE2_UNSET)
			continue;
		struct match_field *f = &m->fields[m->nfields++];
		f->name = rx->group_name[i];
		f->value = s + ov[2 * gi];
		f->len = ov[2 * gi + 1] - ov[2 * gi];
	}
	return true;
}

bool grammar_match(const struct grammar *g_const, const struct line_parts *lp, struct grammar_match *m)
{
	struct grammar *g = (struct grammar *)g_const; /* match data is scratch */
	const char *msg = lp->msg;
	size_t n = lp->msg_len;
	unsigned char b = n ? (unsigned char)msg[0] : 0;
	const struct rule_list *l = &g->dispatch[lp->family][b];
	for (size_t i = 0; i < l->n; i++) {
		const struct rule *r = l->items[i];
		if (r->level && r->level != lp->level)
			continue;
		if (r->starts && (n < r->starts_len || memcmp(msg, r->starts, r->starts_len) != 0))
			continue;
		if (r->contains && !memmem(msg, n, r->contains, r->contains_len))
			continue;
		for (size_t k = 0; k < r->nregex; k++) {
			if (regex_match(g, &r->regex[k], msg, n, m)) {
				m->rule = r;
				return true;
			}
		}
	}
	return false;
}

long grammar_limit_hits(const struct grammar *g)
{
	return g->limit_hits;
}
