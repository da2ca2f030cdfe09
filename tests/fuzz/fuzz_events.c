/* fuzz_events.c: the event extractors: the built-in grammars (grammars/)
 * matched against every line of the input, as the ingest does (prefix
 * parser, dispatch, PCRE2 with its limits), and the fields turned to JSON.
 * Checks: a match names a rule of the grammar and its fields lie inside the
 * line's message. Run from the repository root, or set NF_GRAMMARS_DIR. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar.h"

static struct grammar *g;
static struct grammar_matcher *mt;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *dir = getenv("NF_GRAMMARS_DIR");
	g = grammar_new();
	struct errbuf err;
	if (grammar_load_dir(g, dir ? dir : "grammars", &err) < 0 || grammar_rule_count(g) == 0) {
		fprintf(stderr, "fuzz_events: cannot load the grammars (%s); run from the repository root\n",
			grammar_rule_count(g) ? err.msg : "no rules");
		exit(1);
	}
	grammar_finish(g);
	mt = grammar_matcher_new(g);
	return 0;
}

static void one_line(const char *line, size_t len, bool srun, struct buf *json)
{
	struct line_parts lp;
	struct grammar_match m;
	line_parts_parse(line, len, srun, &lp);
	if (!grammar_match(mt, &lp, &m))
		return;
	if (rule_index(m.rule) >= grammar_rule_count(g) || grammar_rule(g, rule_index(m.rule)) != m.rule)
		abort();
	buf_clear(json);
	buf_putc(json, '{');
	for (int i = 0; i < m.nfields; i++) {
		const struct match_field *f = &m.fields[i];
		if (f->len && (f->value < lp.msg || f->value + f->len > lp.msg + lp.msg_len))
			abort();
		buf_json_str(json, f->name, strlen(f->name));
		buf_putc(json, ':');
		buf_json_str(json, f->value, f->len);
	}
	buf_putc(json, '}');
	int64_t t;
	line_parts_time(&lp, 2026, INT64_MIN, &t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf json = {0};
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		/* an exact copy of the line, so a read past its end is caught */
		size_t len = (size_t)(le - p);
		char *line = malloc(len ? len : 1);
		memcpy(line, p, len);
		one_line(line, len, false, &json);
		one_line(line, len, true, &json);
		free(line);
		p = nl ? nl + 1 : end;
	}
	buf_free(&json);
	return 0;
}
