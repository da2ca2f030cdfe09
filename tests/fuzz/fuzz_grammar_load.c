/* fuzz_grammar_load.c: the .rules loader on arbitrary files, then the
 * self-test and matching of every sample of what loaded (so hostile regexes
 * meet the PCRE2 match and depth limits).
 * Checks: a failed load always says why, naming the file; a loaded grammar
 * survives finish, self-test, matching and free. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grammar.h"

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/nf-fuzz-grammar-%ld.rules", (long)getpid());
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);

	struct grammar *g = grammar_new();
	struct errbuf err = {{0}};
	if (grammar_load_file(g, path, &err) < 0) {
		if (!strstr(err.msg, path))
			abort();
	} else {
		grammar_finish(g);
		int n = 0;
		grammar_selftest(g, NULL, &n);
		struct grammar_matcher *mt = grammar_matcher_new(g);
		for (size_t i = 0; i < grammar_rule_count(g); i++) {
			const struct rule *r = grammar_rule(g, i);
			if (!rule_name(r) || !rule_class(r) || rule_index(r) != i)
				abort();
			for (size_t k = 0; k < rule_sample_count(r); k++) {
				const char *line = rule_sample(r, k)->line;
				struct line_parts lp;
				struct grammar_match m;
				line_parts_parse(line, strlen(line), true, &lp);
				if (grammar_match(mt, &lp, &m) && (m.nfields < 0 || m.nfields > GRAMMAR_MAX_FIELDS))
					abort();
			}
		}
		grammar_limit_hits(mt);
		grammar_matcher_free(mt);
	}
	grammar_free(g);
	unlink(path);
	return 0;
}
