/* grammar_match.c: dispatch of parsed lines to candidate rules and PCRE2
 * matching. Candidates are found by the line's family and the first byte of
 * its message (rules with a "starts" literal), so a line meets few regexes. */
#include "grammar_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the "contains" prefilter ----
 *
 * Most lines match no rule, and a family has a few dozen rules that only
 * say "contains <literal>": trying them one memmem() at a time costs more
 * than the rest of the line's path. Instead, the literals of a family are
 * found in one pass over the message: each literal has an anchor (its
 * rarest byte pair, by a rough frequency of log text), a 64K-bit set tells
 * whether a byte pair of the message is some literal's anchor, and only
 * then are the literals with that anchor compared. The answer (a bit per
 * literal) is exactly memmem()'s; literals beyond PF_MAX, and those of one
 * byte, fall back to memmem().
 *
 * The prefilter lives beside the grammar (struct grammar is shared with
 * grammar_load.c): a small table keyed by the grammar, rebuilt by
 * grammar_finish(), which every grammar goes through before matching. */

#define PF_WORDS 2
#define PF_MAX (64 * PF_WORDS)
#define PF_SLOTS 8

/* a set of literals, a bit each */
struct pf_set {
	uint64_t w[PF_WORDS];
};

struct pf_family {
	int n;
	const char *lit[PF_MAX];
	uint32_t len[PF_MAX];
	uint32_t off[PF_MAX];         /* where the anchor pair sits in the literal */
	unsigned char second[PF_MAX]; /* the anchor's second byte */
	struct pf_set by_first[256];  /* literals whose anchor starts with this byte */
	uint64_t pairs[65536 / 64];   /* anchor pairs */
};

struct prefilter {
	const struct grammar *g;
	unsigned long stamp;
	struct pf_family fam[FAM_COUNT];
	/* parallel to g->dispatch[f][b].items: the literal of each rule, -1 for
	 * none or for one the scan does not know (memmem then) */
	int8_t *lit_of[FAM_COUNT][256];
};

static struct prefilter *pf_slots[PF_SLOTS];
static unsigned long pf_clock;

/* A rough rarity of bytes in log text: lower is rarer. */
static int byte_weight(unsigned char c)
{
	static const char common[] = " etaoinsrlcdhumpfgy0123456789.:_-/=,";
	if (c >= 'A' && c <= 'Z')
		return 3;
	const char *s = c ? strchr(common, c) : NULL;
	if (s)
		return 40 - (int)(s - common) / 2;
	return c >= 'a' && c <= 'z' ? 12 : 2;
}

static int pf_literal(struct pf_family *f, const char *lit, size_t len)
{
	for (int i = 0; i < f->n; i++)
		if (f->len[i] == len && memcmp(f->lit[i], lit, len) == 0)
			return i;
	if (f->n == PF_MAX || len < 2 || len > UINT32_MAX)
		return -1;
	int k = f->n++;
	size_t best = 0;
	int best_w = 1 << 30;
	for (size_t i = 0; i + 1 < len; i++) {
		int w = byte_weight((unsigned char)lit[i]) * byte_weight((unsigned char)lit[i + 1]);
		if (w < best_w) {
			best_w = w;
			best = i;
		}
	}
	unsigned a = (unsigned char)lit[best], b = (unsigned char)lit[best + 1];
	f->lit[k] = lit;
	f->len[k] = (uint32_t)len;
	f->off[k] = (uint32_t)best;
	f->second[k] = (unsigned char)b;
	f->by_first[a].w[k / 64] |= 1ull << (k % 64);
	unsigned pair = a << 8 | b;
	f->pairs[pair >> 6] |= 1ull << (pair & 63);
	return k;
}

/* A grammar's prefilter (built by grammar_finish; evicted oldest-built first). */
static struct prefilter *pf_for(const struct grammar *g)
{
	for (int i = 0; i < PF_SLOTS; i++)
		if (pf_slots[i] && pf_slots[i]->g == g)
			return pf_slots[i]; /* read-only: matching threads share it */
	return NULL;
}

static void pf_build(const struct grammar *g)
{
	struct prefilter *pf = pf_for(g);
	if (!pf) {
		int slot = 0;
		for (int i = 0; i < PF_SLOTS; i++) {
			if (!pf_slots[i]) {
				slot = i;
				break;
			}
			if (pf_slots[i]->stamp < pf_slots[slot]->stamp)
				slot = i;
		}
		if (!pf_slots[slot])
			pf_slots[slot] = xcalloc(1, sizeof(*pf));
		pf = pf_slots[slot];
	}
	for (int f = 0; f < FAM_COUNT; f++)
		for (int b = 0; b < 256; b++)
			free(pf->lit_of[f][b]);
	memset(pf, 0, sizeof(*pf));
	pf->g = g;
	pf->stamp = ++pf_clock;
	for (size_t i = 0; i < g->nrules; i++) {
		const struct rule *r = g->rules[i];
		if (!r->contains)
			continue;
		for (int f = 0; f < FAM_COUNT; f++)
			if (r->family == f || r->family == FAM_ANY)
				pf_literal(&pf->fam[f], r->contains, r->contains_len);
	}
	for (int f = 0; f < FAM_COUNT; f++)
		for (int b = 0; b < 256; b++) {
			const struct rule_list *l = &g->dispatch[f][b];
			if (!l->n)
				continue;
			int8_t *k = xmalloc(l->n);
			for (size_t i = 0; i < l->n; i++) {
				const struct rule *r = l->items[i];
				k[i] = -1;
				for (int j = 0; r->contains && j < pf->fam[f].n; j++)
					if (pf->fam[f].len[j] == r->contains_len &&
					    memcmp(pf->fam[f].lit[j], r->contains, r->contains_len) == 0)
						k[i] = (int8_t)j;
			}
			pf->lit_of[f][b] = k;
		}
}

/* Which literals of the family occur in msg: bit k for literal k. */
static struct pf_set pf_scan(const struct pf_family *f, const char *msg, size_t n)
{
	struct pf_set found = {{0}};
	const unsigned char *s = (const unsigned char *)msg;
#define PF_HIT(j) ((f->pairs[((unsigned)s[j] << 8 | s[(j) + 1]) >> 6] >> (s[(j) + 1] & 63)) & 1)
	for (size_t i = 0; i + 1 < n; i++) {
		/* most bytes start no anchor: four pairs at a time, one branch */
		while (i + 4 < n && !(PF_HIT(i) | PF_HIT(i + 1) | PF_HIT(i + 2) | PF_HIT(i + 3)))
			i += 4;
		if (i + 1 >= n)
			break;
		if (!PF_HIT(i))
			continue;
		for (int w = 0; w < PF_WORDS; w++)
			for (uint64_t m = f->by_first[s[i]].w[w] & ~found.w[w]; m; m &= m - 1) {
				int k = w * 64 + __builtin_ctzll(m);
				if (f->second[k] != s[i + 1] || i < f->off[k])
					continue;
				size_t at = i - f->off[k];
				if (f->len[k] <= n - at && memcmp(s + at, f->lit[k], f->len[k]) == 0)
					found.w[w] |= 1ull << (k % 64);
			}
	}
	return found;
#undef PF_HIT
}

/* Does the message contain the rule's literal (number k in the family's
 * scan, -1: not in it)? Same answer as memmem(). */
static bool pf_contains(const struct pf_family *f, int k, const struct rule *r, const char *msg, size_t n,
			struct pf_set *found, bool *scanned)
{
	if (!r->contains_len)
		return true;
	if (k < 0 || !f)
		return memmem(msg, n, r->contains, r->contains_len) != NULL;
	if (!*scanned) {
		*found = pf_scan(f, msg, n);
		*scanned = true;
	}
	return (found->w[k / 64] >> (k % 64)) & 1;
}

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
	pf_build(g);
	free(g->disabled_files);
	g->disabled_files = xcalloc(g->nrules + 1, sizeof(*g->disabled_files));
	g->finished = true;
}

struct grammar_matcher *grammar_matcher_new(const struct grammar *g)
{
	struct grammar_matcher *mt = xcalloc(1, sizeof(*mt));
	mt->g = g;
	mt->md = pcre2_match_data_create(GRAMMAR_MAX_FIELDS * 2 + 2, NULL);
	mt->mctx = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(mt->mctx, g->limits.match_limit);
	pcre2_set_depth_limit(mt->mctx, g->limits.depth_limit);
	mt->mctx_cheap = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(mt->mctx_cheap, g->limits.costly_steps);
	pcre2_set_depth_limit(mt->mctx_cheap, g->limits.depth_limit);
	mt->rs = xcalloc(g->nrules + 1, sizeof(*mt->rs));
	return mt;
}

/* NCCLFORENSIC_PROFILE_RULES=1: the rules whose regexes ran most, on stderr
 * (a rule without a literal, or with a common one, runs on many lines). */
static void profile_rules(const struct grammar_matcher *mt)
{
	const char *env = getenv("NCCLFORENSIC_PROFILE_RULES");
	const struct grammar *g = mt->g;
	if (!env || !*env || !g->nrules)
		return;
	long tries = 0;
	for (size_t i = 0; i < g->nrules; i++)
		tries += mt->rs[i].tries;
	if (!tries)
		return;
	size_t *order = xmalloc(g->nrules * sizeof(*order));
	for (size_t i = 0; i < g->nrules; i++)
		order[i] = i;
	/* a few hundred rules: a selection of the top 25 */
	size_t top = g->nrules < 25 ? g->nrules : 25;
	for (size_t i = 0; i < top; i++)
		for (size_t j = i + 1; j < g->nrules; j++)
			if (mt->rs[order[j]].tries > mt->rs[order[i]].tries) {
				size_t t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
	fprintf(stderr, "%-32s %12s %12s\n", "rule", "regex runs", "matches");
	for (size_t i = 0; i < top && mt->rs[order[i]].tries; i++)
		fprintf(stderr, "%-32s %12ld %12ld\n", g->rules[order[i]]->name, mt->rs[order[i]].tries,
			mt->rs[order[i]].hits);
	free(order);
}

void grammar_matcher_free(struct grammar_matcher *mt)
{
	if (!mt)
		return;
	profile_rules(mt);
	pcre2_match_data_free(mt->md);
	pcre2_match_context_free(mt->mctx);
	pcre2_match_context_free(mt->mctx_cheap);
	free(mt->rs);
	free(mt);
}

static void disabled_in_file(struct grammar_matcher *mt, const struct rule *r)
{
	struct rule_state *st = &mt->rs[r->index];
	if (st->disabled)
		return;
	st->disabled = true;
	if (mt->g->disabled_files)
		__atomic_add_fetch(&mt->g->disabled_files[r->index], 1, __ATOMIC_RELAXED);
}

void grammar_matcher_begin_file(struct grammar_matcher *mt)
{
	const struct grammar *g = mt->g;
	for (size_t i = 0; i < g->nrules; i++) {
		struct rule_state *st = &mt->rs[i];
		st->limit_hits = st->costly = 0;
		st->disabled = g->disabled_files &&
			       __atomic_load_n(&g->disabled_files[i], __ATOMIC_RELAXED) >= GRAMMAR_DISABLE_FILES;
	}
}

const char *grammar_disabled_for(const struct grammar *g, const struct rule *r)
{
	int files = g->disabled_files ? __atomic_load_n(&g->disabled_files[r->index], __ATOMIC_RELAXED) : 0;
	return files >= GRAMMAR_DISABLE_FILES ? " for the rest of this ingest (disabled in " NF_STR(GRAMMAR_DISABLE_FILES)
						" files)"
					      : " for the rest of this file";
}

void grammar_matcher_merge(struct grammar_matcher *to, struct grammar_matcher *from)
{
	to->costly_lines += from->costly_lines;
	to->limit_hits += from->limit_hits;
	from->costly_lines = from->limit_hits = 0;
	for (size_t i = 0; i < to->g->nrules; i++) {
		to->rs[i].tries += from->rs[i].tries;
		to->rs[i].hits += from->rs[i].hits;
		from->rs[i].tries = from->rs[i].hits = 0;
	}
}

static bool regex_match(struct grammar_matcher *mt, const struct rule_regex *rx, const char *s, size_t n,
			struct grammar_match *m, bool *costly)
{
	/* first within the cheap budget; past it, the match is costly and run
	 * again with the whole limit (so the result is the same either way) */
	int rc = pcre2_match(rx->code, (PCRE2_SPTR)s, n, 0, 0, mt->md, mt->mctx_cheap);
	*costly = rc == PCRE2_ERROR_MATCHLIMIT;
	if (*costly)
		rc = pcre2_match(rx->code, (PCRE2_SPTR)s, n, 0, 0, mt->md, mt->mctx);
	if (rc < 0) {
		if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
		    rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT)
			mt->limit_hits++;
		return false;
	}
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(mt->md);
	uint32_t npairs = pcre2_get_ovector_count(mt->md);
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

bool grammar_match(struct grammar_matcher *mt, const struct line_parts *lp, struct grammar_match *m)
{
	const struct grammar *g = mt->g;
	const char *msg = lp->msg;
	size_t n = lp->msg_len;
	unsigned char b = n ? (unsigned char)msg[0] : 0;
	const struct rule_list *l = &g->dispatch[lp->family][b];
	const struct prefilter *pf = pf_for(g);
	const struct pf_family *pff = pf ? &pf->fam[lp->family] : NULL;
	const int8_t *lit_of = pf ? pf->lit_of[lp->family][b] : NULL;
	struct pf_set found = {{0}};
	bool scanned = false;
	for (size_t i = 0; i < l->n; i++) {
		const struct rule *r = l->items[i];
		struct rule_state *st = &mt->rs[r->index];
		if (st->disabled || (r->level && r->level != lp->level))
			continue;
		if (r->starts && (n < r->starts_len || memcmp(msg, r->starts, r->starts_len) != 0))
			continue;
		if (r->contains && !pf_contains(pff, lit_of ? lit_of[i] : -1, r, msg, n, &found, &scanned))
			continue;
		for (size_t k = 0; k < r->nregex; k++) {
			long hits = mt->limit_hits;
			bool costly;
			bool ok = regex_match(mt, &r->regex[k], msg, n, m, &costly);
			st->tries++;
			st->hits += ok;
			if (costly) {
				mt->costly_lines++;
				if (++st->costly >= GRAMMAR_COSTLY_AFTER) {
					disabled_in_file(mt, r);
					mt->last_costly_disabled = r;
				}
			}
			if (ok) {
				m->rule = r;
				return true;
			}
			if (mt->limit_hits != hits) {
				mt->last_limit_rule = r;
				mt->last_limit_disabled = ++st->limit_hits >= GRAMMAR_DISABLE_AFTER;
				if (mt->last_limit_disabled) {
					disabled_in_file(mt, r);
					break;
				}
			}
		}
	}
	return false;
}

const struct rule *grammar_take_costly(struct grammar_matcher *mt)
{
	const struct rule *r = mt->last_costly_disabled;
	mt->last_costly_disabled = NULL;
	return r;
}

unsigned grammar_costly_steps(const struct grammar *g)
{
	return g->limits.costly_steps;
}

long grammar_costly_lines(const struct grammar_matcher *mt)
{
	return mt->costly_lines;
}

long grammar_limit_hits(const struct grammar_matcher *mt)
{
	return mt->limit_hits;
}

const struct rule *grammar_take_limit_hit(struct grammar_matcher *mt, bool *disabled)
{
	const struct rule *r = mt->last_limit_rule;
	if (disabled)
		*disabled = r && mt->last_limit_disabled;
	mt->last_limit_rule = NULL;
	mt->last_limit_disabled = false;
	return r;
}
